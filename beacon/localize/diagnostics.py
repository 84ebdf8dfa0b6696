"""Retrieval diagnostics reported for Perron (and usable for any method).

* ``recall_at_budget`` — the share of gold symbols shown in a packed context
  (selected, or inside a selected snippet such as a method in a selected class);
* ``reciprocal_rank`` / ``mean_reciprocal_rank`` — 1/rank of the first gold
  symbol in a method's ranking (0 when absent), and its mean over queries;
* ``hub_suppression_index`` — the share of a ranking's top-k that is *not*
  among the top ``hub_share`` of nodes by global PageRank: 1 means no global
  hub made the top-k, 0 means only hubs did.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from ..context.snippet import Context
from ..graph.codebase import CodebaseGraph


def recall_at_budget(context: Context, gold: Iterable[str], graph: CodebaseGraph | None = None) -> float:
    """Share of ``gold`` symbol ids shown in ``context``; with ``graph``, containment counts too.

    An empty gold set is an error: recall is undefined there, and a silent 1.0
    or 0.0 would bias a mean.
    """
    targets = list(dict.fromkeys(gold))
    if not targets:
        raise ValueError("recall_at_budget: the gold set is empty")
    selected = set(context.symbol_ids)
    hits = 0
    for target in targets:
        if target in selected:
            hits += 1
        elif graph is not None:
            sym = graph.symbol(target)
            hits += any(s.path == sym.path and s.start_line <= sym.start_line and sym.end_line <= s.end_line
                        for s in context.snippets)
    return hits / len(targets)


def reciprocal_rank(ranking: Sequence[str] | Sequence[tuple[str, float]], gold: Iterable[str]) -> float:
    """``1 / rank`` (1-based) of the first gold id in ``ranking``; 0.0 when none is ranked."""
    targets = set(gold)
    if not targets:
        raise ValueError("reciprocal_rank: the gold set is empty")
    for rank, item in enumerate(ranking, start=1):
        ident = item[0] if isinstance(item, tuple) else item
        if ident in targets:
            return 1.0 / rank
    return 0.0


def mean_reciprocal_rank(runs: Iterable[tuple[Sequence, Iterable[str]]]) -> float:
    """Mean of ``reciprocal_rank`` over ``(ranking, gold)`` pairs."""
    values = [reciprocal_rank(ranking, gold) for ranking, gold in runs]
    if not values:
        raise ValueError("mean_reciprocal_rank: no queries")
    return float(np.mean(values))


def hub_nodes(pi_global: np.ndarray, hub_share: float = 0.01) -> np.ndarray:
    """The top ``⌈hub_share · n⌉`` nodes by ``pi_global`` (ties: lower node first), sorted."""
    if not 0 < hub_share <= 1:
        raise ValueError(f"hub_share must be in (0, 1], got {hub_share!r}")
    pi = np.asarray(pi_global, dtype=np.float64)
    count = max(1, math.ceil(hub_share * len(pi)))
    order = np.lexsort((np.arange(len(pi)), -pi))
    return np.sort(order[:count])


def hub_suppression_index(ranking: Sequence[int], pi_global: np.ndarray, *, k: int = 10,
                          hub_share: float = 0.01) -> float:
    """Share of the top-``k`` of ``ranking`` (node indices) that is not a global hub.

    A ranking shorter than ``k`` is judged on what it has; an empty one has no
    index (``nan``), so it cannot pass for perfect suppression.
    """
    top = [int(n) for n in list(ranking)[:k]]
    if not top:
        return float("nan")
    hubs = set(hub_nodes(pi_global, hub_share).tolist())
    return sum(n not in hubs for n in top) / len(top)
