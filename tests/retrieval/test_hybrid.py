"""``hybrid`` and its lexical fields (file BM25, stemming) on a small real repository."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.retrieval import assemble_context, get_method
from beacon.retrieval.filelevel import file_bm25_scores
from beacon.retrieval.file_index import file_index
from beacon.retrieval.lexical import specific_match
from beacon.retrieval.stemmed import bm25_field, stem

REPO_ROOT = Path(__file__).resolve().parents[2]

FILES = {
    "web/__init__.py": "",
    "web/cookies.py": (
        '"""Cookie parsing and serialisation."""\n\n\n'
        "def parse_cookie(header):\n"
        "    return dict(part.split('=', 1) for part in header.split(';') if part)\n\n\n"
        "def dump_cookie(key, value, max_age=None):\n"
        "    out = f'{key}={value}'\n"
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
        "    def bind(self, server_name):\n        return (self, server_name)\n\n"
        "    def deprecated_charset(self):\n        warn_deprecation('charset')\n\n\n"
        "def warn_deprecation(name):\n    print(name)\n"
    ),
    "web/vendor/six.py": "def parse_cookie_compat(header):\n    return header\n",
    "tests/test_cookies.py": (
        "from web.cookies import parse_cookie\n\n\ndef test_parse_cookie():\n    assert parse_cookie('a=b')\n"
    ),
}


@pytest.fixture(scope="module")
def graph(graph_of):
    return graph_of(FILES, "web")


def _ids(graph, ranking):
    return [graph.symbols[n].id for n, _ in ranking]


def test_stemmer_conflates_prose_and_code_forms():
    assert stem("deprecation") == stem("deprecated") == stem("deprecate")
    assert stem("cookies") == stem("cookie") and stem("handlers") == stem("handling")
    assert stem("status") == "status" and stem("max_age") == "max_age"  # -us kept; identifiers whole


def test_file_bm25_scores_whole_files_and_ignores_tests(graph):
    index = file_index(graph)
    scores = dict(zip(index.paths, file_bm25_scores(graph, "cookie max age header")))
    assert max(scores, key=scores.get) == "web/cookies.py"
    assert scores["tests/test_cookies.py"] == 0.0


def test_stemmed_field_matches_prose(graph):
    index = graph.index
    sym = bm25_field(graph, "deprecation warnings", "symbol")
    assert sym[index["web/routing.py::warn_deprecation"]] > 0
    plain = get_method("hybrid", stemmed=False, w_name=0.0).rank(graph, "deprecations warned")
    stemmed = get_method("hybrid", stemmed=True, w_name=0.0).rank(graph, "deprecations warned")
    assert "web/routing.py::warn_deprecation" not in _ids(graph, plain)[:1]
    assert _ids(graph, stemmed)[0] in ("web/routing.py::warn_deprecation", "web/routing.py::Map.deprecated_charset")


def test_named_function_ranks_first(graph):
    for query, expected in (("`quote` does not escape commas", "web/cookies.py::quote"),
                            ('File "web/routing.py", line 9, in bind', "web/routing.py::Map.bind"),
                            ("Map.bind ignores the server name", "web/routing.py::Map.bind")):
        assert _ids(graph, get_method("hybrid").rank(graph, query))[0] == expected, query


def test_vendored_code_is_demoted_and_tests_never_ranked(graph):
    q = "parse cookie header"
    ids = _ids(graph, get_method("hybrid", vendored=0.3).rank(graph, q))
    assert ids[0] == "web/cookies.py::parse_cookie"
    assert ids.index("web/vendor/six.py::parse_cookie_compat") > ids.index("web/cookies.py::dump_cookie")
    assert not any(i.startswith("tests/") for i in ids)


def test_whole_file_first_when_it_fits(graph):
    method = get_method("hybrid", whole_file_share=1.0)
    result = method.retrieve(graph, "cookie max age", 2000)
    assert result.context.snippets[0].symbol_id == "web/cookies.py::<module>"
    small = get_method("hybrid", whole_file_share=0.01).retrieve(graph, "cookie max age", 2000)
    assert small.context.snippets[0].symbol_id != "web/cookies.py::<module>"


def test_rrf_and_graph_variants_run(graph):
    for params in ({"fusion": "rrf"}, {"w_graph": 0.5}, {"w_neighbor": 0.5}, {"w_name": 0.5}):
        ids = _ids(graph, get_method("hybrid", **params).rank(graph, "cookie max age"))
        assert ids[0].startswith("web/cookies.py::"), params


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="fusion"):
        get_method("hybrid", fusion="max")
    with pytest.raises(ValueError, match="w_file"):
        get_method("hybrid", w_file=-1.0)
    with pytest.raises(ValueError, match="include_tests"):
        get_method("hybrid", include_tests=True)


def test_config_defaults_match_the_class():
    conf = yaml.safe_load((REPO_ROOT / "conf" / "method" / "hybrid.yaml").read_text())
    method = get_method("hybrid")
    assert {k: getattr(method, k) for k in conf["params"]} == conf["params"]


def test_config_params_are_accepted():
    for name in ("hybrid", "hybrid_rrf", "hybrid_graph", "hybrid_stemmed", "bm25_file_rerank", "repomap",
                 "repomap_lexical"):
        conf = yaml.safe_load((REPO_ROOT / "conf" / "method" / f"{name}.yaml").read_text())
        assert conf["name"] == name
        get_method(name, **conf["params"])


def test_deterministic(graph):
    a = assemble_context(graph, "route map bind", "hybrid", budget=400)
    b = assemble_context(graph, "route map bind", "hybrid", budget=400)
    assert a.ranking == b.ranking and a.context.render() == b.context.render()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 800), st.sampled_from(["cookie max age", "", "`Rule.match`", "deprecation charset",
                                             'File "web/cookies.py", line 4, in parse_cookie']),
       st.sampled_from([0.0, 0.5, 1.0]))
def test_budget_is_never_exceeded(graph, budget, query, share):
    result = assemble_context(graph, query, get_method("hybrid", whole_file_share=share), budget=budget)
    assert result.context.total_tokens <= budget


def test_specific_match_keeps_the_rarer_half_of_the_query_terms(graph):
    """``value`` is in many definitions, ``cookie``/``max_age`` in few: only the latter make a match specific."""
    idx = graph.index
    got = specific_match(graph, "dump cookie max_age value")
    assert got[idx["web/cookies.py::dump_cookie"]]
    assert not got[idx["web/routing.py::Map.bind"]]
    assert not specific_match(graph, "").any()


def test_file_size_power_divides_by_the_files_definition_count(graph):
    # web/routing.py holds 8 definitions (classes too) and web/cookies.py 3: a definition's total is divided by
    # (1 + ln n)^p of its own file, so the ratio of two files' definitions moves by that factor.
    import math
    q = "cookie rule match deprecation"
    base = get_method("hybrid", w_neighbor=0).scores(graph, q).total
    got = get_method("hybrid", w_neighbor=0, file_size_power=0.5).scores(graph, q).total
    idx = {s.id: i for i, s in enumerate(graph.symbols)}
    for sid, n in (("web/cookies.py::parse_cookie", 3), ("web/routing.py::Rule.match", 8)):
        assert got[idx[sid]] == pytest.approx(base[idx[sid]] / (1 + math.log(n)) ** 0.5)
    assert (get_method("hybrid_follow", file_size_power=0.0).scores(graph, q).total
            == get_method("hybrid_follow").scores(graph, q).total).all()
    with pytest.raises(ValueError, match="file_size_power"):
        get_method("hybrid_follow", file_size_power=float("nan"))


def test_generic_multiplier_is_neutral_at_one_and_checked(graph):
    q = "dump cookie value with max_age"
    base = get_method("hybrid_follow").scores(graph, q).total
    assert (get_method("hybrid_follow", generic=1.0).scores(graph, q).total == base).all()
    with pytest.raises(ValueError):
        get_method("hybrid_follow", generic=-0.5)
