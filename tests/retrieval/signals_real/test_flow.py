"""The flow signal (``signals_real.flow``): bare calls, star imports, return types and chained calls.

On a real ``plot`` package built in a temp dir (``src/`` layout; ``__init__`` re-exports ``core`` by
``from .core import *`` and ``Figure`` by name; annotated returns, ``Optional``, a string annotation,
``return self``, ``cls()``, ``type(self)()``, a method inherited from a base); hypothesis checks that the
reader never raises and only yields names that are in the text.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval import get_method
from beacon.retrieval.recipes import method_params
from beacon.retrieval.signals_real.flow import Flow, flow_scores, written
from beacon.retrieval.signals_real.flow_text import HOP, MAX_HOPS, flow_uses, return_types, star_imports
from beacon.retrieval.signals_real.index import graph_index
from beacon.retrieval.signals_real.receivers import receiver_scores
from beacon.retrieval.signals_real.snippets import Use
from tests.repotools import write_tree

from .conftest import node

FILES = {
    "src/plot/__init__.py": '''\
        """Plot: a tiny plotting package."""
        from .core import *
        from .figure import Figure
        ''',
    "src/plot/core.py": '''\
        """Top-level helpers."""
        from .figure import Figure


        def new_figure(size=None) -> "Figure":
            return Figure(size)


        def subplots(n):
            return Figure(n), None


        def quick_axes(n):
            fig = Figure(n)
            return fig.add_axes()


        def current():
            return quick_axes(1)
        ''',
    "src/plot/figure.py": '''\
        """Figures."""
        from typing import Optional

        from .axes import Axes


        class Base:
            def configure(self, **kw):
                if not kw:
                    return self
                self.kw = kw
                return self

            @classmethod
            def blank(cls):
                return cls()


        class Figure(Base):
            def __init__(self, size=None):
                self.size = size

            def add_axes(self) -> Optional[Axes]:
                return Axes()

            def copy(self):
                return type(self)()

            def savefig(self, path):
                return path

            def reset(self):
                return self.configure()
        ''',
    "src/plot/axes.py": '''\
        """Axes and lines."""


        class Axes:
            def plot(self, *points) -> "Line | None":
                return Line() if points else None

            def twin(self):
                def inner():
                    return 3
                return Axes()

            def set_title(self, title):
                self.title = title


        class Line:
            def set_color(self, color):
                self.color = color
        ''',
}

SESSION = """Saving a copied figure fails

```python
>>> from plot import *
>>> fig = new_figure(3)
>>> ax = fig.configure(dpi=2).add_axes()
>>> ax.plot(1).set_color('r')
>>> Figure.blank().copy().savefig('a.png')
>>> a, b = subplots(2)
>>> a.savefig('x')
>>> print(len(fig))
```
"""


@pytest.fixture(scope="module")
def plot(tmp_path_factory) -> CodebaseGraph:
    return CodebaseGraph.from_repo(write_tree(tmp_path_factory.mktemp("plot"), FILES, dedent=True))


def _resolved(graph: CodebaseGraph, query: str) -> dict[str, list[str]]:
    return {written(u): [graph.symbols[n].id for n in nodes] for u, nodes in Flow(graph, query).resolved()}


def test_the_reader_follows_calls_on_values_as_hops():
    u = flow_uses("```\nz = Cls(1).method(2)\nw = z.other()\nw.last\nq = mod.func(x)\nq.m()\np = z\n```")
    assert u.bindings["z"] == f"Cls{HOP}method" and u.bindings["w"] == f"Cls{HOP}method{HOP}other"
    assert u.bindings["q"] == "mod.func"
    assert {Use(f"Cls{HOP}method{HOP}other", "last"), Use(f"Cls{HOP}method", "other"), Use("Cls", "method"),
            Use("mod.func", "m"), Use("mod.func")} <= set(u.uses)
    assert "p" not in u.bindings  # a plain alias of a value is not followed
    deep = flow_uses("```\nx = A().a().b().c().d()\nx.e\n```")
    assert "x" not in deep.bindings and all(use.receiver.count(HOP) <= MAX_HOPS for use in deep.uses)


def test_return_types_read_from_the_definition():
    assert return_types("def f() -> 'Cls':\n    return g()\n") == ["Cls"]  # the annotation decides
    assert return_types("def f() -> Optional[mod.Cls]:\n    pass\n") == ["mod.Cls"]
    assert return_types("def f() -> A | None:\n    pass\n") == ["A"]
    assert return_types("def f() -> None:\n    pass\n") == []
    assert return_types("def f(self) -> Self:\n    pass\n") == ["Self"]
    assert return_types("def f(self: _T) -> _T:\n    pass\n") == ["Self"]  # a TypeVar on self
    assert return_types("def f(self):\n    if x:\n        return self\n    return type(self)()\n") == ["Self"]
    assert return_types("    @classmethod\n    def f(cls):\n        return cls(1)\n") == ["Self"]  # indented method
    assert return_types("def f():\n    def g():\n        return 1\n    return A(g())\n") == ["A"]  # nested: its own
    assert return_types("def f():\n    if x:\n        return A()\n    return 1\n") == []  # one return unknown
    assert return_types("def f():\n    pass\n") == [] and return_types("not python (") == []
    # another call's value, in the callee's own namespace: a local bound by the reader, self, a helper
    assert return_types("def f(self):\n    b = B()\n    return b.go()\n") == [f"B{HOP}go"]
    assert return_types("def f(self):\n    return self._make(1).build()\n") == [f"Self{HOP}_make{HOP}build"]
    assert return_types("def f(x):\n    return helper(x)\n") == ["helper"]
    assert return_types("def f(x):\n    return x\n") == []  # a plain name: nothing certain


def test_star_imports_and_bare_calls_resolve_to_functions(plot):
    assert star_imports("x\n>>> from plot import *\nfrom a.b import *\nfrom c import d\n") == ["plot", "a.b"]
    got = _resolved(plot, SESSION)
    assert got["new_figure(..)"] == ["src/plot/core.py::new_figure"]  # through __init__'s `from .core import *`
    assert got["subplots(..)"] == ["src/plot/core.py::subplots"]
    assert "print(..)" not in got and "len(..)" not in got  # builtins are never guessed
    # without the star import, a name the issue never imports: the graph's top-level functions of that name
    assert _resolved(plot, "```\nnew_figure()\n```") == {"new_figure(..)": ["src/plot/core.py::new_figure"]}
    assert _resolved(plot, "```\nimport plot as p\np.subplots(2)\n```") == {"p.subplots(..)":
                                                                            ["src/plot/core.py::subplots"]}
    assert _resolved(plot, "```\nimport numpy as np\nnp.subplots(2)\n```") == {}  # imported elsewhere: no guess
    # the snippet's own function shadows the package's; a name never called is a variable, not guessed
    assert _resolved(plot, "```\nfrom plot import *\ndef subplots(n):\n    pass\nsubplots(2)\n```") == {}
    assert _resolved(plot, "```\nnew_figure.savefig('x')\n```") == {}
    assert "new_figure(..).savefig" in _resolved(plot, "```\nf = new_figure()\nf.savefig('x')\n```")


def test_values_follow_return_types_and_self_through_chains(plot):
    got = _resolved(plot, SESSION)
    assert got["new_figure(..).configure"] == ["src/plot/figure.py::Base.configure"]  # -> "Figure", then its base
    # configure returns self: the receiver's own class (Figure), so add_axes is found on the subclass
    assert got["new_figure(..).configure(..).add_axes"] == ["src/plot/figure.py::Figure.add_axes"]
    assert got["new_figure(..).configure(..).add_axes(..).plot"] == ["src/plot/axes.py::Axes.plot"]  # Optional[Axes]
    assert got["new_figure(..).configure(..).add_axes(..).plot(..).set_color"] == ["src/plot/axes.py::Line.set_color"]
    # a classmethod returning cls() called on the subclass, then type(self)()
    assert got["Figure.blank(..).copy(..).savefig"] == ["src/plot/figure.py::Figure.savefig"]
    assert got["Figure.blank(..)"] == ["src/plot/figure.py::Base.blank"]  # a method called on a class: a call use
    assert not any(k.startswith("a(") for k in got)  # `a, b = subplots(2)`: a tuple is not followed
    # returns of other calls: current() -> quick_axes(1) -> fig.add_axes() on a local Figure -> Axes;
    # reset() -> self.configure() -> self: on a Figure, a Figure
    got = _resolved(plot, "```\nfrom plot import *\ncurrent().twin()\nnew_figure().reset().savefig('x')\n```")
    assert got["current(..).twin"] == ["src/plot/axes.py::Axes.twin"]
    assert got["new_figure(..).reset(..).savefig"] == ["src/plot/figure.py::Figure.savefig"]


def test_what_receivers_count_is_left_to_them(plot):
    query = "```\nfrom plot import Figure\nf = Figure()\nf.savefig('x')\nFigure().copy().savefig('y')\n```"
    got = _resolved(plot, query)
    assert "Figure(..).savefig" not in got and "Figure(..)" not in got  # receivers' uses: no hop, a class
    assert got == {"Figure(..).copy(..).savefig": ["src/plot/figure.py::Figure.savefig"]}
    assert receiver_scores(plot, query).symbol[node(plot, "src/plot/figure.py::Figure.copy")] == 1.0


def test_each_use_votes_once_and_definitions_vote_for_their_files(plot):
    s = flow_scores(plot, SESSION)
    idx = graph_index(plot)
    assert s.symbol[node(plot, "src/plot/axes.py::Line.set_color")] == 1.0
    assert s.symbol[node(plot, "src/plot/core.py::new_figure")] == 1.0
    assert s.file[idx.paths.index("src/plot/axes.py")] == 2.0  # Axes.plot, Line.set_color
    assert np.isclose(s.file.sum(), s.symbol.sum())
    assert flow_scores(plot, "no code, only new_figure prose").empty


def test_flow_only_is_registered_and_ranks_the_reached_files(plot):
    assert method_params("flow_only") == {"w_flow": 1.0}
    ranked = get_method("flow_only", **method_params("flow_only")).rank(plot, SESSION)
    assert {plot.symbols[n].path for n, _ in ranked} <= {"src/plot/axes.py", "src/plot/figure.py",
                                                         "src/plot/core.py"}
    assert plot.symbols[ranked[0][0]].path == "src/plot/figure.py"  # four uses reach it


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


_TOKENS = [*"ab(). =\n>:`[]x1'\"\\#*,", "Cls", "self", "cls", "```", ">>> ", "... ", "    ", "from a import *\n",
           "import a as b\n", "with ", " as ", "def ", "class ", "return ", "-> ", "lambda", "for ", " in "]


@given(st.lists(st.sampled_from(_TOKENS), max_size=120).map("".join))
@settings(max_examples=300, deadline=None)
def test_the_reader_never_raises_and_yields_only_names_of_the_text(text):
    out = flow_uses(text)
    words = set(_IDENT.findall(text))
    for use in out.uses:
        parts = [p for chain in use.receiver.split(HOP) for p in chain.split(".")] + ([use.attr] if use.attr else [])
        assert all(p in words for p in parts), (use, text)
    assert all(m in text for m in star_imports(text))


@given(st.text(max_size=400))
@settings(max_examples=200, deadline=None)
def test_any_text_reads_without_raising(text):
    for use in flow_uses(text).uses:
        assert use.receiver.split(HOP)[0].split(".")[0] in text
    for chain in return_types(f"def f(self):\n    return {text}\n"):  # a callee's source: never raises either
        assert chain == "Self" or chain.split(HOP)[0].split(".")[0] in text
