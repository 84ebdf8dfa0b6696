"""Files of a snapshot as ContextBench's reference evaluator sees them: inclusive byte intervals, definitions.

Part of the ``contextbench`` metric profile (``contextbench.py``, whose
docstring lists the reference's rules these functions keep): inclusive
intervals that merge when they touch, line spans as inclusive byte ranges of
the raw file bytes, and tree-sitter-shaped ``def``/``class`` nodes read with
``ast``.
"""
from __future__ import annotations

import ast
import re
import warnings
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from .intervals import Interval, Spans, merge

Def = tuple[str, str, int, int]  # (file, node type, start byte, end byte); end exclusive, as tree-sitter's


def ratios(pred: float, gold: float, hit: float) -> tuple[float, float]:
    """(coverage, precision); an empty gold or prediction gives 1.0, as in the reference."""
    return (hit / gold if gold > 0 else 1.0), (hit / pred if pred > 0 else 1.0)


# -- files at the base commit --------------------------------------------------

class Tree:
    """Raw bytes and definitions of the files of one snapshot, read once."""

    def __init__(self, repo_dir: Path | str):
        self.repo_dir = Path(repo_dir)
        self._bytes: dict[str, bytes | None] = {}
        self._defs: dict[str, list[tuple[str, str, int, int]]] = {}

    def data(self, path: str) -> bytes | None:
        if path not in self._bytes:
            file = self.repo_dir / path
            self._bytes[path] = file.read_bytes() if file.is_file() else None
        return self._bytes[path]

    def line_to_byte(self, path: str, start: int, end: int) -> Interval | None:
        """Inclusive byte interval of lines ``start..end``; ``None`` past the end or for a missing file."""
        data = self.data(path)
        if data is None:
            return None
        if not data:
            return (0, 0)  # the reference counts an empty file as one byte
        offsets = [0] + [m.end() for m in re.finditer(b"\n", data)]
        start = max(1, start)
        end = max(start, end)
        if start - 1 >= len(offsets):
            return None
        first = offsets[start - 1]
        last = offsets[end] - 1 if end < len(offsets) else len(data) - 1
        return (first, max(first, last))

    def byte_spans(self, items: Iterable[tuple[str, int, int]]) -> Spans:
        out: Spans = {}
        for path, start, end in items:
            if path and (span := self.line_to_byte(path, start, end)) is not None:
                out.setdefault(path, []).append(span)
        return {p: merge(v) for p, v in out.items()}

    def definitions(self, path: str) -> list[tuple[str, str, int, int]]:
        """``(node type, name, start byte, end byte)`` of every definition in a ``.py`` file."""
        if path not in self._defs:
            data = self.data(path)
            self._defs[path] = definitions(data) if data is not None and path.lower().endswith(".py") else []
        return self._defs[path]

    def defs_in_spans(self, spans: Mapping[str, Sequence[Interval]]) -> set[Def]:
        """Definitions overlapping a span; the reference compares an exclusive node end with inclusive spans."""
        found = set()
        for path, intervals in spans.items():
            for kind, _, start, end in self.definitions(path):
                if any(not (end < s or start > e) for s, e in intervals):
                    found.add((path, kind, start, end))
        return found

    def defs_named(self, symbols: Mapping[str, Sequence[str]]) -> set[Def]:
        """Definitions named by ``{path: [name, ...]}``: the full name, else its last dotted part."""
        found = set()
        for path, names in symbols.items():
            if not path or not isinstance(names, list) or not names or self.data(path) is None:
                continue
            by_name: dict[str, list[tuple[str, int, int]]] = {}
            for kind, name, start, end in self.definitions(path):
                by_name.setdefault(name, []).append((kind, start, end))
            for raw in names:
                name = raw.strip() if isinstance(raw, str) else ""
                candidates = ([name, name.split(".")[-1]] if "." in name else [name]) if name else []
                hit = next((c for c in candidates if c in by_name), None)
                if hit is not None:
                    found |= {(path, kind, s, e) for kind, s, e in by_name[hit]}
        return found


def definitions(data: bytes) -> list[tuple[str, str, int, int]]:
    """``(node type, name, start byte, end byte)`` of every ``def``/``class`` in Python source, nested ones too.

    The spans are tree-sitter's ``function_definition``/``class_definition``
    nodes: from the ``def``, ``async`` or ``class`` keyword (decorators belong
    to the enclosing ``decorated_definition``, which the reference does not
    count) to the end of the last token of the body, end exclusive, as byte
    offsets into the raw file. A file that does not parse has none (tree-sitter
    would still find the definitions outside the broken region; documented gap).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    starts = [0] + [m.end() for m in re.finditer(b"\n", data)]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kind = "class_definition" if isinstance(node, ast.ClassDef) else "function_definition"
            out.append((kind, node.name, starts[node.lineno - 1] + node.col_offset,
                        starts[node.end_lineno - 1] + node.end_col_offset))
    return sorted(out, key=lambda d: (d[2], -d[3]))
