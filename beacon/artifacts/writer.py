"""``RunWriter``: one run folder, written append-only while running, frozen once sealed.

Lifecycle: ``RunWriter(run_dir, …)`` creates the folder and ``run.json``
(status ``running``) or, when ``run.json`` already holds the *same* config
hash and input hashes, resumes it: ``finished_keys()`` tells the caller
which rows exist, the caller computes only the rest and ``append``s them.
``seal()`` writes ``MANIFEST.sha256``, sets status ``complete`` and makes
every file read-only; ``fail(exc)`` sets status ``failed`` (a failed run can
be resumed). Use it as a context manager: an exception escaping the block
marks the run failed.

Determinism is the caller's responsibility: records must hold no
timestamps, absolute paths, hostnames or other per-run facts (those belong
in ``run.json``), so that identical inputs give a byte-identical
``records.jsonl``. ``append`` writes records as canonical JSON and refuses
NaN/inf, which have no canonical form.
"""
from __future__ import annotations

import os
import platform
import sys
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .atomic import TEMP_PREFIX
from .errors import (CanonicalJSONError, RecordError, RunClosedError, RunInUseError, RunMismatchError, SealedRunError,
                     SealError)
from .hashing import canonical_json_bytes, check_json_value, config_hash, hash_rule
from .manifest import UNSAFE_NAME, walk_run, write_manifest
from .provenance import code_state, package_versions
from .records import RECORDS_NAME, scan_records
from .reopen import check_args, check_same_run, finish_sealed, resume
from .runfile import MANIFEST_NAME, RUN_JSON, SCHEMA_VERSION, dump_run_json, load_run_json

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; concurrent writers are then the caller's problem
    fcntl = None

__all__ = ["RunWriter", "code_state", "package_versions"]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class RunWriter:
    """Writer for one run folder; see the module docstring for the lifecycle."""

    def __init__(self, run_dir: Path | str, *, config: dict, scientific: dict, overrides: list[str],
                 inputs: dict[str, str], code: dict[str, Any], packages: dict[str, str | None]):
        check_args(config, scientific, overrides, inputs, code, packages)
        self.run_dir = Path(run_dir)
        self.run_json = self.run_dir / RUN_JSON
        self.records_path = self.run_dir / RECORDS_NAME
        self.manifest_path = self.run_dir / MANIFEST_NAME
        self.config_hash = config_hash(scientific)
        self.sealed = False
        self._closed = False
        self._fd: int | None = None
        self._started = time.monotonic()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._lock_fd = self._lock()
        try:
            self._open(config, scientific, list(overrides), dict(inputs), dict(code), dict(packages))
        except BaseException:
            self._release()
            raise

    # -- opening -----------------------------------------------------------------
    def _lock(self) -> int | None:
        if fcntl is None:
            return None
        fd = os.open(self.run_dir, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise RunInUseError(f"{self.run_dir}: another RunWriter has this run folder open; "
                                "wait for it to finish or use a different run_dir") from None
        return fd

    def _open(self, config, scientific, overrides, inputs, code, packages) -> None:
        session = {"started_at": _now(), "ended_at": None, "seconds": None, "outcome": None,
                   "rows_at_start": 0, "rows_appended": 0, "code": code, "packages": packages,
                   "overrides": overrides, "run_dir": str(self.run_dir.resolve()),
                   "host": platform.node(), "python": sys.version.split()[0], "pid": os.getpid()}
        if not self.run_json.exists():
            for stray in (self.records_path, self.manifest_path):
                if stray.exists():
                    raise RunMismatchError(f"{self.run_dir}: has {stray.name} but no {RUN_JSON}; "
                                           "refusing to mix an unknown run with this one — use a new run_dir")
            self._meta = {
                "schema_version": SCHEMA_VERSION, "status": "running", "error": None,
                "config_hash": self.config_hash, "hash_rule": hash_rule(), "scientific": scientific,
                "config": config, "overrides": overrides, "code": code, "packages": packages,
                "inputs": inputs, "record_count": None, "repairs": [], "sessions": [session],
                "timings": {"created_at": session["started_at"], "completed_at": None,
                            "total_seconds": 0.0, "phases": {}},
            }
            dump_run_json(self.run_json, self._meta)
            self.records_path.touch()
            self._keys: set[str] = set()
        else:
            self._meta = load_run_json(self.run_json)
            check_same_run(self._meta, self.run_json, self.config_hash, scientific, inputs)
            if self.manifest_path.exists():
                # Already sealed: nothing to compute, nothing may be written. A sealed run is
                # never trusted unchecked: a damaged one is refused with verify's findings.
                finish_sealed(self.run_dir)
                self.sealed = True
                self._keys = set(scan_records(self.records_path).keys)
                return
            self._keys = resume(self._meta, self.run_json, self.records_path, session)
        self._fd = os.open(self.records_path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))

    # -- running ---------------------------------------------------------------
    def finished_keys(self) -> set[str]:
        """Keys of the complete rows already in ``records.jsonl`` (after repairing a torn tail)."""
        return set(self._keys)

    def append(self, record: dict[str, Any]) -> None:
        """Append one record as a single canonical JSON line, then fsync.

        ``record["key"]`` must be a non-empty str not yet recorded; values
        must be plain JSON without NaN/inf.
        """
        self._check_writable("append to")
        if not isinstance(record, dict):
            raise RecordError(f"{self.records_path}: a record must be a dict, got {type(record).__name__}")
        key = record.get("key")
        if not isinstance(key, str) or not key:
            raise RecordError(f"{self.records_path}: field 'key': expected a non-empty str, got {key!r}")
        if key in self._keys:
            raise RecordError(f"{self.records_path}: key {key!r} is already recorded; "
                              "skip the keys returned by finished_keys()")
        try:
            line = canonical_json_bytes(record) + b"\n"
        except CanonicalJSONError as exc:
            raise RecordError(f"{self.records_path}: record {key!r}: {exc}") from None
        start = os.fstat(self._fd).st_size
        try:
            view = memoryview(line)
            while view:  # one write(2) in practice; the loop only guards against short writes
                view = view[os.write(self._fd, view):]
            os.fsync(self._fd)
        except BaseException:
            os.ftruncate(self._fd, start)  # never leave a partial line behind a live writer
            raise
        self._keys.add(key)
        self._meta["sessions"][-1]["rows_appended"] += 1

    def add_timing(self, name: str, seconds: float) -> None:
        """Accumulate ``seconds`` under ``timings.phases[name]`` in run.json (written on close)."""
        self._check_writable("time")
        check_json_value(seconds, f"timings.phases.{name}")
        phases = self._meta["timings"].setdefault("phases", {})
        phases[name] = phases.get(name, 0.0) + float(seconds)

    def set_environment(self, name: str, value: Any) -> None:
        """Record a fact about how this session ran (e.g. whether tests were sandboxed) in run.json.

        Stored per session, so a resumed run keeps what each session had.
        """
        self._check_writable("annotate")
        check_json_value(value, f"environment.{name}")
        self._meta["sessions"][-1].setdefault("environment", {})[name] = value

    # -- ending ----------------------------------------------------------------
    def seal(self) -> Path:
        """Freeze the run: status complete, ``MANIFEST.sha256``, files read-only. Idempotent."""
        if self.sealed:
            self._release()
            return self.manifest_path
        self._check_writable("seal")
        os.fsync(self._fd)
        self._meta["record_count"] = len(self._keys)
        self._end_session("complete")
        self._meta["timings"]["completed_at"] = self._meta["sessions"][-1]["ended_at"]
        dump_run_json(self.run_json, self._meta)
        files = self._files_to_seal()
        write_manifest(self.run_dir, files)
        for rel in [*files, MANIFEST_NAME]:
            path = self.run_dir / rel
            path.chmod(path.stat().st_mode & ~0o222)
        self.sealed = True
        self._release()
        return self.manifest_path

    def _files_to_seal(self) -> list[str]:
        files, others = walk_run(self.run_dir)
        for rel in [f for f in files if Path(f).name.startswith(TEMP_PREFIX)]:
            (self.run_dir / rel).unlink()  # an atomic write that never reached os.replace: never valid content
            files.remove(rel)
        if others:
            raise SealError(f"{self.run_dir / others[0]}: not a regular file (symlink or special file); a "
                            "sealed run must hold its own bytes — copy the file in or remove it")
        for rel in files:
            if UNSAFE_NAME.search(rel):
                raise SealError(f"{self.run_dir / rel}: file name has a control character or backslash; rename it")
        return files

    def fail(self, error: BaseException | str, *, message: str | None = None) -> None:
        """Mark the run failed with ``error`` and close it; it can be resumed later.

        ``message`` replaces ``str(error)`` as the recorded reason (callers pass the one-line form).
        """
        self._check_writable("fail")
        if isinstance(error, BaseException):
            detail = {"type": type(error).__name__, "message": message or str(error),
                      "traceback": "".join(traceback.format_exception(error))}
        else:
            detail = {"type": None, "message": message or str(error), "traceback": None}
        self._meta.update(status="failed", error=detail)
        self._meta["sessions"][-1]["error"] = detail  # kept when a resume clears the top-level error
        self._end_session("failed")
        dump_run_json(self.run_json, self._meta)
        self._release()

    def close(self) -> None:
        """Release the folder; an unsealed run stays ``running`` and can be resumed."""
        if self._closed:
            return
        if not self.sealed:
            self._end_session("closed")
            dump_run_json(self.run_json, self._meta)
        self._release()

    def _end_session(self, outcome: str) -> None:
        session = self._meta["sessions"][-1]
        seconds = round(time.monotonic() - self._started, 3)
        session.update(ended_at=_now(), seconds=seconds, outcome=outcome)
        timings = self._meta["timings"]
        timings["total_seconds"] = round(sum(s.get("seconds") or 0.0 for s in self._meta["sessions"]), 3)
        if outcome == "complete":
            self._meta.update(status="complete", error=None)

    def _check_writable(self, action: str) -> None:
        if self.sealed:
            raise SealedRunError(f"{self.run_dir}: cannot {action} a sealed run ({MANIFEST_NAME} exists); "
                                 "start a new run_dir to compute more")
        if self._closed:
            raise RunClosedError(f"{self.run_dir}: this RunWriter is closed; open a new one to resume")

    def _release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor drops the flock
            self._lock_fd = None
        self._closed = True

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if self._closed:
            return False
        if exc is not None and not self.sealed:
            self.fail(exc)
        else:
            self.close()
        return False
