"""The static random-walk transition matrix of a code graph, built, cached, saved and memory-mapped.

``W_uv = λ_call·[u calls v] + λ_caller·[v calls u] + λ_inherit·[u, v related by
inheritance, either way] + λ_import·[u imports v]``; self-loops are dropped (a
recursive call says nothing about *other* code and would turn recursive
functions into mass sinks). ``T`` is ``W`` row-normalised; a row with no weight
is *dangling* (``d_u = 1``): the walk teleports from it (see ``diffusion``).

Saved as four ``.npy`` files (``data``, ``indices``, ``indptr``, ``dangling``).
``indices`` and ``indptr`` share one integer type, the one scipy would pick,
so ``load_transition`` can wrap the read-only memory maps in a
``scipy.sparse.csr_matrix`` without copying a byte; it checks that it did not.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..graph.codebase import CodebaseGraph
from ..graph.symbols import EdgeType
from .indexes import indexes_for

FILES = ("data", "indices", "indptr", "dangling")
_INT32_MAX = np.iinfo(np.int32).max


@dataclass(frozen=True)
class EdgeWeights:
    """The λ weights of ``W`` (a zero weight leaves that edge type out)."""

    call: float = 1.0
    caller: float = 0.5
    inherit: float = 0.0
    imports: float = 0.0

    def __post_init__(self) -> None:
        for name in ("call", "caller", "inherit", "imports"):
            value = getattr(self, name)
            if not np.isfinite(value) or value < 0:
                raise ValueError(f"edge weight {name} must be finite and >= 0, got {value!r}")


@dataclass(frozen=True)
class OrderedWalk:
    """``Tᵀ`` for the float32 iteration: CSR, float32 entries, node ``order[i]`` at position ``i`` (``rank`` inverts).

    CSR (each entry of ``Tᵀ·x`` one contiguous gather-and-sum, scipy's
    ``csr_matvec``), not the CSC view ``Transition.transposed`` (a scatter):
    5–10% faster on the 100k-node benchmark graph. Nodes ordered by how many
    rows of ``Tᵀ`` read them (their row length in ``T``, most first): the
    entries of ``x`` that most sums gather share cache lines, another ~15%.
    The iteration runs in this order and maps back once (``anderson``).
    """

    matrix: sp.csr_matrix
    order: np.ndarray  # order[i]: the node at position i
    rank: np.ndarray  # rank[node]: its position
    dangling: np.ndarray  # positions of the dangling nodes, sorted


@dataclass(frozen=True)
class Transition:
    """Row-stochastic ``matrix`` (dangling rows empty) and the dangling indicator."""

    matrix: sp.csr_matrix
    dangling: np.ndarray  # bool, one per node

    @property
    def n(self) -> int:
        return self.matrix.shape[0]

    @cached_property
    def transposed(self) -> sp.csc_matrix:
        """``Tᵀ`` as a CSC view of the same arrays (no copy), for ``π T = Tᵀ π``."""
        return self.matrix.T

    @cached_property
    def walk32(self) -> OrderedWalk:
        """``Tᵀ`` in float32 CSR, nodes relabelled for the mat-vec's cache (``OrderedWalk``), once per transition.

        ``transition_for`` memoises transitions per graph, so a query pays no
        conversion (here: a float32 copy of the entries and a relabelled copy of
        the indices, ~8 bytes an entry); ``anderson.anderson_pagerank`` bounds
        the rounding float32 adds (``max_in_entries``, which relabelling keeps).
        """
        m = self.matrix
        per_row = np.diff(np.asarray(m.indptr, dtype=np.int64))
        itype = m.indices.dtype
        order = np.argsort(-per_row, kind="stable").astype(itype)  # most-referenced first, ties by node id
        rank = np.empty_like(order)
        rank[order] = np.arange(self.n, dtype=itype)
        rows = np.repeat(np.arange(self.n, dtype=itype), per_row)
        # Tᵀ[v, u] = T[u, v]: row rank[v] (T's column), column rank[u] (T's row)
        tt = sp.coo_matrix((np.asarray(m.data, dtype=np.float32), (rank[m.indices], rank[rows])),
                           shape=(self.n, self.n)).tocsr()
        tt.sort_indices()
        return OrderedWalk(tt, order, rank, np.sort(rank[self.dangling_nodes]))

    @cached_property
    def max_in_entries(self) -> int:
        """The most entries in one row of ``Tᵀ`` (a node's in-degree in the walk): the longest sum of a mat-vec."""
        return int(np.bincount(np.asarray(self.matrix.indices), minlength=self.n).max(initial=0))

    @cached_property
    def dangling_nodes(self) -> np.ndarray:
        return np.flatnonzero(self.dangling)

    @cached_property
    def push_degree(self) -> np.ndarray:
        """Entries per row, 1 for a dangling row: the ``deg(u)`` of forward push's threshold ``eps·deg(u)``."""
        return np.maximum(np.diff(np.asarray(self.matrix.indptr, dtype=np.int64)), 1).astype(np.float64)


def _adjacency(indptr: np.ndarray, indices: np.ndarray, n: int) -> sp.csr_matrix:
    data = np.ones(len(indices), dtype=np.float64)
    return sp.csr_matrix((data, np.asarray(indices), np.asarray(indptr)), shape=(n, n))


def build_transition(n: int, calls: tuple[np.ndarray, np.ndarray], weights: EdgeWeights = EdgeWeights(), *,
                     inherits: tuple[np.ndarray, np.ndarray] | None = None,
                     imports: tuple[np.ndarray, np.ndarray] | None = None) -> Transition:
    """``Transition`` from CSR ``(indptr, indices)`` edge arrays (row = source)."""
    w = sp.csr_matrix((n, n), dtype=np.float64)
    if weights.call or weights.caller:
        c = _adjacency(*calls, n)
        w = w + weights.call * c + weights.caller * c.T.tocsr()
    if weights.inherit and inherits is not None:
        h = _adjacency(*inherits, n)
        w = w + weights.inherit * (h + h.T.tocsr())
    if weights.imports and imports is not None:
        w = w + weights.imports * _adjacency(*imports, n)
    w = sp.csr_matrix(w)
    w.setdiag(0.0)
    w.eliminate_zeros()
    w.sum_duplicates()
    w.sort_indices()
    rowsum = np.asarray(w.sum(axis=1)).ravel()
    dangling = rowsum <= 0
    scale = np.divide(1.0, rowsum, out=np.zeros(n), where=~dangling)
    t = sp.csr_matrix(sp.diags(scale) @ w)
    t.sort_indices()
    return Transition(_canonical(t.data, t.indices, t.indptr, n), dangling)


def _canonical(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, n: int) -> sp.csr_matrix:
    # One index type for both arrays (int32 while it fits), as scipy would choose:
    # then wrapping saved arrays later needs no conversion, hence no copy.
    itype = np.int32 if max(n, len(indices)) <= _INT32_MAX else np.int64
    return sp.csr_matrix(
        (np.ascontiguousarray(data, dtype=np.float64), np.ascontiguousarray(indices, dtype=itype),
         np.ascontiguousarray(indptr, dtype=itype)),
        shape=(n, n), copy=False,
    )


def transition_for(graph: CodebaseGraph, weights: EdgeWeights = EdgeWeights()) -> Transition:
    """The graph's transition matrix, built once per graph and weights (``GraphIndexes.transitions``)."""
    transitions = indexes_for(graph).transitions
    found = transitions.get(weights)
    if found is None:
        found = transitions[weights] = build_transition(
            len(graph.symbols), graph.edges[EdgeType.CALLS], weights,
            inherits=graph.edges.get(EdgeType.INHERITS), imports=graph.edges.get(EdgeType.IMPORTS),
        )
    return found


def save_transition(transition: Transition, directory: Path | str) -> Path:
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    m = transition.matrix
    arrays = {"data": m.data, "indices": m.indices, "indptr": m.indptr,
              "dangling": np.asarray(transition.dangling, dtype=bool)}
    for name in FILES:
        tmp = out / f"{name}.npy.tmp"
        with open(tmp, "wb") as fh:
            np.save(fh, np.ascontiguousarray(arrays[name]))
        os.replace(tmp, out / f"{name}.npy")  # readers never see a half-written file
    return out


class TransitionFileError(ValueError):
    """Saved transition arrays that are missing or do not fit together."""


def load_transition(directory: Path | str) -> Transition:
    """Open the four ``.npy`` files read-only with ``mmap_mode="r"``; nothing is copied."""
    src = Path(directory)
    arrays = {}
    for name in FILES:
        path = src / f"{name}.npy"
        if not path.exists():
            raise TransitionFileError(f"{path}: missing (expected {', '.join(f + '.npy' for f in FILES)})")
        arrays[name] = np.load(path, mmap_mode="r")
    data, indices, indptr, dangling = (arrays[k] for k in FILES)
    n = len(indptr) - 1
    if indices.dtype != indptr.dtype or len(dangling) != n or len(data) != len(indices) or data.dtype != np.float64:
        raise TransitionFileError(
            f"{src}: inconsistent arrays (data {data.dtype}[{len(data)}], indices {indices.dtype}[{len(indices)}], "
            f"indptr {indptr.dtype}[{len(indptr)}], dangling [{len(dangling)}]); save them with save_transition"
        )
    matrix = sp.csr_matrix((data, indices, indptr), shape=(n, n), copy=False)
    for name, part in (("data", matrix.data), ("indices", matrix.indices), ("indptr", matrix.indptr)):
        if not np.shares_memory(part, arrays[name]):
            raise TransitionFileError(f"{src / (name + '.npy')}: scipy copied the array (dtype {arrays[name].dtype})")
    return Transition(matrix, dangling)
