"""``Class.member`` names resolved through the class (and its bases) to the member's definition and file."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.retrieval import get_method
from beacon.retrieval.recipes import method_params
from beacon.retrieval.signals_real.index import graph_index
from beacon.retrieval.signals_real.qualified import qualified_members, qualified_scores

from .conftest import assert_weight_zero_is_off, node


def test_a_class_member_name_resolves_to_the_member_through_bases(shop):
    found = qualified_members(shop, "Fixed ``DateTime.deserialize`` and ``Field._deserialize`` on null.")
    # DateTime has no deserialize of its own: its base Field's
    assert found == {"DateTime.deserialize": [node(shop, "src/shop/fields.py::Field.deserialize")],
                     "Field._deserialize": [node(shop, "src/shop/fields.py::Field._deserialize")]}


def test_names_the_dotted_signal_resolves_and_unknown_members_are_left_out(shop):
    # shop.fields.DateTime starts at a module (the dotted signal's); DateTime.nothing names no member;
    # build_parser is a function, not a class; e.g is prose
    query = "shop.fields.DateTime breaks, DateTime.nothing too, build_parser.x, see e.g. the docs"
    assert qualified_members(shop, query) == {}
    assert not qualified_scores(shop, query).symbol.any()


def test_the_member_votes_for_the_defining_file_not_for_its_users(shop):
    s = qualified_scores(shop, "`DateTime._deserialize` rejects ints")
    idx = graph_index(shop)
    assert s.symbol[node(shop, "src/shop/fields.py::DateTime._deserialize")] == 1.0
    assert s.symbol.sum() == 1.0
    assert s.file[idx.paths.index("src/shop/fields.py")] == 1.0
    assert s.file[idx.paths.index("src/shop/cli.py")] == 0.0


def test_the_signal_alone_ranks_the_defining_file(shop):
    ranked = get_method("qualified_only", **method_params("qualified_only")).rank(shop, "Field.deserialize fails")
    assert shop.symbols[ranked[0][0]].id == "src/shop/fields.py::Field.deserialize"
    assert {shop.symbols[n].path for n, _ in ranked} == {"src/shop/fields.py"}


def test_weight_zero_is_not_computed_and_leaves_the_recipe_unchanged(shop):
    assert_weight_zero_is_off(shop, "qualified", "Fixed ``DateTime.deserialize`` on null values")


_text = st.lists(st.sampled_from(list("abDFT_ .`(),\n") + ["Field", "DateTime", ".deserialize", ".x"]),
                 max_size=30).map("".join)


@given(_text)
@settings(max_examples=200, deadline=None)
def test_never_raises_and_every_name_found_is_in_the_text(shop, text):
    found = qualified_members(shop, text)
    for name, nodes in found.items():
        assert name in text and nodes
    assert qualified_scores(shop, text).symbol.sum() == len(found)
