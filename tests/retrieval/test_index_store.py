"""``IndexStore``: indexes saved beside the graph load equal to built ones; bad files are rebuilt, loudly."""
from __future__ import annotations

import json
import multiprocessing
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from beacon.graph import CodebaseGraph
from beacon.localize.instances import SnapshotCache
from beacon.repair.control import make_control_repo
from beacon.retrieval import assemble_context, method_names
from beacon.retrieval.index_store import INDEX_FORMAT, IndexStore, IndexStoreWarning, graph_digest
from beacon.retrieval.indexes import STORED, STORED_FAMILIES, StoredFamily, attach_store, indexes_for
from beacon.retrieval.recipes import method_params
from beacon.repo.history import EMPTY_HISTORY
from tests.retrieval.conftest import git
from tests.retrieval.test_perron_diffusion import _maps_a_file  # memory-mapped, not copied?

QUERY = "retry_delay grows too fast when the Client retries a request; see pkg/retry.py"
SOURCES = {
    "pkg/__init__.py": "from .retry import retry\n",
    "pkg/retry.py": "import time\n\n\ndef retry_delay(attempt):\n    return 2 ** attempt\n\n\n"
                    "def retry(call, attempts=3):\n    for n in range(attempts):\n        time.sleep(retry_delay(n))\n"
                    "        call()\n",
    "pkg/client.py": "from .retry import retry\n\n\nclass Client:\n    \"\"\"Sends requests.\"\"\"\n\n"
                     "    def send(self, request):\n        return retry(lambda: request)\n\n"
                     "    def close(self):\n        self.open = False\n",
    "docs/example.py": "from pkg.client import Client\n\n\ndef main():\n    Client().send('x')\n",
    "tests/test_retry.py": "from pkg.retry import retry_delay\n\n\ndef test_retry_delay():\n"
                           "    assert retry_delay(1) == 2\n",
}


def _graph(tmp_path) -> CodebaseGraph:
    for rel, text in SOURCES.items():
        (tmp_path / "src" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / rel).write_text(text)
    return CodebaseGraph.from_repo(tmp_path / "src")


def _outputs(graph: CodebaseGraph) -> dict[str, tuple]:
    out = {}
    for name in method_names():
        params = {"target": max(graph.files)} if name == "target_file" else {}
        result = assemble_context(graph, QUERY, name, budget=300, inputs=EMPTY_HISTORY,
                                  **{**method_params(name), **params})
        out[name] = (result.ranking, result.context.render())
    return out


def _same(a, b) -> bool:
    if sp.issparse(a):
        return type(a) is type(b) and a.shape == b.shape and a.dtype == b.dtype and (a != b).nnz == 0
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):  # a family (any order) or a vocabulary (term -> column; its order is checked apart)
        return set(a) == set(b) and all(_same(a[k], b[k]) for k in a)
    if hasattr(a, "tf"):  # TermIndex
        return a.vocab == b.vocab and list(a.vocab) == list(b.vocab) and _same(a.tf, b.tf) and _same(a.doc_len, b.doc_len)
    return a == b


def _members(graph):
    ix = indexes_for(graph)
    members = {name: getattr(ix, name) for name in sorted(STORED | STORED_FAMILIES)}
    return {name: v.loaded() if isinstance(v, StoredFamily) else v for name, v in members.items()}


def test_saved_indexes_load_equal_to_built_ones_and_rank_identically(tmp_path):
    built = _graph(tmp_path)
    expected = _outputs(built)  # in memory only: no store, nothing written
    assert indexes_for(built).store is None and not (tmp_path / "store").exists()

    writer = CodebaseGraph.load(built.save(tmp_path / "saved"))
    attach_store(writer, tmp_path / "store")
    assert _outputs(writer) == expected  # built once more, each member written through as it is built
    written = {n for n, v in _members(writer).items() if v is not None and not (isinstance(v, dict) and not v)}
    assert written == {n for n, v in _members(built).items() if v is not None and not (isinstance(v, dict) and not v)}
    assert len(written) >= len(STORED | STORED_FAMILIES) - 1  # every method ran: all but file_name_bm25 are used

    reader = CodebaseGraph.load(tmp_path / "saved")
    attach_store(reader, tmp_path / "store")
    with warnings.catch_warnings():
        warnings.simplefilter("error", IndexStoreWarning)
        loaded = _members(reader)
    for name in loaded:
        assert _same(loaded[name], _members(built)[name]), name
    assert list(loaded["stem_map"][0]) == list(_members(built)["stem_map"][0])
    assert _maps_a_file(loaded["term_index"].tf.data) and _maps_a_file(loaded["bm25_symbol"][(1.2, 0.75)].indices)
    assert _outputs(reader) == expected


def test_the_store_folder_is_keyed_by_the_graph_content_and_format(tmp_path):
    graph = _graph(tmp_path)
    digest = graph_digest(graph)
    assert graph_digest(CodebaseGraph.load(graph.save(tmp_path / "saved"))) == digest
    (tmp_path / "src" / "pkg" / "retry.py").write_text(SOURCES["pkg/retry.py"].replace("2 **", "3 **"))
    assert graph_digest(CodebaseGraph.from_repo(tmp_path / "src")) != digest
    assert IndexStore(tmp_path, digest).folder == tmp_path / digest[:2] / digest / f"v{INDEX_FORMAT}"


def _stored_graph(tmp_path) -> tuple[CodebaseGraph, IndexStore]:
    graph = _graph(tmp_path)
    attach_store(graph, tmp_path / "store")
    assemble_context(graph, QUERY, "bm25", budget=300)
    return graph, indexes_for(graph).store


def _reload(graph: CodebaseGraph, tmp_path):
    graph.cache.clear()
    attach_store(graph, tmp_path / "store")
    return indexes_for(graph)


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "stale digest", "old format", "garbage meta"])
def test_a_damaged_or_stale_member_is_reported_and_rebuilt(tmp_path, damage):
    graph, store = _stored_graph(tmp_path)
    member = store.folder / "term_index"
    built = indexes_for(graph).term_index
    data = member / "data.npy"
    meta = json.loads((member / "meta.json").read_text())
    if damage == "flip a byte":
        raw = bytearray(data.read_bytes())
        raw[-3] ^= 0xFF
        data.write_bytes(bytes(raw))
    elif damage == "truncate":
        data.write_bytes(data.read_bytes()[:-8])
    elif damage == "stale digest":
        (member / "meta.json").write_text(json.dumps({**meta, "digest": "0" * 40}))
    elif damage == "old format":
        (member / "meta.json").write_text(json.dumps({**meta, "format": INDEX_FORMAT - 1}))
    else:
        (member / "meta.json").write_text("{not json")
    with pytest.warns(IndexStoreWarning, match=r"term_index: .*rebuilt") as caught:
        ix = _reload(graph, tmp_path)  # a bad meta.json is found on opening, bad arrays on first use
        assert ix.term_index is None and not member.exists()  # never used; moved out of the way
    assert len(caught) == 1 and str(member) in str(caught[0].message)
    assert ix.bm25_symbol[(1.2, 0.75)] is not None  # the sound members still load
    assemble_context(graph, QUERY, "bm25", budget=300)  # rebuilds the member and writes it again
    assert _same(ix.term_index, built) and (member / "meta.json").is_file()
    with warnings.catch_warnings():
        warnings.simplefilter("error", IndexStoreWarning)
        assert _same(_reload(graph, tmp_path).term_index, built)


def _write_member(args) -> None:
    root, digest, barrier = args
    rng = np.random.default_rng(7)
    value = sp.random(400, 300, density=0.05, format="csr", random_state=rng)
    barrier.wait()  # every writer starts at once
    IndexStore(root, digest).save("file_tf", None, value)


def test_concurrent_writers_leave_one_whole_member(tmp_path):
    digest = "ab" * 20
    n = 6
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Manager().Barrier(n)
    procs = [ctx.Process(target=_write_member, args=((tmp_path, digest, barrier),)) for _ in range(n)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0] * n
    store = IndexStore(tmp_path, digest)
    assert sorted(p.name for p in store.folder.iterdir()) == ["file_tf"]  # no temporary folder left behind
    with warnings.catch_warnings():
        warnings.simplefilter("error", IndexStoreWarning)
        (loaded,) = store.load().values()
    expected = sp.random(400, 300, density=0.05, format="csr", random_state=np.random.default_rng(7))
    assert _same(loaded, expected)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(0, 12), cols=st.integers(1, 12), density=st.floats(0, 1), seed=st.integers(0, 2**16),
       fmt=st.sampled_from(["csr", "csc"]), key=st.tuples(st.floats(0, 3), st.floats(0, 1)))
def test_sparse_members_round_trip(tmp_path_factory, rows, cols, density, seed, fmt, key):
    root = tmp_path_factory.mktemp("store")
    value = sp.random(rows, cols, density=density, format=fmt, random_state=np.random.default_rng(seed))
    IndexStore(root, "cd" * 20).save("bm25_symbol", key, value)
    assert list(IndexStore(root, "cd" * 20).load()) == [("bm25_symbol", key)]
    assert _same(IndexStore(root, "cd" * 20).load()[("bm25_symbol", key)], value)


def _control_commit(tmp_path) -> tuple[str, str]:
    """The control repository's first (repo, commit), built under ``tmp_path / "repos"``."""
    _, manifest = make_control_repo(tmp_path)
    row = json.loads(manifest.read_text().splitlines()[0])
    return row["repo"], row["commit"]


def test_the_snapshot_cache_saves_indexes_that_a_second_cache_loads(tmp_path):
    repo, commit = _control_commit(tmp_path)
    first = SnapshotCache(tmp_path / "cache", tmp_path / "repos").graph(repo, commit)
    before = _outputs(first)
    assert (tmp_path / "cache" / "indexes").is_dir()
    second = SnapshotCache(tmp_path / "cache", tmp_path / "repos").graph(repo, commit)
    assert indexes_for(second).term_index is not None  # loaded, not built
    assert _outputs(second) == before
    plain = SnapshotCache(tmp_path / "cache", tmp_path / "repos", index_store=False).graph(repo, commit)
    assert indexes_for(plain).store is None and indexes_for(plain).term_index is None


def test_a_moved_cache_points_its_graphs_at_its_own_snapshots(tmp_path):
    # graph.json keeps the absolute snapshot path it was built from; after the cache folder moves, the docs
    # bridge (which reads files under graph.root) must read the moved snapshot, not fail on the old path.
    repo, commit = _control_commit(tmp_path)
    first = SnapshotCache(tmp_path / "cache", tmp_path / "repos").graph(repo, commit)
    before = _outputs(first)
    (tmp_path / "cache").rename(tmp_path / "moved")
    moved = SnapshotCache(tmp_path / "moved", tmp_path / "repos").graph(repo, commit)
    expected = tmp_path / "moved" / "snapshots" / repo.replace("/", "__") / commit
    assert moved.root == str(expected) and expected.is_dir()
    assert _outputs(moved) == before  # docs_only and every other method, from the moved snapshot


def test_a_graph_saved_by_another_schema_is_rebuilt_not_read(tmp_path):
    from beacon.graph.codebase import GRAPH_SCHEMA, StaleGraphError

    repo, commit = _control_commit(tmp_path)
    fresh = SnapshotCache(tmp_path / "cache", tmp_path / "repos").graph(repo, commit)
    saved = tmp_path / "cache" / "graphs" / repo.replace("/", "__") / commit
    meta = json.loads((saved / "graph.json").read_text())
    (saved / "graph.json").write_text(json.dumps({**meta, "schema": GRAPH_SCHEMA - 1}))
    (saved / "literals.json").unlink()  # what an older schema did not write
    with pytest.raises(StaleGraphError, match=f"expected {GRAPH_SCHEMA}"):
        CodebaseGraph.load(saved)
    again = SnapshotCache(tmp_path / "cache", tmp_path / "repos").graph(repo, commit)
    assert again.files == fresh.files and again.symbols == fresh.symbols
    assert json.loads((saved / "graph.json").read_text())["schema"] == GRAPH_SCHEMA  # replaced on disk
    assert any(f.literals for f in again.files.values())
    assert not [p for p in saved.parent.iterdir() if p.name.startswith(".")]  # nothing left behind


def test_a_reopened_store_reads_a_member_only_when_a_method_uses_it(tmp_path):
    built = _graph(tmp_path)
    expected = _outputs(built)
    writer = CodebaseGraph.load(built.save(tmp_path / "saved"))
    attach_store(writer, tmp_path / "store")
    _outputs(writer)  # every member built and saved

    reader = CodebaseGraph.load(tmp_path / "saved")
    attach_store(reader, tmp_path / "store")
    ix = indexes_for(reader)
    stored = set(ix.pending)
    assert {"term_index", "hashed_vectors", "bca_closure", "issue_literals"} <= stored
    assert not dict.__len__(ix.bm25_symbol) and ix.bm25_symbol.pending  # a family's entries wait too
    assemble_context(reader, QUERY, "bm25", budget=300, inputs=EMPTY_HISTORY)
    assert "term_index" not in ix.pending and dict.__len__(ix.bm25_symbol) == 1  # read: bm25 uses them
    assert {"hashed_vectors", "bca_closure", "issue_literals"} <= set(ix.pending)  # not read: bm25 does not
    assert type(ix).__name__ == "_Pending"
    assert _outputs(reader) == expected  # every other method reads what it needs on first use
    for name in stored:
        getattr(ix, name)
    assert not ix.pending and type(ix).__name__ == "GraphIndexes"  # plain attribute access once all are read
    assert all(_same(v, _members(built)[n]) for n, v in _members(reader).items())


def test_the_snapshot_cache_keeps_its_last_graphs_only(tmp_path):
    # a run over hundreds of base commits must not hold every graph: the least recently used leaves first, and
    # one asked for again is loaded from its saved copy, equal to the first
    repo_a, a = _control_commit(tmp_path)
    root = tmp_path / "repos" / repo_a
    (root / "textkit" / "extra.py").write_text("def added(x):\n    return x\n")
    git(root, "add", "textkit/extra.py")
    git(root, "commit", "-q", "-m", "a second commit")
    repo_b, b = repo_a, git(root, "rev-parse", "HEAD")
    assert b != a
    cache = SnapshotCache(tmp_path / "cache", tmp_path / "repos", max_graphs=1)
    first = cache.graph(repo_a, a)
    assert cache.graph(repo_a, a) is first  # kept while it is the last one used
    before = _outputs(first)
    other = cache.graph(repo_b, b)
    assert list(cache._graphs) == [f"{repo_b}@{b}"]  # a left
    again = cache.graph(repo_a, a)
    assert again is not first and again.symbols == first.symbols and _outputs(again) == before
    assert cache.graph(repo_b, b) is not other  # b left in turn
    roomy = SnapshotCache(tmp_path / "cache", tmp_path / "repos", max_graphs=2)
    kept = roomy.graph(repo_a, a)
    roomy.graph(repo_b, b)
    assert roomy.graph(repo_a, a) is kept
    with pytest.raises(ValueError, match="max_graphs must be at least 1"):
        SnapshotCache(tmp_path / "cache", tmp_path / "repos", max_graphs=0)
