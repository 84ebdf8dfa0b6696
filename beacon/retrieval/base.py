"""The ``Method`` contract and ``assemble_context``.

A method ranks candidate symbols for a query (the ranking is kept: Acc@k and
MRR need it) and packs them under a token budget into a ``Context``. Test
symbols are not candidates unless a method is configured with
``include_tests=True``.

Besides the graph and the query, a method may need repository history
(``beacon.repo.history.RepoInputs``: file history, line history, change
log). It says which in ``needs()``; the runner reads exactly those and passes
them as ``inputs``. A method asked to rank without an input it needs raises
``MissingInputError`` naming the input: never a silent fallback.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ..context.pack import pack
from ..context.snippet import Context
from ..graph.codebase import CodebaseGraph
from ..repo.history import NO_INPUTS, RepoInputs
from .indexes import indexes_for


@dataclass(frozen=True)
class RetrievalResult:
    context: Context
    ranking: list[tuple[str, float]]  # (symbol id, score), best first
    method: str
    budget: int


class MissingInputError(ValueError):
    """A method needs a history input (``RepoInputs`` field) that the caller did not read and pass."""


def require(inputs: RepoInputs, name: str, method: str):
    """``inputs.<name>``, or ``MissingInputError`` naming the input and who reads it."""
    found = getattr(inputs, name)
    if found is None:
        raise MissingInputError(f"retrieval method {method!r} needs the input {name!r} (repository history, read "
                                f"by beacon.repo.history.read_inputs from the method's needs()), but it was not "
                                f"given")
    return found


class Method(Protocol):
    name: str
    renderer: str

    def needs(self) -> frozenset[str]: ...

    def rank(self, graph: CodebaseGraph, query: str, inputs: RepoInputs = NO_INPUTS) -> list[tuple[int, float]]: ...

    def select(self, graph: CodebaseGraph, query: str, budget: int, inputs: RepoInputs = NO_INPUTS) -> Context: ...


@dataclass
class RankThenPack:
    """Base for methods that rank symbols, then pack them in rank order."""

    name: str
    renderer: str = "default"
    include_tests: bool = False
    notes: tuple[str, ...] = field(default=())

    def needs(self) -> frozenset[str]:
        """The ``RepoInputs`` fields this configuration reads (none by default)."""
        return frozenset()

    def rank(self, graph: CodebaseGraph, query: str, inputs: RepoInputs = NO_INPUTS) -> list[tuple[int, float]]:
        raise NotImplementedError

    def eligible(self, graph: CodebaseGraph, node: int) -> bool:
        return self.include_tests or not graph.symbols[node].is_test

    def order_for_packing(self, graph: CodebaseGraph, query: str,
                          ranking: list[tuple[int, float]]) -> list[int]:
        return [node for node, _ in ranking]

    def ranked_context(self, graph: CodebaseGraph, query: str, budget: int,
                       inputs: RepoInputs = NO_INPUTS) -> tuple[Context, list[tuple[int, float]]]:
        """The packed context and the ranking (node, score) it came from; subclasses pack their own way."""
        ranking = self.rank(graph, query, inputs) if budget >= 0 else []
        order = self.order_for_packing(graph, query, ranking)
        return pack(graph, order, budget, self.renderer, notes=self.notes), ranking

    def select(self, graph: CodebaseGraph, query: str, budget: int, inputs: RepoInputs = NO_INPUTS) -> Context:
        # the context alone: no symbol ids for the whole ranking
        return self.ranked_context(graph, query, budget, inputs)[0]

    def retrieve(self, graph: CodebaseGraph, query: str, budget: int,
                 inputs: RepoInputs = NO_INPUTS) -> RetrievalResult:
        context, ranking = self.ranked_context(graph, query, budget, inputs)
        return RetrievalResult(context, ranking_ids(graph, ranking), self.name, budget)


def ranking_ids(graph: CodebaseGraph, ranking: list[tuple[int, float]]) -> list[tuple[str, float]]:
    """``ranking`` with symbol ids for nodes and plain floats for scores (one array lookup, not one per node)."""
    if not ranking:
        return []
    nodes, scores = zip(*ranking)
    ids = symbol_ids(graph)[np.asarray(nodes, dtype=np.int64)].tolist()
    return list(zip(ids, np.asarray(scores, dtype=np.float64).tolist()))


def symbol_ids(graph: CodebaseGraph) -> np.ndarray:
    """Every symbol's id as an object array (built once per graph, ``GraphIndexes.symbol_ids``)."""
    ix = indexes_for(graph)
    if ix.symbol_ids is None:
        ix.symbol_ids = np.array([s.id for s in graph.symbols], dtype=object)
    return ix.symbol_ids


def assemble_context(graph: CodebaseGraph, query: str, method: str | Method, *,
                     budget: int, renderer: str | None = None, inputs: RepoInputs = NO_INPUTS,
                     **params: object) -> RetrievalResult:
    """Select context for ``query`` with ``method`` (a name or an instance) under ``budget``.

    ``inputs``: the repository history the method ``needs()`` (none for most methods)."""
    from .registry import get_method

    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise ValueError(f"budget must be a non-negative integer, got {budget!r}")
    if isinstance(method, str):
        if renderer is not None:
            params["renderer"] = renderer
        method = get_method(method, **params)
    elif renderer is not None or params:
        raise ValueError("renderer/params apply to a method given by name; configure the instance instead")
    if hasattr(method, "retrieve"):
        return method.retrieve(graph, query, budget, inputs)
    context = method.select(graph, query, budget, inputs)
    ranking = [(graph.symbols[n].id, float(s)) for n, s in method.rank(graph, query, inputs)]
    return RetrievalResult(context, ranking, method.name, budget)
