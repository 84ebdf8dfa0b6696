"""``Blend``: the one composer. Every combination method (``hybrid`` and its family) is a recipe for it.

A recipe (``conf/method/<name>.yaml`` with ``composer: blend``) names the signal weights and the normalisation,
fusion, blending and packing settings; ``beacon.retrieval.methods`` registers every such recipe under its name,
so a new blend variant or ablation is a YAML file (``defaults: [hybrid, _self_]`` plus its own weights), never
Python. A weight of 0 switches its signal off (it is not computed). Per definition ``v`` in file ``f(v)`` the
total is built in six stages: lexical, expansion, priors, late signals, issue structure, inside the best files.
Where things live:

- ``blend_params`` (``BlendParams``): every parameter, grouped by stage, each group opening with its stage's
  formula (the reference for recipes), and their validation;
- ``stages``: the six stages, in that order (the order of the float sums is part of a recipe's output);
- here: the candidates, the ranking and the packing.

Candidates are definitions (``candidates: definitions``: no modules, no tests) or every non-test symbol
(``symbols``; tests too with ``include_tests``). Ranking: positive totals, best first (``ground_named``: the
symbols the query names verbatim first). Packing: when the best file's module costs at most ``whole_file_share``
of the budget it is packed whole first, then in rank order. The composer's own defaults are the identity (every
weight 0, multipliers 1: ``no_retrieval``): what a method does is its recipe. ``prose`` (``prose_gate``) gives a
report that pastes no code its own parameters in place of the recipe's.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np

from ..context.pack import block_cost, pack
from ..graph.codebase import CodebaseGraph
from ..repo.history import NO_INPUTS, RepoInputs
from . import prose_gate, stages
from .base import RankThenPack
from .blend_params import CANDIDATES, FUSIONS, BlendParams  # noqa: F401  (the choices, importable here as before)
from .file_index import file_index
from .lexical import named_first, named_mask
from .normalise import best_first, best_first_lazily
from .masks import is_test_mask, packable


@dataclass
class BlendScores:
    total: np.ndarray  # per symbol
    components: dict[str, np.ndarray]  # each signal's raw score per symbol, by name
    file_score: np.ndarray  # per file (FileIndex order): the best total of its definitions


@dataclass
class Blend(BlendParams, RankThenPack):
    """The composer (see the module docstring); configured only by recipes. Its fields: ``RankThenPack``'s
    (``name``, ``renderer``, ``include_tests``, ``notes``), then ``BlendParams``' in stage order."""

    def needs(self) -> frozenset[str]:
        return frozenset({"file_history"} if self.w_history else set()) | (
            {"line_history"} if self.w_function else set()) | (
            {"change_log"} if self.w_log_file or self.w_log_function else set())

    def candidate_mask(self, graph: CodebaseGraph) -> np.ndarray:
        if self.candidates == "definitions":
            return packable(graph)
        return np.ones(len(graph.symbols), dtype=bool) if self.include_tests else ~is_test_mask(graph)

    def scores(self, graph: CodebaseGraph, query: str, inputs: RepoInputs = NO_INPUTS) -> BlendScores:
        m = prose_gate.for_query(self, query)  # this recipe, or its prose parameters for a report without code
        cand = m.candidate_mask(graph)
        parts: dict[str, np.ndarray] = {}
        total = stages.lexical(m, graph, query, cand, parts)
        total = stages.expansion(m, graph, query, cand, total, parts)
        total = stages.priors(m, graph, inputs, cand, total, parts)
        total = stages.late(m, graph, query, inputs, cand, total, parts)
        total = stages.issue(m, graph, query, cand, total, parts)
        total = stages.infile(m, graph, query, cand, total, parts)
        total[~cand] = 0.0
        index = file_index(graph)
        np.maximum.at(file_total := np.zeros(len(index.paths)), index.file_of, total)
        return BlendScores(total, parts, file_total)

    # -- ranking and packing --------------------------------------------------
    def ranked_nodes(self, graph: CodebaseGraph, query: str, inputs: RepoInputs = NO_INPUTS
                     ) -> tuple[np.ndarray, np.ndarray]:
        """The ranking as arrays: nodes with a positive total, best first (ties by node), and their totals."""
        total = self.scores(graph, query, inputs).total
        nodes = np.flatnonzero(total > 0)
        nodes = nodes[np.lexsort((nodes, -total[nodes]))]
        if self.ground_named:
            nodes = named_first(graph, query, nodes)
        return nodes, total[nodes]

    def rank(self, graph, query, inputs=NO_INPUTS):
        nodes, scores = self.ranked_nodes(graph, query, inputs)
        return list(zip(nodes.tolist(), scores.tolist()))

    def packing_order(self, graph: CodebaseGraph, ranking: list[tuple[int, float]], budget: int) -> list[int]:
        """Rank order, with the best file's module (the whole file) first when it is cheap enough."""
        order = [n for n, _ in ranking]
        return self._whole_file_first(graph, order[0] if order else None, budget) + order

    def _whole_file_first(self, graph: CodebaseGraph, best: int | None, budget: int) -> list[int]:
        """``[module of the best node's file]`` when it is packed whole first, else ``[]``."""
        if best is None or self.whole_file_share <= 0:
            return []
        index = file_index(graph)
        module = int(index.module_node[index.file_of[best]])
        if module >= 0 and block_cost(graph, module, self.renderer) <= self.whole_file_share * budget:
            return [module]
        return []

    def select(self, graph, query, budget, inputs=NO_INPUTS):
        # The context alone: packing reads a few hundred candidates at most, so the ranking is sorted lazily
        # (``best_first_lazily``, the same order as ``ranked_nodes``) and never turned into pairs or ids.
        total = self.scores(graph, query, inputs).total
        nodes = np.flatnonzero(total > 0)
        if self.ground_named:
            hit = named_mask(graph, query)[nodes]
            named, rest = nodes[hit], nodes[~hit]
            order = chain(best_first(named, total[named]).tolist(), best_first_lazily(rest, total[rest]))
        else:
            order = best_first_lazily(nodes, total[nodes])
        best = next(order, None)
        head = [] if best is None else [best]
        order = chain(self._whole_file_first(graph, best, budget), head, order)
        return pack(graph, order, budget, self.renderer, notes=self.notes)

    def ranked_context(self, graph, query, budget, inputs=NO_INPUTS):
        nodes, scores = self.ranked_nodes(graph, query, inputs)
        ranking = list(zip(nodes.tolist(), scores.tolist()))
        return pack(graph, self.packing_order(graph, ranking, budget), budget, self.renderer,
                    notes=self.notes), ranking
