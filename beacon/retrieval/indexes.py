"""``GraphIndexes``: every per-graph retrieval index, as named, typed members; ``indexes_for(graph)``.

Methods on one graph share these: a sweep over methods and budgets builds
each index once per graph. A member is None (or absent from its keyed
family) until the module named for it builds it on first use: the term index
in ``text``, BM25 weights in ``lexical``/``filelevel``/``stemmed``, masks in
``masks``, the file index in ``file_index``, walks in ``transition`` and
``diffusion``, the issue-structure indexes in ``signals_real.index`` and
``signals_real.literals`` (and ``signals_real.tests_bridge``), the shared name codes in ``term_rows``, and so on, each through its own accessor (``term_index(graph)``,
``packable(graph)``, …); no module builds or reads another's member
directly. Arrays are numpy/scipy members so that the object can later be
saved beside the graph and memory-mapped.

The object lives in the graph's own memo under one key (``INDEXES_KEY``), so
``graph.cache.clear()`` (the benchmarks' "cold start") drops every index at
once, and the graph's link to its index store with it. A graph with a store
(``attach_store``, done by the snapshot cache) reads each member saved there
(memory-mapped) on its first use, and each member named in ``STORED`` or
``STORED_FAMILIES`` is written through to the store when its accessor builds it. It holds indexes only: repository history is an explicit input
(``beacon.repo.history.RepoInputs``), never an index.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from .index_store import IndexStore, graph_digest

if TYPE_CHECKING:  # the types only: this module imports no other retrieval module
    from ..graph.codebase import CodebaseGraph
    from .diffusion import Diffusion
    from .file_index import FileIndex
    from .mentions import Mentions, PathWords
    from .signals_real.docs_bridge import DocsIndex
    from .signals_real.index import GraphIndex
    from .signals_real.literals import LiteralIndex
    from .signals_real.tests_bridge import TestBridge
    from .term_rows import SymbolNames
    from .text import TermIndex
    from .transition import EdgeWeights, Transition

INDEXES_KEY = "retrieval_indexes"
STORE_KEY = "index_store_root"  # the folder of the graph's index store (see ``attach_store``)
# Members saved with the graph (arrays, sparse matrices, and the two vocabularies with their matrices).
# The rest are cheap to build, keyed by objects that are not literals, or per-query memos.
STORED = frozenset({"term_index", "file_tf", "stem_map", "test_mask", "test_files", "vendored", "peripheral",
                    "packable", "prf_file_idf", "file_name_bm25", "call_neighbors", "bca_closure", "hashed_vectors",
                    "issue_literals"})
STORED_FAMILIES = frozenset({"bm25_symbol", "bm25_file", "stem_fields", "bm25_stemmed", "context_bm25"})


class StoredFamily(dict):
    """A keyed family of one member: entries saved in the graph's store are read on first ``get``
    (``pending``: key -> member folder), and each new entry is written through to the store."""

    def __init__(self, store: IndexStore, name: str, pending: dict[Any, Path] | None = None):
        super().__init__()
        self.store, self.name, self.pending = store, name, dict(pending or {})

    def _read(self, key) -> None:
        if key in self.pending:
            value = self.store.load_entry(self.pending.pop(key))
            if value is not None:
                dict.__setitem__(self, key, value)

    def get(self, key, default=None):
        self._read(key)
        return super().get(key, default)

    def __missing__(self, key):  # ``family[key]`` of an entry not read yet
        self._read(key)
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        raise KeyError(key)

    def __contains__(self, key) -> bool:
        self._read(key)
        return dict.__contains__(self, key)

    def loaded(self) -> StoredFamily:
        """Every pending entry read (for code that looks at the whole family rather than one key)."""
        for key in list(self.pending):
            self._read(key)
        return self

    def __setitem__(self, key, value) -> None:
        self.pending.pop(key, None)
        super().__setitem__(key, value)
        self.store.save(self.name, key, value)


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
    docctx_vocab: tuple | None = None  # the docs' words the code lacks, sections x terms (doc_expansion)
    docctx_bm25: dict[tuple, sp.csc_matrix] = field(default_factory=dict)  # (source, docctx_weight, k1, b)
    file_name_bm25: sp.csc_matrix | None = None
    # graph structure
    call_neighbors: sp.csr_matrix | None = None
    bca_closure: sp.csr_matrix | None = None
    transitions: dict[EdgeWeights, Transition] = field(default_factory=dict)
    walk_adjacency: dict[EdgeWeights, sp.csr_matrix] = field(default_factory=dict)
    global_ranks: dict[tuple, Diffusion] = field(default_factory=dict)  # (weights, beta, tol, max_iter)
    # (π_global + ε)^γ per (weights, beta, gamma, eps): Perron's specificity denominator (``libm.power`` per node)
    specificity: dict[tuple, np.ndarray] = field(default_factory=dict)
    path_words: PathWords | None = None  # loose path words of every file (``mentions.loose_path_matches``)
    # issue-structure signals (signals_real): module table and spans, the code's string-literal fragments
    issue_graph: GraphIndex | None = None
    issue_literals: LiteralIndex | None = None
    test_bridge: TestBridge | None = None  # each test definition's reach (signals_real.tests_bridge)
    docs_bridge: DocsIndex | None = None  # the snapshot's documentation sections (``signals_real.docs_bridge``)
    # vectors
    hashed_vectors: np.ndarray | None = None
    # every symbol's qualname parts and name as codes into distinct strings, shared by the name builders
    symbol_names: SymbolNames | None = None
    # every symbol's id (object array), for turning a ranking into ids at once (``base.ranking_ids``)
    symbol_ids: np.ndarray | None = None
    # token counts of breadcrumb chunks (text the graph holds anyway)
    chunk_tokens: dict[str, int] = field(default_factory=dict)
    # the last query's result only: a sweep asks several methods the same query in a row
    last_mentions: tuple[tuple[str, float], Mentions] | None = None
    last_repomap: tuple[tuple, Any] | None = None
    # where built members are saved (None: in memory only)
    store: IndexStore | None = field(default=None, repr=False)
    # stored members not read yet: name -> member folder (read on first attribute access, see _Pending)
    pending: dict[str, Path] = field(default_factory=dict, repr=False)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        store = self.__dict__.get("store")
        if store is not None and value is not None and name in STORED:
            store.save(name, None, value)


class _Pending(GraphIndexes):
    """A ``GraphIndexes`` with stored members not read yet: the first access to one reads it from the store.

    The instance's class is switched to this one while members are pending and back to ``GraphIndexes``
    once none is, so attribute access costs nothing extra on a graph whose members are all in memory.
    """

    def __getattribute__(self, name: str) -> Any:
        pending = object.__getattribute__(self, "pending")
        if name in pending:
            store = object.__getattribute__(self, "store")
            value = store.load_entry(pending.pop(name))
            if value is not None:
                object.__setattr__(self, name, value)
            if not pending:
                object.__setattr__(self, "__class__", GraphIndexes)
        return object.__getattribute__(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__["pending"].pop(name, None)  # built before it was read: the built value wins
        super().__setattr__(name, value)


def indexes_for(graph: CodebaseGraph) -> GraphIndexes:
    """The graph's ``GraphIndexes`` (created empty on first use)."""
    found = graph.cache.get(INDEXES_KEY)
    if found is None:
        found = graph.cache[INDEXES_KEY] = GraphIndexes()
        root = graph.cache.get(STORE_KEY)
        if root is not None:
            _open_store(found, IndexStore(root, graph_digest(graph)))
    return found


def attach_store(graph: CodebaseGraph, root: Path | str) -> None:
    """Let ``indexes_for(graph)`` load from and save to the index store under ``root`` (before its first use)."""
    graph.cache[STORE_KEY] = Path(root)


def _open_store(ix: GraphIndexes, store: IndexStore) -> None:
    """Point ``ix`` at the members saved in ``store`` (read on first use) and write later ones through to it."""
    entries = store.entries()
    for name in STORED_FAMILIES:
        pending = {key: entry for (member, key), entry in entries.items() if member == name and key is not None}
        object.__setattr__(ix, name, StoredFamily(store, name, pending))
    pending = {name: entry for (name, key), entry in entries.items() if key is None and name in STORED}
    object.__setattr__(ix, "pending", pending)
    ix.store = store
    if pending:
        object.__setattr__(ix, "__class__", _Pending)
