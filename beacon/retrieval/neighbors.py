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
    return np.asarray(adj.multiply(score[None, :]).max(axis=1).todense()).ravel()
