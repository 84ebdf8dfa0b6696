"""The fast paths of ``text`` against plain computations: identifier runs, identifier splitting, own documents."""
from __future__ import annotations

import re

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from beacon.graph import CodebaseGraph
from beacon.retrieval.text import _CAMEL, _IDENT, STOPWORDS, _without_imports, _word_runs, own_documents, split_identifier

IDENTISH = st.text(alphabet="aAbBzZ_09 .\n\té√\udc80λ", max_size=40)


def plain_split(word: str) -> tuple[str, ...]:
    """``split_identifier`` with the regular expression for every word (no lower-case fast path)."""
    parts = [p.lower() for chunk in word.split("_") for p in _CAMEL.findall(chunk)]
    parts = [p for p in parts if len(p) > 1 and not p.isdigit() and p not in STOPWORDS]
    whole = word.strip("_").lower()
    if len(parts) > 1 and whole not in STOPWORDS:
        parts.append(whole)
    return tuple(parts)


@given(st.lists(IDENTISH, max_size=5))
def test_word_runs_are_each_documents_identifier_matches_with_their_leading_digits(docs):
    flat, starts = _word_runs(docs)
    assert len(starts) == len(docs) + 1 and starts[0] == 0 and starts[-1] == len(flat)
    for i, doc in enumerate(docs):
        found = [w.lstrip(b"0123456789").decode("ascii") for w in flat[starts[i]:starts[i + 1]]]
        assert [w for w in found if w] == _IDENT.findall(doc)


@given(st.one_of(st.from_regex(re.compile(r"[a-z_]{0,12}", re.ASCII), fullmatch=True),
                 st.from_regex(re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,12}", re.ASCII), fullmatch=True),
                 st.sampled_from(["self", "the_self", "import_name", "a_b", "__init__", "x", "foo_foo", "é_a"])))
def test_split_identifier_equals_the_regular_expression_split(word):
    assert split_identifier(word) == plain_split(word)


def plain_own_documents(graph: CodebaseGraph) -> list[str]:
    """Per symbol, a numpy search for its own lines and ``_without_imports`` on every document."""
    docs = [""] * len(graph.symbols)
    by_path: dict[str, list[int]] = {}
    for i, s in enumerate(graph.symbols):
        by_path.setdefault(s.path, []).append(i)
    for path, nodes in by_path.items():
        lines = graph.file_lines(path)
        owner = np.full(len(lines), -1, dtype=np.int64)
        for i in nodes:
            s = graph.symbols[i]
            owner[s.start_line - 1:s.end_line] = i
        for i in nodes:
            s = graph.symbols[i]
            own = np.flatnonzero(owner[s.start_line - 1:s.end_line] == i) + s.start_line - 1
            body = _without_imports([lines[j] for j in own])
            docs[i] = f"{s.path.replace('/', ' ').replace('.py', '')} {s.qualname.replace('.', ' ')}\n{body}"
    return docs


STATEMENT = st.sampled_from(["x = 1", "import os", "from a import (b,", "y = important", "'''import x'''",
                             "return x", "pass", "n0_0()", "n1_1()", "x.n1_0()"])


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
    return "\n".join(block(0)) + draw(st.sampled_from(["", "\n", "\n\n"]))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sources=st.lists(module_source(), min_size=1, max_size=3))
def test_own_documents_equal_the_per_symbol_computation(tmp_path, sources):
    root = tmp_path / f"repo{abs(hash(str(sources)))}"
    (root / "pkg").mkdir(parents=True)
    for k, source in enumerate(sources):
        (root / "pkg" / f"m{k}.py").write_text(source)
    (root / "empty.py").write_text("")
    graph = CodebaseGraph.from_repo(root)
    assert own_documents(graph) == plain_own_documents(graph)
