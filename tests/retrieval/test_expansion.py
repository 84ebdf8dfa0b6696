"""``hybrid_prf`` (feedback terms, caller-expanded documents, coverage) on a small real repository."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.retrieval import assemble_context, get_method
from beacon.retrieval.expansion import context_matrix, feedback_terms, file_coverage, symbol_coverage, top_k_file_mean
from beacon.retrieval.masks import peripheral_mask
from beacon.retrieval.file_index import file_index
from beacon.retrieval.text import term_index

REPO_ROOT = Path(__file__).resolve().parents[2]

FILES = {
    "web/__init__.py": "",
    "web/cookies.py": (
        '"""Cookie jar: parsing and serialisation of browser cookies."""\n\n\n'
        "def parse_cookie(header):\n"
        "    return dict(part.split('=', 1) for part in header.split(';') if part)\n\n\n"
        "def dump_cookie(key, value, max_age=None):\n"
        "    out = f'{key}={quote(value)}'\n"
        "    if max_age is not None:\n        out += f'; Max-Age={max_age}'\n"
        "    return out\n\n\n"
        "def quote(value):\n    return value.replace(';', '%3B')\n"
    ),
    "web/routing.py": (
        "class Rule:\n"
        "    def __init__(self, path, endpoint):\n        self.path = path\n        self.endpoint = endpoint\n\n"
        "    def match(self, path):\n        return self.path == path\n\n\n"
        "class Map:\n"
        "    def __init__(self, rules):\n        self.rules = list(rules)\n\n"
        "    def bind(self, server_name):\n        return (self, server_name)\n"
    ),
    "examples/cookie_demo.py": "def cookie_demo(header):\n    return parse_cookie(header) or dump_cookie('a', 'b')\n",
    "tests/test_cookies.py": (
        "from web.cookies import parse_cookie\n\n\ndef test_parse_cookie():\n    assert parse_cookie('a=b')\n"
    ),
}


@pytest.fixture(scope="module")
def graph(graph_of):
    return graph_of(FILES, "web")


def _ids(graph, ranking):
    return [graph.symbols[n].id for n, _ in ranking]


def _file_scores(graph, values):
    return dict(zip(file_index(graph).paths, values))


def test_feedback_terms_come_from_the_best_files_and_skip_query_terms(graph):
    index = file_index(graph)
    score = np.zeros(len(index.paths))
    score[index.paths.index("web/cookies.py")] = 1.0
    cols, vals = feedback_terms(graph, score, "cookie", n_files=1, n_terms=5)
    vocab = {j: t for t, j in term_index(graph).vocab.items()}
    words = {vocab[c] for c in cols}
    assert len(words) == 5 and "cookie" not in words
    assert words <= {vocab[c] for c in term_index(graph).tf[[n for n, s in enumerate(graph.symbols)
                                                            if s.path == "web/cookies.py"]].indices}
    assert vals.max() == 1.0 and (vals > 0).all()
    empty = feedback_terms(graph, np.zeros(len(index.paths)), "cookie", n_files=3, n_terms=5)
    assert len(empty[0]) == 0


def test_context_expansion_reaches_a_callee_through_its_callers_name(graph):
    # ``quote``'s own lines never say "dump"; its caller ``dump_cookie`` does.
    vocab = term_index(graph).vocab
    node = graph.index["web/cookies.py::quote"]
    assert term_index(graph).tf[node, vocab["dump"]] == 0
    ctx = context_matrix(graph, 0.5)
    assert ctx[node, vocab["dump"]] > 0
    assert ctx[graph.index["web/routing.py::Rule.match"], vocab["dump"]] == 0
    # the module docstring's "browser" reaches every definition of web/cookies.py
    assert ctx[graph.index["web/cookies.py::parse_cookie"], vocab["browser"]] > 0


def test_coverage_rewards_files_and_symbols_holding_all_query_terms(graph):
    cover = _file_scores(graph, file_coverage(graph, "cookie max age"))
    assert cover["web/cookies.py"] == pytest.approx(1.0)
    assert cover["web/routing.py"] == 0.0 and cover["tests/test_cookies.py"] == 0.0
    sym = symbol_coverage(graph, "cookie max age")
    assert sym[graph.index["web/cookies.py::dump_cookie"]] > sym[graph.index["web/cookies.py::parse_cookie"]] > 0


def test_top_k_file_mean(graph):
    score = np.zeros(len(graph.symbols))
    for sid, v in (("web/cookies.py::parse_cookie", 3.0), ("web/cookies.py::quote", 1.0),
                   ("web/cookies.py::dump_cookie", 2.0), ("web/routing.py::Map.bind", 4.0)):
        score[graph.index[sid]] = v
    mean = _file_scores(graph, top_k_file_mean(graph, score, 2))
    assert mean["web/cookies.py"] == pytest.approx(2.5) and mean["web/routing.py"] == pytest.approx(2.0)


def test_peripheral_code_is_demoted(graph):
    assert peripheral_mask(graph)[graph.index["examples/cookie_demo.py::cookie_demo"]]
    assert not peripheral_mask(graph)[graph.index["web/cookies.py::quote"]]
    q = "cookie demo parse dump"
    plain = _ids(graph, get_method("hybrid_prf", peripheral=1.0).rank(graph, q))
    demoted = _ids(graph, get_method("hybrid_prf", peripheral=0.1).rank(graph, q))
    assert plain[0] == "examples/cookie_demo.py::cookie_demo"
    assert demoted[0] != "examples/cookie_demo.py::cookie_demo"


def test_zero_weights_are_exactly_hybrid(graph):
    off = dict(w_prf_file=0.0, w_prf_sym=0.0, w_ctx=0.0, w_cover=0.0, w_cooc=0.0, w_topk=0.0, peripheral=1.0)
    for q in ("cookie max age", "route map bind", "`quote` escapes"):
        a = assemble_context(graph, q, get_method("hybrid_prf", **off), budget=300)
        b = assemble_context(graph, q, "hybrid", budget=300)
        assert a.ranking == b.ranking and a.context.render() == b.context.render()


def test_every_signal_changes_scores_and_never_ranks_tests(graph):
    base = get_method("hybrid_prf", w_ctx=0.0, w_prf_sym=0.0, peripheral=1.0).scores(graph, "cookie quote").total
    for params in ({"w_prf_file": 1.0}, {"w_prf_sym": 1.0}, {"w_ctx": 1.0}, {"w_cover": 1.0}, {"w_cooc": 1.0},
                   {"w_topk": 1.0}):
        full = dict(w_ctx=0.0, w_prf_sym=0.0, peripheral=1.0) | params
        method = get_method("hybrid_prf", **full)
        assert not np.allclose(method.scores(graph, "cookie quote").total, base), params
        assert not any(i.startswith("tests/") for i in _ids(graph, method.rank(graph, "cookie quote")))


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="w_ctx"):
        get_method("hybrid_prf", w_ctx=-1.0)
    with pytest.raises(ValueError, match="prf_files"):
        get_method("hybrid_prf", prf_files=0)
    with pytest.raises(ValueError, match="peripheral"):
        get_method("hybrid_prf", peripheral=float("nan"))


def test_config_defaults_match_the_class():
    conf = yaml.safe_load((REPO_ROOT / "conf" / "method" / "hybrid_prf.yaml").read_text())
    assert conf["name"] == "hybrid_prf"
    method = get_method("hybrid_prf")
    assert {k: getattr(method, k) for k in conf["params"]} == conf["params"]


def test_deterministic(graph):
    a = assemble_context(graph, "cookie max age header", "hybrid_prf", budget=400)
    b = assemble_context(graph, "cookie max age header", "hybrid_prf", budget=400)
    assert a.ranking == b.ranking and a.context.render() == b.context.render()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 800), st.sampled_from(["cookie max age", "", "`Rule.match`", "routing rules",
                                             'File "web/cookies.py", line 4, in parse_cookie']),
       st.sampled_from([0.0, 0.7, 1.0]))
def test_budget_is_never_exceeded(graph, budget, query, share):
    result = assemble_context(graph, query, get_method("hybrid_prf", whole_file_share=share), budget=budget)
    assert result.context.total_tokens <= budget
