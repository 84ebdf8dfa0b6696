"""Evicting snapshot trees, least recently used first (``index_prune.prune_snapshots``, ``prune-snapshots``).

Real git repositories and a real ``SnapshotCache``: snapshots are extracted by the cache, pruned on disk, and
extracted again; nothing under test is replaced by a stand-in.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from beacon.__main__ import main
from beacon.localize.instances import SnapshotCache
from beacon.retrieval import assemble_context
from beacon.retrieval.index_prune import STALE_TMP_S, prune_snapshots, snapshot_stamp, snapshots
from repotools import commit_tree, git, write_tree

REPO = "acme/retry"
QUERY = "the retry delay doubles too fast; see the retry_delay function of pkg.retry"
FILES = {
    "pkg/__init__.py": "from .retry import retry\n",
    "pkg/retry.py": "def retry_delay(attempt):\n    return 2 ** attempt\n\n\n"
                    "def retry(call, attempts=3):\n    for n in range(attempts):\n        call(retry_delay(n))\n",
    "docs/usage.rst": "Retrying\n========\n\n"
                      "The retry delay doubles with each attempt, see :func:`pkg.retry.retry_delay`.\n",
}


@pytest.fixture
def three_commits(tmp_path) -> tuple[SnapshotCache, list[str]]:
    """A cache over ``acme/retry`` with three commits, each adding a file (so their trees differ in size)."""
    root, first = commit_tree(tmp_path / "repos" / REPO.replace("/", "__"), FILES, dedent=False)
    commits = [first]
    for n in (1, 2):
        write_tree(root, {f"pkg/extra{n}.py": f"def extra{n}():\n    return {'x' * 1000 * n!r}\n"})
        git(root, "add", "-A")
        git(root, "commit", "-qm", f"extra {n}")
        commits.append(git(root, "rev-parse", "HEAD"))
    return SnapshotCache(tmp_path / "cache", tmp_path / "repos"), commits


def _files(tree: Path) -> dict[str, bytes]:
    return {str(p.relative_to(tree)): p.read_bytes() for p in sorted(tree.rglob("*")) if p.is_file()}


def _committed(cache: SnapshotCache, commit: str) -> dict[str, bytes]:
    """The commit's files as git holds them (the truth a snapshot must equal, byte for byte)."""
    repo = cache.repos_dir / REPO.replace("/", "__")
    names = git(repo, "ls-tree", "-r", "--name-only", commit).splitlines()
    return {n: git(repo, "cat-file", "blob", f"{commit}:{n}", strip=False).encode() for n in names}


def _used_at(cache: SnapshotCache, commit: str, when: float) -> None:
    os.utime(snapshot_stamp(cache.snapshot(REPO, commit)), (when, when))


def test_the_stamp_is_beside_the_tree_never_inside_it(three_commits, monkeypatch):
    cache, (a, _, _) = three_commits
    tree = cache.snapshot(REPO, a)
    stamp = snapshot_stamp(tree)
    assert stamp == tree.parent / f"{a}.last_used" and stamp.is_file()
    os.utime(stamp, (1_000, 1_000))
    assert cache.snapshot(REPO, a) == tree and stamp.stat().st_mtime > 1_000  # handing it out again stamps it
    graph = SnapshotCache(cache.root, cache.repos_dirs).graph(REPO, a)
    assert graph.root == str(tree)
    os.utime(stamp, (1_000, 1_000))
    assert SnapshotCache(cache.root, cache.repos_dirs).graph(REPO, a).root == str(tree)
    assert stamp.stat().st_mtime > 1_000  # a saved graph rooted in the snapshot is a use of it too
    os.utime(stamp, (1_000, 1_000))
    monkeypatch.chdir(cache.root.parent)  # the same cache named by a relative path: the same snapshot
    assert SnapshotCache(Path(cache.root.name), cache.repos_dirs).graph(REPO, a).root == str(tree)
    assert stamp.stat().st_mtime > 1_000
    assert _files(tree) == _committed(cache, a)  # nothing of the cache's own inside the tree
    assert not any(".last_used" in p.name for p in tree.rglob("*"))
    assert sorted(graph.files) == sorted(n for n in _committed(cache, a) if n.endswith(".py"))


def test_the_least_recently_used_snapshots_go_first_and_a_dry_run_removes_nothing(three_commits):
    cache, (a, b, c) = three_commits
    for commit, when in ((a, 300), (b, 100), (c, 200)):  # b used least recently, then c, then a
        _used_at(cache, commit, when)
    root = cache.root / "snapshots"
    listed = snapshots(root)
    assert [s.folder.name for s in listed] == [b, c, a]
    size = {s.folder.name: s.bytes for s in listed}
    assert size[c] > size[b] > size[a] > 0  # an order by size would differ from the order by use
    limit = size[a]
    removed, kept, stale = prune_snapshots(root, limit, dry_run=True)
    assert [s.folder.name for s in removed] == [b, c] and kept == limit and stale == []
    assert [s.folder.name for s in snapshots(root)] == [b, c, a]  # nothing removed
    assert all(snapshot_stamp(s.folder).is_file() for s in listed)
    removed, kept, _ = prune_snapshots(root, limit)
    assert [s.folder.name for s in removed] == [b, c] and kept == limit
    assert [s.folder.name for s in snapshots(root)] == [a]
    assert sorted(p.name for p in (root / REPO.replace("/", "__")).iterdir()) == [a, f"{a}.last_used"]
    _used_at(cache, b, time.time() + 60)  # extracted again and used last: now a goes first
    removed, _, _ = prune_snapshots(root, size[b])
    assert [s.folder.name for s in removed] == [a]


def test_a_snapshot_without_a_stamp_counts_by_its_folder_mtime(three_commits):
    cache, (a, b, _) = three_commits
    for commit, when in ((a, 100), (b, 200)):
        tree = cache.snapshot(REPO, commit)
        snapshot_stamp(tree).unlink()  # as a cache written before stamps existed
        os.utime(tree, (when, when))
    assert [s.folder.name for s in snapshots(cache.root / "snapshots")] == [a, b]
    _used_at(cache, a, 300)
    assert [s.folder.name for s in snapshots(cache.root / "snapshots")] == [b, a]


def test_a_pruned_snapshot_is_extracted_again_byte_identical(three_commits):
    cache, (a, b, _) = three_commits
    before = {c: _files(cache.snapshot(REPO, c)) for c in (a, b)}
    assert before[a] == _committed(cache, a)
    prune_snapshots(cache.root / "snapshots", 0)
    assert snapshots(cache.root / "snapshots") == []
    assert not (cache.root / "snapshots" / REPO.replace("/", "__") / a).exists()
    for commit in (a, b):
        tree = cache.snapshot(REPO, commit)
        assert _files(tree) == before[commit] and snapshot_stamp(tree).is_file()
    prune_snapshots(cache.root / "snapshots", 0)
    graph = SnapshotCache(cache.root, cache.repos_dirs).graph(REPO, b)  # built from a tree extracted again
    assert _files(Path(graph.root)) == before[b]


def test_a_saved_graph_whose_snapshot_was_pruned_is_re_pointed_and_works(three_commits):
    cache, (a, _, _) = three_commits
    fresh = cache.graph(REPO, a)
    expected = {m: assemble_context(fresh, QUERY, m, budget=300) for m in ("docs_only", "bm25")}
    assert expected["docs_only"].ranking  # the docs bridge read the snapshot's docs/usage.rst
    tree = Path(fresh.root)
    contents = _files(tree)
    removed, _, _ = prune_snapshots(cache.root / "snapshots", 0)
    assert [s.folder for s in removed] == [tree] and not tree.exists()
    saved = cache.root / "graphs" / REPO.replace("/", "__") / a / "graph.json"
    assert saved.is_file() and str(tree) in saved.read_text()  # the saved copy still names the pruned tree
    loaded = SnapshotCache(cache.root, cache.repos_dirs).graph(REPO, a)
    assert loaded.root == str(tree) and _files(tree) == contents  # re-pointed at a tree extracted again
    for method, result in expected.items():
        again = assemble_context(loaded, QUERY, method, budget=300)
        assert again.ranking == result.ranking and again.context.render() == result.context.render()


def test_stale_extractions_are_removed_fresh_ones_kept(three_commits):
    cache, (a, _, _) = three_commits
    cache.snapshot(REPO, a)
    folder = cache.root / "snapshots" / REPO.replace("/", "__")
    old, young = folder / ".tmp-old", folder / ".tmp-young"
    for tmp in (old, young):
        write_tree(tmp, {"tree/half.py": "x = 1\n"})
    long_ago = time.time() - STALE_TMP_S - 60
    os.utime(old, (long_ago, long_ago))  # an extraction that died an hour ago; young may still be running
    removed, _, stale = prune_snapshots(cache.root / "snapshots", 1 << 30, dry_run=True)
    assert [s.folder for s in stale] == [old] and removed == [] and old.is_dir()
    removed, _, stale = prune_snapshots(cache.root / "snapshots", 1 << 30)
    assert [s.folder for s in stale] == [old] and removed == []
    assert sorted(p.name for p in folder.iterdir()) == [".tmp-young", a, f"{a}.last_used"]


def test_the_command_prunes_snapshots_and_rejects_bad_input(three_commits, capsys):
    cache, (a, b, _) = three_commits
    _used_at(cache, a, 100)
    _used_at(cache, b, 200)
    cache_dir = str(cache.root)
    assert main(["prune-snapshots", cache_dir, "--max-size", "1G"]) == 0
    assert "removed 0 snapshots" in capsys.readouterr().out
    assert main(["prune-snapshots", cache_dir, "--max-size", "0", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.index(f"would remove\tacme__retry/{a}\t") < out.index(f"would remove\tacme__retry/{b}\t")
    assert "# would remove 2 snapshots" in out and len(snapshots(cache.root / "snapshots")) == 2
    assert main(["prune-snapshots", cache_dir, "--max-size", str(snapshots(cache.root / "snapshots")[1].bytes)]) == 0
    assert f"removed\tacme__retry/{a}\t" in capsys.readouterr().out
    assert [s.folder.name for s in snapshots(cache.root / "snapshots")] == [b]
    with pytest.raises(SystemExit):
        main(["prune-snapshots", cache_dir, "--max-size", "5 lots"])
    assert "expected a number with an optional K, M, G or T suffix" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["prune-snapshots", str(cache.root / "missing"), "--max-size", "5G"])
    assert "not a directory (expected the snapshots of cache folder" in capsys.readouterr().err
