"""Anderson-accelerated fixed-point iteration for the Perron walk, tested without a mat-vec, in float64 or float32.

The walk step ``f(x) = β·x·T + (β·(x·d) + 1 − β)·p0`` is affine and a
``β``-contraction in L1, so any ``y`` has ``‖f(y) − π*‖₁ ≤ β·‖f(y) − y‖₁/(1 − β)``
(the power iteration's bound). ``anderson_pagerank`` extrapolates from the
last few evaluations and, because ``f`` is affine, knows the residual of
each extrapolated point without evaluating it; ``push.warm_pagerank`` feeds
it a start from forward push. ``precision="float32"`` halves the bytes of
every vector and a third of the mat-vec's (``Transition.walk32``, whose node
order the iteration then runs in) and adds ``rounding_allowance`` to the bound.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .diffusion import Diffusion, DiffusionNotConverged, Prior
from .rowsplit import RowSplit
from .transition import Transition


class _Frame(NamedTuple):
    """Where the iteration runs: ``Tᵀ``, the dangling nodes and the prior's nodes, as positions in ``order``."""

    matvec: Callable[[np.ndarray], np.ndarray]  # x ↦ Tᵀ·x: ``matrix @ x``, or RowSplit's (the same bytes)
    dangling: np.ndarray
    nodes: np.ndarray
    weights: np.ndarray
    order: np.ndarray | None  # None: node order (float64); else Transition.walk32's relabelling (float32)


def _frame(t: Transition, prior: Prior, dtype: type, threads: int = 1) -> _Frame:
    """float32: ``walk32``'s CSR, row-split over ``threads`` (``RowSplit``); float64: the CSC view, one thread."""
    if dtype is np.float32:
        w = t.walk32
        matvec = w.matrix.__matmul__ if threads == 1 else RowSplit(w.matrix, threads)
        return _Frame(matvec, w.dangling, w.rank[prior.nodes], prior.weights, w.order)
    return _Frame(t.transposed.__matmul__, t.dangling_nodes, prior.nodes, prior.weights, None)


def _step(frame: _Frame, x: np.ndarray, beta: float) -> np.ndarray:
    """``f(x) = β·x·T + (β·(x·d) + 1 − β)·p0`` in ``frame``'s order and ``x``'s precision: one mat-vec."""
    y = frame.matvec(x)
    y *= beta
    y[frame.nodes] += (beta * float(x[frame.dangling].sum()) + 1.0 - beta) * frame.weights
    return y


def _walk_step(t: Transition, x: np.ndarray, prior: Prior, beta: float) -> np.ndarray:
    """``f(x)``: one step of the walk (``π* = f(π*)``), one mat-vec, in node order and ``x``'s precision."""
    frame = _frame(t, prior, x.dtype.type)
    if frame.order is None:
        return _step(frame, x, beta)
    y = np.empty_like(x)
    y[frame.order] = _step(frame, np.take(x, frame.order), beta)
    return y


PRECISIONS = {"float64": np.float64, "float32": np.float32}
_FLOAT32_MIN_TOL = 1e-5  # ~100 float32 ulps of a distribution's L1 norm: below, rounding would dominate the test


def rounding_allowance(t: Transition, gamma_l1: float, norm: float, beta: float) -> float:
    """A bound on the L1 rounding error that float32 adds to a returned iterate and to its tested residual.

    One float32 walk step ``f̃(x)`` differs from ``f(x)`` by at most
    ``(β·γ_{m+2} + 3u)·‖x‖₁ + 2u`` in L1 (``u = 2⁻²⁴``; ``γ_j = j·u/(1 − j·u)``
    bounds a sum of ``j`` rounded products, ``m = Transition.max_in_entries``
    the longest row of ``Tᵀ``, the 2 the rounding of ``T``'s and ``x``'s
    entries; then the scaling and the teleport term) because ``T``'s rows
    sum to at most 1. The returned iterate is a combination of evaluations
    whose coefficients sum to 1 with L1 norm at most ``1 + 2‖γ‖₁``, and the
    differences, combinations and the pairwise L1 sums are rounded too (a few
    ``u`` each, times ``log₂ n`` for a sum). ``norm`` bounds the ``‖x‖₁`` of
    every evaluated iterate.
    """
    u = float(np.finfo(np.float32).eps) / 2
    j = t.max_in_entries + 2
    per_step = (beta * j * u / (1 - j * u) + 3 * u) * norm + 2 * u
    arithmetic = (12 + math.log2(max(t.n, 2))) * u * (norm + 1)
    return (1.0 + 2.0 * gamma_l1) * (per_step + arithmetic)


def anderson_pagerank(t: Transition, prior: Prior, start: np.ndarray, *, beta: float = 0.85, tol: float = 1e-4,
                      max_iter: int = 200, depth: int = 3, first: np.ndarray | None = None,
                      precision: str = "float64", threads: int = 1) -> Diffusion:
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
    (``Transition.walk32``, in its node order; the small least-squares systems stay
    float64): a third less memory traffic per mat-vec and half per vector
    operation. Its rounding is bounded by ``rounding_allowance`` and reported
    as ``Diffusion.dropped``, so ``error_bound`` = ``(dropped + β·residual)/(1 − β)``
    still bounds ``‖π − π*‖₁`` (before the clip and renormalisation, which at
    most double it); ``tol`` must then be at least 1e-5. ``iterations``
    counts the mat-vecs done here (a given ``first`` is not one).
    ``threads`` > 1 splits each float32 mat-vec's rows over that many threads
    (``rowsplit.RowSplit``): every byte of the result is the same.
    """
    if depth < 0 or max_iter < 1 or not tol > 0:
        raise ValueError(f"need depth >= 0, max_iter >= 1 and tol > 0, got {depth!r}, {max_iter!r}, {tol!r}")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive integer, got {threads!r} (resolve 'auto' first)")
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {sorted(PRECISIONS)}, got {precision!r}")
    dtype = PRECISIONS[precision]
    if dtype is np.float32 and tol < _FLOAT32_MIN_TOL:
        raise ValueError(f"precision='float32' needs tol >= {_FLOAT32_MIN_TOL:g} (float32 rounding), got {tol!r}")
    frame = _frame(t, prior, dtype, threads)
    x = np.asarray(start, dtype=dtype)  # never written to: the iterates below are new arrays
    if frame.order is not None:  # float32 runs in Transition.walk32's order, mapped back at the end
        # np.take, not x[order]: fancy indexing first converts the int32 positions to intp (~1.5-2× the time)
        x = np.take(x, frame.order)
        first = None if first is None else np.take(np.asarray(first, dtype=dtype), frame.order)
    fx = _step(frame, x, beta) if first is None else np.asarray(first, dtype=dtype)
    matvecs = int(first is None)
    # Rows of dg hold differences of successive residuals, rows of dfx those of successive f(x) (= x + g), kept in
    # place (the oldest row is overwritten); gram = dg·dgᵀ (float64, the products in the iterates' precision: any
    # γ is safe) is updated one row at a time.
    # No BLAS or LAPACK anywhere below (_dots, _combine, _least_squares): OpenBLAS picks its kernels per CPU and they
    # add in different orders, so γ, every extrapolated iterate and the ranking would differ in the last bits from
    # machine to machine. Elementwise ufuncs round exactly and numpy's pairwise sums add in a fixed order on every CPU.
    width = max(depth, 1)
    dg = np.empty((width, len(x)), dtype=dtype)
    dfx = np.empty_like(dg)
    gram = np.empty((width, width))
    work = np.empty(len(x), dtype=dtype)  # scratch for |·| and products: the L1 norms below allocate nothing
    spare = np.empty(len(x), dtype=dtype)  # _combine's second scratch
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
            gram[slot, :k] = gram[:k, slot] = _dots(dg[:k], dg[slot], work)
        last_fx, last_g = fx, g
        if rows:
            k = min(rows, depth)
            gamma = _least_squares(gram[:k, :k], _dots(dg[:k], g, work))
            _combine(gamma, dg[:k], work, spare)
            np.subtract(g, work, out=work)  # ḡ = f(x̄) − x̄
            predicted = float(np.abs(work, out=work).sum())
            x = _combine(gamma, dfx[:k], np.empty(len(x), dtype=dtype), spare)
            np.subtract(fx, x, out=x)  # x_{k+1} = f(x̄)
            if predicted <= tol:
                fx, residual = x, predicted
                break
        else:
            x = fx
        fx = _step(frame, x, beta)
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
    if dtype is np.float32:
        # every evaluated x has ‖x‖₁ ≤ ‖f(x)‖₁ + ‖g‖₁ ≤ β·‖x‖₁ + 1 − β + ‖g‖₁ (the 2×: g is rounded)
        norm = 1.0 + 2.0 * peak / (1.0 - beta)
        rounding = rounding_allowance(t, float(np.abs(gamma).sum()), norm, beta)
    pi = (fx if frame.order is None else np.take(fx, t.walk32.rank)).astype(np.float64)  # back to node order
    negative = pi < 0  # extrapolated iterates may dip below 0; π* does not (a mask: np.maximum is ~4× slower)
    if negative.any():
        pi[negative] = 0.0
    pi /= pi.sum()
    return Diffusion(pi, matvecs, residual, converged, rounding, prior_fallback=prior.fallback,
                     method="power" if depth == 0 else "anderson")


def _dots(rows: np.ndarray, v: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """``rows·v`` in float64: each row's elementwise product with ``v`` summed by numpy's pairwise sum.

    Not ``np.dot``: OpenBLAS chooses its dot kernel per CPU (and by
    ``OPENBLAS_CORETYPE``), and the kernels add in different orders. A
    product rounds exactly and the pairwise sum adds in one fixed order, so
    these are the same bytes on every CPU, at ~50 µs more per dot than BLAS
    on 100k float32 entries (a mat-vec of the walk costs milliseconds).
    ``scratch`` (``v``'s shape and type) holds the products.
    """
    out = np.empty(len(rows))
    for i, row in enumerate(rows):
        np.multiply(row, v, out=scratch)
        out[i] = float(scratch.sum())
    return out


def _combine(gamma: np.ndarray, rows: np.ndarray, out: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """``Σ γ_i·rows_i`` into ``out``, in ``rows``' precision, one row at a time from the first.

    The order of ``einsum("i,ij->j")`` (so the same bytes), but by elementwise
    ufuncs, which round exactly on every CPU, rather than a kernel that a
    build may fuse (FMA) or vectorise differently.
    """
    cast = rows.dtype.type
    np.multiply(rows[0], cast(gamma[0]), out=out)
    for i in range(1, len(gamma)):
        np.multiply(rows[i], cast(gamma[i]), out=scratch)
        np.add(out, scratch, out=out)
    return out


def _least_squares(gram: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``γ`` minimising ``‖g − γ·Δg‖₂`` from its normal equations (``k ≤ depth`` unknowns).

    A Tikhonov term of ``1e-12·trace`` keeps a (nearly) singular Gram matrix
    (e.g. two equal residual differences) solvable. Any ``γ`` is safe: the
    stopping test and its bound hold whatever the extrapolation. Solved by
    ``_solve`` in Python floats, not LAPACK, whose kernels differ per CPU.
    """
    scale = float(np.trace(gram))
    if not scale > 0:
        return np.zeros(len(rhs))
    k = len(rhs)
    a = [[float(gram[i, j]) + (1e-12 * scale if i == j else 0.0) for j in range(k)] for i in range(k)]
    return np.array(_solve(a, [float(v) for v in rhs]))


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``x`` with ``a·x = b`` by Gaussian elimination with partial pivoting (``a`` and ``b`` are overwritten).

    Written out because the systems are tiny (``depth × depth``) and LAPACK's
    answer depends on the CPU's kernels; CPython rounds every operation
    separately (no fused multiply-add), so this is the same bytes everywhere.
    A zero pivot (a singular system, which the Tikhonov term rules out for a
    non-zero Gram matrix) leaves that unknown 0.
    """
    k = len(b)
    for col in range(k):
        pivot = max(range(col, k), key=lambda r: (abs(a[r][col]), -r))
        a[col], a[pivot] = a[pivot], a[col]
        b[col], b[pivot] = b[pivot], b[col]
        if a[col][col] == 0.0:
            continue
        for r in range(col + 1, k):
            factor = a[r][col] / a[col][col]
            if factor:
                for c in range(col, k):
                    a[r][c] -= factor * a[col][c]
                b[r] -= factor * b[col]
    x = [0.0] * k
    for r in range(k - 1, -1, -1):
        if a[r][r] == 0.0:
            continue
        x[r] = (b[r] - sum(a[r][c] * x[c] for c in range(r + 1, k))) / a[r][r]
    return x
