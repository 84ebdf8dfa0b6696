"""Expansion signals: pseudo-relevance feedback, caller-expanded documents, query coverage, file names.

The composer's second stage (``blend``; recipe ``hybrid_prf``) adds them to
the lexical stage's score (each divided by its maximum over the candidates)::

    s(v)     = hybrid(v) + w_ctx · Ĉ(v) + w_prf_sym · P̂_S(v) + w_prf_file · P̂_F(f(v))
               + w_cover · K̂(f(v)) + w_cooc · Q̂(v) + w_topk · T̂(f(v)) + w_fname · N̂_F(f(v))
    score(v) = s(v) · (peripheral if v is under examples/ docs/ scripts/ ...)

* ``C`` document expansion: BM25 over the symbol's own document plus
  ``ctx_weight`` times the name terms of its callers and callees and the terms
  of its file's module docstring (a short commit message often names the
  feature a function serves, not its body).
* ``P`` pseudo-relevance feedback (RM3-style): the ``prf_files`` best files of
  the first ``hybrid`` pass vote for terms, each file with weight
  ``score(F) / Σ score`` and each term ``t`` with ``p(t | F) · idf(t)`` (``idf``
  over files, so words every file has say nothing); the ``prf_terms`` best
  terms not already in the query form a second, weighted query, scored with
  the symbol BM25 (``P_S``) and the file BM25 (``P_F``) of ``hybrid``.
* ``peripheral``: code shipped beside a library (``PERIPHERAL_DIRS``) is
  demoted like ``hybrid``'s vendored code.
* Measured and left at 0 (they lost on the tune split): ``K`` the idf-weighted
  share of the query's distinct terms present in the file, ``Q`` the same
  within one definition's own document, ``T`` the mean of a file's ``topk``
  best ``hybrid`` scores, ``N_F`` stemmed BM25 over the names a file defines.

Only the query and the snapshot are read. With every weight 0 and
``peripheral = 1`` the stage is skipped: ``hybrid_prf`` is then exactly
``hybrid``. Constants and where they came from: ``conf/method/hybrid_prf.yaml``.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..graph.codebase import CodebaseGraph
from .filelevel import file_term_matrix
from .indexes import indexes_for
from .file_index import file_index
from .masks import test_files
from .neighbors import call_neighbors
from .stemmed import bm25_weights, field_matrix, query_stems
from .term_rows import Table, count_rows, known, lookup_array, symbol_names
from .text import term_index
from . import libm

_DOCSTRING_QUOTES = ('"""', "'''")


def _file_idf(graph: CodebaseGraph) -> np.ndarray:
    ix = indexes_for(graph)
    if ix.prf_file_idf is None:
        tf = file_term_matrix(graph)
        df = np.bincount(tf.indices, minlength=tf.shape[1])
        n = tf.shape[0]
        ix.prf_file_idf = libm.log1p((n - df + 0.5) / (df + 0.5))
    return ix.prf_file_idf


def weighted_scores(weights: sp.csc_matrix, cols: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """``weights[:, cols] @ vals``: every document's score for weighted query terms."""
    if len(cols) == 0:
        return np.zeros(weights.shape[0])
    return np.asarray(weights[:, cols] @ vals).ravel()


def feedback_terms(graph: CodebaseGraph, file_score: np.ndarray, query: str, n_files: int,
                   n_terms: int) -> tuple[np.ndarray, np.ndarray]:
    """Expansion terms (columns of ``term_index``) and their weights from the best ``n_files`` files."""
    index = term_index(graph)
    top = np.flatnonzero(file_score > 0)
    top = top[np.lexsort((top, -file_score[top]))][:n_files]
    if len(top) == 0 or n_terms <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    tf = file_term_matrix(graph)[top]
    lengths = np.maximum(np.asarray(tf.sum(axis=1)).ravel(), 1.0)
    doc_w = file_score[top] / file_score[top].sum()
    p = sp.diags(doc_w / lengths) @ tf
    votes = np.asarray(p.sum(axis=0)).ravel() * _file_idf(graph)
    qcols, _ = index.query_vector(query)
    votes[qcols] = 0.0
    cand = np.flatnonzero(votes > 0)
    best = cand[np.lexsort((cand, -votes[cand]))][:n_terms]
    best.sort()
    return best, votes[best] / votes[best].max() if len(best) else votes[best]


def context_matrix(graph: CodebaseGraph, ctx_weight: float) -> sp.csc_matrix:
    """BM25 weights of symbol documents expanded with neighbour names and the module docstring."""
    ix = indexes_for(graph)
    found = ix.context_bm25.get(ctx_weight)
    if found is not None:
        return found
    index = term_index(graph)
    n, m = len(graph.symbols), len(index.vocab)
    fidx = file_index(graph)
    names = _name_rows(graph, fidx, index.vocab)
    moddoc = count_rows(np.arange(len(fidx.paths), dtype=np.int64), np.arange(len(fidx.paths), dtype=np.int64),
                        Table(known(index.vocab, [_module_docstring(graph, p) for p in fidx.paths])),
                        (len(fidx.paths), m))
    member = sp.csr_matrix((np.ones(n), (np.arange(n), fidx.file_of)), shape=(n, len(fidx.paths)))
    expanded = index.tf + ctx_weight * (call_neighbors(graph) @ names + member @ moddoc)
    found = ix.context_bm25[ctx_weight] = bm25_weights(sp.csr_matrix(expanded), 1.2, 0.4)
    return found


def _name_rows(graph: CodebaseGraph, fidx, vocab: dict[str, int]) -> sp.csr_matrix:
    """Symbols x terms counts of each symbol's ``Symbol.name``: a module's file stem, else the last qualname
    part without its ``#n`` redefinition mark; each distinct name is split once (``term_rows.symbol_names``,
    shared with the other name builders)."""
    n = len(graph.symbols)
    names = symbol_names(graph)
    words, distinct_terms = names.terms
    keys = np.where(fidx.is_module, len(names.strings) + fidx.file_of, names.name_of)
    table = (words.mapped(lookup_array(distinct_terms, vocab))
             + Table(known(vocab, [_stem_of(p) for p in fidx.paths])))
    return count_rows(np.arange(n, dtype=np.int64), keys, table, (n, len(vocab)))


def _stem_of(path: str) -> str:
    """``PurePosixPath(path).stem`` of a graph path (relative, normalised), without building the path object."""
    name = path.rsplit("/", 1)[-1]
    i = name.rfind(".")
    return name[:i] if 0 < i < len(name) - 1 else name


def _module_docstring(graph: CodebaseGraph, path: str) -> str:
    # the first 60 lines (``graph.file_lines(path)[:60]`` joined) without splitting the whole file
    text = graph.files[path].text
    parts = text.split("\n", 60)
    text = text[:len(text) - len(parts[60])] if len(parts) > 60 else text
    text = text.lstrip()
    for q in _DOCSTRING_QUOTES:
        for prefix in ("", "r", "u"):
            if text.startswith(prefix + q):
                end = text.find(q, len(prefix) + 3)
                return text[len(prefix) + 3:end] if end > 0 else ""
    return ""


def file_coverage(graph: CodebaseGraph, query: str) -> np.ndarray:
    """Per file: idf-weighted share of the query's distinct terms present in the file (tests 0)."""
    cols, _ = term_index(graph).query_vector(query)
    fidx = file_index(graph)
    if len(cols) == 0:
        return np.zeros(len(fidx.paths))
    idf = _file_idf(graph)[cols]
    present = (file_term_matrix(graph)[:, cols] > 0).astype(np.float64)
    cover = np.asarray(present @ idf).ravel() / max(float(idf.sum()), 1e-12)
    cover[test_files(graph)] = 0.0
    return cover


def symbol_coverage(graph: CodebaseGraph, query: str) -> np.ndarray:
    """Per symbol: idf-weighted share of the query's distinct terms in its own document."""
    index = term_index(graph)
    cols, _ = index.query_vector(query)
    if len(cols) == 0:
        return np.zeros(len(graph.symbols))
    idf = _file_idf(graph)[cols]
    present = (index.tf[:, cols] > 0).astype(np.float64)
    return np.asarray(present @ idf).ravel() / max(float(idf.sum()), 1e-12)


def top_k_file_mean(graph: CodebaseGraph, score: np.ndarray, k: int) -> np.ndarray:
    """Per file: the mean of its ``k`` best symbol scores (fewer symbols count as 0)."""
    fidx = file_index(graph)
    order = np.lexsort((-score, fidx.file_of))
    files = fidx.file_of[order]
    starts = np.searchsorted(files, np.arange(len(fidx.paths)))
    rank = np.arange(len(order)) - starts[files]
    keep = rank < k
    out = np.zeros(len(fidx.paths))
    np.add.at(out, files[keep], score[order][keep])
    return out / k


def file_name_scores(graph: CodebaseGraph, query: str) -> np.ndarray:
    """Per file: stemmed BM25 over the names it defines (path and qualified names only); tests 0."""
    ix = indexes_for(graph)
    weights = ix.file_name_bm25
    if weights is None:
        fidx = file_index(graph)
        n = len(graph.symbols)
        member = sp.csr_matrix((np.ones(n), (fidx.file_of, np.arange(n))), shape=(len(fidx.paths), n))
        weights = ix.file_name_bm25 = bm25_weights((member @ field_matrix(graph, "name")).tocsr(), 1.2, 0.75)
    cols, counts = query_stems(graph, query)
    out = weighted_scores(weights, cols, counts)
    out[test_files(graph)] = 0.0
    return out
