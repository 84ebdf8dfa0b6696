"""``FileFragments``: each file's literal fragments, computed with its parse, and the literal index built from them."""
from __future__ import annotations

import pickle
from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings, strategies as st

from beacon.graph import CodebaseGraph
from beacon.graph.build import GraphBuilder
from beacon.graph.literal_fragments import OPTION, OPTION_WHOLE, FileFragments, file_fragments, fragments
from beacon.graph.parse import parse_source
from beacon.retrieval.indexes import INDEXES_KEY
from beacon.retrieval.signals_real.literals import literal_index
from experiments.benchmarks.literal_reference import literal_index as reference_index


def _expected(literals: list[tuple[int, str]]) -> tuple[list[str], list[tuple[int, str]]]:
    """Distinct fragments in order of first occurrence, and the distinct (line, fragment) pairs in order."""
    names, pairs = [], []
    for line, value in literals:
        for frag in fragments(value):
            if frag not in names:
                names.append(frag)
            if (line, frag) not in pairs:
                pairs.append((line, frag))
    return names, pairs


# constants with phrases, option tokens, placeholders and repeats, and any text at all
_PIECE = st.sampled_from(["Invalid value for", "--ignore-local-config", "max_line_length", "{name}", "%s",
                          "%(x)r", " ", "\n", "cannot be null", "x", "é", "_", "-", "{", "%"])
_VALUE = st.one_of(st.lists(_PIECE, max_size=8).map("".join), st.text(max_size=40))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), _VALUE), max_size=12))
def test_file_fragments_are_the_fragments_of_each_constant(literals):
    found = file_fragments(literals)
    names, pairs = _expected(literals)
    assert list(found.names) == names
    assert found.pairs() == pairs
    assert found == pickle.loads(pickle.dumps(found))  # the parse cache's format


_TOKENISH = st.lists(st.sampled_from(["a", "b", "0", "_", "-", "--", "___", "x_y", "A", "é", " "]), max_size=30).map("".join)


@settings(max_examples=500, deadline=None)
@given(_TOKENISH)
def test_option_tokens_of_a_constant_are_recognised_as_before(piece):
    # OPTION_WHOLE is OPTION spelled for linear time; whole pieces match alike
    assert bool(OPTION_WHOLE.fullmatch(piece)) == bool(OPTION.fullmatch(piece))


def test_a_constant_with_a_long_separator_tail_is_cut_like_a_short_one():
    assert fragments("a" + "-" * 50000) == [] and fragments("max_line_length") == ["max_line_length"]
    assert fragments("--no-" + "x" * 50000 + "-y") == ["--no-" + "x" * 50000 + "-y"]


def test_the_parse_carries_them(make_repo):
    source = 'A = "--dry-run"\n\ndef f(x):\n    raise ValueError(f"Invalid value for {x}: expected an integer")\n'
    parse = parse_source(source.encode())
    assert parse.fragments == file_fragments(parse.literals)
    assert parse.fragments.pairs() == [(1, "--dry-run"), (4, "invalid value for"), (4, "expected an integer")]
    assert parse_source(source.encode(), literals=False).fragments is None


def _same_index(a, b) -> bool:
    """Equal, and in the same dict order (the bytes the index store saves)."""
    return a == b and pickle.dumps(a) == pickle.dumps(b)


def test_the_index_from_parse_time_fragments_equals_the_old_build_on_a_real_tree(tmp_path_factory, clone_requests):
    tree: Path = clone_requests(tmp_path_factory)
    graph = CodebaseGraph.from_repo(tree)
    assert all(f.fragments == file_fragments(f.literals) for f in graph.files.values())
    built = literal_index(graph)
    assert len(built.files) > 50 and _same_index(built, reference_index(graph))
    # a saved graph loads them; a graph without them (not built by the parser) cuts its constants itself
    loaded = CodebaseGraph.load(graph.save(tmp_path_factory.mktemp("saved")))
    assert [f.fragments for f in loaded.files.values()] == [f.fragments for f in graph.files.values()]
    assert _same_index(literal_index(loaded), built)
    graph.files = {path: replace(f, fragments=None) for path, f in graph.files.items()}
    graph.cache.pop(INDEXES_KEY)
    assert _same_index(literal_index(graph), built)


def test_a_one_line_edit_recomputes_one_files_fragments(make_repo, tmp_path):
    root = make_repo({
        "pkg/__init__.py": "",
        "pkg/a.py": 'def check(x):\n    raise ValueError("value must be positive")\n',
        "pkg/b.py": 'OPTION = "--ignore-local-config"\n',
    })
    builder = GraphBuilder(root, cache_dir=tmp_path / "cache", workers=1)
    before = builder.build()
    assert before.files["pkg/a.py"].fragments.names == ("value must be positive",)
    (root / "pkg/a.py").write_text('def check(x):\n    raise ValueError("value must not be negative")\n')
    after = builder.build()
    assert builder.last_reparsed == ["pkg/a.py"]
    assert after.files["pkg/a.py"].fragments == FileFragments(("value must not be negative",), (2,), (0,))
    assert after.files["pkg/b.py"].fragments is before.files["pkg/b.py"].fragments
    assert literal_index(after).files == {"--ignore-local-config": 1, "value must not be negative": 1}
