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
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
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
    if word.isascii() and word.islower() and word.replace("_", "").isalpha():
        # lower-case letters and underscores only (most identifiers): each chunk is one part, no regex needed
        parts = [p for p in word.split("_") if len(p) > 1 and p not in STOPWORDS]
    else:
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


# Bytes that can be part of an identifier keep their value, every other byte becomes a space: the
# identifiers ``_IDENT`` finds in a text are its runs of these bytes (UTF-8, so no non-ASCII character
# joins a run) with leading digits removed, and a translate and a split find the runs several times
# faster than the regular expression.
_WORD_BYTES = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == ord("_")) else ord(" ") for c in range(256))


def _word_runs(docs: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Every document's runs of identifier characters, as UTF-8 bytes in one flat object array (``_IDENT``'s
    matches, with any leading digits), and where each document's runs start in it (``len(docs) + 1`` offsets).

    The documents are joined with a space (no run crosses a boundary) and split once; a run starts wherever
    an identifier byte follows a space, which places the boundaries without a split per document.
    """
    encoded = [doc.encode("utf-8", "surrogatepass") for doc in docs]
    text = b" ".join(encoded).translate(_WORD_BYTES)
    runs = text.split()
    flat = np.empty(len(runs), dtype=object)
    flat[:] = runs
    word = np.frombuffer(text, dtype=np.uint8) != ord(" ")
    starts = np.flatnonzero(word[1:] & ~word[:-1]) + 1
    if len(word) and word[0]:
        starts = np.concatenate([[0], starts])
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)  # where each document starts in ``text``
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)) + 1, out=offsets[1:])
    return flat, np.searchsorted(starts, offsets).astype(np.int64)


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
        # A symbol's own lines are the runs of lines it owns, in file order: one slice per run,
        # not a numpy search per symbol.
        cuts = (np.flatnonzero(owner[1:] != owner[:-1]) + 1).tolist()
        runs: dict[int, list[tuple[int, int]]] = {}
        for a, b in zip([0, *cuts], [*cuts, len(lines)]) if lines else ():
            runs.setdefault(int(owner[a]), []).append((a, b))
        where = f"{path.replace('/', ' ').replace('.py', '')} "
        for i in nodes:
            spans = runs.get(i, ())
            body = "".join(["".join(lines[a:b]) for a, b in spans])
            if "import" in body:  # no line without the word is an import: most documents skip the line scan
                body = _without_imports([line for a, b in spans for line in lines[a:b]])
            docs[i] = f"{where}{graph.symbols[i].qualname.replace('.', ' ')}\n{body}"
    return docs


def term_index(graph: CodebaseGraph) -> TermIndex:
    ix = indexes_for(graph)
    if ix.term_index is not None:
        return ix.term_index
    # Every document's words in one flat list, found by C string operations (``_word_runs``); each distinct
    # word is numbered by its first occurrence and split once, its terms numbered when it is first seen.
    # Walking the distinct words in that order gives the same numbering (first occurrence of each term in
    # document order) as ``terms(doc)`` term by term; the counts are (document x word occurrences) @
    # (word x term), without a Python step per occurrence.
    flat, doc_ptr = _word_runs(own_documents(graph))
    word_ids, words = pd.factorize(flat)  # hashed in C; ids by first occurrence (``sort=False``)
    vocab: dict[str, int] = {}
    word_terms: list[int] = []
    word_ptr = [0]
    for word in words:
        word = word.lstrip(b"0123456789").decode("ascii")  # the identifier ``_IDENT`` finds in this run
        word_terms.extend(vocab.setdefault(t, len(vocab)) for t in split_identifier(word) if word)
        word_ptr.append(len(word_terms))
    splits = sp.csr_matrix((np.ones(len(word_terms)), np.asarray(word_terms, dtype=np.int64),
                            np.asarray(word_ptr, dtype=np.int64)), shape=(len(words), len(vocab)))
    occurrences = sp.csr_matrix((np.ones(len(flat)), word_ids, doc_ptr), shape=(len(doc_ptr) - 1, len(words)))
    counts = (occurrences @ splits).tocsr()
    counts.sort_indices()
    # the same constructor call (and so the same dtypes) as a row-by-row build
    tf = sp.csr_matrix(
        (counts.data.astype(np.float64), counts.indices.astype(np.int64), counts.indptr.astype(np.int64)),
        shape=(len(graph.symbols), len(vocab)),
    )
    index = TermIndex(vocab, tf, np.asarray(tf.sum(axis=1)).ravel())
    ix.term_index = index
    return index
