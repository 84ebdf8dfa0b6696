"""Renderers and packing: exact counts, token-aligned blocks, no double payment."""
from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import given, settings, strategies as st

from beacon.context import Context, Snippet, block_cost, pack, renderer_names
from beacon.context.render import get_renderer
from beacon.graph import CodebaseGraph
from beacon.tokens import count_tokens

PER_SNIPPET = ["default", "compact", "line_span_contract"]

snippet_texts = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=200
)


@st.composite
def snippets(draw):
    text = draw(snippet_texts)
    start = draw(st.integers(1, 500))
    return Snippet(
        symbol_id=f"a.py::f{start}", path=draw(st.sampled_from(["a.py", "pkg/b c.py", "ü.py"])),
        qualname=draw(st.sampled_from(["f", "C.m", "<module>"])), kind="function",
        start_line=start, end_line=start + text.count("\n"), text=text,
        file_sha256=hashlib.sha256(text.encode()).hexdigest(),
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(snippets(), max_size=6), st.sampled_from(PER_SNIPPET))
def test_blocks_are_token_aligned(items, renderer):
    """Counting blocks separately equals counting the rendered context: the packer's premise."""
    render_one = get_renderer(renderer)
    blocks = [render_one(s) for s in items]
    for block in blocks:
        assert block[:1] and not block[0].isspace() and block.endswith("\n")
    context = Context(tuple(items), renderer)
    assert context.render() == "".join(blocks)
    assert context.total_tokens == sum(count_tokens(b) for b in blocks)


def write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return CodebaseGraph.from_repo(root)


@pytest.fixture
def graph(tmp_path):
    return write(tmp_path, {
        "m.py": "import os\n\n\ndef outer(x):\n    def inner(y):\n        return y + 1\n    return inner(x)\n\n\nclass C:\n    def meth(self):\n        return outer(1)\n",
    })


def node(graph, qualname):
    return graph.index[f"m.py::{qualname}"]


def test_container_replaces_contained_and_pays_only_the_difference(graph):
    inner, outer = node(graph, "outer.inner"), node(graph, "outer")
    ctx = pack(graph, [inner, outer], budget=10_000)
    assert ctx.symbol_ids == ["m.py::outer"]
    assert ctx.total_tokens == block_cost(graph, outer, "default")


def test_contained_after_container_is_free(graph):
    module, meth = node(graph, "<module>"), node(graph, "C.meth")
    ctx = pack(graph, [module, meth], budget=10_000)
    assert ctx.symbol_ids == ["m.py::<module>"]
    assert ctx.total_tokens == block_cost(graph, module, "default")


def test_skips_what_does_not_fit_and_keeps_going(graph):
    module, meth = node(graph, "<module>"), node(graph, "C.meth")
    budget = block_cost(graph, meth, "default")
    ctx = pack(graph, [module, meth], budget=budget)
    assert ctx.symbol_ids == ["m.py::C.meth"] and ctx.total_tokens == budget


def test_budget_zero_and_negative(graph):
    assert pack(graph, [node(graph, "outer")], budget=0).snippets == ()
    with pytest.raises(ValueError, match="budget"):
        pack(graph, [], budget=-1)


def test_unknown_renderer_lists_known(graph):
    with pytest.raises(KeyError, match="default"):
        pack(graph, [0], budget=100, renderer="nope")


def test_default_header_and_body(graph):
    meth = graph.symbols[node(graph, "C.meth")]
    text = get_renderer("default")(Snippet.of(graph, meth))
    assert text == "### m.py:11-12 C.meth\n    def meth(self):\n        return outer(1)\n\n"


def test_compact_header_recovers_the_source_from_the_index(graph):
    for sym in graph.symbols:
        block = get_renderer("compact")(Snippet.of(graph, sym))
        header, body = block.split("\n", 1)
        path, line = re.fullmatch(r"# (.+):(\d+)", header).groups()
        # path + first line identify the node; its source is the block body
        matches = [s for s in graph.symbols if s.path == path and s.start_line == int(line)]
        assert any(graph.source(s) == body for s in matches)


def test_line_span_contract_numbers_every_line_and_pins_the_text(graph):
    outer = graph.symbols[node(graph, "outer")]
    block = get_renderer("line_span_contract")(Snippet.of(graph, outer))
    lines = block.splitlines()
    sha = hashlib.sha256(graph.files["m.py"].text.encode()).hexdigest()
    assert lines[0] == f"### m.py lines 4-7 outer sha256={sha}"
    assert lines[1:5] == ["4| def outer(x):", "5|     def inner(y):", "6|         return y + 1", "7|     return inner(x)"]


def test_renderer_registry_names():
    assert set(PER_SNIPPET) <= set(renderer_names())
