"""``hybrid_log``: ``hybrid_all`` plus votes of past commits whose messages resemble the query.

A developer at the base commit has its git log, and a log is a labelled
corpus: each past commit pairs a message with the files and functions it
changed. Past commits whose messages resemble the query point at the code
the new change will touch (the "similar bug reports" signal of BugLocator,
Zhou et al., ICSE 2012, applied to commit messages). ``read_change_log`` reads
the last ``n`` non-merge commits reachable from the base that change a
``.py`` file (``git log -p -U0 <base>``: nothing after the base is ever
read; ``--full-history``, so side branches are not simplified away) and, per
commit, its message, its changed ``.py`` files and the functions its hunks
fall in (git's built-in Python hunk headers name the nearest ``def``/``class``
above each hunk). ``SnapshotCache.graph(..., history=True)``
attaches it as ``graph.cache["change_log"]``.

Per query: BM25 (stemmed terms) of the query against every past message;
the ``log_k`` most similar commits, each with weight ``w_c = sim_c / max sim``,
vote::

    L_F(f) = Σ_c w_c · [c changed f] / |files(c)|
    L_G(v) = Σ_c w_c · [c changed a function named like v in v's file] / |functions(c)|

    score(v) = hybrid_all(v) + w_log_file · L̂_F(f(v)) + w_log_function · L̂_G(v)

(hats: divided by the maximum over the candidates). Commits changing more than
``max_files`` files are skipped (mass edits say nothing), and so is any past
commit whose subject line equals the query's: a cherry-picked twin of the
change itself would otherwise answer the query for free. With both log weights
0, or without a change log on the graph, the method is exactly ``hybrid_all``.
On the mined tune split the votes tie with ``hybrid_all`` (within ±1 point at
every weight tried): the history priors already carry what the log knows.
Constants: ``conf/method/hybrid_log.yaml``.
"""
from __future__ import annotations

import re
import secrets
import tempfile
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..graph.codebase import CodebaseGraph
from ..repo.git import GitSource, run_git
from .combined import HybridAll
from .filelevel import test_files
from .hybrid import HybridScores, _unit
from .mentions import file_index
from .perron import packable
from .registry import register_method
from .stemmed import stem
from .text import terms

LOG_KEY = "change_log"
DEFAULT_LOG_COMMITS = 1000
_HASH = re.compile(r"[0-9a-f]{40}")
_HUNK_FUNCTION = re.compile(r"^@@ [^@]* @@ .*?\b(?:def|class)\s+([A-Za-z_]\w*)")


@dataclass(frozen=True)
class ChangeLog:
    """Past commits before (and including) ``base``, nearest first: message, ``.py`` files and functions changed."""

    base: str
    hashes: tuple[str, ...]
    messages: tuple[str, ...]
    files: tuple[tuple[str, ...], ...]
    functions: tuple[tuple[tuple[str, str], ...], ...]  # (path, def/class name in a hunk header) per commit


def diff_git_path(line: str) -> str | None:
    """The path of a ``diff --git a/P b/P`` line (renames are off, so both sides agree); None when quoted."""
    rest = line[len("diff --git "):]
    if rest.startswith('"') or (len(rest) - 5) % 2:
        return None  # git C-quotes names with quotes, backslashes or control characters: skipped
    path = rest[2: 2 + (len(rest) - 5) // 2]
    return path if rest == f"a/{path} b/{path}" else None


def parse_change_log(text: str, base: str = "", *, sep: str = "\x1e", field: str = "\x1f") -> ChangeLog:
    """``git log -p -U0 --format=<sep>%H<field>%B<field>`` output (Python hunk headers) -> ``ChangeLog``.

    A file is known by its ``diff --git`` line (so binary and mode-only changes and names with spaces count);
    a hunk header names the nearest ``def``/``class`` line above the hunk's start, which is usually the
    function the hunk changes (a change to a ``def`` line itself is credited to the definition above it).
    """
    hashes, messages, files, functions = [], [], [], []
    for block in text.split(sep)[1:]:
        head, _, rest = block.partition(field)
        message, _, diff = rest.partition(field)
        if not _HASH.fullmatch(head.strip()):
            raise ValueError(f"git log output: record starts with {head[:60]!r}, not a commit hash")
        changed: set[str] = set()
        named: set[tuple[str, str]] = set()
        path = None
        for line in diff.split("\n"):
            if line.startswith("diff --git "):
                path = diff_git_path(line)
                if path is not None and path.endswith(".py"):
                    changed.add(path)
            elif line.startswith("@@") and path is not None:  # body lines start with ' ', '-', '+' or '\\'
                m = _HUNK_FUNCTION.match(line)
                if m:
                    named.add((path, m.group(1)))
        hashes.append(head.strip())
        messages.append(message.strip())
        files.append(tuple(sorted(changed)))
        functions.append(tuple(sorted(named)))
    return ChangeLog(base, tuple(hashes), tuple(messages), tuple(files), tuple(functions))


def read_change_log(source: GitSource, commit: str, n: int = DEFAULT_LOG_COMMITS) -> ChangeLog:
    """The last ``n`` non-merge commits reachable from ``commit`` (itself first) that change a ``.py`` file."""
    if n < 1:
        raise ValueError(f"read_change_log: n must be >= 1, got {n}")
    # Separators drawn per call: a commit message cannot contain them by accident or on purpose.
    token = secrets.token_hex(8)
    sep, field = f"\x1e{token}\x1e", f"\x1f{token}\x1f"
    with tempfile.TemporaryDirectory() as tmp:
        # git's built-in "python" diff driver writes the nearest def/class into each hunk header. A private
        # attributes file selects it without touching the repository; running in the empty temp dir keeps a
        # .gitattributes in the caller's working directory out; explicit prefixes override diff.noprefix.
        attributes = Path(tmp) / "attributes"
        attributes.write_text("*.py diff=python\n")
        text = run_git(["-c", "core.quotePath=false", "-c", f"core.attributesFile={attributes}", "log", "-p",
                        "-U0", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/", "--full-history", "--date-order", "--no-merges",
                        "--no-renames", f"--format={sep}%H{field}%B{field}", f"-n{n}", commit, "--", "*.py"],
                       git_dir=source.git_dir, cwd=tmp)
    return parse_change_log(text.decode("utf-8", errors="replace"), commit, sep=sep, field=field)


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
        idf = np.log1p((len(docs) - df[t] + 0.5) / (df[t] + 0.5))
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
    by_name: dict[tuple[str, str], list[int]] = graph.cache.get("_path_name_nodes")
    if by_name is None:
        by_name = {}
        for i, s in enumerate(graph.symbols):
            if s.kind != "module":
                by_name.setdefault((s.path, s.name), []).append(i)
        graph.cache["_path_name_nodes"] = by_name
    file_vote = np.zeros(len(index.paths))
    function_vote = np.zeros(len(graph.symbols))
    for c, w in similar_commits(log, query, k, max_files=max_files):
        for f in log.files[c]:
            i = pos.get(f)
            if i is not None:
                file_vote[i] += w / len(log.files[c])
        if log.functions[c]:
            share = w / len(log.functions[c])
            for key in log.functions[c]:
                for node in by_name.get(key, ()):
                    function_vote[node] += share
    file_vote[test_files(graph)] = 0.0
    function_vote[~packable(graph)] = 0.0
    return file_vote, function_vote


@register_method("hybrid_log")
@dataclass
class HybridLog(HybridAll):
    """``hybrid_all`` + votes of past commits with similar messages (a measured baseline: it ties on tune)."""

    w_log_file: float = 0.1
    w_log_function: float = 0.1
    log_k: int = 20

    def __post_init__(self) -> None:
        super().__post_init__()
        for w in ("w_log_file", "w_log_function"):
            if not np.isfinite(getattr(self, w)) or getattr(self, w) < 0:
                raise ValueError(f"{self.name}: {w} must be finite and >= 0, got {getattr(self, w)!r}")
        if isinstance(self.log_k, bool) or not isinstance(self.log_k, int) or self.log_k < 1:
            raise ValueError(f"{self.name}: log_k must be an integer >= 1, got {self.log_k!r}")

    def scores(self, graph: CodebaseGraph, query: str) -> HybridScores:
        base = super().scores(graph, query)
        log = graph.cache.get(LOG_KEY)
        if log is None or not (self.w_log_file or self.w_log_function):
            return base
        if not isinstance(log, ChangeLog):
            raise TypeError(f"{self.name}: graph.cache[{LOG_KEY!r}] must be a ChangeLog, got {type(log).__name__}")
        index = file_index(graph)
        cand = packable(graph)
        file_vote, function_vote = log_votes(graph, log, query, self.log_k, self.max_files)
        parts = dict(base.components, log_file=file_vote[index.file_of], log_function=function_vote)
        total = (base.total + self.w_log_file * _unit(parts["log_file"], cand)
                 + self.w_log_function * _unit(parts["log_function"], cand))
        total[~cand] = 0.0
        file_total = np.zeros(len(index.paths))
        np.maximum.at(file_total, index.file_of, total)
        return HybridScores(total, parts, file_total)
