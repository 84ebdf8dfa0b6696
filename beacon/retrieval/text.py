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
from .doc_tokens import DocWords, doc_words
from .indexes import indexes_for

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have he her his
    how i if in into is it its me my no not of on or our she so such than that the their them
    then there these they this those to too us was we were what when where which while who why
    will with would you your self cls def return none true false pass elif else import class
    lambda yield raise try except finally assert del global nonlocal async await args kwargs""".split()
)


_SPLITS: dict[str, tuple[str, ...]] = {}  # split_identifier's memo: a dict (a miss costs far less than in an LRU)
_SPLITS_MAX = 1 << 18  # cleared when full, so a long sweep over many graphs stays bounded


def split_identifier(word: str) -> tuple[str, ...]:
    found = _SPLITS.get(word)
    if found is None:
        if len(_SPLITS) >= _SPLITS_MAX:
            _SPLITS.clear()
        found = _SPLITS[word] = _split(word)
    return found


def _split(word: str) -> tuple[str, ...]:
    if word.isalpha() and word.isascii() and word.islower():  # one lower-case part: itself, unless too short or common
        return (word,) if len(word) > 1 and word not in STOPWORDS else ()
    if word.isascii() and word.islower() and word.replace("_", "").isalpha():
        # lower-case letters and underscores only (most identifiers): each chunk is one part, no regex needed
        parts = [p for p in word.split("_") if len(p) > 1 and p not in STOPWORDS]
    else:  # the camel-case parts of each ``_`` chunk (the expression matches no space, so one search finds them)
        parts = _CAMEL.findall(word.replace("_", " "))
        parts = [p for p in map(str.lower, parts) if len(p) > 1 and not p.isdigit() and p not in STOPWORDS]
    whole = word.strip("_").lower()
    if len(parts) > 1 and whole not in STOPWORDS:
        parts.append(whole)
    return tuple(parts)


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

    def query_vector(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """Column ids and counts of the query's known terms."""
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
    # Every document's words, numbered by first occurrence in document order (``doc_tokens``); each distinct
    # word is split once, its terms numbered when it is first seen. Walking the distinct words in that order
    # gives the same numbering (first occurrence of each term in document order) as ``terms(doc)`` term by
    # term; the counts are (document x word occurrences) @ (word x term), without a Python step per occurrence.
    # the identifier ``_IDENT`` finds in each run (without its leading digits; all-digit runs find none)
    idents = b" ".join([w.lstrip(b"0123456789") for w in words.words]).decode("ascii").split(" ") if words.words else []
    parts = list(map(_SPLITS.get, idents))  # the memo's hits, without a Python call per word
    if None in parts:
        parts = [found if found is not None else split_identifier(w) for found, w in zip(parts, idents)]
    vocab: dict[str, int] = {}  # numbered by first occurrence
    term_ids = np.array([vocab.setdefault(t, len(vocab)) for t in chain.from_iterable(parts)], dtype=np.int64)
    word_ptr = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, parts), dtype=np.int64, count=len(parts)), out=word_ptr[1:])
    n_words = len(words.words)
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
