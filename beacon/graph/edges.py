"""Per-file resolved edges kept sorted by type, and their concatenation into CSR arrays.

A builder keeps each file's resolved edges as one sorted, duplicate-free
``(source, target)`` array per edge type, so assembling the graph's CSR
arrays is a concatenation in file order checked in one pass, not a global
sort of every edge; ``EdgeAssembler`` splices a rebuild's few changed files
into the last concatenation.
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


def csr_from_sorted_pairs(pairs: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``csr_from_pairs`` of per-file sorted pairs concatenated in file order, without the global sort.

    Each file's pairs are sorted, and for most edge types every source lies in
    the file's own range of symbols, so the concatenation in file order is
    already sorted and duplicate-free; checking that is one pass. Otherwise
    (decorator edges start anywhere) fall back to the general function.
    """
    src, dst = pairs[:, 0], pairs[:, 1]
    if len(src) == 0:
        return csr_from_pairs(src, dst, n)
    key = src * n + dst
    if not np.all(key[1:] > key[:-1]):
        return csr_from_pairs(src, dst, n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst.astype(np.int32)


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros((0, 2), dtype=np.int64)


class EdgeAssembler:
    """Per edge type, the CSR arrays of the files' sorted pairs; remembers the last concatenation.

    A rebuild after editing a few files hands in the same pair objects for
    every other file, so the new pairs are spliced into the last
    concatenation (a few slices) instead of concatenating every file again:
    that was ~7,800 small arrays per edge type on sympy, ~10 ms of a
    one-line rebuild. Either way the result is ``csr_from_sorted_pairs`` of
    the full concatenation.
    """

    SPLICE_MAX = 16  # changed files up to which splicing is used

    def __init__(self) -> None:
        self._parts: list[tuple[np.ndarray, ...]] = []
        self._pairs: list[np.ndarray] = []  # per edge type: the concatenation of self._parts
        self._offsets: list[np.ndarray] = []  # per edge type: where each file's pairs start (+ the end)
        self.last_spliced = False

    def assemble(self, parts: list[tuple[np.ndarray, ...]], n: int) -> dict[EdgeType, tuple[np.ndarray, np.ndarray]]:
        """``parts``: per file in order, its pairs per edge type (``sorted_pairs_by_type``); ``n`` symbols."""
        changed = None
        if self._pairs and len(parts) == len(self._parts):  # (no _pairs yet: nothing to splice into)
            changed = [i for i, (a, b) in enumerate(zip(parts, self._parts)) if a is not b]
            if len(changed) > self.SPLICE_MAX:
                changed = None
        self.last_spliced = changed is not None
        if changed is None:
            self._pairs = [_concat([p[t] for p in parts]) for t in range(len(EDGE_TYPES))]
            self._offsets = [np.concatenate(([0], np.cumsum([len(p[t]) for p in parts], dtype=np.int64)))
                             for t in range(len(EDGE_TYPES))]
        else:
            for t in range(len(EDGE_TYPES)):
                old, offsets = self._pairs[t], self._offsets[t]
                pieces, prev = [], 0
                for i in changed:
                    pieces += [old[prev:offsets[i]], parts[i][t]]
                    prev = offsets[i + 1]
                pieces.append(old[prev:])
                lengths = np.diff(offsets)
                lengths[changed] = [len(parts[i][t]) for i in changed]
                self._pairs[t] = _concat(pieces)
                self._offsets[t] = np.concatenate(([0], np.cumsum(lengths)))
        self._parts = list(parts)
        return {etype: csr_from_sorted_pairs(self._pairs[t], n) for t, etype in enumerate(EDGE_TYPES)}
