"""Compound identifiers from adjacent prose words: "content length" finds ``content_length``.

A prose report says "max redirects", "set cookie", "Content-Length" where the code says ``max_redirects``,
``set_cookie``/``setCookie``, ``content_length``. The term index keeps every multi-part identifier whole besides
its parts (``word_terms.split_identifier``: ``max_redirects``, and ``setCookie`` lower-cased to ``setcookie``), but
the query's terms are single words, so an exact compound is never asked for. Here each run of
``MIN_WORDS``..``MAX_WORDS`` adjacent words (separated by blanks or one hyphen only: no punctuation, no line break,
so within one sentence; stopwords kept, since the index keeps ``number_of_items`` whole) is joined into ``a_b``
and, with ``CONCAT``, ``ab`` (how a camel-case identifier is stored; only from words of ``CONCAT_CHARS`` letters
or more, none a stopword, so "a way" or "can not" join nothing), and the forms the graph's vocabulary holds are
the query's compounds. A form the query writes itself (``max_redirects`` in backticks, "filename") is already one
of its terms and a mention (``mentions``), so it is no compound.

``compound_scores`` is their BM25 alone, one count per distinct compound: per symbol and per file. The composer
adds it to its symbol and file BM25 (``S``, ``F``) times ``compound_weight`` (``stages.lexical``): by linearity,
the compounds as extra query terms of that count.
"""
from __future__ import annotations

import re

import numpy as np

from ...graph.codebase import CodebaseGraph
from ...graph.word_terms import STOPWORDS
from ..filelevel import file_bm25_weights
from ..lexical import bm25_symbol_weights
from ..masks import test_files
from ..text import term_index
from .index import SignalScores

MIN_WORDS, MAX_WORDS = 2, 3
CONCAT = True  # also look up the words run together (``setcookie``: camel-case identifiers are stored so)
CONCAT_CHARS = 3  # ... only when every word has this many characters and none is a stopword ("a way", "can not")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_JOIN = re.compile(r"[ \t]+|[ \t]*-[ \t]*")  # what may stand between two words of one compound


def word_runs(text: str) -> list[list[str]]:
    """Maximal runs of words joined only by blanks or one hyphen, lower-cased (``Content-Length header`` ->
    ``[["content", "length", "header"]]``); anything else between two words (``a.b``, ``f(x``, ``x, y``) ends a run."""
    runs: list[list[str]] = []
    run: list[str] = []
    end = -1
    for m in _WORD.finditer(text):
        if run and not _JOIN.fullmatch(text, end, m.start()):
            runs.append(run)
            run = []
        run.append(m.group().lower())
        end = m.end()
    if run:
        runs.append(run)
    return runs


def candidates(text: str, concat: bool = CONCAT) -> list[str]:
    """Every joined form of ``MIN_WORDS``..``MAX_WORDS`` adjacent words (``a_b``; ``ab`` with ``concat``),
    distinct, in order of first appearance."""
    seen: dict[str, None] = {}
    for run in word_runs(text):
        for n in range(MIN_WORDS, MAX_WORDS + 1):
            for i in range(len(run) - n + 1):
                words = [w.strip("_") for w in run[i:i + n]]
                if min(map(len, words)) < 2:
                    continue
                seen.setdefault("_".join(words), None)
                if concat and min(map(len, words)) >= CONCAT_CHARS and STOPWORDS.isdisjoint(words):
                    seen.setdefault("".join(words), None)
    return list(seen)


def compounds(graph: CodebaseGraph, query: str, concat: bool = CONCAT) -> list[str]:
    """The joined forms (``candidates``) the graph's term vocabulary holds, in order of first appearance."""
    vocab = term_index(graph).vocab
    single = {w.lower() for w in _WORD.findall(query)}
    # a form the query writes itself (``max_redirects``, "filename") is already one of its terms: no compound
    return [c for c in candidates(query, concat) if c in vocab and c not in single]


def compound_scores(graph: CodebaseGraph, query: str, k1: float = 1.2, b: float = 0.75) -> SignalScores:
    """BM25 of the query's compounds alone, one count each: per symbol (symbol documents, ``k1``, ``b``) and per
    file (``filelevel``'s file BM25 at its defaults, as the blend's ``F``; test files 0)."""
    vocab = term_index(graph).vocab
    cols = np.array(sorted({vocab[c] for c in compounds(graph, query)}), dtype=np.int64)
    n_files = file_bm25_weights(graph).shape[0]
    if len(cols) == 0:
        return SignalScores(np.zeros(len(graph.symbols)), np.zeros(n_files))
    ones = np.ones(len(cols))
    symbol = np.asarray(bm25_symbol_weights(graph, k1, b)[:, cols] @ ones).ravel()
    file = np.asarray(file_bm25_weights(graph)[:, cols] @ ones).ravel()
    file[test_files(graph)] = 0.0
    return SignalScores(symbol, file)
