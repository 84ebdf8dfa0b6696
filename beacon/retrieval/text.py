"""Lexical features shared by the lexical methods: terms, symbol documents, matrices.

Terms are identifiers split on ``snake_case`` and ``camelCase`` boundaries and
lower-cased (``computeRetryDelay`` -> ``compute``, ``retry``, ``delay``); a
multi-part identifier also contributes itself whole (``compute_retry_delay``),
so exact names match more strongly than their parts. Very common English and
Python words are dropped.

A symbol's document is its path and qualified name plus its *own* lines: the
lines of its span that are not inside a nested definition, without import
statements (an import names code defined elsewhere; counting it would make
every importer look like the definition). A class document holds the class
statement, docstring and attributes; each method has its own. The documents are
never built as strings: ``doc_tokens`` assembles each document's words from the
per-file words computed with each parse (``beacon.graph.words``);
``experiments/benchmarks/term_reference.py`` keeps the string-per-document build
the fast path equals byte for byte.
The document-term matrix is built once per graph and memoised on it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import chain

import numpy as np
import scipy.sparse as sp

from ..graph.codebase import CodebaseGraph
from ..graph.word_terms import _CAMEL, _SPLITS, STOPWORDS, split_identifier  # noqa: F401 (re-exported)
from .doc_tokens import DocWords, doc_words
from .indexes import indexes_for
from .query_weights import NEUTRAL, QueryWeights, weighted_vector

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def terms(text: str) -> list[str]:
    out: list[str] = []
    for word in _IDENT.findall(text):
        out.extend(split_identifier(word))
    return out


def identifiers(text: str) -> set[str]:
    """Raw identifiers and dotted names as written (for verbatim-name matching)."""
    return set(_IDENT.findall(text))


@dataclass
class TermIndex:
    vocab: dict[str, int]
    tf: sp.csr_matrix  # docs x terms, raw counts (float64)
    doc_len: np.ndarray

    def query_vector(self, query: str, weights: QueryWeights = NEUTRAL) -> tuple[np.ndarray, np.ndarray]:
        """Column ids and counts of the query's known terms (weighted counts with non-neutral ``weights``)."""
        if not weights.neutral:
            return weighted_vector(query, weights, self.vocab.get)
        counts: dict[int, int] = {}
        for t in terms(query):
            j = self.vocab.get(t)
            if j is not None:
                counts[j] = counts.get(j, 0) + 1
        cols = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
        vals = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
        order = np.argsort(cols)
        return cols[order], vals[order]


def term_index(graph: CodebaseGraph) -> TermIndex:
    ix = indexes_for(graph)
    if ix.term_index is None:
        ix.term_index = term_index_of(doc_words(graph), len(graph.symbols))
    return ix.term_index


def term_index_of(words: DocWords, n_docs: int) -> TermIndex:
    """The term index of the documents' words (``doc_tokens.doc_words``)."""
    # Every document's words, numbered by first occurrence in document order (``doc_tokens``), and each distinct
    # word's terms, numbered by first occurrence walking the words in that order: the same numbering (first
    # occurrence of each term in document order) as ``terms(doc)`` term by term; the counts are (document x word
    # occurrences) @ (word x term), without a Python step per occurrence.
    if words.terms is not None:  # split with each file's parse
        term_ids, word_ptr = words.terms.ids, words.terms.ptr
        vocab = dict(zip(words.terms.vocab, range(len(words.terms.vocab))))
    else:
        term_ids, word_ptr, vocab = _split_words(words.words)
    n_words = len(word_ptr) - 1
    splits = sp.csr_matrix((np.ones(len(term_ids)), term_ids, word_ptr), shape=(n_words, len(vocab)))
    occurrences = sp.csr_matrix((np.ones(len(words.codes)), words.codes, words.doc_ptr),
                                shape=(n_docs, n_words))
    counts = (occurrences @ splits).tocsr()
    counts.sort_indices()
    # the same constructor call (and so the same dtypes) as a row-by-row build
    tf = sp.csr_matrix(
        (counts.data.astype(np.float64), counts.indices.astype(np.int64), counts.indptr.astype(np.int64)),
        shape=(n_docs, len(vocab)),
    )
    return TermIndex(vocab, tf, np.asarray(tf.sum(axis=1)).ravel())


def _split_words(words: list[bytes]) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Each distinct word split here, its terms numbered when first seen: term ids, each word's offsets in them,
    the vocabulary."""
    # the identifier ``_IDENT`` finds in each run (without its leading digits; all-digit runs find none)
    idents = b" ".join([w.lstrip(b"0123456789") for w in words]).decode("ascii").split(" ") if words else []
    parts = list(map(_SPLITS.get, idents))  # the memo's hits, without a Python call per word
    if None in parts:
        parts = [found if found is not None else split_identifier(w) for found, w in zip(parts, idents)]
    vocab: dict[str, int] = {}  # numbered by first occurrence
    term_ids = np.array([vocab.setdefault(t, len(vocab)) for t in chain.from_iterable(parts)], dtype=np.int64)
    word_ptr = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, parts), dtype=np.int64, count=len(parts)), out=word_ptr[1:])
    return term_ids, word_ptr, vocab
