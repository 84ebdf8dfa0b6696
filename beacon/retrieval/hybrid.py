"""``hybrid``: a fixed blend of symbol BM25, file BM25, name BM25, query mentions and call neighbours.

Per definition ``v`` (function, method or class; not a module, not a test)
in file ``f(v)``::

    s(v)     = w_sym·Ŝ(v) + w_file·F̂(f(v)) + w_mention·M̂(v) + w_name·N̂(v) + w_graph·Π̂(v)
    score(v) = (s(v) + w_neighbor·max_{u calls v or v calls u} s(u)) · (vendored if v is vendored code)

each component divided by its maximum over the candidates (so it lies in
[0, 1]): ``S`` the symbol-level BM25 (``bm25``'s documents, k1, b); ``F`` BM25
over whole files (``filelevel``); ``M`` the query's mentions (``mentions``:
names, qualname suffixes, frame functions, plus the path/stem weight of the
symbol's file); ``N`` stemmed BM25 over the symbol's path and qualified name
only (``stemmed``); ``Π`` the ``repomap`` walk (off by default: it lost on the
tune split). Code under a vendored folder (``requests/packages/``) is
multiplied by ``vendored``. With ``fusion="rrf"`` the components are fused by
reciprocal ranks instead, ``Σ_c w_c / (rrf_k + rank_c(v))`` (Cormack et al.,
k = 60). ``stemmed=True`` scores ``S`` and ``F`` on stemmed terms.

Packing prefers whole units of the top-ranked file: when the best file costs
at most ``whole_file_share`` of the budget it is packed whole first (a fix
often edits several functions of one file), then definitions follow in score
order. The defaults are fixed constants (``conf/method/hybrid.yaml`` says where
they came from); nothing is fitted per query or on evaluation instances.
Registered variants: ``hybrid_rrf``, ``hybrid_graph``, ``hybrid_stemmed``,
``bm25_file_rerank`` (file BM25 + symbol BM25 only).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..context.pack import block_cost, pack
from ..graph.codebase import CodebaseGraph
from ..repo.history import NO_INPUTS, RepoInputs
from .base import RankThenPack, RetrievalResult
from .filelevel import file_bm25_scores
from .lexical import bm25_scores
from .file_index import file_index
from .mentions import mention_weights
from .masks import packable, test_files, vendored_mask
from .neighbors import neighbor_max
from .normalise import reciprocal_ranks, unit_scale
from .registry import register_method
from .repomap import repomap_scores
from .stemmed import bm25_field
from .transition import EdgeWeights

FUSIONS = ("linear", "rrf")


@dataclass
class HybridScores:
    total: np.ndarray
    components: dict[str, np.ndarray]
    file_score: np.ndarray  # per file (FileIndex order)


@register_method("hybrid")
@dataclass
class Hybrid(RankThenPack):
    """The blend above; defaults are ``conf/method/hybrid.yaml`` (tuned on the mined ``tune`` split)."""

    w_sym: float = 1.0
    w_file: float = 1.0
    w_mention: float = 1.0
    w_name: float = 0.5
    w_neighbor: float = 0.3
    w_graph: float = 0.0
    fusion: str = "linear"
    rrf_k: float = 60.0
    stemmed: bool = False
    k1: float = 1.2
    b: float = 0.4
    vendored: float = 0.3
    whole_file_share: float = 0.7
    # The repomap walk (graph proximity, used when w_graph > 0), as conf/method/repomap.yaml.
    beta: float = 0.85
    lambda_call: float = 1.0
    lambda_caller: float = 0.5
    lambda_inherit: float = 0.5
    lambda_import: float = 0.0

    def __post_init__(self) -> None:
        if self.include_tests:
            raise ValueError(f"{self.name}: test symbols are never candidates here; include_tests must be False")
        if self.fusion not in FUSIONS:
            raise ValueError(f"{self.name}: fusion must be one of {FUSIONS}, got {self.fusion!r}")
        for w in ("w_sym", "w_file", "w_mention", "w_name", "w_neighbor", "w_graph", "whole_file_share", "vendored"):
            if not np.isfinite(getattr(self, w)) or getattr(self, w) < 0:
                raise ValueError(f"{self.name}: {w} must be finite and >= 0, got {getattr(self, w)!r}")

    def scores(self, graph: CodebaseGraph, query: str, inputs: RepoInputs = NO_INPUTS) -> HybridScores:
        index = file_index(graph)
        cand = packable(graph)
        f_score = file_bm25_scores(graph, query)
        mentions = mention_weights(graph, query)
        if self.stemmed:
            f_score = bm25_field(graph, query, "file", self.k1, self.b)
            f_score[test_files(graph)] = 0.0
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
        w = {"sym": self.w_sym, "file": self.w_file, "mention": self.w_mention, "graph": self.w_graph,
             "name": self.w_name}
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
        file_total = np.zeros(len(index.paths))
        np.maximum.at(file_total, index.file_of, total)
        return HybridScores(total, parts, file_total)

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


@register_method("hybrid_rrf")
@dataclass
class HybridRRF(Hybrid):
    """Baseline: the same components fused by reciprocal ranks."""

    fusion: str = "rrf"


@register_method("hybrid_graph")
@dataclass
class HybridGraph(Hybrid):
    """Baseline: plus the repomap walk (w_graph = 0.3)."""

    w_graph: float = 0.3


@register_method("hybrid_stemmed")
@dataclass
class HybridStemmed(Hybrid):
    """Variant: symbol and file BM25 on stemmed terms."""

    stemmed: bool = True


@register_method("bm25_file_rerank")
@dataclass
class BM25FileRerank(Hybrid):
    """File-level BM25 then function re-ranking by symbol BM25: ``S + F`` alone, nothing else."""

    w_mention: float = 0.0
    w_name: float = 0.0
    w_neighbor: float = 0.0
    b: float = 0.75
    vendored: float = 1.0
    whole_file_share: float = 0.0
