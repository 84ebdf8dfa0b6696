"""SWE-bench-style localization instances, their repositories, and cached snapshots + graphs.

Instances come from a JSON list or a JSONL file with at least ``instance_id``,
``repo`` (``owner/name``), ``base_commit``, ``problem_statement`` and
``patch``; other fields are kept in ``extra``. Repositories are found in a
folder as ``<owner>__<name>`` (a working tree or bare repository, with or
without ``.git``) or ``<owner>__<name>.bundle``, in one folder or the first of several holding it.

Snapshots are materialised once per commit (``git archive``) and their graphs
saved once per commit (``CodebaseGraph.save``), so a sweep over methods and
budgets parses each base commit once; the graphs' retrieval indexes
(``beacon.retrieval.index_store``) and the git inputs read for a commit
(``beacon.repo.inputs_store``) are saved beside them, so a later run loads both. Methods only ever see the snapshot and
the problem statement, never the patch. Each use of a snapshot touches a stamp beside it (``<commit>.last_used``), so
``python -m beacon prune-snapshots`` (``beacon.retrieval.index_prune``) evicts the least recently used trees; an
evicted tree is extracted again when next asked for, and a saved graph's root is re-pointed at it.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from ..graph.codebase import CodebaseGraph, StaleGraphError
from ..repo.git import FULL_HASH, GitError, GitSource, open_source
from ..repo.snapshot import materialize
from ..repo.inputs_store import InputsStore
from ..repo.history import INPUT_NAMES, NO_INPUTS, RepoHistory, RepoInputs, read_inputs
from ..repo.history_log import RepoLog
from ..retrieval.index_prune import mark_used, snapshot_stamp
from ..retrieval.indexes import attach_store

# graphs a SnapshotCache keeps in memory: a run visits an instance's graph for all its methods and budgets at once,
# so the last few are all it reuses; a large repository's graph with its indexes is a few hundred MB
MAX_GRAPHS = 4
REQUIRED = ("instance_id", "repo", "base_commit", "problem_statement", "patch")


class InstanceError(ValueError):
    """An instances file is malformed; the message names the file, entry and field."""


@dataclass(frozen=True)
class Instance:
    instance_id: str
    repo: str
    base_commit: str
    problem_statement: str
    patch: str
    extra: dict = field(default_factory=dict, compare=False, repr=False)


def load_instances(path: Path | str) -> list[Instance]:
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    entries: list[tuple[int, object]] = []
    if stripped.startswith("["):
        try:
            entries = list(enumerate(json.loads(text), start=1))
        except json.JSONDecodeError as exc:
            raise InstanceError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
        where = "entry"
    else:
        where = "line"
        for lineno, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    entries.append((lineno, json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise InstanceError(f"{path}:{lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    instances, seen = [], set()
    for number, row in entries:
        if not isinstance(row, dict):
            raise InstanceError(f"{path}: {where} {number}: expected a JSON object")
        for name in REQUIRED:
            if not isinstance(row.get(name), str) or not row[name]:
                raise InstanceError(f"{path}: {where} {number}: field '{name}': expected a non-empty string")
        if not FULL_HASH.fullmatch(row["base_commit"]):
            raise InstanceError(f"{path}: {where} {number}: field 'base_commit': expected a full 40-hex hash")
        if row["instance_id"] in seen:
            raise InstanceError(f"{path}: {where} {number}: field 'instance_id': duplicate {row['instance_id']!r}")
        seen.add(row["instance_id"])
        instances.append(Instance(**{k: row[k] for k in REQUIRED},
                                  extra={k: v for k, v in row.items() if k not in REQUIRED}))
    return instances


def _dirs(repos_dir: Path | str | Sequence[Path | str]) -> list[Path]:
    return [Path(repos_dir)] if isinstance(repos_dir, (str, os.PathLike)) else [Path(d) for d in repos_dir]


def find_repository(repos_dir: Path | str | Sequence[Path | str], repo: str) -> Path:
    """``owner/name`` -> ``<repos_dir>/owner__name`` (tree, ``.git`` or ``.bundle``).

    ``repos_dir`` may be several folders (tasks mined from repositories kept
    in different places); the first holding the repository wins.
    """
    stem = repo.replace("/", "__")
    for base in _dirs(repos_dir):
        for candidate in (base / stem, base / f"{stem}.git", base / f"{stem}.bundle"):
            if candidate.exists():
                return candidate
    where = ", ".join(str(d) for d in _dirs(repos_dir))
    raise FileNotFoundError(f"no repository for {repo!r} in {where} (tried {stem}, {stem}.git, {stem}.bundle)")


class SnapshotCache:
    """Snapshots, saved graphs and their saved indexes per commit under ``root`` (safe to share between runs).

    ``index_store=False`` keeps indexes in memory only (nothing read from or written to ``root/indexes``).
    At most ``max_graphs`` graphs (with the indexes they carry) stay in memory, the least recently used leaving
    first: a run over hundreds of base commits of a large repository would otherwise hold every one of them (a
    graph evicted and asked for again is loaded from its saved copy, equal to the first).
    """

    def __init__(self, root: Path | str, repos_dir: Path | str | Sequence[Path | str], *, index_store: bool = True,
                 max_graphs: int = MAX_GRAPHS):
        if max_graphs < 1:
            raise ValueError(f"max_graphs must be at least 1, got {max_graphs}")
        self.root = Path(root)
        self.index_store = index_store
        self.max_graphs = max_graphs
        self.repos_dirs = _dirs(repos_dir)
        self.repos_dir = self.repos_dirs[0]
        self._sources: dict[str, GitSource] = {}
        self._graphs: OrderedDict[str, CodebaseGraph] = OrderedDict()  # least recently used first
        self._histories: dict[str, RepoHistory] = {}
        self._inputs: dict[str, RepoInputs] = {}
        self._saved_inputs = InputsStore(self.root / "inputs")
        self._logs: dict[str, RepoLog] = {}
        self._expected: dict[str, list[str]] = {}

    def source(self, repo: str) -> GitSource:
        if repo not in self._sources:
            self._sources[repo] = open_source(find_repository(self.repos_dirs, repo), cache_dir=self.root / "bundles")
        return self._sources[repo]

    def _snapshot_path(self, repo: str, commit: str) -> Path:
        return self.root / "snapshots" / repo.replace("/", "__") / commit

    def snapshot(self, repo: str, commit: str) -> Path:
        """The extracted tree of ``commit``, extracted once (again if pruned) and stamped as used now."""
        target = self._snapshot_path(repo, commit)
        if not target.is_dir():
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=".tmp-"))
            materialize(self.source(repo), commit, tmp / "tree")
            try:
                os.replace(tmp / "tree", target)  # atomic: a half-extracted tree is never used
            except OSError:
                if not target.is_dir():
                    raise
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        mark_used(snapshot_stamp(target))  # beside the tree: a file inside it would become part of the snapshot
        return target

    def expect(self, repo: str, commits: Iterable[str]) -> None:
        """Announce base commits a run will ask ``inputs`` for: the first git read of ``repo`` reads them all."""
        self._expected.setdefault(repo, []).extend(commits)

    def history_log(self, repo: str, commit: str) -> RepoLog:
        """The repository's ``RepoLog`` with ``commit`` loaded (and every commit announced by ``expect``)."""
        if repo not in self._logs:
            self._logs[repo] = RepoLog(self.source(repo))
        log = self._logs[repo]
        expected = self._expected.pop(repo, [])
        try:
            log.load([*expected, commit])
        except GitError:
            if not expected:
                raise
            log.load([commit])  # an announced commit the repository lacks fails its own instance, not this one
        return log

    def history(self, repo: str, commit: str) -> RepoHistory:
        """The files changed by each commit up to ``commit`` (never after it): see ``beacon.repo.history``."""
        return self.inputs(repo, commit, {"file_history"}).file_history

    def graph(self, repo: str, commit: str) -> CodebaseGraph:
        """The base-commit graph (parsed once per commit, then loaded from its saved copy)."""
        key = f"{repo}@{commit}"
        if key in self._graphs:
            self._graphs.move_to_end(key)
        else:
            saved = self.root / "graphs" / repo.replace("/", "__") / commit
            graph = None
            if (saved / "graph.json").is_file():
                try:
                    graph = CodebaseGraph.load(saved)
                except StaleGraphError:  # an older schema: rebuilt below and replaced
                    stale = saved.with_name(f".{commit}.stale-{os.getpid()}")
                    with contextlib.suppress(OSError):
                        os.replace(saved, stale)
                    shutil.rmtree(stale, ignore_errors=True)
            if graph is None:
                graph = CodebaseGraph.from_repo(self.snapshot(repo, commit), cache_dir=self.root / "parse-cache")
                tmp = saved.with_name(f".{commit}.tmp-{os.getpid()}")
                graph.save(tmp)
                try:
                    os.replace(tmp, saved)
                except OSError:
                    shutil.rmtree(tmp, ignore_errors=True)
                    if not (saved / "graph.json").is_file():
                        raise
            # The saved root is where the snapshot was when the graph was built; a cache that was moved or
            # copied since (another machine, another folder) holds the same snapshot under its own root.
            if graph.root is None or not Path(graph.root).is_dir():
                graph.root = str(self.snapshot(repo, commit))
            elif Path(graph.root).resolve() == self._snapshot_path(repo, commit).resolve():  # relative or absolute
                # the docs bridge reads a saved graph's snapshot at graph.root, not through snapshot(): a use too
                mark_used(snapshot_stamp(Path(graph.root)))
            if self.index_store:
                attach_store(graph, self.root / "indexes")
            self._graphs[key] = graph
            while len(self._graphs) > self.max_graphs:
                self._graphs.popitem(last=False)
        return self._graphs[key]

    def inputs(self, repo: str, commit: str, needs: set[str] | frozenset[str]) -> RepoInputs:
        """The history inputs named in ``needs`` (what the methods' ``needs()`` declare) up to ``commit``.

        Read only when a method needs them, never past the commit: file history and change log are sliced
        from the repository's log, read once for all its base commits (``history_log``: ``RepoLog``); line
        history blames the graph's non-test files at the commit. Each input read is saved under
        ``root/inputs`` (``InputsStore``), so a later run on the commit loads it instead.
        """
        if not needs:
            return NO_INPUTS
        key = f"{repo}@{commit}"
        have = self._inputs.get(key, NO_INPUTS)
        missing = frozenset(needs) - have.present()
        if missing:
            paths = sorted({s.path for s in self.graph(repo, commit).symbols if not s.is_test}) \
                if "line_history" in missing else ()
            found = {n: self._saved_inputs.load(repo, commit, n, paths) for n in missing}
            unread = frozenset(n for n, v in found.items() if v is None)
            if unread:
                new = read_inputs(self.source(repo), commit, unread, paths, log=self.history_log(repo, commit))
                for name in unread:
                    found[name] = getattr(new, name)
                    self._saved_inputs.save(repo, commit, name, found[name], paths)
            have = RepoInputs(**{n: found.get(n, getattr(have, n)) for n in INPUT_NAMES})
            self._inputs[key] = have
        return RepoInputs(**{n: getattr(have, n) if n in needs else None for n in INPUT_NAMES})
