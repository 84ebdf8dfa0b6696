"""Budgeted frontier packing: grow connected context around the most specific nodes.

1. The candidate pool is split into connected components of the (undirected)
   walk graph induced on it.
2. Component ``C_i`` gets ``K_i = ⌊K · Σ_{u∈C_i} Spec(u) / Σ_v Spec(v)⌋`` tokens;
   components go in decreasing share, and what one leaves unused flows to the
   next. The shares' floors sum to at most ``K`` and every step is also checked
   against ``K`` itself, so the total never exceeds the budget.
3. Inside a component, a best-first frontier starts at the anchor
   ``t* = argmax Spec`` and repeatedly takes the node with the highest
   ``score(v) = Spec(v)/c(v) · (1 + μ·|edges(v, S_i)|/deg(v))``, where ``c(v)``
   is the exact marginal token cost (``costs.Selection``) and ``deg(v)`` the
   node's degree in the whole walk graph. The queue is versioned: when a node
   joins ``S_i`` its neighbours (more edges into ``S_i``) and the frontier
   nodes of the same section (a new marginal cost) are pushed again with a new
   version, and entries with an old version are dropped when popped.
   A node that does not fit is skipped, but the frontier still grows through
   it, so one oversized anchor does not cut its component off.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Hashable, Protocol

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components


class Growable(Protocol):
    used: int

    def key(self, node: int) -> Hashable: ...

    def marginal(self, node: int) -> int | None: ...

    def add(self, node: int) -> int: ...


@dataclass
class FixedCosts:
    """A ``Growable`` with given, additive per-node costs (benchmarks, property tests)."""

    costs: np.ndarray
    chosen: list[int] = field(default_factory=list)
    used: int = 0

    def key(self, node: int) -> Hashable:
        return node

    def marginal(self, node: int) -> int | None:
        return None if node in self.chosen else int(self.costs[node])

    def add(self, node: int) -> int:
        cost = self.marginal(node) or 0
        self.chosen.append(node)
        self.used += cost
        return cost


@dataclass
class FrontierStats:
    components: int = 0
    allowances: list[int] = field(default_factory=list)  # per component, in processing order
    spent: list[int] = field(default_factory=list)


def frontier_pack(spec: np.ndarray, pool: np.ndarray, adjacency: sp.csr_matrix, selection: Growable,
                  budget: int, *, mu: float = 1.0) -> FrontierStats:
    """Grow ``selection`` from the nodes of ``pool`` under ``budget`` tokens (see module doc)."""
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    pool = np.asarray(pool, dtype=np.int64)
    stats = FrontierStats()
    if budget == 0 or len(pool) == 0:
        return stats
    sub = sp.csr_matrix(adjacency[pool][:, pool])
    count, labels = connected_components(sub, directed=False)
    stats.components = int(count)
    weight = np.asarray(spec, dtype=np.float64)[pool]
    degree = np.diff(adjacency.indptr)[pool]
    totals = np.bincount(labels, weights=weight, minlength=count)
    grand = float(totals.sum())
    first = np.full(count, len(pool))
    np.minimum.at(first, labels, np.arange(len(pool)))
    carry = 0
    for comp in sorted(range(count), key=lambda c: (-totals[c], first[c])):
        share = int(np.floor(budget * totals[comp] / grand)) if grand > 0 else budget // count
        allowance = share + carry
        spent = _grow(np.flatnonzero(labels == comp), pool, weight, degree, sub, selection, allowance, budget, mu)
        stats.allowances.append(allowance)
        stats.spent.append(spent)
        carry = allowance - spent
    return stats


def _grow(members: np.ndarray, pool: np.ndarray, weight: np.ndarray, degree: np.ndarray, sub: sp.csr_matrix,
          selection: Growable, allowance: int, budget: int, mu: float) -> int:
    """Best-first frontier inside one component; returns the tokens spent."""
    anchor = int(members[np.lexsort((pool[members], -weight[members]))[0]])
    version: dict[int, int] = {}
    links: dict[int, int] = {}
    done: set[int] = set()
    waiting: dict[Hashable, set[int]] = {}  # section key -> frontier members
    heap: list[tuple[float, int, int, int]] = []

    def push(local: int) -> None:
        node = int(pool[local])
        cost = selection.marginal(node)
        c = 1 if cost is None else max(cost, 1)
        cohesion = mu * links.get(local, 0) / degree[local] if degree[local] else 0.0
        score = weight[local] / c * (1.0 + cohesion)
        version[local] = version.get(local, 0) + 1
        heapq.heappush(heap, (-score, node, version[local], local))
        waiting.setdefault(selection.key(node), set()).add(local)

    push(anchor)
    remaining = allowance
    while heap and remaining > 0:
        _, node, ver, local = heapq.heappop(heap)
        if ver != version[local] or local in done:
            continue  # stale entry: the node was re-scored or already taken
        done.add(local)
        key = selection.key(node)
        waiting[key].discard(local)
        cost = selection.marginal(node)
        joined = cost is None  # already shown inside a selected snippet: part of S_i for free
        if cost is not None and cost <= remaining and selection.used + cost <= budget:
            remaining -= selection.add(node)
            joined = True
        neighbours = sub.indices[sub.indptr[local]:sub.indptr[local + 1]]
        for w in sorted(int(x) for x in neighbours):
            if w in done:
                continue
            if joined:
                links[w] = links.get(w, 0) + 1
                push(w)
            elif w not in version:
                push(w)
        if joined and cost is not None:
            for w in sorted(waiting.get(key, ())):
                push(w)  # the section changed, so w's marginal cost may have
    return allowance - remaining
