"""``RepoLog``: a repository's history read once by ``git log`` and sliced per base commit in Python.

``read_history`` and ``read_change_log`` run one ``git log --date-order -n…`` per
base commit; a sweep over many base commits of one repository reads the same
old commits again for each. ``RepoLog.load(bases)`` reads every commit
reachable from the bases once (commits it already holds are excluded with
``^<base>`` of the bases loaded before), with the per-commit readers' own
options, in at most three ``git log`` calls:

* the commit graph and file lists: ``%H``, ``%P``, ``%ct`` and
  ``--name-only --no-renames`` for every commit (merges included, for the walk);
* which non-merge commits change a ``.py`` file:
  ``--full-history --no-merges -- '*.py'`` (git's own pathspec matching);
* when a change log is first asked for, the change-log records (``-p -U0``
  of ``*.py`` with Python hunk headers, ``history.change_log_records``) of
  only the commits the loaded bases' change logs take (``--no-walk``), since
  the diffs are most of the cost; a later, longer slice fetches what it lacks.

What a commit prints (its files, its diff) does not depend on the base, so a
base's slice differs from the per-commit read only in which commits it takes
and in what order. ``date_order`` reproduces git's ``--date-order``
(``sort_in_topological_order`` in git's ``commit.c``): every commit reachable
from the base starts with in-degree 1 plus one per child edge within that
set (a parent listed twice counts twice); a priority queue, newest committer
time first and earlier insertion first among equal times, starts with the
base; a popped commit releases each parent (in parent order) whose count
falls to 1. ``--no-merges`` drops commits with more than one parent after
ordering and ``-n`` counts what is left; the change log keeps, in the same
order, the commits that change a ``.py`` file. Path limiting does not change
the order: with ``--full-history`` every parent is walked and commits that
do not touch ``*.py`` are only hidden, not removed from the sort.
Tests compare the slices with the per-commit reads on random DAGs (merges,
equal and out-of-order committer times, with and without a commit-graph
file) and on every task base commit of the real repositories.
"""
from __future__ import annotations

import heapq
from typing import Iterable, Iterator

from .git import FULL_HASH, GitSource
from .history import (CHANGE_LOG_PATHS, CHANGE_LOG_WALK, DEFAULT_COMMITS, DEFAULT_LOG_COMMITS, FILE_HISTORY_ARGS,
                      ChangeLog, RepoHistory, change_log_from_records, change_log_records, files_of, git_log)


class RepoLog:
    """Every commit reachable from the loaded base commits: parents, committer time, files, change-log entry."""

    def __init__(self, source: GitSource):
        self.source = source
        self._index: dict[str, int] = {}
        self._hashes: list[str] = []
        self._parents: list[tuple[int, ...]] = []
        self._time: list[int] = []
        self._files: list[tuple[str, ...]] = []
        self._py: set[int] = set()  # non-merge commits that change a .py file
        self._logged: dict[int, tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]] = {}
        self._picks: dict[tuple[str, str, int], list[int]] = {}
        self._bases: list[str] = []  # everything reachable from these is loaded
        self._unfetched: list[str] = []  # loaded bases whose change-log records are not fetched yet
        self.git_calls = 0

    def __contains__(self, commit: str) -> bool:
        return commit in self._index

    def load(self, bases: Iterable[str]) -> None:
        """Read the commits reachable from ``bases`` that are not loaded yet (two ``git log`` calls, or none)."""
        new = list(dict.fromkeys(self._hash(b) for b in bases))
        new = [h for h in new if h not in self._index]
        if not new:
            return
        stdin = ("".join(f"{h}\n" for h in new) + "".join(f"^{h}\n" for h in self._bases)).encode()
        # both walks run before anything is kept, so a failed load leaves the log as it was
        records = git_log(self.source, ["%H", "%P", "%ct"], [*FILE_HISTORY_ARGS, "--stdin", "--"], stdin=stdin)
        python = git_log(self.source, ["%H"], [*CHANGE_LOG_WALK, "--stdin", "--", *CHANGE_LOG_PATHS], stdin=stdin)
        self.git_calls += 2
        fresh = {}  # git's walk may pass commits the negative bases reach (clock skew): those are kept once
        for (sha, parents, time), rest in records:
            if sha.strip() not in self._index:
                fresh[sha.strip()] = (parents.split(), int(time), files_of(rest))
        index = {**self._index, **{sha: len(self._hashes) + i for i, sha in enumerate(fresh)}}
        missing = {p for parents, _, _ in fresh.values() for p in parents} - index.keys()
        if missing:
            raise ValueError(f"{self.source.origin}: git log printed commits but not their parents {sorted(missing)}")
        for sha, (parents, time, files) in fresh.items():
            self._hashes.append(sha)
            self._parents.append(tuple(index[p] for p in parents))
            self._time.append(time)
            self._files.append(files)
        self._index = index
        self._py.update(index[v[0].strip()] for v, _ in python)
        self._bases.extend(new)
        self._unfetched.extend(new)

    def _fetch(self, commits: list[int]) -> None:
        """The change-log records of ``commits`` not held yet, in one ``git log --no-walk``."""
        wanted = sorted({c for c in commits if c not in self._logged})
        if not wanted:
            return
        stdin = "".join(f"{self._hashes[c]}\n" for c in wanted).encode()
        logged = change_log_from_records(change_log_records(self.source, ["--no-walk=unsorted", "--stdin"], stdin))
        self.git_calls += 1
        got = dict(zip(logged.hashes, zip(logged.messages, logged.files, logged.functions)))
        lost = [self._hashes[c] for c in wanted if self._hashes[c] not in got]
        if lost:
            raise ValueError(f"{self.source.origin}: git log -p printed no change-log record for {lost[:5]}")
        for c in wanted:
            self._logged[c] = got[self._hashes[c]]

    def _hash(self, commit: str) -> str:
        return commit if FULL_HASH.fullmatch(commit) else self.source.resolve_commit(commit)

    def date_order(self, base: str) -> Iterator[int]:
        """The commits reachable from ``base`` (indexes), in ``git log --date-order`` order."""
        parents, time = self._parents, self._time
        start = self._index[self._hash(base)]
        indegree = {start: 1}
        stack = [start]
        while stack:
            for p in parents[stack.pop()]:
                if p not in indegree:
                    indegree[p] = 1
                    stack.append(p)
        for c in list(indegree):
            for p in parents[c]:
                indegree[p] += 1
        queue = [(-time[start], 0, start)]
        pushed = 1
        while queue:
            commit = heapq.heappop(queue)[2]
            for p in parents[commit]:
                left = indegree[p]
                if not left:
                    continue
                indegree[p] = left - 1
                if left - 1 == 1:  # every child of p within the set is out: p may go
                    heapq.heappush(queue, (-time[p], pushed, p))
                    pushed += 1
            indegree[commit] = 0
            yield commit

    def history(self, base: str, n: int = DEFAULT_COMMITS) -> RepoHistory:
        """``read_history(source, base, n)``, sliced from the loaded log."""
        if n < 1:
            raise ValueError(f"RepoLog.history: n must be >= 1, got {n}")
        picked = self._pick(base, n, "history")
        return RepoHistory(base, tuple(self._hashes[c] for c in picked), tuple(self._files[c] for c in picked))

    def change_log(self, base: str, n: int = DEFAULT_LOG_COMMITS) -> ChangeLog:
        """``read_change_log(source, base, n)``, sliced from the loaded log."""
        if n < 1:
            raise ValueError(f"RepoLog.change_log: n must be >= 1, got {n}")
        picked = self._pick(base, n, "change_log")
        # the first change log asked after a load fetches every loaded base's records in one call
        pending, self._unfetched = self._unfetched, []
        self._fetch([*picked, *(c for b in pending for c in self._pick(b, DEFAULT_LOG_COMMITS, "change_log"))])
        entries = [self._logged[c] for c in picked]
        return ChangeLog(base, tuple(self._hashes[c] for c in picked), tuple(e[0] for e in entries),
                         tuple(e[1] for e in entries), tuple(e[2] for e in entries))

    def _pick(self, base: str, n: int, kind: str) -> list[int]:
        """The first ``n`` commits of ``base``'s date order that ``kind`` keeps (non-merges / ``.py`` changes)."""
        key = (self._hash(base), kind, n)
        if key[0] not in self._index:
            raise KeyError(f"{self.source.origin}: commit {base} is not loaded (RepoLog.load it first)")
        if key not in self._picks:
            keep = self._py.__contains__ if kind == "change_log" else lambda c: len(self._parents[c]) <= 1
            out = []
            for commit in self.date_order(key[0]):
                if keep(commit):
                    out.append(commit)
                    if len(out) == n:
                        break
            self._picks[key] = out
        return self._picks[key]
