"""String-literal matching: error messages and option names quoted by an issue, on a real small package."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.retrieval.signals_real.index import graph_index
from beacon.retrieval.signals_real.literals import fragments, literal_scores, matched_fragments, normalise

from .conftest import node

ISSUE = """DateTime fails on ints

```
>>> schema.load({"when": 3})
TypeError: Not a valid datetime string for 3
```
Also `Field(...)` says: Field <Field> may not be null: expected a value.
Running with --ignore-local-config does not help.
"""


def test_quoted_messages_and_options_score_the_raising_definitions(shop):
    found = matched_fragments(shop, ISSUE)
    assert found == ["--ignore-local-config", "may not be null: expected a value", "not a valid datetime string for"]
    s = literal_scores(shop, ISSUE)
    hit = {shop.symbols[i].id for i in s.symbol.nonzero()[0]}
    assert hit == {"src/shop/fields.py::DateTime._deserialize", "src/shop/fields.py::Field.deserialize",
                   "src/shop/cli.py::build_parser"}
    # a longer phrase says more than an option token (words / files holding it)
    assert s.symbol[node(shop, "src/shop/fields.py::Field.deserialize")] == 7.0
    assert s.symbol[node(shop, "src/shop/cli.py::build_parser")] == 1.0
    idx = graph_index(shop)
    assert s.file[idx.paths.index("src/shop/fields.py")] > s.file[idx.paths.index("src/shop/cli.py")] > 0
    # the docstring of run() holds the same words: docstrings are not literals
    assert s.symbol[node(shop, "src/shop/cli.py::run")] == 0.0


def test_nothing_quoted_nothing_scored_and_tokens_match_whole(shop):
    assert not literal_scores(shop, "Dates are wrong sometimes.").symbol.any()
    assert matched_fragments(shop, "use --ignore-local-configuration instead") == []


def test_fragments_cut_at_placeholders():
    assert fragments("Field {name!r} may not be null: expected a value") == ["may not be null: expected a value"]
    assert fragments("Unable to load file %(path)s: %s") == ["unable to load file"]
    assert fragments("ok") == [] and fragments("max_line_length") == ["max_line_length"]
    assert fragments("plainword") == []


_words = st.lists(st.text("abcdefghij", min_size=4, max_size=8), min_size=3, max_size=8)


@given(st.text(max_size=80))
@settings(max_examples=300, deadline=None)
def test_fragments_are_pieces_of_the_normalised_literal(literal):
    for frag in fragments(literal):
        assert frag and frag == normalise(frag)
        assert frag in normalise(literal) or "{" in literal or "%" in literal


@given(_words, st.sampled_from(["{x}", "%s", "%(k)r", "{0:>3}"]), _words)
@settings(max_examples=200, deadline=None)
def test_a_placeholder_splits_a_message_into_its_two_phrases(left, placeholder, right):
    a, b = " ".join(left), " ".join(right)
    assert fragments(f"{a} {placeholder} {b}") == [a, b]
