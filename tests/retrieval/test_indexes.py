"""``GraphIndexes``: one typed object per graph, members built on first use and shared by every method."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from beacon.graph import CodebaseGraph
from beacon.retrieval import assemble_context, get_method
from beacon.retrieval.indexes import GraphIndexes, indexes_for
from beacon.retrieval.lexical import bm25_symbol_weights
from beacon.retrieval import masks


def _graph(tmp_path) -> CodebaseGraph:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "pkg" / "retry.py").write_text("def retry_delay(attempt):\n    return 2 ** attempt\n\n\n"
                                               "def retry(call):\n    return call(retry_delay(1))\n")
    (tmp_path / "tests" / "test_retry.py").write_text("def test_retry():\n    assert True\n")
    return CodebaseGraph.from_repo(tmp_path)


def test_members_are_built_on_first_use_and_shared(tmp_path):
    graph = _graph(tmp_path)
    ix = indexes_for(graph)
    assert isinstance(ix, GraphIndexes) and indexes_for(graph) is ix
    assert ix.term_index is None and ix.bm25_symbol == {} and ix.packable is None
    assemble_context(graph, "retry delay", "bm25", budget=200)
    weights = ix.bm25_symbol[(1.2, 0.75)]
    assert isinstance(weights, sp.csc_matrix) and ix.term_index is not None
    assemble_context(graph, "retry delay", "hybrid", budget=200)  # hybrid's symbol BM25 has b = 0.4: its own member
    assert set(ix.bm25_symbol) == {(1.2, 0.75), (1.2, 0.4)} and ix.bm25_symbol[(1.2, 0.75)] is weights
    assert bm25_symbol_weights(graph, 1.2, 0.75) is weights  # the accessor hands out the shared member
    assert isinstance(ix.packable, np.ndarray) and ix.packable.dtype == bool
    assert masks.test_files(graph).tolist() == [False, True]  # pkg/retry.py, tests/test_retry.py


def test_clearing_the_graph_memo_drops_every_index_and_rebuilds_the_same(tmp_path):
    graph = _graph(tmp_path)
    before = get_method("hybrid").rank(graph, "retry delay")
    first = indexes_for(graph)
    graph.cache.clear()
    assert indexes_for(graph) is not first and indexes_for(graph).packable is None
    assert get_method("hybrid").rank(graph, "retry delay") == before
    assert masks.packable(graph).tolist() == [not s.is_test and s.kind != "module" for s in graph.symbols]
