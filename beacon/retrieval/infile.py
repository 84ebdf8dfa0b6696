"""Ranking inside the best files: the composer's sixth stage (``stages.infile``), for long files.

When a file is right but holds dozens of definitions, a definition's global
scores are dominated by terms every definition of that file shares (its path,
its class names, the module's vocabulary). Two signals, each off at weight 0:

- ``local_scores``: per definition of the ``files`` best files (by their best
  total), Okapi BM25 of its document against the issue with the IDF and the
  length normalisation computed over *that file's* definitions only, so a term
  every method of the file holds weighs nothing and the issue's terms that
  single out one method weigh most; divided by the file's best local score and
  multiplied by the file's share of the best file's total, so the best file's
  best-matching method is lifted by the whole weight and a weaker file's less.
- ``file_share``: every definition's file's best total over the best file's:
  a definition of the best file outranks a similar one of a weaker file.
"""
from __future__ import annotations

import numpy as np

from ..graph.codebase import CodebaseGraph
from .file_index import file_index
from .stemmed import field_matrix, query_stems
from .text import term_index
from . import libm

FIELDS = ("terms", "stemmed", "name")  # the term index's documents; stemmed; stemmed path + qualified name


def file_totals(graph: CodebaseGraph, total: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """Per file (``FileIndex`` order): the best total of its candidate definitions (0 when none is positive)."""
    index = file_index(graph)
    out = np.zeros(len(index.paths))
    np.maximum.at(out, index.file_of, np.where(cand, total, 0.0))
    return out


def file_share(graph: CodebaseGraph, total: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """Per symbol: its file's best total divided by the best file's (0 for non-candidates)."""
    per_file = file_totals(graph, total, cand)
    top = float(per_file.max()) if len(per_file) else 0.0
    if top <= 0:
        return np.zeros(len(total))
    return np.where(cand, per_file[file_index(graph).file_of] / top, 0.0)


def _field(graph: CodebaseGraph, query: str, field: str):
    """Docs x terms counts of ``field`` and the query's columns and counts in it."""
    if field == "terms":
        index = term_index(graph)
        return (index.tf, *index.query_vector(query))
    return (field_matrix(graph, "symbol" if field == "stemmed" else "name"), *query_stems(graph, query))


def local_scores(graph: CodebaseGraph, query: str, total: np.ndarray, cand: np.ndarray, files: int,
                 k1: float = 1.2, b: float = 0.75, field: str = "terms") -> np.ndarray:
    """Per symbol: within-file BM25 (see the module docstring) for the candidates of the ``files`` best files."""
    out = np.zeros(len(total))
    matrix, cols, counts = _field(graph, query, field)
    per_file = file_totals(graph, total, cand)
    top = float(per_file.max()) if len(per_file) else 0.0
    if len(cols) == 0 or top <= 0:
        return out
    fidx = file_index(graph)
    best = np.flatnonzero(per_file > 0)
    best = best[np.lexsort((best, -per_file[best]))][:files]
    for f in best.tolist():
        nodes = np.flatnonzero(cand & (fidx.file_of == f))
        if len(nodes) < 2:  # one definition: nothing to single out
            continue
        tf = matrix[nodes][:, cols].toarray()
        df = (tf > 0).sum(axis=0)
        idf = libm.log1p((len(nodes) - df + 0.5) / (df + 0.5))
        lengths = np.asarray(matrix[nodes].sum(axis=1)).ravel()
        norm = k1 * (1 - b + b * lengths / max(float(lengths.mean()), 1e-9))
        # Summed per row by numpy, not a BLAS mat-vec, whose kernel (and order of addition) depends on the CPU.
        score = ((tf * (k1 + 1) / (tf + norm[:, None])) * idf * counts).sum(axis=1)
        peak = float(score.max())
        if peak > 0:
            out[nodes] = score / peak * (per_file[f] / top)
    return out


def spread(graph: CodebaseGraph, total: np.ndarray, cand: np.ndarray, decay: float) -> np.ndarray:
    """``total / (1 + decay · j)`` for the candidate ranked ``j``-th (from 0) inside its own file.

    The share of the total that a file's BM25 and votes give every definition in it lets one long file fill
    the top of the ranking with its weak definitions; dividing each file's later definitions spreads the
    first ranks over more files while keeping each file's own order.
    """
    nodes = np.flatnonzero(cand & (total > 0))
    if len(nodes) == 0 or decay <= 0:
        return total
    file_of = file_index(graph).file_of[nodes]
    order = np.lexsort((nodes, -total[nodes], file_of))  # by file, best first inside it, ties by node
    files = file_of[order]
    starts = np.r_[0, np.flatnonzero(np.diff(files)) + 1]
    within = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    out = total.copy()
    out[nodes[order]] = total[nodes[order]] / (1.0 + decay * within)
    return out
