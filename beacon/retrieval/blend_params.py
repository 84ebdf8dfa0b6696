"""``BlendParams``: every parameter of the composer (``Blend``), grouped by stage, and its validation.

A recipe (``conf/method/<name>.yaml``) sets these by name. A weight of 0 switches its signal off (it is not
computed); the defaults are the identity (every weight 0, multipliers 1: ``no_retrieval``). Per definition ``v``
(not a module, not a test) in file ``f(v)`` the score is built in six stages (computed in ``stages``, in this
order); each group of fields below opens with what its stage adds, and each field says what it weighs.

Kept apart from ``blend`` (ranking, packing) so that a new signal's parameter lands here: a field in its stage's
group with a one-line comment, and its name in ``NON_NEGATIVE`` (weights, multipliers) or ``COUNTS``.
``BlendParams`` is mixed into ``Blend`` with ``RankThenPack``, whose ``name`` its errors carry and whose
``include_tests`` it checks against ``candidates``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import prose_gate
from .infile import FIELDS as LOCAL_FIELDS
from .issue_fusion import check_issue_fusion
from .normalise import ISSUE_SCALES
from .query_weights import QueryWeights
from .signals_real.doc_expansion import check_sources
from .signals_real.flow_text import gap_set

FUSIONS, CANDIDATES = ("linear", "rrf", "raw"), ("definitions", "symbols")
# finite and >= 0 (weights and multipliers); new names go last, so an error lists the first offender as before
NON_NEGATIVE = ("w_sym", "w_file", "w_mention", "w_name", "w_neighbor", "w_graph", "w_keywords", "w_hashed",
                "mention_prose", "generic", "whole_file_share", "vendored", "w_prf_file", "w_prf_sym", "w_ctx",
                "ctx_weight", "w_cover", "cover_power", "w_cooc", "w_topk", "peripheral", "w_fname", "w_history",
                "w_function", "w_loose_path", "w_log_file", "w_log_function", "w_literal", "w_frame", "w_dotted",
                "w_error", "w_names", "w_receiver", "w_flow", "w_users", "w_error_users", "w_callees",
                "w_overriders", "w_qualified", "w_docs", "w_local", "w_file_share", "file_decay", "issue_conf",
                "prose_title_boost", "lift_cap", "hop_backoff", "w_tests", "tests_files", "docctx_weight",
                "compound_weight")
COUNTS = ("prf_files", "prf_terms", "topk", "log_k", "local_files", "tests_k", "docs_k")  # integers >= 1


@dataclass
class BlendParams:
    """The composer's parameters (see the module docstring); ``Blend`` adds the ranking and the packing."""

    # 1. lexical (``stages.lexical``), fused by ``fusion``: ``linear``, each signal divided by its maximum over
    # the candidates; ``rrf``, reciprocal ranks ``Σ w / (rrf_k + rank)``; ``raw``, the scores as they are, for
    # the one-signal recipes ``bm25``, ``keyword_map`` (w_keywords) and ``vector`` (w_hashed):
    #     s(v) = w_sym·Ŝ(v) + w_file·F̂(f(v)) + w_mention·M̂(v) + w_name·N̂(v) + w_graph·Π̂(v)
    #     s(v) ← (s(v) + w_neighbor·max_{u calls v or v calls u} s(u)) · (vendored if v is vendored)
    w_sym: float = 0.0  # S: symbol BM25 (lexical.py; stemmed terms with ``stemmed``; sym_expand: expanded documents)
    w_file: float = 0.0  # F: file BM25 (filelevel.py)
    w_mention: float = 0.0  # M: path/identifier mentions (mentions.py)
    w_name: float = 0.0  # N: stemmed BM25 over path + qualified name (stemmed.py)
    w_graph: float = 0.0  # Π: the repomap walk (repomap.py; beta, lambda_* below)
    w_keywords: float = 0.0  # distinct query terms in the document (keyword_map)
    w_hashed: float = 0.0  # cosine of hashed token vectors (vector)
    w_neighbor: float = 0.0  # the best call neighbour's s(u), callers and callees alike (neighbors.py)
    # neither multiplier helped (docs/localization_real.md); both neutral at 1
    generic: float = 1.0  # multiplies s(v) when v holds none of the query's rarer terms (lexical.specific_match)
    mention_prose: float = 1.0  # scales w_mention's matches from prose words only (mentions.py)
    fusion: str = "linear"  # linear, rrf or raw (above)
    rrf_k: float = 60.0
    stemmed: bool = False  # S and F over stemmed terms (stemmed.py)
    k1: float = 1.2
    b: float = 0.75
    vendored: float = 1.0  # multiplies s(v) on vendored code (masks.vendored_mask), and stage 2's sum there
    # S over documents expanded with the docs sections citing ("docs") and the tests reaching ("tests",
    # "docs+tests") each definition (signals_real/doc_expansion.py); "": the plain documents
    sym_expand: str = ""
    docctx_weight: float = 0.5  # ... the expansion's share
    # adjacent prose words joined into the identifiers the index holds: more S and F terms (signals_real/compounds.py)
    compound_weight: float = 0.0
    # query-term weights of the BM25 signals (S, F, N and stage 2's w_ctx; query_weights.py), each term weighed
    # by where it stands; neutral (0, 0, 1, 0, 0): the plain counts
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

    # 2. expansion (``stages.expansion``, expansion.py): each signal unit-scaled; the sum is scaled by ``vendored``
    # on vendored code and added; then everything under ``examples/``, ``docs/``, … is multiplied by ``peripheral``
    w_prf_file: float = 0.0  # pseudo-relevance feedback terms from the prf_files best files, by file BM25 ...
    w_prf_sym: float = 0.0  # ... and by symbol BM25
    prf_files: int = 3
    prf_terms: int = 10
    w_ctx: float = 0.0  # caller-expanded documents
    ctx_weight: float = 0.5
    w_cover: float = 0.0  # query coverage: the idf-weighted share of the query's distinct terms in the file
    cover_power: float = 1.0
    w_cooc: float = 0.0  # query coverage: the same within the definition's own document
    w_topk: float = 0.0  # file mean: the mean of the file's topk best scores so far
    topk: int = 3
    w_fname: float = 0.0  # file-name BM25: stemmed, over the names the file defines
    peripheral: float = 1.0  # multiplies examples/, docs/, … (masks.peripheral_mask)

    # 3. priors (``stages.priors``, history.py; inputs ``file_history``, ``line_history``):
    #     + w_history · H(f(v))/max H + w_function · G(v)/max G, then all of it / (1 + ln n_f(v))^file_size_power
    w_history: float = 0.0  # H: recently changed files
    w_function: float = 0.0  # G: recently changed functions
    tau: float = 3.0
    max_files: int = 10
    skip: int = 0
    file_size_power: float = 0.0  # s(v) / (1 + ln n_f)^p, n_f: candidate definitions in v's file (0: off)

    # 4. late signals (``stages.late``):
    #     + w_loose_path · P̂(f(v)) + w_log_file · L̂_F(f(v)) + w_log_function · L̂_G(v)
    w_loose_path: float = 0.0  # P: loose path words (mentions.py)
    w_log_file: float = 0.0  # L_F: votes of similar past commits for files (commit_log.py; input change_log) ...
    w_log_function: float = 0.0  # L_G: ... and for definitions
    log_k: int = 20

    # 5. issue structure (``stages.issue``, signals_real/; only when one of its weights is set): the total divided
    # by its maximum, then  + Σ w · (unit(evidence(v)) + unit(votes(f(v))))  over the signals below; ``unit`` is
    # issue_scale; the lifts are added, backed off, fused by max, clipped (hop_backoff, issue_fuse, lift_*)
    w_literal: float = 0.0  # string constants the issue quotes (signals_real/literals.py)
    w_frame: float = 0.0  # traceback frames (signals_real/frames.py)
    w_dotted: float = 0.0  # dotted API names and imports resolved through the graph (signals_real/dotted.py)
    w_error: float = 0.0  # names quoted in pasted error messages (signals_real/errors.py)
    w_names: float = 0.0  # names written as code, shared by the definitions that bear them (signals_real/names.py)
    # pasted code read like a reader: variables bound to classes, snippet classes through their bases, methods
    # used on them (signals_real/receivers.py)
    w_receiver: float = 0.0
    w_flow: float = 0.0  # pasted code followed further: calls, star imports, return types (signals_real/flow.py)
    flow_gaps: str = ""  # shapes w_flow also follows ("all" or "tuples+attrs+names+frames"); "": none, as before
    # one step on from the named definitions to other files (signals_real/usesites.py)
    w_users: float = 0.0  # callers, importers
    w_error_users: float = 0.0  # users of named exception classes and their subclasses
    w_callees: float = 0.0  # callees sharing the issue's terms
    w_overriders: float = 0.0
    w_qualified: float = 0.0  # ``Class.member`` names resolved through the class to the member (signals_real/qualified.py)
    w_tests: float = 0.0  # the code the tests_k tests best matching the query call (signals_real/tests_bridge.py)
    tests_k: int = 5  # how many tests carry it; tests_files: the share of its file votes (1: as the others)
    tests_files: float = 1.0
    w_docs: float = 0.0  # API cited by the docs_k best-matching documentation sections (signals_real/docs_bridge.py)
    docs_k: int = 3
    issue_scale: str = "max"  # how each issue signal is scaled (normalise.evidence_scale): max, absolute, saturate
    issue_conf: float = 1.0  # saturate: the raw maximum at which a signal gets half its weight
    issue_fuse: str = "sum"  # the signals' lifts added (sum) or their largest one (max) (issue_fusion.py)
    lift_cap: float = 0.0  # the fused lift clipped to this share of the pre-issue top score (0: off)
    lift_rank: int = 0  # ... and to the gap between the pre-issue top and k-th scores (0: off)
    hop_backoff: float = 1.0  # one-hop (usesites) lifts times this when a direct issue signal has evidence

    # 6. inside the best files (``stages.infile``, infile.py; only when one of its weights is set):
    #     + w_local · local(v) + w_file_share · share(f(v)),  then a file's j-th definition ÷ (1 + file_decay · j)
    # local(v): BM25 of each definition of the local_files best files with the IDF over that file's definitions,
    # times the file's share of the best file's total
    w_local: float = 0.0  # within-file BM25 of the best files' definitions
    local_files: int = 3  # how many best files get it
    local_field: str = "terms"  # its documents (infile.FIELDS): the term index's, stemmed, or path + name only
    w_file_share: float = 0.0  # the definition's file's best total over the best file's
    file_decay: float = 0.0  # the j-th definition of a file divided by 1 + file_decay * j

    # candidates and packing (``blend``)
    candidates: str = "definitions"  # or "symbols": modules too (and tests with include_tests)
    ground_named: bool = False  # symbols the query names verbatim first (grounded_bm25)
    whole_file_share: float = 0.0  # the best file's module packed whole first when it costs at most this share

    def __post_init__(self) -> None:
        """Refuse a recipe the composer cannot run, naming the method: unknown choices, negative weights,
        counts below 1, a ``prose`` that is not a mapping of scoring parameters."""
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
        for w in NON_NEGATIVE:
            if not np.isfinite(getattr(self, w)) or getattr(self, w) < 0:
                raise ValueError(f"{self.name}: {w} must be finite and >= 0, got {getattr(self, w)!r}")
        if not np.isfinite(self.file_size_power):  # signed: < 0 favours files with many definitions
            raise ValueError(f"{self.name}: file_size_power must be finite, got {self.file_size_power!r}")
        for k in COUNTS:
            if isinstance(getattr(self, k), bool) or not isinstance(getattr(self, k), int) or getattr(self, k) < 1:
                raise ValueError(f"{self.name}: {k} must be an integer >= 1, got {getattr(self, k)!r}")
        if not self.tau > 0 or self.max_files < 1 or self.skip < 0:
            raise ValueError(f"{self.name}: need tau > 0, max_files >= 1 and skip >= 0, got {self.tau!r}, "
                             f"{self.max_files}, {self.skip}")

    @property
    def query_weights(self) -> QueryWeights:
        return QueryWeights(self.title_boost, self.code_boost, self.dump_weight, self.qtf_cap, self.prose_title_boost)
