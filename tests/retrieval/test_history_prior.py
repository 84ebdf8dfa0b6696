"""``hybrid_history`` / ``history_only``: the change-history priors (file and function) on a real git repository."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from beacon.graph import CodebaseGraph
from beacon.localize.instances import SnapshotCache
from beacon.repo.history import INPUT_NAMES, NO_INPUTS, RepoHistory, read_history, read_line_history, split_records
from beacon.retrieval import MissingInputError, assemble_context, get_method
from beacon.retrieval.history import file_prior, function_history_scores, history_scores
from beacon.retrieval.file_index import file_index

# Two files with the same function text: lexically the query cannot tell them apart.
PARSER = "def parse_header(value):\n    return value.strip().lower()\n"
DELTA = "def f_old():\n    return 1\n\n\ndef f_new():\n    return {}\n"
QUERY = "parse_header should lower the value"


@pytest.fixture(scope="module")
def repo(tmp_path_factory, git_repo):
    """owner__proj: c0 adds 5 files; c1 beta; c2 gamma + delta.f_new; c3 (base) beta + gamma; then 3 on alpha."""
    repos = tmp_path_factory.mktemp("repos")
    root = repos / "owner__proj"
    root.mkdir()
    git_repo.git(root, "init", "-q")
    c = [git_repo.commit(root, {"pkg/alpha.py": PARSER, "pkg/beta.py": PARSER, "pkg/gamma.py": "def other():\n    pass\n",
                                "tests/test_alpha.py": "def test_a():\n    pass\n", "pkg/delta.py": DELTA.format(1)},
                         "change 0", 0)]
    c.append(git_repo.commit(root, {"pkg/beta.py": PARSER + "\n# 1\n"}, "change 1", 1))
    c.append(git_repo.commit(root, {"pkg/gamma.py": "def other():\n    return 2\n", "pkg/delta.py": DELTA.format(2)},
                             "change 2", 2))
    c.append(git_repo.commit(root, {"pkg/beta.py": PARSER + "\n# 3\n", "pkg/gamma.py": "def other():\n    return 3\n"},
                             "change 3", 3))
    after = [git_repo.commit(root, {"pkg/alpha.py": PARSER + f"\n# after {i}\n", "tests/test_alpha.py": f"# {i}\n"},
                             f"change {4 + i}", 4 + i) for i in range(3)]
    return repos, c, after


def test_history_distances_and_scores(repo, tmp_path):
    repos, c, after = repo
    cache = SnapshotCache(tmp_path / "cache", repos)
    history = cache.history("owner/proj", c[3])
    assert history.hashes == (c[3], c[2], c[1], c[0])  # base first; nothing after the base
    assert not set(after) & set(history.hashes)
    assert history.commits[0] == ("pkg/beta.py", "pkg/gamma.py")
    assert len(history.commits[3]) == 5
    paths = ["pkg/alpha.py", "pkg/beta.py", "pkg/gamma.py", "pkg/missing.py"]
    h = history_scores(history, paths, tau=2.0, max_files=10)
    e = lambda d: math.exp(-d / 2.0)  # noqa: E731
    np.testing.assert_allclose(h, [e(3), e(0) + e(2) + e(3), e(0) + e(1) + e(3), 0.0])
    # max_files drops the 4-file commit; skip drops the nearest commits.
    np.testing.assert_allclose(history_scores(history, paths, tau=2.0, max_files=3), [0, e(0) + e(2), e(0) + e(1), 0])
    np.testing.assert_allclose(history_scores(history, paths, tau=2.0, max_files=10, skip=1),
                               [e(3), e(2) + e(3), e(1) + e(3), 0])


def test_split_records_keeps_empty_commits_for_distance():
    text = "\x1eaaa\x1f\na.py\nb.py\n\x1ebbb\x1f\n\x1eccc\x1f\n\nb.py\n"
    records = split_records(text, "\x1e", "\x1f", 1)
    assert [v for v, _ in records] == [["aaa"], ["bbb"], ["ccc"]]
    assert [sorted(p for p in rest.split("\n") if p) for _, rest in records] == [["a.py", "b.py"], [], ["b.py"]]
    with pytest.raises(ValueError, match="0 of 1 fields"):
        split_records("\x1eaaa", "\x1e", "\x1f", 1)


def _graph_inputs(cache, commit, needs=INPUT_NAMES):
    return cache.graph("owner/proj", commit), cache.inputs("owner/proj", commit, set(needs))


def test_snapshot_cache_reads_only_the_inputs_asked_for(repo, tmp_path):
    repos, c, _ = repo
    cache = SnapshotCache(tmp_path / "cache", repos)
    graph, inputs = _graph_inputs(cache, c[3], ["file_history"])
    assert isinstance(inputs.file_history, RepoHistory) and inputs.file_history.base == c[3]
    assert inputs.line_history is None and inputs.change_log is None
    assert cache.inputs("owner/proj", c[3], set()) is NO_INPUTS
    graph.cache.clear()  # indexes only: the inputs are not on the graph
    both = cache.inputs("owner/proj", c[3], {"file_history", "line_history"})
    assert both.file_history is inputs.file_history and set(both.line_history) >= {"pkg/beta.py"}


def test_prior_reorders_tied_files_and_ignores_later_commits(repo, tmp_path):
    repos, c, _ = repo
    cache = SnapshotCache(tmp_path / "cache", repos)
    graph, inputs = _graph_inputs(cache, c[3])
    hybrid = get_method("hybrid")
    hist = get_method("hybrid_history", tau=2.0, w_history=1.0, w_function=0.0)
    base, boosted = hybrid.scores(graph, QUERY), hist.scores(graph, QUERY, inputs)
    index = file_index(graph)
    ids = [s.id for s in graph.symbols]
    a, b = ids.index("pkg/alpha.py::parse_header"), ids.index("pkg/beta.py::parse_header")
    assert base.total[a] == pytest.approx(base.total[b])  # a lexical tie ...
    assert hist.rank(graph, QUERY, inputs)[0][0] == b  # ... broken by history: beta changed at the base, alpha only at c0
    # Exactly hybrid + w_history * H / max H, with H from commits up to the base (the 3 later alpha commits unseen).
    h = history_scores(inputs.file_history, index.paths, tau=2.0, max_files=10)
    prior = file_prior(graph, inputs.file_history, tau=2.0, max_files=10)
    code = [i for i, p in enumerate(index.paths) if not p.startswith("tests/")]
    np.testing.assert_allclose(prior[code], h[code] / h[code].max())
    for n in (a, b):
        assert boosted.total[n] == pytest.approx(base.total[n] + prior[index.file_of[n]])
    assert prior[index.paths.index("pkg/alpha.py")] < prior[index.paths.index("pkg/beta.py")]
    # The test file is never boosted and never ranked.
    assert prior[index.paths.index("tests/test_alpha.py")] == 0.0
    assert all(not graph.symbols[n].is_test for n, _ in get_method("history_only").rank(graph, QUERY, inputs))


def test_history_only_orders_files_by_recency(repo, tmp_path):
    repos, c, _ = repo
    graph, inputs = _graph_inputs(SnapshotCache(tmp_path / "cache", repos), c[3])
    files = []
    for n, _ in get_method("history_only", tau=2.0, w_history=1.0, w_function=0.0).rank(graph, "anything at all",
                                                                                         inputs):
        if graph.symbols[n].path not in files:
            files.append(graph.symbols[n].path)
    assert files == ["pkg/gamma.py", "pkg/beta.py", "pkg/delta.py", "pkg/alpha.py"]  # e0+e1+e3 > e0+e2+e3 > e1+e3 > e3


def test_line_history_maps_base_lines_to_distances(repo, tmp_path):
    repos, c, _ = repo
    cache = SnapshotCache(tmp_path / "cache", repos)
    graph, inputs = _graph_inputs(cache, c[3])
    lines = inputs.line_history
    assert set(lines) == {"pkg/alpha.py", "pkg/beta.py", "pkg/gamma.py", "pkg/delta.py"}  # tests/ excluded
    assert lines["pkg/delta.py"][1:].tolist() == [3, 3, 3, 3, 3, 1]  # f_new's body changed at c2 (distance 1)
    assert lines["pkg/alpha.py"][1:].tolist() == [3, 3]  # the 3 alpha commits after the base are unseen
    assert lines["pkg/beta.py"][1:].tolist() == [3, 3, 2, 0]  # "# 1" added at c1 (line 3), "# 3" at c3 (line 4)
    # k bounds the blame: lines last changed at distance >= k count as old (-1).
    short = read_line_history(cache.source("owner/proj"), cache.history("owner/proj", c[3]), ["pkg/delta.py"], k=2)
    assert short["pkg/delta.py"][1:].tolist() == [-1, -1, -1, -1, -1, 1]
    e = lambda d: math.exp(-d / 2.0)  # noqa: E731
    ids = [s.id for s in graph.symbols]
    g = function_history_scores(graph, lines, tau=2.0)
    assert g[ids.index("pkg/delta.py::f_new")] == pytest.approx(e(1) + e(3))
    assert g[ids.index("pkg/delta.py::f_old")] == pytest.approx(e(3))
    assert g[ids.index("pkg/delta.py::f_new")] > g[ids.index("pkg/delta.py::f_old")]
    g1 = function_history_scores(graph, lines, tau=2.0, skip=2)
    assert g1[ids.index("pkg/delta.py::f_new")] == pytest.approx(e(3))
    # hybrid_history ranks the recently changed function of a file above its untouched sibling on a neutral query.
    method = get_method("hybrid_history", tau=2.0, w_history=0.0, w_function=1.0)
    ranked = [graph.symbols[n].id for n, _ in method.rank(graph, "delta function", inputs)]
    assert ranked.index("pkg/delta.py::f_new") < ranked.index("pkg/delta.py::f_old")
    total = (method.scores(graph, "delta function", inputs).total
             - get_method("hybrid").scores(graph, "delta function").total)
    # Normalised by max G, which is gamma's other(): "return 3" changed at the base (d=0), its def at c0 (d=3).
    assert g.max() == pytest.approx(g[ids.index("pkg/gamma.py::other")]) == pytest.approx(e(0) + e(3))
    assert total[ids.index("pkg/delta.py::f_new")] == pytest.approx((e(1) + e(3)) / (e(0) + e(3)))


def test_without_history_is_an_error_naming_the_input(repo):
    """No silent fallback to ``hybrid``: a method given no history it needs says which input is missing."""
    repos, c, _ = repo
    graph = CodebaseGraph.from_repo(repos / "owner__proj")
    assert get_method("hybrid_history").needs() == {"file_history", "line_history"}
    assert get_method("hybrid_history", w_history=0.0).needs() == {"line_history"}
    assert get_method("hybrid_history", w_history=0.0, w_function=0.0).needs() == frozenset()
    with pytest.raises(MissingInputError, match="'hybrid_history' needs the input 'file_history'"):
        assemble_context(graph, QUERY, "hybrid_history", budget=200)
    with pytest.raises(MissingInputError, match="needs the input 'line_history'"):
        get_method("history_only", w_history=0.0).rank(graph, QUERY)
    # Given exactly what it declares, it runs.
    only_lines = SnapshotCache(repos.parent / "cache-missing", repos).inputs("owner/proj", c[3], {"line_history"})
    assert get_method("hybrid_history", w_history=0.0).rank(graph, QUERY, only_lines)


def test_zero_weight_equals_hybrid_with_history(repo, tmp_path):
    repos, c, _ = repo
    graph = SnapshotCache(tmp_path / "cache", repos).graph("owner/proj", c[3])
    h = assemble_context(graph, QUERY, "hybrid", budget=300)
    hh = assemble_context(graph, QUERY, "hybrid_history", budget=300, w_history=0.0, w_function=0.0)
    assert hh.ranking == h.ranking and hh.context.render() == h.context.render()


def test_read_history_rejects_bad_n(repo, tmp_path):
    repos, c, _ = repo
    source = SnapshotCache(tmp_path / "cache", repos).source("owner/proj")
    assert len(read_history(source, c[3], n=2).commits) == 2
    with pytest.raises(ValueError, match="n must be >= 1"):
        read_history(source, c[3], n=0)
    with pytest.raises(ValueError, match="w_function"):
        get_method("hybrid_history", w_function=-1.0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(0, 400), method=st.sampled_from(["hybrid_history", "history_only"]),
       query=st.sampled_from([QUERY, "other", "", "gamma beta"]))
def test_budget_never_exceeded(repo, tmp_path_factory, budget, method, query):
    repos, c, _ = repo
    graph, inputs = _graph_inputs(SnapshotCache(tmp_path_factory.getbasetemp() / "budget-cache", repos), c[3])
    result = assemble_context(graph, query, method, budget=budget, inputs=inputs)
    assert result.context.total_tokens <= budget
