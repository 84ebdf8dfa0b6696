"""The fast paths of ``text`` against plain computations: identifier splitting, and the term index (built from
one tokenisation of the graph's text, ``doc_tokens``) against the string-per-document reference build, whose
identifier runs and own documents are checked against plain computations here too."""
from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from beacon.graph import CodebaseGraph
from beacon.graph.word_terms import code_dtype, file_terms
from beacon.graph.words import scan_runs
from beacon.retrieval.text import _CAMEL, _IDENT, STOPWORDS, split_identifier, term_index
from experiments.benchmarks.term_reference import own_documents, reference_term_index, same_index, without_imports, word_runs

IDENTISH = st.text(alphabet="aAbBzZ_09 .\n\té√\udc80λ", max_size=40)


def plain_split(word: str) -> tuple[str, ...]:
    """``split_identifier`` with the camel-case expression over the whole word (no lower-case fast path)."""
    kept = [p.lower() for p in _CAMEL.findall(word.replace("_", " "))]  # the expression matches no space
    kept = [p for p in kept if len(p) >= 2 and not p.isdigit() and p not in STOPWORDS]
    whole = word.strip("_").lower()
    return tuple(kept + [whole]) if len(kept) >= 2 and whole not in STOPWORDS else tuple(kept)


@given(st.lists(IDENTISH, max_size=5))
def test_word_runs_are_each_documents_identifier_matches_with_their_leading_digits(docs):
    flat, starts = word_runs(docs)
    assert len(starts) == len(docs) + 1 and starts[0] == 0 and starts[-1] == len(flat)
    for i, doc in enumerate(docs):
        found = [w.lstrip(b"0123456789").decode("ascii") for w in flat[starts[i]:starts[i + 1]]]
        assert [w for w in found if w] == _IDENT.findall(doc)


@given(st.lists(IDENTISH, max_size=6).map("\n".join), st.integers(1, 30))
def test_scan_in_blocks_equals_onescan_runs(text, block):
    """Blocks cut after a newline find the same newlines and runs (two bytes or more) as the whole text at once."""
    encoded = text.encode("utf-8", "surrogatepass") + b" " * 16
    whole = scan_runs(encoded, block=1 << 30)
    assert all(np.array_equal(a, b) for a, b in zip(scan_runs(encoded, block=block), whole))
    runs = [m.span() for m in re.finditer(rb"[A-Za-z0-9_]{2,}", encoded)]
    assert list(zip(whole[1].tolist(), whole[2].tolist())) == runs
    assert whole[0].tolist() == [m.start() for m in re.finditer(rb"\n", encoded)]


@given(st.one_of(st.from_regex(re.compile(r"[a-z_]{0,12}", re.ASCII), fullmatch=True),
                 st.from_regex(re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,12}", re.ASCII), fullmatch=True),
                 st.sampled_from(["self", "the_self", "import_name", "a_b", "__init__", "x", "foo_foo", "é_a"])))
def test_split_identifier_equals_the_regular_expression_split(word):
    assert split_identifier(word) == plain_split(word)


@given(st.lists(st.from_regex(re.compile(r"[A-Za-z0-9_]{2,12}", re.ASCII), fullmatch=True), unique=True, max_size=8))
def test_file_terms_are_each_words_splits_numbered_by_first_occurrence(words):
    """A file's distinct words split at parse time: word by word, the terms ``split_identifier`` gives the
    identifier in the run (leading digits removed), numbered in the order they are first met."""
    listed, codes, ptr = file_terms(" ".join(words).encode("ascii"))
    vocab = listed.decode("ascii").split(" ") if listed else []
    expected = [split_identifier(w.lstrip("0123456789")) for w in words]
    assert len(ptr) == len(words) + 1 and codes.dtype == code_dtype(len(vocab)) and ptr.dtype == np.int32
    assert [tuple(vocab[c] for c in codes[ptr[k]:ptr[k + 1]]) for k in range(len(words))] == expected
    assert vocab == list(dict.fromkeys(t for parts in expected for t in parts))


def plain_own_documents(graph: CodebaseGraph) -> list[str]:
    """Line by line: a line belongs to the last symbol (in pre-order) whose span holds it; every document's
    lines go through ``_without_imports``."""
    docs = []
    for i, s in enumerate(graph.symbols):
        lines = graph.file_lines(s.path)
        mine = [line for number, line in enumerate(lines, 1) if s.start_line <= number <= s.end_line
                and max(k for k, t in enumerate(graph.symbols)
                        if t.path == s.path and t.start_line <= number <= t.end_line) == i]
        docs.append(f"{s.path.replace('/', ' ').replace('.py', '')} {s.qualname.replace('.', ' ')}\n"
                    f"{without_imports(mine)}")
    return docs


STATEMENT = st.sampled_from(["x = 1", "import os", "from a import (b,", "y = important", "'''import x'''",
                             "return x", "pass", "n0_0()", "n1_1()", "x.n1_0()", "import os  # (", "from a import (b, c)",
                             "retryDelay = HTTPError(9lives)", "Δx_delay = naïveValue", "x9_ = __init__ + 42",
                             ">>> from a import b", "from\u00a0a import b", "import\tsys", "importlib.x(1)",
                             "s = 'a very_long_identifier_name_of_more_than_thirty_two_bytes'", "abcdefghi_jk = ab"])


@st.composite
def module_source(draw) -> str:
    """A module of nested classes and functions whose bodies hold imports and plain statements."""
    def block(depth: int) -> list[str]:
        out = []
        for _ in range(draw(st.integers(1, 3))):
            kind = draw(st.sampled_from(["stmt", "def", "class"] if depth < 3 else ["stmt"]))
            if kind == "stmt":
                out.append(draw(STATEMENT))
                if out[-1].startswith("from a import ("):
                    out.append("    c)")
            else:
                out.append(f"{kind} n{depth}_{len(out)}{'()' if kind == 'def' else ''}:")
                out.extend("    " + line for line in block(depth + 1))
        return out
    return "\n".join(block(0)) + draw(st.sampled_from(["", "\n", "\n\n", "\nimport os", "\nfrom a import (b,\n    c)"]))


def modules_graph(tmp_path, sources: list[str]) -> CodebaseGraph:
    """A graph of ``pkg/m<k>.py`` for each source, an empty module and one with a non-ASCII file name."""
    root = tmp_path / f"repo{abs(hash(str(sources)))}"
    (root / "pkg").mkdir(parents=True, exist_ok=True)  # hypothesis may run one example twice
    for k, source in enumerate(sources):
        (root / "pkg" / f"m{k}.py").write_text(source)
    (root / "empty.py").write_text("")
    (root / "pkg" / "naïve.py").write_text("x = 1")
    return CodebaseGraph.from_repo(root)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sources=st.lists(module_source(), min_size=1, max_size=3))
def test_own_documents_equal_the_per_symbol_computation(tmp_path, sources):
    graph = modules_graph(tmp_path, sources)
    assert own_documents(graph) == plain_own_documents(graph)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sources=st.lists(module_source(), min_size=1, max_size=3))
def test_term_index_equals_the_string_per_document_build(tmp_path, sources):
    """Vocabulary numbering, matrix arrays and dtypes, document lengths: byte for byte; from the words computed
    with the parse, from the words saved with the graph, and from the text alone (files without words)."""
    graph = modules_graph(tmp_path, sources)
    expected = reference_term_index(graph)
    assert same_index(term_index(graph), expected)
    loaded = CodebaseGraph.load(graph.save(tmp_path / f"saved{abs(hash(str(sources)))}"))
    assert all(loaded.files[p].words == f.words for p, f in graph.files.items())
    assert same_index(term_index(loaded), expected)
    graph.cache.clear()
    graph.files = {p: replace(f, words=None) for p, f in graph.files.items()}
    assert same_index(term_index(graph), expected)


def test_words_cached_with_the_parse_equal_fresh_ones(tmp_path):
    """A warm build reads each file's words from the parse cache: equal to a cold build's, same term index."""
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("import os\nclass RetryDelay:\n    def compute(self, retry_delay):\n"
                                       "        from x import (y,\n            z)\n        return retry_delay * 2\n")
    (root / "pkg" / "b.py").write_text("def fooBar(x9_):\n    return x9_  # HTTPError")
    cold = CodebaseGraph.from_repo(root, cache_dir=tmp_path / "cache")
    warm = CodebaseGraph.from_repo(root, cache_dir=tmp_path / "cache")
    assert all(f.words is not None and warm.files[p].words == f.words for p, f in cold.files.items())
    assert same_index(term_index(warm), reference_term_index(cold))
