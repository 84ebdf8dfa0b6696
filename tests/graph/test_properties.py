"""Property tests: random nestings of defs/classes, CSR construction, incremental builds."""
from __future__ import annotations

import tempfile
import textwrap
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from beacon.graph import CodebaseGraph, EdgeType, GraphBuilder
from beacon.graph.codebase import csr_from_pairs

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# A definition: (kind, name, decorators, statements, children). Few names, so
# redefinitions (`a#2`) are frequent.
KINDS = st.sampled_from(["def", "async", "class"])
NAMES = st.sampled_from(["a", "b", "c"])
DECOS = st.lists(st.sampled_from([
    "@dec", "@dec(1)", "@dec(\n    2,\n)", "@(\n    dec\n)", "@(  # see @dec\n\n    dec)",
]), max_size=2)
STMTS = st.lists(st.sampled_from([
    "pass", "x = 'é☕𝔘'", "y = [i for i in range(3)]", "# a comment", "", "z = dec(\n    1,\n)",
]), max_size=3)


def _node(kids):
    return st.tuples(KINDS, NAMES, DECOS, STMTS, kids)


TREES = st.recursive(_node(st.just([])), lambda inner: _node(st.lists(inner, max_size=3)), max_leaves=14)
MODULES = st.tuples(
    st.lists(TREES, max_size=4),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),  # trailing newline
)


def render(nodes, depth=0, owner=None, owner_kind="module", lines=None, expected=None, seen=None):
    """Source lines plus the expected (qualname, kind, start, end, parent) per def, in order."""
    lines = [] if lines is None else lines
    expected = [] if expected is None else expected
    seen = {} if seen is None else seen
    pad = "    " * depth
    for kind, name, decos, stmts, kids in nodes:
        base = name if owner is None else f"{owner}.{name}"
        seen[base] = seen.get(base, 0) + 1
        qual = base if seen[base] == 1 else f"{base}#{seen[base]}"
        sym_kind = "class" if kind == "class" else ("method" if owner_kind == "class" else "function")
        start = len(lines) + 1
        for deco in decos:
            lines.extend(pad + part for part in deco.split("\n"))
        header = {"class": f"class {name}:", "def": f"def {name}(self=None):",
                  "async": f"async def {name}():"}[kind]
        lines.append(pad + header)
        record = [qual, sym_kind, start, None, owner]
        expected.append(record)
        last_code = len(lines)
        body_has_code = False
        for stmt in stmts:
            for part in stmt.split("\n"):
                lines.append((pad + "    " + part) if part else "")
            if stmt and not stmt.startswith("#"):
                body_has_code = True
                last_code = len(lines)
        if kids:
            render(kids, depth + 1, qual, sym_kind, lines, expected, seen)
            body_has_code = True
            last_code = max(last_code, _last_code_line(lines))
        if not body_has_code:
            lines.append(pad + "    pass")
            last_code = len(lines)
        record[3] = last_code
    return lines, expected


def _last_code_line(lines):
    for i in range(len(lines), 0, -1):
        stripped = lines[i - 1].strip()
        if stripped and not stripped.startswith("#"):
            return i
    return 0


def build_one(source: bytes) -> CodebaseGraph:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "m.py").write_bytes(source)
        return CodebaseGraph.from_repo(tmp)


@SETTINGS
@given(MODULES)
def test_random_nesting_invariants(module):
    nodes, newline, trailing = module
    lines, expected = render(nodes)
    lines = ["def dec(*args):", "    return lambda f: f", ""] + lines
    shift = 3
    source = newline.join(lines) + (newline if trailing else "")
    graph = build_one(source.encode("utf-8"))
    assert graph.skipped == []
    text = graph.files["m.py"].text
    assert text == "\n".join(lines) + ("\n" if trailing else "")

    # ids unique; exactly the expected symbols, in source order
    ids = [s.id for s in graph.symbols]
    assert len(ids) == len(set(ids))
    got = [(s.qualname, s.kind, s.start_line, s.end_line, s.parent) for s in graph.symbols[2:]]
    want = [(q, k, a + shift, b + shift, f"m.py::{p}" if p else "m.py::<module>")
            for q, k, a, b, p in expected]
    assert got == want

    data = text.encode("utf-8")
    text_lines = text.split("\n")
    by_id = {s.id: s for s in graph.symbols}
    for i, sym in enumerate(graph.symbols):
        # source() and the byte span are exactly the spanned lines
        chunk = "\n".join(text_lines[sym.start_line - 1:sym.end_line])
        whole = chunk + "\n" if sym.end_line < len(text_lines) else chunk
        assert data[sym.start_byte:sym.end_byte].decode("utf-8") == whole
        assert graph.source(sym) == (whole if whole.endswith("\n") or not whole else whole + "\n")
        # a child's span lies inside its parent's
        if sym.parent is not None:
            parent = by_id[sym.parent]
            assert parent.contains(sym)
            assert parent.start_byte <= sym.start_byte <= sym.end_byte <= parent.end_byte
        # contains edges form a forest rooted at the module: one parent each
        parents = graph.neighbors(i, EdgeType.CONTAINS, reverse=True)
        if sym.kind == "module":
            assert len(parents) == 0
        else:
            assert [graph.symbols[int(p)].id for p in parents] == [sym.parent]
    n_contains = len(graph.edges[EdgeType.CONTAINS][1])
    assert n_contains == len(graph.symbols) - 1
    # following parents always reaches the module (no cycles)
    for sym in graph.symbols:
        steps, cur = 0, sym
        while cur.parent is not None:
            cur = by_id[cur.parent]
            steps += 1
            assert steps <= len(graph.symbols)
        assert cur.kind == "module"


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=80))))
def test_csr_from_pairs_matches_edge_set(case):
    n, pairs = case
    src = np.array([p[0] for p in pairs], dtype=np.int64)
    dst = np.array([p[1] for p in pairs], dtype=np.int64)
    indptr, indices = csr_from_pairs(src, dst, n)
    assert indptr.dtype == np.int64 and indices.dtype == np.int32 and len(indptr) == n + 1
    rebuilt = {(u, int(v)) for u in range(n) for v in indices[indptr[u]:indptr[u + 1]]}
    assert rebuilt == set(pairs)
    assert len(indices) == len(set(pairs))
    for u in range(n):
        row = indices[indptr[u]:indptr[u + 1]]
        assert list(row) == sorted(set(row))


# -- incremental builds under random edits -----------------------------------------
VARIANTS = {
    "pkg/__init__.py": [None, "", "from .a import f\n", "from . import b\n"],
    "pkg/a.py": [
        None,
        "from .b import g\n\ndef f():\n    return g()\n",
        "from .b import g\n\ndef f():\n    return g() + 1\n",
        "from .b import g as f\n\nclass A:\n    def m(self):\n        return f()\n",
        "def f(:\n",
    ],
    "pkg/b.py": [
        None,
        "def g():\n    return 1\n",
        "def g():\n    return 2\n\ndef h():\n    return g()\n",
        "class B:\n    def g(self):\n        return self.h()\n\n    def h(self):\n        pass\n",
    ],
    "pkg/c.py": [
        None,
        "from .a import A\n\nclass C(A):\n    def run(self):\n        return self.m()\n",
        "from pkg import a\n\ndef run():\n    return a.f()\n",
    ],
    "main.py": [None, "from pkg.a import f\nf()\n", "import pkg.b as b\nb.g()\nb.h()\n"],
}
STATES = st.fixed_dictionaries({path: st.integers(0, len(v) - 1) for path, v in VARIANTS.items()})


def _apply(root: Path, state: dict[str, int]) -> None:
    for path, choice in state.items():
        target = root / path
        content = VARIANTS[path][choice]
        if content is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists() or target.read_text() != content:
                target.write_text(textwrap.dedent(content))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(STATES, min_size=2, max_size=5))
def test_incremental_builds_equal_cold_builds(same_graph, states):
    with tempfile.TemporaryDirectory() as tmp:
        root, cache = Path(tmp) / "repo", Path(tmp) / "cache"
        root.mkdir()
        builder = GraphBuilder(root, cache_dir=cache)
        for state in states:
            _apply(root, state)
            same_graph(builder.build(), CodebaseGraph.from_repo(root))
