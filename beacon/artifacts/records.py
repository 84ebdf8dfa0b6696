"""Reading ``records.jsonl``: complete lines are records, a torn last line is not.

``RunWriter.append`` writes each record as one line ending in ``\\n``, so a
line without its newline can only be the remains of an interrupted write
(``kill -9``, power loss): it was never a finished record. A *complete* line
that is not a JSON object with a non-empty string ``key`` (or repeats a key)
is real corruption and is reported with the file and line number.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .errors import CorruptRecordsError

RECORDS_NAME = "records.jsonl"


@dataclass
class RecordsScan:
    keys: list[str] = field(default_factory=list)  # in file order
    valid_bytes: int = 0  # length of the prefix made of complete, valid lines
    torn_tail: bytes = b""  # bytes after the last newline (an interrupted write)


def scan_records(path: Path | str) -> RecordsScan:
    """Validate every complete line of ``path`` and locate a torn tail; the file is not modified."""
    path = Path(path)
    scan = RecordsScan()
    seen: dict[str, int] = {}
    with open(path, "rb") as handle:
        for lineno, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                scan.torn_tail = raw  # only the last chunk can lack its newline
                break
            key = _parse_line(path, lineno, raw)["key"]
            if key in seen:
                raise CorruptRecordsError(path, lineno, f"duplicate key {key!r} (first on line {seen[key]})")
            seen[key] = lineno
            scan.keys.append(key)
            scan.valid_bytes += len(raw)
    return scan


def _parse_line(path: Path, lineno: int, raw: bytes) -> dict:
    try:
        row = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptRecordsError(path, lineno, f"not valid UTF-8 JSON ({exc}); "
                                  "a complete line cannot be a torn write, so the file was altered") from None
    if not isinstance(row, dict):
        raise CorruptRecordsError(path, lineno, f"expected a JSON object, got {type(row).__name__}")
    key = row.get("key")
    if not isinstance(key, str) or not key:
        raise CorruptRecordsError(path, lineno, f"field 'key': expected a non-empty string, got {key!r}")
    return row


def iter_records(path: Path | str):
    """Yield the records (dicts) of the complete lines of ``path``, validating as ``scan_records`` does."""
    path = Path(path)
    with open(path, "rb") as handle:
        for lineno, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                return
            yield _parse_line(path, lineno, raw)
