"""``hybrid_history``: ``hybrid`` plus priors from the repository's own change history before the base.

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
``hybrid_history`` ranks by::

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

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..graph.codebase import CodebaseGraph
from ..repo.history import NO_INPUTS, LineHistory, RepoHistory, RepoInputs
from .base import require
from .file_index import file_index
from .hybrid import Hybrid, HybridScores
from .masks import packable, test_files
from .registry import register_method


def function_history_scores(graph: CodebaseGraph, lines: LineHistory, *, tau: float,
                            skip: int = 0) -> np.ndarray:
    """``G(v)`` per symbol: Σ exp(-d / tau) over the distinct commits at distance d ≥ skip that changed a line of v."""
    out = np.zeros(len(graph.symbols))
    for i, s in enumerate(graph.symbols):
        arr = lines.get(s.path)
        if arr is None or s.kind == "module":
            continue
        ds = np.unique(arr[s.start_line: s.end_line + 1])
        ds = ds[ds >= max(skip, 0)]
        out[i] = float(np.exp(-ds / tau).sum())
    return out


def history_scores(history: RepoHistory, paths: Sequence[str], *, tau: float, max_files: int,
                   skip: int = 0) -> np.ndarray:
    """``H(f)`` for each of ``paths`` (see the module docstring)."""
    pos = {p: i for i, p in enumerate(paths)}
    out = np.zeros(len(paths))
    for d, files in enumerate(history.commits):
        if d < skip or len(files) > max_files:
            continue
        w = float(np.exp(-d / tau))
        for f in files:
            i = pos.get(f)
            if i is not None:
                out[i] += w
    return out


@register_method("hybrid_history")
@dataclass
class HybridHistory(Hybrid):
    """``hybrid`` + the change-history file and function priors (inputs ``file_history``, ``line_history``)."""

    w_history: float = 0.25
    tau: float = 3.0
    max_files: int = 10
    w_function: float = 1.0  # weight of G(v)/max G, the function-level (blame) prior
    skip: int = 0  # ignore the nearest commits (an ablation: how much rests on the last few commits?)

    def __post_init__(self) -> None:
        super().__post_init__()
        for w in ("w_history", "w_function"):
            if not np.isfinite(getattr(self, w)) or getattr(self, w) < 0:
                raise ValueError(f"{self.name}: {w} must be finite and >= 0, got {getattr(self, w)!r}")
        if not self.tau > 0:
            raise ValueError(f"{self.name}: tau must be > 0, got {self.tau!r}")
        if self.max_files < 1 or self.skip < 0:
            raise ValueError(f"{self.name}: need max_files >= 1 and skip >= 0, got {self.max_files}, {self.skip}")

    def needs(self) -> frozenset[str]:
        return (super().needs() | ({"file_history"} if self.w_history else set())
                | ({"line_history"} if self.w_function else set()))

    def file_prior(self, graph: CodebaseGraph, inputs: RepoInputs) -> np.ndarray:
        """``H / max H`` per file (``FileIndex`` order)."""
        history = require(inputs, "file_history", self.name)
        if not isinstance(history, RepoHistory):
            raise TypeError(f"{self.name}: input 'file_history' must be a RepoHistory, got {type(history).__name__}")
        index = file_index(graph)
        h = history_scores(history, index.paths, tau=self.tau, max_files=self.max_files, skip=self.skip)
        h[test_files(graph)] = 0.0
        top = float(h.max()) if len(h) else 0.0
        return h / top if top > 0 else h

    def function_prior(self, graph: CodebaseGraph, inputs: RepoInputs) -> np.ndarray:
        """``G / max G`` per symbol (0 for tests and modules)."""
        lines = require(inputs, "line_history", self.name)
        g = function_history_scores(graph, lines, tau=self.tau, skip=self.skip)
        g[~packable(graph)] = 0.0
        top = float(g.max()) if len(g) else 0.0
        return g / top if top > 0 else g

    def scores(self, graph: CodebaseGraph, query: str, inputs: RepoInputs = NO_INPUTS) -> HybridScores:
        base = super().scores(graph, query, inputs)
        index = file_index(graph)
        total, parts = base.total, dict(base.components)
        if self.w_history:
            parts["history"] = self.file_prior(graph, inputs)[index.file_of]
            total = total + self.w_history * parts["history"]
        if self.w_function:
            parts["function_history"] = self.function_prior(graph, inputs)
            total = total + self.w_function * parts["function_history"]
        if total is base.total:  # both weights 0: exactly hybrid
            return base
        total[~packable(graph)] = 0.0
        file_total = np.zeros(len(index.paths))
        np.maximum.at(file_total, index.file_of, total)
        return HybridScores(total, parts, file_total)


@register_method("history_only")
@dataclass
class HistoryOnly(HybridHistory):
    """Baseline: the change-history file prior alone (no query at all); a file's definitions in source order."""

    w_sym: float = 0.0
    w_file: float = 0.0
    w_mention: float = 0.0
    w_name: float = 0.0
    w_neighbor: float = 0.0
