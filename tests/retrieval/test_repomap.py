"""``repomap`` and query mentions on a small real repository."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.retrieval import assemble_context, get_method
from beacon.retrieval.file_index import file_index
from beacon.retrieval.mentions import identifier_weight, match_path, mention_weights
from beacon.retrieval.repomap import mention_prior

FILES = {
    "shop/__init__.py": "",
    "shop/pricing.py": (
        "def compute_discount_rate(customer):\n"
        "    return 0.1 if customer.loyal else base_rate()\n\n\n"
        "def base_rate():\n    return 0.0\n\n\n"
        "def _round(value):\n    return round(value, 2)\n"
    ),
    "shop/cart.py": (
        "from .pricing import compute_discount_rate\n\n\n"
        "class Cart:\n"
        "    def __init__(self, customer):\n        self.customer = customer\n        self.items = []\n\n"
        "    def total(self):\n"
        "        rate = compute_discount_rate(self.customer)\n"
        "        return sum(i.price for i in self.items) * (1 - rate)\n\n"
        "    def add(self, item):\n        self.items.append(item)\n"
    ),
    "shop/checkout.py": (
        "from .cart import Cart\n\n\n"
        "def checkout(customer, items):\n"
        "    cart = Cart(customer)\n    for item in items:\n        cart.add(item)\n    return cart.total()\n"
    ),
    "shop/util.py": "def log(message):\n    print(message)\n",
    "tests/test_cart.py": (
        "from shop.cart import Cart\n\n\ndef test_total():\n    assert Cart(None).total() == 0\n"
    ),
}


@pytest.fixture(scope="module")
def graph(graph_of):
    return graph_of(FILES, "shop")


def _first(graph, query):
    ranking = get_method("repomap").rank(graph, query)
    return graph.symbols[ranking[0][0]].id, ranking


def test_named_function_ranks_first(graph):
    top, _ = _first(graph, "Wrong result from `compute_discount_rate` for loyal customers")
    assert top == "shop/pricing.py::compute_discount_rate"


def test_walk_reaches_callers_and_callees(graph):
    _, ranking = _first(graph, "compute_discount_rate is wrong")
    ids = [graph.symbols[n].id for n, _ in ranking]
    # Its callee and its caller come right after it; unconnected code does not.
    assert {"shop/pricing.py::base_rate", "shop/cart.py::Cart.total"} <= set(ids[:3])
    assert "shop/util.py::log" not in ids[:3]


def test_traceback_frame_and_path_personalize(graph):
    query = 'Traceback:\n  File "/site/shop/checkout.py", line 5, in checkout\n    cart.add(item)\n'
    top, _ = _first(graph, query)
    assert top == "shop/checkout.py::checkout"
    index = file_index(graph)
    assert [index.paths[i] for i in match_path(index, "/site/shop/checkout.py")] == ["shop/checkout.py"]
    assert [index.paths[i] for i in match_path(index, "checkout.py")] == ["shop/checkout.py"]


def test_tests_and_modules_are_never_ranked(graph):
    _, ranking = _first(graph, "Cart total test_total")
    kinds = {graph.symbols[n].kind for n, _ in ranking}
    assert "module" not in kinds and not any(graph.symbols[n].is_test for n, _ in ranking)


def test_no_mention_falls_back_to_bm25_and_says_so(graph):
    assert mention_prior(graph, "zzz qqq") is None
    result = assemble_context(graph, "prices are wrong for a discount", "repomap", budget=500)
    assert any("BM25 prior" in note for note in result.context.notes)
    plain = assemble_context(graph, "`compute_discount_rate`", "repomap", budget=500)
    assert not plain.context.notes


def test_identifier_weights_follow_aider():
    assert identifier_weight("compute_discount_rate", False, 1) == 10.0  # long snake name
    assert identifier_weight("compute_discount_rate", True, 1) == 100.0  # and marked as code
    assert identifier_weight("_round", True, 1) == pytest.approx(1.0)  # private
    assert identifier_weight("total", False, 9) == pytest.approx(0.1)  # defined in many files
    assert identifier_weight("__init__", False, 1) == 1.0  # dunder is not private


def test_mention_weights_see_dotted_qualnames(graph):
    m = mention_weights(graph, "Cart.total returns the undiscounted sum")
    idx = graph.index
    assert m.symbol[idx["shop/cart.py::Cart.total"]] > m.symbol[idx["shop/cart.py::Cart"]] > 0


def test_mention_prose_scales_only_prose_matches(graph):
    """``prose`` scales matches from plain words (a file stem, a name) and leaves code-marked names alone."""
    idx, fidx = graph.index, file_index(graph)
    q = "the cart total is wrong when `compute_discount_rate` returns None"
    full, half, off = (mention_weights(graph, q, p) for p in (1.0, 0.5, 0.0))
    cart_file = fidx.paths.index("shop/cart.py")
    assert full.file[cart_file] > 0 and half.file[cart_file] == full.file[cart_file] / 2 and off.file[cart_file] == 0
    total = idx["shop/cart.py::Cart.total"]
    assert full.symbol[total] > 0 and half.symbol[total] == full.symbol[total] / 2 and off.symbol[total] == 0
    named = idx["shop/pricing.py::compute_discount_rate"]
    assert off.symbol[named] == half.symbol[named] == full.symbol[named] > 0
    assert (mention_weights(graph, q).symbol == full.symbol).all()  # the default is the old weighting


def test_blend_mention_prose_neutral_and_checked(graph):
    q = "the cart total is wrong"
    base = get_method("hybrid_follow").scores(graph, q).total
    assert (get_method("hybrid_follow", mention_prose=1.0).scores(graph, q).total == base).all()
    assert not (get_method("hybrid_follow", mention_prose=0.0).scores(graph, q).total == base).all()
    with pytest.raises(ValueError):
        get_method("hybrid_follow", mention_prose=-1.0)


def test_deterministic(graph):
    q = "discount rate for a cart total"
    a = assemble_context(graph, q, "repomap", budget=300)
    b = assemble_context(graph, q, "repomap", budget=300)
    assert a.ranking == b.ranking and a.context.render() == b.context.render()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 600), st.sampled_from(["cart total", "`compute_discount_rate`", "", "log message",
                                             'File "shop/cart.py", line 3, in add']))
def test_budget_is_never_exceeded(graph, budget, query):
    result = assemble_context(graph, query, "repomap", budget=budget)
    assert result.context.total_tokens <= budget
