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
from .file_index import file_index
from .hashed import hashed_similarity
from .indexes import indexes_for
from .lexical import bm25_scores
from .masks import is_test_mask, module_mask
from .normalise import top_k
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
        keep = ~file_index(graph).is_module
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
    reached = np.zeros(len(graph.symbols), dtype=bool)
    for _ in range(depth):
        if len(frontier) == 0:
            break
        # mark, then read back in node order: the sorted unique neighbours without hashing or sorting them
        reached[adjacency[frontier].indices] = True
        reached &= ~seen
        new = np.flatnonzero(reached)
        reached[new] = False
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

    def _eligible_mask(self, graph: CodebaseGraph) -> np.ndarray:
        """``eligible`` for every node at once (tests only with ``include_tests``)."""
        return np.ones(len(graph.symbols), dtype=bool) if self.include_tests else ~is_test_mask(graph)

    def seed_nodes(self, graph: CodebaseGraph, query: str) -> list[int]:
        scores = bm25_scores(graph, query)
        ok = self._eligible_mask(graph) & ~module_mask(graph)
        nodes = np.flatnonzero((scores > 0) & ok)
        if len(nodes) > self.seeds:  # only the best ``seeds`` are kept: no need to sort the rest
            nodes = top_k(nodes, scores[nodes], self.seeds)
        return nodes[np.lexsort((nodes, -scores[nodes]))][: self.seeds].tolist()

    def rank(self, graph, query, inputs=NO_INPUTS):
        seeds = self.seed_nodes(graph, query)
        candidates = closure(graph, seeds, self.depth) if self.use_closure else seeds
        ok = self._eligible_mask(graph)
        cands = np.asarray(candidates, dtype=np.int64)
        cands = cands[ok[cands]]
        if not self.use_scoring:
            candidates = cands.tolist()
            rng = random.Random(self.shuffle_seed)
            rng.shuffle(candidates)
            return [(c, 0.0) for c in candidates]
        sim = hashed_similarity(graph, query)
        cands = top_k(cands, sim[cands], self.pool)  # only the best ``pool`` are kept: sort those alone
        cands = cands[np.lexsort((cands, -sim[cands]))][: self.pool]  # by similarity, ties by node
        return self.greedy_coverage(graph, query, cands.tolist(), sim)

    def greedy_coverage(self, graph, query, candidates, sim):
        """Greedy order by ``sim + coverage_weight · new query terms / query terms`` (first best wins ties)."""
        index = term_index(graph)
        q_cols, _ = index.query_vector(query)
        q_cols = np.unique(q_cols)
        cands = np.asarray(candidates, dtype=np.int64)
        # covers[i, j]: does candidate i's document hold query term j?
        covers = (index.tf[cands][:, q_cols] > 0).toarray() if len(cands) else np.zeros((0, len(q_cols)), bool)
        base = np.asarray(sim, dtype=np.float64)[cands]
        denom = max(len(q_cols), 1)
        new_terms = covers.sum(axis=1)  # per candidate: query terms it holds that are not covered yet
        taken = np.zeros(len(cands), dtype=bool)
        ranking: list[tuple[int, float]] = []
        for _ in range(len(cands)):
            gain = base + self.coverage_weight * new_terms / denom
            gain[taken] = -np.inf
            best = int(np.argmax(gain))  # the first maximum: candidates keep their order, as the list scan did
            taken[best] = True
            fresh = covers[best].copy()
            if fresh.any():  # these terms are covered now: nobody gains them any more
                new_terms = new_terms - covers[:, fresh].sum(axis=1)
                covers[:, fresh] = False
            ranking.append((int(cands[best]), float(gain[best])))
        return ranking
