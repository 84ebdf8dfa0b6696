"""CSR edge storage, reverse edges, and save/load with memory-mapped ``.npy`` arrays."""
from __future__ import annotations

import json

import numpy as np
import pytest

from beacon.graph import CodebaseGraph, EdgeType

REPO = {
    "pkg/__init__.py": "from .models import Model\n",
    "pkg/models.py": """
        from .util import helper, deco


        class Base:
            def save(self):
                return helper()


        @deco
        class Model(Base):
            registry = helper

            def save(self):
                super().save()
                helper()
                helper()  # duplicate call: one edge
                return self.clean()

            def clean(self):
                return helper()
    """,
    "pkg/util.py": """
        def helper():
            return 1


        def deco(obj):
            return obj
    """,
    "tests/test_models.py": """
        from pkg import Model


        def test_save():
            assert Model().save() == 1
    """,
    "crlf.py": b"def crlf():\r\n    return 'caf\xc3\xa9'\r\n",
    "broken.py": "def (:\n",
}


@pytest.fixture
def graph(build_graph) -> CodebaseGraph:
    return build_graph(REPO)


def test_every_edge_type_is_present(graph):
    assert set(graph.edges) == set(EdgeType)
    for etype in EdgeType:
        assert len(graph.edges[etype][1]) > 0, etype


def test_csr_arrays_are_sorted_deduplicated_and_typed(graph):
    n = len(graph)
    for etype, (indptr, indices) in graph.edges.items():
        assert indptr.dtype == np.int64 and indices.dtype == np.int32
        assert indptr.shape == (n + 1,) and indptr[0] == 0 and indptr[-1] == len(indices)
        assert np.all(np.diff(indptr) >= 0)
        assert np.all((indices >= 0) & (indices < n))
        for u in range(n):
            row = indices[indptr[u]:indptr[u + 1]]
            assert np.all(np.diff(row) > 0), (etype, graph.symbols[u].id)


def test_duplicate_calls_make_one_edge(graph):
    model_save = graph.index["pkg/models.py::Model.save"]
    row = list(graph.neighbors(model_save, EdgeType.CALLS))
    assert row.count(graph.index["pkg/util.py::helper"]) == 1
    assert {graph.symbols[int(j)].id for j in row} == {
        "pkg/models.py::Base.save", "pkg/util.py::helper", "pkg/models.py::Model.clean"}


def test_reverse_is_the_transpose(graph):
    n = len(graph)
    for etype in EdgeType:
        fwd = graph.matrix(etype).toarray()
        rev = graph.matrix(etype, reverse=True).toarray()
        assert fwd.shape == rev.shape == (n, n)
        assert np.array_equal(fwd.T, rev), etype
        for v in range(n):
            expected = np.flatnonzero(fwd[:, v])
            assert np.array_equal(np.sort(graph.neighbors(v, etype, reverse=True)), expected)


def test_edge_pairs_and_has_edge_agree(graph):
    for etype in EdgeType:
        pairs = list(graph.edge_pairs(etype))
        assert len(pairs) == len(graph.edges[etype][1])
        for src, dst in pairs:
            assert graph.has_edge(src, dst, etype)
    assert graph.has_edge("pkg/util.py::deco", "pkg/models.py::Model", EdgeType.DECORATES)
    assert graph.has_edge("pkg/models.py::Model", "pkg/models.py::Base", EdgeType.INHERITS)
    assert graph.has_edge("pkg/models.py::Model", "pkg/util.py::helper", EdgeType.ASSIGNS)
    assert not graph.has_edge("pkg/models.py::Base", "pkg/models.py::Model", EdgeType.INHERITS)


def test_save_load_round_trip(graph, tmp_path):
    out = graph.save(tmp_path / "saved")
    assert (out / "nodes.json").exists()
    loaded = CodebaseGraph.load(out)
    assert loaded.symbols == graph.symbols
    assert loaded.files == graph.files
    assert loaded.skipped == graph.skipped and loaded.skipped  # broken.py
    assert loaded.stats == graph.stats
    assert loaded.root == graph.root
    for etype in EdgeType:
        indptr, indices = loaded.edges[etype]
        assert isinstance(indptr, np.memmap) and isinstance(indices, np.memmap), etype
        assert not indptr.flags.writeable
        assert np.array_equal(indptr, graph.edges[etype][0])
        assert np.array_equal(indices, graph.edges[etype][1])
        assert indptr.dtype == np.int64 and indices.dtype == np.int32
        assert set(loaded.edge_pairs(etype)) == set(graph.edge_pairs(etype))
        assert (loaded.matrix(etype, reverse=True) != graph.matrix(etype, reverse=True)).nnz == 0
    for sym in graph.symbols:
        assert loaded.source(sym.id) == graph.source(sym.id)
    assert loaded.source("crlf.py::crlf") == "def crlf():\n    return 'café'\n"


def test_loaded_graph_needs_no_repository(graph, tmp_path):
    import shutil

    out = graph.save(tmp_path / "saved")
    shutil.rmtree(graph.root)
    loaded = CodebaseGraph.load(out)
    assert "helper()" in loaded.source("pkg/models.py::Model.clean")


def test_npy_files_open_with_mmap_directly(graph, tmp_path):
    out = graph.save(tmp_path / "saved")
    for etype in EdgeType:
        arr = np.load(out / f"{etype.label}.indices.npy", mmap_mode="r")
        assert isinstance(arr, np.memmap)
        assert np.array_equal(arr, graph.edges[etype][1])


def test_empty_edge_types_round_trip(build_graph, tmp_path):
    g = build_graph({"lonely.py": "x = 1\n"})
    loaded = CodebaseGraph.load(g.save(tmp_path / "saved"))
    for etype in EdgeType:
        indptr, indices = loaded.edges[etype]
        assert len(indices) == 0 and list(indptr) == [0, 0]
        assert len(loaded.neighbors(0, etype, reverse=True)) == 0
    assert loaded.symbols == g.symbols


def test_load_without_mmap(graph, tmp_path):
    loaded = CodebaseGraph.load(graph.save(tmp_path / "saved"), mmap=False)
    for etype in EdgeType:
        assert not isinstance(loaded.edges[etype][1], np.memmap)
        assert np.array_equal(loaded.edges[etype][1], graph.edges[etype][1])


def test_save_overwrites_and_leaves_no_temporaries(graph, build_graph, tmp_path):
    out = tmp_path / "saved"
    build_graph({"other.py": "def o():\n    pass\n"}).save(out)
    graph.save(out)
    assert not list(out.glob("*.tmp"))
    assert CodebaseGraph.load(out).symbols == graph.symbols


def test_load_rejects_other_schema(graph, tmp_path):
    out = graph.save(tmp_path / "saved")
    meta = json.loads((out / "graph.json").read_text())
    meta["schema"] = 999
    (out / "graph.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="schema 999"):
        CodebaseGraph.load(out)


def test_save_is_deterministic(build_graph, tmp_path):
    a = build_graph(REPO)
    b = build_graph(REPO)
    da, db = a.save(tmp_path / "a"), b.save(tmp_path / "b")
    for name in sorted(p.name for p in da.iterdir()):
        if name == "graph.json":  # holds the (different) root path
            ma, mb = json.loads((da / name).read_text()), json.loads((db / name).read_text())
            ma.pop("root"), mb.pop("root")
            assert ma == mb
        else:
            assert (da / name).read_bytes() == (db / name).read_bytes(), name
