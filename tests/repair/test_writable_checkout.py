"""``writable_checkout``: whatever a run does to a checkout's files, ``restore`` gives back what ``snapshot`` read.

A property test on real folders: a random tree of files and symlinks, then random changes (rewrite, add, remove, a
file turned into a link or a link into a file, new folders, folders removed, named pipes), then the restore; the tree read again is the first one,
and the paths reported are exactly those that differed.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.repair.writable_checkout import restore, snapshot

NAMES = st.sampled_from(["a.py", "b.txt", "pkg/__init__.py", "pkg/c.py", "pkg/sub/d.json", "e", "tests/test_x.py"])
CONTENT = st.binary(max_size=64)
TREE = st.dictionaries(NAMES, CONTENT, max_size=6)
CHANGE = st.tuples(st.sampled_from(["write", "remove", "link", "add", "folder", "mkdir", "rmtree", "fifo"]), NAMES, CONTENT)


def _write(root: Path, files: dict) -> None:
    for rel, data in files.items():
        path = root / rel
        if path.parent.is_file() or path.parent.is_symlink():
            continue  # (a name whose folder is a file in this draw)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and not path.is_file() and not path.is_dir():
            path.unlink()  # (a named pipe a change made: writing to it would wait for a reader)
        if not path.is_dir():
            path.write_bytes(data)


@settings(max_examples=60, deadline=None)
@given(TREE, st.lists(CHANGE, max_size=8))
def test_restore_gives_back_what_snapshot_read(tree, changes):
    root = Path(tempfile.mkdtemp(prefix="beacon-wc-"))
    try:
        _write(root, tree)
        (root / ".git").mkdir()
        (root / ".git" / "HEAD").write_text("ref", encoding="utf-8")
        os.symlink("a.py", root / "alias.py")
        before = snapshot(root)
        assert ".git/HEAD" not in before and ".git" not in before and before["alias.py"] == ("link", "a.py")
        for kind, rel, data in changes:
            path = root / rel
            if path.is_dir() and not path.is_symlink():
                continue
            if kind == "remove":
                if path.is_symlink() or path.exists():
                    path.unlink()
            elif kind == "link":
                if path.is_symlink() or path.exists():
                    path.unlink()
                if path.parent.is_dir():
                    os.symlink("elsewhere", path)
            elif kind == "fifo":  # a file replaced by a named pipe (round 70's a07: the restore's write waited on it)
                if path.is_symlink() or path.exists():
                    path.unlink()
                if path.parent.is_dir():
                    os.mkfifo(path)
            elif kind == "mkdir":  # an empty folder beside the file (an honest test's ``os.mkdir('made')``)
                if path.parent.is_dir():
                    os.makedirs(str(path) + ".d", exist_ok=True)
            elif kind == "rmtree":  # the file's whole folder removed
                if path.parent != root and path.parent.is_dir() and not path.parent.is_symlink():
                    shutil.rmtree(path.parent)
            elif kind == "folder":  # a file turned into a folder with a file in it
                if path.is_symlink() or path.exists():
                    path.unlink()
                if path.parent.is_dir():
                    _write(root, {rel + "/inner.txt": data})
            else:
                _write(root, {rel: data})
        (root / ".git" / "HEAD").write_text("changed", encoding="utf-8")  # (.git is not the run's to put back)
        during = snapshot(root)
        changed = restore(root, before)
        assert changed == sorted(r for r in set(before) | set(during) if before.get(r) != during.get(r))
        assert snapshot(root) == before
    finally:
        shutil.rmtree(root)
