"""The flow signal's optional gaps (``flow_gaps``): tuple items, attributes as hops, returned names, traceback
source lines.

On a real ``draw`` package built in a temp dir: ``subplots`` returns ``fig, ax`` (locals bound earlier),
``make_pair`` is annotated ``-> tuple[Figure, Axes]``, ``Figure.__init__`` assigns ``self.canvas = Canvas()``,
``Axes`` declares ``xaxis: Axis`` and has a ``@property`` returning a ``Legend``, ``new_canvas`` returns a local
name. Each shape resolves to the right definition with its gap on and to nothing with it off (the default),
so the default signal is unchanged. Hypothesis: the readers never raise and yield only names of the text.
"""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval import get_method
from beacon.retrieval.recipes import method_params
from beacon.retrieval.signals_real.flow import Flow, flow_scores, written
from beacon.retrieval.signals_real.flow_frames import frame_uses, source_lines
from beacon.retrieval.signals_real.flow_text import (ATTR, GAPS, HOP, ITEM, attribute_types, flow_uses, gap_set,
                                                     return_types)
from tests.repotools import write_tree

from .conftest import node

FILES = {
    "draw/__init__.py": '''\
        """Draw: a tiny plotting package."""
        from .axes import Axes
        from .figure import Figure, subplots, make_pair, new_canvas
        ''',
    "draw/figure.py": '''\
        """Figures, their canvas and axes."""
        from .axes import Axes


        class Canvas:
            def draw(self):
                return None

            def print_png(self, name):
                self.draw()
                return name


        class Figure:
            def __init__(self):
                self.canvas = None
                self.canvas = Canvas()

            def savefig(self, name):
                return self.canvas.print_png(name)


        def subplots():
            fig = Figure()
            ax = Axes()
            return fig, ax


        def make_pair() -> tuple[Figure, Axes]:
            pass


        def new_canvas():
            canvas = Canvas()
            return canvas


        class Loop:
            def __init__(self, other):
                self.me = self.me.again()
                self.other = Other().back


        class Other:
            def __init__(self):
                self.back = Loop(self).other
        ''',
    "draw/axes.py": '''\
        """Axes."""


        class Axis:
            def set_ticks(self, ticks):
                self._render(ticks)

            def _render(self, ticks):
                return ticks


        class Legend:
            def set_title(self, title):
                return title


        class Axes:
            xaxis: Axis

            @property
            def legend(self) -> Legend:
                return Legend()

            def plot(self, x):
                return x
        ''',
}

ALL = gap_set("all")


@pytest.fixture(scope="module")
def draw(tmp_path_factory) -> CodebaseGraph:
    return CodebaseGraph.from_repo(write_tree(tmp_path_factory.mktemp("draw"), FILES, dedent=True))


def _resolved(graph: CodebaseGraph, query: str, gaps=ALL) -> dict[str, list[str]]:
    return {written(u): [graph.symbols[n].id for n in nodes] for u, nodes in Flow(graph, query, gaps).resolved()}


def test_gap_set_parses_and_rejects():
    assert gap_set("") == frozenset() and gap_set("all") == frozenset(GAPS)
    assert gap_set("tuples+frames") == {"tuples", "frames"}
    with pytest.raises(ValueError, match="unknown"):
        gap_set("tuples+nope")
    with pytest.raises(ValueError, match="flow_gaps"):
        get_method("hybrid_follow", **(method_params("hybrid_follow") | {"flow_gaps": "bogus"}))


def test_the_reader_binds_tuples_and_attributes_only_when_asked():
    text = "```\nfig, ax = subplots()\na, b = Figure(), Axes()\nc = fig.canvas\nax.xaxis.set_ticks([1])\n```"
    off, on = flow_uses(text), flow_uses(text, ALL)
    assert "fig" not in off.bindings and "a" not in off.bindings
    assert on.bindings["fig"] == f"subplots{ITEM}0" and on.bindings["ax"] == f"subplots{ITEM}1"
    assert on.bindings["a"] == "Figure" and on.bindings["b"] == "Axes"
    assert on.bindings["c"] == f"subplots{ITEM}0{HOP}{ATTR}canvas"
    assert any(u.attr == "set_ticks" and u.receiver == f"subplots{ITEM}1{HOP}{ATTR}xaxis" for u in on.uses)


def test_return_and_attribute_types_read_from_source():
    src = "def f():\n    fig = Figure()\n    ax = fig.add()\n    return fig, ax\n"
    assert return_types(src, ALL, 0) == ["Figure"] and return_types(src, ALL, 1) == [f"Figure{HOP}add"]
    assert return_types(src, ALL) == [] and return_types(src, frozenset(), 0) == []  # a tuple; gap off
    assert return_types("def f() -> tuple[A, B]:\n    pass\n", ALL, 1) == ["B"]
    assert return_types("def f():\n    obj = Cls()\n    return obj\n", ALL) == ["Cls"]
    assert return_types("def f():\n    obj = Cls()\n    return obj\n") == []  # the default: a name is unknown
    cls = "class A:\n    x: Foo\n    def __init__(self, y):\n        self.y = None\n        self.y = Bar(1)\n"
    assert attribute_types(cls, "x", ALL) == ["Foo"] and attribute_types(cls, "y", ALL) == ["Bar"]
    assert attribute_types(cls + "        self.y = y\n", "y", ALL) == []  # one value unknown: nothing certain
    assert attribute_types("class A:\n    y = Field()\n", "y", ALL) == []  # a class attribute: maybe a descriptor


def test_tuple_items_resolve_through_returns_and_annotations(draw):
    query = "```\nfrom draw import *\nfig, ax = subplots()\nax.plot(1)\nfig.savefig('a.png')\n" \
            "f2, a2 = make_pair()\na2.plot(2)\nx, y = Figure(), Axes()\ny.plot(3)\n```"
    got = _resolved(draw, query)
    assert got["subplots(..)[1].plot"] == ["draw/axes.py::Axes.plot"]  # `return fig, ax`, locals bound earlier
    assert got["subplots(..)[0].savefig"] == ["draw/figure.py::Figure.savefig"]
    assert got["make_pair(..)[1].plot"] == ["draw/axes.py::Axes.plot"]  # -> tuple[Figure, Axes]
    assert got["Axes(..).plot"] == ["draw/axes.py::Axes.plot"]  # element-wise: receivers' reader never binds y
    assert not any("[" in k or k == "Axes(..).plot" for k in _resolved(draw, query, frozenset()))


def test_attributes_and_properties_are_hops(draw):
    query = "```\nfrom draw import Figure, Axes\nfig = Figure()\nfig.canvas.print_png('x')\n" \
            "ax = Axes()\nax.xaxis.set_ticks([1])\nax.legend.set_title('t')\n```"
    got = _resolved(draw, query)
    assert got["Figure(..).canvas.print_png"] == ["draw/figure.py::Canvas.print_png"]  # self.canvas = Canvas()
    assert got["Axes(..).xaxis.set_ticks"] == ["draw/axes.py::Axis.set_ticks"]  # xaxis: Axis
    assert got["Axes(..).legend.set_title"] == ["draw/axes.py::Legend.set_title"]  # a property's return
    assert not any(".canvas" in k or ".xaxis" in k for k in _resolved(draw, query, frozenset()))


def test_attributes_typed_by_themselves_give_nothing_and_end(draw):
    query = "```\nfrom draw.figure import Loop\nx = Loop(1)\nx.me.again()\nx.other.go()\n```"
    assert _resolved(draw, query) == {}


def test_a_returned_name_bound_earlier_is_typed(draw):
    query = "```\nfrom draw import new_canvas\nc = new_canvas()\nc.print_png('x')\n```"
    assert _resolved(draw, query, gap_set("names"))["new_canvas(..).print_png"] == ["draw/figure.py::Canvas.print_png"]
    assert "new_canvas(..).print_png" not in _resolved(draw, query, frozenset())


TRACEBACK = '''savefig fails

```
Traceback (most recent call last):
  File "/home/u/run.py", line 3, in <module>
    fig.savefig('a.png')
  File "/usr/lib/python3/site-packages/draw/figure.py", line 20, in savefig
    return self.canvas.print_png(name)
  File "/usr/lib/python3/site-packages/draw/figure.py", line 10, in print_png
    self.draw()
    ^^^^^^^^^^^
  File "/usr/lib/python3/site-packages/draw/axes.py", line 6, in set_ticks
    self._render(ticks)
  File "/usr/lib/python3/site-packages/draw/figure.py", line 24, in subplots
    fig = make_pair(Figure())
ValueError: boom
```
'''


def test_traceback_source_lines_resolve_on_the_frame_class(draw):
    lines = source_lines(TRACEBACK)
    assert [(f.function, line) for f, line in lines][1:] == [
        ("savefig", "return self.canvas.print_png(name)"), ("print_png", "self.draw()"),
        ("set_ticks", "self._render(ticks)"), ("subplots", "fig = make_pair(Figure())")]
    assert all(line in TRACEBACK for _, line in lines)
    got = _resolved(draw, TRACEBACK, gap_set("frames+attrs"))
    assert got["Self(..)._render"] == ["draw/axes.py::Axis._render"]  # set_ticks' class: Axis
    assert got["Self(..).draw"] == ["draw/figure.py::Canvas.draw"]  # print_png's class: Canvas
    assert got["Self(..).canvas.print_png"] == ["draw/figure.py::Canvas.print_png"]  # through self.canvas
    assert got["make_pair(..)"] == ["draw/figure.py::make_pair"] and "Figure(..)" not in got
    uses = [written(u) for u, _ in Flow(draw, TRACEBACK, gap_set("frames+attrs")).resolved()]
    assert uses.count("make_pair(..)") == 1  # the snippet reader has it already: not counted twice
    # the default: the bare call by name (the traceback is pasted code), `self` is not read
    assert _resolved(draw, TRACEBACK, frozenset()) == {"make_pair(..)": ["draw/figure.py::make_pair"]}
    assert frame_uses("no traceback here") == []


def test_the_default_scores_are_unchanged_and_gaps_add_votes(draw):
    query = "```\nfrom draw import *\nfig, ax = subplots()\nax.plot(1)\n```"
    off = flow_scores(draw, query)
    assert off.symbol[node(draw, "draw/axes.py::Axes.plot")] == 0.0
    assert flow_scores(draw, query, ALL).symbol[node(draw, "draw/axes.py::Axes.plot")] == 1.0
    assert (flow_scores(draw, query, frozenset()).symbol == off.symbol).all()


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOKENS = [*"ab(). =\n>:`[]x1'\"\\#*,", "Cls", "self", "cls", "```", ">>> ", "    ", "from a import *\n",
           "a, b = ", "x.y.z", "return ", "-> ", "tuple[", "@property\n", "def ", "class ", 'File "a/b.py", line 3, in f\n',
           "Traceback (most recent call last):\n"]


@given(st.lists(st.sampled_from(_TOKENS), max_size=120).map("".join))
@settings(max_examples=300, deadline=None)
def test_the_gap_readers_never_raise_and_yield_only_names_of_the_text(text):
    words = set(_IDENT.findall(text))

    def parts(use):
        steps = [p for chain in use.receiver.split(HOP) for p in chain.partition(ITEM)[0].split(".") if p]
        return steps + ([use.attr] if use.attr else [])

    for use in flow_uses(text, ALL).uses:
        assert all(p in words for p in parts(use)), (use, text)
    for _, uses in frame_uses(text, ALL):
        assert all(p in words | {"Self"} for use in uses for p in parts(use)), text
    for _, line in source_lines(text):
        assert line in text
    for item in (None, 0, 1):
        for chain in return_types(f"def f(self):\n    {text}\n", ALL, item):
            assert chain.split(HOP)[0].partition(ITEM)[0].split(".")[0] in words | {"Self"}
    for chain in attribute_types(f"class A:\n    {text}\n", "x", ALL):
        assert chain.split(HOP)[0].partition(ITEM)[0].split(".")[0] in words | {"Self"}


@given(st.text(max_size=400))
@settings(max_examples=200, deadline=None)
def test_any_text_reads_without_raising(text):
    flow_uses(text, ALL)
    frame_uses(text, ALL)
    attribute_types(text, "x", ALL)
    return_types(text, ALL, 0)
