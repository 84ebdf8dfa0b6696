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
statement, docstring and attributes; each method has its own.
The document-term matrix is built once per graph and memoised on it.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import scipy.sparse as sp

from ..graph.codebase import CodebaseGraph
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


@lru_cache(maxsize=1 << 18)
def split_identifier(word: str) -> tuple[str, ...]:
    parts = [p.lower() for chunk in word.split("_") for p in _CAMEL.findall(chunk)]
    parts = [p for p in parts if len(p) > 1 and not p.isdigit() and p not in STOPWORDS]
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


_IMPORT_LINE = re.compile(r"\s*(?:from\s+[\w.]+\s+)?import\s")


def _without_imports(lines: list[str]) -> str:
    kept: list[str] = []
    in_import = False
    for line in lines:
        if in_import:  # inside a parenthesised multi-line import
            in_import = ")" not in line
            continue
        if "import" in line and _IMPORT_LINE.match(line):  # the substring test skips most lines cheaply
            in_import = "(" in line and ")" not in line
            continue
        kept.append(line)
    return "".join(kept)


def own_documents(graph: CodebaseGraph) -> list[str]:
    """Per symbol: path + qualname + its own lines (not those of nested definitions)."""
    docs = [""] * len(graph.symbols)
    by_path: dict[str, list[int]] = {}
    for i, s in enumerate(graph.symbols):
        by_path.setdefault(s.path, []).append(i)
    for path, nodes in by_path.items():
        lines = graph.file_lines(path)
        owner = np.full(len(lines), -1, dtype=np.int64)
        for i in nodes:  # definitions come in pre-order: children overwrite parents
            s = graph.symbols[i]
            owner[s.start_line - 1:s.end_line] = i
        for i in nodes:
            s = graph.symbols[i]
            own = np.flatnonzero(owner[s.start_line - 1:s.end_line] == i) + s.start_line - 1
            body = _without_imports([lines[j] for j in own])
            docs[i] = f"{s.path.replace('/', ' ').replace('.py', '')} {s.qualname.replace('.', ' ')}\n{body}"
    return docs


def term_index(graph: CodebaseGraph) -> TermIndex:
    ix = indexes_for(graph)
    if ix.term_index is not None:
        return ix.term_index
    vocab: dict[str, int] = {}
    # Each distinct identifier is split once per graph, its terms numbered when it is first seen: the
    # same numbering (first occurrence of each term in document order) and counts as ``terms(doc)``
    # term by term, without a Python step per occurrence.
    word_ids: dict[str, tuple[int, ...]] = {}
    indptr = [0]
    indices: list[int] = []
    data: list[float] = []
    for doc in own_documents(graph):
        counts: dict[int, int] = {}
        for word, n in Counter(_IDENT.findall(doc)).items():  # distinct words in first-occurrence order
            ids = word_ids.get(word)
            if ids is None:
                ids = word_ids[word] = tuple(vocab.setdefault(t, len(vocab)) for t in split_identifier(word))
            for j in ids:
                counts[j] = counts.get(j, 0) + n
        for j in sorted(counts):
            indices.append(j)
            data.append(counts[j])
        indptr.append(len(indices))
    tf = sp.csr_matrix(
        (np.asarray(data, dtype=np.float64), np.asarray(indices, dtype=np.int64), np.asarray(indptr, dtype=np.int64)),
        shape=(len(graph.symbols), len(vocab)),
    )
    found = TermIndex(vocab, tf, np.asarray(tf.sum(axis=1)).ravel())
    ix.term_index = found
    return found
