"""``repomap``: personalized PageRank over the symbol graph, personalized by what the query names.

Aider's repository map, at symbol grain and on Perron's walk machinery
(``transition.transition_for``, ``diffusion.personalized_pagerank``): the
teleport prior is ``mentions.mention_weights`` — identifiers the query
names (Aider's weighting: code-marked and long snake/camel names up, private
and many-file names down), qualname suffixes of dotted names, traceback frame
functions, and mentioned paths/stems spread evenly over the definitions of
their files. A query that names nothing in the snapshot falls back to a
softmax prior over BM25 scores (the ``ppr`` prior), recorded in the notes.
Definitions (not modules, not tests) are ranked by ``π_query`` and packed
in rank order.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..graph.codebase import CodebaseGraph
from ..repo.history import NO_INPUTS
from ..context.pack import pack
from .base import RankThenPack
from .diffusion import Prior, personalized_pagerank, softmax_prior
from .indexes import indexes_for
from .lexical import bm25_scores
from .file_index import file_index
from .mentions import mention_weights
from .masks import packable
from .normalise import best_first, best_first_lazily
from .transition import EdgeWeights, transition_for


def mention_prior(graph: CodebaseGraph, query: str) -> Prior | None:
    """Teleport prior from the query's mentions, or ``None`` if it names nothing in the graph."""
    mentions = mention_weights(graph, query)
    if mentions.empty:
        return None
    index = file_index(graph)
    weight = mentions.symbol.copy()
    defs = packable(graph)
    per_file = np.bincount(index.file_of[defs], minlength=len(index.paths)).astype(np.float64)
    share = np.divide(mentions.file, per_file, out=np.zeros_like(mentions.file), where=per_file > 0)
    weight[defs] += share[index.file_of[defs]]
    nodes = np.flatnonzero(weight > 0)
    if len(nodes) == 0:
        return None
    return Prior(len(graph.symbols), nodes.astype(np.int64), weight[nodes] / weight[nodes].sum())


def _mix(a: Prior, b: Prior, share_b: float) -> Prior:
    dense = (1.0 - share_b) * a.dense() + share_b * b.dense()
    nodes = np.flatnonzero(dense > 0)
    return Prior(a.n, nodes.astype(np.int64), dense[nodes] / dense[nodes].sum())


def repomap_scores(graph: CodebaseGraph, query: str, weights: EdgeWeights, *, beta: float, tol: float,
                   max_iter: int, lexical_share: float = 0.0) -> tuple[np.ndarray, str | None]:
    """``π_query`` of the mention-personalized walk, and a note when the BM25 fallback was used.

    With ``lexical_share > 0`` the teleport prior mixes in the BM25 softmax
    prior (``ppr``'s) with that share.
    """
    key = (query, weights, beta, tol, max_iter, lexical_share)
    ix = indexes_for(graph)
    last = ix.last_repomap  # the last walk only: no per-query growth of the cache
    if last is not None and last[0] == key:
        return last[1]
    prior = mention_prior(graph, query)
    note = None
    if prior is None or lexical_share > 0:
        lexical = softmax_prior(bm25_scores(graph, query))
        if prior is None:
            prior, note = lexical, "repomap: the query names nothing in the snapshot; BM25 prior"
        elif lexical.fallback is None:
            prior = _mix(prior, lexical, lexical_share)
    walk = personalized_pagerank(transition_for(graph, weights), prior, beta=beta, tol=tol, max_iter=max_iter)
    found = (walk.pi, note or walk.prior_fallback)
    ix.last_repomap = (key, found)
    return found


@dataclass
class RepoMap(RankThenPack):
    """Mention-personalized PageRank (β = 0.85 as Perron/Aider; calls both ways and inheritance)."""

    beta: float = 0.85
    lambda_call: float = 1.0
    lambda_caller: float = 0.5
    lambda_inherit: float = 0.5
    lambda_import: float = 0.0
    tol: float = 1e-6
    max_iter: int = 200
    lexical_share: float = 0.0

    def __post_init__(self) -> None:
        if self.include_tests:
            raise ValueError(f"{self.name}: tests carry the walk but are never packed; include_tests must be False")
        if not 0.0 <= self.lexical_share <= 1.0:
            raise ValueError(f"{self.name}: lexical_share must be in [0, 1], got {self.lexical_share!r}")

    @property
    def weights(self) -> EdgeWeights:
        return EdgeWeights(self.lambda_call, self.lambda_caller, self.lambda_inherit, self.lambda_import)

    def scores(self, graph: CodebaseGraph, query: str) -> tuple[np.ndarray, str | None]:
        return repomap_scores(graph, query, self.weights, beta=self.beta, tol=self.tol, max_iter=self.max_iter,
                              lexical_share=self.lexical_share)

    def rank(self, graph, query, inputs=NO_INPUTS):
        pi, _ = self.scores(graph, query)
        nodes = np.flatnonzero((pi > 0) & packable(graph))
        nodes = best_first(nodes, pi[nodes])
        return list(zip(nodes.tolist(), pi[nodes].tolist()))

    def select(self, graph, query, budget, inputs=NO_INPUTS):
        # the context alone: packing reads a few hundred candidates, so the rank order is sorted lazily
        pi, note = self.scores(graph, query)
        nodes = np.flatnonzero((pi > 0) & packable(graph))
        return pack(graph, best_first_lazily(nodes, pi[nodes]), budget, self.renderer,
                    notes=self.notes + ((note,) if note else ()))

    def ranked_context(self, graph, query, budget, inputs=NO_INPUTS):
        ranking = self.rank(graph, query, inputs)
        _, note = self.scores(graph, query)
        context = pack(graph, [n for n, _ in ranking], budget, self.renderer,
                       notes=self.notes + ((note,) if note else ()))
        return context, ranking
