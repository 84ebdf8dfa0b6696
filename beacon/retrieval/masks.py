"""Per-symbol and per-file masks every method shares: tests, vendored code, peripheral folders, packable units.

Each is built once per graph (``GraphIndexes``). ``packable``: may a node be
packed as a unit (not a test, not a module)? A file is test code when all its
symbols are.
"""
from __future__ import annotations

import numpy as np

from ..graph.codebase import CodebaseGraph
from .file_index import file_index
from .indexes import indexes_for

# Folder names of vendored third-party code (``requests/packages/urllib3/...``).
VENDOR_DIRS = frozenset({"packages", "_vendor", "vendor", "vendored", "extern", "third_party", "_vendored"})
# Folders of code shipped beside a library rather than in it (``examples/termui/termui.py``).
PERIPHERAL_DIRS = frozenset({"examples", "example", "docs", "doc", "scripts", "benchmarks", "bench", "tools"})


def _under(graph: CodebaseGraph, folders: frozenset[str]) -> np.ndarray:
    """Per symbol: is one of its file's folders in ``folders``? (decided once per file)"""
    index = file_index(graph)
    per_file = np.fromiter((any(part in folders for part in p.split("/")[:-1]) for p in index.paths), dtype=bool,
                           count=len(index.paths))
    return per_file[index.file_of]


def is_test_mask(graph: CodebaseGraph) -> np.ndarray:
    """Boolean array: which symbols are test code."""
    ix = indexes_for(graph)
    if ix.test_mask is None:
        ix.test_mask = np.fromiter((s.is_test for s in graph.symbols), dtype=bool, count=len(graph.symbols))
    return ix.test_mask


def test_files(graph: CodebaseGraph) -> np.ndarray:
    """Boolean per file (``FileIndex`` order): is it test code (all its symbols are)?"""
    ix = indexes_for(graph)
    if ix.test_files is None:
        index = file_index(graph)
        not_test = np.bincount(index.file_of, weights=~is_test_mask(graph), minlength=len(index.paths))
        ix.test_files = not_test == 0
    return ix.test_files


def vendored_mask(graph: CodebaseGraph) -> np.ndarray:
    """Per symbol: is it in a vendored third-party folder (``VENDOR_DIRS``)?"""
    ix = indexes_for(graph)
    if ix.vendored is None:
        ix.vendored = _under(graph, VENDOR_DIRS)
    return ix.vendored


def peripheral_mask(graph: CodebaseGraph) -> np.ndarray:
    """Per symbol: is it under a ``PERIPHERAL_DIRS`` folder?"""
    ix = indexes_for(graph)
    if ix.peripheral is None:
        ix.peripheral = _under(graph, PERIPHERAL_DIRS)
    return ix.peripheral


def module_mask(graph: CodebaseGraph) -> np.ndarray:
    """Per node: is it a module (a whole file)? Derived from ``FileIndex.module_node``, one module per file."""
    module_node = file_index(graph).module_node
    mask = np.zeros(len(graph.symbols), dtype=bool)
    mask[module_node[module_node >= 0]] = True
    return mask


def packable(graph: CodebaseGraph) -> np.ndarray:
    """Per node: may it be packed (not a test, not a module)?"""
    ix = indexes_for(graph)
    if ix.packable is None:
        ix.packable = ~is_test_mask(graph) & ~file_index(graph).is_module
    return ix.packable
