"""Compound identifiers from adjacent prose words ("build parser" -> ``build_parser``), on the real shop graph."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.retrieval import get_method
from beacon.retrieval.recipes import method_params
from beacon.retrieval.signals_real.compounds import candidates, compound_scores, compounds, word_runs
from beacon.retrieval.signals_real.index import graph_index
from beacon.retrieval.text import term_index

from .conftest import node


def test_words_join_across_blanks_and_one_hyphen_only():
    assert word_runs("The Content-Length header, max  redirects.\nset cookie") == [
        ["the", "content", "length", "header"], ["max", "redirects"], ["set", "cookie"]]
    assert word_runs("a.b, f(x) --y z") == [["a"], ["b"], ["f"], ["x"], ["y", "z"]]


def test_candidates_are_pairs_and_triples_run_together_only_from_long_non_stopwords():
    found = candidates("max redirects of the session")
    assert found[:2] == ["max_redirects", "maxredirects"]
    assert "redirects_of" in found and "redirectsof" not in found  # "of" is a stopword: no run-together form
    assert "max_redirects_of" in found
    assert "away" not in candidates("a way") and "a_way" not in candidates("a way")  # one-letter words join nothing
    assert "maxredirects" not in candidates("max redirects", concat=False)


def test_adjacent_prose_words_find_the_identifier_the_vocabulary_holds(shop):
    assert compounds(shop, "The build parser ignores the flag") == ["build_parser"]
    assert compounds(shop, "Build-Parser breaks") == ["build_parser"]
    assert compounds(shop, "an argument parser") == ["argumentparser"]  # ArgumentParser, stored lower-cased whole
    # punctuation or a line break between the words: not one compound
    assert compounds(shop, "build, parser") == compounds(shop, "build\nparser") == []


def test_a_compound_the_query_writes_itself_is_left_to_the_query_terms(shop):
    assert compounds(shop, "``build_parser`` is wrong: the build parser ignores it") == []
    assert compounds(shop, "the argumentparser, an argument parser") == []


def test_compounds_score_the_definitions_and_files_holding_them(shop):
    s = compound_scores(shop, "the build parser drops --ignore-local-config")
    best = node(shop, "src/shop/cli.py::build_parser")
    assert s.symbol.argmax() == best and s.symbol[best] > 0
    assert s.symbol[node(shop, "src/shop/fields.py::Field.deserialize")] == 0.0
    paths = graph_index(shop).paths
    assert s.file.argmax() == paths.index("src/shop/cli.py")
    assert s.file[paths.index("tests/test_fields.py")] == 0.0
    assert not compound_scores(shop, "nothing joins here").symbol.any()


def _scores(graph, query, extra):
    return get_method("hybrid_follow", **method_params("hybrid_follow", extra)).scores(graph, query)


def test_compound_weight_adds_the_compounds_to_the_symbol_and_file_bm25_as_query_terms(shop):
    query = "The build parser breaks on date time values"
    base, off, on = (_scores(shop, query, extra) for extra in ({}, {"compound_weight": 0.0},
                                                               {"compound_weight": 2.0}))
    assert off.total.tobytes() == base.total.tobytes()  # 0: nothing computed, the recipe's float sums unchanged
    found = compound_scores(shop, query, 1.2, 0.4)  # hybrid's symbol BM25 (k1 1.2, b 0.4)
    assert np.allclose(on.components["sym"], base.components["sym"] + 2.0 * found.symbol)
    file_of = graph_index(shop).file_of
    assert np.allclose(on.components["file"], base.components["file"] + 2.0 * compound_scores(shop, query).file[file_of])
    assert on.total.tobytes() != base.total.tobytes()
    # a query without compounds: the same scores
    plain = "nothing joins here"
    assert np.allclose(_scores(shop, plain, {"compound_weight": 2.0}).total, _scores(shop, plain, {}).total)


def test_compound_weight_must_be_non_negative():
    with pytest.raises(ValueError, match="compound_weight"):
        get_method("hybrid_follow", **method_params("hybrid_follow", {"compound_weight": -1.0}))


_text = st.lists(st.sampled_from(["build", "parser", "Build", "Parser", "argument", "date", "time", "a", "the",
                                  " ", " ", "-", "_", ",", "\n", "`", "."]), max_size=30).map("".join)


@given(_text)
@settings(max_examples=200, deadline=None)
def test_every_compound_is_in_the_vocabulary_and_spelled_by_adjacent_words(shop, text):
    vocab = term_index(shop).vocab
    squeezed = re.sub(r"[ \t_-]", "", text.lower())
    for c in compounds(shop, text):
        assert c in vocab and c.replace("_", "") in squeezed
    s = compound_scores(shop, text)
    assert (s.symbol >= 0).all() and (s.file >= 0).all()
    assert s.symbol.any() == bool(compounds(shop, text))
