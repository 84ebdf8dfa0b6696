"""Check sealed runs against their manifest, and index the runs of a Hydra multirun sweep.

``verify(run_dir)`` returns problems as ``"<path relative to run_dir>: <what>"``
strings; an empty list means every byte matches ``MANIFEST.sha256``, no file
was added or removed, ``run.json`` says ``complete`` with a config hash that
recomputes from its own scientific config, and ``records.jsonl`` holds
exactly ``record_count`` valid rows. File modes are not checked: archives
committed to git come back writable, and that changes no byte.

``collect(sweep_dir)`` finds job folders (any folder holding ``run.json``;
a numbered folder or one with ``.hydra/`` but no run anywhere below it is a
``missing`` job), and writes ``sweep_index.json`` and ``sweep_index.csv``
next to them, whatever state the jobs are in. The index holds no timestamps
or absolute paths, so collecting an unchanged sweep rewrites the same bytes.
"""
from __future__ import annotations

import csv
import io
import json
import re
import shlex
from pathlib import Path
from typing import Any

from ..digests import sha256_file
from .atomic import atomic_write_text
from .errors import CanonicalJSONError, CorruptRecordsError, RunFileError
from .hashing import config_hash
from .manifest import read_manifest, walk_run
from .records import RECORDS_NAME, scan_records
from .runfile import MANIFEST_NAME, RUN_JSON, load_run_json

INDEX_JSON = "sweep_index.json"
INDEX_CSV = "sweep_index.csv"
CSV_COLUMNS = ("path", "status", "config_hash", "overrides", "records", "verified", "error", "problems")


def verify(run_dir: Path | str) -> list[str]:
    """Every way ``run_dir`` differs from its sealed state; ``[]`` when clean."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        return [f".: {run_dir} is not a folder"]
    if not (run_dir / MANIFEST_NAME).is_file():
        return [f"{MANIFEST_NAME}: missing (the run was never sealed, or the manifest was deleted)"]
    entries, problems = read_manifest(run_dir)
    files, others = walk_run(run_dir)
    problems += [f"{rel}: symlink or special file (a sealed run holds only regular files)" for rel in others]
    for rel, expected in sorted(entries.items()):
        path = run_dir / rel
        if rel in others:
            continue
        if not path.is_file():
            problems.append(f"{rel}: missing (listed in {MANIFEST_NAME})")
        elif (actual := sha256_file(path)) != expected:
            problems.append(f"{rel}: changed (manifest sha256 {expected[:12]}…, file now {actual[:12]}…)")
    problems += [f"{rel}: extra file (not in {MANIFEST_NAME})" for rel in files if rel not in entries]
    return problems + _check_contents(run_dir)


def _check_contents(run_dir: Path) -> list[str]:
    """What the bytes say, beyond matching the manifest: status, hash, record count."""
    if not (run_dir / RUN_JSON).is_file():
        return []  # already reported as missing
    try:
        meta = load_run_json(run_dir / RUN_JSON)
    except RunFileError as exc:
        return [f"{RUN_JSON}: {exc}"]
    problems = []
    if meta["status"] != "complete":
        problems.append(f"{RUN_JSON}: field 'status' is {meta['status']!r}; a sealed run must be 'complete'")
    rule = meta.get("hash_rule") or {}
    try:
        recomputed = config_hash(meta["scientific"], exclude=rule.get("excluded_keys", ()),
                                 exclude_suffixes=rule.get("excluded_suffixes", ()))
    except CanonicalJSONError as exc:
        return problems + [f"{RUN_JSON}: field 'scientific': {exc}"]
    if recomputed != meta["config_hash"]:
        problems.append(f"{RUN_JSON}: field 'config_hash' is {meta['config_hash']} but field 'scientific' "
                        f"hashes to {recomputed}")
    if (run_dir / RECORDS_NAME).is_file():
        try:
            scan = scan_records(run_dir / RECORDS_NAME)
        except CorruptRecordsError as exc:
            return problems + [f"{RECORDS_NAME}: {exc}"]
        if scan.torn_tail:
            problems.append(f"{RECORDS_NAME}: ends in a partial line ({len(scan.torn_tail)} bytes)")
        if meta.get("record_count") != len(scan.keys):
            problems.append(f"{RECORDS_NAME}: {len(scan.keys)} rows but {RUN_JSON} field 'record_count' "
                            f"is {meta.get('record_count')!r}")
    return problems


# -- collect -----------------------------------------------------------------
def _natural(path: Path) -> list[tuple[int, int | str]]:
    # Numbered Hydra job folders sort as numbers: 2 before 10.
    return [(0, int(p)) if p.isdigit() else (1, p) for p in path.parts]


def find_jobs(sweep_dir: Path) -> list[Path]:
    """Job folders under ``sweep_dir``: folders with run.json, or job-like folders with no run below."""
    jobs: list[Path] = []

    def visit(folder: Path) -> bool:
        if (folder / RUN_JSON).is_file():
            jobs.append(folder)
            return True
        children = sorted((c for c in folder.iterdir()
                           if c.is_dir() and not c.is_symlink() and not c.name.startswith(".")), key=_natural)
        found = any([visit(child) for child in children])  # a list: visit every child, no short-circuit
        if not found and folder != sweep_dir and (folder.name.isdigit() or (folder / ".hydra").is_dir()):
            jobs.append(folder)
            return True
        return found

    visit(sweep_dir)
    return sorted(jobs, key=lambda j: _natural(j.relative_to(sweep_dir)))


def _hydra_overrides(job: Path) -> list[str] | None:
    """Overrides from Hydra's ``.hydra/overrides.yaml`` (a plain YAML list of strings), if readable."""
    path = job / ".hydra" / "overrides.yaml"
    if not path.is_file():
        return None
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.strip() == "[]":
            continue
        match = re.fullmatch(r"- (.*)", line)
        if not match:
            return None  # not the flat list Hydra writes; better no overrides than wrong ones
        value = match[1]
        if value.startswith("'") and value.endswith("'") and len(value) >= 2:
            value = value[1:-1].replace("''", "'")
        elif value.startswith('"'):
            value = json.loads(value)
        out.append(value)
    return out


def _job_entry(sweep_dir: Path, job: Path) -> dict[str, Any]:
    entry: dict[str, Any] = {"path": job.relative_to(sweep_dir).as_posix() or ".", "status": "missing",
                             "config_hash": None, "overrides": _hydra_overrides(job), "records": None,
                             "verified": False, "error": None, "problems": []}
    if not (job / RUN_JSON).is_file():
        entry["error"] = f"no {RUN_JSON}: the job did not start, or crashed before creating its run"
        return entry
    try:
        meta = load_run_json(job / RUN_JSON)
    except RunFileError as exc:
        entry.update(status="unreadable", error=str(exc))
        return entry
    entry.update(status=meta["status"], config_hash=meta["config_hash"], overrides=meta.get("overrides"))
    if isinstance(meta.get("error"), dict):
        err = meta["error"]
        entry["error"] = f"{err['type']}: {err['message']}" if err.get("type") else err.get("message")
    if (job / RECORDS_NAME).is_file():
        try:
            entry["records"] = len(scan_records(job / RECORDS_NAME).keys)
        except CorruptRecordsError as exc:
            entry["error"] = str(exc)
    if meta["status"] == "complete" or (job / MANIFEST_NAME).exists():
        entry["problems"] = verify(job)
        entry["verified"] = not entry["problems"]
    return entry


def collect(sweep_dir: Path | str) -> Path:
    """Write ``sweep_index.json`` and ``sweep_index.csv`` in ``sweep_dir``; return the JSON index path."""
    sweep_dir = Path(sweep_dir)
    if not sweep_dir.is_dir():
        raise FileNotFoundError(f"{sweep_dir}: sweep folder does not exist")
    if (sweep_dir / RUN_JSON).exists():
        raise ValueError(f"{sweep_dir}: holds {RUN_JSON}, so it is a run folder, not a sweep folder; "
                         "writing an index into it would break its manifest — pass its parent")
    jobs = [_job_entry(sweep_dir, job) for job in find_jobs(sweep_dir)]
    index = {"jobs": jobs, "summary": summarize(jobs)}
    atomic_write_text(sweep_dir / INDEX_CSV, _csv(jobs))
    return atomic_write_text(sweep_dir / INDEX_JSON, json.dumps(index, indent=2, sort_keys=True,
                                                                 ensure_ascii=False) + "\n")


def summarize(jobs: list[dict[str, Any]]) -> dict[str, int]:
    counts = {s: 0 for s in ("complete", "failed", "running", "missing", "unreadable")}
    for job in jobs:
        counts[job["status"]] = counts.get(job["status"], 0) + 1
    return {"jobs": len(jobs), **counts, "verified": sum(1 for j in jobs if j["verified"])}


def summary_line(summary: dict[str, int]) -> str:
    line = (f"{summary['jobs']} jobs: {summary['complete']} complete ({summary['verified']} verified), "
            f"{summary['failed']} failed, {summary['running']} running, {summary['missing']} missing")
    return line + (f", {summary['unreadable']} unreadable" if summary.get("unreadable") else "")


def _csv(jobs: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for job in jobs:
        overrides = "" if job["overrides"] is None else shlex.join(job["overrides"])
        writer.writerow([job["path"], job["status"], job["config_hash"] or "", overrides,
                         "" if job["records"] is None else job["records"], str(job["verified"]).lower(),
                         job["error"] or "", "; ".join(job["problems"])])
    return buffer.getvalue()
