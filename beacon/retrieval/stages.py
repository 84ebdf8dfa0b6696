"""The composer's six stages (``blend``): each reads a ``Blend``'s weights and adds its signals to the total.

Kept apart from ``Blend`` itself (ranking, packing; ``blend``) and its parameters (``blend_params``, where each
stage's formula is written) so that each file stays short; the order of the additions is part of the recipe's output
(float sums), so it is fixed here: lexical, expansion, priors, late signals, issue structure, in-file.
A signal whose weight is 0 is not computed; the issue stage runs only when
one of its weights is set, so a recipe without them is unchanged.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..graph.codebase import CodebaseGraph
from ..repo.history import RepoInputs
from .base import require
from .commit_log import log_votes
from .expansion import (context_matrix, feedback_terms, file_coverage, file_name_scores, symbol_coverage,
                        top_k_file_mean, weighted_scores)
from .file_index import file_index
from .filelevel import file_bm25_scores, file_bm25_weights
from .hashed import hashed_similarity
from .history import file_prior, function_prior
from .infile import file_share, local_scores, spread
from .issue_fusion import fuse_lifts, is_neutral
from .lexical import bm25_scores, bm25_symbol_weights, keyword_overlap, specific_match
from .masks import peripheral_mask, test_files, vendored_mask
from .mentions import loose_path_matches, mention_weights
from .neighbors import neighbor_max
from .normalise import evidence_scale, reciprocal_ranks, unit_scale
from .repomap import repomap_scores
from .signals_real.compounds import compound_scores
from .signals_real.doc_expansion import expanded_scores
from .signals_real.docs_bridge import docs_scores
from .signals_real.dotted import dotted_scores
from .signals_real.errors import error_scores
from .signals_real.flow import flow_scores
from .signals_real.flow_text import gap_set
from .signals_real.frames import frame_scores
from .signals_real.literals import literal_scores
from .signals_real.names import name_scores
from .signals_real.qualified import qualified_scores
from .signals_real.receivers import receiver_scores
from .signals_real.tests_bridge import tests_scores
from .signals_real.usesites import callee_scores, error_user_scores, overrider_scores, user_scores
from .stemmed import bm25_field
from .text import term_index
from .transition import EdgeWeights
from . import libm

if TYPE_CHECKING:
    from .blend import Blend

# new signals go last: the stage adds in this order, so recipes without them keep their float sums
ISSUE = {"literal": literal_scores, "frame": frame_scores, "dotted": dotted_scores, "error": error_scores,
         "names": name_scores, "receiver": receiver_scores, "flow": flow_scores, "users": user_scores,
         "error_users": error_user_scores, "callees": callee_scores, "overriders": overrider_scores,
         "qualified": qualified_scores, "tests": tests_scores, "docs": docs_scores}
EXPANSION = ("w_prf_file", "w_prf_sym", "w_ctx", "w_cover", "w_cooc", "w_topk", "w_fname")


def _file_level(m: Blend, graph: CodebaseGraph, query: str) -> np.ndarray:
    if not m.stemmed:
        return file_bm25_scores(graph, query, weights=m.query_weights)
    f_score = bm25_field(graph, query, "file", m.k1, m.b, m.query_weights)
    f_score[test_files(graph)] = 0.0
    return f_score


def lexical(m: Blend, graph: CodebaseGraph, query: str, cand: np.ndarray, parts: dict) -> np.ndarray:
    """``Σ w · normalised signal`` over the lexical signals, then call neighbours and the vendored multiplier.

    The BM25 signals (symbol, file, name) weigh the query's terms by where they stand (``m.query_weights``:
    title, code, pasted dumps; neutral by default); mentions match names as written and are not weighted.
    ``compound_weight`` adds to S and F the BM25 of the compound identifiers adjacent prose words spell
    (``signals_real.compounds``), as extra query terms of that count.
    """
    file_of = file_index(graph).file_of
    qw = m.query_weights
    signals = {
        "sym": lambda: (bm25_field(graph, query, "symbol", m.k1, m.b, qw) if m.stemmed
                        else expanded_scores(graph, query, m.sym_expand, m.docctx_weight, m.k1, m.b, qw)
                        if m.sym_expand else bm25_scores(graph, query, m.k1, m.b, qw)),
        "file": lambda: _file_level(m, graph, query)[file_of],
        "mention": lambda: (lambda w: w.symbol + w.file[file_of])(mention_weights(graph, query, m.mention_prose)),
        "name": lambda: bm25_field(graph, query, "name", m.k1, m.b, qw),
        "graph": lambda: repomap_scores(graph, query, EdgeWeights(m.lambda_call, m.lambda_caller, m.lambda_inherit,
                                                                  m.lambda_import),
                                        beta=m.beta, tol=1e-6, max_iter=200)[0],
        "keywords": lambda: keyword_overlap(graph, query),
        "hashed": lambda: hashed_similarity(graph, query),
    }
    extra = {}  # compound_weight: the query's compounds as more query terms of S and F (signals_real/compounds.py)
    if m.compound_weight and (m.w_sym or m.w_file):
        found = compound_scores(graph, query, m.k1, m.b)
        extra = {"sym": m.compound_weight * found.symbol, "file": m.compound_weight * found.file[file_of]}
    total = np.zeros(len(graph.symbols))
    for name, signal in signals.items():
        weight = getattr(m, f"w_{name}")
        if not weight:
            continue
        parts[name] = x = signal() + extra[name] if name in extra else signal()
        if m.fusion == "raw":
            total += weight * x
        elif m.fusion == "linear":
            total += weight * unit_scale(x, cand)
        else:
            total += weight * reciprocal_ranks(x, cand, m.rrf_k)
    total[~cand] = 0.0
    if m.generic != 1.0:  # definitions matching only the query's commoner half of terms (lexical.specific_match)
        total[~specific_match(graph, query, qw)] *= m.generic
    if m.w_neighbor:  # a definition next to (calling or called by) a strong one
        total = total + m.w_neighbor * neighbor_max(graph, total)
        total[~cand] = 0.0
    if m.vendored != 1.0:
        total[vendored_mask(graph)] *= m.vendored
    return total


def expansion(m: Blend, graph: CodebaseGraph, query: str, cand: np.ndarray, total: np.ndarray,
              parts: dict) -> np.ndarray:
    """Feedback terms and expanded documents, unit-scaled and added; then the ``peripheral`` multiplier."""
    if not (any(getattr(m, w) for w in EXPANSION) or m.peripheral != 1.0):
        return total
    fidx = file_index(graph)
    extra = np.zeros(len(graph.symbols))
    if m.w_prf_file or m.w_prf_sym:
        file_score = np.zeros(len(fidx.paths))
        np.maximum.at(file_score, fidx.file_of, total)
        cols, vals = feedback_terms(graph, file_score, query, m.prf_files, m.prf_terms)
        if m.w_prf_file:
            f = weighted_scores(file_bm25_weights(graph), cols, vals)
            f[test_files(graph)] = 0.0
            parts["prf_file"] = f[fidx.file_of]
            extra += m.w_prf_file * unit_scale(parts["prf_file"], cand)
        if m.w_prf_sym:
            parts["prf_sym"] = weighted_scores(bm25_symbol_weights(graph, m.k1, m.b), cols, vals)
            extra += m.w_prf_sym * unit_scale(parts["prf_sym"], cand)
    if m.w_ctx:
        qcols, qvals = term_index(graph).query_vector(query, m.query_weights)
        parts["ctx"] = weighted_scores(context_matrix(graph, m.ctx_weight), qcols, qvals)
        extra += m.w_ctx * unit_scale(parts["ctx"], cand)
    if m.w_cover:
        parts["cover"] = libm.power(file_coverage(graph, query), m.cover_power)[fidx.file_of]
        extra += m.w_cover * unit_scale(parts["cover"], cand)
    if m.w_cooc:
        parts["cooc"] = symbol_coverage(graph, query)
        extra += m.w_cooc * unit_scale(parts["cooc"], cand)
    if m.w_topk:
        parts["topk"] = top_k_file_mean(graph, np.where(cand, total, 0.0), m.topk)[fidx.file_of]
        extra += m.w_topk * unit_scale(parts["topk"], cand)
    if m.w_fname:
        parts["fname"] = file_name_scores(graph, query)[fidx.file_of]
        extra += m.w_fname * unit_scale(parts["fname"], cand)
    extra[~cand] = 0.0
    if m.vendored != 1.0:
        extra[vendored_mask(graph)] *= m.vendored
    total = total + extra
    if m.peripheral != 1.0:
        total[peripheral_mask(graph)] *= m.peripheral
    return total


def priors(m: Blend, graph: CodebaseGraph, inputs: RepoInputs, cand: np.ndarray, total: np.ndarray,
           parts: dict) -> np.ndarray:
    """``+ w_history · H/max H + w_function · G/max G`` (inputs ``file_history``, ``line_history``)."""
    file_of = file_index(graph).file_of
    if m.w_history:
        history = require(inputs, "file_history", m.name)
        parts["history"] = file_prior(graph, history, tau=m.tau, max_files=m.max_files, skip=m.skip)[file_of]
        total = total + m.w_history * parts["history"]
    if m.w_function:
        lines = require(inputs, "line_history", m.name)
        parts["function_history"] = function_prior(graph, lines, tau=m.tau, skip=m.skip)
        total = total + m.w_function * parts["function_history"]
    if m.file_size_power:
        sizes = np.bincount(file_of, weights=cand.astype(float), minlength=int(file_of.max()) + 1)
        total = total / libm.power(1.0 + libm.log(np.maximum(sizes, 1.0)), m.file_size_power)[file_of]
    return total


def late(m: Blend, graph: CodebaseGraph, query: str, inputs: RepoInputs, cand: np.ndarray, total: np.ndarray,
         parts: dict) -> np.ndarray:
    """``+ w_loose_path · P̂`` (loose path words), ``+ w_log_file · L̂_F + w_log_function · L̂_G`` (input ``change_log``)."""
    file_of = file_index(graph).file_of
    if m.w_loose_path:
        loose = loose_path_matches(graph, query)
        loose[test_files(graph)] = 0.0
        parts["loose_path"] = loose[file_of]
        total = total + m.w_loose_path * unit_scale(parts["loose_path"], cand)
        total[~cand] = 0.0
    if m.w_log_file or m.w_log_function:
        log = require(inputs, "change_log", m.name)
        file_vote, function_vote = log_votes(graph, log, query, m.log_k, m.max_files)
        parts["log_file"], parts["log_function"] = file_vote[file_of], function_vote
        total = (total + m.w_log_file * unit_scale(parts["log_file"], cand)
                 + m.w_log_function * unit_scale(parts["log_function"], cand))
    return total


def issue(m: Blend, graph: CodebaseGraph, query: str, cand: np.ndarray, total: np.ndarray,
          parts: dict) -> np.ndarray:
    """``total / max total + Σ w · (unit(symbol evidence) + unit(file votes)[file])`` over the issue-structure
    signals (``signals_real``: ``w_literal``, ``w_frame``, ``w_dotted``, ``w_error``, ``w_names``,
    ``w_receiver``, ``w_flow``; from the named definitions to their uses, ``usesites``: ``w_users``,
    ``w_error_users``, ``w_callees``, ``w_overriders``; ``w_qualified``: ``Class.member`` names; ``w_tests``:
    the code the tests matching the query exercise; ``w_docs``: the API the best-matching documentation sections
    cite), on the candidates.

    The total is divided by its maximum first so that a weight is a share of the best score (0.25: a quoted
    message lifts its definition by a quarter of the top score); a file's votes lift every definition in it.
    """
    weights = {name: getattr(m, f"w_{name}") for name in ISSUE}
    if not any(weights.values()):
        return total
    top = float(total[cand].max()) if cand.any() else 0.0
    total = np.where(cand, total / top if top > 0 else 0.0, 0.0)
    file_of = file_index(graph).file_of
    base, lifts = total, {}
    neutral = is_neutral(m.issue_fuse, m.lift_cap, m.lift_rank, m.hop_backoff)
    for name, weight in weights.items():
        if not weight:
            continue
        # each scaled by its maximum over every symbol / file; the flow signal follows the recipe's gaps
        found = (flow_scores(graph, query, gap_set(m.flow_gaps)) if name == "flow" else
                 tests_scores(graph, query, m.tests_k) if name == "tests" else
                 docs_scores(graph, query, m.docs_k) if name == "docs" else ISSUE[name](graph, query))
        parts[name] = found.symbol + found.file[file_of]
        # issue_scale "max" (default): each part over its own maximum; others weigh how strong the evidence is
        lift = (evidence_scale(found.symbol, m.issue_scale, m.issue_conf)  # the tests' file votes: a share
                + evidence_scale(found.file, m.issue_scale, m.issue_conf)[file_of] * (
                    m.tests_files if name == "tests" else 1.0))
        lifts[name] = weight * np.where(cand, lift, 0.0)
        if neutral:  # added one by one, as always: the recipes' float sums are unchanged
            total = total + lifts[name]
    # issue_fusion.py: one-hop signals backed off, max instead of sum, the lift clipped to a bound
    return total if neutral else fuse_lifts(lifts, base, cand, m.issue_fuse, m.lift_cap, m.lift_rank, m.hop_backoff)


def infile(m: Blend, graph: CodebaseGraph, query: str, cand: np.ndarray, total: np.ndarray,
           parts: dict) -> np.ndarray:
    """``+ w_local · local(v) + w_file_share · share(f(v))`` (``infile``), both read off the total so far,
    then ``file_decay``: the ``j``-th definition of a file divided by ``1 + file_decay · j`` (``infile.spread``);
    runs only when one of them is set, so a recipe without them is unchanged."""
    if not (m.w_local or m.w_file_share or m.file_decay):
        return total
    extra = np.zeros(len(total))
    if m.w_local:
        parts["local"] = local_scores(graph, query, total, cand, m.local_files, m.k1, m.b, m.local_field)
        extra += m.w_local * parts["local"]
    if m.w_file_share:
        parts["file_share"] = file_share(graph, total, cand)
        extra += m.w_file_share * parts["file_share"]
    total = total + np.where(cand, extra, 0.0)
    return spread(graph, total, cand, m.file_decay) if m.file_decay else total
