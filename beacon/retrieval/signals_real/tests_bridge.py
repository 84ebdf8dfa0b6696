"""The project's own tests as a bridge from a report's words to the code they exercise (``w_tests``).

A report describes behaviour in prose; the project's tests describe the same behaviour in code
(``test_iter_content_decodes_unicode``) and their calls point at the definitions they exercise. Here the test
definitions (test functions and methods, ``Symbol.is_test``) are ranked against the query with the symbol BM25
every other lexical signal uses (``lexical.bm25_scores``: a test's document holds its split name and its
body's terms); the ``k`` best with a positive score each carry their score over the best one's (``w_t`` in
``(0, 1]``) to the code they reach:

* its **targets**: the non-test, non-vendored definitions it calls or assigns, directly or through one test
  helper it calls; ``w_t`` is shared ``1/n`` among its ``n`` targets (the symbol evidence, which also votes
  for the targets' files);
* its **file's imports** and the **source file its path mirrors** (``tests/test_foo.py``,
  ``test/foo_test.py``, ``foo/tests/test_bar.py`` -> a non-test ``foo.py`` / ``bar.py``, the one sharing most
  folders): file votes only, ``FILE_ROUTES · w_t`` shared among the imported files, as much for the mirror.

The composer adds ``w_tests · (unit(evidence) + tests_files · unit(file votes))``: the file votes lift every
definition of a file, so ``tests_files`` (1 as for the other signals; 0: the definitions alone) sets their share.

The signal never scores a test (``index.scores`` zeroes them) and every test's reach is built once per graph
(``GraphIndexes.test_bridge``); a query costs one BM25 product and ``k`` sparse rows.
``experiments/benchmarks/test_bridge_ceiling.py`` measures how often the routes reach the gold code.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ...graph.codebase import CodebaseGraph
from ...graph.symbols import EdgeType
from ..indexes import indexes_for
from ..lexical import bm25_scores
from ..masks import test_files, vendored_mask
from .index import SignalScores, graph_index
from .. import libm

_CALLABLE = ("function", "method")
# A test file's imports and mirrored source vote this share of the test's weight (its targets vote all of it)
FILE_ROUTES = 0.5
# Targets / imported files weighed by an idf over the tests (``_rows``); without it every configuration of the
# grid lost requests-3362 alike and the tune losses were larger (docs/localization_real.md)
IDF = True
_SKIP_FOLDERS = frozenset({"tests", "test", "testing", "src"})


@dataclass(frozen=True)
class TestBridge:
    """Per graph: the test definitions, each one's targets (tests x symbols, rows summing to 1 or 0), the files
    its file imports (tests x files, rows summing to 1 or 0) and the file its path mirrors (tests x files)."""

    __test__ = False  # not a pytest class
    tests: np.ndarray
    targets: sp.csr_matrix
    imports: sp.csr_matrix
    mirror: sp.csr_matrix


def mirrored_file(path: str, sources: dict[str, list[str]]) -> str | None:
    """The source file a test file's ``path`` mirrors (module docstring) among ``sources`` (basename -> paths)."""
    parts = path.split("/")
    name = parts[-1]
    if name.startswith("test_") and len(name) > 8:
        name = name[5:]
    elif name.endswith("_test.py") and len(name) > 8:
        name = name[:-8] + ".py"
    else:
        return None
    same = sources.get(name)
    if not same:
        return None
    folders = set(parts[:-1]) - _SKIP_FOLDERS
    return max(same, key=lambda s: (len(folders & set(s.split("/")[:-1])), -len(s), s))


def _reach(graph: CodebaseGraph, node: int, excluded: np.ndarray, is_test: np.ndarray) -> set[int]:
    """Non-excluded definitions ``node`` calls or assigns, directly or through one test helper it calls."""
    out: set[int] = set()
    for etype in (EdgeType.CALLS, EdgeType.ASSIGNS):
        for n in graph.neighbors(node, etype).tolist():
            if not excluded[n]:
                out.add(n)
            elif etype == EdgeType.CALLS and is_test[n] and graph.symbols[n].kind in _CALLABLE:
                out.update(m for m in graph.neighbors(n, EdgeType.CALLS).tolist() if not excluded[m])
    return out


def _rows(lists: list[list[int]], width: int) -> sp.csr_matrix:
    """A row per list, each entry ``idf/len`` (rows of empty lists are empty): ``idf = log(1 + rows/df)``, ``df``
    the number of rows holding the column, so what every test reaches (``Flask``, ``requests.get``,
    ``__init__.py``) counts less than what few tests reach, as BM25 weighs a common term."""
    indptr = np.cumsum([0] + [len(x) for x in lists])
    indices = np.fromiter((i for x in lists for i in x), dtype=np.int64, count=int(indptr[-1]))
    data = np.concatenate([np.full(len(x), 1.0 / len(x)) for x in lists if x] or [np.zeros(0)])
    if IDF and len(indices):
        df = np.bincount(indices, minlength=width)
        data = data * libm.log1p(len(lists) / np.maximum(df[indices], 1))
    return sp.csr_matrix((data, indices, indptr), shape=(len(lists), width))


def _build(graph: CodebaseGraph) -> TestBridge:
    index = graph_index(graph)
    is_test, n_files = index.is_test, len(index.paths)
    tests = np.array([i for i, s in enumerate(graph.symbols) if s.is_test and s.kind in _CALLABLE], dtype=np.int64)
    excluded = is_test | vendored_mask(graph) | np.array([s.kind == "module" for s in graph.symbols], dtype=bool)
    sources: dict[str, list[str]] = {}
    for path, test in zip(index.paths, test_files(graph)):
        if not test:
            sources.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    file_row = {path: i for i, path in enumerate(index.paths)}
    imports_of: dict[str, list[int]] = {}
    mirror_of: dict[str, list[int]] = {}
    for path in {graph.symbols[t].path for t in tests.tolist()}:
        module = index.module_node.get(path)
        found = set() if module is None else {int(index.file_of[m]) for m in graph.neighbors(module, EdgeType.IMPORTS)
                                              if not is_test[m]}
        imports_of[path] = sorted(found)
        mirror = mirrored_file(path, sources)
        mirror_of[path] = [file_row[mirror]] if mirror else []
    targets = [sorted(_reach(graph, t, excluded, is_test)) for t in tests.tolist()]
    paths = [graph.symbols[t].path for t in tests.tolist()]
    return TestBridge(tests, _rows(targets, len(graph.symbols)), _rows([imports_of[p] for p in paths], n_files),
                      _rows([mirror_of[p] for p in paths], n_files))


def bridge_of(graph: CodebaseGraph) -> TestBridge:
    """The graph's ``TestBridge`` (built once per graph, kept in ``GraphIndexes.test_bridge``)."""
    ix = indexes_for(graph)
    if ix.test_bridge is None:
        ix.test_bridge = _build(graph)
    return ix.test_bridge


def best_tests(graph: CodebaseGraph, query: str, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows (into ``TestBridge.tests``) of the ``k`` best test definitions with a positive BM25 score, best first
    (ties by node), and their scores over the best one's."""
    bridge = bridge_of(graph)
    if not len(bridge.tests):
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    score = bm25_scores(graph, query)[bridge.tests]
    rows = np.flatnonzero(score > 0)
    rows = rows[np.lexsort((rows, -score[rows]))][:k]
    return rows, score[rows] / score[rows[0]] if len(rows) else np.zeros(0)


def tests_scores(graph: CodebaseGraph, query: str, k: int = 5) -> SignalScores:
    """The best ``k`` tests' weights spread over what they reach (module docstring): the targets' evidence, and
    file votes from the targets, the imports and the mirror (``FILE_ROUTES`` of a test's weight each). Tests are
    never scored."""
    bridge = bridge_of(graph)
    index = graph_index(graph)
    rows, weight = best_tests(graph, query, k)
    if not len(rows):
        return SignalScores(np.zeros(len(graph.symbols)), np.zeros(len(index.paths)))
    symbol = np.asarray(bridge.targets[rows].T @ weight).ravel()
    symbol[index.is_test] = 0.0
    routes = np.asarray((bridge.imports[rows] + bridge.mirror[rows]).T @ weight).ravel()
    return SignalScores(symbol, index.votes(symbol) + FILE_ROUTES * routes)
