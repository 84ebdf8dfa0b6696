"""``hybrid_all`` and the loose path-word match it adds, on a small real repository."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.retrieval import assemble_context, get_method
from beacon.retrieval.normalise import unit_scale as _unit
from beacon.retrieval.file_index import file_index
from beacon.retrieval.mentions import _path_words, loose_path_matches
from beacon.retrieval.masks import packable

BODY = "def handle(request):\n    return request.value\n"  # the same text everywhere: only paths differ
FILES = {
    "app/__init__.py": "",
    "app/debug/__init__.py": BODY,
    "app/debug/tbtools.py": BODY.replace("handle", "render"),
    "app/_reloader.py": BODY.replace("handle", "run"),
    "app/shell_completion.py": BODY.replace("handle", "complete"),
    "app/core.py": BODY.replace("handle", "dispatch"),
    "tests/test_debug.py": "def test_debug():\n    pass\n",
}


@pytest.fixture(scope="module")
def graph(graph_of):
    return graph_of(FILES, "app")

# The graph here is a plain tree (no git history): the history priors are switched off, as they must be
# (a method that needs history and is given none raises, tests/retrieval/test_history_prior.py).
NO_HISTORY = {"w_history": 0.0, "w_function": 0.0}


def _by_path(graph, values):
    return dict(zip(file_index(graph).paths, values.tolist()))


def test_path_words_name_a_package_by_its_folder():
    assert _path_words("src/app/debug/__init__.py") == ("debug", ["src", "app"])
    assert _path_words("app/_reloader.py") == ("reloader", ["app"])
    assert _path_words("setup.py") == ("setup", [])


def test_loose_matches_stems_prefixes_packages_and_parts(graph):
    m = _by_path(graph, loose_path_matches(graph, "The debugger page crashed"))
    assert m["app/debug/__init__.py"] == 1.0  # 'debug' starts 'debugger'; the package is its __init__
    assert m["app/debug/tbtools.py"] == 0.5  # a folder word counts half
    assert m["app/core.py"] == 0.0
    m = _by_path(graph, loose_path_matches(graph, "Fix the reloader and shell completions"))
    assert m["app/_reloader.py"] == 1.0  # leading underscore ignored
    assert m["app/shell_completion.py"] == 1.0  # two name parts match by stem: 0.5 + 0.5
    # Words that name every module say nothing: 'core', 'utils', 'test' ... are skipped.
    assert not loose_path_matches(graph, "core tests").any()
    assert not loose_path_matches(graph, "").any()


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=80))
def test_loose_matches_are_bounded_and_never_negative(graph, query):
    m = loose_path_matches(graph, query)
    assert m.shape == (len(file_index(graph).paths),)
    assert (m >= 0).all() and np.isfinite(m).all()


def test_hybrid_all_adds_the_weighted_loose_match_and_breaks_a_lexical_tie(graph):
    query = "the debugger shows the wrong value for request"
    plain = get_method("hybrid_all", w_loose_path=0.0, **NO_HISTORY).scores(graph, query)
    scored = get_method("hybrid_all", w_loose_path=2.0, **NO_HISTORY).scores(graph, query)
    index = file_index(graph)
    cand = packable(graph)
    loose = loose_path_matches(graph, query)
    loose[[index.paths.index("tests/test_debug.py")]] = 0.0
    expected = plain.total + 2.0 * _unit(loose[index.file_of], cand)
    expected[~cand] = 0.0
    np.testing.assert_allclose(scored.total, expected)
    best = get_method("hybrid_all", w_loose_path=2.0, **NO_HISTORY).rank(graph, query)[0][0]
    assert graph.symbols[best].path == "app/debug/__init__.py"
    # With the history priors and the loose term off, hybrid_all is exactly hybrid_prf.
    np.testing.assert_allclose(plain.total, get_method("hybrid_prf").scores(graph, query).total)


def test_hybrid_all_context_respects_the_budget_and_skips_tests(graph):
    for budget in (40, 150, 1000):
        result = assemble_context(graph, "debugger reloader completion", "hybrid_all", budget=budget, **NO_HISTORY)
        assert result.context.total_tokens <= budget
        assert not any(s.path.startswith("tests/") for s in result.context.snippets)


def test_hybrid_all_rejects_a_bad_weight():
    with pytest.raises(ValueError, match="w_loose_path"):
        get_method("hybrid_all", w_loose_path=-0.5)
