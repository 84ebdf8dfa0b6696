"""Score normalisations for blends (scale to the candidates' maximum, reciprocal ranks) and a tie-keeping top-k."""
from __future__ import annotations

from typing import Iterator

import numpy as np


def unit_scale(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``x`` divided by its maximum over ``mask`` (all zeros when that maximum is not positive)."""
    top = float(x[mask].max()) if mask.any() else 0.0
    return x / top if top > 0 else np.zeros_like(x)


ISSUE_SCALES = ("max", "absolute", "saturate")


def evidence_scale(x: np.ndarray, how: str = "max", conf: float = 1.0) -> np.ndarray:
    """An issue signal's raw evidence (shares of 1 per use or name) on a common scale, in ``[0, 1]``.

    ``max``: divided by its own maximum (one uncertain use lifts its target as much as many sure ones);
    ``absolute``: the raw shares capped at 1 (a name defined once scores 1, shared by 8 scores 1/8);
    ``saturate``: ``max`` times ``m / (m + conf)``, ``m`` the raw maximum, so weak evidence lifts less.
    """
    if how == "max":
        return unit_scale(x, np.ones(len(x), dtype=bool))
    if how == "absolute":
        return np.minimum(np.maximum(x, 0.0), 1.0)
    if how == "saturate":
        top = float(x.max()) if len(x) else 0.0
        return x / (top + conf) if top > 0 else np.zeros_like(x)
    raise ValueError(f"issue scale must be one of {ISSUE_SCALES}, got {how!r}")


def reciprocal_ranks(x: np.ndarray, mask: np.ndarray, k: float) -> np.ndarray:
    """``1 / (k + rank)`` of each positive candidate (ties by node order), 0 elsewhere (Cormack et al.)."""
    out = np.zeros_like(x)
    nodes = np.flatnonzero(mask & (x > 0))
    order = nodes[np.lexsort((nodes, -x[nodes]))]
    out[order] = 1.0 / (k + np.arange(1, len(order) + 1))
    return out


def top_mask(values: np.ndarray, k: int) -> np.ndarray:
    """Which ``values`` are among the ``k`` largest, every tie with the k-th value included (a partial sort).

    Sorting the kept ones by value (ties by node) gives exactly the first
    ``k`` of sorting everything the same way.
    """
    if k <= 0:
        return np.zeros(len(values), dtype=bool)
    if len(values) <= k:
        return np.ones(len(values), dtype=bool)
    return values >= values[np.argpartition(-values, k - 1)[k - 1]]


def top_k(nodes: np.ndarray, values: np.ndarray, k: int) -> np.ndarray:
    """The ``nodes`` whose ``values`` pass ``top_mask`` (in input order)."""
    return nodes[top_mask(values, k)]


def best_first(nodes: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``nodes`` by decreasing value, ties by node (the order every ranking here uses)."""
    return nodes[np.lexsort((nodes, -values))]


def best_first_lazily(nodes: np.ndarray, values: np.ndarray, head: int = 256) -> Iterator[int]:
    """``best_first(nodes, values)`` as plain ints, sorting the best ``head`` first and the rest only if reached.

    A packer stops after a few hundred candidates at most; sorting tens of
    thousands of positive scores for it is wasted. The order is identical.
    """
    keep = top_mask(values, head)
    yield from best_first(nodes[keep], values[keep]).tolist()
    if not keep.all():  # every value left out is below every value kept
        rest = ~keep
        yield from best_first(nodes[rest], values[rest]).tolist()
