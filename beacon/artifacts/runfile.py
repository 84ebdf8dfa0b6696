"""The files of a run folder: names, the ``run.json`` schema, and the manifest format.

``run.json`` (schema version 1) is written with ``indent=2`` and sorted keys
for people to read; it is the only file that may hold timestamps and
absolute paths. Fields: ``schema_version``, ``status`` (``running`` |
``complete`` | ``failed``), ``error`` (null or ``{type, message,
traceback}``), ``config_hash``, ``hash_rule``, ``scientific``, ``config``,
``overrides``, ``code`` (``{commit, dirty}``), ``packages``, ``inputs``
(name → sha256), ``timings`` (``created_at``, ``completed_at``,
``total_seconds``, ``phases``), ``sessions`` (one entry per open: times,
outcome, rows, code, packages, host, absolute run_dir), ``repairs`` (torn
record tails that were cut away), ``record_count`` (set when sealed).

``MANIFEST.sha256`` has one ``<sha256>  <relative posix path>`` line per
file, sorted by path, excluding itself: ``sha256sum -c MANIFEST.sha256``
run inside the folder checks it too.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .atomic import atomic_write_text
from .errors import RunFileError

SCHEMA_VERSION = 1
RUN_JSON = "run.json"
MANIFEST_NAME = "MANIFEST.sha256"
STATUSES = ("running", "complete", "failed")
REQUIRED_FIELDS = ("schema_version", "status", "config_hash", "scientific", "inputs")


def load_run_json(path: Path | str) -> dict[str, Any]:
    """Parse and minimally validate a ``run.json``; ``RunFileError`` names the file and field."""
    path = Path(path)
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RunFileError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(meta, dict):
        raise RunFileError(f"{path}: expected a JSON object, got {type(meta).__name__}")
    for name in REQUIRED_FIELDS:
        if name not in meta:
            raise RunFileError(f"{path}: field '{name}' is missing")
    if meta["schema_version"] != SCHEMA_VERSION:
        raise RunFileError(f"{path}: field 'schema_version' is {meta['schema_version']!r}; "
                           f"this beacon reads version {SCHEMA_VERSION}")
    if meta["status"] not in STATUSES:
        raise RunFileError(f"{path}: field 'status' is {meta['status']!r}; expected one of {', '.join(STATUSES)}")
    return meta


def dump_run_json(path: Path | str, meta: dict[str, Any]) -> None:
    text = json.dumps(meta, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
    atomic_write_text(path, text + "\n")
