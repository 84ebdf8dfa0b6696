"""Change-log votes: past commits whose messages resemble the query vote for the files and functions they changed.

A developer at the base commit has its git log, and a log is a labelled
corpus: each past commit pairs a message with the files and functions it
changed. Past commits whose messages resemble the query point at the code
the new change will touch (the "similar bug reports" signal of BugLocator,
Zhou et al., ICSE 2012, applied to commit messages). The input
``change_log`` (``beacon.repo.history.read_change_log``: the last 1000
non-merge commits reachable from the base that change a ``.py`` file, with
``--full-history``; per commit its message, its changed ``.py`` files and the
functions its hunks fall in) is read by the runner because the method
``needs()`` it.

Per query: BM25 (stemmed terms) of the query against every past message;
the ``log_k`` most similar commits, each with weight ``w_c = sim_c / max sim``,
vote::

    L_F(f) = Σ_c w_c · [c changed f] / |files(c)|
    L_G(v) = Σ_c w_c · [c changed a function named like v in v's file] / |functions(c)|

    score(v) = hybrid_all(v) + w_log_file · L̂_F(f(v)) + w_log_function · L̂_G(v)    (recipe hybrid_log)

(hats: divided by the maximum over the candidates). Commits changing more than
``max_files`` files are skipped (mass edits say nothing), and so is any past
commit whose subject line equals the query's: a cherry-picked twin of the
change itself would otherwise answer the query for free. With both log weights
0 the method is exactly ``hybrid_all`` and needs no change log; otherwise it
needs one (``MissingInputError`` without it).
On the mined tune split the votes tie with ``hybrid_all`` (within ±1 point at
every weight tried): the history priors already carry what the log knows.
Constants: ``conf/method/hybrid_log.yaml``.
"""
from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

import numpy as np

from ..graph.codebase import CodebaseGraph
from ..repo.history import ChangeLog
from .file_index import file_index
from .masks import packable, test_files
from .stemmed import stem
from .text import terms


def _stems(text: str) -> list[str]:
    return [stem(t) for t in terms(text)]


@lru_cache(maxsize=1 << 16)
def _message_terms(message: str) -> Counter:
    """Stem counts of a past message, memoised: bases of one repository share most of their history.
    Callers only read the Counter."""
    return Counter(_stems(message))


def _subject(text: str) -> str:
    return " ".join(text.strip().split("\n", 1)[0].split()).lower()


def similar_commits(log: ChangeLog, query: str, k: int, *, max_files: int, k1: float = 1.2,
                    b: float = 0.75) -> list[tuple[int, float]]:
    """The ``k`` past commits whose messages best match ``query`` (BM25, stemmed): ``(index, sim / max sim)``."""
    keep = [i for i, files in enumerate(log.files)
            if 0 < len(files) <= max_files and _subject(log.messages[i]) != _subject(query)]
    docs = [_message_terms(log.messages[i]) for i in keep]
    q = Counter(_stems(query))
    if not docs or not q:
        return []
    df = Counter(t for d in docs for t in d)
    lens = np.array([sum(d.values()) for d in docs], dtype=float)
    norm = k1 * (1 - b + b * lens / max(float(lens.mean()), 1e-9))
    sims = np.zeros(len(docs))
    for t, qc in q.items():
        if t not in df:
            continue
        idf = math.log1p((len(docs) - df[t] + 0.5) / (df[t] + 0.5))
        tf = np.array([d.get(t, 0) for d in docs], dtype=float)
        sims += qc * idf * tf * (k1 + 1) / (tf + norm)
    order = [j for j in np.lexsort((np.arange(len(docs)), -sims))[:k] if sims[j] > 0]
    top = float(sims[order[0]]) if order else 0.0
    return [(keep[j], float(sims[j]) / top) for j in order]


def log_votes(graph: CodebaseGraph, log: ChangeLog, query: str, k: int, max_files: int,
              ) -> tuple[np.ndarray, np.ndarray]:
    """``(L_F per file in FileIndex order, L_G per symbol)``; tests, modules and non-packable code get 0."""
    index = file_index(graph)
    pos = {p: i for i, p in enumerate(index.paths)}

    none = np.zeros(0, dtype=np.int64)

    def definitions(path: str, name: str) -> np.ndarray:
        """The nodes (no modules) named ``name`` in ``path``, ascending: ``by_name``'s in that file."""
        nodes, f = index.by_name.get(name), pos.get(path)
        return nodes[index.file_of[nodes] == f] if nodes is not None and f is not None else none

    return votes(graph, log, similar_commits(log, query, k, max_files=max_files), pos, definitions)


def votes(graph: CodebaseGraph, log: ChangeLog, commits: list[tuple[int, float]], pos: dict[str, int],
          definitions) -> tuple[np.ndarray, np.ndarray]:
    """The votes of weighted ``commits`` (``similar_commits``); ``definitions(path, name)``: an index array of
    distinct nodes (an array or list, never a tuple: ``()`` would index every node)."""
    file_vote = np.zeros(len(pos))
    function_vote = np.zeros(len(graph.symbols))
    for c, w in commits:
        for f in log.files[c]:
            i = pos.get(f)
            if i is not None:
                file_vote[i] += w / len(log.files[c])
        if log.functions[c]:
            share = w / len(log.functions[c])
            for path, name in log.functions[c]:
                function_vote[definitions(path, name)] += share  # distinct nodes: one add each
    file_vote[test_files(graph)] = 0.0
    function_vote[~packable(graph)] = 0.0
    return file_vote, function_vote
