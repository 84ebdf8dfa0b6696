"""JSON Lines with line numbers: the one reader behind task manifests, trajectory and prediction files.

Blank lines are skipped; a line that is not JSON, or not a JSON object, raises
the caller's error type as ``error(path, line, None, message, column=…)`` so
every format names the file, the line (and the column of a JSON error).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator, Protocol


class LineError(Protocol):
    def __call__(self, path: Path | str, line: int, field: str | None, message: str, *,
                 column: int | None = None) -> Exception: ...


def jsonl_objects(path: Path | str, error: LineError) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` for each non-blank line of ``path``; a bad line raises ``error``."""
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise error(path, number, None, f"invalid JSON: {exc.msg}", column=exc.colno) from None
            if not isinstance(value, dict):
                raise error(path, number, None, f"expected a JSON object, got {type(value).__name__}")
            yield number, value
