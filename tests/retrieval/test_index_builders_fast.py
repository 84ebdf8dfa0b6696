"""The per-distinct-string index builders equal the per-symbol code they replaced (``index_references``).

Small random packages in tmp dirs: nested classes and functions whose names
repeat across files and carry stemmable suffixes, redefinitions (``x#2``),
module docstrings, string constants with placeholders and odd whitespace,
and folders that are tests, vendored or peripheral.
"""
from __future__ import annotations

import re
from types import SimpleNamespace
from pathlib import PurePosixPath

import numpy as np
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st

from beacon.graph import CodebaseGraph
from beacon.repo.history import ChangeLog
from beacon.retrieval import commit_log, expansion, file_index, hashed, masks, stemmed
from beacon.retrieval.signals_real import index as signals_index, literals
from tests.retrieval import index_references as ref

NAMES = ["handler", "handlers", "deprecation", "deprecated", "properties", "Parser", "parseRetryDelay",
         "compute_retry_delay", "cookies", "run", "x", "_private", "__init__", "encodings", "statuses"]
FOLDERS = ["pkg", "examples", "vendor", "tests", "docs/util", "src/lib"]
LITERALS = ["'Field {name!r} may not be null: expected a value'", "'max_line_length'", "'ok'",
            "'--ignore-local-config'", "'Unable to load\\tfile  %(path)s: %s'", "'A\\u00a0very  long   message here'",
            "'sympy.core.basic.Basic'", "'x'"]
DOCSTRINGS = ["", '"""Handlers of cookies."""\n', "r'''Raw parsers\nof things'''\n", 'u"""unclosed\n',
              "\n\n  '''indented deprecation notes'''\n", "# comment\n"]
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def module_source(draw) -> str:
    def block(depth: int) -> list[str]:
        out = []
        for _ in range(draw(st.integers(1, 3))):
            kind = draw(st.sampled_from(["stmt", "def", "class"] if depth < 3 else ["stmt"]))
            name = draw(st.sampled_from(NAMES))
            if kind == "stmt":
                out.append(f"{name.lower()} = {draw(st.sampled_from(LITERALS))}")
            else:
                out.append(f"{kind} {name}{'()' if kind == 'def' else ''}:")
                out.extend("    " + line for line in block(depth + 1))
        return out
    return draw(st.sampled_from(DOCSTRINGS)) + "\n".join(block(0)) + "\n"


@st.composite
def package(draw) -> dict[str, str]:
    files = {}
    for _ in range(draw(st.integers(1, 4))):
        folder = draw(st.sampled_from(FOLDERS))
        name = draw(st.sampled_from(["core", "handlers", "test_parser", "__init__", "deprecation"]))
        files[f"{folder}/{name}.py"] = draw(module_source())
    return files


def graph_of(tmp_path, files: dict[str, str]) -> CodebaseGraph:
    root = tmp_path / f"repo{abs(hash(str(sorted(files.items()))))}"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return CodebaseGraph.from_repo(root)


def same_sparse(a: sp.spmatrix, b: sp.spmatrix) -> None:
    assert a.format == b.format and a.shape == b.shape
    for name in ("data", "indices", "indptr"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name


def same_array(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@given(st.one_of(st.text(max_size=14), st.from_regex(re.compile(r"[a-z]{0,14}"), fullmatch=True),
                 st.sampled_from([n.lower() for n in NAMES] + ["ss", "isis", "statusies", "ations"])))
@settings(max_examples=400, deadline=None)
def test_stem_equals_the_plain_suffix_loop(term):
    assert stemmed.stem(term) == ref.stem(term)


@given(st.text(alphabet="ab \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2000\u2028\u3000\u200bİ", max_size=30))
@settings(max_examples=300, deadline=None)
def test_normalise_equals_the_regular_expression(text):
    assert literals.normalise(text) == ref.normalise(text)


@given(st.one_of(st.text(alphabet="ab -_%{}()sd:.İ\u00a0\t", max_size=24), st.sampled_from(LITERALS)))
@settings(max_examples=400, deadline=None)
def test_fragments_equal_the_plain_split(literal):
    assert literals.fragments(literal) == ref.fragments(literal)


@given(st.lists(st.text(alphabet="ab._", min_size=1, max_size=6).filter(lambda part: part != "."),
                min_size=1, max_size=3))
@settings(max_examples=200, deadline=None)
def test_stem_of_a_graph_path_is_the_pathlib_stem(parts):
    path = "/".join(parts)  # relative and normalised, as graph paths are
    assert expansion._stem_of(path) == PurePosixPath(path).stem


@SETTINGS
@given(files=package())
def test_builders_equal_their_references(tmp_path, files):
    graph = graph_of(tmp_path, files)
    fast = file_index.file_index(graph)
    paths, file_of, module_node, by_name, by_stem = ref.build_file_index(graph)
    assert fast.paths == paths and fast.by_stem == by_stem
    same_array(fast.file_of, file_of)
    same_array(fast.module_node, module_node)
    assert list(fast.by_name) == list(by_name)
    for name, nodes in by_name.items():
        same_array(fast.by_name[name], nodes)
    same_array(fast.is_module, np.array([s.kind == "module" for s in graph.symbols], dtype=bool))
    same_array(masks.packable(graph), ref.packable(graph))
    issue = signals_index.graph_index(graph)  # its files and test flags are the shared ones
    assert issue.paths == tuple(sorted({s.path for s in graph.symbols}))
    same_array(issue.file_of, np.array([issue.paths.index(s.path) for s in graph.symbols], dtype=np.int64))
    same_array(issue.is_test, np.array([s.is_test for s in graph.symbols], dtype=bool))
    vendored, peripheral = ref.vendored_and_peripheral(graph)
    same_array(masks.vendored_mask(graph), vendored)
    same_array(masks.peripheral_mask(graph), peripheral)
    same_sparse(stemmed.field_matrix(graph, "name"), ref.name_field(graph))
    for weight in (0.3, 1.0):
        same_sparse(expansion.context_matrix(graph, weight), ref.context_matrix(graph, weight))
    same_array(hashed.symbol_vectors(graph), ref.hashed_vectors(graph))
    fast_literals, plain_literals = literals.literal_index(graph), ref.literal_index(graph)
    assert fast_literals == plain_literals  # and in the same order (the stored member's bytes):
    assert [list(x) for x in (fast_literals.files, fast_literals.tokens, fast_literals.phrases)] == \
        [list(x) for x in (plain_literals.files, plain_literals.tokens, plain_literals.phrases)]


@SETTINGS
@given(files=package(), data=st.data())
def test_log_votes_equal_the_path_name_table(tmp_path, files, data):
    """Change-log votes looked up through ``FileIndex.by_name`` equal those of the (path, name) table."""
    graph = graph_of(tmp_path, files)
    paths = sorted(files) + ["gone/old.py"]
    names = NAMES + ["<module>", "x#2", "missing"]
    commits = data.draw(st.lists(st.tuples(
        st.lists(st.sampled_from(paths), min_size=1, max_size=3, unique=True),
        st.lists(st.tuples(st.sampled_from(paths), st.sampled_from(names)), max_size=4, unique=True),
        st.sampled_from(["fix handlers", "deprecation of cookies", "parse retry delay", "run things"])),
        min_size=1, max_size=6))
    log = ChangeLog("h", tuple(f"h{i}" for i in range(len(commits))), tuple(m for _, _, m in commits),
                    tuple(tuple(f) for f, _, _ in commits), tuple(tuple(sorted(fn)) for _, fn, _ in commits))
    for query in ("handlers cookies", "retry delay parse run"):
        fast = commit_log.log_votes(graph, log, query, 5, 3)
        plain = ref.log_votes(graph, log, query, 5, 3)
        same_array(fast[0], plain[0])
        same_array(fast[1], plain[1])


@st.composite
def spans_and_lines(draw):
    """Arbitrary spans per path (overlapping, equal, negative or past the last line) and the lines asked."""
    paths = [f"p{k}.py" for k in range(draw(st.integers(1, 3)))]
    spans, asked, literals_of, node = {}, [], {}, 0
    for path in paths:
        found = []
        for _ in range(draw(st.integers(0, 6))):
            start = draw(st.integers(-2, 12))
            found.append((start, draw(st.integers(-3, 14)), node))
            node += 1
        if found:
            spans[path] = found
        lines = draw(st.lists(st.integers(0, 12), min_size=1, max_size=6))
        asked.append((path, lines))
        literals_of[path] = [(line, "x") for line in lines + draw(st.lists(st.integers(0, 14), max_size=2))]
    module_node = {path: node + k for k, path in enumerate(paths) if draw(st.booleans())}
    return paths, spans, module_node, asked, literals_of


@given(spans_and_lines())
@settings(max_examples=300, deadline=None)
def test_owners_of_asked_lines_equal_painting_each_file(case):
    """``literals._owners`` equals ``_owners_by_line`` (every line of the file painted) at the asked lines."""
    paths, spans, module_node, asked, literals_of = case
    index = signals_index.GraphIndex(tuple(paths), np.zeros(0, dtype=np.int64), module_node, spans, {}, {},
                                     np.zeros(0, dtype=bool), {})
    graph = SimpleNamespace(files={p: SimpleNamespace(literals=lits) for p, lits in literals_of.items()})
    expected = [literals._owners_by_line(index, path, max(line for line, _ in literals_of[path]))[lines].tolist()
                for path, lines in asked]
    assert literals._owners(graph, index, asked) == expected
