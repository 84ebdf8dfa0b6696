"""``GraphIndexes``: every per-graph retrieval index, as named, typed members; ``indexes_for(graph)``.

Methods on one graph share these: a sweep over methods and budgets builds
each index once per graph. A member is None (or absent from its keyed
family) until the module named for it builds it on first use: the term index
in ``text``, BM25 weights in ``lexical``/``filelevel``/``stemmed``, masks in
``masks``, the file index in ``file_index``, walks in ``transition`` and
``diffusion``, and so on, each through its own accessor (``term_index(graph)``,
``packable(graph)``, …); no module builds or reads another's member
directly. Arrays are numpy/scipy members so that the object can later be
saved beside the graph and memory-mapped.

The object lives in the graph's own memo under one key (``INDEXES_KEY``), so
``graph.cache.clear()`` (the benchmarks' "cold start") drops every index at
once. It holds indexes only: repository history is an explicit input
(``beacon.repo.history.RepoInputs``), never an index.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:  # the types only: this module imports no other retrieval module
    from ..graph.codebase import CodebaseGraph
    from .diffusion import Diffusion
    from .file_index import FileIndex
    from .mentions import Mentions, PathWords
    from .text import TermIndex
    from .transition import EdgeWeights, Transition

INDEXES_KEY = "retrieval_indexes"


@dataclass(eq=False)
class GraphIndexes:
    """The retrieval indexes of one graph (see the module docstring for who builds each member)."""

    # text / lexical
    term_index: TermIndex | None = None  # symbol documents x terms
    bm25_symbol: dict[tuple[float, float], sp.csc_matrix] = field(default_factory=dict)  # (k1, b)
    # file level
    file_index: FileIndex | None = None
    file_tf: sp.csr_matrix | None = None  # files x terms
    bm25_file: dict[tuple[float, float], sp.csc_matrix] = field(default_factory=dict)  # (k1, b)
    # stemmed fields
    stem_map: tuple[dict[str, int], sp.csr_matrix] | None = None  # (stem vocabulary, terms -> stems)
    stem_fields: dict[str, sp.csr_matrix] = field(default_factory=dict)  # field -> docs x stems counts
    bm25_stemmed: dict[tuple[str, float, float], sp.csc_matrix] = field(default_factory=dict)  # (field, k1, b)
    # masks (per symbol unless named per file)
    test_mask: np.ndarray | None = None
    test_files: np.ndarray | None = None  # per file
    vendored: np.ndarray | None = None
    peripheral: np.ndarray | None = None
    packable: np.ndarray | None = None
    # document expansion and PRF
    prf_file_idf: np.ndarray | None = None
    context_bm25: dict[float, sp.csc_matrix] = field(default_factory=dict)  # ctx_weight
    file_name_bm25: sp.csc_matrix | None = None
    # graph structure
    call_neighbors: sp.csr_matrix | None = None
    bca_closure: sp.csr_matrix | None = None
    transitions: dict[EdgeWeights, Transition] = field(default_factory=dict)
    walk_adjacency: dict[EdgeWeights, sp.csr_matrix] = field(default_factory=dict)
    global_ranks: dict[tuple, Diffusion] = field(default_factory=dict)  # (weights, beta, tol, max_iter)
    path_name_nodes: dict[tuple[str, str], list[int]] | None = None  # (path, name) -> non-module nodes
    path_words: PathWords | None = None  # loose path words of every file (``mentions.loose_path_matches``)
    # vectors
    hashed_vectors: np.ndarray | None = None
    # every symbol's id (object array), for turning a ranking into ids at once (``base.ranking_ids``)
    symbol_ids: np.ndarray | None = None
    # token counts of breadcrumb chunks (text the graph holds anyway)
    chunk_tokens: dict[str, int] = field(default_factory=dict)
    # the last query's result only: a sweep asks several methods the same query in a row
    last_mentions: tuple[str, Mentions] | None = None
    last_repomap: tuple[tuple, Any] | None = None


def indexes_for(graph: CodebaseGraph) -> GraphIndexes:
    """The graph's ``GraphIndexes`` (created empty on first use)."""
    found = graph.cache.get(INDEXES_KEY)
    if found is None:
        found = graph.cache[INDEXES_KEY] = GraphIndexes()
    return found
