"""Personalized PageRank by Andersen–Chung–Lang forward push, in vectorised frontier batches.

The walk is the one of ``diffusion``: ``π = (1 − β)·p0 + β·π·G`` with
``G = T + d·p0ᵀ`` (a dangling row teleports to the prior). Write
``R = (1 − β)·(I − β·G)⁻¹``, so that ``π = p0·R``; ``R`` is entrywise
non-negative and every row sums to 1. Forward push keeps an estimate ``p``
and a residual ``r`` with the invariant ``π = p + r·R``, starting from
``p = 0, r = p0``. Pushing node ``u`` uses ``x·R = (1 − β)·x + β·x·G·R``:
``p(u) += (1 − β)·r(u)``, ``r(v) += β·r(u)·T(u, v)`` for every out-neighbour
(for a dangling ``u``: ``r += β·r(u)·p0``), ``r(u) = 0``. Nodes are pushed while
``r(u) ≥ eps·deg(u)``, ``deg(u)`` = the number of entries of row ``u`` of
``T`` (1 for a dangling row), so hubs, whose pushes are expensive, are
pushed only when much mass waits at them.

Pushes of one round are applied together (every node above its threshold:
their rows copied out of ``T`` and scattered into ``r`` by two of scipy's
C loops): each push is still an exact application of the identity, so the
invariant holds; a Python loop over single pushes would be ~100× slower per push.

Guarantees on termination (every ``r(u) < eps·deg(u)``), for any graph:

* ``0 ≤ π(v) − p(v)`` for every node ``v`` (``p`` never overestimates);
* ``‖π − p‖₁ = ‖r‖₁`` exactly (``R`` is stochastic), returned as
  ``Diffusion.residual``, and ``‖r‖₁ < eps·Σ_{u: r(u) > 0} deg(u)``;
* per node, ``π(v) − p(v) ≤ (1 − β)·r(v) + β·‖r‖₁
  < (1 − β)·eps·deg(v) + β·‖r‖₁`` (from ``r·R = (1 − β)·r + β·r·G·R``).

On an undirected walk (``T`` the simple random walk of a symmetric 0/1
adjacency, no dangling rows) ACL's sharper bound holds as well:
``π(v) − p(v) < eps·deg(v)``, because ``deg(u)·R(u, v) = deg(v)·R(v, u)``.
Beacon's walk weights callers by ``λ_caller ≠ λ_call``, so only the bounds
above are claimed for it. ``p`` is returned as it is (summing to
``1 − ‖r‖₁``): rescaling would break the lower bound and changes no ranking.
Work is ``O(1/((1 − β)·eps))`` edge updates whatever the graph size.

Perron's ``solver="push"`` is ``warm_pagerank``: push alone loses on call
graphs (they reach their hubs in two hops, so most of the mass is still
residual when the frontier is already the whole graph), so a short push
(at most ``_PUSH_ROUNDS`` rounds over half of ``T``'s entries) gives the
start ``p + ‖r‖₁·π_global`` and its first walk step for free, and Anderson
extrapolation takes it to the power iteration's L1 stopping rule and bound,
testing each extrapolated iterate without a mat-vec (``f`` is affine), in
float32 when asked (``precision``; its rounding bounded and added to the bound): ``anderson.py``.
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy.sparse._sparsetools import csc_matvec, csr_row_index

from .anderson import PRECISIONS, anderson_pagerank
from .diffusion import Diffusion, DiffusionNotConverged, Prior, personalized_pagerank
from .transition import Transition

_DENSE_FRACTION = 0.1  # a round's entries, as a share of n, above which one test of all n nodes beats testing its targets
_PUSH_ROUNDS = 12  # warm_pagerank's push: at most this many rounds ...
_PUSH_VOLUME = 0.5  # ... over at most this share of T's entries (half a mat-vec); then the iteration takes over


def _forward_push(t: Transition, prior: Prior, beta: float, eps: float, max_rounds: int,
                  max_volume: float = np.inf):
    """``(p, r, rounds, pushes, converged)``: push every node over ``eps·deg(u)``, round by round.

    Stops early after ``max_rounds`` rounds or once the pushed rows hold
    ``max_volume`` entries in all; the invariant holds after every round.
    A round copies the pushed rows out of ``T`` (scipy's ``csr_row_index``)
    and scatters ``β·r(u)·T(u, ·)`` straight into ``r`` (``csc_matvec`` of the
    copied rows read as columns): two C loops over the round's entries, ~3×
    faster than gathering them with numpy index arithmetic and ``bincount``.
    """
    if not 0 < beta < 1:
        raise ValueError(f"beta must be in (0, 1), got {beta!r}")
    if prior.n != t.n:
        raise ValueError(f"prior has {prior.n} nodes, the transition matrix {t.n}")
    if len(prior.nodes) == 0:  # p0 must be a distribution; softmax_prior never builds an empty one
        raise ValueError("prior has no nodes (an empty seed): expected weights summing to 1, e.g. Prior.uniform")
    if not eps > 0 or max_rounds < 1:
        raise ValueError(f"need eps > 0 and max_rounds >= 1, got eps={eps!r}, max_rounds={max_rounds!r}")
    n = t.n
    # Plain ndarray views: a memory-mapped transition's np.memmap pays Python overhead on every slice.
    indptr, indices, data = (np.asarray(a) for a in (t.matrix.indptr, t.matrix.indices, t.matrix.data))
    itype = indptr.dtype  # sparsetools wants every index array in one type
    threshold = eps * t.push_degree
    p = np.zeros(n)
    r = np.zeros(n)
    r[prior.nodes] = prior.weights
    active = prior.nodes[prior.weights >= threshold[prior.nodes]].astype(itype)
    prior_nodes = prior.nodes.astype(itype)
    rounds = pushes = volume = 0
    while len(active) and rounds < max_rounds and volume < max_volume:
        mass = r[active]
        r[active] = 0.0
        p[active] += (1.0 - beta) * mass
        rounds += 1
        pushes += len(active)
        mass *= beta
        bounds = np.zeros(len(active) + 1, dtype=itype)  # the copied rows' CSR offsets
        np.cumsum(indptr[active + 1] - indptr[active], out=bounds[1:])
        size = int(bounds[-1])
        targets = np.empty(size, dtype=itype)
        weights = np.empty(size, dtype=data.dtype)
        csr_row_index(len(active), active, indptr, indices, data, targets, weights)
        csc_matvec(n, len(active), bounds, targets, weights, mass, r)  # r += Σ_u β·r(u)·T(u, ·), in place
        volume += size
        dangling = t.dangling[active]
        teleported = float(mass[dangling].sum()) if dangling.any() else 0.0
        if teleported:
            r[prior.nodes] += teleported * prior.weights
        if size > _DENSE_FRACTION * n:
            active = np.flatnonzero(r >= threshold).astype(itype)
            continue
        # A small frontier: test only the nodes that received mass (every other node was below its threshold).
        crossed = targets[np.take(r, targets) >= np.take(threshold, targets)]
        if teleported:
            crossed = np.concatenate((crossed, prior_nodes[r[prior_nodes] >= threshold[prior_nodes]]))
        active = np.unique(crossed)
    return p, r, rounds, pushes, len(active) == 0


def push_pagerank(t: Transition, prior: Prior, *, beta: float = 0.85, eps: float = 1e-6,
                  max_rounds: int = 10_000) -> Diffusion:
    """``π_query`` by forward push to ``r(u) < eps·deg(u)`` everywhere (bounds: module docstring).

    ``iterations`` and ``rounds`` count rounds, ``pushes`` single-node
    pushes, ``touched`` the nodes whose estimate or residual is non-zero.
    Warns with ``DiffusionNotConverged`` if ``max_rounds`` rounds leave nodes
    above threshold. An empty prior (no seed) is a ``ValueError``.
    """
    p, r, rounds, pushes, converged = _forward_push(t, prior, beta, eps, max_rounds)
    if not converged:
        warnings.warn(
            f"forward push did not converge: nodes above eps·deg after {rounds} rounds "
            f"(eps={eps:.3g}, beta={beta}); raise max_rounds or eps", DiffusionNotConverged, stacklevel=2,
        )
    touched = int(np.count_nonzero((p > 0) | (r > 0)))
    return Diffusion(p, rounds, float(r.sum()), converged, prior_fallback=prior.fallback, method="push",
                     pushes=pushes, touched=touched, rounds=rounds)


def warm_pagerank(t: Transition, prior: Prior, pi_global: np.ndarray, *, beta: float = 0.85, eps: float = 1e-5,
                  tol: float = 1e-4, max_iter: int = 200, depth: int = 3,
                  global_step: np.ndarray | None = None, precision: str = "float64",
                  threads: int = 1) -> Diffusion:
    """Forward push to ``eps``, then the iteration from ``x0 = p + ‖r‖₁·π_global`` (``anderson_pagerank``).

    Push alone loses on graphs that mix fast (a power-law call graph reaches
    its hubs in two hops, so the residual it leaves is spread everywhere and
    shrinking it costs more than mat-vecs do). But its estimate ``p`` is exact
    up to the residual's mass, and the walk started from a spread-out residual
    lands near the global walk ``π_global`` (computed once per graph), so
    ``x0`` (which sums to 1) starts the iteration several mat-vecs closer.
    Its first step costs no mat-vec: push keeps ``(1 − β)·r = (1 − β)·p0 +
    β·p·G − p``, so ``f(p) = p + (1 − β)·r``, and ``f`` is affine, so
    ``f(x0) = f(p) + ‖r‖₁·β·(π_global·T + (π_global·d)·p0)`` from
    ``global_step = π_global·T`` (once per graph; computed here if not given).
    From there Anderson extrapolation (``depth`` > 0; 0 is the plain power
    iteration, always float64) needs 2 mat-vecs for ``tol = 1e-2`` after a push
    to ``eps = 2e-6`` on the 100k-node benchmark graph (3 after one to 1e-5;
    L1 error ~3e-3). The stopping rule and its
    guarantee are the power iteration's: ``‖π − π*‖₁ ≤ (dropped + β·tol)/(1 − β)``
    (``Diffusion.error_bound``; ``dropped`` is float32's rounding allowance,
    0 in float64) before the final clip and renormalisation, which at most
    double it. ``iterations`` counts mat-vecs after the push;
    ``pushes``/``rounds``/``touched`` are the push's. ``threads``: the
    float32 mat-vecs' row blocks (``rowsplit``; the result is the same bytes).
    """
    # Push only while it is cheaper than the mat-vecs it saves: at most _PUSH_ROUNDS rounds (each has a fixed
    # numpy overhead, which dominates on small graphs) over at most _PUSH_VOLUME·nnz(T) entries in all.
    p, r, rounds, pushes, _ = _forward_push(t, prior, beta, eps, _PUSH_ROUNDS, _PUSH_VOLUME * max(t.matrix.nnz, t.n))
    mass = float(r.sum())
    pi_global = np.asarray(pi_global, dtype=np.float64)
    if global_step is None:
        global_step = t.transposed @ pi_global
    fp = r  # f(p) = p + (1 − β)·r, in r's buffer: non-zero exactly where p or r is (both are non-negative)
    fp *= 1.0 - beta
    fp += p
    touched = int(np.count_nonzero(fp))
    # Summed in float64 and rounded once into the iteration's precision (same-type passes, then one cast: a
    # float32 += float64 pass costs ~7× a same-type one).
    dtype = PRECISIONS.get(precision, np.float64) if depth else np.float64
    start = np.multiply(pi_global, mass)
    start += p
    start = start.astype(dtype, copy=False)
    first = np.multiply(global_step, mass * beta)
    first += fp
    first[prior.nodes] += mass * beta * float(pi_global[t.dangling_nodes].sum()) * prior.weights
    first = first.astype(dtype, copy=False)
    if depth == 0:
        walk = personalized_pagerank(t, prior, beta=beta, tol=tol, max_iter=max_iter, start=start / start.sum())
    else:
        walk = anderson_pagerank(t, prior, start, beta=beta, tol=tol, max_iter=max_iter, depth=depth, first=first,
                                 precision=precision, threads=threads)
    return Diffusion(walk.pi, walk.iterations, walk.residual, walk.converged, walk.dropped, prior.fallback,
                     method="push+power" if depth == 0 else "push+anderson", pushes=pushes, touched=touched,
                     rounds=rounds)
