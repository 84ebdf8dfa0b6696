"""Structured-config dataclasses: every config group is checked against one of these.

``validate(cfg)`` merges a composed config into the schema, so a misspelt key
or a wrong type fails with OmegaConf's message naming the key, before any
work starts; ``check_values`` then checks names against Beacon's registries.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from omegaconf import MISSING, DictConfig, OmegaConf

from experiments.errors import UsageError


@dataclass
class MethodConf:
    name: str = MISSING
    params: Dict[str, Any] = field(default_factory=dict)
    composer: Optional[str] = None  # "blend": a recipe of beacon.retrieval.blend (conf/method/*.yaml)


@dataclass
class QueryConf:
    type: str = MISSING


@dataclass
class ProviderConf:
    name: str = MISSING
    model: Optional[str] = None
    base_url: Optional[str] = None
    recordings: Optional[str] = None  # replay: a completions.jsonl
    max_tokens: int = 512
    # auto: constrain JSON edit formats with their schema when the provider can; off: never
    # (every run archived before structured output; reproduction assumes off when it is absent).
    structured_output: str = "auto"
    # Per edit format: {max_tokens, stop, temperature, seed}; unset keys fall back to max_tokens,
    # no stop strings, temperature 0 and seed 0.
    generation: Dict[str, Any] = field(default_factory=dict)
    options: Dict[str, Any] = field(default_factory=dict)


@dataclass
class EditFormatConf:
    name: str = MISSING


@dataclass
class PypiPinConf:
    """A PyPI sdist imported as ``<repos_dir>/<name>.git`` (tag ``<version>``) before the manifest loads."""

    name: str = MISSING
    version: str = MISSING
    sha256: str = MISSING  # of the sdist file; checked before it is used


@dataclass
class TasksConf:
    name: str = MISSING
    kind: str = "manifest"  # manifest | control (repair) | swebench (localization)
    manifest: Optional[str] = None  # repair: a JSONL task manifest
    instances: Optional[str] = None  # localization: SWE-bench-style instances (JSON or JSONL)
    more_instances: List[str] = field(default_factory=list)  # localization: more instance files, read after instances
    repos_dir: Optional[str] = None
    repos_dirs: List[str] = field(default_factory=list)  # localization: more folders searched after repos_dir
    split: Optional[str] = None  # localization: only instances whose "split" field is this (mined: tune/test)
    limit: Optional[int] = None  # first N tasks (development)
    pypi: List[PypiPinConf] = field(default_factory=list)  # repair: sdists materialized into repos_dir
    sdist_cache_dir: Optional[str] = None  # where pinned sdists are cached (null: ~/.cache/beacon/sdists)


@dataclass
class GridConf:
    """Optional in-job grid (used by the control benchmark); empty = the single values."""

    methods: List[str] = field(default_factory=list)
    budgets: List[int] = field(default_factory=list)
    edit_formats: List[str] = field(default_factory=list)
    query_types: List[str] = field(default_factory=list)


@dataclass
class PaperConf:
    feeds: List[str] = field(default_factory=list)  # figure/table labels this config feeds


@dataclass
class LimitsConf:
    """Per test run (beacon.repair.limits.Limits); 0 = no limit of that kind."""
    processes: int = 512
    memory_mb: int = 4096
    tmp_mb: int = 1024


@dataclass
class RepairConf:
    name: str = "repair"
    method: MethodConf = field(default_factory=MethodConf)
    query: QueryConf = field(default_factory=QueryConf)
    provider: ProviderConf = field(default_factory=ProviderConf)
    edit_format: EditFormatConf = field(default_factory=EditFormatConf)
    tasks: TasksConf = field(default_factory=TasksConf)
    grid: GridConf = field(default_factory=GridConf)
    paper: PaperConf = field(default_factory=PaperConf)
    budget: int = 2000
    dry_run: bool = False
    allow_local_execution: bool = False
    timeout_s: float = 60.0
    sandbox: str = "required"
    network: str = "deny"
    limits: LimitsConf = field(default_factory=LimitsConf)
    work_dir: Optional[str] = None
    cache_dir: Optional[str] = ".beacon-cache"  # file parses by content (shared by runs; null: none)
    share_validation: bool = True  # a sweep validates each task once (beacon/repair/shared_validation.py)
    score_workers: int = 1  # test runs a job scores at once (beacon/repair/job.py); rows are the same
    progress: Optional[bool] = None
    print_table: bool = True


@dataclass
class LocalizeConf:
    name: str = "localize"
    method: MethodConf = field(default_factory=MethodConf)
    tasks: TasksConf = field(default_factory=TasksConf)
    grid: GridConf = field(default_factory=GridConf)  # methods and budgets scored in one job
    paper: PaperConf = field(default_factory=PaperConf)
    budget: int = 4000
    cache_dir: Optional[str] = ".beacon-cache"  # snapshots and graphs per commit (shared by runs)
    progress: Optional[bool] = None
    print_table: bool = True


GROUP_SCHEMAS = {"method": MethodConf, "query": QueryConf, "provider": ProviderConf,
                 "edit_format": EditFormatConf, "tasks": TasksConf}


def validate(cfg: DictConfig, schema: type = RepairConf) -> DictConfig:
    """The config merged into ``schema`` (``hydra`` node dropped); raises on bad keys/types."""
    plain = OmegaConf.to_container(cfg, resolve=True)
    plain.pop("hydra", None)
    merged = OmegaConf.merge(OmegaConf.structured(schema), plain)
    OmegaConf.set_readonly(merged, True)
    return merged


def check_values(cfg: DictConfig) -> None:
    """Names and ranges against Beacon's registries; every error names the config key and what it expected."""
    from beacon.providers import PROVIDERS  # importing the package registers every adapter
    from beacon.repair.edits import FORMATS
    from beacon.data.queries import QUERY_TYPES

    check_methods(cfg)
    for key, fmt in _values(cfg.grid.edit_formats, "grid.edit_formats", cfg.edit_format.name, "edit_format.name"):
        if fmt not in FORMATS:
            raise UsageError(f"{key}={fmt!r}: unknown edit format; expected one of {', '.join(FORMATS)}")
    for key, q in _values(cfg.grid.query_types, "grid.query_types", cfg.query.type, "query.type"):
        if q not in QUERY_TYPES:
            raise UsageError(f"{key}={q!r}: unknown query type; expected one of {', '.join(QUERY_TYPES)}")
    check_budgets(cfg)
    if cfg.provider.name not in PROVIDERS:
        raise UsageError(f"provider.name={cfg.provider.name!r}: unknown provider; "
                         f"expected one of {', '.join(sorted(PROVIDERS))}")
    check_generation(cfg.provider, FORMATS)
    if cfg.sandbox not in ("auto", "required", "off"):
        raise UsageError(f"sandbox={cfg.sandbox!r}: expected auto, required or off")
    if cfg.score_workers < 1:
        raise UsageError(f"score_workers={cfg.score_workers!r}: expected an integer >= 1 (test runs a job scores at "
                         "once)")
    for key in ("processes", "memory_mb", "tmp_mb"):
        if cfg.limits[key] < 0:
            raise UsageError(f"limits.{key}={cfg.limits[key]!r}: expected an integer >= 0 (0 = no limit)")
    if cfg.tasks.kind not in ("manifest", "control"):
        raise UsageError(f"tasks.kind={cfg.tasks.kind!r}: the repair runner takes manifest or control tasks")
    if cfg.tasks.kind == "manifest" and not (cfg.tasks.manifest and cfg.tasks.repos_dir):
        raise UsageError("tasks.manifest and tasks.repos_dir: both are required for tasks.kind=manifest "
                         "(tasks=manifest tasks.manifest=PATH.jsonl tasks.repos_dir=DIR)")
    check_pypi_pins(cfg.tasks)


def _values(grid, grid_key: str, single, single_key: str) -> list[tuple[str, Any]]:
    """(config key, value) pairs: the in-job grid's entries when it has any, else the single value."""
    if len(grid):
        return [(f"{grid_key}[{i}]", v) for i, v in enumerate(grid)]
    return [(single_key, single)]


def resolve_methods(cfg: DictConfig) -> dict[str, dict]:
    """The one method resolver of every runner: each method of the job (``grid.methods``, else
    ``method.name``) with its parameters, ``conf/method/<name>.yaml`` with ``method.params`` on top for
    ``method.name`` (Hydra composed those from the same file, plus the command line's overrides)."""
    from beacon.retrieval.recipes import RecipeError, method_params

    out = {}
    for key, name in _values(cfg.grid.methods, "grid.methods", cfg.method.name, "method.name"):
        overrides = dict(OmegaConf.to_container(cfg.method.params, resolve=True)) if name == cfg.method.name else {}
        try:
            out[name] = method_params(name, overrides)
        except RecipeError as exc:
            raise UsageError(f"{key}={name!r}: {exc}") from None
    return out


def check_methods(cfg: DictConfig) -> None:
    """Every method name is registered, has a recipe and takes its params (``method.params`` for ``method.name``)."""
    from beacon.retrieval import get_method
    from beacon.retrieval.recipes import RecipeError, method_params
    from beacon.retrieval.registry import UnknownMethodError, known_methods

    for key, name in _values(cfg.grid.methods, "grid.methods", cfg.method.name, "method.name"):
        try:
            overrides = dict(OmegaConf.to_container(cfg.method.params, resolve=True)) \
                if name == cfg.method.name else {}
            get_method(name, **method_params(name, overrides))
        except (RecipeError, UnknownMethodError):  # registered methods and recipes agree (a test checks)
            close = difflib.get_close_matches(str(name), known_methods(), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise UsageError(f"{key}={name!r}: unknown retrieval method; {hint}"
                             f"expected one of {', '.join(known_methods())}") from None
        except TypeError as exc:
            raise UsageError(f"method.params for {name!r}: {exc}") from None


def check_budgets(cfg: DictConfig) -> None:
    for key, b in _values(cfg.grid.budgets, "grid.budgets", cfg.budget, "budget"):
        if b < 0:
            raise UsageError(f"{key}={b}: a token budget must be an integer >= 0")


_GENERATION_KEYS = {"max_tokens": "a positive int", "stop": "a list of non-empty strings",
                    "temperature": "a number >= 0", "seed": "an int or null"}


def check_generation(provider: DictConfig, formats: tuple[str, ...]) -> None:
    """``provider.structured_output`` and ``provider.generation.<format>.*``: known names, sane values."""
    from beacon.repair.structured import SETTINGS

    if provider.structured_output not in SETTINGS:
        raise UsageError(f"provider.structured_output {provider.structured_output!r}: expected one of "
                         f"{', '.join(SETTINGS)}")
    for fmt, settings in provider.generation.items():
        where = f"provider.generation.{fmt}"
        if fmt not in formats:
            raise UsageError(f"{where}: unknown edit format; expected one of {', '.join(formats)}")
        if not isinstance(settings, DictConfig):
            raise UsageError(f"{where}: expected a mapping of {sorted(_GENERATION_KEYS)}")
        for key, value in settings.items():
            ok = {"max_tokens": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1,
                  "stop": lambda v: v is None or (not isinstance(v, str) and all(isinstance(s, str) and s for s in v)),
                  "temperature": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0,
                  "seed": lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool))}.get(key)
            if ok is None:
                raise UsageError(f"{where}.{key}: unknown setting; expected one of {sorted(_GENERATION_KEYS)}")
            if not ok(value):
                raise UsageError(f"{where}.{key}: expected {_GENERATION_KEYS[key]}, got {value!r}")


def check_pypi_pins(tasks: DictConfig) -> None:
    """``tasks.pypi``: well-formed pins, only for manifest tasks, one hash per name==version."""
    from beacon.repo.pypi import SdistPin

    seen: dict[str, str] = {}
    for i, pin in enumerate(tasks.pypi):
        try:
            parsed = SdistPin(pin.name, pin.version, pin.sha256)
        except ValueError as exc:
            raise UsageError(f"tasks.pypi[{i}] ({pin.name}=={pin.version}): {exc}") from None
        if seen.get(str(parsed), parsed.sha256) != parsed.sha256:
            raise UsageError(f"tasks.pypi[{i}]: {parsed} is pinned twice with different sha256")
        seen[str(parsed)] = parsed.sha256
    if tasks.pypi and tasks.kind != "manifest":
        raise UsageError(f"tasks.pypi: PyPI pins need tasks.kind=manifest (they fill tasks.repos_dir), got {tasks.kind!r}")
