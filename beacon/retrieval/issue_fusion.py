"""How the composer's issue stage combines its signals' lifts (``Blend.issue_fuse``, ``lift_cap``, ``lift_rank``).

Each issue signal lifts a candidate ``v`` by ``w · (unit(evidence(v)) + unit(votes(f(v))))`` over a total already
divided by its maximum (the best pre-issue score is 1). By default the lifts are added (``sum``), so several signals
firing on one definition stack, and one signal can lift a definition that nothing lexical supports past the lexical
top. Two bounds, both neutral by default (the stage then adds the lifts one by one, exactly as before):

- ``issue_fuse``: ``sum`` (default) or ``max``, the largest single weighted lift per definition (signals agreeing
  on a definition do not stack);
- ``lift_cap`` (0: off): the fused lift is clipped to ``lift_cap`` (a share of the pre-issue top score);
  ``lift_rank`` (0: off): clipped to ``1 - s_k``, the gap between the pre-issue top score and the ``k``-th best
  candidate's, so a lift can reorder the pre-issue top ``k`` but not carry a definition from below it to rank 1.
  With both set, the smaller bound holds.
"""
from __future__ import annotations

import numpy as np

FUSES = ("sum", "max")


def check_issue_fusion(name: str, fuse: str, lift_rank: int) -> None:
    """A ``ValueError`` naming the recipe for an unknown fusion or a rank that is not an integer >= 0."""
    if fuse not in FUSES:
        raise ValueError(f"{name}: issue_fuse must be one of {FUSES}, got {fuse!r}")
    if isinstance(lift_rank, bool) or not isinstance(lift_rank, int) or lift_rank < 0:
        raise ValueError(f"{name}: lift_rank must be an integer >= 0, got {lift_rank!r}")


def is_neutral(fuse: str, lift_cap: float, lift_rank: int) -> bool:
    """Whether the stage adds the lifts as they are (today's arithmetic, float for float)."""
    return fuse == "sum" and not lift_cap and not lift_rank


def lift_bound(base: np.ndarray, cand: np.ndarray, lift_cap: float, lift_rank: int) -> float:
    """The largest lift one definition may get: ``lift_cap`` and/or ``1 - s_k`` over the scaled ``base`` (inf: none)."""
    bound = lift_cap if lift_cap else np.inf
    if lift_rank:
        scores = base[cand]
        kth = float(np.partition(scores, len(scores) - lift_rank)[len(scores) - lift_rank]) \
            if len(scores) >= lift_rank else 0.0
        bound = min(bound, max(float(base[cand].max(initial=0.0)) - max(kth, 0.0), 0.0))
    return bound


def fuse_lifts(lifts: list[np.ndarray], base: np.ndarray, cand: np.ndarray, fuse: str, lift_cap: float,
               lift_rank: int) -> np.ndarray:
    """The issue stage's total: ``base`` plus the weighted ``lifts`` fused by ``fuse`` and clipped to the bound."""
    if not lifts:
        return base
    fused = np.sum(lifts, axis=0) if fuse == "sum" else np.max(lifts, axis=0)
    bound = lift_bound(base, cand, lift_cap, lift_rank)
    return base + (np.minimum(fused, bound) if np.isfinite(bound) else fused)
