"""Per-file resolved edges kept sorted by type, and their concatenation into CSR arrays.

A builder keeps each file's resolved edges as one sorted, duplicate-free
``(source, target)`` array per edge type, so assembling the graph's CSR
arrays is a concatenation in file order checked in one pass, not a global
sort of every edge.
"""
from __future__ import annotations

import numpy as np

from .codebase import csr_from_pairs
from .symbols import EdgeType

EDGE_TYPES = tuple(EdgeType)
_EDGE_VALUES = np.array([int(e) for e in EDGE_TYPES])  # per-file pairs come in this order


def sorted_pairs_by_type(edges: list[tuple[int, int, int]]) -> tuple[np.ndarray, ...]:
    """Per edge type, the ``(source, target)`` pairs sorted and without duplicates."""
    arr = np.array(edges, dtype=np.int64).reshape(-1, 3)
    if len(arr) > 1:
        arr = arr[np.lexsort((arr[:, 2], arr[:, 1], arr[:, 0]))]
        keep = np.ones(len(arr), dtype=bool)
        keep[1:] = np.any(arr[1:] != arr[:-1], axis=1)
        arr = arr[keep]
    lo = np.searchsorted(arr[:, 0], _EDGE_VALUES, side="left")
    hi = np.searchsorted(arr[:, 0], _EDGE_VALUES, side="right")
    # contiguous copies: concatenating strided views is several times slower
    return tuple(np.ascontiguousarray(arr[a:b, 1:]) for a, b in zip(lo, hi))


def csr_from_sorted_parts(parts: list[np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray]:
    """``csr_from_pairs`` of the concatenated per-file pairs, without the global sort.

    Each file's pairs are sorted, and for most edge types every source lies in
    the file's own range of symbols, so the concatenation in file order is
    already sorted and duplicate-free; checking that is one pass. Otherwise
    (decorator edges start anywhere) fall back to the general function.
    """
    pairs = np.concatenate(parts) if parts else np.zeros((0, 2), dtype=np.int64)
    src, dst = pairs[:, 0], pairs[:, 1]
    if len(src) == 0:
        return csr_from_pairs(src, dst, n)
    key = src * n + dst
    if not np.all(key[1:] > key[:-1]):
        return csr_from_pairs(src, dst, n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst.astype(np.int32)
