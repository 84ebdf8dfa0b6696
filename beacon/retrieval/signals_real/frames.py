"""Traceback frames resolved to the definitions that enclose them.

``query_features`` already parses ``File "x.py", line N, in f`` frames.
Here each frame whose path names a graph file (``GraphIndex.match``: a
suffix on a ``/`` boundary, so site-packages and absolute prefixes fall
away, and a file is also known by its import path, so
``site-packages/pkg/x.py`` finds ``src/pkg/x.py``, which
``mentions.match_path`` does not) is resolved to a definition: the symbol of
that file named like the frame's function when there is one (the issue's
line numbers come from another version of the file, names are stabler),
else the innermost definition holding line N (module level when none does).
Python prints the innermost call last and that is where a bug usually shows,
so within one traceback the ``k``-th frame from the end among the
repository's frames gets ``DECAY ** k``; frames in test files get nothing
(tests are not candidates). A path naming several files shares its weight.
"""
from __future__ import annotations

import re

import numpy as np

from ...graph.codebase import CodebaseGraph
from ..query_features import Frame, query_features
from .index import SignalScores, graph_index, scores

DECAY = 0.5
_TRACEBACK = re.compile(r"Traceback \(most recent call last\):")
_FRAME_AT = re.compile(r'File "([^"\n]+)", line (\d+)')


def tracebacks(query: str) -> list[list[Frame]]:
    """The query's frames grouped by traceback (a ``Traceback (most recent call last):`` header starts one)."""
    frames = query_features(query).frames
    # the same matches as query_features' frame pattern, in the same order: their offsets place each frame
    offsets = [m.start() for m in _FRAME_AT.finditer(query)]
    starts = [m.start() for m in _TRACEBACK.finditer(query)]
    groups: dict[int, list[Frame]] = {}
    for frame, at in zip(frames, offsets):
        groups.setdefault(sum(1 for s in starts if s < at), []).append(frame)
    return [groups[k] for k in sorted(groups)]


def resolve_frame(graph: CodebaseGraph, frame: Frame) -> list[int]:
    """The definitions one frame points at (one per matching file)."""
    index = graph_index(graph)
    out = []
    for path in index.match(frame.path):
        node = None
        if frame.function and frame.function != "<module>":
            named = [n for q, n in index.qualnames.get(path, {}).items() if q.rsplit(".", 1)[-1] == frame.function]
            if named:
                node = min(named, key=lambda n: abs(graph.symbols[n].start_line - frame.line))
        if node is None:
            node = index.at_line(path, frame.line)
        if node is not None and not graph.symbols[node].is_test:
            out.append(node)
    return out


def frame_scores(graph: CodebaseGraph, query: str) -> SignalScores:
    symbol = np.zeros(len(graph.symbols))
    for group in tracebacks(query):
        resolved = [nodes for nodes in (resolve_frame(graph, fr) for fr in group) if nodes]
        for k, nodes in enumerate(reversed(resolved)):
            for node in nodes:
                symbol[node] += DECAY ** k / len(nodes)
    return scores(graph, symbol)
