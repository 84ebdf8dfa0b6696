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
from .lexical import is_test_mask
from .mentions import file_index
from .stemmed import bm25_weights
from .text import term_index


def file_term_matrix(graph: CodebaseGraph) -> sp.csr_matrix:
    """Files x terms raw counts (rows in ``FileIndex`` order), memoised on the graph."""
    found = graph.cache.get("_file_tf")
    if found is None:
        index = file_index(graph)
        n = len(graph.symbols)
        member = sp.csr_matrix((np.ones(n), (index.file_of, np.arange(n))), shape=(len(index.paths), n))
        found = graph.cache["_file_tf"] = (member @ term_index(graph).tf).tocsr()
    return found


def file_bm25_scores(graph: CodebaseGraph, query: str, k1: float = 1.2, b: float = 0.75) -> np.ndarray:
    """BM25 of every file (``FileIndex`` order) against the query; test files score 0."""
    key = ("_file_bm25", k1, b)
    weights = graph.cache.get(key)
    if weights is None:
        weights = graph.cache[key] = bm25_weights(file_term_matrix(graph), k1, b)
    cols, counts = term_index(graph).query_vector(query)
    index = file_index(graph)
    if len(cols) == 0:
        return np.zeros(len(index.paths))
    scores = np.asarray(weights[:, cols] @ counts).ravel()
    scores[test_files(graph)] = 0.0
    return scores


def test_files(graph: CodebaseGraph) -> np.ndarray:
    """Boolean per file: is it test code (all its symbols are)?"""
    found = graph.cache.get("_test_files")
    if found is None:
        index = file_index(graph)
        not_test = np.bincount(index.file_of, weights=~is_test_mask(graph), minlength=len(index.paths))
        found = graph.cache["_test_files"] = not_test == 0
    return found
