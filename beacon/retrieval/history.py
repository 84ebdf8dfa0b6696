"""``hybrid_history``: ``hybrid`` plus priors from the repository's own change history before the base.

A developer working at the base commit has its git log. ``read_history``
lists the files changed by each of the last ``n`` non-merge commits reachable
from the base (the base itself at distance 0; ``git log --date-order <base>``,
so nothing after the base is ever read); ``read_line_history`` blames the
base's own version of each file changed in the ``LINE_COMMITS`` nearest
commits (``git blame <k-th>..<base>``), giving each line the distance of the
commit that last changed it. ``SnapshotCache.graph`` attaches both as
``graph.cache["file_history"]`` and ``graph.cache["line_history"]``. Per file
``f`` and definition ``v``::

    H(f) = Σ_{commits c at distance d ≥ skip, c touches f, |c| ≤ max_files} exp(-d / tau)
    G(v) = Σ_{distinct commits at distance d ≥ skip that last changed a line of v} exp(-d / tau)

(``|c|`` the number of files ``c`` changes: mass edits such as reformatting
say nothing about where work is going on). Tests and modules get 0.
``hybrid_history`` ranks by::

    score(v) = hybrid(v) + w_history · H(f(v)) / max H + w_function · G(v) / max G

When the graph carries neither history (a graph not loaded through
``SnapshotCache``, or a caller that cleared ``graph.cache`` itself) or both
weights are 0, ``hybrid_history`` is exactly ``hybrid``: same scores, same
ranking, same context. ``history_only`` is the priors alone (every lexical
weight 0, the query is ignored). Constants: ``conf/method/hybrid_history.yaml``.
The signal rests mostly on the last few commits (``skip`` is the ablation):
see the README before reading its numbers as localization skill.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

from ..graph.codebase import CodebaseGraph
from ..repo.git import GitSource, run_git
from .filelevel import test_files
from .hybrid import Hybrid, HybridScores
from .mentions import file_index
from .perron import packable
from .registry import register_method

HISTORY_KEY = "file_history"
LINES_KEY = "line_history"
DEFAULT_COMMITS = 1000
LINE_COMMITS = 50  # blame reaches back this many commits (older lines count as unchanged)
_BLAME_HEADER = re.compile(r"^([0-9a-f]{40}) \d+ (\d+)(?: \d+)?$")
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


def read_line_history(source: GitSource, history: RepoHistory, paths: Sequence[str],
                      k: int = LINE_COMMITS) -> dict[str, np.ndarray]:
    """Per path changed in the ``k`` nearest commits: each base line's distance to its last change (-1: older).

    ``git blame <k-th commit>..<base>``: the base's own file, so line numbers are the graph's.
    """
    distance = {h: d for d, h in enumerate(history.hashes[:k])}
    recent = sorted({f for files in history.commits[:k] for f in files} & set(paths))
    rev = f"{history.hashes[k]}..{history.base}" if len(history.hashes) > k else history.base
    out: dict[str, np.ndarray] = {}
    for path in recent:
        text = run_git(["blame", "--porcelain", rev, "--", path], git_dir=source.git_dir).decode("utf-8", "replace")
        lines: dict[int, int] = {}
        for line in text.split("\n"):
            m = _BLAME_HEADER.match(line)
            if m:
                lines[int(m.group(2))] = distance.get(m.group(1), -1)
        arr = np.full(max(lines, default=0) + 1, -1, dtype=np.int64)  # index = 1-based line number
        for n, d in lines.items():
            arr[n] = d
        out[path] = arr
    return out


def function_history_scores(graph: CodebaseGraph, lines: dict[str, np.ndarray], *, tau: float,
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
    uses_history: ClassVar[bool] = True  # SnapshotCache.graph(..., history=True) attaches it
    """``hybrid`` + the change-history file and function priors; exactly ``hybrid`` when the graph has no history."""

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

    def function_prior(self, graph: CodebaseGraph) -> np.ndarray | None:
        """``G / max G`` per symbol (0 for tests and modules), or None when the graph carries no line history."""
        lines = graph.cache.get(LINES_KEY)
        if lines is None:
            return None
        g = function_history_scores(graph, lines, tau=self.tau, skip=self.skip)
        g[~packable(graph)] = 0.0
        top = float(g.max()) if len(g) else 0.0
        return g / top if top > 0 else g

    def scores(self, graph: CodebaseGraph, query: str) -> HybridScores:
        base = super().scores(graph, query)
        index = file_index(graph)
        total, parts = base.total, dict(base.components)
        file_prior = self.file_prior(graph) if self.w_history else None
        if file_prior is not None:
            parts["history"] = file_prior[index.file_of]
            total = total + self.w_history * parts["history"]
        function_prior = self.function_prior(graph) if self.w_function else None
        if function_prior is not None:
            parts["function_history"] = function_prior
            total = total + self.w_function * function_prior
        if total is base.total:  # no history attached (or both weights 0): exactly hybrid
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
