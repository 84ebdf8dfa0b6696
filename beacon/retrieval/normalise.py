"""Score normalisations for blends: scale to the candidates' maximum, or reciprocal ranks (RRF)."""
from __future__ import annotations

import numpy as np


def unit_scale(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``x`` divided by its maximum over ``mask`` (all zeros when that maximum is not positive)."""
    top = float(x[mask].max()) if mask.any() else 0.0
    return x / top if top > 0 else np.zeros_like(x)


def reciprocal_ranks(x: np.ndarray, mask: np.ndarray, k: float) -> np.ndarray:
    """``1 / (k + rank)`` of each positive candidate (ties by node order), 0 elsewhere (Cormack et al.)."""
    out = np.zeros_like(x)
    nodes = np.flatnonzero(mask & (x > 0))
    order = nodes[np.lexsort((nodes, -x[nodes]))]
    out[order] = 1.0 / (k + np.arange(1, len(order) + 1))
    return out
