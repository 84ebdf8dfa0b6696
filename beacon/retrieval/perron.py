"""Perron: query-directed diffusion with specificity hub damping and budgeted frontier packing.

1. ``transition``: the static walk matrix ``T`` over call edges (both ways).
2. ``diffusion.softmax_prior``: a teleport prior from BM25 or hashed-vector
   similarities (top-k, temperature τ).
3. ``diffusion.personalized_pagerank``: ``π_query`` by sparse power
   iteration, or (``solver="push"``) ``push.warm_pagerank``: forward push,
   then Anderson-extrapolated walk steps from the push's estimate.
4. ``diffusion.specificity``: ``Spec = π_query / (π_global + ε)^γ`` damps
   nodes that every walk reaches (logging helpers, ``__init__``s, utilities).
5. ``frontier.frontier_pack``: the top ``pool`` candidates by ``Spec``,
   packed component by component with a best-first frontier and exact costs.

Test symbols carry the walk (they are in ``T`` and may hold prior mass: a
test that names a function points at it) but are never packed. Module nodes
are in the walk too, but are not packing candidates: a module's snippet is its
whole file, which overlaps every other candidate in it and rarely earns its
tokens (as in BCA).

Registered names: ``perron`` (everything), ``ppr`` (plain π_query ranking
packed in rank order), ``perron_no_specificity`` (frontier packing on
π_query) and ``perron_no_frontier`` (Spec ranking packed in rank order);
``perron_push`` and ``ppr_push`` are ``perron``/``ppr`` with the push solver.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..context.pack import pack
from ..context.snippet import Context
from ..graph.codebase import CodebaseGraph
from ..repo.history import NO_INPUTS, RepoInputs
from .base import RankThenPack
from .costs import Selection
from .diffusion import (Diffusion, global_rank_for, personalized_pagerank, softmax_prior, specificity,
                        specificity_for)
from .anderson import PRECISIONS
from .push import warm_pagerank
from .rowsplit import resolve_threads
from .frontier import frontier_pack
from .hashed import hashed_similarity
from .indexes import indexes_for
from .lexical import bm25_scores
from .masks import packable
from .normalise import best_first, best_first_lazily, top_k
from .transition import EdgeWeights, transition_for

SIMILARITIES = ("bm25", "hashed")
SOLVERS = ("push", "power")


@dataclass(frozen=True)
class PerronScores:
    """Everything one query's diffusion produced, for ranking and diagnostics."""

    pi_query: np.ndarray
    pi_global: np.ndarray | None  # None when specificity is off
    score: np.ndarray  # Spec, or π_query without specificity
    diffusion: Diffusion


def walk_adjacency(graph: CodebaseGraph, weights: EdgeWeights) -> sp.csr_matrix:
    """Undirected pattern of the walk graph (``W + Wᵀ``), memoised on the graph."""
    adjacency = indexes_for(graph).walk_adjacency
    found = adjacency.get(weights)
    if found is None:
        t = transition_for(graph, weights).matrix
        found = sp.csr_matrix((t + t.T) != 0, dtype=np.float64)
        found.sort_indices()
        adjacency[weights] = found
    return found


@dataclass
class Perron(RankThenPack):
    """Perron and its ablations (``use_specificity``, ``use_frontier``).

    Defaults fixed by the design: β = 0.85, γ = 0.7, ε = 1e-8, τ = 0.05.
    Chosen here: ``top_k = 50`` prior candidates; ``λ_call = 1`` and
    ``λ_caller = 0.5`` (a callee explains its caller more often than the
    reverse), inheritance and imports off; ``tol = 1e-4`` in L1, which bounds
    ``‖π − π*‖₁`` by β·tol/(1 − β) ≈ 6e-4, far below the π of the candidates
    that get packed, in about two thirds of the iterations 1e-6 takes; ``prune = 0``
    (the exact iteration). ``solver = "power"``: ``"push"`` (forward push to
    ``push_eps``, then Anderson-extrapolated steps from ``p + ‖r‖₁·π_global``,
    the first without a mat-vec and each extrapolation tested without one, to
    the same L1 ``tol`` and bound; ``precision = "float32"`` runs those steps
    in float32 and adds its rounding allowance to the bound; with
    ``tol = 1e-2``, ``push_eps = 2e-6`` and float32, 2 mat-vecs and ~0.2× the time on the
    100k-node benchmark graph) is opt-in through the ``perron_push``/``ppr_push`` recipes, because
    grid runs name methods without parameters, so the defaults are what
    archived runs (the Boltons pilot) reproduce with;
    ``threads = "auto"`` (``rowsplit.auto_threads``: 1 inside a job with
    sibling jobs on the same cores, else up to 2) splits the push solver's
    float32 mat-vecs over threads without changing a byte of the result;
    ``mu = 1`` (a node whose neighbours are all
    selected counts double); ``pool = 200`` candidates for the frontier, more
    than any budget here can hold.
    """

    beta: float = 0.85
    gamma: float = 0.7
    eps: float = 1e-8
    temperature: float = 0.05
    top_k: int = 50
    similarity: str = "bm25"
    lambda_call: float = 1.0
    lambda_caller: float = 0.5
    lambda_inherit: float = 0.0
    lambda_import: float = 0.0
    solver: str = "power"
    push_eps: float = 1e-5
    precision: str = "float64"
    threads: int | str = "auto"
    tol: float = 1e-4
    max_iter: int = 200
    prune: float = 0.0
    mu: float = 1.0
    pool: int = 200
    use_specificity: bool = True
    use_frontier: bool = True

    def __post_init__(self) -> None:
        if self.include_tests:
            raise ValueError(f"{self.name}: test symbols carry the walk but are never packed; include_tests must be False")
        if self.similarity not in SIMILARITIES:
            raise ValueError(f"{self.name}: similarity must be one of {SIMILARITIES}, got {self.similarity!r}")
        if self.solver not in SOLVERS:
            raise ValueError(f"{self.name}: solver must be one of {SOLVERS}, got {self.solver!r}")
        if self.solver == "push" and self.prune:
            raise ValueError(f"{self.name}: prune applies to solver='power' only")
        if self.precision not in PRECISIONS or (self.precision != "float64" and self.solver != "push"):
            raise ValueError(f"{self.name}: precision must be one of {sorted(PRECISIONS)} (float32 with "
                             f"solver='push' only), got {self.precision!r} with solver={self.solver!r}")
        if self.threads != "auto":
            resolve_threads(self.threads)  # a ValueError naming `threads`; "auto" is resolved per query
        if self.pool < 1:
            raise ValueError(f"{self.name}: pool must be >= 1, got {self.pool}")

    @property
    def weights(self) -> EdgeWeights:
        return EdgeWeights(self.lambda_call, self.lambda_caller, self.lambda_inherit, self.lambda_import)

    def eligible(self, graph: CodebaseGraph, node: int) -> bool:
        return bool(packable(graph)[node])

    def scores(self, graph: CodebaseGraph, query: str) -> PerronScores:
        sim = bm25_scores(graph, query) if self.similarity == "bm25" else hashed_similarity(graph, query)
        prior = softmax_prior(sim, top_k=self.top_k, temperature=self.temperature)
        t = transition_for(graph, self.weights)
        if self.solver == "power":
            walk = personalized_pagerank(t, prior, beta=self.beta, tol=self.tol, max_iter=self.max_iter,
                                         prune=self.prune)
        else:  # π_global (and its step) is memoised per graph: the warm start costs one global solve per graph
            glob = global_rank_for(graph, self.weights, beta=self.beta)
            walk = warm_pagerank(t, prior, glob.pi, beta=self.beta, eps=self.push_eps, tol=self.tol,
                                 max_iter=self.max_iter, global_step=glob.step, precision=self.precision,
                                 threads=resolve_threads(self.threads))
        if not self.use_specificity:
            return PerronScores(walk.pi, None, walk.pi, walk)
        pi_global = global_rank_for(graph, self.weights, beta=self.beta).pi
        spec = specificity(walk.pi, pi_global, gamma=self.gamma, eps=self.eps,
                           denominator=specificity_for(graph, self.weights, beta=self.beta, gamma=self.gamma,
                                                       eps=self.eps))
        return PerronScores(walk.pi, pi_global, spec, walk)

    def _candidates(self, graph: CodebaseGraph, scored: PerronScores) -> np.ndarray:
        """The ranked nodes, unordered: reached by the walk and packable."""
        return np.flatnonzero((scored.pi_query > 0) & packable(graph))

    def _ranking(self, graph: CodebaseGraph, scored: PerronScores) -> list[tuple[int, float]]:
        nodes = self._candidates(graph, scored)
        nodes = best_first(nodes, scored.score[nodes])
        return list(zip(nodes.tolist(), scored.score[nodes].tolist()))

    def select(self, graph: CodebaseGraph, query: str, budget: int, inputs: RepoInputs = NO_INPUTS) -> Context:
        # the context alone: only what packing reads is sorted (the pool, or the head of the rank order)
        scored = self.scores(graph, query)
        nodes = self._candidates(graph, scored)
        values = scored.score[nodes]
        if self.use_frontier:
            pool = top_k(nodes, values, self.pool)
            return self._pack(graph, scored, best_first(pool, scored.score[pool])[: self.pool], budget)
        return self._pack(graph, scored, best_first_lazily(nodes, values), budget)

    def rank(self, graph, query, inputs=NO_INPUTS):
        return self._ranking(graph, self.scores(graph, query))

    def ranked_context(self, graph: CodebaseGraph, query: str, budget: int,
                       inputs: RepoInputs = NO_INPUTS) -> tuple[Context, list[tuple[int, float]]]:
        scored = self.scores(graph, query)
        ranking = self._ranking(graph, scored)
        return self.pack_scored(graph, scored, ranking, budget), ranking

    def pack_scored(self, graph: CodebaseGraph, scored: PerronScores, ranking: list[tuple[int, float]],
                    budget: int) -> Context:
        """Pack under ``budget``: frontier packing over the top ``pool``, or rank order."""
        if not self.use_frontier:
            return self._pack(graph, scored, [n for n, _ in ranking], budget)
        return self._pack(graph, scored, np.array([n for n, _ in ranking[: self.pool]], dtype=np.int64), budget)

    def _pack(self, graph: CodebaseGraph, scored: PerronScores, order, budget: int) -> Context:
        """Frontier packing over ``order`` (the pool, best first), or rank-order packing of ``order``."""
        notes = self.notes + ((f"prior: {scored.diffusion.prior_fallback}",) if scored.diffusion.prior_fallback else ())
        if not self.use_frontier:
            return pack(graph, order, budget, self.renderer, notes=notes)
        selection = Selection(graph, self.renderer)
        pool = np.asarray(order, dtype=np.int64)
        frontier_pack(scored.score, pool, walk_adjacency(graph, self.weights), selection, budget, mu=self.mu)
        context = selection.context(budget, notes)
        while context.total_tokens > budget:  # the exact final check; section costs make it unreachable
            context = Context(context.snippets[:-1], self.renderer, budget, notes)
        return context
