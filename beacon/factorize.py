"""``factorize``: number the distinct values of an array in first-occurrence order (pandas' hash table, in C).

pandas is imported on the first call, not when Beacon loads: it costs ~0.3 s of every process start, and a process
that only checks a config, builds a paper or reports an error never numbers anything.
"""
from __future__ import annotations

from typing import Any

import numpy as np


def factorize(values: Any, sort: bool = False) -> tuple[np.ndarray, Any]:
    """``pandas.factorize(values, sort=sort)``: (codes, uniques)."""
    import pandas as pd  # noqa: PLC0415 (deferred: see the module's docstring)

    return pd.factorize(values, sort=sort)
