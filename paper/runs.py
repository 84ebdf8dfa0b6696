"""The runs a paper build reads: run folders named by, or found below, the paths given (sweeps, jobs).

A path holding ``run.json`` is a run; any other folder is searched
recursively with the job discovery of ``python -m beacon.artifacts collect``,
so a job folder that never created its run is reported as a *missing* job.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from beacon.artifacts import RUN_JSON
from beacon.artifacts.verify import find_jobs

from .errors import BuildInputError


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


def failure_reason(path: Path) -> str | None:
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
