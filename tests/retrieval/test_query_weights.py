"""Query-term weights by where a word stands (``query_weights``): the title, code, pasted dumps.

Hypothesis checks the weighting on any text (never raises, weights finite and positive, the title is the first
non-empty line, neutral weights give exactly today's counts); a real graph of a tiny repository checks that the
title boost and the dump weight move the ranking the intended way, and that neutral recipes rank as before.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.retrieval import get_method
from beacon.retrieval.lexical import bm25_scores
from beacon.retrieval.query_weights import (CODE, DUMP, NEUTRAL, TITLE, QueryWeights, line_roles, term_weights,
                                            weighted_vector)
from beacon.retrieval.report_parts import pastes_code
from beacon.retrieval.recipes import method_params
from beacon.retrieval.text import TermIndex, term_index, terms

PIECES = st.sampled_from(["\n", "\n\n", "```", "```python\n", "`", ">>> ", "... ", "    ", "\t", "Traceback",
                          'File "a.py", line 3, in f\n', "ValueError: ", "1234 ", "0.5, ", "x = Cls()\n",
                          "fooBar", "retry_delay", "Title words", " ", "é", "\r\n", "#"])
TEXTS = st.one_of(st.text(max_size=300), st.lists(st.one_of(PIECES, st.text(max_size=12)), max_size=40).map("".join))
WEIGHTS = st.builds(QueryWeights, st.floats(0, 5), st.floats(0, 5), st.floats(0.01, 1), st.integers(0, 4),
                    st.floats(0, 5))


@settings(max_examples=300, deadline=None)
@given(TEXTS, WEIGHTS)
def test_weights_are_finite_positive_and_follow_the_terms_of_the_text(text, weights):
    got = term_weights(text, weights)
    assert [t for t, _ in got] == terms(text)  # every term occurrence, in the order text.terms gives them
    assert all(math.isfinite(w) and w > 0 for _, w in got)
    vocab = {t: i for i, t in enumerate(sorted(set(terms(text))))}
    cols, vals = weighted_vector(text, weights, vocab.get)
    assert np.all(np.isfinite(vals)) and np.all(vals > 0) and list(cols) == sorted(cols)
    if weights.qtf_cap:  # a term counts its qtf_cap heaviest occurrences at most
        heaviest = max((w for _, w in got), default=1.0)
        assert np.all(vals <= weights.qtf_cap * heaviest + 1e-9)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_neutral_weights_give_exactly_todays_counts(text):
    assert all(w == 1.0 for _, w in term_weights(text, NEUTRAL))
    vocab = {t: i for i, t in enumerate(sorted(set(terms(text))))}
    index = TermIndex(vocab, None, np.zeros(0))
    cols, vals = index.query_vector(text)  # today's counting path
    got_cols, got_vals = weighted_vector(text, NEUTRAL, vocab.get)  # the weighted path, with every weight 1
    assert got_cols.tobytes() == cols.tobytes() and got_vals.tobytes() == vals.tobytes()


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_the_title_is_the_first_non_empty_line(text):
    roles = line_roles(text)
    lines = text.split("\n")
    assert len(roles) == len(lines)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    assert [i for i, r in enumerate(roles) if r == TITLE] == ([] if first is None else [first])


def test_roles_of_a_bug_report():
    text = ("Retry delay ignored\n\nThe `compute_retry_delay` result is dropped.\n```\n>>> client.get(url)\n"
            "<Response [500]>\nTraceback (most recent call last):\n  File \"c.py\", line 3, in get\n    send()\n"
            "ValueError: bad\n```\n12:00:01.123 4500 2300 1100\n")
    roles = dict(zip(text.split("\n"), line_roles(text)))
    assert roles["Retry delay ignored"] == TITLE
    assert roles[">>> client.get(url)"] == CODE
    assert roles["<Response [500]>"] == DUMP  # a session's output
    assert roles['  File "c.py", line 3, in get'] == roles["    send()"] == roles["ValueError: bad"] == CODE
    assert roles["12:00:01.123 4500 2300 1100"] == DUMP  # number-heavy
    w: dict[str, float] = {}
    for term, weight in term_weights(text, QueryWeights(title_boost=1, code_boost=0.5, dump_weight=0.25)):
        w.setdefault(term, weight)  # each term's first occurrence
    assert w["retry"] == 2.0 and w["compute_retry_delay"] == 1.5 and w["response"] == 0.25


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.floats(0.1, 5))
def test_the_prose_title_boost_is_the_title_boost_without_pasted_code_and_nothing_with_it(text, boost):
    got = term_weights(text, QueryWeights(prose_title_boost=boost))
    if pastes_code(text):
        assert got == term_weights(text, NEUTRAL)
    else:
        assert got == term_weights(text, QueryWeights(title_boost=boost))


def test_what_counts_as_pasted_code():
    assert not pastes_code("Title\n\nThe `compute_retry_delay` result is dropped (see `Client.get()`).\n")
    assert pastes_code("Title\n```\nx = f(1)\n```\n")
    assert pastes_code("Title\n\n    x = f(1)\n")
    assert pastes_code("Title\n>>> f(1)\n")
    assert pastes_code('Title\nTraceback (most recent call last):\n  File "a.py", line 3, in f\nValueError: x\n')


@pytest.mark.parametrize("bad", [{"title_boost": -1}, {"code_boost": float("nan")}, {"dump_weight": 0},
                                 {"dump_weight": 1.5}, {"qtf_cap": -1}, {"qtf_cap": 1.5},
                                 {"prose_title_boost": -0.5}])
def test_bad_weights_are_refused_naming_the_parameter(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        QueryWeights(**bad)
    with pytest.raises(ValueError, match="hybrid_title"):
        get_method("hybrid_title", **method_params("hybrid_title", bad))


# A tiny real repository: the title names the cache, the pasted log repeats the words of the retry code.
FILES = {
    "pkg/__init__.py": "",
    "pkg/cache.py": ("def evict_stale_cache_entries(cache, now):\n"
                     "    \"\"\"Drop cache entries whose expiry passed.\"\"\"\n"
                     "    return {k: v for k, v in cache.items() if v.expiry > now}\n"),
    "pkg/retry.py": ("def retry_request(send, attempts):\n"
                     "    \"\"\"Retry a request; each retry waits longer.\"\"\"\n"
                     "    for attempt in range(attempts):\n"
                     "        if send(attempt):\n"
                     "            return attempt\n"),
}
ISSUE = ("Stale cache entries are never evicted\n\n"
         "Seen in production, the log says:\n```\n"
         + "".join(f"2024-01-0{i} 10:00:0{i} retry 1{i}00 ms\n" for i in range(1, 5))
         + "```\n")


@pytest.fixture(scope="module")
def graph(graph_of):
    return graph_of(FILES, "titled")


def _best_file(graph, name, overrides=None):
    ranked = get_method(name, **method_params(name, overrides or {})).rank(graph, ISSUE)
    return graph.symbols[ranked[0][0]].path


def test_the_title_boost_and_the_dump_weight_turn_the_ranking_to_the_title(graph):
    # unweighted, the log's four "retry"s outvote the title's words
    assert _best_file(graph, "bm25") == "pkg/retry.py"
    assert _best_file(graph, "bm25", {"title_boost": 2.0}) == "pkg/cache.py"
    assert _best_file(graph, "bm25", {"dump_weight": 0.1}) == "pkg/cache.py"  # the log lines are number-heavy
    assert _best_file(graph, "bm25", {"qtf_cap": 1}) == "pkg/cache.py"
    # the boost moves every title term's weight up and no other: the score gap moves toward the title's file
    plain = bm25_scores(graph, ISSUE)
    boosted = bm25_scores(graph, ISSUE, weights=QueryWeights(title_boost=1.0))
    cache_fn = next(i for i, s in enumerate(graph.symbols) if s.name == "evict_stale_cache_entries")
    retry_fn = next(i for i, s in enumerate(graph.symbols) if s.name == "retry_request")
    assert boosted[cache_fn] > plain[cache_fn] and boosted[retry_fn] == plain[retry_fn]


def test_neutral_weights_leave_the_recipes_unchanged(graph):
    neutral = {"title_boost": 0.0, "code_boost": 0.0, "dump_weight": 1.0, "qtf_cap": 0, "prose_title_boost": 0.0}
    for name, base in (("hybrid_title", "hybrid_code"), ("bm25_title", "bm25")):
        off = get_method(name, **method_params(name, neutral))
        ref = get_method(base, **method_params(base))
        for query in (ISSUE, "evict cache", ""):
            assert off.scores(graph, query).total.tobytes() == ref.scores(graph, query).total.tobytes()
    index = term_index(graph)
    for query in (ISSUE, "Retry `cache`\n1234 5678"):
        a, b = index.query_vector(query), index.query_vector(query, QueryWeights())
        assert a[0].tobytes() == b[0].tobytes() and a[1].tobytes() == b[1].tobytes()


def test_the_recipes_are_hybrid_code_and_bm25_with_the_weights():
    assert method_params("hybrid_title") == {**method_params("hybrid_code"), "title_boost": 1.0, "code_boost": 0.5,
                                             "dump_weight": 0.5}
    assert method_params("bm25_title") == {**method_params("bm25"), "title_boost": 1.0}
    assert method_params("hybrid_prose") == {**method_params("hybrid_follow"), "prose_title_boost": 1.0}


def test_the_prose_title_boost_turns_a_prose_report_to_its_title_and_leaves_one_with_code(graph):
    prose = ISSUE.replace("```", "").replace("\n2024", "\nOn 2024")  # the log as prose lines: no pasted code
    assert not pastes_code(prose) and pastes_code(ISSUE)
    params = {**method_params("bm25"), "prose_title_boost": 2.0}
    method, plain = get_method("bm25", **params), get_method("bm25", **method_params("bm25"))
    assert graph.symbols[plain.rank(graph, prose)[0][0]].path == "pkg/retry.py"
    assert graph.symbols[method.rank(graph, prose)[0][0]].path == "pkg/cache.py"
    assert method.scores(graph, ISSUE).total.tobytes() == plain.scores(graph, ISSUE).total.tobytes()
