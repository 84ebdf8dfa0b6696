"""``RepoLog``: the history read once per repository, sliced per base commit, equals the per-commit ``git log``.

Random commit graphs are written with ``git fast-import`` (merges of up to
three parents, root commits, equal and out-of-order committer times, ``.py``
and other files changed or deleted, empty commits), with and without a
commit-graph file (git then orders by its incremental walk); every commit is
a base, loaded in random batches (later batches exclude what is loaded).
"""
from __future__ import annotations

import os
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from beacon.localize.instances import SnapshotCache
from beacon.repo.git import GitError, GitSource
from beacon.repo.history import INPUT_NAMES, read_change_log, read_history, read_inputs
from beacon.repo.history_log import RepoLog
from repotools import GIT_ENV, git

PATHS = ("a.py", "pkg/b.py", "pkg/sp ace.py", "notes.txt", "pkg/c.txt")
T0 = 1_600_000_000


def _content(path: str, value: int) -> str:
    if path.endswith(".py"):
        return "".join(f"def f{value + i}():\n    return {value * i}\n\n\n" for i in range(1 + value % 3))
    return f"note {value}\n"


@st.composite
def dags(draw):
    n = draw(st.integers(1, 14))
    commits = []
    for i in range(n):
        if i == 0 or draw(st.integers(0, 9)) == 0:
            parents = []
        else:
            k = draw(st.sampled_from([1, 1, 1, 2, 2, 3]))
            parents = draw(st.lists(st.integers(0, i - 1), min_size=1, max_size=k, unique=True))
        changes = draw(st.dictionaries(st.sampled_from(PATHS), st.one_of(st.none(), st.integers(0, 6)), max_size=3))
        time = T0 + 100 * draw(st.integers(0, 6))  # few distinct times: equal and out-of-order ones are common
        commits.append((parents, changes, time))
    return commits


def _fast_import(root, commits) -> list[str]:
    """Write ``commits`` ((parent indexes, {path: value or None to delete}, committer time)); their hashes."""
    out = []

    def data(text: str) -> None:  # fast-import's exact-length data block
        out.append(f"data {len(text.encode())}\n{text}\n")

    for i, (parents, changes, time) in enumerate(commits):
        out.append(f"commit refs/heads/c{i}\nmark :{i + 1}\ncommitter t <t@t> {time} +0000\n")
        data(f"commit {i}\n\nbody of {i}\n")
        out += [f"from :{parents[0] + 1}\n"] if parents else []
        out += [f"merge :{p + 1}\n" for p in parents[1:]]
        for path, value in sorted(changes.items()):
            if value is None:
                out.append(f'D "{path}"\n')
            else:
                out.append(f'M 100644 inline "{path}"\n')
                data(_content(path, value))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input="".join(out).encode(), check=True,
                   env={"PATH": os.environ["PATH"], **GIT_ENV})
    return [git(root, "rev-parse", f"refs/heads/c{i}") for i in range(len(commits))]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(commits=dags(), commit_graph=st.booleans(), data=st.data())
def test_slices_equal_the_per_commit_git_log(tmp_path_factory, commits, commit_graph, data):
    root = tmp_path_factory.mktemp("dag") / "repo.git"
    git(root.parent, "init", "-q", "--bare", str(root))
    hashes = _fast_import(root, commits)
    if commit_graph:
        git(root, "commit-graph", "write", "--reachable")
    source = GitSource(root, root)
    order = data.draw(st.permutations(range(len(hashes))))
    split = data.draw(st.integers(0, len(hashes)))
    log = RepoLog(source)
    log.load(hashes[i] for i in order[:split])
    for i in order[split:]:
        log.load([hashes[i]])
    n = data.draw(st.integers(1, 4))
    for base in hashes:
        assert log.history(base) == read_history(source, base)
        assert log.change_log(base) == read_change_log(source, base)
        assert log.history(base, n) == read_history(source, base, n)
        assert log.change_log(base, n) == read_change_log(source, base, n)


def _two_branches(tmp_path):
    """main: m0..m3 (m2 merges side s0, s1, whose times lie between m0's and m1's); returns (repos dir, hashes)."""
    repos = tmp_path / "repos"
    root = repos / "owner__proj.git"
    repos.mkdir()
    git(repos, "init", "-q", "--bare", str(root))
    commits = [([], {"a.py": 0}, T0), ([0], {"a.py": 1}, T0 + 300), ([0], {"pkg/b.py": 2}, T0 + 100),
               ([2], {"notes.txt": 3}, T0 + 200), ([1, 3], {"a.py": 4}, T0 + 400), ([4], {"pkg/b.py": 5}, T0 + 500)]
    return repos, _fast_import(root, commits)


def test_a_sweep_reads_each_repository_log_once(tmp_path):
    repos, hashes = _two_branches(tmp_path)
    cache = SnapshotCache(tmp_path / "cache", repos)
    cache.expect("owner/proj", hashes)
    for base in hashes:
        got = cache.inputs("owner/proj", base, set(INPUT_NAMES))
        paths = sorted({s.path for s in cache.graph("owner/proj", base).symbols if not s.is_test})
        want = read_inputs(cache.source("owner/proj"), base, set(INPUT_NAMES), paths)
        assert got.file_history == want.file_history and got.change_log == want.change_log
        assert got.line_history.keys() == want.line_history.keys()
    assert cache.history_log("owner/proj", hashes[-1]).git_calls == 3  # one load: graph + files, .py commits, diffs
    # without the announcement each new base reads only the commits it adds
    cold = SnapshotCache(tmp_path / "cache2", repos)
    for base in (hashes[1], hashes[-1]):
        cold.inputs("owner/proj", base, {"file_history"})
    log = cold.history_log("owner/proj", hashes[-1])
    assert log.git_calls == 4 and len(log._hashes) == len(hashes)


def test_an_unloaded_or_missing_commit_is_an_error(tmp_path):
    repos, hashes = _two_branches(tmp_path)
    source = GitSource(repos / "owner__proj.git", repos / "owner__proj.git")
    log = RepoLog(source)
    log.load([hashes[3]])
    assert hashes[1] not in log and hashes[2] in log
    with pytest.raises(KeyError, match="not loaded"):
        log.history(hashes[1])
    with pytest.raises(GitError):
        log.load(["0" * 40])
    assert log.history(hashes[3]) == read_history(source, hashes[3])  # the failed load left the log as it was
    with pytest.raises(ValueError, match="n must be >= 1"):
        log.change_log(hashes[3], 0)
    # an announced commit the repository lacks does not fail another commit's read
    cache = SnapshotCache(tmp_path / "cache", repos)
    cache.expect("owner/proj", ["0" * 40])
    assert cache.inputs("owner/proj", hashes[5], {"change_log"}).change_log == read_change_log(source, hashes[5])
