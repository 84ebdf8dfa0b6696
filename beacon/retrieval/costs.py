"""Exact marginal token costs of growing a selection, for any renderer.

The rendered context is cut into *sections* whose token counts add up exactly:

* per-snippet renderers: every block is token-aligned (``context.render``), so
  a file's section is the sum of its blocks' ``block_cost``;
* ``breadcrumbs``: each file section is token-aligned, and so is each chunk
  of it (header, breadcrumb line, marker, snippet body; see
  ``context.breadcrumbs.is_aligned``); a section is counted as the sum of its
  chunks (memoised by text on the graph, so a body is tokenised once), or as
  a whole when some chunk is not aligned;
* any other whole-context renderer: one section, the whole render.

The marginal cost ``c(v)`` of adding a node is the new section count minus the
old one, with the same overlap rule as ``context.pack``: a node inside a
selected snippet is already shown (no cost, not added), and a node containing
selected snippets replaces them. Since sections add up, the sum of marginal
costs paid is exactly ``count_tokens(context.render())``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..context.breadcrumbs import is_aligned, section_chunks
from ..context.pack import block_cost, snippet_for
from ..context.render import get_renderer, is_context_renderer, render_snippets
from ..context.snippet import Context
from ..graph.codebase import CodebaseGraph
from ..tokens import count_tokens
from .indexes import indexes_for

_WHOLE = "*"


@dataclass
class Selection:
    """A growing selection with exact section token counts under one renderer."""

    graph: CodebaseGraph
    renderer: str = "default"
    chosen: list[int] = field(default_factory=list)
    used: int = 0
    _sections: dict[str, list[int]] = field(default_factory=dict)
    _section_tokens: dict[str, int] = field(default_factory=dict)
    _memo: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._mode = ("breadcrumbs" if self.renderer == "breadcrumbs"
                      else "whole" if is_context_renderer(self.renderer) else "blocks")
        if self._mode == "blocks":
            get_renderer(self.renderer)  # an unknown renderer fails before any work

    def key(self, node: int) -> str:
        """The section a node's text lands in (its file, or the whole context)."""
        return _WHOLE if self._mode == "whole" else self.graph.symbols[node].path

    def _tokens(self, key: str, nodes: list[int]) -> int:
        if self._mode == "blocks":
            return sum(block_cost(self.graph, n, self.renderer) for n in nodes)
        memo_key = (key, tuple(nodes)) if self._mode == "whole" else (key, frozenset(nodes))
        found = self._memo.get(memo_key)
        if found is None:
            snippets = [snippet_for(self.graph, n) for n in nodes]
            if not nodes:
                found = 0
            elif self._mode == "whole":
                found = count_tokens(render_snippets(self.renderer, snippets))
            else:
                chunks = section_chunks(key, snippets)
                if all(is_aligned(c) for c in chunks):  # each chunk is tokenised once, then looked up
                    found = sum(self._chunk_tokens(c) for c in chunks)
                else:
                    found = count_tokens("".join(chunks))
            self._memo[memo_key] = found
        return found

    def _chunk_tokens(self, chunk: str) -> int:
        # Memoised on the graph: chunks are snippet bodies (text the graph holds
        # anyway) and short breadcrumb lines, so queries share their counts.
        memo = indexes_for(self.graph).chunk_tokens
        found = memo.get(chunk)
        if found is None:
            found = memo[chunk] = count_tokens(chunk)
        return found

    def shown(self, node: int) -> bool:
        """Is ``node`` selected or inside a selected snippet?"""
        sym = self.graph.symbols[node]
        return any(self.graph.symbols[c].contains(sym) for c in self._same_file(node))

    def _same_file(self, node: int) -> list[int]:
        path = self.graph.symbols[node].path
        return [c for c in self._sections.get(self.key(node), []) if self.graph.symbols[c].path == path]

    def marginal(self, node: int) -> int | None:
        """Exact token cost of adding ``node`` now; ``None`` if it is already shown."""
        if self.shown(node):
            return None
        key = self.key(node)
        current = self._sections.get(key, [])
        if self._mode == "blocks":  # additive blocks: the node's block minus the blocks it replaces
            sym = self.graph.symbols[node]
            return block_cost(self.graph, node, self.renderer) - sum(
                block_cost(self.graph, c, self.renderer) for c in current if sym.contains(self.graph.symbols[c]))
        return self._tokens(key, self._after(node, current)) - self._section_tokens.get(key, 0)

    def _after(self, node: int, current: list[int]) -> list[int]:
        sym = self.graph.symbols[node]
        return [c for c in current if not sym.contains(self.graph.symbols[c])] + [node]

    def add(self, node: int) -> int:
        """Select ``node`` (replacing selected snippets inside it); returns the tokens paid."""
        cost = self.marginal(node)
        if cost is None:
            return 0
        key = self.key(node)
        new = self._after(node, self._sections.get(key, []))
        dropped = set(self._sections.get(key, [])) - set(new)
        self.chosen = [c for c in self.chosen if c not in dropped] + [node]
        self._sections[key] = new
        self._section_tokens[key] = self._section_tokens.get(key, 0) + cost
        self.used += cost
        return cost

    def context(self, budget: int, notes: tuple[str, ...] = ()) -> Context:
        # per-snippet blocks are token-aligned: ``used`` is the exact count, so the context is not tokenised again
        known = self.used if self._mode == "blocks" else None
        return Context(tuple(snippet_for(self.graph, c) for c in self.chosen), self.renderer, budget, notes,
                       known_tokens=known)
