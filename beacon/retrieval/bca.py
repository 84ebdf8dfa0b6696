"""BCA: lexical seeds -> graph closure -> hashed similarity -> greedy coverage.

1. Seeds: the top ``seeds`` symbols by BM25.
2. Closure: breadth-first over calls (both directions), inheritance (both),
   decorators and containment between classes and their members, up to
   ``depth`` hops; module nodes are neither expanded nor candidates (a whole
   file is rarely worth its tokens here).
3. Scoring: cosine of 96-d hashed vectors (``beacon.retrieval.hashed``).
4. Selection: greedily take the candidate with the largest
   ``similarity + coverage_weight * (new query terms covered / query terms)``,
   so later picks favour code that explains parts of the query not yet covered.
   The greedy order is the ranking; packing follows it.

Ablations: ``bca_no_closure`` (seeds only) and ``bca_no_scoring`` (seeds and
closure in a fixed-seed shuffled order, no scoring or coverage).
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..graph.codebase import CodebaseGraph
from ..repo.history import NO_INPUTS
from ..graph.symbols import EdgeType
from .base import RankThenPack
from .hashed import hashed_similarity
from .indexes import indexes_for
from .lexical import bm25_scores
from .text import term_index

_CLOSURE_EDGES = (EdgeType.CALLS, EdgeType.INHERITS, EdgeType.DECORATES, EdgeType.CONTAINS)


def closure_matrix(graph: CodebaseGraph):
    """Undirected adjacency over the closure edge types, module nodes cut out (memoised)."""
    ix = indexes_for(graph)
    if ix.bca_closure is None:
        total = None
        for etype in _CLOSURE_EDGES:
            m = graph.matrix(etype)
            total = m + m.T if total is None else total + m + m.T
        keep = np.fromiter((s.kind != "module" for s in graph.symbols), dtype=bool, count=len(graph.symbols))
        mask = sp.diags(keep.astype(np.float64))
        ix.bca_closure = (mask @ total @ mask).tocsr()
    return ix.bca_closure


def closure(graph: CodebaseGraph, seeds: list[int], depth: int) -> list[int]:
    """Seeds plus non-module nodes within ``depth`` hops; each hop in ascending node order.

    Sparse row slicing per hop keeps deep closures (``bca_d5``) fast on large graphs.
    """
    adjacency = closure_matrix(graph)
    order = list(dict.fromkeys(seeds))
    seen = np.zeros(len(graph.symbols), dtype=bool)
    seen[order] = True
    frontier = np.array([s for s in order if graph.symbols[s].kind != "module"], dtype=np.int64)
    for _ in range(depth):
        if len(frontier) == 0:
            break
        reached = np.unique(adjacency[frontier].indices)
        new = reached[~seen[reached]]
        seen[new] = True
        order.extend(new.tolist())
        frontier = new
    return order


@dataclass
class BCA(RankThenPack):
    depth: int = 2
    seeds: int = 12
    pool: int = 300  # candidates kept for greedy coverage, by similarity
    coverage_weight: float = 0.5
    use_closure: bool = True
    use_scoring: bool = True
    shuffle_seed: int = 0

    def seed_nodes(self, graph: CodebaseGraph, query: str) -> list[int]:
        scores = bm25_scores(graph, query)
        nodes = np.flatnonzero(scores > 0)
        order = nodes[np.lexsort((nodes, -scores[nodes]))]
        picked = [int(n) for n in order if self.eligible(graph, int(n)) and graph.symbols[n].kind != "module"]
        return picked[: self.seeds]

    def rank(self, graph, query, inputs=NO_INPUTS):
        seeds = self.seed_nodes(graph, query)
        candidates = closure(graph, seeds, self.depth) if self.use_closure else seeds
        candidates = [c for c in candidates if self.eligible(graph, c)]
        if not self.use_scoring:
            rng = random.Random(self.shuffle_seed)
            rng.shuffle(candidates)
            return [(c, 0.0) for c in candidates]
        sim = hashed_similarity(graph, query)
        candidates.sort(key=lambda c: (-sim[c], c))
        candidates = candidates[: self.pool]
        return self.greedy_coverage(graph, query, candidates, sim)

    def greedy_coverage(self, graph, query, candidates, sim):
        index = term_index(graph)
        q_cols, _ = index.query_vector(query)
        q_set = set(int(c) for c in q_cols)
        tf = index.tf
        covers = {c: set(int(j) for j in tf.indices[tf.indptr[c]:tf.indptr[c + 1]]) & q_set for c in candidates}
        covered: set[int] = set()
        remaining = list(candidates)
        ranking: list[tuple[int, float]] = []
        denom = max(len(q_set), 1)
        while remaining:
            best, best_gain = None, -np.inf
            for c in remaining:
                gain = float(sim[c]) + self.coverage_weight * len(covers[c] - covered) / denom
                if gain > best_gain:
                    best, best_gain = c, gain
            remaining.remove(best)
            covered |= covers[best]
            ranking.append((best, best_gain))
        return ranking
