"""How the composer's issue stage combines its signals' lifts (``Blend``: ``issue_fuse``, ``lift_*``, ``hop_backoff``).

Each issue signal lifts a candidate ``v`` by ``w · (unit(evidence(v)) + unit(votes(f(v))))`` over a total already
divided by its maximum (the best pre-issue score is 1). By default the lifts are added (``sum``), so several signals
firing on one definition stack, and one signal can lift a definition that nothing lexical supports past the lexical
top. Three changes, each neutral by default (the stage then adds the lifts one by one, exactly as before):

- ``issue_fuse``: ``sum`` (default) or ``max``, the largest single weighted lift per definition (signals agreeing
  on a definition do not stack);
- ``lift_cap`` (0: off): the fused lift is clipped to ``lift_cap`` (a share of the pre-issue top score);
  ``lift_rank`` (0: off): clipped to ``1 - s_k``, the gap between the pre-issue top score and the ``k``-th best
  candidate's, so a lift can reorder the pre-issue top ``k`` but not carry a definition from below it to rank 1.
  With both set, the smaller bound holds;
- ``hop_backoff`` (1: off): the one-hop signals (``usesites``: from the named definitions to their users, callees,
  overriders) are multiplied by it when a direct signal (one naming or pointing at the code: literals, frames,
  dotted names, errors, names, receivers, flow) has evidence in the query: a guess one step away from what the
  issue names counts less once the issue itself points somewhere.
"""
from __future__ import annotations

import numpy as np

FUSES = ("sum", "max")
HOPS = ("users", "error_users", "callees", "overriders")  # one step from the named definitions (usesites)


def check_issue_fusion(name: str, fuse: str, lift_rank: int) -> None:
    """A ``ValueError`` naming the recipe for an unknown fusion or a rank that is not an integer >= 0."""
    if fuse not in FUSES:
        raise ValueError(f"{name}: issue_fuse must be one of {FUSES}, got {fuse!r}")
    if isinstance(lift_rank, bool) or not isinstance(lift_rank, int) or lift_rank < 0:
        raise ValueError(f"{name}: lift_rank must be an integer >= 0, got {lift_rank!r}")


def is_neutral(fuse: str, lift_cap: float, lift_rank: int, hop_backoff: float) -> bool:
    """Whether the stage adds the lifts as they are (today's arithmetic, float for float)."""
    return fuse == "sum" and not lift_cap and not lift_rank and hop_backoff == 1.0


def lift_bound(base: np.ndarray, cand: np.ndarray, lift_cap: float, lift_rank: int) -> float:
    """The largest lift one definition may get: ``lift_cap`` and/or ``1 - s_k`` over the scaled ``base`` (inf: none)."""
    bound = lift_cap if lift_cap else np.inf
    if lift_rank:
        scores = base[cand]
        kth = float(np.partition(scores, len(scores) - lift_rank)[len(scores) - lift_rank]) \
            if len(scores) >= lift_rank else 0.0
        bound = min(bound, max(float(base[cand].max(initial=0.0)) - max(kth, 0.0), 0.0))
    return bound


def backed_off(lifts: dict[str, np.ndarray], hop_backoff: float) -> list[np.ndarray]:
    """The weighted lifts by signal name, the one-hop ones times ``hop_backoff`` if a direct one has evidence."""
    direct = any(name not in HOPS and x.any() for name, x in lifts.items())
    return [x * hop_backoff if direct and name in HOPS else x for name, x in lifts.items()]


def fuse_lifts(lifts: dict[str, np.ndarray], base: np.ndarray, cand: np.ndarray, fuse: str = "sum",
               lift_cap: float = 0.0, lift_rank: int = 0, hop_backoff: float = 1.0) -> np.ndarray:
    """The issue stage's total: ``base`` plus the weighted ``lifts`` (by signal name) backed off, fused by ``fuse``
    and clipped to the bound."""
    if not lifts:
        return base
    each = backed_off(lifts, hop_backoff)
    fused = np.sum(each, axis=0) if fuse == "sum" else np.max(each, axis=0)
    bound = lift_bound(base, cand, lift_cap, lift_rank)
    return base + (np.minimum(fused, bound) if np.isfinite(bound) else fused)
