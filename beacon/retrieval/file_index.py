"""``FileIndex``: a graph's files in sorted order, each symbol's file, each file's module node, names and stems.

Every file-level signal and every file/unit blend indexes files this way.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..graph.codebase import CodebaseGraph
from .indexes import indexes_for
from .term_rows import SymbolNames, symbol_names


@dataclass(frozen=True)
class FileIndex:
    """Files of a graph in sorted order, each symbol's file, and the module node of each file."""

    paths: tuple[str, ...]
    file_of: np.ndarray  # per symbol: index into paths
    module_node: np.ndarray  # per file: node of its module symbol (-1 if none)
    by_stem: dict[str, list[int]]  # file stem -> files
    is_module: np.ndarray  # per symbol: is it a module (``kind == "module"``)?
    # the graph's shared name codes (``term_rows.symbol_names``), asked for on first use of ``by_name``; a
    # weak reference to the graph, so that the index the graph holds does not keep the graph alive
    names: Callable[[], SymbolNames] = field(repr=False)

    @cached_property
    def by_name(self) -> NodesByName:
        """Simple name -> nodes defining it (modules excluded), built on first use: most methods never ask."""
        return NodesByName(self.names(), np.flatnonzero(~self.is_module))


class NodesByName(Mapping):
    """``Symbol.name`` -> the nodes (of those given) with it, ascending, names in order of first appearance.

    Built from the shared name codes with numpy: the nodes sorted by name (stably, so ascending within a
    name), and one dictionary from name to its run; ``get`` returns a slice of that one array.
    """

    def __init__(self, names: SymbolNames, nodes: np.ndarray):
        codes, first, group = np.unique(names.name_of[nodes], return_index=True, return_inverse=True)
        by_first = np.argsort(first, kind="stable")  # the names in order of first appearance
        rank = np.empty(len(codes), dtype=np.int64)
        rank[by_first] = np.arange(len(codes), dtype=np.int64)
        group = rank[group.ravel()]
        self._nodes = nodes[np.argsort(group, kind="stable")].astype(np.int64, copy=False)
        self._bounds = np.concatenate([[0], np.cumsum(np.bincount(group, minlength=len(codes)))]).tolist()
        strings = names.strings
        self._run = dict(zip([strings[c] for c in codes[by_first].tolist()], range(len(codes))))

    def get(self, name: str, default=None):
        run = self._run.get(name)
        if run is None:
            return default
        return self._nodes[self._bounds[run]:self._bounds[run + 1]]

    def __getitem__(self, name: str) -> np.ndarray:
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def __contains__(self, name) -> bool:
        return name in self._run

    def __iter__(self) -> Iterator[str]:
        return iter(self._run)

    def __len__(self) -> int:
        return len(self._run)


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
    graph_ref = weakref.ref(graph)
    found = FileIndex(paths, file_of, module_node, by_stem, is_module, lambda: symbol_names(graph_ref()))
    ix.file_index = found
    return found
