"""File-level lexical scores: BM25 over whole-file documents, from the symbol term matrix.

A file's document is the sum of its symbols' own documents (``text.term_index``),
so it holds every line of the file once; BM25 (k1 = 1.2, b = 0.75, as the
symbol-level ``bm25``) is computed over files. A bug report usually names the
*area* of the fix (a feature, a module) with words spread over the file, while
the edited function's own lines may share few of them; file-level evidence
then picks the file and symbol-level evidence the function inside it.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..graph.codebase import CodebaseGraph
from .file_index import file_index
from .indexes import indexes_for
from .masks import test_files
from .query_weights import NEUTRAL, QueryWeights
from .stemmed import bm25_weights
from .text import term_index


def file_term_matrix(graph: CodebaseGraph) -> sp.csr_matrix:
    """Files x terms raw counts (rows in ``FileIndex`` order), memoised on the graph."""
    ix = indexes_for(graph)
    if ix.file_tf is None:
        index = file_index(graph)
        n = len(graph.symbols)
        member = sp.csr_matrix((np.ones(n), (index.file_of, np.arange(n))), shape=(len(index.paths), n))
        ix.file_tf = (member @ term_index(graph).tf).tocsr()
    return ix.file_tf


def file_bm25_weights(graph: CodebaseGraph, k1: float = 1.2, b: float = 0.75) -> sp.csc_matrix:
    """Files x terms Okapi BM25 weights (built once per graph and ``(k1, b)``)."""
    ix = indexes_for(graph)
    weights = ix.bm25_file.get((k1, b))
    if weights is None:
        weights = ix.bm25_file[(k1, b)] = bm25_weights(file_term_matrix(graph), k1, b)
    return weights


def file_bm25_scores(graph: CodebaseGraph, query: str, k1: float = 1.2, b: float = 0.75,
                     weights: QueryWeights = NEUTRAL) -> np.ndarray:
    """BM25 of every file (``FileIndex`` order) against the query (its terms weighted by ``weights``); test
    files score 0."""
    bm25 = file_bm25_weights(graph, k1, b)
    cols, counts = term_index(graph).query_vector(query, weights)
    index = file_index(graph)
    if len(cols) == 0:
        return np.zeros(len(index.paths))
    scores = np.asarray(bm25[:, cols] @ counts).ravel()
    scores[test_files(graph)] = 0.0
    return scores

