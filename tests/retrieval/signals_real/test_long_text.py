"""Long and pathological report text: the patterns and loops that read a query find what they found before, in
linear time (``experiments/benchmarks/query_stress.py`` measures the time; these tests pin the results).

Each rewritten pattern is checked against the pattern it replaced, kept here as the reference, on random text
built from the characters that pattern cares about; the loops (dotted names, loose path prefixes) against their
old results on the ``shop`` package.
"""
from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.graph.literal_fragments import OPTION, OPTION_IN_TEXT
from beacon.retrieval.mentions import loose_path_matches, path_words
from beacon.retrieval.query_features import _CALL, query_features
from beacon.retrieval.signals_real import dotted, errors, flow_text
from beacon.retrieval.signals_real.dotted import resolve
from beacon.retrieval.signals_real.index import graph_index
from beacon.retrieval.signals_real.literals import matched_fragments

from .conftest import node

# the patterns as they were: unanchored (``_CALL``, ``_CALLED``, ``OPTION`` in a text) or ``^\s*`` (statements)
OLD_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\(")
OLD_CALLED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\(\)?")
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED = rf"{_IDENT}(?:\.{_IDENT})*"
OLD_FROM = re.compile(rf"(?m)^\s*(?:>>>\s*)?from\s+({_DOTTED})\s+import\s+\(?([^)\n]+)")
OLD_IMPORT = re.compile(rf"(?m)^\s*(?:>>>\s*)?import\s+({_DOTTED}(?:\s+as\s+{_IDENT})?(?:\s*,\s*{_DOTTED}(?:\s+as\s+{_IDENT})?)*)")
OLD_STAR = re.compile(r"(?m)^\s*(?:>>>\s*)?from\s+([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s+import\s+\*")


def _text(pieces: list[str], max_size: int = 40):
    return st.lists(st.sampled_from(pieces), max_size=max_size).map("".join)


CODE_TEXT = _text(["a", "Z", "_", "9", "0", "(", ")", ".", " ", "\n", "x1", "é"])
OPTION_TEXT = _text(["a", "b", "0", "9", "_", "-", "--", "___", " ", ".", "x_y", "-z", "A", "é"])
STATEMENT_TEXT = _text(["from", "import", " ", "  ", "\t", "\n", "\r\n", "\u2028", "\x0b", "a", "b.c", ">>>", "*",
                        "(", ")", ",", " as ", "x", "#"])


@given(CODE_TEXT)
@settings(max_examples=400, deadline=None)
def test_called_names_are_found_as_before(text):
    assert _CALL.findall(text) == OLD_CALL.findall(text)
    assert errors._CALLED.findall(text) == OLD_CALLED.findall(text)


@given(OPTION_TEXT)
@settings(max_examples=400, deadline=None)
def test_option_tokens_in_a_text_are_found_as_before(text):
    assert OPTION_IN_TEXT.findall(text) == OPTION.findall(text)


@given(STATEMENT_TEXT)
@settings(max_examples=400, deadline=None)
def test_import_statements_are_found_as_before(text):
    assert dotted._FROM.findall(text) == OLD_FROM.findall(text)
    assert dotted._IMPORT.findall(text) == OLD_IMPORT.findall(text)
    assert flow_text._STAR.findall(text) == OLD_STAR.findall(text)


def test_the_anchored_patterns_on_examples():
    assert _CALL.findall("x = 1foo(2) + a.b(c) + zz") == ["foo", "b"]
    assert OPTION_IN_TEXT.findall("use ---ignore-local-config or _-a_b, not x_") == ["--ignore-local-config", "-a_b"]
    assert dotted.imports("\n\n   \n  from shop import fields\n") == {"fields": "shop.fields"}


def test_a_long_dotted_chain_resolves_as_before(shop):
    index = graph_index(shop)
    assert index.module_depth == 2  # shop.fields, shop.cli
    chains = ["shop.fields.DateTime" + ".x" * 500, "shop" + ".shop" * 500, "a." * 500 + "b", "shop.DateTime" + ".y" * 500,
              "shop.fields.DateTime.deserialize", "shop.fields", "shop", "shop.cli.run"]
    new = [resolve(shop, name) for name in chains]
    index.__dict__["module_depth"] = 10**9  # every prefix tried, longest first: resolve as it was
    try:
        old = [resolve(shop, name) for name in chains]
    finally:
        del index.__dict__["module_depth"]
    assert new == old
    assert new[0] == [node(shop, "src/shop/fields.py::DateTime")] and new[2] == []


def test_a_long_word_matches_the_path_words_its_prefixes_name(shop):
    pw = path_words(shop)
    assert pw.longest_prefix == max(map(len, pw.by_prefix), default=0) > 5
    longest = max(pw.by_prefix, key=len)  # the cut's edge: a prefix exactly as long as the longest path word
    queries = ["the fields are broken", "the " + "fields" + "x" * 3000 + " are broken", f"see {longest}" + "y" * 3000,
               f"see {longest}", f"see {longest[:-1]}", "cli" + "z" * 3000]
    new = [loose_path_matches(shop, q) for q in queries]
    pw.__dict__["longest_prefix"] = 10**9  # every prefix of every word: the loop as it was
    try:
        old = [loose_path_matches(shop, q) for q in queries]
    finally:
        del pw.__dict__["longest_prefix"]
    assert all(np.array_equal(a, b) for a, b in zip(new, old))
    assert new[0].any() and np.array_equal(new[0], new[1]) and new[2].any()


def test_query_features_read_a_long_paste():
    dump = "0123456789abcdef" * 20000  # a 320,000-character hex dump on one line
    text = f"Crash in shop.fields.DateTime: run(--ignore-local-config) fails\n{dump}\n" + "\n" * 50000
    features = query_features(text)
    assert "run" in features.calls and "shop.fields.DateTime" in features.dotted


def test_literal_fragments_of_a_long_paste(shop):
    # a long run with no option token, and a letter before a long separator tail (the two slow cases)
    for dump in ["x" * 100000 + "_", "a" + "_" * 100000, "b" + "-" * 100000]:
        found = matched_fragments(shop, f"pass --ignore-local-config please {dump}")
        assert "--ignore-local-config" in found
        assert OPTION_IN_TEXT.findall(dump[:2000]) == OPTION.findall(dump[:2000])
