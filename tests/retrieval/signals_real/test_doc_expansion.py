"""Symbol documents expanded with the docs sections citing them and the tests reaching them (``sym_expand``)."""
from __future__ import annotations

import numpy as np
import pytest

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval import get_method
from beacon.retrieval.lexical import bm25_scores
from beacon.retrieval.recipes import method_params
from beacon.retrieval.signals_real import doc_expansion as de
from beacon.retrieval.signals_real import tests_bridge as tb
from beacon.retrieval.signals_real.docs_bridge import DocsUnavailable
from tests.repotools import write_tree

from .test_tests_bridge import FILES as SHOP

FILES = {**SHOP, "docs/pricing.rst": """\
    Pricing
    =======

    Coupons give a markdown: :func:`shop.pricing.round_discount` applies the coupon's percentage.
    """}
DOCS_QUERY = "The coupon markdown is wrong"  # the docs' words, none in the code
TESTS_QUERY = "zero for an empty one"  # the test's words, not in Cart.total


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    return CodebaseGraph.from_repo(write_tree(tmp_path_factory.mktemp("shop"), FILES, dedent=True))


def _method(**extra):
    return get_method("hybrid_follow", **method_params("hybrid_follow", extra))


def _id(graph, node) -> str:
    return graph.symbols[int(node)].id


def test_neutral_settings_give_the_identical_ranking(shop):
    for query in (DOCS_QUERY, TESTS_QUERY, "round discount total"):
        base = _method().scores(shop, query).total
        for source in ("docs", "tests", "docs+tests"):
            zero = _method(sym_expand=source, docctx_weight=0.0).scores(shop, query).total
            assert zero.tobytes() == base.tobytes()
    # with weight 0 the expanded S is exactly the plain symbol BM25 of the recipe's k1, b
    plain = bm25_scores(shop, "round discount total", 1.2, 0.4)
    assert np.allclose(de.expanded_scores(shop, "round discount total", "docs", 0.0, 1.2, 0.4), plain)


def test_a_definition_cited_by_a_section_gains_its_words(shop):
    assert not _method().ranked_nodes(shop, DOCS_QUERY)[0].size  # nothing in the code says "coupon"
    nodes, _ = _method(sym_expand="docs").ranked_nodes(shop, DOCS_QUERY)
    assert _id(shop, nodes[0]) == "shop/pricing.py::round_discount"
    sym = _method(sym_expand="docs").scores(shop, DOCS_QUERY).components["sym"]
    assert sym[shop.index["shop/pricing.py::tax"]] == 0 < sym[shop.index["shop/pricing.py::round_discount"]]
    extra, _ = de.docs_vocab(shop)
    assert "coupon" in extra and "round" not in extra  # the docs' own words join the vocabulary, once


def test_a_definition_reached_by_a_test_gains_its_words_and_tests_are_never_ranked(shop):
    nodes, _ = _method(sym_expand="tests").ranked_nodes(shop, TESTS_QUERY)
    assert _id(shop, nodes[0]).startswith("shop/cart.py::Cart")
    sym = _method(sym_expand="tests").scores(shop, TESTS_QUERY).components["sym"]
    assert sym[shop.index["shop/cart.py::Cart.total"]] > 0 == _method().scores(shop, TESTS_QUERY).components["sym"][
        shop.index["shop/cart.py::Cart.total"]]
    assert not any(shop.symbols[int(n)].is_test for n in nodes)


def test_text_shared_by_more_definitions_counts_less(shop):
    sums = np.asarray(de.tests_rows(shop, 1.0).sum(axis=1)).ravel()  # each test's text normalised to mass 1
    bridge = tb.bridge_of(shop)
    cart_test = [i for i, t in enumerate(bridge.tests.tolist()) if "test_empty_cart" in shop.symbols[t].id][0]
    reached = bridge.targets[cart_test].indices
    assert len(reached) >= 2 and shop.index["shop/cart.py::Cart.total"] in reached
    assert np.allclose(sums[reached], 1.0 / len(reached))  # shared 1/n among the n definitions it reaches
    # the test and its helper ``check`` (a test-file definition too) each reach round_discount alone: all of each text
    assert sums[shop.index["shop/pricing.py::round_discount"]] == pytest.approx(2.0)
    one = de.expanded_matrix(shop, "tests", 1.0)
    fresh = tb._build(shop).targets  # the test bridge's own reach is left as it was (its idf weights)
    assert abs(tb.bridge_of(shop).targets - fresh).sum() == 0 and not np.allclose(fresh.data, 1.0)
    assert de.expanded_matrix(shop, "tests", 1.0) is one  # built once per graph and configuration


def test_bad_settings_are_rejected_and_a_missing_snapshot_is_an_error(shop, tmp_path):
    for bad in ({"sym_expand": "readme"}, {"sym_expand": "docs+docs"}, {"sym_expand": "docs", "stemmed": True},
                {"docctx_weight": -1.0}):
        with pytest.raises(ValueError):
            _method(**bad)
    gone = CodebaseGraph.from_repo(write_tree(tmp_path / "gone", {"a.py": "def f():\n    pass\n"}))
    gone.root = None
    with pytest.raises(DocsUnavailable):
        de.docs_vocab(gone)
