"""The composer's in-file stage (``stages.infile``: ``w_local``, ``w_file_share``, ``file_decay``) and its recipes.

On a small real git repository with one long file (a router whose every method says ``route``): an issue that
names what one method does ranks that method first among the file's definitions, which file BM25 alone ties,
since the file's shared vocabulary (path, class name, ``route``) weighs nothing inside it; the stage's arithmetic equals its
documented formula; weights at 0 give ``hybrid_code``'s output exactly; the recipes say what they are.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval import assemble_context, get_method
from beacon.retrieval.blend import Blend
from beacon.retrieval.file_index import file_index
from beacon.retrieval.infile import file_share, local_scores, spread
from beacon.retrieval.masks import packable
from beacon.retrieval.recipes import method_params
from beacon.retrieval.text import term_index

METHODS = "\n".join(
    f'''
    def route_{name}(self, rule):
        """Route {doc} for the rule."""
        return self.route_table.{name}(rule)
''' for name, doc in (("add", "adding"), ("remove", "removal"), ("match", "matching"), ("build", "building"),
                      ("iterate", "iteration"), ("copy", "copying"), ("clear", "clearing"), ("freeze", "freezing"),
                      ("describe", "description"), ("count", "counting")))

FILES = {
    "web/__init__.py": '"""Web."""\n',
    "web/router.py": f'''"""Router: the route table of the web app."""


class Router:
    """Routes of the app: every route of the route table."""

    def __init__(self):
        self.route_table = {{}}
{METHODS}
    def route_redirect(self, rule, target):
        """Route redirect: a rule whose target url is another host; keep the query string when redirecting."""
        query_string = rule.query_string
        return self.route_table.redirect(rule, target, query_string)
''',
    "web/server.py": '''"""Server: serve the app's routes."""


def serve(router, port):
    """Serve each route of the router on the port."""
    return [router.route_match(rule) for rule in router.route_table]
''',
}

ISSUE = "Router drops the query string when a route redirects to another host"


@pytest.fixture(scope="module")
def web(git_repo, tmp_path_factory) -> CodebaseGraph:
    root = git_repo.init(tmp_path_factory.mktemp("web"))
    git_repo.commit(root, FILES, "a router with many route methods", when=1)
    return CodebaseGraph.from_repo(root)


def _ids(graph, ranking, k):
    return [graph.symbols[n].id for n, _ in ranking[:k]]


def test_the_within_file_score_ranks_the_method_the_issue_singles_out_first(web):
    # file BM25 alone ties every definition of the router; the within-file score orders them
    flat = get_method("local_only", **method_params("local_only", {"w_local": 0.0})).rank(web, ISSUE)
    local = get_method("local_only", **method_params("local_only")).rank(web, ISSUE)
    assert len({s for n, s in flat if web.symbols[n].path == "web/router.py"}) == 1
    assert _ids(web, flat, 1) != ["web/router.py::Router.route_redirect"]
    assert _ids(web, local, 1) == ["web/router.py::Router.route_redirect"]
    # on hybrid_code: the best file's best local match is lifted by the whole weight, the rest by less
    base = get_method("hybrid_code", **method_params("hybrid_code")).scores(web, ISSUE).total
    fn = get_method("hybrid_fn", **method_params("hybrid_fn")).scores(web, ISSUE).total
    redirect = web.index["web/router.py::Router.route_redirect"]
    assert fn[redirect] - base[redirect] == pytest.approx(0.25)
    assert (fn - base).max() == pytest.approx(0.25) and (fn - base).min() >= 0
    result = assemble_context(web, ISSUE, "hybrid_fn", budget=120)
    assert "web/router.py::Router.route_redirect" in result.context.symbol_ids
    assert result.context.total_tokens <= 120


def test_local_scores_are_bm25_with_the_files_own_idf(web):
    total = get_method("hybrid_code", **method_params("hybrid_code")).scores(web, ISSUE).total
    cand, fidx = packable(web), file_index(web)
    got = local_scores(web, ISSUE, total, cand, files=1, k1=1.2, b=0.4)
    per_file = np.zeros(len(fidx.paths))
    np.maximum.at(per_file, fidx.file_of, np.where(cand, total, 0.0))
    best = int(np.argmax(per_file))
    nodes = np.flatnonzero(cand & (fidx.file_of == best))
    index = term_index(web)
    cols, counts = index.query_vector(ISSUE)
    expected = np.zeros(len(total))
    scores = []
    for n in nodes:
        s = 0.0
        for c, q in zip(cols, counts):
            tf = index.tf[n, c]
            df = sum(index.tf[m, c] > 0 for m in nodes)
            idf = np.log(1 + (len(nodes) - df + 0.5) / (df + 0.5))
            avg = np.mean([index.doc_len[m] for m in nodes])
            s += q * idf * tf * 2.2 / (tf + 1.2 * (1 - 0.4 + 0.4 * index.doc_len[n] / avg))
        scores.append(s)
    expected[nodes] = np.array(scores) / max(scores)  # the best file's share is 1
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    # a term every definition of the file holds weighs nothing inside it
    path_term = index.vocab["router"]
    assert all(index.tf[n, path_term] > 0 for n in nodes)


def test_the_stage_adds_weighted_local_and_share_then_spreads(web):
    params = method_params("hybrid_code")
    base = get_method("hybrid_code", **params).scores(web, ISSUE).total
    got = get_method("hybrid_code", **{**params, "w_local": 0.3, "w_file_share": 0.2, "file_decay": 0.5}
                     ).scores(web, ISSUE).total
    cand = packable(web)
    added = base + np.where(cand, 0.3 * local_scores(web, ISSUE, base, cand, 3, params["k1"], params["b"])
                            + 0.2 * file_share(web, base, cand), 0.0)
    np.testing.assert_allclose(got, spread(web, added, cand, 0.5), rtol=0, atol=1e-12)
    # spread: each file keeps its own order, its j-th definition divided by 1 + 0.5 j
    fidx = file_index(web)
    for f in range(len(fidx.paths)):
        nodes = np.flatnonzero(cand & (fidx.file_of == f) & (added > 0))
        order = nodes[np.lexsort((nodes, -added[nodes]))]
        np.testing.assert_allclose(got[order], added[order] / (1 + 0.5 * np.arange(len(order))), rtol=0, atol=0)


def test_weights_at_zero_give_hybrid_codes_output_exactly(web):
    off = get_method("hybrid_fn", **method_params("hybrid_fn", {"w_local": 0.0}))
    base = get_method("hybrid_code", **method_params("hybrid_code"))
    for query in (ISSUE, "serve the routes", "route table"):
        assert off.scores(web, query).total.tobytes() == base.scores(web, query).total.tobytes()
        assert off.retrieve(web, query, 200).context.symbol_ids == base.retrieve(web, query, 200).context.symbol_ids
        assert "local" not in off.scores(web, query).components


def test_the_recipes_say_what_they_are():
    assert method_params("hybrid_fn") == {**method_params("hybrid_code"), "w_local": 0.25}
    assert method_params("local_only") == {"w_file": 1.0, "w_local": 1.0}
    assert isinstance(get_method("local_only", **method_params("local_only")), Blend)
    with pytest.raises(ValueError, match="local_field"):
        get_method("hybrid_fn", **method_params("hybrid_fn", {"local_field": "body"}))
    with pytest.raises(ValueError, match="local_files"):
        get_method("hybrid_fn", **method_params("hybrid_fn", {"local_files": 0}))


def test_local_only_orders_the_best_files_definitions(web):
    ranked = get_method("local_only", **method_params("local_only")).rank(web, ISSUE)
    assert _ids(web, ranked, 1) == ["web/router.py::Router.route_redirect"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from(["route", "table", "redirect", "host", "query", "string", "freeze", "serve",
                                       "port", "zzz", "Router", "count"]), max_size=8),
       files=st.integers(1, 4), decay=st.floats(0.01, 2.0))
def test_local_scores_and_spread_properties(web, words, files, decay):
    query = " ".join(words)
    total = get_method("hybrid_code", **method_params("hybrid_code")).scores(web, query).total
    cand, file_of = packable(web), file_index(web).file_of
    local = local_scores(web, query, total, cand, files)
    assert local.min() >= 0 and local.max() <= 1 + 1e-12  # a file's best is its share of the best file's total
    assert not local[~cand].any() and len(set(file_of[local > 0].tolist())) <= files
    spread_total = spread(web, total, cand, decay)
    assert np.all(spread_total <= total) and np.all((spread_total > 0) == (total > 0))
    for f in set(file_of[cand].tolist()):  # each file keeps its own order
        nodes = np.flatnonzero(cand & (file_of == f) & (total > 0))
        order = nodes[np.lexsort((nodes, -total[nodes]))]
        assert np.all(np.diff(spread_total[order]) <= 0)
