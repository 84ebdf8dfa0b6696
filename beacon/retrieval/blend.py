"""``Blend``: the one composer. Every combination method (``hybrid`` and its family) is a recipe for it.

A recipe (``conf/method/<name>.yaml`` with ``composer: blend``) names the
signal weights and the normalisation, fusion, blending and packing settings;
``beacon.retrieval.methods`` registers every such recipe under its name, so a
new blend variant or ablation is a YAML file (``defaults: [hybrid, _self_]``
plus its own weights), never Python. A weight of 0 switches its signal off
(it is not computed). Per definition ``v`` (not a module, not a test) in file
``f(v)``, in four stages:

1. **lexical** (``fusion`` linear: each signal divided by its maximum over the
   candidates; ``rrf``: reciprocal ranks, ``Σ w / (rrf_k + rank)``)::

       s(v) = w_sym·Ŝ(v) + w_file·F̂(f(v)) + w_mention·M̂(v) + w_name·N̂(v) + w_graph·Π̂(v)
       s(v) ← (s(v) + w_neighbor·max_{u calls v or v calls u} s(u)) · (vendored if v is vendored)

   ``S`` symbol BM25 (``lexical``; stemmed terms with ``stemmed``), ``F`` file
   BM25 (``filelevel``), ``M`` path/identifier mentions (``mentions``), ``N``
   stemmed BM25 over path + qualified name (``stemmed``), ``Π`` the repomap
   walk (``repomap``; ``beta``, ``lambda_*``).
2. **expansion** (``expansion``): ``w_prf_file``/``w_prf_sym`` pseudo-relevance
   feedback terms from the ``prf_files`` best files, ``w_ctx`` caller-expanded
   documents, ``w_cover``/``w_cooc`` query coverage, ``w_topk`` file mean,
   ``w_fname`` file-name BM25, each unit-scaled; the sum is scaled by
   ``vendored`` on vendored code and added; then everything under
   ``examples/``, ``docs/``, … is multiplied by ``peripheral``.
3. **priors** (``history``; inputs ``file_history``/``line_history``):
   ``+ w_history · H(f(v))/max H + w_function · G(v)/max G``.
4. **late signals**: ``+ w_loose_path · P̂(f(v))`` (loose path words,
   ``mentions``) ``+ w_log_file · L̂_F(f(v)) + w_log_function · L̂_G(v)`` (votes
   of similar past commits, ``commit_log``; input ``change_log``).

Packing: when the best file's module costs at most ``whole_file_share`` of the
budget it is packed whole first, then definitions in score order. The
composer's own defaults are the identity (every weight 0, multipliers 1):
what a method does is its recipe.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..context.pack import block_cost, pack
from ..graph.codebase import CodebaseGraph
from ..repo.history import NO_INPUTS, RepoInputs
from .base import RankThenPack, RetrievalResult, require
from .commit_log import log_votes
from .expansion import (context_matrix, feedback_terms, file_coverage, file_name_scores, symbol_coverage,
                        top_k_file_mean, weighted_scores)
from .file_index import file_index
from .filelevel import file_bm25_scores, file_bm25_weights
from .history import file_prior, function_prior
from .lexical import bm25_scores, bm25_symbol_weights
from .masks import packable, peripheral_mask, test_files, vendored_mask
from .mentions import loose_path_matches, mention_weights
from .neighbors import neighbor_max
from .normalise import reciprocal_ranks, unit_scale
from .repomap import repomap_scores
from .stemmed import bm25_field
from .text import term_index
from .transition import EdgeWeights

FUSIONS = ("linear", "rrf")
_NON_NEGATIVE = ("w_sym", "w_file", "w_mention", "w_name", "w_neighbor", "w_graph", "whole_file_share", "vendored",
                 "w_prf_file", "w_prf_sym", "w_ctx", "ctx_weight", "w_cover", "cover_power", "w_cooc", "w_topk",
                 "peripheral", "w_fname", "w_history", "w_function", "w_loose_path", "w_log_file", "w_log_function")
_COUNTS = ("prf_files", "prf_terms", "topk", "log_k")
_EXPANSION = ("w_prf_file", "w_prf_sym", "w_ctx", "w_cover", "w_cooc", "w_topk", "w_fname")


@dataclass
class BlendScores:
    total: np.ndarray  # per symbol
    components: dict[str, np.ndarray]  # each signal's raw score per symbol, by name
    file_score: np.ndarray  # per file (FileIndex order): the best total of its definitions


@dataclass
class Blend(RankThenPack):
    """The composer (see the module docstring); configured only by recipes."""

    # 1. lexical
    w_sym: float = 0.0
    w_file: float = 0.0
    w_mention: float = 0.0
    w_name: float = 0.0
    w_graph: float = 0.0
    w_neighbor: float = 0.0
    fusion: str = "linear"
    rrf_k: float = 60.0
    stemmed: bool = False
    k1: float = 1.2
    b: float = 0.75
    vendored: float = 1.0
    beta: float = 0.85  # the repomap walk (w_graph)
    lambda_call: float = 1.0
    lambda_caller: float = 0.5
    lambda_inherit: float = 0.5
    lambda_import: float = 0.0
    # 2. expansion
    w_prf_file: float = 0.0
    w_prf_sym: float = 0.0
    prf_files: int = 3
    prf_terms: int = 10
    w_ctx: float = 0.0
    ctx_weight: float = 0.5
    w_cover: float = 0.0
    cover_power: float = 1.0
    w_cooc: float = 0.0
    w_topk: float = 0.0
    topk: int = 3
    w_fname: float = 0.0
    peripheral: float = 1.0
    # 3. history priors
    w_history: float = 0.0
    w_function: float = 0.0
    tau: float = 3.0
    max_files: int = 10
    skip: int = 0
    # 4. late signals
    w_loose_path: float = 0.0
    w_log_file: float = 0.0
    w_log_function: float = 0.0
    log_k: int = 20
    # packing
    whole_file_share: float = 0.0

    def __post_init__(self) -> None:
        if self.include_tests:
            raise ValueError(f"{self.name}: test symbols are never candidates here; include_tests must be False")
        if self.fusion not in FUSIONS:
            raise ValueError(f"{self.name}: fusion must be one of {FUSIONS}, got {self.fusion!r}")
        for w in _NON_NEGATIVE:
            if not np.isfinite(getattr(self, w)) or getattr(self, w) < 0:
                raise ValueError(f"{self.name}: {w} must be finite and >= 0, got {getattr(self, w)!r}")
        for k in _COUNTS:
            if isinstance(getattr(self, k), bool) or not isinstance(getattr(self, k), int) or getattr(self, k) < 1:
                raise ValueError(f"{self.name}: {k} must be an integer >= 1, got {getattr(self, k)!r}")
        if not self.tau > 0:
            raise ValueError(f"{self.name}: tau must be > 0, got {self.tau!r}")
        if self.max_files < 1 or self.skip < 0:
            raise ValueError(f"{self.name}: need max_files >= 1 and skip >= 0, got {self.max_files}, {self.skip}")

    def needs(self) -> frozenset[str]:
        return frozenset({"file_history"} if self.w_history else set()) | (
            {"line_history"} if self.w_function else set()) | (
            {"change_log"} if self.w_log_file or self.w_log_function else set())

    # -- scoring -------------------------------------------------------------
    def _lexical(self, graph: CodebaseGraph, query: str, cand: np.ndarray) -> tuple[np.ndarray, dict]:
        index = file_index(graph)
        if self.stemmed:
            f_score = bm25_field(graph, query, "file", self.k1, self.b)
            f_score[test_files(graph)] = 0.0
        else:
            f_score = file_bm25_scores(graph, query)
        mentions = mention_weights(graph, query)
        parts = {
            "sym": bm25_field(graph, query, "symbol", self.k1, self.b) if self.stemmed
            else bm25_scores(graph, query, self.k1, self.b),
            "file": f_score[index.file_of],
            "mention": mentions.symbol + mentions.file[index.file_of],
        }
        if self.w_name:
            parts["name"] = bm25_field(graph, query, "name", self.k1, self.b)
        if self.w_graph:
            weights = EdgeWeights(self.lambda_call, self.lambda_caller, self.lambda_inherit, self.lambda_import)
            parts["graph"] = repomap_scores(graph, query, weights, beta=self.beta, tol=1e-6, max_iter=200)[0]
        w = {"sym": self.w_sym, "file": self.w_file, "mention": self.w_mention, "name": self.w_name,
             "graph": self.w_graph}
        total = np.zeros(len(graph.symbols))
        for name, x in parts.items():
            if w[name]:
                norm = unit_scale(x, cand) if self.fusion == "linear" else reciprocal_ranks(x, cand, self.rrf_k)
                total += w[name] * norm
        total[~cand] = 0.0
        if self.w_neighbor:  # a definition next to (calling or called by) a strong one
            total = total + self.w_neighbor * neighbor_max(graph, total)
            total[~cand] = 0.0
        if self.vendored != 1.0:
            total[vendored_mask(graph)] *= self.vendored
        return total, parts

    def _expansion(self, graph: CodebaseGraph, query: str, cand: np.ndarray, total: np.ndarray,
                   parts: dict) -> np.ndarray:
        fidx = file_index(graph)
        extra = np.zeros(len(graph.symbols))
        if self.w_prf_file or self.w_prf_sym:
            file_score = np.zeros(len(fidx.paths))
            np.maximum.at(file_score, fidx.file_of, total)
            cols, vals = feedback_terms(graph, file_score, query, self.prf_files, self.prf_terms)
            if self.w_prf_file:
                f = weighted_scores(file_bm25_weights(graph), cols, vals)
                f[test_files(graph)] = 0.0
                parts["prf_file"] = f[fidx.file_of]
                extra += self.w_prf_file * unit_scale(parts["prf_file"], cand)
            if self.w_prf_sym:
                parts["prf_sym"] = weighted_scores(bm25_symbol_weights(graph, self.k1, self.b), cols, vals)
                extra += self.w_prf_sym * unit_scale(parts["prf_sym"], cand)
        if self.w_ctx:
            qcols, qvals = term_index(graph).query_vector(query)
            parts["ctx"] = weighted_scores(context_matrix(graph, self.ctx_weight), qcols, qvals)
            extra += self.w_ctx * unit_scale(parts["ctx"], cand)
        if self.w_cover:
            parts["cover"] = file_coverage(graph, query)[fidx.file_of] ** self.cover_power
            extra += self.w_cover * unit_scale(parts["cover"], cand)
        if self.w_cooc:
            parts["cooc"] = symbol_coverage(graph, query)
            extra += self.w_cooc * unit_scale(parts["cooc"], cand)
        if self.w_topk:
            parts["topk"] = top_k_file_mean(graph, np.where(cand, total, 0.0), self.topk)[fidx.file_of]
            extra += self.w_topk * unit_scale(parts["topk"], cand)
        if self.w_fname:
            parts["fname"] = file_name_scores(graph, query)[fidx.file_of]
            extra += self.w_fname * unit_scale(parts["fname"], cand)
        extra[~cand] = 0.0
        if self.vendored != 1.0:
            extra[vendored_mask(graph)] *= self.vendored
        total = total + extra
        if self.peripheral != 1.0:
            total[peripheral_mask(graph)] *= self.peripheral
        return total

    def _priors(self, graph: CodebaseGraph, inputs: RepoInputs, total: np.ndarray, parts: dict) -> np.ndarray:
        file_of = file_index(graph).file_of
        if self.w_history:
            history = require(inputs, "file_history", self.name)
            parts["history"] = file_prior(graph, history, tau=self.tau, max_files=self.max_files,
                                          skip=self.skip)[file_of]
            total = total + self.w_history * parts["history"]
        if self.w_function:
            lines = require(inputs, "line_history", self.name)
            parts["function_history"] = function_prior(graph, lines, tau=self.tau, skip=self.skip)
            total = total + self.w_function * parts["function_history"]
        return total

    def _late(self, graph: CodebaseGraph, query: str, inputs: RepoInputs, cand: np.ndarray, total: np.ndarray,
              parts: dict) -> np.ndarray:
        file_of = file_index(graph).file_of
        if self.w_loose_path:
            loose = loose_path_matches(graph, query)
            loose[test_files(graph)] = 0.0
            parts["loose_path"] = loose[file_of]
            total = total + self.w_loose_path * unit_scale(parts["loose_path"], cand)
            total[~cand] = 0.0
        if self.w_log_file or self.w_log_function:
            log = require(inputs, "change_log", self.name)
            file_vote, function_vote = log_votes(graph, log, query, self.log_k, self.max_files)
            parts["log_file"], parts["log_function"] = file_vote[file_of], function_vote
            total = (total + self.w_log_file * unit_scale(parts["log_file"], cand)
                     + self.w_log_function * unit_scale(parts["log_function"], cand))
        return total

    def scores(self, graph: CodebaseGraph, query: str, inputs: RepoInputs = NO_INPUTS) -> BlendScores:
        cand = packable(graph)
        total, parts = self._lexical(graph, query, cand)
        if any(getattr(self, w) for w in _EXPANSION) or self.peripheral != 1.0:
            total = self._expansion(graph, query, cand, total, parts)
        total = self._priors(graph, inputs, total, parts)
        total = self._late(graph, query, inputs, cand, total, parts)
        total[~cand] = 0.0
        index = file_index(graph)
        file_total = np.zeros(len(index.paths))
        np.maximum.at(file_total, index.file_of, total)
        return BlendScores(total, parts, file_total)

    # -- ranking and packing --------------------------------------------------
    def rank(self, graph, query, inputs=NO_INPUTS):
        total = self.scores(graph, query, inputs).total
        nodes = np.flatnonzero(total > 0)
        nodes = nodes[np.lexsort((nodes, -total[nodes]))]
        return list(zip(nodes.tolist(), total[nodes].tolist()))

    def packing_order(self, graph: CodebaseGraph, ranking: list[tuple[int, float]], budget: int) -> list[int]:
        """Rank order, with the best file's module (the whole file) first when it is cheap enough."""
        order = [n for n, _ in ranking]
        if not order or self.whole_file_share <= 0:
            return order
        index = file_index(graph)
        module = int(index.module_node[index.file_of[order[0]]])
        if module >= 0 and block_cost(graph, module, self.renderer) <= self.whole_file_share * budget:
            return [module] + order
        return order

    def retrieve(self, graph, query, budget, inputs=NO_INPUTS):
        ranking = self.rank(graph, query, inputs)
        context = pack(graph, self.packing_order(graph, ranking, budget), budget, self.renderer, notes=self.notes)
        return RetrievalResult(context, [(graph.symbols[n].id, s) for n, s in ranking], self.name, budget)
