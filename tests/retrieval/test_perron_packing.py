"""Perron's packing: frontier budgets, exact marginal costs and the breadcrumbs renderer."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from beacon.context import Context, snippet_for
from beacon.context import render as render_module
from beacon.context.breadcrumbs import MARKER, is_aligned, section_chunks, section_for
from beacon.graph import CodebaseGraph
from beacon.retrieval import get_method
from beacon.retrieval.costs import Selection
from beacon.retrieval.frontier import FixedCosts, frontier_pack
from beacon.tokens import count_tokens

SHAPES = (
    "import math\n\n\n"
    "class Shape:\n"
    '    """A plane figure."""\n\n'
    "    def area(self):\n        raise NotImplementedError\n\n"
    "    def describe(self):\n        return f'{type(self).__name__} of area {self.area()}'\n\n\n"
    "class Circle(Shape):\n"
    "    def __init__(self, r):\n        self.r = r\n\n"
    "    def area(self):\n        return math.pi * self.r ** 2\n\n"
    "    def scale(self, k):\n        return Circle(self.r * k)\n\n"
    "    @property\n"
    "    def diameter(self):\n        return 2 * self.r\n\n\n"
    "def total_area(shapes):\n"
    "    def one(s):\n        return s.area()\n"
    "    return sum(one(s) for s in shapes)\n"
)
FILES = {
    "geo/__init__.py": "",
    "geo/shapes.py": SHAPES,
    "geo/report.py": (
        "from geo.shapes import Circle, total_area\n\n\n"
        "def circle_report(radii):\n    circles = [Circle(r) for r in radii]\n    return summary(total_area(circles))\n\n\n"
        "def summary(value):\n    return f'total area: {value:.2f}'\n"
    ),
    "tests/test_geo.py": "from geo.report import circle_report\n\n\ndef test_report():\n    assert circle_report([1])\n",
}


@pytest.fixture(scope="module")
def graph(graph_of):
    return graph_of(FILES, "geo")


def snip(graph, qualname, path="geo/shapes.py"):
    return snippet_for(graph, graph.index[f"{path}::{qualname}"])


# -- breadcrumbs ----------------------------------------------------------------

def test_method_appears_under_its_class_line_with_marker_and_indentation(graph):
    text = Context((snip(graph, "Circle.area"),), "breadcrumbs").render()
    assert text == (
        "### geo/shapes.py\n"
        "class Circle:\n"
        f"    {MARKER}\n"
        "    def area(self):\n"
        "        return math.pi * self.r ** 2\n"
        "\n"
    )


def test_siblings_share_the_class_line_and_files_keep_first_appearance_order(graph):
    picked = [snip(graph, "summary", "geo/report.py"), snip(graph, "Circle.scale"), snip(graph, "Circle.__init__"),
              snip(graph, "Circle.diameter"), snip(graph, "total_area.one"), snip(graph, "Circle.scale")]
    text = Context(tuple(picked), "breadcrumbs").render()
    assert text.index("### geo/report.py") < text.index("### geo/shapes.py")
    assert text.count("class Circle:") == 1 and text.count("### geo/shapes.py") == 1
    body = text.split("### geo/shapes.py\n", 1)[1]
    assert body.index("def __init__") < body.index("def scale") < body.index("@property")  # source order
    assert "def total_area(...):\n    ...\n    def one(s):\n        return s.area()\n" in body
    assert text.count("def scale") == 1  # duplicates shown once


def test_covered_snippets_are_shown_once(graph):
    whole = Context((snip(graph, "Circle"), snip(graph, "Circle.area")), "breadcrumbs").render()
    assert whole == "### geo/shapes.py\n" + snip(graph, "Circle").text + "\n"


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_breadcrumbs_count_is_the_sum_of_file_sections(graph, data):
    """The premise of exact marginal costs: file sections are token-aligned."""
    nodes = data.draw(st.lists(st.sampled_from(range(len(graph.symbols))), max_size=8))
    snippets = [snippet_for(graph, n) for n in nodes]
    ctx = Context(tuple(snippets), "breadcrumbs")
    by_path: dict[str, list] = {}
    for s in snippets:
        by_path.setdefault(s.path, []).append(s)
    sections = [section_for(p, group) for p, group in by_path.items()]
    assert ctx.render() == "".join(sections)
    assert ctx.total_tokens == sum(count_tokens(s) for s in sections)
    for path, group in by_path.items():
        chunks = section_chunks(path, group)
        assert chunks[0].startswith("### ") and all(c.endswith("\n") for c in chunks)
        if all(is_aligned(c) for c in chunks):
            assert sum(count_tokens(c) for c in chunks) == count_tokens("".join(chunks))


_PIECES = st.sampled_from(list(" \t\n\r\x0b\x0c\x85\u2028\u3000ab_Z09():.'\"#@=+-*/ü漢😀")
                         + ["    ", "\n\n", "'s", "  \n", "def ", "return "])
_TEXT = st.lists(_PIECES, max_size=25).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEXT, _TEXT)
def test_aligned_chunks_share_no_token_with_what_precedes_them(before, chunk):
    """The premise of counting breadcrumb sections chunk by chunk."""
    before += "\n"
    if is_aligned(chunk):
        assert count_tokens(before + chunk) == count_tokens(before) + count_tokens(chunk)


# -- exact marginal costs -----------------------------------------------------------

@pytest.mark.parametrize("renderer", ["default", "compact", "breadcrumbs", "whole"])
def test_marginal_costs_add_up_to_the_render(graph, renderer, monkeypatch):
    if renderer == "whole":  # any other whole-context renderer: counted as one section
        monkeypatch.setitem(render_module._CONTEXT_RENDERERS, "whole",
                            lambda snippets: "".join(f"<{s.qualname}>\n{s.text}" for s in snippets))
    selection = Selection(graph, renderer)
    order = ["geo/shapes.py::Circle.area", "geo/report.py::summary", "geo/shapes.py::Circle.scale",
             "geo/shapes.py::Circle", "geo/shapes.py::Circle.area", "geo/shapes.py::total_area.one",
             "geo/shapes.py::total_area"]
    for sid in order:
        node = graph.index[sid]
        before = selection.marginal(node)
        paid = selection.add(node)
        assert paid == (before or 0)
        assert count_tokens(selection.context(10**6).render()) == selection.used
    assert "geo/shapes.py::Circle.area" not in selection.context(10**6).symbol_ids  # inside Circle
    assert "geo/shapes.py::total_area.one" not in selection.context(10**6).symbol_ids


# -- frontier ------------------------------------------------------------------------

@st.composite
def frontier_cases(draw):
    n = draw(st.integers(1, 30))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    rows = [a for a, b in pairs] + [b for a, b in pairs]
    cols = [b for a, b in pairs] + [a for a, b in pairs]
    adjacency = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    adjacency.data[:] = 1.0
    spec = np.array(draw(st.lists(st.floats(0, 5), min_size=n, max_size=n)))
    costs = np.array(draw(st.lists(st.integers(1, 60), min_size=n, max_size=n)))
    pool = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    return adjacency, spec, costs, np.array(pool, dtype=np.int64)


@settings(max_examples=150, deadline=None)
@given(frontier_cases(), st.integers(0, 400), st.sampled_from([0.0, 1.0, 3.0]))
def test_frontier_never_exceeds_the_budget_and_is_deterministic(case, budget, mu):
    adjacency, spec, costs, pool = case
    runs = []
    for _ in range(2):
        chosen = FixedCosts(costs)
        stats = frontier_pack(spec, pool, adjacency, chosen, budget, mu=mu)
        assert chosen.used == sum(int(costs[c]) for c in chosen.chosen) <= budget
        assert all(s <= a for s, a in zip(stats.spent, stats.allowances))
        assert set(chosen.chosen) <= set(pool.tolist()) and len(set(chosen.chosen)) == len(chosen.chosen)
        runs.append(chosen.chosen)
    assert runs[0] == runs[1]


def test_components_get_floor_shares_and_unused_budget_flows_on():
    # components {0, 1} (Spec 3) and {2} (Spec 1); node 2 costs more than its share
    adjacency = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=float))
    spec = np.array([2.0, 1.0, 1.0])
    chosen = FixedCosts(np.array([10, 10, 30]))
    stats = frontier_pack(spec, np.array([0, 1, 2]), adjacency, chosen, 41)
    assert stats.components == 2
    assert stats.allowances == [30, 10 + 10]  # ⌊41·3/4⌋ = 30; ⌊41/4⌋ = 10 plus the 10 left over
    assert chosen.chosen == [0, 1] and chosen.used == 20  # node 2 (30 tokens) still does not fit
    carried = FixedCosts(np.array([10, 25, 30]))
    stats = frontier_pack(spec, np.array([0, 1, 2]), adjacency, carried, 80)
    assert stats.allowances == [60, 20 + 25]  # without the 25 carried over, node 2 would not fit in 20
    assert carried.chosen == [0, 1, 2] and carried.used == 65


def test_anchor_first_then_cohesion_breaks_near_ties():
    # 0 (anchor) - 1 - 2 and 0 - 3, 3 - 4, 3 - 5: after 0 and 1, node 2 has all its edges in S,
    # node 3 only a third of them, so 2 wins despite a lower Spec when mu is large.
    edges = [(0, 1), (1, 2), (0, 3), (3, 4), (3, 5)]
    rows = [a for a, b in edges] + [b for a, b in edges]
    cols = [b for a, b in edges] + [a for a, b in edges]
    adjacency = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(6, 6))
    spec = np.array([5.0, 2.0, 1.0, 1.2, 0.1, 0.1])
    costs = np.full(6, 10)
    for mu, expected in ((0.0, [0, 1, 3]), (2.0, [0, 1, 2])):
        chosen = FixedCosts(costs)
        frontier_pack(spec, np.arange(6), adjacency, chosen, 30, mu=mu)
        assert chosen.chosen == expected, mu


@settings(max_examples=25, deadline=None)
@given(budget=st.integers(0, 1500), renderer=st.sampled_from(["default", "breadcrumbs", "line_span_contract"]),
       name=st.sampled_from(["perron", "perron_no_specificity"]))
def test_frontier_method_fits_every_budget_exactly(graph, budget, renderer, name):
    result = get_method(name, renderer=renderer).retrieve(graph, "circle area report scale", budget)
    ctx = result.context
    assert count_tokens(ctx.render()) == ctx.total_tokens <= budget
    assert not any(graph.symbol(sid).is_test for sid in ctx.symbol_ids)


def test_a_section_with_an_unaligned_chunk_is_counted_whole(tmp_path):
    (tmp_path / "blank.py").write_text("\n\n# leading blank lines\ndef f():\n    return 1\n")
    g = CodebaseGraph.from_repo(tmp_path)
    module = g.index["blank.py::<module>"]
    assert not all(is_aligned(c) for c in section_chunks("blank.py", [snippet_for(g, module)]))
    selection = Selection(g, "breadcrumbs")
    selection.add(g.index["blank.py::f"])
    selection.add(module)  # replaces f, which it contains
    ctx = selection.context(10**6)
    assert ctx.symbol_ids == ["blank.py::<module>"]
    assert count_tokens(ctx.render()) == selection.used
