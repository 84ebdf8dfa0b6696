"""The shared body of the repair runners: config -> tasks, specs, provider -> sealed run folder.

The core (``beacon``) never sees Hydra: this module turns the validated
config into plain objects and calls ``beacon.repair.job.run_repair_job``.
Artifacts go to ``<hydra job dir>/run`` (Hydra's own files stay beside it,
outside the sealed manifest). Re-running the same config resumes the same
folder; a different scientific config there is refused by the writer.
"""
from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from beacon.artifacts import sha256_file
from beacon.providers import Recorder, ReplayProvider, make_provider
from beacon.repair.attempt import AttemptSpec
from beacon.repair.control import make_control_repo
from beacon.repair.job import JobSummary, oracle_for, run_repair_job
from beacon.repair.shared_validation import SharedValidation
from beacon.records import RECORD_SCHEMA
from beacon.repair.sandbox import path_placeholders
from beacon.repair.limits import Limits
from beacon.repair.prepare import RunSettings
from beacon.repair.prompt import PROMPT_VERSION, _template
from beacon.repair.structured import decide, schema_sha256
from beacon.data import load_manifest, repo_resolver
from beacon.scratch import owned_tempdir
from experiments.cli import discard_setup_failure
from experiments.errors import UsageError, require_path
from experiments.job import RunSpec, run_job

log = logging.getLogger("beacon")
WORK_PREFIX = "beacon-work-"  # + "<pid>.<host>-<random>" under TMPDIR, when no work_dir is configured
# Fields that never change results: kept in run.json's config, left out of the hash.
# Never in the config hash. ``limits`` protect the machine, not a result: a run that reaches one fails and says so in
# its row (``checks.limits.hit``), and configs archived before limits existed keep their hash.
_NOT_SCIENTIFIC = {"work_dir", "cache_dir", "share_validation", "score_workers", "progress", "print_table", "paper",
                   "limits"}
# TasksConf keys added after runs were archived: left out while unused, so earlier configs keep their hash.
_LATER_TASK_KEYS = ("pypi", "repos_dirs", "split", "more_instances")
# ProviderConf keys added later, with the value that means "as before": left out at that value.
_LATER_PROVIDER_KEYS = {"structured_output": "off", "generation": {}}


def run_limits(cfg: DictConfig) -> Limits:
    """The per-run resource limits of ``cfg.limits``; a config archived before they existed gets the defaults."""
    conf = cfg.get("limits") or {}
    return Limits(**{k: int(conf[k]) for k in ("processes", "memory_mb", "tmp_mb") if k in conf})


def scientific_config(cfg: DictConfig) -> dict:
    plain = OmegaConf.to_container(cfg, resolve=True)
    tasks = plain.get("tasks")
    for key in _LATER_TASK_KEYS:
        if isinstance(tasks, dict) and tasks.get(key) in ([], None):
            tasks.pop(key, None)
    provider = plain.get("provider")
    for key, before in _LATER_PROVIDER_KEYS.items():
        if isinstance(provider, dict) and provider.get(key) == before:
            provider.pop(key, None)
    return {k: v for k, v in plain.items() if k not in _NOT_SCIENTIFIC}


def provider_structured(name: str) -> str | None:
    """What the provider registered as ``name`` can constrain decoding to (None: nothing)."""
    from beacon.providers import PROVIDERS

    return getattr(PROVIDERS.get(name), "structured_output", None)


def generation(cfg: DictConfig, fmt: str) -> dict:
    """The call settings of one edit format: ``provider.generation.<fmt>`` over the defaults."""
    own = dict(cfg.provider.generation.get(fmt) or {})
    return {"max_tokens": int(own.get("max_tokens", cfg.provider.max_tokens)),
            "stop": tuple(own.get("stop") or ()), "temperature": float(own.get("temperature", 0.0)),
            "seed": own.get("seed", 0)}


def attempt_specs(cfg: DictConfig) -> list[AttemptSpec]:
    methods = list(cfg.grid.methods) or [cfg.method.name]
    specs = []
    for method in methods:
        params = dict(cfg.method.params) if method == cfg.method.name else {}
        for budget in list(cfg.grid.budgets) or [cfg.budget]:
            for query in list(cfg.grid.query_types) or [cfg.query.type]:
                for fmt in list(cfg.grid.edit_formats) or [cfg.edit_format.name]:
                    gen = generation(cfg, fmt)
                    specs.append(AttemptSpec(method, int(budget), query, fmt, cfg.provider.name,
                                             tuple(sorted(params.items())), gen["max_tokens"],
                                             cfg.provider.structured_output, provider_structured(cfg.provider.name),
                                             gen["stop"], gen["temperature"], gen["seed"]))
    return specs


def load_tasks(cfg: DictConfig, work: Path, resolve_path) -> tuple[list, object, dict]:
    """Tasks, a repo resolver, and the input hashes to record."""
    if cfg.tasks.kind == "control":
        _, manifest = make_control_repo(work / "control")
        repos = work / "control" / "repos"
    else:
        manifest = require_path("tasks.manifest", cfg.tasks.manifest, Path(resolve_path(cfg.tasks.manifest)),
                                hint=" (a JSONL task manifest; see README 'Configs')")
        repos = Path(resolve_path(cfg.tasks.repos_dir))
        if not cfg.tasks.get("pypi"):  # pinned sdists create repos_dir themselves
            require_path("tasks.repos_dir", cfg.tasks.repos_dir, repos, kind="folder",
                         hint=" holding the manifest's repositories")
    sdists = materialize_pypi(cfg, repos, resolve_path)
    resolve = repo_resolver(repos, cache_dir=work / "bundles")
    tasks = load_manifest(manifest, resolve_repo=resolve)
    if cfg.tasks.limit is not None:
        tasks = tasks[: cfg.tasks.limit]
    commits = sorted({f"{t.repo}@{t.commit}" for t in tasks})
    inputs = {
        "task_manifest": sha256_file(manifest),
        "repo_commits": hashlib.sha256("\n".join(commits).encode()).hexdigest(),
    }
    for fmt in sorted({s for s in (list(cfg.grid.edit_formats) or [cfg.edit_format.name])}):
        text = _template(f"repair-{PROMPT_VERSION}.txt") + "\0" + _template(f"format-{fmt}-{PROMPT_VERSION}.txt")
        inputs[f"prompt_{fmt}"] = hashlib.sha256(text.encode()).hexdigest()
        structured = decide(cfg.provider.structured_output, provider_structured(cfg.provider.name), fmt)
        if structured.schema is not None:  # only when sent: runs without a schema keep their inputs
            inputs[f"response_schema_{fmt}"] = schema_sha256(structured.schema)
    inputs.update(sdists)
    return tasks, resolve, inputs


def materialize_pypi(cfg: DictConfig, repos: Path, resolve_path) -> dict[str, str]:
    """Import each ``tasks.pypi`` sdist into ``repos`` (cached, offline once done); their input hashes."""
    from beacon.repo.pypi import SdistPin, materialize_pin

    pins = [SdistPin(p.name, p.version, p.sha256) for p in cfg.tasks.get("pypi") or []]
    cache = resolve_path(cfg.tasks.sdist_cache_dir) if cfg.tasks.get("sdist_cache_dir") else None
    inputs = {}
    for pin in pins:
        git_dir, commit = materialize_pin(pin, repos, cache_dir=cache)
        log.info("pinned sdist %s: %s at %s", pin, git_dir, commit)
        inputs[f"sdist_{pin}"] = pin.sha256
    return inputs


def provider_factory(cfg: DictConfig, run_dir: Path, resolve_path):
    name = cfg.provider.name
    if name == "oracle":
        return oracle_for
    if name == "replay":
        if not cfg.provider.recordings:
            raise UsageError("provider.recordings: a completions.jsonl is required for provider=replay "
                             "(e.g. provider.recordings=outputs/archive/boltons_pilot/local_llm/completions.jsonl)")
        shared = ReplayProvider(require_path("provider.recordings", cfg.provider.recordings,
                                             Path(resolve_path(cfg.provider.recordings))))
    else:
        options = dict(cfg.provider.options)
        for key in ("model", "base_url"):
            if cfg.provider[key] is not None:
                options[key] = cfg.provider[key]
        # Every real completion is recorded so the run can be reproduced by replay.
        shared = Recorder(make_provider(name, **options), run_dir / "completions.jsonl")
    return lambda prepared, spec: shared


def execute(cfg: DictConfig, *, job_dir: Path, overrides: list[str], resolve_path,
            sweep_dir: Path | None = None) -> JobSummary | None:
    """Run one job; a failure after the run folder exists is recorded in its run.json, then re-raised.

    ``sweep_dir``: the multirun's folder, whose ``.shared/validation`` holds the task validations its jobs share
    (``share_validation``; ``beacon.repair.shared_validation``)."""
    run_dir = job_dir / "run"
    discard_setup_failure(run_dir)
    # A temp work folder (snapshots, scratch) is ours to remove, also after an exception or Ctrl-C, and the next
    # run sweeps the one of a run killed outright (beacon.scratch); a configured work_dir is the user's.
    shared = None
    if sweep_dir is not None and cfg.get("share_validation", True):
        shared = SharedValidation(Path(sweep_dir) / ".shared" / "validation", label=job_dir.name)
    if cfg.work_dir:
        return _execute(cfg, run_dir, Path(cfg.work_dir), overrides, resolve_path, shared)
    with owned_tempdir(WORK_PREFIX) as work:
        return _execute(cfg, run_dir, work, overrides, resolve_path, shared)


def _execute(cfg: DictConfig, run_dir: Path, work: Path, overrides: list[str], resolve_path,
             shared: SharedValidation | None = None) -> JobSummary | None:
    tasks, resolve, inputs = load_tasks(cfg, work, resolve_path)
    spec = RunSpec(run_dir, config=OmegaConf.to_container(cfg, resolve=True), scientific=scientific_config(cfg),
                   overrides=list(overrides), inputs=inputs)

    def body(writer) -> JobSummary:
        if not (cfg.allow_local_execution or cfg.dry_run):  # checked again in the core; here to name the key
            raise UsageError("allow_local_execution=false: scoring executes the tasks' repository code; "
                             "set allow_local_execution=true (or dry_run=true to only assemble prompts)")
        settings = RunSettings(allow_local_execution=cfg.allow_local_execution, timeout_s=cfg.timeout_s,
                               sandbox=cfg.sandbox, network=cfg.network, limits=run_limits(cfg))
        cache = cfg.get("cache_dir")
        summary = run_repair_job(tasks, resolve, attempt_specs(cfg), writer=writer, work_dir=work / "tasks",
                                 settings=settings, provider_for=provider_factory(cfg, run_dir, resolve_path),
                                 dry_run=cfg.dry_run, progress=cfg.progress, shared=shared,
                                 parse_cache=Path(resolve_path(cache)) / "parse-cache" if cache else None,
                                 workers=cfg.score_workers)
        writer.set_environment("tests_sandboxed", summary.sandboxed)
        writer.set_environment("records_schema", RECORD_SCHEMA)  # see beacon.records
        # Rows name the Python mounts of the sandbox by label; the host paths behind the labels:
        writer.set_environment("sandbox_path_placeholders", {v: k for k, v in path_placeholders().items()})
        writer.set_environment("invalid_tasks", summary.invalid_tasks)
        # which tasks this job validated itself and which verdicts it took from the sweep's other jobs
        writer.set_environment("validation", summary.validation)
        writer.set_environment("rows", {"written": summary.rows_written, "resumed": summary.rows_resumed})
        return summary

    return run_job(spec, body)


def print_table(run_dir: Path) -> None:
    """Outcome counts per method x budget x format, from the sealed records alone."""
    from collections import Counter, defaultdict

    rows = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines() if line]
    cells: dict[tuple, Counter] = defaultdict(Counter)
    for r in rows:
        cells[(r["method"], r["budget"], r["edit_format"], r["query_type"], bool(r.get("control")))][
            r["outcome"] or "n/a"] += 1
    # Controls (oracle provider, target_file, a query revealing the line) are not method results.
    if rows and all(r.get("control") for r in rows):
        title = "HARNESS CONTROLS (oracle/known repair): "
    else:
        title = f"provider {', '.join(sorted({r['provider'] for r in rows}))}: "
    print(f"{title}{len(rows)} attempts, run folder {run_dir}")
    print(f"{'method':<24}{'budget':>7}  {'format':<11}{'query':<11}{'pass':>9}  other outcomes")
    for (method, budget, fmt, query, control), counts in sorted(cells.items()):
        total = sum(counts.values())
        others = ", ".join(f"{k}={v}" for k, v in sorted(counts.items()) if k != "pass")
        name = method + (" (control)" if control and not title.startswith("HARNESS") else "")
        print(f"{name:<24}{budget:>7}  {fmt:<11}{query:<11}{counts['pass']:>4}/{total:<4}  {others}")
