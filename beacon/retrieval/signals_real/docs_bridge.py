"""The docs bridge: documentation sections that match the issue vote for the API they document.

A prose report says what a user did in the words of the project's documentation ("the teardown
callbacks", "streaming a response body"); the documentation section written in those words cites
the code it documents (``docs_parse``: Sphinx roles, autodoc directives, backquoted names). This
signal ranks the snapshot's documentation sections against the query with BM25, keeps the best
``k``, and lets each cited name vote for the definitions it resolves to: as the ``dotted`` signal
resolves a name (modules, ``__init__`` re-exports, base classes), else under the section's
``currentmodule``, else as ``Class.member`` through the class (``qualified``), else a bare name
borne by at most ``MAX_BARE`` definitions. A section's vote is its BM25 score over the best one's,
shared among the definitions a name names; each distinct name counts once per section.

The documentation is read from the snapshot the graph was built from (``graph.root``); a snapshot
without documentation gives no evidence, a graph whose snapshot is gone is an error (``DocsUnavailable``),
never a silent empty signal. The index (sections, their BM25 matrix, their resolved definitions) is built
once per graph and kept in the graph's memo (``GraphIndexes.docs_bridge``), so a query costs one sparse
product; it is cheap enough not to be saved (flask's docs, 255 sections: 0.03 s; 10,200 sections: 0.6 s,
2 ms a query). ``REF_KINDS`` and ``CITE_IDF`` are measured variants (``docs_bridge_ceiling``'s flags); neither
helped (docs/localization_real.md, "the docs bridge").
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ...graph.codebase import CodebaseGraph
from ..indexes import indexes_for
from ..text import terms
from .docs_parse import Reference, Section, read_sections
from .dotted import member, resolve
from .index import SignalScores, scores
from .names import definitions
from .. import libm

MAX_BARE = 2  # a bare name borne by more definitions than this names nothing
REF_KINDS = frozenset({"role", "directive", "code"})  # how a name must be cited to count
CITE_IDF = False  # weigh a name by log(1 + S / sections citing it) / log(1 + S): hub APIs count less
K1, B = 1.2, 0.75


class DocsUnavailable(RuntimeError):
    """The graph names no snapshot folder to read documentation from."""


@dataclass(frozen=True)
class DocsIndex:
    """Sections x terms BM25 weights, the vocabulary, and per section the definitions it cites (CSR)."""

    weights: sp.csr_matrix  # sections x terms
    vocab: dict[str, int]
    ptr: np.ndarray  # section i cites nodes[ptr[i]:ptr[i+1]] with weights share[...]
    nodes: np.ndarray
    share: np.ndarray
    n_sections: int
    words: list[list[str]]  # each section's terms (title and text), kept for ``doc_expansion``: tokenised once


def resolve_ref(graph: CodebaseGraph, ref: Reference) -> list[int]:
    """The definitions a cited name names (see the module docstring for the order tried)."""
    name = ref.name
    found = resolve(graph, name)
    if not found and ref.module and not name.startswith(ref.module + "."):
        found = resolve(graph, f"{ref.module}.{name}")
    if found:
        return found
    head, *rest = name.split(".")
    if rest:
        classes = [int(n) for n in definitions(graph, head) if graph.symbols[int(n)].kind == "class"]
        return sorted({f for f in (member(graph, c, rest) for c in classes) if f is not None})
    bare = definitions(graph, head)
    return [int(n) for n in bare] if len(bare) <= MAX_BARE else []


def _bm25(docs: list[list[str]]) -> tuple[sp.csr_matrix, dict[str, int]]:
    vocab: dict[str, int] = {}
    rows, cols, vals = [], [], []
    for i, words in enumerate(docs):
        for word, tf in Counter(words).items():
            rows.append(i)
            cols.append(vocab.setdefault(word, len(vocab)))
            vals.append(tf)
    tf = sp.csr_matrix((np.asarray(vals, float), (rows, cols)), shape=(len(docs), len(vocab)))
    df = np.bincount(cols, minlength=len(vocab)) if cols else np.zeros(0)
    idf = libm.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
    lengths = np.asarray([len(d) for d in docs], float)
    norm = K1 * (1 - B + B * lengths / max(lengths.mean() if len(docs) else 1.0, 1e-9))
    coo = tf.tocoo()
    data = idf[coo.col] * coo.data * (K1 + 1) / (coo.data + norm[coo.row])
    return sp.csr_matrix((data, (coo.row, coo.col)), shape=tf.shape), vocab


def build(graph: CodebaseGraph, secs: list[Section]) -> DocsIndex:
    """The index of ``secs`` against ``graph`` (names resolved once per distinct name and context)."""
    words = [terms(f"{s.title}\n{s.text}") for s in secs]
    weights, vocab = _bm25(words)
    memo: dict[tuple[str, str], list[int]] = {}
    cited = [list(dict.fromkeys(Reference(r.name, r.module, "") for r in s.refs if r.kind in REF_KINDS))
             for s in secs]
    for refs in cited:
        for ref in refs:
            if (ref.name, ref.module) not in memo:
                memo[(ref.name, ref.module)] = resolve_ref(graph, ref)
    df = Counter(n for refs in cited for n in {x for ref in refs for x in memo[(ref.name, ref.module)]})
    norm = math.log1p(len(secs)) if secs else 1.0
    ptr, nodes, share = [0], [], []
    for refs in cited:
        for ref in refs:
            found = memo[(ref.name, ref.module)]
            nodes += found
            share += [(math.log1p(len(secs) / df[n]) / norm if CITE_IDF else 1.0) / len(found) for n in found]
        ptr.append(len(nodes))
    return DocsIndex(weights, vocab, np.asarray(ptr, np.int64), np.asarray(nodes, np.int64),
                     np.asarray(share, float), len(secs), words)


def docs_index(graph: CodebaseGraph) -> DocsIndex:
    """The graph's docs index, built on first use from the snapshot at ``graph.root``."""
    ix = indexes_for(graph)
    if ix.docs_bridge is None:
        if not graph.root or not Path(graph.root).is_dir():
            raise DocsUnavailable(f"the docs bridge (w_docs) reads the graph's snapshot, and its root "
                                  f"{graph.root!r} is not a folder: build the graph from a snapshot that exists")
        ix.docs_bridge = build(graph, read_sections(graph.root))
    return ix.docs_bridge


def section_scores(index: DocsIndex, query: str) -> np.ndarray:
    """BM25 of each section against the query (each distinct query term once)."""
    cols = sorted({index.vocab[t] for t in terms(query) if t in index.vocab})
    if not cols or not index.n_sections:
        return np.zeros(index.n_sections)
    return np.asarray(index.weights[:, cols].sum(axis=1)).ravel()


def top_sections(index: DocsIndex, query: str, k: int) -> list[tuple[int, float]]:
    """The ``k`` best sections with a positive score that cite something, best first (ties by order)."""
    score = section_scores(index, query)
    cites = np.diff(index.ptr) > 0
    order = np.lexsort((np.arange(len(score)), -score))
    return [(int(i), float(score[i])) for i in order if score[i] > 0 and cites[i]][:k]


def docs_symbol(graph: CodebaseGraph, query: str, k: int = 3) -> np.ndarray:
    """Per definition: the votes of the ``k`` best sections (each scaled by its score over the best's)."""
    index = docs_index(graph)
    symbol = np.zeros(len(graph.symbols))
    best = top_sections(index, query, k)
    for i, s in best:
        lo, hi = index.ptr[i], index.ptr[i + 1]
        np.add.at(symbol, index.nodes[lo:hi], index.share[lo:hi] * s / best[0][1])
    return symbol


def docs_scores(graph: CodebaseGraph, query: str, k: int = 3) -> SignalScores:
    return scores(graph, docs_symbol(graph, query, k))
