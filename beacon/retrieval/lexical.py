"""Lexical signals over symbol documents: Okapi BM25, distinct-term overlap, and the named-first reordering.

The methods ``bm25``, ``compact_bm25``, ``grounded_bm25`` and ``keyword_map`` are recipes of the composer
(``blend``) that rank by one of these signals alone, raw (``fusion: raw``).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..graph.codebase import CodebaseGraph
from .file_index import file_index
from .indexes import indexes_for
from .query_weights import NEUTRAL, QueryWeights
from .text import identifiers, term_index
from . import libm


def bm25_symbol_weights(graph: CodebaseGraph, k1: float = 1.2, b: float = 0.75) -> sp.csc_matrix:
    """Symbols x terms Okapi BM25 weights (built once per graph and ``(k1, b)``)."""
    index = term_index(graph)
    ix = indexes_for(graph)
    weights = ix.bm25_symbol.get((k1, b))
    if weights is None:
        tf = index.tf.tocsr()
        n_docs = tf.shape[0]
        df = np.bincount(tf.indices, minlength=tf.shape[1])
        idf = libm.log1p((n_docs - df + 0.5) / (df + 0.5))
        avgdl = float(index.doc_len.mean()) if n_docs else 1.0
        norm = k1 * (1 - b + b * index.doc_len / max(avgdl, 1e-9))
        rows = np.repeat(np.arange(n_docs), np.diff(tf.indptr))
        data = idf[tf.indices] * tf.data * (k1 + 1) / (tf.data + norm[rows])
        weights = tf.copy()
        weights.data = data
        weights = ix.bm25_symbol[(k1, b)] = weights.tocsc()
    return weights


def bm25_scores(graph: CodebaseGraph, query: str, k1: float = 1.2, b: float = 0.75,
                weights: QueryWeights = NEUTRAL) -> np.ndarray:
    """Okapi BM25 of every symbol document against the query (scipy.sparse; its terms weighted by ``weights``)."""
    bm25 = bm25_symbol_weights(graph, k1, b)
    cols, counts = term_index(graph).query_vector(query, weights)
    if len(cols) == 0:
        return np.zeros(len(graph.symbols))
    return np.asarray(bm25[:, cols] @ counts).ravel()


def specific_match(graph: CodebaseGraph, query: str, weights: QueryWeights = NEUTRAL) -> np.ndarray:
    """Per symbol: does its document hold one of the query's *specific* terms?

    Among the query terms that occur in the graph, the specific ones are those in at most the median number
    of documents (the rarer half of the query's own matched set, so the cut adapts to the query and the
    repository). A definition matching only the common half matches generic wording (*fix*, *error*).
    """
    index = term_index(graph)
    cols, _ = index.query_vector(query, weights)
    out = np.zeros(len(graph.symbols), dtype=bool)
    if len(cols) == 0:
        return out
    present = index.tf[:, cols].tocsc()
    df = np.diff(present.indptr)
    matched = df > 0
    if not matched.any():
        return out
    keep = np.flatnonzero(matched & (df <= np.median(df[matched])))
    return np.asarray(present[:, keep].sum(axis=1)).ravel() > 0


def keyword_overlap(graph: CodebaseGraph, query: str) -> np.ndarray:
    """Per symbol: how many distinct query terms its document contains."""
    index = term_index(graph)
    cols, _ = index.query_vector(query)
    if len(cols) == 0:
        return np.zeros(len(graph.symbols))
    present = index.tf[:, cols]
    present.data[:] = 1.0
    return np.asarray(present.sum(axis=1)).ravel()


def named_mask(graph: CodebaseGraph, query: str) -> np.ndarray:
    """Per symbol: does the query name it verbatim (simple name of 3+ characters, or qualified name)?

    Looked up by name (``FileIndex.by_name``, module nodes by their file's
    stem), not by visiting every symbol. Only the query is read, never a
    task's labels.
    """
    named = identifiers(query)
    dotted = {w for w in query.replace("(", " ").replace(")", " ").split() if "." in w}
    index = file_index(graph)
    symbols = graph.symbols
    mask = np.zeros(len(symbols), dtype=bool)
    for word in named:
        if len(word) < 3:
            continue
        found = index.by_name.get(word)
        if found is not None:
            mask[found] = True
        for f in index.by_stem.get(word, ()):  # a module's name is its file's stem
            module = int(index.module_node[f])
            if module >= 0 and symbols[module].name == word:
                mask[module] = True
    for word in dotted:  # a qualname: its last part is the (non-module) symbol's name
        for node in index.by_name.get(word.rsplit(".", 1)[-1].split("#", 1)[0], ()):
            if symbols[node].qualname == word:
                mask[node] = True
    return mask


def named_first(graph: CodebaseGraph, query: str, nodes: np.ndarray) -> np.ndarray:
    """``nodes`` (a ranking, best first) with the symbols the query names verbatim first (each group keeps its order)."""
    nodes = np.asarray(nodes, dtype=np.int64)
    hit = named_mask(graph, query)[nodes]
    return np.concatenate((nodes[hit], nodes[~hit]))
