"""What ``RunWriter`` checks before it writes: its arguments, and an existing folder it reopens.

A folder is reopened only for the same run (config hash and input hashes); a
sealed one must verify; an unsealed one resumes after its torn tail is cut
away (and logged in ``run.json``) and the sessions that died are closed.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from ..digests import sha256_bytes
from .errors import CanonicalJSONError, DamagedRunError, RunMismatchError
from .hashing import check_json_value, config_differences, scientific_view
from .manifest import read_manifest
from .records import RECORDS_NAME, scan_records
from .runfile import MANIFEST_NAME, dump_run_json

_SHA256 = re.compile(r"[0-9a-f]{64}")


def check_args(config, scientific, overrides, inputs, code, packages) -> None:
    """Refuse arguments that could not be written canonically or do not say what they must."""
    for name, value in (("config", config), ("scientific", scientific)):
        if not isinstance(value, dict):
            raise TypeError(f"RunWriter({name}=…): expected a plain dict, got {type(value).__name__}")
        try:
            check_json_value(value, name)
        except CanonicalJSONError as exc:
            raise CanonicalJSONError(f"RunWriter: {exc}") from None
    if not isinstance(overrides, (list, tuple)) or not all(isinstance(o, str) for o in overrides):
        raise TypeError(f"RunWriter(overrides=…): expected a list of str, got {overrides!r}")
    if not isinstance(inputs, dict):
        raise TypeError(f"RunWriter(inputs=…): expected a dict name -> sha256, got {type(inputs).__name__}")
    for name, digest in inputs.items():
        if not isinstance(name, str) or not isinstance(digest, str) or not _SHA256.fullmatch(digest):
            raise ValueError(f"RunWriter(inputs=…): entry {name!r}: expected 64 lowercase hex "
                             f"characters (sha256_file(path)), got {digest!r}")
    if not isinstance(code, dict) or "commit" not in code or "dirty" not in code:
        raise ValueError(f"RunWriter(code=…): expected {{'commit': …, 'dirty': …}} (see code_state()), got {code!r}")
    check_json_value(code, "code")
    if not isinstance(packages, dict) or not all(
            isinstance(k, str) and (v is None or isinstance(v, str)) for k, v in packages.items()):
        raise TypeError(f"RunWriter(packages=…): expected a dict name -> version or None "
                        f"(see package_versions()), got {packages!r}")


def check_same_run(meta: dict, run_json: Path, config_hash: str, scientific: dict, inputs: dict[str, str]) -> None:
    """Refuse to reopen ``run_json`` for a different config or different input files."""
    old = meta["config_hash"]
    if old != config_hash:
        diffs = config_differences(scientific_view(meta["scientific"]), scientific_view(scientific))
        raise RunMismatchError(
            f"{run_json}: field 'config_hash' is {old} but this config hashes to {config_hash} "
            f"(differs at: {', '.join(diffs[:5]) or 'hash rule changed'}); this folder holds a "
            "different run — use a new run_dir (runs are never mixed)")
    if meta["inputs"] != inputs:
        names = sorted(n for n in set(meta["inputs"]) | set(inputs)
                       if meta["inputs"].get(n) != inputs.get(n))
        raise RunMismatchError(
            f"{run_json}: field 'inputs' differs for {', '.join(names)}; the input files changed "
            "since this run started — use a new run_dir (runs are never mixed)")


def finish_sealed(run_dir: Path) -> None:
    """Refuse a sealed run that does not verify; finish the chmods a killed ``seal()`` left undone."""
    from .verify import verify  # verify reads runs the writer made; imported here to keep the layering flat

    problems = verify(run_dir)
    if problems:
        shown = "; ".join(problems[:5]) + (f"; … {len(problems) - 5} more" if len(problems) > 5 else "")
        raise DamagedRunError(f"{run_dir}: sealed run does not verify ({len(problems)} finding(s): "
                              f"{shown}); restore it from a copy, or remove the folder to compute it again")
    # A kill between seal()'s chmods leaves some files writable: finish what sealing began.
    for rel in [*read_manifest(run_dir)[0], MANIFEST_NAME]:
        path = run_dir / rel
        mode = path.stat().st_mode
        if mode & 0o222:
            path.chmod(mode & ~0o222)


def resume(meta: dict, run_json: Path, records_path: Path, session: dict) -> set[str]:
    """Repair a torn tail, close the sessions that died, start ``session``; the keys of the rows kept."""
    if not records_path.exists():  # crashed between writing run.json and creating records
        records_path.touch()
    scan = scan_records(records_path)  # a corrupt complete line raises here, naming file:line
    if scan.torn_tail:
        # The tail lacks its newline, so no append finished it: cut it away (and log what was cut).
        with open(records_path, "r+b") as handle:
            handle.truncate(scan.valid_bytes)
            handle.flush()
            os.fsync(handle.fileno())
        meta.setdefault("repairs", []).append({
            "at": session["started_at"], "file": RECORDS_NAME, "offset": scan.valid_bytes,
            "dropped_bytes": len(scan.torn_tail), "dropped_sha256": sha256_bytes(scan.torn_tail)})
    keys = set(scan.keys)
    sessions = meta.setdefault("sessions", [])
    for i, previous in enumerate(sessions):
        # outcome None: the process died without closing. "complete" without a manifest: it died
        # inside seal(), after run.json said complete; that session did not seal, this one will.
        if previous.get("outcome") in (None, "complete"):
            previous["outcome"] = "interrupted"
            # rows are counted in memory and written at close, so a killed session's count is
            # stale; what it appended is what the file holds beyond its start (or the next's)
            end = sessions[i + 1].get("rows_at_start", 0) if i + 1 < len(sessions) else len(keys)
            previous["rows_appended"] = max(0, end - previous.get("rows_at_start", 0))
    if meta.get("status") == "complete":  # see above: a seal that never finished
        meta.update(record_count=None)
        meta["timings"]["completed_at"] = None
    session["rows_at_start"] = len(keys)
    sessions.append(session)
    meta.update(status="running", error=None)
    dump_run_json(run_json, meta)
    return keys
