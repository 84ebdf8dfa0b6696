"""The composer's issue stage (``stages.issue``: ``w_literal``, ``w_frame``, ``w_dotted``, ``w_error``, ``w_names``,
``w_receiver``) and its recipes.

On a small real git repository (``git_repo`` from ``tests/retrieval/conftest.py``): a report quoting an error
message and pasting a traceback lifts the raising definition above what the lexical blend ranks first; the
stage's arithmetic equals its documented formula over the signals' own scores; weights at 0 give the base
recipe's ranking exactly; the registered recipes say what they are.
"""
from __future__ import annotations

import numpy as np
import pytest

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval import assemble_context, get_method
from beacon.retrieval.blend import Blend
from beacon.retrieval.file_index import file_index
from beacon.retrieval.masks import packable
from beacon.retrieval.recipes import blend_recipes, method_params
from beacon.retrieval.signals_real.dotted import dotted_scores
from beacon.retrieval.signals_real.errors import error_scores
from beacon.retrieval.signals_real.frames import frame_scores
from beacon.retrieval.signals_real.literals import literal_scores
from beacon.retrieval.signals_real.names import name_scores
from beacon.retrieval.signals_real.receivers import receiver_scores

ISSUE_WEIGHTS = ("w_literal", "w_frame", "w_dotted", "w_error", "w_names", "w_receiver", "w_flow", "w_users",
                 "w_error_users", "w_callees", "w_overriders", "w_qualified", "w_tests", "w_docs")

FILES = {
    "store/__init__.py": '"""Store."""\nfrom .cart import Cart\n',
    "store/cart.py": '''"""Cart: items and totals of a cart (cart totals, cart items, cart discount)."""


class Cart:
    """A shopping cart: the cart total of cart items."""

    def __init__(self):
        self.items = []

    def total(self):
        """The cart total: sum of the cart items' prices."""
        return sum(price for _, price in self.items)

    def add(self, name, price):
        self.items.append((name, price))
''',
    "store/pricing.py": '''"""Prices."""


def apply_discount(cart, code):
    if code not in ("SPRING", "SUMMER"):
        raise KeyError("unknown discount code for this cart")
    return cart.total() * 0.9


def format_price(value):
    return f"{value:.2f}"
''',
    "tests/test_cart.py": "def test_total():\n    assert True\n",
}

ISSUE = """Cart total fails with a discount on the cart

When I apply a discount to my cart the cart total crashes:

```
Traceback (most recent call last):
  File "/home/me/shop.py", line 9, in <module>
    total = apply_discount(cart, "WINTER")
  File "/venv/lib/python3.11/site-packages/store/pricing.py", line 6, in apply_discount
    raise KeyError("unknown discount code for this cart")
KeyError: 'unknown discount code for this cart'
```
"""

# no traceback; the prose is about the cart total throughout, the message is raised in pricing.py
QUOTED = ("The cart total of my cart items is wrong after a discount: it says \"unknown discount code for this "
          "cart\" and the cart total is gone.")


def build_store(git_repo, where) -> CodebaseGraph:
    """The store package committed to a fresh git repository at ``where`` (also used by ``test_issue_scale``)."""
    root = git_repo.init(where)
    git_repo.commit(root, FILES, "a store with a cart and prices", when=1)
    return CodebaseGraph.from_repo(root)


@pytest.fixture(scope="module")
def store(git_repo, tmp_path_factory) -> CodebaseGraph:
    return build_store(git_repo, tmp_path_factory.mktemp("store"))


def _unit(x: np.ndarray) -> np.ndarray:
    return x / x.max() if x.max() > 0 else np.zeros_like(x)


def test_a_quoted_message_lifts_the_raising_definition_first(store):
    base = get_method("hybrid_prf", **method_params("hybrid_prf")).rank(store, QUOTED)
    real = get_method("hybrid_real", **method_params("hybrid_real")).rank(store, QUOTED)
    assert store.symbols[base[0][0]].id == "store/cart.py::Cart.total"
    assert store.symbols[real[0][0]].id == "store/pricing.py::apply_discount"
    # the rest keeps the lexical order (the issue stage only adds)
    assert [n for n, _ in real[1:]] == [n for n, _ in base if n != real[0][0]][: len(real) - 1]
    result = assemble_context(store, QUOTED, "hybrid_real", budget=300)
    assert result.context.symbol_ids[0] in ("store/pricing.py::apply_discount", "store/pricing.py::<module>")


def test_the_signals_computed_are_the_ones_weighted(store):
    assert frame_scores(store, ISSUE).symbol.any() and literal_scores(store, ISSUE).symbol.any()
    parts = get_method("hybrid_real", **method_params("hybrid_real")).scores(store, ISSUE).components
    assert {"literal", "frame", "dotted"} <= parts.keys()
    parts = get_method("hybrid_real_no_dotted", **method_params("hybrid_real_no_dotted")).scores(store, ISSUE).components
    assert {"literal", "frame"} <= parts.keys() and "dotted" not in parts  # a weight of 0 is not computed
    assert "literal" not in get_method("hybrid_prf", **method_params("hybrid_prf")).scores(store, ISSUE).components


def test_the_stage_adds_weighted_unit_evidence_and_file_votes_to_the_scaled_total(store):
    query = (ISSUE + "\nThen store.Cart.total fails: TypeError: format_price() missing 1 required positional "
                     "argument: 'value'\n```\ncart = Cart()\ncart.add('x', 1)\n```\n")
    weights = {"w_literal": 0.25, "w_frame": 0.5, "w_dotted": 0.1, "w_error": 0.3, "w_names": 0.2, "w_receiver": 0.15}
    base = get_method("hybrid_prf", **method_params("hybrid_prf")).scores(store, query).total
    got = get_method("hybrid_prf", **method_params("hybrid_prf", weights)).scores(store, query).total
    cand, file_of = packable(store), file_index(store).file_of
    expected = np.where(cand, base / base[cand].max(), 0.0)
    signals = (("w_literal", literal_scores), ("w_frame", frame_scores), ("w_dotted", dotted_scores),
               ("w_error", error_scores), ("w_names", name_scores), ("w_receiver", receiver_scores))
    for weight, signal in signals:
        found = signal(store, query)
        assert found.symbol.any(), weight  # every signal has evidence in the query: the formula is checked for each
        expected = expected + weights[weight] * np.where(cand, _unit(found.symbol) + _unit(found.file)[file_of], 0.0)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert got[~cand].max() == 0.0  # tests and modules stay out


@pytest.mark.parametrize("name", ["hybrid_real", "hybrid_real_no_dotted", "hybrid_real_no_literal", "hybrid_issue",
                                  "hybrid_code", "hybrid_flow", "hybrid_uses", "hybrid_follow",
                                  "hybrid_flowgaps"])
def test_weights_at_zero_give_the_base_recipes_ranking_exactly(store, name):
    off = get_method(name, **method_params(name, {w: 0.0 for w in ISSUE_WEIGHTS}))
    base = get_method("hybrid_prf", **method_params("hybrid_prf"))
    for query in (ISSUE, "cart total", "format a price"):
        assert off.rank(store, query) == base.rank(store, query)
        assert off.scores(store, query).total.tobytes() == base.scores(store, query).total.tobytes()


def test_no_existing_recipe_runs_the_issue_stage():
    new = {"hybrid_real", "hybrid_real_no_dotted", "hybrid_real_no_literal", "hybrid_real_no_frame", "literal_only",
           "frame_only", "dotted_only", "hybrid_issue", "error_only", "names_only", "receiver_only", "hybrid_code",
           "hybrid_title", "flow_only", "hybrid_flow", "usesites_only", "hybrid_uses", "hybrid_fn",
           "hybrid_follow", "hybrid_prose", "hybrid_prose_name",
           "hybrid_flowgaps", "qualified_only", "tests_only", "hybrid_tests", "docs_only", "hybrid_docs",
           "hybrid_docctx", "hybrid_compound"}
    for name in set(blend_recipes()) - new:
        assert not any(method_params(name).get(w) for w in ISSUE_WEIGHTS), name


def test_the_recipes_agree_with_the_registry():
    prf = method_params("hybrid_prf")
    assert method_params("hybrid_real") == {**prf, "w_literal": 0.25, "w_frame": 0.25, "w_dotted": 0.1}
    assert method_params("hybrid_real_no_dotted") == {**method_params("hybrid_real"), "w_dotted": 0.0}
    assert method_params("hybrid_real_no_literal") == {**method_params("hybrid_real"), "w_literal": 0.0}
    assert method_params("hybrid_real_no_frame") == {**method_params("hybrid_real"), "w_frame": 0.0}
    assert method_params("hybrid_issue") == {**method_params("hybrid_real"), "w_error": 0.25}
    assert method_params("hybrid_code") == {**method_params("hybrid_issue"), "w_receiver": 0.1}
    assert method_params("hybrid_flow") == {**method_params("hybrid_code"), "w_flow": 0.5}
    assert method_params("hybrid_uses") == {**method_params("hybrid_code"), "w_callees": 0.25}
    assert method_params("hybrid_follow") == {**method_params("hybrid_code"), "w_callees": 0.25, "w_flow": 0.25}
    assert method_params("hybrid_flowgaps") == {**method_params("hybrid_follow"), "flow_gaps": "all"}
    assert method_params("hybrid_tests") == {**method_params("hybrid_follow"), "w_tests": 0.05, "tests_k": 5,
                                             "tests_files": 0.25}
    assert method_params("hybrid_docctx") == {**method_params("hybrid_follow"), "sym_expand": "docs+tests",
                                              "docctx_weight": 0.5}
    assert method_params("hybrid_compound") == {**method_params("hybrid_follow"), "compound_weight": 1.0}
    assert method_params("usesites_only") == {w: 1.0 for w in ("w_users", "w_error_users", "w_callees", "w_overriders")}
    for signal in ("literal", "frame", "dotted", "error", "names", "receiver", "flow", "qualified", "tests"):
        method = get_method(f"{signal}_only", **method_params(f"{signal}_only"))
        assert isinstance(method, Blend) and method_params(f"{signal}_only") == {f"w_{signal}": 1.0}
        assert [w for w in ISSUE_WEIGHTS if getattr(method, w)] == [f"w_{signal}"]
        assert method.w_sym == method.w_file == method.w_prf_sym == 0.0


def test_a_signal_alone_ranks_only_what_its_evidence_reaches(store):
    ranked = [store.symbols[n].id for n, _ in get_method("literal_only", **method_params("literal_only"))
              .rank(store, ISSUE)]
    assert ranked[0] == "store/pricing.py::apply_discount"
    assert {r.split("::")[0] for r in ranked} == {"store/pricing.py"}  # the file's votes lift its other definition
    assert get_method("frame_only", **method_params("frame_only")).rank(store, "cart total is wrong") == []


@pytest.mark.parametrize("weight", ISSUE_WEIGHTS)
def test_a_negative_weight_is_an_error_naming_it(weight):
    with pytest.raises(ValueError, match=f"{weight} must be finite and >= 0"):
        Blend(name="bad", **{weight: -0.1})
