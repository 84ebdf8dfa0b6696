"""``InputsStore``: the git history inputs of a base commit (``RepoInputs`` fields) saved as JSON, read back exactly.

Reading history is git work (the repository's log, read once per run and
sliced per base commit by ``history_log.RepoLog``, and ``git blame`` per base
commit); a sweep run again on the same commits pays it again unless the
inputs are kept. The snapshot cache saves each input it reads to
``<root>/<owner__name>/<commit>/<input>.json`` (written to a temporary file and
renamed, so a reader never sees half of one) together with everything it
depends on: the input format, the commit, the reader's limits
(``DEFAULT_COMMITS``, ``DEFAULT_LOG_COMMITS``, ``LINE_COMMITS``) and, for line
history, a hash of the paths it may blame. A file that does not match, or does
not parse, is reported with an ``InputsStoreWarning`` and read from git again.
"""
from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .history import (DEFAULT_COMMITS, DEFAULT_LOG_COMMITS, INPUT_NAMES, LINE_COMMITS, ChangeLog, RepoHistory)

INPUTS_FORMAT = 1


class InputsStoreWarning(UserWarning):
    """A saved history input was unreadable or stale; it is read from git again."""


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _encode(name: str, value: Any) -> Any:
    if name == "line_history":
        return {path: array.tolist() for path, array in value.items()}
    return {f: getattr(value, f) for f in value.__dataclass_fields__}


def _decode(name: str, payload: Any) -> Any:
    if name == "line_history":
        return {path: np.asarray(lines, dtype=np.int64) for path, lines in payload.items()}
    cls = RepoHistory if name == "file_history" else ChangeLog
    if set(payload) != set(cls.__dataclass_fields__):
        raise ValueError(f"fields {sorted(payload)}, expected {sorted(cls.__dataclass_fields__)}")
    return cls(**{f: _tuples(v) for f, v in payload.items()})


class InputsStore:
    """Saved ``RepoInputs`` fields per repository and commit under ``root``."""

    def __init__(self, root: Path | str):
        self.root = Path(root)

    @staticmethod
    def _key(name: str, commit: str, paths: Sequence[str]) -> dict:
        key = {"format": INPUTS_FORMAT, "input": name, "commit": commit,
               "limits": [DEFAULT_COMMITS, DEFAULT_LOG_COMMITS, LINE_COMMITS]}
        if name == "line_history":
            key["paths"] = hashlib.sha256("\n".join(sorted(paths)).encode()).hexdigest()
        return key

    def _path(self, repo: str, commit: str, name: str) -> Path:
        if name not in INPUT_NAMES:
            raise ValueError(f"unknown input {name!r}; known: {', '.join(INPUT_NAMES)}")
        return self.root / repo.replace("/", "__") / commit / f"{name}.json"

    def load(self, repo: str, commit: str, name: str, paths: Sequence[str] = ()) -> Any | None:
        """The saved input, or None when there is none (or it is unsound: then with a warning)."""
        path = self._path(repo, commit, name)
        if not path.is_file():
            return None
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
            if saved.get("key") != self._key(name, commit, paths):
                raise ValueError(f"saved for {saved.get('key')!r}, expected {self._key(name, commit, paths)!r}")
            return _decode(name, saved["value"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            warnings.warn(InputsStoreWarning(f"{path}: {exc}; read from git again"), stacklevel=2)
            return None

    def save(self, repo: str, commit: str, name: str, value: Any, paths: Sequence[str] = ()) -> None:
        path = self._path(repo, commit, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{name}.tmp-{os.getpid()}")
        tmp.write_text(json.dumps({"key": self._key(name, commit, paths), "value": _encode(name, value)}),
                       encoding="utf-8")
        os.replace(tmp, path)  # atomic: concurrent writers of the same commit write the same value
