"""String-literal matching: error messages and option names quoted by an issue, on a real small package."""
from __future__ import annotations

import numpy as np
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


_SPAN = st.tuples(st.integers(1, 40), st.integers(0, 15), st.integers(0, 10_000))


@settings(max_examples=200, deadline=None)
@given(st.lists(_SPAN, max_size=12), st.one_of(st.none(), st.integers(0, 10_000)))
def test_owners_by_line_equal_at_line_for_every_line(spans, module):
    from beacon.retrieval.signals_real.index import GraphIndex
    from beacon.retrieval.signals_real.literals import _owners_by_line

    index = GraphIndex(("f.py",), np.zeros(0, np.int64), {} if module is None else {"f.py": module},
                       {"f.py": [(start, start + width, node) for start, width, node in spans]}, {}, {},
                       np.zeros(0, bool), {})
    owners = _owners_by_line(index, "f.py", 60)
    for line in range(1, 61):
        expected = index.at_line("f.py", line)
        assert owners[line] == (-1 if expected is None else expected), line


def _reparsed(graph):
    """The literal index as it was built before the graph carried literals: every file parsed again."""
    import ast
    from collections import defaultdict

    from beacon.retrieval.signals_real.literals import LiteralIndex, first_word

    index = graph_index(graph)
    holders = defaultdict(set)
    for path in index.paths:
        module = index.module_node.get(path)
        if module is None or graph.symbols[module].is_test:
            continue
        tree = ast.parse(graph.files[path].text)
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
                and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for n in ast.walk(tree):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
                for frag in fragments(n.value):
                    owner = index.at_line(path, n.lineno)
                    if owner is not None:
                        holders[frag].add(owner)
    phrases, tokens, files = defaultdict(dict), {}, {}
    for frag, nodes in holders.items():
        files[frag] = len({int(index.file_of[n]) for n in nodes})
        (phrases[first_word(frag)] if " " in frag else tokens)[frag] = sorted(nodes)
    return LiteralIndex(dict(phrases), tokens, files)


def test_the_index_equals_a_reparse_of_every_file_on_a_real_tree(tmp_path_factory, clone_requests):
    from beacon.graph import CodebaseGraph
    from beacon.retrieval.signals_real.literals import literal_index

    graph = CodebaseGraph.from_repo(clone_requests(tmp_path_factory))
    built = literal_index(graph)
    assert len(built.files) > 50 and built == _reparsed(graph)
