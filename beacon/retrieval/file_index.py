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
from .term_rows import distinct


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


def _definitions_by_name(symbols: list, nodes: np.ndarray) -> dict[str, np.ndarray]:
    """``Symbol.name`` -> the ``nodes`` with it, ascending, names in order of first appearance.

    The name is the last qualname part without its ``#n`` redefinition mark, worked out once per distinct
    last part; the nodes of a name are a stable sort by name code, cut into one array per name.
    """
    last, distinct_last = distinct([symbols[i].qualname.rsplit(".", 1)[-1] for i in nodes.tolist()])
    codes, names = distinct(np.asarray([part.split("#", 1)[0] for part in distinct_last], dtype=object)[last])
    grouped = nodes[np.argsort(codes, kind="stable")].astype(np.int64)
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=len(names)))]).tolist()
    return {name: grouped[a:b] for name, a, b in zip(names, bounds, bounds[1:])}


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
