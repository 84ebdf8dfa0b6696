"""``FileIndex``: a graph's files in sorted order, each symbol's file, each file's module node, names and stems.

Every file-level signal and every file/unit blend indexes files this way.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..graph.codebase import CodebaseGraph
from .indexes import indexes_for


@dataclass(frozen=True)
class FileIndex:
    """Files of a graph in sorted order, each symbol's file, and the module node of each file."""

    paths: tuple[str, ...]
    file_of: np.ndarray  # per symbol: index into paths
    module_node: np.ndarray  # per file: node of its module symbol (-1 if none)
    by_name: dict[str, np.ndarray]  # simple name -> nodes defining it (modules excluded)
    by_stem: dict[str, list[int]]  # file stem -> files


def file_index(graph: CodebaseGraph) -> FileIndex:
    """The graph's ``FileIndex`` (built once per graph)."""
    ix = indexes_for(graph)
    if ix.file_index is not None:
        return ix.file_index
    symbols = graph.symbols
    path_of = [s.path for s in symbols]
    paths = tuple(sorted(set(path_of)))
    pos = {p: i for i, p in enumerate(paths)}
    file_of = np.fromiter(map(pos.__getitem__, path_of), dtype=np.int64, count=len(symbols))
    module_node = np.full(len(paths), -1, dtype=np.int64)
    names: dict[str, list[int]] = {}
    for i, s in enumerate(symbols):
        if s.kind == "module":
            module_node[pos[s.path]] = i
        else:  # ``Symbol.name`` of a definition, without the property call
            names.setdefault(s.qualname.rsplit(".", 1)[-1].split("#", 1)[0], []).append(i)
    by_stem: dict[str, list[int]] = {}
    for i, p in enumerate(paths):
        by_stem.setdefault(p.rsplit("/", 1)[-1].rsplit(".", 1)[0], []).append(i)
    found = FileIndex(paths, file_of, module_node, {k: np.asarray(v, dtype=np.int64) for k, v in names.items()},
                      by_stem)
    ix.file_index = found
    return found
