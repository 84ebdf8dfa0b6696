"""``FileIndex``: a graph's files in sorted order, each symbol's file, each file's module node, names and stems.

Every file-level signal and every file/unit blend indexes files this way.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..graph.codebase import CodebaseGraph
from ..graph.symbols import Symbol
from .indexes import indexes_for


@dataclass(frozen=True)
class FileIndex:
    """Files of a graph in sorted order, each symbol's file, and the module node of each file."""

    paths: tuple[str, ...]
    file_of: np.ndarray  # per symbol: index into paths
    module_node: np.ndarray  # per file: node of its module symbol (-1 if none)
    by_stem: dict[str, list[int]]  # file stem -> files
    is_module: np.ndarray  # per symbol: is it a module (``kind == "module"``)?
    symbols: list[Symbol] = field(repr=False)

    @cached_property
    def by_name(self) -> dict[str, np.ndarray]:
        """Simple name -> nodes defining it (modules excluded), built on first use: most methods never ask."""
        return _definitions_by_name(self.symbols, np.flatnonzero(~self.is_module))


def _definitions_by_name(symbols: list[Symbol], nodes: np.ndarray) -> dict[str, np.ndarray]:
    """``Symbol.name`` -> the ``nodes`` with it, ascending, names in order of first appearance (the name of a
    definition, worked out here without the property call: its last qualname part without ``#n``)."""
    names: dict[str, list[int]] = {}
    for i in nodes.tolist():
        names.setdefault(symbols[i].qualname.rsplit(".", 1)[-1].split("#", 1)[0], []).append(i)
    return {k: np.asarray(v, dtype=np.int64) for k, v in names.items()}


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
    is_module = np.fromiter((s.kind == "module" for s in symbols), dtype=bool, count=len(symbols))
    for i in np.flatnonzero(is_module).tolist():
        module_node[file_of[i]] = i
    by_stem: dict[str, list[int]] = {}
    for i, p in enumerate(paths):
        by_stem.setdefault(p.rsplit("/", 1)[-1].rsplit(".", 1)[0], []).append(i)
    found = FileIndex(paths, file_of, module_node, by_stem, is_module, symbols)
    ix.file_index = found
    return found
