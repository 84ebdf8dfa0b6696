"""Names the issue marks as code, matched to definitions and weighted by how specific the name is.

``query_features`` already collects the identifiers of an issue's code: inline
backticks, fenced or indented blocks, and anything written as a call
(``name(``). Each such name that is the simple name of a definition in the
graph (``FileIndex.by_name``: classes, functions, methods; modules excluded)
scores those definitions, and the score is *shared*: a name defined once
(``AsStringVisitor``) gives its definition 1, a name defined by 20 methods
(``get``) gives each 1/20. So a rare class or function the user pastes counts
for more than a common verb, whatever the repository; names shorter than
``MIN_CHARS`` are skipped (``id``, ``x``). The definitions vote for their
files, so a file that several pasted names point into collects them all
(file-level aggregation of weak hits).

``shared_scores`` is the scoring rule itself, also used by ``errors``.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ...graph.codebase import CodebaseGraph
from ..file_index import file_index
from ..query_features import query_features
from .index import SignalScores, graph_index, scores

MIN_CHARS = 3


def definitions(graph: CodebaseGraph, name: str) -> np.ndarray:
    """The non-test definitions whose simple name is ``name`` (empty for short or unknown names)."""
    if len(name) < MIN_CHARS:
        return np.zeros(0, dtype=np.int64)
    nodes = file_index(graph).by_name.get(name)
    if nodes is None:
        return np.zeros(0, dtype=np.int64)
    nodes = np.asarray(nodes, dtype=np.int64)
    return nodes[~graph_index(graph).is_test[nodes]]


def shared_scores(graph: CodebaseGraph, names: Iterable[str]) -> SignalScores:
    """Each distinct name adds ``1 / k`` to each of the ``k`` non-test definitions it names."""
    symbol = np.zeros(len(graph.symbols))
    for name in dict.fromkeys(names):
        nodes = definitions(graph, name)
        if len(nodes):
            symbol[nodes] += 1.0 / len(nodes)
    return scores(graph, symbol)


def code_names(query: str) -> list[str]:
    """The identifiers the issue writes as code or calls, in first-occurrence order."""
    features = query_features(query)
    return list(dict.fromkeys([*features.code, *features.calls]))


def name_scores(graph: CodebaseGraph, query: str) -> SignalScores:
    return shared_scores(graph, code_names(query))
