"""Cluster bootstrap for means and paired differences (numpy only).

The resampling unit is the task (repair) or the instance (localization): a
row of a paired table can hold several pairs per task (pooled over budgets),
and those are not independent, so whole units are drawn with replacement and
the estimate of one resample is ``sum of values / number of values`` over the
drawn units. With one value per unit this is the ordinary bootstrap of a mean
(:func:`bootstrap_ci`) or of a mean paired difference
(:func:`paired_bootstrap_ci`, the values being differences).

Exact procedure (so that anyone can recompute a published interval): units
sorted by id; ``rng = numpy.random.default_rng(seed)``, fresh for every
table row, so a row's interval does not depend on which other rows exist;
``idx = rng.integers(0, n_units, size=(resamples, n_units))``; the interval
is ``numpy.percentile(estimates, [2.5, 97.5])`` (linear interpolation) on
the fraction scale, multiplied by 100 afterwards for percentages and
percentage points.

:func:`sign_test_p` is the exact two-sided sign test on the per-unit
differences (ties dropped), reported beside paired intervals.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 0
LEVEL = 0.95


def bootstrap_ci(unit_ids: Sequence[str], values: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES,
                 seed: int = DEFAULT_SEED, level: float = LEVEL) -> tuple[float, float]:
    """Percentile interval of the mean of ``values``, resampling whole units (``unit_ids``); fraction scale."""
    if len(unit_ids) != len(values) or not len(values):
        raise ValueError(f"expected equally long, non-empty unit ids and values, got {len(unit_ids)} "
                         f"and {len(values)}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    units = sorted(set(unit_ids))
    position = {unit: i for i, unit in enumerate(units)}
    where = np.fromiter((position[u] for u in unit_ids), dtype=np.int64, count=len(unit_ids))
    sums = np.bincount(where, weights=np.asarray(values, dtype=float), minlength=len(units))
    counts = np.bincount(where, minlength=len(units)).astype(float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(units), size=(resamples, len(units)))
    estimates = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(estimates, [tail, 100 - tail])
    return float(low), float(high)


def wilson_ci(successes: int, n: int, *, level: float = LEVEL) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion ``successes / n``; fraction scale.

    Used for rates over attempts (pass rate, coverage): unlike the normal
    approximation it stays inside [0, 1] and is not degenerate at 0 or n
    successes, which small pilots hit often.
    """
    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"expected 0 <= successes <= n and n >= 1, got {successes} of {n}")
    from statistics import NormalDist

    z = NormalDist().inv_cdf(1 - (1 - level) / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def paired_bootstrap_ci(task_ids: Sequence[str], diffs: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES,
                        seed: int = DEFAULT_SEED, level: float = LEVEL) -> tuple[float, float]:
    """Percentile interval of the mean paired difference, resampling tasks; fraction scale."""
    return bootstrap_ci(task_ids, diffs, resamples=resamples, seed=seed, level=level)


def sign_test_p(better: int, worse: int) -> float:
    """Two-sided exact sign test: P(a split at least as uneven as ``better``/``worse`` | no difference).

    Ties are left out by the caller; ``min(1, 2 * P(X <= min(better, worse)))`` for ``X ~ Bin(n, 1/2)``,
    ``n = better + worse``, summed exactly with integers (1.0 when there is no untied pair).
    """
    if better < 0 or worse < 0:
        raise ValueError(f"expected non-negative counts, got better={better}, worse={worse}")
    n = better + worse
    if not n:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(better, worse) + 1))
    return min(1.0, 2 * tail / 2 ** n)
