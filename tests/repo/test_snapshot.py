"""Snapshots from real git repositories: working tree, bare and bundle; never the caller's tree."""
from __future__ import annotations

from pathlib import Path

import pytest

from beacon.repo import GitError, materialize, open_source, replace_line
from repotools import git


@pytest.fixture
def repo(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    (work / "pkg").mkdir()
    (work / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    git(work, "add", ".")
    git(work, "commit", "-qm", "one")
    first = git(work, "rev-parse", "HEAD")
    (work / "pkg" / "mod.py").write_text("def f():\n    return 2\n")
    git(work, "commit", "-qam", "two")
    second = git(work, "rev-parse", "HEAD")
    # the caller's tree is dirty: an edit and an untracked file that must never leak
    (work / "pkg" / "mod.py").write_text("def f():\n    return 'dirty'\n")
    (work / "untracked.py").write_text("x = 1\n")
    return work, first, second


def state(work):
    return (git(work, "status", "--porcelain"), git(work, "rev-parse", "HEAD"),
            (work / "pkg" / "mod.py").read_text())


def sources(work, tmp_path):
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    bundle = tmp_path / "repo.bundle"
    git(work, "bundle", "create", str(bundle), "--all")
    return {"tree": work, "bare": bare, "bundle": bundle}


def test_every_kind_of_source_gives_the_same_snapshot(repo, tmp_path):
    work, first, second = repo
    before = state(work)
    for kind, path in sources(work, tmp_path).items():
        source = open_source(path, cache_dir=tmp_path / "cache")
        a = materialize(source, first, tmp_path / kind / "a")
        b = materialize(source, second, tmp_path / kind / "b")
        assert (a / "pkg" / "mod.py").read_text() == "def f():\n    return 1\n", kind
        assert (b / "pkg" / "mod.py").read_text() == "def f():\n    return 2\n", kind
        assert not (a / "untracked.py").exists() and not (a / ".git").exists(), kind
        assert a != b
    assert state(work) == before  # the caller's working tree, index and HEAD are untouched


def test_each_attempt_gets_a_fresh_directory(repo, tmp_path):
    work, first, _ = repo
    source = open_source(work)
    one = materialize(source, first, tmp_path / "one")
    (one / "pkg" / "mod.py").write_text("changed by attempt one\n")
    two = materialize(source, first, tmp_path / "two")
    assert one != two and (two / "pkg" / "mod.py").read_text() == "def f():\n    return 1\n"


def test_refuses_short_unknown_and_non_commit_ids(repo, tmp_path):
    work, first, _ = repo
    source = open_source(work)
    with pytest.raises(GitError, match="full 40-hex"):
        materialize(source, first[:12], tmp_path / "short")
    with pytest.raises(GitError):
        materialize(source, "0" * 40, tmp_path / "unknown")
    tree = git(work, "rev-parse", f"{first}^{{tree}}")
    with pytest.raises(GitError):
        materialize(source, tree, tmp_path / "tree")
    dest = tmp_path / "occupied"
    dest.mkdir()
    (dest / "x").write_text("keep me")
    with pytest.raises(FileExistsError):
        materialize(source, first, dest)
    assert (dest / "x").read_text() == "keep me"
    assert not any(tmp_path.glob("short")) and not any(tmp_path.glob("unknown"))  # refused before any folder is made


def test_the_caller_names_and_owns_the_destination(repo, tmp_path):
    """No default destination: a temporary folder made by ``materialize`` would have no owner (each call used to leave
    a ``beacon-<commit>-*`` folder in TMPDIR)."""
    work, first, _ = repo
    with pytest.raises(TypeError):
        materialize(open_source(work), first)  # noqa


def test_not_a_repository(tmp_path):
    with pytest.raises(GitError, match="not a git"):
        open_source(tmp_path)


def test_replace_line_checks_the_expected_text_and_keeps_line_endings(tmp_path):
    (tmp_path / "a.py").write_bytes(b"x = 1\r\ny = 2\r\n")
    replace_line(tmp_path, "a.py", 2, "y = 2", "y = 3")
    assert (tmp_path / "a.py").read_bytes() == b"x = 1\r\ny = 3\r\n"
    with pytest.raises(ValueError, match="expected 'y = 2'"):
        replace_line(tmp_path, "a.py", 2, "y = 2", "y = 4")
    with pytest.raises(ValueError, match="no such line"):
        replace_line(tmp_path, "a.py", 9, "", "z")


def test_real_bundle_from_shared_data(tmp_path):
    bundle = Path(__file__).resolve().parents[2].parent / "shared/data/swebench_lite_dev/repos/psf__requests.bundle"
    if not bundle.exists():
        pytest.skip(f"shared data not present: {bundle}")
    source = open_source(bundle, cache_dir=tmp_path)
    commit = source.resolve_commit("swebench/psf__requests-2317")
    tree = materialize(source, commit, tmp_path / "tree")
    assert (tree / "requests" / "sessions.py").is_file()
    assert b"builtin_str(method)" in source.read_file(commit, "requests/sessions.py")


def test_git_output_ignores_the_callers_gitattributes(repo, tmp_path, monkeypatch):
    from beacon.repo.git import run_git

    work, first, second = repo
    git_dir = work / ".git"  # a working tree's own object database (a bare clone reads no work-tree attributes)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / ".gitattributes").write_text("*.py -diff\n")  # git reads it from the cwd, even with --git-dir
    monkeypatch.chdir(elsewhere)
    numstat = run_git(["log", "--numstat", "--format=", "-n1", second], git_dir=git_dir).decode()
    assert numstat.strip() == "1\t1\tpkg/mod.py"  # not "-\t-\t" (binary)
    assert "Binary files" not in run_git(["diff", first, second], git_dir=git_dir).decode()
