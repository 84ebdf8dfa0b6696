"""Per-graph index shared by the issue-structure signals (``GraphIndexes.issue_graph``), and ``SignalScores``.

``graph_index(graph)`` is built once per graph and kept as the typed member
``issue_graph`` of the graph's ``GraphIndexes`` (``beacon.retrieval.indexes``,
the one owner of per-graph state): files in sorted order (the ``FileIndex``
order), each symbol's file, per file its definitions sorted by span (for
"innermost definition at line N"), qualnames per file, and the module name ->
file table. ``SignalScores`` is what every signal returns.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...graph.codebase import CodebaseGraph
from ...graph.symbols import MODULE_QUALNAME
from ..file_index import file_index
from ..indexes import indexes_for
from ..masks import is_test_mask


@dataclass(frozen=True)
class SignalScores:
    """A signal's evidence: per symbol (graph order) and per file (``GraphIndex.paths`` order)."""

    symbol: np.ndarray
    file: np.ndarray

    @property
    def empty(self) -> bool:
        return not (self.symbol.any() or self.file.any())


@dataclass(frozen=True)
class GraphIndex:
    paths: tuple[str, ...]
    file_of: np.ndarray  # per symbol: index into paths
    module_node: dict[str, int]  # path -> node of its module symbol
    spans: dict[str, list[tuple[int, int, int]]]  # path -> (start, end, node) of its definitions
    qualnames: dict[str, dict[str, int]]  # path -> qualname -> node (first definition)
    module_file: dict[str, str]  # dotted module name -> path
    is_test: np.ndarray  # per symbol
    import_paths: dict[str, str]  # path -> the path its module name implies (src/a/b.py -> a/b.py)

    @cached_property
    def module_depth(self) -> int:
        """The most parts of any module name (``a.b.c``: 3); 0 without modules."""
        return max((name.count(".") + 1 for name in self.module_file), default=0)

    def at_line(self, path: str, line: int) -> int | None:
        """The innermost definition of ``path`` holding ``line`` (the module node outside any)."""
        best = None
        for start, end, node in self.spans.get(path, ()):
            if start <= line <= end and (best is None or end - start < best[1] - best[0]):
                best = (start, end, node)
        return best[2] if best else self.module_node.get(path)

    def match(self, mentioned: str) -> list[str]:
        """Files a mentioned path names: equal, or a suffix of it on a ``/`` boundary, either as the
        graph path or as the file's import path (``shop/fields.py`` for ``src/shop/fields.py``), so an
        installed package's traceback (``site-packages/shop/fields.py``) finds a ``src/`` layout; or the
        mentioned path is a suffix of the graph path (``fields.py`` or ``shop/fields.py`` as written)."""
        m = mentioned.replace("\\", "/").lstrip("/")
        out = []
        for path, imported in self.import_paths.items():
            if any(p == m or m.endswith("/" + p) or p.endswith("/" + m) for p in (path, imported)):
                out.append(path)
        return out

    def votes(self, symbol: np.ndarray) -> np.ndarray:
        """Definitions vote for their files: the per-file sum of ``symbol``."""
        return np.bincount(self.file_of, weights=symbol, minlength=len(self.paths))


def _build(graph: CodebaseGraph) -> GraphIndex:
    files = file_index(graph)  # the same sorted paths and per-symbol files, built once for every user
    paths, file_of = files.paths, files.file_of
    module_node: dict[str, int] = {}
    spans: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    qualnames: dict[str, dict[str, int]] = defaultdict(dict)
    for node, s in enumerate(graph.symbols):
        if s.qualname == MODULE_QUALNAME:
            module_node.setdefault(s.path, node)
            continue
        spans[s.path].append((s.start_line, s.end_line, node))
        qualnames[s.path].setdefault(s.qualname, node)
    module_file = {f.module: path for path, f in sorted(graph.files.items()) if f.module}
    import_paths = {}
    for path in paths:
        module = graph.files[path].module if path in graph.files else ""
        tail = "/__init__.py" if path.endswith("/__init__.py") else ".py"
        import_paths[path] = module.replace(".", "/") + tail if module and path.endswith(".py") else path
    return GraphIndex(paths, file_of, module_node, dict(spans), dict(qualnames), module_file, is_test_mask(graph),
                      import_paths)


def graph_index(graph: CodebaseGraph) -> GraphIndex:
    """The graph's ``GraphIndex`` (built once per graph, kept in ``GraphIndexes.issue_graph``)."""
    ix = indexes_for(graph)
    if ix.issue_graph is None:
        ix.issue_graph = _build(graph)
    return ix.issue_graph


def scores(graph: CodebaseGraph, symbol: np.ndarray) -> SignalScores:
    """Symbol evidence on non-test definitions, with the file votes it implies."""
    index = graph_index(graph)
    symbol = np.where(index.is_test, 0.0, symbol)
    return SignalScores(symbol, index.votes(symbol))
