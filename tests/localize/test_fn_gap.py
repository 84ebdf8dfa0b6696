"""The changelog function-gap diagnostic's text helpers (``experiments/benchmarks/localize_fn_gap.py``).

``naming`` says how a report names a definition (dotted, as code, as a bare word, or not at all) and
``docstring_words`` which of the report's words the definition's own docstring holds, read from a real graph
built from files in a temp dir. Property test: ``naming`` never raises on any text and any qualified name, and
whatever it reports is in the text.
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.graph.codebase import CodebaseGraph
from experiments.benchmarks.localize_fn_gap import docstring_words, naming

_PIECES = st.sampled_from(["`", "``", "URL.__eq__", "URL", ".", "__eq__", "(", ")", " ", "\n", "eq", "x.y"])
_TEXT = st.one_of(st.text(max_size=80), st.lists(st.one_of(_PIECES, st.text(max_size=4)), max_size=12).map("".join))
_QUAL = st.one_of(st.sampled_from(["URL.__eq__", "load", "A.B.c#2", "f#3"]),
                  st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}(\.[A-Za-z_][A-Za-z0-9_]{0,5}){0,2}", fullmatch=True))


@settings(max_examples=300, deadline=None)
@given(_TEXT, _QUAL)
def test_naming_never_raises_and_names_only_what_the_text_holds(text, qual):
    got = naming(text, qual)
    assert got in ("dotted", "code", "bare", "")
    if got:
        assert qual.split("#", 1)[0].rsplit(".", 1)[-1] in text


def test_naming_kinds():
    assert naming("Fix ``URL.__eq__`` for relative URLs", "URL.__eq__") == "dotted"
    assert naming("``json.loads`` is used", "loads") == "dotted"
    assert naming("Fix ``close`` on the client", "Client.close") == "code"
    assert naming("calling close() twice", "Client.close") == "code"
    assert naming("the client does not close its pool", "Client.close") == "bare"
    assert naming("the client leaks its pool", "Client.close") == ""
    assert naming("Fix Other.close leaking", "Client.close") == ""  # another class's method


def test_docstring_words_from_a_real_graph(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "urls.py").write_text(
        'class URL:\n'
        '    def join(self, other):\n'
        '        """Join a relative reference onto this absolute URL."""\n'
        '        return other\n'
        '\n'
        '    def plain(self):\n'
        '        return 1\n')
    graph = CodebaseGraph.from_repo(tmp_path)
    query = "Joining a relative URL with an absolute one drops the path"
    assert docstring_words(graph, "pkg/urls.py::URL.join", query) == ["absolute", "relative", "url"]
    assert docstring_words(graph, "pkg/urls.py::URL.plain", query) == []
