"""Lexical methods: ``no_retrieval``, ``bm25``, ``compact_bm25``, ``grounded_bm25``, ``keyword_map``."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..graph.codebase import CodebaseGraph
from ..repo.history import NO_INPUTS
from .base import RankThenPack
from .indexes import indexes_for
from .masks import is_test_mask
from .registry import register_method
from .text import identifiers, term_index


def ranked_nonzero(method: RankThenPack, graph: CodebaseGraph, scores: np.ndarray) -> list[tuple[int, float]]:
    """Eligible nodes with a positive score, best first; ties by node order (deterministic)."""
    positive = scores > 0
    if not method.include_tests:
        positive &= ~is_test_mask(graph)
    nodes = np.flatnonzero(positive)
    order = nodes[np.lexsort((nodes, -scores[nodes]))]
    return list(zip(order.tolist(), scores[order].tolist()))


@register_method("no_retrieval")
@dataclass
class NoRetrieval(RankThenPack):
    """The empty context: what the model knows without any repository code."""

    def rank(self, graph, query, inputs=NO_INPUTS):
        return []


def bm25_symbol_weights(graph: CodebaseGraph, k1: float = 1.2, b: float = 0.75) -> sp.csc_matrix:
    """Symbols x terms Okapi BM25 weights (built once per graph and ``(k1, b)``)."""
    index = term_index(graph)
    ix = indexes_for(graph)
    weights = ix.bm25_symbol.get((k1, b))
    if weights is None:
        tf = index.tf.tocsr()
        n_docs = tf.shape[0]
        df = np.bincount(tf.indices, minlength=tf.shape[1])
        idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
        avgdl = float(index.doc_len.mean()) if n_docs else 1.0
        norm = k1 * (1 - b + b * index.doc_len / max(avgdl, 1e-9))
        rows = np.repeat(np.arange(n_docs), np.diff(tf.indptr))
        data = idf[tf.indices] * tf.data * (k1 + 1) / (tf.data + norm[rows])
        weights = tf.copy()
        weights.data = data
        weights = ix.bm25_symbol[(k1, b)] = weights.tocsc()
    return weights


def bm25_scores(graph: CodebaseGraph, query: str, k1: float = 1.2, b: float = 0.75) -> np.ndarray:
    """Okapi BM25 of every symbol document against the query (scipy.sparse)."""
    weights = bm25_symbol_weights(graph, k1, b)
    cols, counts = term_index(graph).query_vector(query)
    if len(cols) == 0:
        return np.zeros(len(graph.symbols))
    return np.asarray(weights[:, cols] @ counts).ravel()


@register_method("bm25")
@dataclass
class BM25(RankThenPack):
    """BM25 over symbol documents; packed in score order while blocks fit."""

    k1: float = 1.2
    b: float = 0.75

    def rank(self, graph, query, inputs=NO_INPUTS):
        return ranked_nonzero(self, graph, bm25_scores(graph, query, self.k1, self.b))


@register_method("compact_bm25")
@dataclass
class CompactBM25(BM25):
    """BM25 order with the short ``compact`` headers (more code per token)."""

    renderer: str = "compact"


@register_method("grounded_bm25")
@dataclass
class GroundedBM25(CompactBM25):
    """Compact BM25, but symbols the query names verbatim come first.

    A symbol is *named* when its simple name (3+ characters) or its qualified
    name appears as an identifier in the query text. Only the query is read,
    never a task's labels.
    """

    def rank(self, graph, query, inputs=NO_INPUTS):
        ranking = super().rank(graph, query, inputs)
        named = identifiers(query)
        dotted = {w for w in query.replace("(", " ").replace(")", " ").split() if "." in w}
        def is_named(node: int) -> bool:
            s = graph.symbols[node]
            return (len(s.name) >= 3 and s.name in named) or s.qualname in dotted
        first = [(n, sc) for n, sc in ranking if is_named(n)]
        rest = [(n, sc) for n, sc in ranking if not is_named(n)]
        return first + rest


@register_method("keyword_map")
@dataclass
class KeywordMap(RankThenPack):
    """Lexical token overlap: how many distinct query terms a symbol's document contains."""

    def rank(self, graph, query, inputs=NO_INPUTS):
        index = term_index(graph)
        cols, _ = index.query_vector(query)
        if len(cols) == 0:
            return []
        present = index.tf[:, cols]
        present.data[:] = 1.0
        return ranked_nonzero(self, graph, np.asarray(present.sum(axis=1)).ravel())
