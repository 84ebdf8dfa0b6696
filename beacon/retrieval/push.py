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

Pushes of one round are applied together (every node above its threshold,
one numpy gather/scatter over their rows): each push is still an exact
application of the identity, so the invariant holds; a Python loop over
single pushes would be ~100× slower per push.

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
float32 when asked (``precision``; its rounding bounded and added to the bound).
"""
from __future__ import annotations

import warnings

import numpy as np

from .diffusion import Diffusion, DiffusionNotConverged, Prior, personalized_pagerank
from .transition import Transition

_DENSE_FRACTION = 0.01  # frontier volume share above which scattering into a length-n vector beats sorting (measured)
_PUSH_ROUNDS = 12  # warm_pagerank's push: at most this many rounds ...
_PUSH_VOLUME = 0.5  # ... over at most this share of T's entries (half a mat-vec); then the iteration takes over


def _push_targets(t: Transition, active: np.ndarray, mass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(target node, β·r(u)·T(u, v)) for every stored entry of the rows ``active``."""
    m = t.matrix
    starts = m.indptr[active].astype(np.int64)
    lens = m.indptr[active + 1].astype(np.int64) - starts
    offsets = np.cumsum(lens) - lens
    pos = np.repeat(starts - offsets, lens) + np.arange(int(lens.sum()), dtype=np.int64)
    return m.indices[pos], m.data[pos] * np.repeat(mass, lens)


def _forward_push(t: Transition, prior: Prior, beta: float, eps: float, max_rounds: int,
                  max_volume: float = np.inf):
    """``(p, r, rounds, pushes, converged)``: push every node over ``eps·deg(u)``, round by round.

    Stops early after ``max_rounds`` rounds or once the pushed rows hold
    ``max_volume`` entries in all; the invariant holds after every round.
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
    threshold = eps * t.push_degree
    p = np.zeros(n)
    r = np.zeros(n)
    r[prior.nodes] = prior.weights
    active = prior.nodes[prior.weights >= threshold[prior.nodes]]
    rounds = pushes = volume = 0
    while len(active) and rounds < max_rounds and volume < max_volume:
        mass = r[active]
        r[active] = 0.0
        p[active] += (1.0 - beta) * mass
        rounds += 1
        pushes += len(active)
        targets, amounts = _push_targets(t, active, beta * mass)
        volume += len(targets)
        teleported = beta * float(mass[t.dangling[active]].sum())
        if len(targets) > _DENSE_FRACTION * n:
            r += np.bincount(targets, weights=amounts, minlength=n)
            if teleported:
                r[prior.nodes] += teleported * prior.weights
            active = np.flatnonzero(r >= threshold)
            continue
        # A small frontier: touch only its targets (a sort of the few entries, not a pass over all n nodes).
        touched, inverse = np.unique(targets, return_inverse=True)
        r[touched] += np.bincount(inverse, weights=amounts, minlength=len(touched))
        if teleported:
            r[prior.nodes] += teleported * prior.weights
            touched = np.union1d(touched, prior.nodes)
        active = touched[r[touched] >= threshold[touched]]
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


def _walk_step(t: Transition, x: np.ndarray, prior: Prior, beta: float) -> np.ndarray:
    """``f(x) = β·x·T + (β·(x·d) + 1 − β)·p0``: one step of the walk (``π* = f(π*)``), one mat-vec.

    In ``x``'s precision: a float32 ``x`` is multiplied by ``Transition.transposed32``.
    """
    y = (t.transposed32 if x.dtype == np.float32 else t.transposed) @ x
    y *= beta
    y[prior.nodes] += (beta * float(x[t.dangling_nodes].sum()) + 1.0 - beta) * prior.weights
    return y


PRECISIONS = {"float64": np.float64, "float32": np.float32}
_FLOAT32_MIN_TOL = 1e-5  # ~100 float32 ulps of a distribution's L1 norm: below, rounding would dominate the test


def rounding_allowance(t: Transition, gamma_l1: float, norm: float, beta: float) -> float:
    """A bound on the L1 rounding error that float32 adds to a returned iterate and to its tested residual.

    One float32 walk step ``f̃(x)`` differs from ``f(x)`` by at most
    ``(β·γ_{m+2} + 3u)·‖x‖₁ + 2u`` in L1 (``u = 2⁻²⁴``; ``γ_j = j·u/(1 − j·u)``
    bounds a sum of ``j`` rounded products, ``m = Transition.max_in_entries``
    the longest row of ``Tᵀ``, the 2 the rounding of ``T``'s and ``x``'s
    entries; then the scaling and the teleport term) because ``T``'s columns
    sum to at most 1. The returned iterate is a combination of evaluations
    whose coefficients sum to 1 with L1 norm at most ``1 + 2‖γ‖₁``, and the
    differences, combinations and the pairwise L1 sums are rounded too (a few
    ``u`` each, times ``log₂ n`` for a sum). ``norm`` bounds the ``‖x‖₁`` of
    every evaluated iterate.
    """
    u = float(np.finfo(np.float32).eps) / 2
    j = t.max_in_entries + 2
    per_step = (beta * j * u / (1 - j * u) + 3 * u) * norm + 2 * u
    arithmetic = (12 + np.log2(max(t.n, 2))) * u * (norm + 1)
    return (1.0 + 2.0 * gamma_l1) * (per_step + arithmetic)


def anderson_pagerank(t: Transition, prior: Prior, start: np.ndarray, *, beta: float = 0.85, tol: float = 1e-4,
                      max_iter: int = 200, depth: int = 3, first: np.ndarray | None = None,
                      precision: str = "float64") -> Diffusion:
    """``π* = f(π*)`` from ``start`` by Anderson-accelerated fixed-point iteration (type II, ``depth`` past steps).

    Step ``k`` evaluates ``f(x_k)`` (one mat-vec; ``first = f(start)`` when
    the caller has it for free) and the residual ``g_k = f(x_k) − x_k``; the
    extrapolation is the combination ``x̄ = x_k − Σ γ_j·Δx_j`` of the last
    ``depth`` differences of iterates whose residual ``ḡ = g_k − Σ γ_j·Δg_j``
    is least (least squares on a ``depth × depth`` system), and the next
    iterate is ``x_{k+1} = f(x_k) − Σ γ_j·Δf_j``. The guarantee does not
    depend on how the iterates were extrapolated: ``f(x) − π* = β·(x − π*)·G``
    with ``G = T + d·p0ᵀ`` non-negative and row-stochastic, so ``f`` is a
    ``β``-contraction in L1 and ``‖f(y) − π*‖₁ ≤ β·‖f(y) − y‖₁/(1 − β)`` for
    any ``y`` — the power iteration's bound (``Diffusion.error_bound``).

    The stopping test costs no mat-vec: ``f`` is affine and ``x̄`` is an
    affine combination of past iterates (its coefficients sum to 1), so
    ``f(x̄) − x̄ = ḡ`` and ``f(x̄) = x_{k+1}`` exactly. The iteration stops as
    soon as ``‖ḡ‖₁ ≤ tol`` (for a plain step, ``‖g_k‖₁ ≤ tol``) and returns
    ``x_{k+1}`` (resp. ``f(x_k)``) with that residual, one mat-vec earlier
    than evaluating ``f(x_{k+1})`` to test it. A step whose residual grows
    restarts the history (a plain step), so the iteration is never worse than
    a few wasted mat-vecs. ``depth=0`` is the plain iteration from ``start``.

    ``precision="float32"`` keeps the iterates and the mat-vecs in float32
    (``Transition.transposed32``; the small least-squares systems stay
    float64): a third less memory traffic per mat-vec and half per vector
    operation. Its rounding is bounded by ``rounding_allowance`` and reported
    as ``Diffusion.dropped``, so ``error_bound`` = ``(dropped + β·residual)/(1 − β)``
    still bounds ``‖π − π*‖₁`` (before the clip and renormalisation, which at
    most double it); ``tol`` must then be at least 1e-5. ``iterations``
    counts the mat-vecs done here (a given ``first`` is not one).
    """
    if depth < 0 or max_iter < 1 or not tol > 0:
        raise ValueError(f"need depth >= 0, max_iter >= 1 and tol > 0, got {depth!r}, {max_iter!r}, {tol!r}")
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {sorted(PRECISIONS)}, got {precision!r}")
    dtype = PRECISIONS[precision]
    if dtype is np.float32 and tol < _FLOAT32_MIN_TOL:
        raise ValueError(f"precision='float32' needs tol >= {_FLOAT32_MIN_TOL:g} (float32 rounding), got {tol!r}")
    x = np.asarray(start, dtype=dtype)  # never written to: the iterates below are new arrays
    fx = _walk_step(t, x, prior, beta) if first is None else np.asarray(first, dtype=dtype)
    matvecs = int(first is None)
    # Rows of dg hold differences of successive residuals, rows of dfx those of successive f(x) (= x + g), kept in
    # place (the oldest row is overwritten); gram = dg·dgᵀ (float64, the products in the iterates' precision: any
    # γ is safe) is updated one row at a time.
    # einsum, not BLAS: these products are too small to share out, and a threaded BLAS beside a busy core only waits.
    width = max(depth, 1)
    dg = np.empty((width, len(x)), dtype=dtype)
    dfx = np.empty_like(dg)
    gram = np.empty((width, width))
    work = np.empty(len(x), dtype=dtype)  # scratch for |·|: the L1 norms below allocate nothing
    rows = 0
    gamma = np.zeros(0)
    last_fx = last_g = None
    last = np.inf
    g = fx - x
    residual = peak = float(np.abs(g, out=work).sum())  # peak: the largest residual of an evaluated iterate
    while residual > tol and matvecs < max_iter:
        if residual > last:  # the extrapolation overshot: start the history again from a plain step
            rows, last_fx = 0, None
        last = residual
        if depth and last_fx is not None:
            slot = rows % depth
            np.subtract(g, last_g, out=dg[slot])
            np.subtract(fx, last_fx, out=dfx[slot])
            rows += 1
            k = min(rows, depth)
            gram[slot, :k] = gram[:k, slot] = np.einsum("ij,j->i", dg[:k], dg[slot])
        last_fx, last_g = fx, g
        if rows:
            k = min(rows, depth)
            gamma = _least_squares(gram[:k, :k], np.einsum("ij,j->i", dg[:k], g).astype(np.float64))
            np.einsum("i,ij->j", gamma.astype(dtype), dg[:k], out=work)
            np.subtract(g, work, out=work)  # ḡ = f(x̄) − x̄
            predicted = float(np.abs(work, out=work).sum())
            x = np.einsum("i,ij->j", gamma.astype(dtype), dfx[:k])
            np.subtract(fx, x, out=x)  # x_{k+1} = f(x̄)
            if predicted <= tol:
                fx, residual = x, predicted
                break
        else:
            x = fx
        fx = _walk_step(t, x, prior, beta)
        matvecs += 1
        g = fx - x
        residual = float(np.abs(g, out=work).sum())
        peak = max(peak, residual)
        gamma = np.zeros(0)
    converged = residual <= tol
    if not converged:
        warnings.warn(
            f"Anderson-accelerated PageRank did not converge: L1 residual {residual:.3g} > tol {tol:.3g} "
            f"after {matvecs} iterations (beta={beta}); raise max_iter or tol", DiffusionNotConverged, stacklevel=2,
        )
    rounding = 0.0
    if dtype is np.float32:  # every evaluated x has ‖x‖₁ ≤ ‖f(x)‖₁ + ‖g‖₁ ≤ β·‖x‖₁ + 1 − β + ‖g‖₁ (2×: g is rounded)
        norm = 1.0 + 2.0 * peak / (1.0 - beta)
        rounding = rounding_allowance(t, float(np.abs(gamma).sum()), norm, beta)
    pi = np.maximum(fx, 0.0, dtype=np.float64)  # extrapolated iterates may dip below 0; π* does not
    pi /= pi.sum()
    return Diffusion(pi, matvecs, residual, converged, rounding, prior_fallback=prior.fallback,
                     method="power" if depth == 0 else "anderson")


def _least_squares(gram: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``γ`` minimising ``‖g − γ·Δg‖₂`` from its normal equations (``k ≤ depth`` unknowns).

    A Tikhonov term of ``1e-12·trace`` keeps a (nearly) singular Gram matrix
    (e.g. two equal residual differences) solvable at the cost of one tiny
    LAPACK call, where an SVD-based least squares costs ~10× more. Any ``γ``
    is safe: the stopping test and its bound hold whatever the extrapolation.
    """
    scale = float(np.trace(gram))
    if not scale > 0:
        return np.zeros(len(rhs))
    return np.linalg.solve(gram + (1e-12 * scale) * np.eye(len(rhs)), rhs)


def warm_pagerank(t: Transition, prior: Prior, pi_global: np.ndarray, *, beta: float = 0.85, eps: float = 1e-5,
                  tol: float = 1e-4, max_iter: int = 200, depth: int = 3,
                  global_step: np.ndarray | None = None, precision: str = "float64") -> Diffusion:
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
    iteration, always float64) needs 3 mat-vecs for ``tol = 1e-2`` on the
    100k-node benchmark graph (L1 error ~1.6e-3). The stopping rule and its
    guarantee are the power iteration's: ``‖π − π*‖₁ ≤ (dropped + β·tol)/(1 − β)``
    (``Diffusion.error_bound``; ``dropped`` is float32's rounding allowance,
    0 in float64) before the final clip and renormalisation, which at most
    double it. ``iterations`` counts mat-vecs after the push;
    ``pushes``/``rounds``/``touched`` are the push's.
    """
    # Push only while it is cheaper than the mat-vecs it saves: at most _PUSH_ROUNDS rounds (each has a fixed
    # numpy overhead, which dominates on small graphs) over at most _PUSH_VOLUME·nnz(T) entries in all.
    p, r, rounds, pushes, _ = _forward_push(t, prior, beta, eps, _PUSH_ROUNDS, _PUSH_VOLUME * max(t.matrix.nnz, t.n))
    mass = float(r.sum())
    pi_global = np.asarray(pi_global, dtype=np.float64)
    if global_step is None:
        global_step = t.transposed @ pi_global
    touched = int(np.count_nonzero(p + r))  # both are non-negative
    # Built in the iteration's precision (each sum rounds once, within rounding_allowance's few u): no cast after.
    dtype = PRECISIONS.get(precision, np.float64) if depth else np.float64
    start = np.multiply(pi_global, mass, dtype=dtype)
    start += p
    first = np.multiply(global_step, mass * beta, dtype=dtype)
    r *= 1.0 - beta
    first += r
    first += p
    first[prior.nodes] += mass * beta * float(pi_global[t.dangling_nodes].sum()) * prior.weights
    if depth == 0:
        walk = personalized_pagerank(t, prior, beta=beta, tol=tol, max_iter=max_iter, start=start / start.sum())
    else:
        walk = anderson_pagerank(t, prior, start, beta=beta, tol=tol, max_iter=max_iter, depth=depth, first=first,
                                 precision=precision)
    return Diffusion(walk.pi, walk.iterations, walk.residual, walk.converged, walk.dropped, prior.fallback,
                     method="push+power" if depth == 0 else "push+anderson", pushes=pushes, touched=touched,
                     rounds=rounds)
