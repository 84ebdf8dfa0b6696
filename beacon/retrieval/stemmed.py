"""Stemmed lexical fields for natural-language queries: symbol, file and name documents.

Issue texts and commit messages are prose ("deprecate charset", "encoding of
filenames") while code says ``deprecated``, ``encode``, ``filename``. A light,
iterative suffix stripper (``stem``) conflates such forms; it runs on the
terms of ``text.term_index`` (the same documents), so a stemmed matrix is the
unstemmed one times a sparse terms -> stems map. Whole multi-part identifiers
(``compute_retry_delay``) are kept as they are.

Fields, each a docs x stems count matrix memoised on the graph:

* ``symbol``: a symbol's own document (as ``bm25``);
* ``file``: the sum of a file's symbol documents (the whole file);
* ``name``: a symbol's path and qualified name only (what it *is* called).

``bm25_field`` scores any of them with Okapi BM25 (k1 = 1.2, b = 0.75).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import scipy.sparse as sp

from ..graph.codebase import CodebaseGraph
from .indexes import indexes_for
from .file_index import file_index
from .query_weights import NEUTRAL, QueryWeights, weighted_vector
from .term_rows import Table, count_rows, keys_after, known, lookup_array, symbol_names
from .text import term_index, terms
from . import libm

# Longest first; a suffix is stripped only if at least MIN_STEM characters remain.
_SUFFIXES = ("ational", "ations", "ation", "ments", "ment", "ings", "ing", "ions", "ion", "ers", "er",
             "ies", "es", "ed", "ly", "at", "s", "e")
MIN_STEM = 4
FIELDS = ("symbol", "file", "name")


# The suffixes by last character, in ``_SUFFIXES`` order: the first one that applies is the first of its
# character's list that does (a suffix ending in another character cannot match), found without testing all.
_BY_LAST = {c: tuple(x for x in _SUFFIXES if x[-1] == c) for c in {x[-1] for x in _SUFFIXES}}


@lru_cache(maxsize=1 << 18)
def stem(term: str) -> str:
    """Strip suffixes repeatedly: deprecation/deprecated/deprecate -> ``deprec``; handler(s) -> ``handl``;
    cookie(s) -> ``cooki``."""
    if len(term) <= MIN_STEM or "_" in term or not term.isalpha():  # nothing to strip, no ``y`` to turn
        return term
    word = term
    changed = True
    while changed:
        changed = False
        for suffix in _BY_LAST.get(word[-1], ()):
            if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM:
                if suffix == "s" and word.endswith(("ss", "us", "is")):
                    continue
                word = word[: -len(suffix)] + ("i" if suffix == "ies" else "")
                changed = True
                break
    if word.endswith("y") and len(word) > MIN_STEM:  # property/properties -> properti
        word = word[:-1] + "i"
    return word


def _stem_map(graph: CodebaseGraph) -> tuple[dict[str, int], sp.csr_matrix]:
    ix = indexes_for(graph)
    if ix.stem_map is None:
        vocab = term_index(graph).vocab
        stems: dict[str, int] = {}
        cols = np.fromiter((stems.setdefault(stem(t), len(stems)) for t in vocab), dtype=np.int64, count=len(vocab))
        rows = np.fromiter(vocab.values(), dtype=np.int64, count=len(vocab))
        mapping = sp.csr_matrix((np.ones(len(vocab)), (rows, cols)), shape=(len(vocab), len(stems)))
        ix.stem_map = (stems, mapping)
    return ix.stem_map


def field_matrix(graph: CodebaseGraph, field: str) -> sp.csr_matrix:
    """Docs x stems raw counts of ``field`` (rows: symbols, or files in ``FileIndex`` order)."""
    if field not in FIELDS:
        raise ValueError(f"unknown field {field!r}; expected one of {FIELDS}")
    ix = indexes_for(graph)
    found = ix.stem_fields.get(field)
    if found is not None:
        return found
    stems, mapping = _stem_map(graph)
    n = len(graph.symbols)
    if field == "name":
        found = _name_field(graph, stems)
    else:
        found = (term_index(graph).tf @ mapping).tocsr()
        if field == "file":
            index = file_index(graph)
            member = sp.csr_matrix((np.ones(n), (index.file_of, np.arange(n))), shape=(len(index.paths), n))
            found = (member @ found).tocsr()
    ix.stem_fields[field] = found
    return found


def _name_field(graph: CodebaseGraph, stems: dict[str, int]) -> sp.csr_matrix:
    """Symbols x stems counts of each symbol's path and qualname terms.

    ``terms`` of ``"<path words> <qualname parts>"`` are the terms of the path words followed by those of
    each qualname part in turn (a space splits identifiers), so each distinct path and qualname part is
    split once (``term_rows.symbol_names``, shared with the other name builders), each distinct term
    stemmed once, and every symbol's row is their concatenation, in that order.
    """
    files = file_index(graph)
    names = symbol_names(graph)
    words, distinct_terms = names.terms
    table = (Table(known(stems, [p.replace("/", " ").replace(".py", "") for p in files.paths], stem))
             + words.mapped(lookup_array(distinct_terms, stems, stem)))
    keys, rows = keys_after(files.file_of, len(files.paths) + names.part_codes, names.n_parts)  # path, then parts
    found = count_rows(rows, keys, table, (len(graph.symbols), len(stems)))
    found.sum_duplicates()
    return found


def bm25_weights(tf: sp.csr_matrix, k1: float = 1.2, b: float = 0.75) -> sp.csc_matrix:
    """Okapi BM25 term weights of a docs x terms count matrix (as ``lexical.bm25_scores``)."""
    n_docs = tf.shape[0]
    df = np.bincount(tf.indices, minlength=tf.shape[1])
    idf = libm.log1p((n_docs - df + 0.5) / (df + 0.5))
    doc_len = np.asarray(tf.sum(axis=1)).ravel()
    avgdl = float(doc_len.mean()) if n_docs else 1.0
    norm = k1 * (1 - b + b * doc_len / max(avgdl, 1e-9))
    rows = np.repeat(np.arange(n_docs), np.diff(tf.indptr))
    w = tf.copy()
    w.data = idf[tf.indices] * tf.data * (k1 + 1) / (tf.data + norm[rows])
    return w.tocsc()


def query_stems(graph: CodebaseGraph, query: str, weights: QueryWeights = NEUTRAL) -> tuple[np.ndarray, np.ndarray]:
    """Stem columns and counts of the query's terms known to the graph (weighted with non-neutral ``weights``)."""
    stems, _ = _stem_map(graph)
    if not weights.neutral:
        return weighted_vector(query, weights, lambda t: stems.get(stem(t)))
    counts: dict[int, int] = {}
    for t in terms(query):
        j = stems.get(stem(t))
        if j is not None:
            counts[j] = counts.get(j, 0) + 1
    cols = np.fromiter(sorted(counts), dtype=np.int64, count=len(counts))
    return cols, np.fromiter((counts[c] for c in cols), dtype=np.float64, count=len(cols))


def bm25_field(graph: CodebaseGraph, query: str, field: str, k1: float = 1.2, b: float = 0.75,
               weights: QueryWeights = NEUTRAL) -> np.ndarray:
    """BM25 of every document of ``field`` against the stemmed query (its terms weighted by ``weights``)."""
    ix = indexes_for(graph)
    bm25 = ix.bm25_stemmed.get((field, k1, b))
    if bm25 is None:
        bm25 = ix.bm25_stemmed[(field, k1, b)] = bm25_weights(field_matrix(graph, field), k1, b)
    cols, counts = query_stems(graph, query, weights)
    if len(cols) == 0:
        return np.zeros(bm25.shape[0])
    return np.asarray(bm25[:, cols] @ counts).ravel()
