"""Find, verify and read the repair and localization runs a paper build is made from.

A path given on the command line is a run when it holds ``run.json``;
otherwise it is searched recursively for run folders (a Hydra multirun
sweep), using the same job discovery as ``python -m beacon.artifacts
collect``, so a job folder that never created its run is reported as a
*missing* job. Every run is checked with :func:`beacon.artifacts.verify`;
an unsealed or altered run, or a missing job, is refused unless the caller
allows it, and then it stays marked (``RunInfo.problems``) in every output.

A row is a localization row when its ``kind`` is ``"localize"`` (checked
and kept by :mod:`paper.localization`) and a repair row when it has no
``kind`` or ``kind == "repair"``; any other kind is refused. A run may hold
either kind (or, unusually, both); a build may mix runs of both kinds.

Repair rows (one repair attempt each, shaped like ``beacon.repair.attempt``'s
records) are validated field by field. Rows with ``dry_run`` true and rows
whose ``outcome`` is null (invalid tasks) are excluded here and counted;
rows with ``control`` true are kept and carry their flag, so that every
table and figure can report them separately. Localization rows with an
``error`` are kept, flagged, and excluded from every metric.

Method labels are computed over both kinds together, so one label names one
method and parameter set everywhere in a build.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from beacon.artifacts import RUN_JSON, CorruptRecordsError, RunFileError, iter_records, load_run_json, verify
from beacon.artifacts.verify import find_jobs

from . import localization
from .errors import BuildInputError

# The one list of repair outcomes (beacon.records, below the pipeline): every per-outcome column,
# figure bar and check follows it. Records written before schema 2 never hold suspicious_edit or tampered.
from beacon.records import OUTCOMES  # noqa: E402
# Two rows are the same experimental cell when these agree; the method is
# what a paired comparison varies.
PAIR_KEYS = ("task_id", "budget", "query_type", "edit_format", "provider")
RECORDS_NAME = "records.jsonl"
_FIELDS: dict[str, tuple[type, ...]] = {
    "task_id": (str,), "method": (str,), "method_params": (dict,), "budget": (int,), "query_type": (str,),
    "edit_format": (str,), "provider": (str,), "control": (bool,), "dry_run": (bool,),
    "outcome": (str, type(None)),
}
# Absent from rows whose task could not even be prepared (no context was built): those rows
# count in pass rates and failure modes but not in coverage.
_OPTIONAL: dict[str, tuple[type, ...]] = {"covers_bug_line": (bool, type(None))}


@dataclass
class RunInfo:
    name: str  # display name: the run folder's name, or <sweep name>/<job path>
    path: Path
    config_hash: str | None = None
    status: str | None = None
    problems: list[str] = field(default_factory=list)
    rows: int = 0  # every row read, of either kind
    repair_rows: int = 0  # repair rows read (dry-run and invalid ones included)
    dry_run: int = 0
    no_outcome: int = 0
    control: int = 0
    method_rows: int = 0
    loc_rows: int = 0  # localization rows read
    loc_errors: int = 0  # localization rows with an error (excluded from every metric)
    unsandboxed: int = 0  # scored rows whose tests ran without the sandbox (sandboxed: false)

    @property
    def verified(self) -> bool:
        return not self.problems

    @property
    def manifest(self) -> str:
        n = len(self.problems)
        return "verified" if self.verified else f"UNVERIFIED ({n} problem{'' if n == 1 else 's'})"


@dataclass
class Dataset:
    runs: list[RunInfo]
    missing_jobs: list[str]
    rows: pd.DataFrame  # scored repair rows (controls included, flagged), one per attempt
    methods: dict[str, dict[str, Any]] = field(default_factory=dict)  # label -> {"method", "params"}
    # localization rows (error rows included, flagged by a non-null ``error``), one per method/instance/budget
    loc_rows: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=localization.COLUMNS))
    shown: tuple[str, ...] = ()  # --methods: the labels kept in every output (empty: all of them)
    read_methods: tuple[str, ...] = ()  # every method label the runs hold, when ``shown`` restricts them
    loc_rows_read: pd.DataFrame | None = None  # every localization row, when ``shown`` restricts ``loc_rows``
    # jobs whose run.json says failed: none of their rows is read; named, with the reason, in every output
    failed_jobs: list[tuple[str, str]] = field(default_factory=list)
    sweeps: list[str] = field(default_factory=list)  # the sweep folders read (display names), for index.md

    def failed_note(self) -> str:
        """Caption sentence naming the failed jobs left out (empty when none failed)."""
        if not self.failed_jobs:
            return ""
        return (f" Left out: {len(self.failed_jobs)} failed job(s), none of their rows read: "
                + "; ".join(f"{name} ({reason})" for name, reason in self.failed_jobs) + ".")

    @property
    def all_loc_rows(self) -> pd.DataFrame:
        """The localization rows as read, whatever ``--methods`` shows (run tables, instances read)."""
        return self.loc_rows if self.loc_rows_read is None else self.loc_rows_read

    def shown_note(self) -> str:
        """Caption sentence of a restricted build (``--methods``); empty otherwise."""
        if not self.shown:
            return ""
        return (f" Methods shown (--methods): {', '.join(self.shown)}, of the {len(self.read_methods)} the runs "
                "hold; counts of rows read and excluded are over every method.")

    @property
    def has_repair(self) -> bool:
        """Repair rows were read (scored or not); the repair outputs are built."""
        return any(r.repair_rows for r in self.runs)

    @property
    def has_localization(self) -> bool:
        return any(r.loc_rows for r in self.runs)

    @property
    def unverified(self) -> list[str]:
        return [r.name for r in self.runs if not r.verified] + self.missing_jobs

    def counts(self) -> dict[str, int]:
        """Repair rows only; see :meth:`loc_counts` for localization rows."""
        total = {name: sum(getattr(r, name) for r in self.runs)
                 for name in ("repair_rows", "dry_run", "no_outcome", "control", "method_rows")}
        return {"rows_read": total["repair_rows"], "dry_run_excluded": total["dry_run"],
                "no_outcome_excluded": total["no_outcome"], "control_rows": total["control"],
                "method_rows": total["method_rows"]}

    @property
    def unsandboxed(self) -> int:
        """Scored repair rows whose tests ran without the sandbox."""
        return sum(r.unsandboxed for r in self.runs)

    def loc_counts(self) -> dict[str, int]:
        scored = self.loc_rows[self.loc_rows["error"].isna()]
        return {"rows_read": sum(r.loc_rows for r in self.runs), "error_excluded": sum(r.loc_errors for r in self.runs),
                "scored_rows": len(scored), "instances_read": int(self.all_loc_rows["instance_id"].nunique()),
                "instances_scored": int(scored["instance_id"].nunique())}


def method_label(method: str, params: dict[str, Any]) -> str:
    """``bca(depth=3)``; :func:`load` shows the parameters only for a method scored with several parameter sets."""
    if not params:
        return method
    parts = [f"{k}={v if isinstance(v, str) else json.dumps(v, sort_keys=True)}" for k, v in sorted(params.items())]
    return f"{method}({','.join(parts)})"


def sweeps_of(paths: list[Path]) -> list[str]:
    """Display names of the sweeps below ``paths``: folders holding Hydra's multirun.yaml (else the folder given)."""
    names: list[str] = []
    for arg in map(Path, paths):
        if (arg / RUN_JSON).is_file():
            continue
        base = arg.resolve().name
        found = sorted({p.parent for p in arg.rglob("multirun.yaml")}, key=lambda p: p.as_posix())
        names += [base if f == arg else f"{base}/{f.relative_to(arg).as_posix()}" for f in found] or [base]
    return names


def _failure(path: Path) -> str | None:
    """The one-line reason when ``path/run.json`` says failed, else None (unreadable files are verify's to report)."""
    try:
        meta = json.loads((path / RUN_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("status") != "failed":
        return None
    error = meta.get("error") if isinstance(meta.get("error"), dict) else {}
    return str(error.get("message") or "no reason recorded").splitlines()[0] if error else "no reason recorded"


def discover(paths: list[Path]) -> tuple[list[RunInfo], list[str]]:
    """Run folders (and missing job folders) named by, or found below, ``paths``."""
    runs: list[RunInfo] = []
    missing: list[str] = []
    for arg in paths:
        arg = Path(arg)
        if not arg.is_dir():
            raise BuildInputError(f"{arg}: not a folder; expected a run folder (with {RUN_JSON}) or a sweep folder")
        real = arg.resolve()
        base = real.name
        if (arg / RUN_JSON).is_file():
            # A bare Hydra job number says little on its own: keep its sweep's name, as discovery does.
            runs.append(RunInfo(f"{real.parent.name}/{base}" if base.isdigit() else base, arg))
            continue
        jobs = find_jobs(arg)
        found = [job for job in jobs if (job / RUN_JSON).is_file()]
        if not found:
            raise BuildInputError(f"{arg}: no run folder (a folder holding {RUN_JSON}) found in or below it")
        runs += [RunInfo(f"{base}/{job.relative_to(arg).as_posix()}", job) for job in found]
        missing += [f"{base}/{job.relative_to(arg).as_posix()}" for job in jobs if job not in found]
    seen: dict[Path, str] = {}
    names: set[str] = set()
    for run in runs:
        real = run.path.resolve()
        if real in seen:
            raise BuildInputError(f"{run.path}: given twice (also as {seen[real]}); pass each run once")
        if run.name in names:
            raise BuildInputError(f"{run.path}: two runs are named {run.name!r}; pass runs whose folder "
                                  "names differ (or their parent sweep folders)")
        seen[real] = run.name
        names.add(run.name)
    return runs, missing


def _check_row(row: dict, where: str) -> None:
    for name, types in [*_FIELDS.items(), *_OPTIONAL.items()]:
        if name not in row:
            if name in _OPTIONAL:
                continue
            raise BuildInputError(f"{where}: field '{name}' is missing; expected a repair record "
                                  "(see beacon.repair.attempt.run_attempt)")
        value = row[name]
        if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
            expected = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            raise BuildInputError(f"{where}: field '{name}': expected {expected}, got {value!r}")
    if row["outcome"] is not None and row["outcome"] not in OUTCOMES:
        raise BuildInputError(f"{where}: field 'outcome': {row['outcome']!r} is not one of {', '.join(OUTCOMES)}")


def _read_run(run: RunInfo) -> tuple[list[dict], list[dict]]:
    """(kept repair rows, localization rows) of one run."""
    try:
        meta = load_run_json(run.path / RUN_JSON)
    except RunFileError as exc:
        raise BuildInputError(f"{run.name}: cannot read {RUN_JSON}: {exc}") from None
    run.config_hash, run.status = meta["config_hash"], meta["status"]
    path = run.path / RECORDS_NAME
    if not path.is_file():
        raise BuildInputError(f"{run.name}: {path} is missing; a run folder always has {RECORDS_NAME}")
    kept, loc = [], []
    try:
        for lineno, row in enumerate(iter_records(path), start=1):
            where = f"{path}:{lineno}"
            kind = row.get("kind", "repair")
            if kind == localization.KIND:
                localization.check_row(row, where)
                run.rows += 1
                run.loc_rows += 1
                run.loc_errors += row["error"] is not None
                loc.append(localization.convert(row, run.name))
                continue
            if kind != "repair":
                raise BuildInputError(f"{where}: field 'kind': expected 'repair' (or no kind) or "
                                      f"'{localization.KIND}', got {kind!r}")
            _check_row(row, where)
            run.rows += 1
            run.repair_rows += 1
            if row["dry_run"]:
                run.dry_run += 1
            elif row["outcome"] is None:
                run.no_outcome += 1
            else:
                run.control += row["control"]
                run.method_rows += not row["control"]
                run.unsandboxed += row.get("sandboxed") is False
                kept.append({"run": run.name, "key": row["key"], "task_id": row["task_id"],
                             "method": row["method"], "params": json.dumps(row["method_params"], sort_keys=True),
                             "budget": row["budget"], "query_type": row["query_type"],
                             "edit_format": row["edit_format"], "provider": row["provider"],
                             "control": row["control"], "outcome": row["outcome"],
                             "passed": row["outcome"] == "pass", "covers": row.get("covers_bug_line")})
    except CorruptRecordsError as exc:
        raise BuildInputError(f"{run.name}: {exc}; the run cannot be read") from None
    return kept, loc


def _label_methods(rows: list[dict]) -> dict[str, dict[str, Any]]:
    """Replace each row's method and params by its label, in place; label -> {"method", "params"}."""
    variants: dict[str, set[str]] = {}
    for row in rows:
        variants.setdefault(row["method"], set()).add(row["params"])
    methods: dict[str, dict[str, Any]] = {}
    for row in rows:
        name, params = row["method"], json.loads(row.pop("params"))
        row["method"] = name if len(variants[name]) == 1 else method_label(name, params)
        methods[row["method"]] = {"method": name, "params": params}
    return dict(sorted(methods.items()))


def load(paths: list[Path], *, allow_unsealed: bool = False) -> Dataset:
    """Discover, verify and read the runs; raise ``BuildInputError`` listing every refused run."""
    runs, missing = discover(paths)
    # A failed job (its run.json says so, with the reason) is left out, not refused: the sweep's other
    # jobs are complete results, and every output names what is missing and why.
    failed = [(run.name, reason) for run in runs if (reason := _failure(run.path)) is not None]
    runs = [run for run in runs if run.name not in {name for name, _ in failed}]
    if not runs:
        raise BuildInputError("every run failed, nothing to build: "
                              + "; ".join(f"{name}: {reason}" for name, reason in failed))
    refused = []
    for run in runs:
        run.problems = verify(run.path)
        refused += [f"  {run.name}: {p}" for p in run.problems]
    refused += [f"  {job}: missing job (no {RUN_JSON}: it never started or crashed first)" for job in missing]
    if refused and not allow_unsealed:
        raise BuildInputError("refusing unsealed or altered runs (pass --allow-unsealed to build from them "
                              "anyway; they are then marked in every output):\n" + "\n".join(refused))
    rows: list[dict] = []
    loc_rows: list[dict] = []
    for run in runs:
        kept, loc = _read_run(run)
        rows += kept
        loc_rows += loc
    methods = _label_methods(rows + loc_rows)
    loc_frame = pd.DataFrame(loc_rows, columns=localization.COLUMNS)
    localization.check_unique(loc_frame)
    localization.check_rankings(loc_frame)
    frame = pd.DataFrame(rows, columns=["run", "key", "task_id", "method", "budget", "query_type", "edit_format",
                                        "provider", "control", "outcome", "passed", "covers"])
    cell = ["method", *PAIR_KEYS]
    dup = frame[frame.duplicated(cell, keep=False)].sort_values([*cell, "run"])
    if len(dup):
        first = dup.iloc[0]
        where = ", ".join(f"{r.run} ({r.key})" for r in dup[(dup[cell] == first[cell]).all(axis=1)].itertuples())
        raise BuildInputError(f"method {first['method']!r} task {first['task_id']!r} budget {first['budget']} "
                              f"query {first['query_type']!r} edit format {first['edit_format']!r} provider "
                              f"{first['provider']!r} is scored more than once: {where}; pass each run once "
                              "(pairing needs one row per cell)")
    return Dataset(runs=runs, missing_jobs=missing, rows=frame, methods=methods, loc_rows=loc_frame,
                   failed_jobs=failed, sweeps=sweeps_of(paths))


def restrict(data: Dataset, labels: Sequence[str]) -> Dataset:
    """Only the rows of the methods labelled ``labels`` (as in ``index.md``'s Methods table), in every output."""
    keep = list(dict.fromkeys(labels))
    unknown = [label for label in keep if label not in data.methods]
    if not keep or unknown:
        raise BuildInputError(f"--methods: {', '.join(unknown) or 'empty list'}: expected labels of methods in the "
                              f"runs: {', '.join(data.methods)}")
    return replace(data, rows=data.rows[data.rows["method"].isin(keep)].reset_index(drop=True),
                   loc_rows=data.loc_rows[data.loc_rows["method"].isin(keep)].reset_index(drop=True),
                   methods={k: v for k, v in data.methods.items() if k in keep}, shown=tuple(keep),
                   read_methods=tuple(data.methods), loc_rows_read=data.loc_rows)

