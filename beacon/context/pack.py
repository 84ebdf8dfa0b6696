"""Budget packing: ranked symbols -> a ``Context`` whose exact size fits the budget.

``pack`` walks candidates in rank order and includes each one whose rendered
block still fits (ordered, budget-constrained inclusion). A candidate inside
an already selected snippet costs nothing and is skipped; a candidate that
contains selected snippets replaces them (at the best-ranked one's place) and
pays only the difference, so overlapping selections are never paid for twice.

Block costs are exact cl100k_base counts, memoised per graph and renderer.
Because blocks are token-aligned (see ``render``), the context's size is the
sum of its blocks, and the packer hands that sum to the ``Context`` rather
than tokenising the whole rendered string again (a property test checks the
two agree). With a whole-context renderer the rendered candidate is counted
whole, and the final context is recounted against the budget.

The walk stops when nothing more can fit or after ``patience`` consecutive
candidates that did not fit, which bounds work on large repositories.
"""
from __future__ import annotations

from typing import Iterable

from ..graph.codebase import CodebaseGraph
from ..tokens import count_tokens
from .render import get_renderer, is_context_renderer, render_snippets
from .snippet import Context, Snippet

DEFAULT_PATIENCE = 64
_MIN_BLOCK_TOKENS = 4  # no rendered block is smaller than its header


def snippet_for(graph: CodebaseGraph, node: int) -> Snippet:
    key = ("_snippet", node)
    found = graph.cache.get(key)
    if found is None:
        found = graph.cache[key] = Snippet.of(graph, graph.symbols[node])
    return found


def block_cost(graph: CodebaseGraph, node: int, renderer: str) -> int:
    """Exact token count of ``node``'s rendered block (memoised on the graph)."""
    key = ("_cost", renderer, node)
    found = graph.cache.get(key)
    if found is None:
        found = graph.cache[key] = count_tokens(get_renderer(renderer)(snippet_for(graph, node)))
    return found


def pack(
    graph: CodebaseGraph,
    ranked: Iterable[int],
    budget: int,
    renderer: str = "default",
    *,
    patience: int = DEFAULT_PATIENCE,
    notes: tuple[str, ...] = (),
) -> Context:
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    whole = is_context_renderer(renderer)
    if not whole:
        get_renderer(renderer)  # unknown renderer -> clear error before any work
    chosen: list[int] = []
    by_path: dict[str, list[int]] = {}
    used = 0
    misses = 0
    symbols = graph.symbols
    for node in ranked:
        if budget - used < _MIN_BLOCK_TOKENS or misses >= patience:
            break
        sym = symbols[node]
        same_file = by_path.get(sym.path, [])
        if any(symbols[c].contains(sym) for c in same_file):
            continue  # already shown inside a selected snippet
        inner = [c for c in same_file if sym.contains(symbols[c])]
        if whole:  # blocks are not independent: count the whole candidate context
            trial = [snippet_for(graph, c) for c in chosen if c not in inner] + [snippet_for(graph, node)]
            delta = count_tokens(render_snippets(renderer, trial)) - used
        else:
            delta = block_cost(graph, node, renderer) - sum(block_cost(graph, c, renderer) for c in inner)
        if used + delta > budget:
            misses += 1
            continue
        misses = 0
        # A container takes the place of the best-ranked snippet it replaces.
        position = min((chosen.index(c) for c in inner), default=len(chosen))
        for c in inner:
            chosen.remove(c)
            same_file.remove(c)
        chosen.insert(position, node)
        by_path.setdefault(sym.path, same_file).append(node)
        used += delta
    if not whole:
        # Blocks are token-aligned, so ``used`` (a sum of exact block counts) is
        # the exact count of the rendered context: no need to tokenise it again.
        return Context(tuple(snippet_for(graph, c) for c in chosen), renderer, budget, notes, known_tokens=used)
    context = Context(tuple(snippet_for(graph, c) for c in chosen), renderer, budget, notes)
    while context.total_tokens > budget:  # guard: the trial renders' order may differ from the final one
        chosen.pop()
        context = Context(tuple(snippet_for(graph, c) for c in chosen), renderer, budget, notes)
    return context
