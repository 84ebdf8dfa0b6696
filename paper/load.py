"""Find, verify and read the repair and localization runs a paper build is made from.

The runs are found by :mod:`paper.runs` (a run folder, or the jobs of a
sweep below a folder; a job that never created its run is *missing*). Every run is checked with :func:`beacon.artifacts.verify`;
an unsealed or altered run, or a missing job, is refused unless the caller
allows it, and then it stays marked (``RunInfo.problems``) in every output.

Every row is read through :mod:`beacon.records` (``read_rows``), which
types and validates it and names the file, line and field of a bad one: a
row with ``kind == "localize"`` is a ``LocalizationRecord`` or
``TrajectoryRecord`` (the metrics the paper reports are checked by
:mod:`paper.localization`), a row without ``kind`` a ``RepairOutcome``; any
other kind is refused. A run may hold either kind (or, unusually, both); a
build may mix runs of both kinds.

Repair rows with ``dry_run`` true and rows whose ``outcome`` is null
(invalid tasks) are excluded here and counted; rows with ``control`` true
are kept and carry their flag, so that every table and figure can report
them separately. Localization rows with an ``error`` are kept, flagged, and
excluded from every metric.

Method labels are computed over both kinds together, so one label names one
method and parameter set everywhere in a build.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from beacon.artifacts import RUN_JSON, CorruptRecordsError, RunFileError, load_run_json, verify
# The one list of repair outcomes (beacon.records, below the pipeline): every per-outcome column,
# figure bar and check follows it. Records written before schema 2 never hold suspicious_edit or tampered.
from beacon.records import ABSENT, Outcome, RecordError, RepairOutcome, read_rows

from . import localization
from .errors import BuildInputError
from .runs import RunInfo, discover, failure_reason, sweeps_of
# Two rows are the same experimental cell when these agree; the method is
# what a paired comparison varies.
PAIR_KEYS = ("task_id", "budget", "query_type", "edit_format", "provider")
RECORDS_NAME = "records.jsonl"

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
        for row in read_rows(path):
            run.rows += 1
            if not isinstance(row, RepairOutcome):
                localization.check_metrics(row, f"{path}:{run.rows}")
                run.loc_rows += 1
                run.loc_errors += row.error is not None
                loc.append(localization.convert(row, run.name))
                continue
            run.repair_rows += 1
            if row.dry_run:
                run.dry_run += 1
            elif row.outcome is None:
                run.no_outcome += 1
            else:
                run.control += row.control
                run.method_rows += not row.control
                run.unsandboxed += row.sandboxed is False
                covers = None if row.covers_bug_line is ABSENT else row.covers_bug_line
                kept.append({"run": run.name, "key": row.key, "task_id": row.task_id,
                             "method": row.method, "params": json.dumps(row.method_params, sort_keys=True),
                             "budget": row.budget, "query_type": row.query_type,
                             "edit_format": row.edit_format, "provider": row.provider,
                             "control": row.control, "outcome": row.outcome.value,
                             "passed": row.outcome is Outcome.PASS, "covers": covers})
    except RecordError as exc:
        raise BuildInputError(str(exc)) from None
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
    failed = [(run.name, reason) for run in runs if (reason := failure_reason(run.path)) is not None]
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

