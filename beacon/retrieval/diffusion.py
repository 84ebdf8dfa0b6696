"""Query-directed diffusion: softmax teleport prior, personalized PageRank, specificity.

The power iteration is the one of the design,
``π ← β·(π T) + (β·(π·d) + 1 − β)·p0`` from ``π = p0``, run in *difference
form*: ``δ_k = π_{k+1} − π_k`` obeys the linear recurrence
``δ_{k+1} = β·(δ_k T) + β·(δ_k·d)·p0``, and ``‖δ_k‖₁`` is exactly the L1
change the stopping rule looks at. A query prior sits on a few top-k nodes, so
``δ`` is sparse for the first hops and only the rows of its support are
multiplied ("sparse power iteration"); once the support is large a dense
mat-vec takes over. With ``prune > 0`` entries of ``δ`` below ``prune`` in
absolute value are dropped, which keeps the walk local on large graphs; the
dropped mass is reported and bounds the error:
``‖π − π*‖₁ ≤ (dropped + β·residual) / (1 − β)`` (the recurrence's operator
has L1 norm ≤ β). ``prune = 0`` is the exact iteration.

Specificity damps hubs: ``Spec(v) = π_query(v) / (π_global(v) + ε)^γ`` with
``π_global`` the same walk under a uniform prior, computed once per graph.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np

from ..graph.codebase import CodebaseGraph
from .indexes import indexes_for
from .transition import EdgeWeights, Transition, transition_for
from . import libm

_DENSE_FRACTION = 0.05  # support share above which a dense mat-vec is cheaper than a gather


class DiffusionNotConverged(RuntimeWarning):
    """The power iteration hit its iteration cap before the L1 tolerance."""


@dataclass(frozen=True)
class Prior:
    """Teleport distribution ``p0`` on ``nodes`` (sorted, unique); ``fallback`` says why it is uniform."""

    n: int
    nodes: np.ndarray  # int64
    weights: np.ndarray  # float64, sums to 1
    fallback: str | None = None

    def dense(self) -> np.ndarray:
        out = np.zeros(self.n)
        out[self.nodes] = self.weights
        return out

    @classmethod
    def uniform(cls, n: int, reason: str | None = None) -> Prior:
        if n <= 0:
            raise ValueError("a prior needs at least one node")
        return cls(n, np.arange(n, dtype=np.int64), np.full(n, 1.0 / n), reason)


def softmax_prior(similarity: np.ndarray, *, top_k: int = 50, temperature: float = 0.05,
                  normalize: bool = True, nodes: np.ndarray | None = None, n: int | None = None) -> Prior:
    """``p0(i) = exp(s_i/τ − c) / Σ_j exp(s_j/τ − c)``, ``c = max_j s_j/τ``, over the top-k.

    ``similarity`` is one score per node, or per entry of ``nodes`` (then a
    node listed twice keeps its best score, and ``n`` is the node count).
    Candidates are the ``top_k`` entries with a positive score (ties: lower
    node first); NaN and −inf count as no evidence. ``+inf`` entries share all
    the mass equally (the softmax limit). With ``normalize`` the scores are
    divided by their maximum first, so one temperature serves unbounded BM25
    scores and cosines alike. No positive score at all (e.g. an all-zero
    vector) gives the uniform prior, with ``fallback`` saying so.
    """
    if temperature <= 0 or not np.isfinite(temperature):
        raise ValueError(f"temperature must be finite and > 0, got {temperature!r}")
    if top_k < 1:
        raise ValueError(f"top_k must be >= 1, got {top_k!r}")
    s = np.asarray(similarity, dtype=np.float64).ravel()
    if nodes is None:
        n = len(s) if n is None else n
        if len(s) != n:
            raise ValueError(f"similarity has {len(s)} entries for {n} nodes")
        ids = np.arange(n, dtype=np.int64)
    else:
        ids = np.asarray(nodes, dtype=np.int64).ravel()
        if n is None or len(ids) != len(s) or (len(ids) and (ids.min() < 0 or ids.max() >= n)):
            raise ValueError("nodes must align with similarity and lie in [0, n)")
    s = np.where(np.isnan(s), -np.inf, s)
    keep = s > 0
    ids, s = ids[keep], s[keep]
    if nodes is not None and len(ids):  # duplicates: keep each node's best score
        order = np.lexsort((-s, ids))
        ids, s = ids[order], s[order]
        first = np.concatenate(([True], ids[1:] != ids[:-1]))
        ids, s = ids[first], s[first]
    if len(ids) == 0:
        return Prior.uniform(n, "uniform: no positive, finite query similarity")
    order = np.lexsort((ids, -s))[:top_k]
    ids, s = ids[order], s[order]
    if np.isposinf(s).any():
        z = np.isposinf(s).astype(np.float64)
    else:
        if normalize:
            s = s / s.max()
        # s_i/τ − c computed as (s_i − max s)/τ: the same number, but s/τ alone
        # can overflow for huge scores or tiny τ; every exponent is <= 0.
        with np.errstate(over="ignore"):  # a gap so large it overflows to -inf has weight 0, rightly
            z = libm.exp((s - s.max()) / temperature)
    w = z / z.sum()
    keep = w > 0  # underflowed candidates leave the support, so δ stays sparse
    order = np.argsort(ids[keep])
    return Prior(n, ids[keep][order], w[keep][order])


@dataclass(frozen=True)
class Diffusion:
    """A stationary vector and how the iteration that produced it went."""

    pi: np.ndarray
    iterations: int
    residual: float  # ‖π_k − π_{k−1}‖₁ at the last step (push: ‖r‖₁ = ‖π − p‖₁)
    converged: bool
    dropped: float = 0.0  # L1 mass pruned from δ (0 for the exact iteration); float32 Anderson: its rounding bound
    prior_fallback: str | None = None
    method: str = "power"  # "push" (``push.push_pagerank``: residual = the exact L1 error), "push+anderson", …
    pushes: int = 0  # single-node pushes (push only)
    touched: int = 0  # nodes with a non-zero estimate or residual (push only)
    rounds: int = 0  # push rounds (each pushes every node over its threshold at once)
    step: np.ndarray | None = None  # π·T (``global_rank_for`` only): a warm start's first step without a mat-vec

    def error_bound(self, beta: float) -> float:
        """Upper bound on ``‖π − π*‖₁`` (truncation of the series plus pruning; push: its residual mass)."""
        if self.method == "push":
            return self.residual
        return (self.dropped + beta * self.residual) / (1.0 - beta)


def _step_dense(t: Transition, y: np.ndarray, prior: Prior, beta: float) -> np.ndarray:
    """``β·(δ T) + β·(δ·d)·p0`` with one mat-vec over the whole matrix."""
    out = t.transposed @ y
    out *= beta
    mass = float(y[t.dangling_nodes].sum())
    if mass:
        out[prior.nodes] += beta * mass * prior.weights
    return out


def _step_sparse(t: Transition, idx: np.ndarray, y: np.ndarray, prior: Prior, beta: float) -> np.ndarray:
    """The same step reading only the rows of ``δ``'s support ``idx``."""
    m = t.matrix
    val = y[idx]
    starts = m.indptr[idx].astype(np.int64)
    lens = m.indptr[idx + 1].astype(np.int64) - starts
    offsets = np.cumsum(lens) - lens
    pos = np.repeat(starts - offsets, lens) + np.arange(int(lens.sum()), dtype=np.int64)
    out = np.bincount(m.indices[pos], weights=m.data[pos] * np.repeat(val, lens), minlength=t.n).astype(np.float64)
    out *= beta
    mass = float(val[t.dangling[idx]].sum())
    if mass:
        out[prior.nodes] += beta * mass * prior.weights
    return out


def personalized_pagerank(t: Transition, prior: Prior, *, beta: float = 0.85, tol: float = 1e-4,
                          max_iter: int = 200, prune: float = 0.0, start: np.ndarray | None = None) -> Diffusion:
    """Iterate ``π ← β·(π T) + (β·(π·d) + 1 − β)·p0`` from ``π = p0`` until ``‖Δπ‖₁ ≤ tol``.

    ``start`` (non-negative, summing to 1) replaces ``p0`` as the first
    iterate (a warm start, see ``push.warm_pagerank``): ``δ`` then obeys the
    same recurrence, because ``Σδ = 0`` cancels the teleport term, so the
    stopping rule and the error bound are unchanged. Warns with
    ``DiffusionNotConverged`` (and returns the last iterate, marked
    ``converged=False``) when ``max_iter`` steps do not reach ``tol``.
    """
    if not 0 < beta < 1:
        raise ValueError(f"beta must be in (0, 1), got {beta!r}")
    if prior.n != t.n:
        raise ValueError(f"prior has {prior.n} nodes, the transition matrix {t.n}")
    if max_iter < 1 or tol <= 0 or prune < 0:
        raise ValueError("need max_iter >= 1, tol > 0 and prune >= 0")
    if start is None:
        pi = prior.dense()
        dense = len(prior.nodes) > _DENSE_FRACTION * t.n
        # δ_0 = π_1 − π_0 = β·p0 T + β·(p0·d)·p0 − β·p0
        delta = _step_dense(t, pi, prior, beta) if dense else _step_sparse(t, prior.nodes, pi, prior, beta)
        delta[prior.nodes] -= beta * prior.weights
    else:
        pi = np.array(start, dtype=np.float64)
        if pi.shape != (t.n,) or not abs(pi.sum() - 1.0) <= 1e-9 or (pi < 0).any():
            raise ValueError("start must be a non-negative vector with one entry per node, summing to 1")
        dense = True  # a warm start is spread over the graph already
        # δ_0 = β·x0 T + β·(x0·d)·p0 + (1 − β)·p0 − x0
        delta = _step_dense(t, pi, prior, beta)
        delta[prior.nodes] += (1.0 - beta) * prior.weights
        delta -= pi
    dropped = 0.0
    iterations, residual = 0, np.inf
    while iterations < max_iter:
        size = np.abs(delta)
        if prune > 0:
            small = size < prune
            dropped += float(size[small].sum())
            delta[small] = 0.0
            size[small] = 0.0
        pi += delta
        iterations += 1
        residual = float(size.sum())
        if residual <= tol:
            break
        if not dense or prune > 0:  # an unpruned support seldom shrinks: once dense, stay dense
            idx = np.flatnonzero(delta)
            dense = len(idx) > _DENSE_FRACTION * t.n
        delta = _step_dense(t, delta, prior, beta) if dense else _step_sparse(t, idx, delta, prior, beta)
    converged = residual <= tol
    if not converged:
        warnings.warn(
            f"personalized PageRank did not converge: L1 residual {residual:.3g} > tol {tol:.3g} "
            f"after {iterations} iterations (beta={beta}); raise max_iter or tol",
            DiffusionNotConverged, stacklevel=2,
        )
    np.maximum(pi, 0.0, out=pi)  # pruning/rounding can leave -1e-17s; π is a distribution
    total = pi.sum()
    if total > 0:
        pi /= total
    return Diffusion(pi, iterations, residual, converged, dropped, prior.fallback)


def global_pagerank(t: Transition, *, beta: float = 0.85, tol: float = 1e-10, max_iter: int = 1000) -> Diffusion:
    """``π_global``: the same walk under a uniform prior (exact iteration)."""
    return personalized_pagerank(t, Prior.uniform(t.n), beta=beta, tol=tol, max_iter=max_iter)


def global_rank_for(graph: CodebaseGraph, weights: EdgeWeights = EdgeWeights(), *, beta: float = 0.85,
                    tol: float = 1e-10, max_iter: int = 1000) -> Diffusion:
    """``π_global`` of ``graph`` with its ``step`` ``π_global·T``, once per graph and parameters (``global_ranks``)."""
    key = (weights, beta, tol, max_iter)
    ranks = indexes_for(graph).global_ranks
    found = ranks.get(key)
    if found is None:
        t = transition_for(graph, weights)
        walk = global_pagerank(t, beta=beta, tol=tol, max_iter=max_iter)
        found = ranks[key] = replace(walk, step=t.transposed @ walk.pi)
    return found


def specificity(pi_query: np.ndarray, pi_global: np.ndarray, *, gamma: float = 0.7, eps: float = 1e-8,
                denominator: np.ndarray | None = None) -> np.ndarray:
    """``π_query(v) / (π_global(v) + ε)^γ``: high where the query's walk is, low at global hubs.

    ``denominator``: ``specificity_denominator(pi_global, gamma=gamma, eps=eps)``
    when the caller has it (``specificity_for`` keeps it per graph).
    """
    if denominator is None:
        denominator = specificity_denominator(pi_global, gamma=gamma, eps=eps)
    return np.asarray(pi_query, dtype=np.float64) / denominator


def specificity_denominator(pi_global: np.ndarray, *, gamma: float = 0.7, eps: float = 1e-8) -> np.ndarray:
    """``(π_global + ε)^γ`` per node, by the C library's ``pow`` (``libm``: the same bytes on every CPU)."""
    if gamma < 0 or eps <= 0:
        raise ValueError(f"need gamma >= 0 and eps > 0, got gamma={gamma!r}, eps={eps!r}")
    return libm.power(np.asarray(pi_global, dtype=np.float64) + eps, gamma)


def specificity_for(graph: CodebaseGraph, weights: EdgeWeights, *, beta: float, gamma: float,
                    eps: float) -> np.ndarray:
    """``specificity_denominator`` of ``graph``'s ``π_global``, once per graph and parameters: a ``pow`` per
    node costs ~10 ms on a 100k-node graph, too much to pay per query."""
    key = (weights, beta, gamma, eps)
    found = indexes_for(graph).specificity.get(key)
    if found is None:
        found = indexes_for(graph).specificity[key] = specificity_denominator(
            global_rank_for(graph, weights, beta=beta).pi, gamma=gamma, eps=eps)
    return found
