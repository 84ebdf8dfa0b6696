"""Transcendental functions of float64 arrays through the C library: the same bytes whatever numpy dispatches to.

numpy picks the loop of ``np.exp``, ``np.log``, ``np.log1p`` and
``np.power`` per CPU. On a CPU with AVX-512 they run numpy's own vector
loops (and Intel's SVML), which round differently from the C library's
scalar functions that numpy calls on other x86-64 CPUs. A last-bit
difference in an idf, a prior or a specificity reorders near-ties, so a
ranking would depend on the machine. These functions call Python's ``math``
module (the C library) per value instead. On a CPU without AVX-512 numpy
calls the same C functions, so there the results are numpy's, byte for byte
(``tests/retrieval/test_cpu_invariance.py`` checks this on whatever CPU runs
it).

Speed: a Python call per value (~80 ns), or per distinct value for arrays of
small non-negative integers such as term counts, which go through a table.
Ranking code calls these on index builds (once per graph) and on small
per-query vectors; the one per-query array of graph size, the specificity
denominator, is memoised per graph (``perron.specificity_denominator``).
"""
from __future__ import annotations

import math

import numpy as np

_TABLE_MAX = 1 << 16  # small non-negative integers (counts) go through a table of this many entries at most


def _each(function, x) -> np.ndarray:
    """``function`` of every entry of ``x`` (as float64), in ``x``'s shape."""
    a = np.asarray(x, dtype=np.float64)
    flat = a.ravel()
    if flat.size > 256:
        top = float(flat.max()) if flat.size else 0.0
        if 0.0 <= float(flat.min()) and top < _TABLE_MAX and top < 4 * flat.size:
            ints = flat.astype(np.int64)
            if np.array_equal(ints, flat):  # counts: one call per possible value
                table = np.fromiter(map(function, map(float, range(int(top) + 1))), np.float64, int(top) + 1)
                return table[ints].reshape(a.shape)
    return np.fromiter(map(function, flat.tolist()), np.float64, flat.size).reshape(a.shape)


def _guard(function):
    """``function`` with numpy's answers at the domain's edges (log(0) = -inf, log(-1) = nan) instead of raising."""

    def safe(v: float) -> float:
        try:
            return function(v)
        except ValueError:  # math's domain errors: numpy gives -inf at 0 (a pole) and nan below
            return -math.inf if v == 0 or (function is math.log1p and v == -1) else math.nan
        except OverflowError:
            return math.inf

    return safe


_log, _log1p, _exp = _guard(math.log), _guard(math.log1p), _guard(math.exp)


def log(x) -> np.ndarray:
    """``np.log(x)``, computed by the C library."""
    return _each(_log, x)


def log1p(x) -> np.ndarray:
    """``np.log1p(x)``, computed by the C library."""
    return _each(_log1p, x)


def exp(x) -> np.ndarray:
    """``np.exp(x)``, computed by the C library (an overflow is ``inf``, as numpy gives it)."""
    return _each(_exp, x)


def power(x, p: float) -> np.ndarray:
    """``np.power(x, p)`` for a scalar exponent, computed by the C library's ``pow``.

    The exponents numpy itself special-cases are computed as numpy does, by
    operations IEEE rounds exactly: 0.5 by ``sqrt``, 2 by a product, 1, 0
    and -1 directly.
    """
    p = float(p)
    a = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        exact = {0.5: np.sqrt, 2.0: np.square, 1.0: np.positive, -1.0: np.reciprocal}.get(p)
        if exact is not None:
            return exact(a)
    if p == 0.0:
        return np.ones_like(a)

    def pow_(v: float) -> float:
        try:
            return math.pow(v, p)
        except ValueError:  # 0 to a negative power is numpy's inf; a negative base to a fractional one its nan
            return math.inf if v == 0 else math.nan
        except OverflowError:
            return math.inf

    return _each(pow_, x)
