"""Symbols: kinds, qualnames, line and byte spans, source text, is_test."""
from __future__ import annotations

import pytest

from beacon.graph import EdgeType, is_test_path

NESTED = """
    import functools


    def outer(x):
        def inner(y):
            def innermost():
                return y
            return innermost()

        class Local:
            def method(self):
                return 1

        return inner(x)


    class Outer:
        '''Docstring.'''

        class Inner:
            async def deep(self):
                def helper():
                    return 2
                return helper()

        @functools.cache
        def cached(self):
            return 3


    async def coroutine():
        return None
"""


def test_kinds_and_nested_qualnames(build_graph):
    g = build_graph({"m.py": NESTED})
    kinds = {s.qualname: s.kind for s in g.symbols}
    assert kinds == {
        "<module>": "module",
        "outer": "function",
        "outer.inner": "function",
        "outer.inner.innermost": "function",
        "outer.Local": "class",
        "outer.Local.method": "method",
        "Outer": "class",
        "Outer.Inner": "class",
        "Outer.Inner.deep": "method",
        "Outer.Inner.deep.helper": "function",
        "Outer.cached": "method",
        "coroutine": "function",
    }
    assert g.symbol("m.py::outer.inner.innermost").parent == "m.py::outer.inner"
    assert g.symbol("m.py::Outer.Inner.deep").name == "deep"
    assert g.symbol("m.py::<module>").name == "m"
    assert g.symbol("m.py::<module>").parent is None


def test_line_spans_are_one_based_inclusive(build_graph):
    g = build_graph({"m.py": NESTED})
    lines = g.files["m.py"].text.split("\n")
    outer = g.symbol("m.py::outer")
    assert lines[outer.start_line - 1] == "def outer(x):"
    assert lines[outer.end_line - 1] == "    return inner(x)"
    cached = g.symbol("m.py::Outer.cached")
    assert lines[cached.start_line - 1] == "    @functools.cache"
    assert lines[cached.end_line - 1] == "        return 3"
    module = g.symbol("m.py::<module>")
    assert (module.start_line, module.end_line) == (1, g.files["m.py"].text.count("\n"))


def _check_spans(g, path):
    text = g.files[path].text
    data = text.encode("utf-8")
    lines = text.split("\n")
    for sym in g.symbols:
        if sym.path != path:
            continue
        chunk = "\n".join(lines[sym.start_line - 1:sym.end_line])
        expected = chunk + "\n" if sym.end_line < len(lines) else chunk
        assert data[sym.start_byte:sym.end_byte].decode("utf-8") == expected, sym.id
        rendered = g.source(sym)
        assert rendered == (expected if expected.endswith("\n") else expected + "\n"), sym.id


def test_byte_spans_with_multibyte_text(build_graph):
    g = build_graph({"m.py": """
        # café ☕ — naïve
        def f():
            return "héllo 𝔘𝔫𝔦𝔠𝔬𝔡𝔢"


        class Ünïcode:
            def mëthod(self):
                return "日本語"


        def separators():
            # U+2028, U+0085 and form feed are not line breaks for Python
            return "a\u2028b\x85c\x0cd"
    """})
    _check_spans(g, "m.py")
    sym = g.symbol("m.py::Ünïcode.mëthod")
    data = g.files["m.py"].text.encode()
    assert data[sym.start_byte:sym.end_byte] == "    def mëthod(self):\n        return \"日本語\"\n".encode()
    assert sym.start_byte != g.files["m.py"].text.index("    def mëthod")  # bytes, not characters
    sep = g.symbol("m.py::separators")
    assert sep.end_line - sep.start_line == 2
    assert g.source(sep).count("\n") == 3


def test_crlf_file_is_normalised(build_graph):
    raw = "import os\r\n\r\n\r\ndef f():\r\n    return 1\r\n\r\nclass C:\r\n    def m(self):\r\n        return f()\r\n"
    g = build_graph({"crlf.py": raw.encode()})
    assert g.skipped == []
    assert "\r" not in g.files["crlf.py"].text
    assert g.files["crlf.py"].text == raw.replace("\r\n", "\n")
    m = g.symbol("crlf.py::C.m")
    assert (m.start_line, m.end_line) == (8, 9)
    assert g.source(m) == "    def m(self):\n        return f()\n"
    _check_spans(g, "crlf.py")
    assert g.has_edge("crlf.py::C.m", "crlf.py::f", EdgeType.CALLS)


def test_old_mac_cr_newlines(build_graph):
    raw = b"def f():\r    return 1\r\rdef g():\r    return f()\r"
    g = build_graph({"cr.py": raw})
    assert g.skipped == []
    assert g.symbol("cr.py::g").start_line == 4
    _check_spans(g, "cr.py")


def test_file_without_trailing_newline(build_graph):
    g = build_graph({"m.py": b"def a():\n    pass\n\ndef b():\n    return a()"})
    text = g.files["m.py"].text
    b = g.symbol("m.py::b")
    assert (b.start_line, b.end_line) == (4, 5)
    assert b.end_byte == len(text.encode())
    assert g.source(b) == "def b():\n    return a()\n"
    module = g.symbol("m.py::<module>")
    assert (module.end_line, module.end_byte) == (5, len(text.encode()))
    _check_spans(g, "m.py")


def test_empty_and_comment_only_files(build_graph):
    g = build_graph({"empty.py": b"", "comment.py": b"# only a comment"})
    empty = g.symbol("empty.py::<module>")
    assert (empty.start_line, empty.end_line, empty.start_byte, empty.end_byte) == (1, 1, 0, 0)
    assert g.source(empty) == ""
    comment = g.symbol("comment.py::<module>")
    assert (comment.end_line, comment.end_byte) == (1, 16)
    assert g.source(comment) == "# only a comment\n"


def test_bom_and_encoding_cookie(build_graph):
    latin = "# -*- coding: latin-1 -*-\ndef caf\u00e9():\n    return '\u00e9'\n".encode("latin-1")
    bom = b"\xef\xbb\xbfdef f():\n    return 1\n"
    g = build_graph({"latin.py": latin, "bom.py": bom})
    assert g.skipped == []
    assert "latin.py::café" in g.index
    assert g.source("latin.py::café") == "def café():\n    return 'é'\n"
    assert g.files["bom.py"].text.startswith("def f")
    assert g.symbol("bom.py::f").start_byte == 0
    _check_spans(g, "latin.py")
    # the raw-bytes hash is the cache key; the text hash is of the indexed text
    assert g.files["latin.py"].sha256 != g.files["latin.py"].text_sha256


def test_parenthesised_decorator_line_is_in_the_span(build_graph):
    g = build_graph({"m.py": """
        def deco(f):
            return f


        class K:
            @(
                # a comment inside the brackets
                deco
            )
            @deco
            def m(self):
                pass
    """})
    m = g.symbol("m.py::K.m")
    assert (m.start_line, m.end_line) == (6, 12)
    assert g.source(m).startswith("    @(\n        # a comment")
    _check_spans(g, "m.py")


def test_multiline_signature_and_trailing_comment(build_graph):
    g = build_graph({"m.py": """
        def f(
            a,
            b,
        ):
            return a  # trailing

        # a comment after f is not part of f
        x = 1
    """})
    f = g.symbol("m.py::f")
    assert (f.start_line, f.end_line) == (1, 5)
    _check_spans(g, "m.py")


def test_redefinitions_keep_distinct_ids_in_order(build_graph):
    g = build_graph({"m.py": """
        def f():
            return 1

        def f():
            return 2

        def f():
            def g():
                pass
            return 3
    """})
    ids = [s.id for s in g.symbols]
    assert ids == ["m.py::<module>", "m.py::f", "m.py::f#2", "m.py::f#3", "m.py::f#3.g"]
    assert len(set(ids)) == len(ids)
    assert [g.symbol(i).name for i in ids[1:]] == ["f", "f", "f", "g"]
    assert "return 2" in g.source("m.py::f#2")


def test_symbol_lookup_errors_are_clear(build_graph):
    g = build_graph({"m.py": "x = 1\n"})
    with pytest.raises(KeyError, match="no symbol 'm.py::nope'"):
        g.symbol("m.py::nope")


@pytest.mark.parametrize("path, expected", [
    ("tests/test_a.py", True),
    ("tests/helpers.py", True),
    ("pkg/tests/data/x.py", True),
    ("testing/util.py", True),
    ("test/x.py", True),
    ("test_a.py", True),
    ("pkg/a_test.py", True),
    ("pkg/conftest.py", True),
    ("conftest.py", True),
    ("pkg/contest.py", False),
    ("pkg/latest.py", False),
    ("pkg/attest_x.py", False),
    ("pkg/testify/x.py", False),
    ("flask/testsuite/basic.py", True),  # old flask/werkzeug layout
    ("werkzeug/test.py", False),  # the test client: library code, not a test
    ("src/pkg/mod.py", False),
])
def test_is_test_path(path, expected):
    assert is_test_path(path) is expected


def test_is_test_flag_on_symbols(build_graph):
    g = build_graph({
        "pkg/__init__.py": "",
        "pkg/mod.py": "def f():\n    pass\n",
        "tests/test_mod.py": "def test_f():\n    pass\n",
        "tests/conftest.py": "",
        "pkg/mod_test.py": "def g():\n    pass\n",
    })
    flags = {s.id: s.is_test for s in g.symbols}
    assert flags["pkg/mod.py::f"] is False
    assert flags["pkg/mod.py::<module>"] is False
    assert flags["tests/test_mod.py::test_f"] is True
    assert flags["tests/test_mod.py::<module>"] is True
    assert flags["tests/conftest.py::<module>"] is True
    assert flags["pkg/mod_test.py::g"] is True


def test_symbols_are_ordered_by_path_then_position(build_graph):
    g = build_graph({"b.py": "def z():\n    pass\ndef a():\n    pass\n", "a.py": "def y():\n    pass\n"})
    assert [s.id for s in g.symbols] == ["a.py::<module>", "a.py::y", "b.py::<module>", "b.py::z", "b.py::a"]
