"""Paired bootstrap for differences in pass rate (numpy only).

The resampling unit is the task: a row of a paired table can hold several
pairs per task (pooled over budgets), and those are not independent, so
whole tasks are drawn with replacement and the estimate of one resample is
``sum of differences / number of pairs`` over the drawn tasks. With one pair
per task this is the ordinary pair bootstrap.

Exact procedure (so that anyone can recompute a published interval): tasks
sorted by id; ``rng = numpy.random.default_rng(seed)``, fresh for every
table row, so a row's interval does not depend on which other rows exist;
``idx = rng.integers(0, n_tasks, size=(resamples, n_tasks))``; the interval
is ``numpy.percentile(estimates, [2.5, 97.5])`` (linear interpolation) on
the fraction scale, multiplied by 100 afterwards for percentage points.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 0
LEVEL = 0.95


def paired_bootstrap_ci(task_ids: Sequence[str], diffs: Sequence[float], *, resamples: int = DEFAULT_RESAMPLES,
                        seed: int = DEFAULT_SEED, level: float = LEVEL) -> tuple[float, float]:
    """Percentile interval of the mean paired difference, resampling tasks; fraction scale."""
    if len(task_ids) != len(diffs) or not len(diffs):
        raise ValueError(f"expected equally long, non-empty task ids and differences, got {len(task_ids)} "
                         f"and {len(diffs)}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    tasks = sorted(set(task_ids))
    position = {task: i for i, task in enumerate(tasks)}
    where = np.fromiter((position[t] for t in task_ids), dtype=np.int64, count=len(task_ids))
    sums = np.bincount(where, weights=np.asarray(diffs, dtype=float), minlength=len(tasks))
    counts = np.bincount(where, minlength=len(tasks)).astype(float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(tasks), size=(resamples, len(tasks)))
    estimates = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(estimates, [tail, 100 - tail])
    return float(low), float(high)
