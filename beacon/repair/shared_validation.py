"""A sweep validates each task once: its jobs share the original and mutant runs' verdict.

Every job of a repair sweep prepares the same tasks, and a task's validation (its original suite must pass, the
mutant must fail some test: ``beacon.repair.prepare``) was two sandboxed pytest runs per task per job — 48 of the
README's first paper's runs for 6 distinct verdicts. Sharing them is sound because a verdict depends only on what
the key below names, and it is *better* than re-measuring: once a task is found valid, a suite that fails now and
then can no longer drop it from a later method's job of the same comparison.

- **Key**: the SHA-256 of the task's manifest record (repository, commit, line, mutation, test command), the run
  settings (timeout, sandbox, network, limits, addopts policy), the harness's own source (every ``beacon`` module,
  read when this module is imported, so an edited harness validates again), the Python build, every installed
  distribution's name and version (a resumed sweep after ``pip install -U`` validates again), the environment
  variables a test run is given (``pytest_setup``'s pass-through list), bubblewrap's path and version, and the
  platform.
- **Only valid verdicts are shared.** An invalid one (a timeout, a limit, a suite that failed once) is measured by
  each job again, as before: a verdict made invalid by a slow moment, or by another job's attempt loading the
  machine, must not drop a task from the whole sweep and every resume of it.
- **Entry**: ``<folder>/<key>.json`` with the key's inputs, the job that ran it and the verdict (sandboxed, the
  two runs' summaries, the original test ids). Written to a fresh temporary name and renamed; one that is
  unreadable, does not match its key, is not a valid verdict, or is not the user's own file (or is writable by
  group or others) is validated again and replaced (a warning names it).
- **One at a time**: a per-key ``flock``, so two jobs that start together wait for one run instead of doing two
  (where the file system has no locks, each validates and the last rename wins).
- **Only sandboxed**: the caller shares only when the sweep requires the sandbox. The folder lives in the sweep's
  own ``.shared`` (out of the bubblewrap root, which binds the checkout and the system only), so no code under
  test can read or write an entry; without a sandbox a model's code runs as the user and could.

An exception during validation (a harness failure, not a verdict) is never stored: the next job tries again.
"""
from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import hashlib
import json
import logging
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Callable, Iterator

from ..data.manifest import Task
from .pytest_setup import PASSTHROUGH_ENV

FORMAT = 1
log = logging.getLogger("beacon")
# What a verdict holds, and the JSON type of each field (checked when an entry is read back).
FIELDS = {"sandboxed": (bool, type(None)), "baseline": dict, "mutant": dict, "original_ids": list,
          "invalid_reason": (str, type(None))}


def tree_digest(root: Path) -> str:
    """SHA-256 over the ``*.py`` files below ``root``, each by its relative path and bytes."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # beacon/
# Read once, as this module is imported: the code this process runs (an edit made later is not this process's code).
_HARNESS = tree_digest(PACKAGE_ROOT)


def harness_digest() -> str:
    """The digest of every module of the ``beacon`` package (``tree_digest``), as it was when this process loaded."""
    return _HARNESS


@functools.lru_cache(maxsize=1)
def installed_digest() -> str:
    """SHA-256 over every installed distribution's name and version (what the tests under validation import)."""
    found = sorted({(str(d.metadata["Name"] or "").lower(), str(d.version)) for d in metadata.distributions()})
    return hashlib.sha256(json.dumps(found).encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def _bwrap() -> list[str | None]:
    """bubblewrap's path and ``--version`` output (None where it is missing or does not answer)."""
    path = shutil.which("bwrap")
    if path is None:
        return [None, None]
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return [path, None]
    return [path, out.stdout.strip() or None]


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def key_inputs(task: Task, settings) -> dict:
    """Everything a validation's verdict depends on (``settings``: a ``RunSettings`` dataclass)."""
    return {"format": FORMAT, "task": task.to_json(), "settings": dataclasses.asdict(settings),
            "harness": harness_digest(), "python": sys.version, "executable": sys.executable,
            "pytest": _version("pytest"), "pluggy": _version("pluggy"), "installed": installed_digest(),
            "environment": {name: os.environ.get(name) for name in PASSTHROUGH_ENV}, "bwrap": _bwrap(),
            "platform": platform.platform()}


def validation_key(inputs: dict) -> str:
    return hashlib.sha256(json.dumps(inputs, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a+b") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX)
        except OSError:  # a file system without locks: validate anyway (the same verdict, written twice)
            pass
        yield  # the lock goes with the file's close, also when the process dies


def _read(entry: Path, key: str) -> dict | None:
    """The verdict stored under ``key``, or None when there is none or it cannot be trusted to be this key's."""
    try:
        status = entry.stat()
    except FileNotFoundError:
        return None
    if status.st_uid != os.getuid() or status.st_mode & 0o022:
        log.warning("shared validation %s: not this user's own file, or writable by others; validating the task "
                    "again", entry)
        return None
    try:
        data = json.loads(entry.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("shared validation %s: unreadable (%s); validating the task again", entry, exc)
        return None
    verdict = data.get("validation") if isinstance(data, dict) else None
    if (not isinstance(verdict, dict) or data.get("key") != key or data.get("format") != FORMAT
            or set(verdict) != set(FIELDS)
            or not all(isinstance(verdict[name], kind) for name, kind in FIELDS.items())
            or not verdict["original_ids"] or verdict["invalid_reason"] is not None
            or not all(isinstance(i, str) for i in verdict["original_ids"])):
        log.warning("shared validation %s: not a verdict for key %s; validating the task again", entry, key)
        return None
    return verdict


def _write(entry: Path, record: dict) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{entry.name}.", suffix=".tmp", dir=entry.parent)  # unique across hosts
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(record, indent=1) + "\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, entry)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class SharedValidation:
    """The verdicts of one sweep's tasks, in ``folder`` (``<sweep>/.shared/validation``)."""

    def __init__(self, folder: Path | str, label: str = ""):
        self.folder = Path(folder)
        self.label = label  # the job that asks (written into the entries it makes)

    def entry(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def get_or_run(self, task: Task, settings, validate: Callable[[], dict]) -> tuple[dict, str, str]:
        """``(verdict, "shared" or "ran", key)``: the stored verdict for this task and settings, else ``validate()``'s,
        stored for the sweep's other jobs."""
        inputs = key_inputs(task, settings)
        key = validation_key(inputs)
        self.folder.mkdir(parents=True, exist_ok=True)
        with _locked(self.folder / f".{key}.lock"):
            found = _read(self.entry(key), key)
            if found is not None:
                return found, "shared", key
            # as JSON gives it back, so the job that ran it writes the rows the others will
            verdict = json.loads(json.dumps(validate()))
            unknown = set(verdict) ^ set(FIELDS)
            if unknown:
                raise ValueError(f"a validation verdict has fields {sorted(verdict)}; expected {sorted(FIELDS)}")
            if verdict["original_ids"] and verdict["invalid_reason"] is None:  # only valid verdicts (docstring)
                _write(self.entry(key), {"format": FORMAT, "key": key, "by": self.label, "inputs": inputs,
                                         "validation": verdict})
            return verdict, "ran", key
