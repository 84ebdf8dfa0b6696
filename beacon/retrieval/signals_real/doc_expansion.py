"""The symbol BM25 over documents expanded with the project's docs and tests (``sym_expand``, ``docctx_weight``).

The docs bridge and the test bridge (``docs_bridge``, ``tests_bridge``) reach the gold file often but, as votes
added in the issue stage, lift the public entry points the sections and tests talk about. Here the same
structures are read as *document expansion* (as ``w_ctx`` expands with callers, ``expansion.context_matrix``):
each definition's BM25 document gets the words of

* ``docs``: the documentation sections that cite it (``docs_parse`` sections, their names resolved by
  ``docs_bridge.resolve_ref``), and/or
* ``tests``: the test definitions that reach it (``tests_bridge``: the non-test definitions a test calls or
  assigns, directly or through one test helper; a test's words: its own document, split name and body terms),

so a prose report written in the docs' or the tests' vocabulary matches the code it is about inside the lexical
evidence (the lexical stage's ``S``), not as votes on top of it. Each source text (a section or a test) is
normalised to the length of an average symbol document and shared ``1/n`` among the ``n`` definitions it cites
or reaches (text shared by many definitions says little about each); the sum times ``docctx_weight`` is added to
the definition's own counts, and BM25 (the recipe's ``k1``, ``b``) is computed over the expanded documents, so
the IDF is theirs (a word the expansion spreads to many definitions counts less). The docs' words the code never
uses join the vocabulary (``EXTEND_VOCAB``; the query is read through both). Built once per graph and
configuration, kept in ``GraphIndexes.docctx_vocab`` / ``docctx_bm25``; a query costs one sparse product, as ``S``.
``docctx_weight`` 0 gives exactly the plain ``S``; ``sym_expand`` "" (default) computes nothing.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ...graph.codebase import CodebaseGraph
from ..indexes import indexes_for
from ..stemmed import bm25_weights
from ..term_rows import Table, count_rows
from ..query_weights import NEUTRAL, QueryWeights, weighted_vector
from ..text import term_index
from .docs_bridge import docs_index
from .tests_bridge import bridge_of

K1, B = 1.2, 0.4  # as ``expansion.context_matrix``
SOURCES = ("docs", "tests")
EXTEND_VOCAB = True  # the docs' own words join the vocabulary (False: only words the code has; docs/localization_real.md)


def _spread(cites: sp.csr_matrix, text: sp.csr_matrix, mass: float) -> sp.csr_matrix:
    """Symbols x terms: ``cites`` (sources x symbols, 0/1) shares each source's ``text`` row (sources x terms),
    normalised to ``mass``, ``1/n`` among its ``n`` definitions."""
    cites = sp.csr_matrix(cites, dtype=np.float64, copy=True)  # a copy: ``cites`` may be the test bridge's own
    cites.sum_duplicates()
    cites.data[:] = 1.0
    n_def = np.asarray(cites.sum(axis=1)).ravel()
    length = np.asarray(text.sum(axis=1)).ravel()
    scale = np.where((n_def > 0) & (length > 0), mass / np.maximum(length, 1e-12) / np.maximum(n_def, 1), 0.0)
    return sp.csr_matrix(cites.T @ sp.diags(scale) @ text)


def docs_vocab(graph: CodebaseGraph) -> tuple[dict[str, int], sp.csr_matrix]:
    """The documentation's words the code's term index lacks (numbered after it, ``EXTEND_VOCAB``) and the
    sections x terms counts over both (cached in ``GraphIndexes.docctx_vocab``)."""
    ix = indexes_for(graph)
    if ix.docctx_vocab is None:
        words = docs_index(graph).words  # the sections' terms, in order (raises DocsUnavailable without a snapshot)
        vocab = term_index(graph).vocab
        extra: dict[str, int] = {}
        if EXTEND_VOCAB:
            for section in words:
                for t in section:
                    if t not in vocab and t not in extra:
                        extra[t] = len(vocab) + len(extra)
        lookup = {**vocab, **extra}
        ids = [[j for j in map(lookup.get, section) if j is not None] for section in words]
        rows = np.arange(len(words), dtype=np.int64)
        ix.docctx_vocab = extra, count_rows(rows, rows, Table(ids), (len(words), len(lookup)))
    return ix.docctx_vocab


def docs_rows(graph: CodebaseGraph, mass: float) -> sp.csr_matrix:
    """Symbols x terms expansion counts from the documentation sections that cite each definition."""
    n = len(graph.symbols)
    dix = docs_index(graph)  # raises DocsUnavailable when the snapshot is gone
    extra, text = docs_vocab(graph)
    if not dix.n_sections:
        return sp.csr_matrix((n, text.shape[1]))
    rows = np.arange(dix.n_sections, dtype=np.int64)
    counts = np.diff(dix.ptr)
    cites = sp.csr_matrix((np.ones(len(dix.nodes)), (np.repeat(rows, counts), dix.nodes)), shape=(dix.n_sections, n))
    return _spread(cites, text, mass)


def tests_rows(graph: CodebaseGraph, mass: float) -> sp.csr_matrix:
    """Symbols x terms expansion counts from the tests that reach each definition (their own documents)."""
    index = term_index(graph)
    bridge = bridge_of(graph)
    if not len(bridge.tests):
        return sp.csr_matrix((len(graph.symbols), len(index.vocab)))
    return _spread(bridge.targets, sp.csr_matrix(index.tf)[bridge.tests], mass)


def check_sources(source: str, stemmed: bool = False) -> tuple[str, ...]:
    """The sources named by ``source`` (``docs``, ``tests`` or ``docs+tests``); "" names none. The expansion
    is of the term index's documents, so a stemmed ``S`` cannot have it."""
    names = tuple(s for s in source.split("+") if s) if source else ()
    if any(s not in SOURCES for s in names) or len(set(names)) != len(names) or not all(names):
        raise ValueError(f"sym_expand must be '+'-joined names from {SOURCES}, got {source!r}")
    if names and stemmed:
        raise ValueError("sym_expand expands the unstemmed symbol documents; it needs stemmed: false")
    return names


def expanded_matrix(graph: CodebaseGraph, source: str, weight: float, k1: float = K1, b: float = B
                    ) -> sp.csc_matrix:
    """BM25 weights of every symbol's document plus ``weight`` times its ``source`` expansion (cached)."""
    names = check_sources(source)
    ix = indexes_for(graph)
    key = (source, weight, k1, b)
    found = ix.docctx_bm25.get(key)
    if found is not None:
        return found
    tf = sp.csr_matrix(term_index(graph).tf, dtype=np.float64, copy=True)  # resized below: never the index's own
    mass = float(tf.sum()) / max(tf.shape[0], 1)  # an average symbol document's length
    width = tf.shape[1] + (len(docs_vocab(graph)[0]) if "docs" in names else 0)
    tf.resize((tf.shape[0], width))
    for name in names if weight else ():
        rows = docs_rows(graph, mass) if name == "docs" else tests_rows(graph, mass)
        rows.resize((tf.shape[0], width))
        tf = tf + weight * rows
    found = ix.docctx_bm25[key] = bm25_weights(sp.csr_matrix(tf), k1, b)
    return found


def expanded_scores(graph: CodebaseGraph, query: str, source: str, weight: float, k1: float, b: float,
                    weights: QueryWeights = NEUTRAL) -> np.ndarray:
    """The symbol BM25 (``lexical.bm25_scores``) over the documents expanded with ``source`` (``sym_expand``)."""
    vocab = term_index(graph).vocab
    extra = docs_vocab(graph)[0] if "docs" in check_sources(source) else {}
    cols, vals = weighted_vector(query, weights, lambda t: vocab.get(t, extra.get(t)))
    if len(cols) == 0:
        return np.zeros(len(graph.symbols))
    return np.asarray(expanded_matrix(graph, source, weight, k1, b)[:, cols] @ vals).ravel()
