"""``Snippet`` (one selected span of source) and ``Context`` (what a model sees)."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from ..graph.codebase import CodebaseGraph
from ..graph.symbols import Symbol
from ..tokens import count_tokens


@dataclass(frozen=True, slots=True)
class Snippet:
    """Whole source lines ``start_line..end_line`` (1-based, inclusive) of one symbol."""

    symbol_id: str
    path: str
    qualname: str
    kind: str
    start_line: int
    end_line: int
    text: str
    file_sha256: str  # SHA-256 of the file's indexed text

    @classmethod
    def of(cls, graph: CodebaseGraph, symbol: Symbol) -> Snippet:
        return cls(
            symbol_id=symbol.id,
            path=symbol.path,
            qualname=symbol.qualname,
            kind=symbol.kind,
            start_line=symbol.start_line,
            end_line=symbol.end_line,
            text=graph.source(symbol),
            file_sha256=graph.files[symbol.path].text_sha256,
        )

    def covers(self, other: Snippet) -> bool:
        return (
            self.path == other.path
            and self.start_line <= other.start_line
            and other.end_line <= self.end_line
        )


@dataclass(frozen=True)
class Context:
    """Selected snippets in order, rendered with one renderer under a budget.

    ``total_tokens`` is the cl100k_base count of exactly ``render()``:
    headers, separators and line numbers included. A packer that already
    knows it exactly (the sum of token-aligned block counts, see ``render``)
    passes it as ``known_tokens``, so the whole context is not tokenised a
    second time; otherwise it is counted from ``render()`` on first use.
    """

    snippets: tuple[Snippet, ...]
    renderer: str = "default"
    budget: int | None = None
    notes: tuple[str, ...] = field(default=())
    known_tokens: int | None = field(default=None, compare=False, repr=False)

    def render(self) -> str:
        from .render import render_snippets

        return render_snippets(self.renderer, self.snippets)

    @cached_property
    def total_tokens(self) -> int:
        return count_tokens(self.render()) if self.known_tokens is None else self.known_tokens

    @property
    def symbol_ids(self) -> list[str]:
        return [s.symbol_id for s in self.snippets]

    def __len__(self) -> int:
        return len(self.snippets)
