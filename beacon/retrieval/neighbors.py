"""Call neighbours: the symmetric call adjacency a blend uses to lift a definition next to a strong one."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..graph.codebase import CodebaseGraph
from ..graph.symbols import EdgeType
from .indexes import indexes_for


def call_neighbors(graph: CodebaseGraph) -> sp.csr_matrix:
    """Symmetric 0/1 call adjacency (either direction), built once per graph."""
    ix = indexes_for(graph)
    if ix.call_neighbors is None:
        calls = graph.matrix(EdgeType.CALLS)
        found = sp.csr_matrix((calls + calls.T) != 0, dtype=np.float64)
        found.setdiag(0.0)
        found.eliminate_zeros()
        ix.call_neighbors = found
    return ix.call_neighbors


def neighbor_max(graph: CodebaseGraph, score: np.ndarray) -> np.ndarray:
    """Per symbol: the best ``score`` among its call neighbours (0 without any)."""
    adj = call_neighbors(graph)
    # The adjacency is 0/1, so a row's entries times the scores are the neighbours' scores themselves: one
    # segmented max over ``score[indices]`` (no product matrix). As the sparse row max does, a row with
    # implicit zeros (any row short of every column) never goes below 0.
    out = np.zeros(adj.shape[0])
    counts = np.diff(adj.indptr)
    rows = np.flatnonzero(counts)
    if len(rows):
        out[rows] = np.maximum.reduceat(np.asarray(score, dtype=np.float64)[adj.indices], adj.indptr[rows])
    partial = counts < adj.shape[1]
    out[partial] = np.maximum(out[partial], 0.0)
    return out
