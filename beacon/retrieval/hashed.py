"""Hashed vectors: deterministic signed token hashing into 96 dimensions (the ``vector``/``embedding`` signal).

This is NOT a pretrained or learned embedding. Each term is hashed (BLAKE2b)
to one of 96 dimensions with a sign; a document's vector is the sum of its
terms' signed, log-scaled counts, L2-normalised; similarity is the cosine. It
is a cheap, reproducible lexical baseline under an "embedding" interface:
``vector`` and ``embedding`` are the same recipe of the composer.
"""
from __future__ import annotations

import hashlib
import math

import numpy as np
import scipy.sparse as sp

from ..graph.codebase import CodebaseGraph
from .indexes import indexes_for
from .text import term_index, terms
from . import libm

DIMENSIONS = 96


def _slot(term: str) -> tuple[int, float]:
    h = int.from_bytes(hashlib.blake2b(term.encode(), digest_size=8).digest(), "little")
    return h % DIMENSIONS, 1.0 if (h >> 32) & 1 else -1.0


def _normalise(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=-1, keepdims=True)
    return np.divide(m, norms, out=np.zeros_like(m), where=norms > 0)


def _slots(vocab: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """``_slot`` of every term, by term id: the digests in one buffer, slot and sign taken with numpy."""
    blake2b = hashlib.blake2b
    digests = b"".join([blake2b(t.encode(), digest_size=8).digest() for t in vocab])
    h = np.empty(len(vocab), dtype=np.uint64)
    h[np.fromiter(vocab.values(), dtype=np.int64, count=len(vocab))] = np.frombuffer(digests, dtype="<u8")
    signs = np.where((h >> np.uint64(32)) & np.uint64(1), 1.0, -1.0)
    return (h % np.uint64(DIMENSIONS)).astype(np.int64), signs


def symbol_vectors(graph: CodebaseGraph) -> np.ndarray:
    ix = indexes_for(graph)
    if ix.hashed_vectors is None:
        index = term_index(graph)
        cols, signs = _slots(index.vocab)
        projection = sp.csr_matrix((signs, (np.arange(len(cols)), cols)), shape=(len(cols), DIMENSIONS))
        logtf = index.tf.copy()
        logtf.data = 1.0 + libm.log(logtf.data)
        ix.hashed_vectors = _normalise(np.asarray((logtf @ projection).todense()))
    return ix.hashed_vectors


def query_vector(query: str) -> np.ndarray:
    vec = np.zeros(DIMENSIONS)
    counts: dict[str, int] = {}
    for t in terms(query):
        counts[t] = counts.get(t, 0) + 1
    for t, c in counts.items():
        slot, sign = _slot(t)
        vec[slot] += sign * (1.0 + math.log(c))
    return _normalise(vec)


def hashed_similarity(graph: CodebaseGraph, query: str) -> np.ndarray:
    """Cosine of every symbol's vector with the query's.

    Products summed per row by numpy's pairwise sum, not a BLAS mat-vec:
    OpenBLAS picks its kernel per CPU and the kernels add in different
    orders, which would reorder near-ties from machine to machine.
    """
    vectors = symbol_vectors(graph)
    return np.multiply(vectors, query_vector(query)).sum(axis=1)
