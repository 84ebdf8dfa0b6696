"""The test bridge (``tests_bridge``): tests matching the report vote for the code they exercise.

On a small real package built in a temp dir: ``shop/pricing.py`` (a discount rounding function and an unrelated
tax function), ``shop/cart.py`` (a cart whose total the tests call), and ``tests/test_pricing.py`` whose test
``test_discount_rounds_half_up`` calls ``round_discount`` through a test helper; ``tests/test_cart.py`` mirrors
``shop/cart.py``. The report never names ``round_discount``: only the test's name and body share its words.
"""
from __future__ import annotations

import numpy as np
import pytest

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval import get_method
from beacon.retrieval.recipes import method_params
from beacon.retrieval.signals_real.index import graph_index
from beacon.retrieval.signals_real import tests_bridge as tb  # (its names are not pytest items here)
from tests.repotools import write_tree

FILES = {
    "shop/__init__.py": "",
    "shop/pricing.py": '''\
        def round_discount(amount, rate):
            return int(amount * rate + 0.5)


        def tax(amount):
            return amount * 0.2
        ''',
    "shop/cart.py": '''\
        class Cart:
            def __init__(self):
                self.items = []

            def total(self):
                return sum(self.items)
        ''',
    "tests/__init__.py": "",
    "tests/test_pricing.py": '''\
        from shop.pricing import round_discount


        def check(amount, rate, want):
            assert round_discount(amount, rate) == want


        def test_discount_rounds_half_up():
            check(10, 0.25, 3)
            check(10, 0.35, 4)
        ''',
    "tests/test_cart.py": '''\
        from shop.cart import Cart


        def test_empty_cart_total_is_zero():
            assert Cart().total() == 0
        ''',
}
QUERY = "Discount rounds half down instead of half up\n\nA discount of 2.5 becomes 2, it should become 3."


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    return CodebaseGraph.from_repo(write_tree(tmp_path_factory.mktemp("shop"), FILES, dedent=True))


def _node(graph, sid: str) -> int:
    return graph.index[sid]


def test_mirrored_file_maps_test_paths_to_source_files():
    sources = {"cart.py": ["shop/cart.py", "other/cart.py"], "bar.py": ["foo/bar.py"]}
    assert tb.mirrored_file("tests/test_cart.py", sources) == "shop/cart.py"  # no folder shared: the shortest
    assert tb.mirrored_file("shop/tests/test_cart.py", sources) == "shop/cart.py"
    assert tb.mirrored_file("test/bar_test.py", sources) == "foo/bar.py"
    assert tb.mirrored_file("tests/conftest.py", sources) is None
    assert tb.mirrored_file("tests/test_nothing.py", sources) is None


def test_the_best_test_is_the_one_sharing_the_reports_words(shop):
    rows, weight = tb.best_tests(shop, QUERY, 5)
    bridge = tb.bridge_of(shop)
    assert shop.symbols[int(bridge.tests[rows[0]])].qualname == "test_discount_rounds_half_up"
    assert weight[0] == 1.0 and np.all(weight <= 1.0) and np.all(np.diff(weight) <= 0)


def test_the_test_votes_for_what_it_calls_through_its_helper_and_never_for_tests(shop):
    found = tb.tests_scores(shop, QUERY, 5)
    target = _node(shop, "shop/pricing.py::round_discount")
    assert found.symbol[target] == found.symbol.max() > 0
    assert found.symbol[_node(shop, "shop/pricing.py::tax")] == 0.0
    index = graph_index(shop)
    assert not found.symbol[index.is_test].any()  # tests never scored
    assert index.paths[int(np.argmax(found.file))] == "shop/pricing.py"
    test_paths = {p for p in index.paths if p.startswith("tests/")}
    assert all(found.file[i] == 0 for i, p in enumerate(index.paths) if p in test_paths)


def test_a_report_matching_no_test_gives_no_evidence(shop):
    assert tb.tests_scores(shop, "zzzqqq unrelated", 5).empty


def test_neutral_weight_is_the_identical_ranking_and_tests_do_not_leak(shop):
    params = method_params("hybrid_follow")
    base = get_method("hybrid_follow", **params)
    zero = get_method("hybrid_follow", **{**params, "w_tests": 0.0, "tests_k": 3, "tests_files": 0.25})
    b_nodes, b_scores = base.ranked_nodes(shop, QUERY)
    z_nodes, z_scores = zero.ranked_nodes(shop, QUERY)
    assert list(b_nodes) == list(z_nodes) and np.array_equal(b_scores, z_scores)
    for name in ("tests_only", "hybrid_tests"):
        nodes, _ = get_method(name, **method_params(name)).ranked_nodes(shop, QUERY)
        assert not any(shop.symbols[int(n)].is_test for n in nodes)
    alone, _ = get_method("tests_only", **method_params("tests_only")).ranked_nodes(shop, QUERY)
    assert shop.symbols[int(alone[0])].id == "shop/pricing.py::round_discount"


def test_the_file_share_scales_only_the_file_votes(shop):
    params = {**method_params("hybrid_follow"), "w_tests": 0.5}
    full = get_method("hybrid_follow", **{**params, "tests_files": 1.0}).scores(shop, QUERY)
    none = get_method("hybrid_follow", **{**params, "tests_files": 0.0}).scores(shop, QUERY)
    target, same_file = _node(shop, "shop/pricing.py::round_discount"), _node(shop, "shop/pricing.py::tax")
    assert full.total[same_file] > none.total[same_file]  # the file vote lifts its file-mate
    assert full.total[target] > none.total[target]


def test_the_reach_is_built_once_per_graph(shop):
    assert tb.bridge_of(shop) is tb.bridge_of(shop)


@pytest.mark.parametrize("bad", [{"w_tests": -0.1}, {"tests_k": 0}, {"tests_files": float("nan")}])
def test_bad_parameters_are_rejected(bad):
    with pytest.raises(ValueError):
        get_method("hybrid_follow", **{**method_params("hybrid_follow"), **bad})
