"""``hybrid_history``: ``hybrid`` plus a file prior from the repository's own change history before the base.

A developer working at the base commit has its git log. ``read_history``
lists the files changed by each of the last ``n`` non-merge commits reachable
from the base (the base itself at distance 0; ``git log --date-order``, so
nothing after the base is ever read). ``SnapshotCache.graph`` attaches it as
``graph.cache["file_history"]``. Per file ``f``::

    H(f) = Σ_{commits c at distance d ≥ skip, c touches f, |c| ≤ max_files} exp(-d / tau)

(``|c|`` the number of files ``c`` changes: mass edits such as reformatting
say nothing about where work is going on). Test files get 0. ``hybrid_history``
ranks by::

    score(v) = hybrid(v) + w_history · H(f(v)) / max_f H(f)

so the prior moves whole files up or down and leaves the order inside a file
to ``hybrid``. When the graph carries no history (``graph.cache`` has no
``"file_history"``: a graph not loaded through ``SnapshotCache``, or a caller
that cleared the cache), or ``w_history = 0``, ``hybrid_history`` is exactly
``hybrid``: same scores, same ranking, same context. ``history_only`` is the
prior alone (every lexical weight 0): files by ``H``, definitions of a file in
source order. Constants: ``conf/method/hybrid_history.yaml``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..graph.codebase import CodebaseGraph
from ..repo.git import GitSource, run_git
from .filelevel import test_files
from .hybrid import Hybrid, HybridScores
from .mentions import file_index
from .perron import packable
from .registry import register_method

HISTORY_KEY = "file_history"
DEFAULT_COMMITS = 1000
_SEP = "\x1e"  # record separator before each commit's hash: never in a path git prints unquoted


@dataclass(frozen=True)
class RepoHistory:
    """Files changed by each commit before (and including) ``base``, nearest first: index = distance."""

    base: str
    hashes: tuple[str, ...]
    commits: tuple[tuple[str, ...], ...]


def parse_log(text: str) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """``git log --format=<SEP>%H --name-only`` output -> (hashes, changed paths of each commit), in log order."""
    hashes, files = [], []
    for block in text.split(_SEP)[1:]:
        lines = block.split("\n")
        hashes.append(lines[0].strip())
        files.append(tuple(sorted({p for p in lines[1:] if p})))
    return tuple(hashes), tuple(files)


def read_history(source: GitSource, commit: str, n: int = DEFAULT_COMMITS) -> RepoHistory:
    """The last ``n`` non-merge commits reachable from ``commit`` (itself first) and the files each changed."""
    if n < 1:
        raise ValueError(f"read_history: n must be >= 1, got {n}")
    text = run_git(["-c", "core.quotePath=false", "log", "--date-order", "--no-merges", "--no-renames",
                    f"--format={_SEP}%H", "--name-only", f"-n{n}", commit, "--"], git_dir=source.git_dir)
    return RepoHistory(commit, *parse_log(text.decode("utf-8", errors="replace")))


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
    """``hybrid`` + ``w_history`` × the change-history file prior; exactly ``hybrid`` when the graph has no history."""

    w_history: float = 1.0
    tau: float = 3.0
    max_files: int = 10
    combine: str = "add"  # "add": total + w·Ĥ; "mul": total · (1 + w·Ĥ) (only reorders definitions hybrid scored)
    skip: int = 0  # ignore the nearest commits (an ablation: how much rests on the last few commits?)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not np.isfinite(self.w_history) or self.w_history < 0:
            raise ValueError(f"{self.name}: w_history must be finite and >= 0, got {self.w_history!r}")
        if not self.tau > 0:
            raise ValueError(f"{self.name}: tau must be > 0, got {self.tau!r}")
        if self.combine not in ("add", "mul"):
            raise ValueError(f"{self.name}: combine must be 'add' or 'mul', got {self.combine!r}")
        if self.max_files < 1 or self.skip < 0:
            raise ValueError(f"{self.name}: need max_files >= 1 and skip >= 0, got {self.max_files}, {self.skip}")

    def file_prior(self, graph: CodebaseGraph) -> np.ndarray | None:
        """``H / max H`` per file (``FileIndex`` order), or None when the graph carries no history."""
        history = graph.cache.get(HISTORY_KEY)
        if history is None:
            return None
        if not isinstance(history, RepoHistory):
            raise TypeError(f"{self.name}: graph.cache[{HISTORY_KEY!r}] must be a RepoHistory, "
                            f"got {type(history).__name__}")
        index = file_index(graph)
        h = history_scores(history, index.paths, tau=self.tau, max_files=self.max_files, skip=self.skip)
        h[test_files(graph)] = 0.0
        top = float(h.max()) if len(h) else 0.0
        return h / top if top > 0 else h

    def scores(self, graph: CodebaseGraph, query: str) -> HybridScores:
        base = super().scores(graph, query)
        prior = self.file_prior(graph) if self.w_history else None
        if prior is None:
            return base
        index = file_index(graph)
        if self.combine == "mul":
            total = base.total * (1.0 + self.w_history * prior[index.file_of])
        else:
            total = base.total + self.w_history * prior[index.file_of]
        total[~packable(graph)] = 0.0
        file_total = np.zeros(len(index.paths))
        np.maximum.at(file_total, index.file_of, total)
        return HybridScores(total, {**base.components, "history": prior[index.file_of]}, file_total)


@register_method("history_only")
@dataclass
class HistoryOnly(HybridHistory):
    """Baseline: the change-history file prior alone (no query at all); a file's definitions in source order."""

    w_sym: float = 0.0
    w_file: float = 0.0
    w_mention: float = 0.0
    w_name: float = 0.0
    w_neighbor: float = 0.0
