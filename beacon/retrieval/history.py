"""History priors: recently changed files (``H``) and functions (``G``), from the history before the base.

A developer working at the base commit has its git log. ``beacon.repo.history``
reads it (retrieval never runs git): ``file_history`` lists the files changed
by each of the last 1000 non-merge commits reachable from the base (the base
itself at distance 0; nothing after the base is ever read); ``line_history``
blames the base's own version of each file changed in the 50 nearest commits,
giving each line the distance of the commit that last changed it. Both are
explicit inputs (``RepoInputs``) that the runner reads because the method
``needs()`` them. Per file ``f`` and definition ``v``::

    H(f) = Σ_{commits c at distance d ≥ skip, c touches f, |c| ≤ max_files} exp(-d / tau)
    G(v) = Σ_{distinct commits at distance d ≥ skip that last changed a line of v} exp(-d / tau)

(``|c|`` the number of files ``c`` changes: mass edits such as reformatting
say nothing about where work is going on). Tests and modules get 0.
``file_prior`` and ``function_prior`` divide them by their maxima; the
composer's third stage (``blend``; recipe ``hybrid_history``) ranks by::

    score(v) = hybrid(v) + w_history · H(f(v)) / max H + w_function · G(v) / max G

With both weights 0 ``hybrid_history`` is exactly ``hybrid`` (same scores,
ranking and context) and needs no input; with a weight > 0 it needs its input
and raises ``MissingInputError`` without it (there is no silent fallback to
``hybrid``). ``history_only`` is the priors alone (every lexical
weight 0, the query is ignored). Constants: ``conf/method/hybrid_history.yaml``.
The signal rests mostly on the last few commits (``skip`` is the ablation):
see the README before reading its numbers as localization skill.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..graph.codebase import CodebaseGraph
from ..repo.history import LineHistory, RepoHistory
from .file_index import file_index
from .masks import module_mask, packable, test_files
from . import libm


def function_history_scores(graph: CodebaseGraph, lines: LineHistory, *, tau: float,
                            skip: int = 0) -> np.ndarray:
    """``G(v)`` per symbol: Σ exp(-d / tau) over the distinct commits at distance d ≥ skip that changed a line of v."""
    out = np.zeros(len(graph.symbols))
    if not lines:
        return out
    index = file_index(graph)
    modules = module_mask(graph)
    pos = {p: f for f, p in enumerate(index.paths)}
    symbols = graph.symbols
    for path, arr in lines.items():  # only the blamed files: most symbols have no line history
        f = pos.get(path)
        if f is None or arr is None:
            continue
        for i in np.flatnonzero((index.file_of == f) & ~modules).tolist():
            s = symbols[i]
            ds = np.unique(arr[s.start_line: s.end_line + 1])
            ds = ds[ds >= max(skip, 0)]
            out[i] = float(libm.exp(-ds / tau).sum())
    return out


def history_scores(history: RepoHistory, paths: Sequence[str], *, tau: float, max_files: int,
                   skip: int = 0) -> np.ndarray:
    """``H(f)`` for each of ``paths`` (see the module docstring)."""
    pos = {p: i for i, p in enumerate(paths)}
    out = np.zeros(len(paths))
    for d, files in enumerate(history.commits):
        if d < skip or len(files) > max_files:
            continue
        w = math.exp(-d / tau)
        for f in files:
            i = pos.get(f)
            if i is not None:
                out[i] += w
    return out


def file_prior(graph: CodebaseGraph, history: RepoHistory, *, tau: float, max_files: int, skip: int = 0) -> np.ndarray:
    """``H / max H`` per file (``FileIndex`` order); test files 0."""
    if not isinstance(history, RepoHistory):
        raise TypeError(f"input 'file_history' must be a RepoHistory, got {type(history).__name__}")
    h = history_scores(history, file_index(graph).paths, tau=tau, max_files=max_files, skip=skip)
    h[test_files(graph)] = 0.0
    top = float(h.max()) if len(h) else 0.0
    return h / top if top > 0 else h


def function_prior(graph: CodebaseGraph, lines: LineHistory, *, tau: float, skip: int = 0) -> np.ndarray:
    """``G / max G`` per symbol; tests and modules 0."""
    g = function_history_scores(graph, lines, tau=tau, skip=skip)
    g[~packable(graph)] = 0.0
    top = float(g.max()) if len(g) else 0.0
    return g / top if top > 0 else g
