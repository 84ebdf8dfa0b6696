"""``Blend``: the one composer. Every combination method (``hybrid`` and its family) is a recipe for it.

A recipe (``conf/method/<name>.yaml`` with ``composer: blend``) names the signal weights and the normalisation,
fusion, blending and packing settings; ``beacon.retrieval.methods`` registers every such recipe under its name,
so a new blend variant or ablation is a YAML file (``defaults: [hybrid, _self_]`` plus its own weights), never
Python. A weight of 0 switches its signal off (it is not computed). Per definition ``v`` (not a module, not a
test) in file ``f(v)``, in six stages:

1. **lexical** (``fusion`` linear: each signal divided by its maximum over the candidates; ``rrf``: reciprocal
   ranks, ``Σ w / (rrf_k + rank)``; ``raw``: the scores as they are, for the one-signal recipes ``bm25``,
   ``keyword_map`` (``w_keywords``: distinct query terms) and ``vector`` (``w_hashed``))::

       s(v) = w_sym·Ŝ(v) + w_file·F̂(f(v)) + w_mention·M̂(v) + w_name·N̂(v) + w_graph·Π̂(v)
       s(v) ← (s(v) + w_neighbor·max_{u calls v or v calls u} s(u)) · (vendored if v is vendored)

   ``S`` symbol BM25 (``lexical``; stemmed terms with ``stemmed``; with ``sym_expand`` over documents expanded with
   the docs sections citing and the tests reaching each definition, ``doc_expansion``), ``F`` file BM25, ``M``
   path/identifier mentions (``mentions``), ``N`` stemmed BM25 over path + qualified name (``stemmed``), ``Π``
   the repomap walk (``repomap``; ``beta``, ``lambda_*``). ``mention_prose`` scales the mentions from prose
   words only, and ``generic`` multiplies ``s(v)`` when ``v`` holds none of the query's rarer terms
   (``lexical.specific_match``); both neutral at 1, neither helped (README). The BM25 signals (``S``, ``F``, ``N``
   and stage 2's ``w_ctx``) weigh each query term by where it stands (``query_weights``): ``title_boost`` (the first non-empty line), ``code_boost`` (backticks, pasted
   code), ``dump_weight`` (pasted output, number-heavy and long non-Python lines), ``qtf_cap``,
   ``prose_title_boost`` (more title boost when no code is pasted); neutral (0, 0, 1, 0, 0): the plain counts;
   ``compound_weight``: adjacent prose words joined into the identifiers the index holds, more S and F terms.
2. **expansion** (``expansion``): ``w_prf_file``/``w_prf_sym`` pseudo-relevance feedback terms from the
   ``prf_files`` best files, ``w_ctx`` caller-expanded documents, ``w_cover``/``w_cooc`` query coverage,
   ``w_topk`` file mean, ``w_fname`` file-name BM25, each unit-scaled; the sum is scaled by ``vendored`` on
   vendored code and added; then everything under ``examples/``, ``docs/``, … is multiplied by ``peripheral``.
3. **priors** (``history``; inputs ``file_history``/``line_history``):
   ``+ w_history · H(f(v))/max H + w_function · G(v)/max G``.
4. **late signals**: ``+ w_loose_path · P̂(f(v))`` (loose path words, ``mentions``) ``+ w_log_file · L̂_F(f(v))
   + w_log_function · L̂_G(v)`` (votes of similar past commits, ``commit_log``; input ``change_log``).
5. **issue structure** (``signals_real``; only when one of its weights is set): the total divided by its maximum,
   then ``+ Σ w · (unit(evidence(v)) + unit(votes(f(v))))`` for ``w_literal`` (string constants the issue quotes),
   ``w_frame`` (traceback frames) and ``w_dotted`` (dotted API names and imports resolved through the graph),
   ``w_error`` (names quoted in pasted error messages), ``w_names`` (names written as code, each shared by the
   definitions that bear it), ``w_receiver`` (pasted code read like a reader: variables bound to classes, snippet
   classes through their bases, methods used on them), ``w_flow`` (pasted code followed further: calls, star
   imports, return types; ``flow_gaps``: shapes also followed, none by default); and, one step from the named
   definitions to other files (``usesites``), ``w_users`` (callers, importers), ``w_error_users`` (users of named
   exception classes and their subclasses), ``w_callees`` (callees sharing the issue's terms), ``w_overriders``;
   ``w_qualified`` (``Class.member`` names resolved through the class); ``w_tests`` (the code the ``tests_k`` tests
   best matching the query call; ``tests_files``: its file votes' share); ``w_docs`` (API cited by the ``docs_k``
   documentation sections best matching the issue). ``unit`` is ``issue_scale`` (``max``, default; ``saturate``,
   ``absolute``); lifts added, backed off, fused by max, clipped (``hop_backoff``, ``issue_fuse``…).
6. **inside the best files** (``infile``; only when one of its weights is set): ``+ w_local · local(v)`` (BM25 of
   each definition of the ``local_files`` best files with the IDF over that file's definitions, times the file's
   share of the best file's total; ``local_field``: its documents) ``+ w_file_share · share(f(v))``, then
   ``file_decay`` divides a file's ``j``-th definition by ``1 + file_decay · j``.

Candidates are definitions (``candidates: definitions``: no modules, no tests) or every non-test symbol
(``symbols``; tests too with ``include_tests``). Ranking: positive totals, best first (``ground_named``: the
symbols the query names verbatim first). Packing: when the best file's module costs at most ``whole_file_share``
of the budget it is packed whole first, then in rank order. The stages live in ``stages``. The composer's own
defaults are the identity (every weight 0, multipliers 1: ``no_retrieval``): what a method does is its recipe.
``prose`` (``prose_gate``) gives a report that pastes no code its own parameters in place of the recipe's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from ..context.pack import block_cost, pack
from ..graph.codebase import CodebaseGraph
from ..repo.history import NO_INPUTS, RepoInputs
from . import prose_gate, stages
from .base import RankThenPack
from .file_index import file_index
from .infile import FIELDS as LOCAL_FIELDS
from .lexical import named_first, named_mask
from .query_weights import QueryWeights
from .issue_fusion import check_issue_fusion
from .signals_real.doc_expansion import check_sources
from .signals_real.flow_text import gap_set
from .normalise import ISSUE_SCALES, best_first, best_first_lazily
from .masks import is_test_mask, packable

FUSIONS, CANDIDATES = ("linear", "rrf", "raw"), ("definitions", "symbols")
_NON_NEGATIVE = ("w_sym", "w_file", "w_mention", "w_name", "w_neighbor", "w_graph", "w_keywords", "w_hashed",
                 "mention_prose", "generic", "whole_file_share", "vendored", "w_prf_file", "w_prf_sym", "w_ctx",
                 "ctx_weight", "w_cover", "cover_power", "w_cooc", "w_topk", "peripheral", "w_fname", "w_history",
                 "w_function", "w_loose_path", "w_log_file", "w_log_function", "w_literal", "w_frame", "w_dotted",
                 "w_error", "w_names", "w_receiver", "w_flow", "w_users", "w_error_users", "w_callees",
                 "w_overriders", "w_qualified", "w_docs", "w_local", "w_file_share", "file_decay", "issue_conf",
                 "prose_title_boost", "lift_cap", "hop_backoff", "w_tests", "tests_files", "docctx_weight", "compound_weight")
_COUNTS = ("prf_files", "prf_terms", "topk", "log_k", "local_files", "tests_k", "docs_k")


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
    w_keywords: float = 0.0  # distinct query terms in the document (keyword_map)
    w_hashed: float = 0.0  # cosine of hashed token vectors (vector)
    w_neighbor: float = 0.0
    generic: float = 1.0  # multiplier for definitions matching none of the query's rarer terms; 1: as before
    mention_prose: float = 1.0  # w_mention's matches from prose words only (mentions.py); 1: as before
    fusion: str = "linear"
    rrf_k: float = 60.0
    stemmed: bool = False
    k1: float = 1.2
    b: float = 0.75
    vendored: float = 1.0
    sym_expand: str = ""  # S over documents expanded with "docs", "tests", "docs+tests" (signals_real/doc_expansion)
    docctx_weight: float = 0.5  # ... the expansion's share
    compound_weight: float = 0.0  # adjacent prose words joined into identifiers, more S and F terms (compounds.py)
    # query-term weights of the BM25 signals (query_weights.py; neutral: the plain counts)
    title_boost: float = 0.0  # terms on the first non-empty line count 1 + title_boost
    code_boost: float = 0.0  # terms in backticks or pasted code count 1 + code_boost
    dump_weight: float = 1.0  # terms on pasted output / number-heavy / long non-Python lines count dump_weight
    qtf_cap: int = 0  # a term counts its qtf_cap heaviest occurrences (0: all)
    prose_title_boost: float = 0.0  # added to title_boost when the report pastes no code
    prose: dict = field(default_factory=dict)  # parameters for reports that paste no code (prose_gate)
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
    # 5. issue structure
    w_literal: float = 0.0
    w_frame: float = 0.0
    w_dotted: float = 0.0
    w_error: float = 0.0  # names quoted in pasted error messages (signals_real/errors.py)
    w_names: float = 0.0  # names written as code, shared by the definitions that bear them (signals_real/names.py)
    w_receiver: float = 0.0  # pasted code: receivers, snippet classes and bases (signals_real/receivers.py)
    w_flow: float = 0.0  # pasted code: function calls, star imports, return types (signals_real/flow.py)
    flow_gaps: str = ""  # shapes w_flow also follows ("all" or "tuples+attrs+names+frames"); "": none, as before
    # one step on from the named definitions (signals_real/usesites.py): users, users of named exceptions, callees
    w_users: float = 0.0
    w_error_users: float = 0.0
    w_callees: float = 0.0
    w_overriders: float = 0.0
    w_qualified: float = 0.0  # ``Class.member`` names resolved through the class to the member (signals_real/qualified.py)
    w_tests: float = 0.0  # the code the best-matching tests exercise (signals_real/tests_bridge.py)
    tests_k: int = 5  # how many tests carry it; tests_files: the share of its file votes (1: as the others)
    tests_files: float = 1.0
    w_docs: float = 0.0  # API cited by the docs_k=3 best-matching documentation sections (signals_real/docs_bridge.py)
    docs_k: int = 3
    issue_scale: str = "max"  # how each issue signal is scaled (normalise.evidence_scale): max, absolute, saturate
    issue_conf: float = 1.0  # saturate: the raw maximum at which a signal gets half its weight
    issue_fuse: str = "sum"  # the signals' lifts added (sum) or their largest one (max) (issue_fusion.py)
    lift_cap: float = 0.0  # the fused lift clipped to this share of the pre-issue top score (0: off)
    lift_rank: int = 0  # ... and to the gap between the pre-issue top and k-th scores (0: off)
    hop_backoff: float = 1.0  # one-hop (usesites) lifts times this when a direct issue signal has evidence
    # 6. inside the best files (infile.py)
    w_local: float = 0.0  # within-file BM25 of the best files' definitions
    local_files: int = 3  # how many best files get it
    local_field: str = "terms"  # its documents (infile.FIELDS): the term index's, stemmed, or path + name only
    w_file_share: float = 0.0  # the definition's file's best total over the best file's
    file_decay: float = 0.0  # the j-th definition of a file divided by 1 + file_decay * j
    # candidates and packing
    candidates: str = "definitions"  # or "symbols": modules too (and tests with include_tests)
    ground_named: bool = False  # symbols the query names verbatim first (grounded_bm25)
    whole_file_share: float = 0.0

    def __post_init__(self) -> None:
        for key, allowed in (("candidates", CANDIDATES), ("local_field", LOCAL_FIELDS), ("issue_scale", ISSUE_SCALES),
                             ("fusion", FUSIONS)):
            if getattr(self, key) not in allowed:
                raise ValueError(f"{self.name}: {key} must be one of {allowed}, got {getattr(self, key)!r}")
        if self.include_tests and self.candidates != "symbols":
            raise ValueError(f"{self.name}: test symbols are never candidates among definitions; include_tests "
                             f"needs candidates: symbols")
        check_issue_fusion(self.name, self.issue_fuse, self.lift_rank)
        prose_gate.check(self)
        try:
            self.query_weights, gap_set(self.flow_gaps), check_sources(self.sym_expand, self.stemmed)
        except ValueError as e:
            raise ValueError(f"{self.name}: {e}") from None
        for w in _NON_NEGATIVE:
            if not np.isfinite(getattr(self, w)) or getattr(self, w) < 0:
                raise ValueError(f"{self.name}: {w} must be finite and >= 0, got {getattr(self, w)!r}")
        for k in _COUNTS:
            if isinstance(getattr(self, k), bool) or not isinstance(getattr(self, k), int) or getattr(self, k) < 1:
                raise ValueError(f"{self.name}: {k} must be an integer >= 1, got {getattr(self, k)!r}")
        if not self.tau > 0 or self.max_files < 1 or self.skip < 0:
            raise ValueError(f"{self.name}: need tau > 0, max_files >= 1 and skip >= 0, got {self.tau!r}, "
                             f"{self.max_files}, {self.skip}")

    @property
    def query_weights(self) -> QueryWeights:
        return QueryWeights(self.title_boost, self.code_boost, self.dump_weight, self.qtf_cap, self.prose_title_boost)

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
        total = stages.priors(m, graph, inputs, total, parts)
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
