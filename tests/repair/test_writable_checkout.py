"""``writable_checkout``: whatever a run does to a checkout's files, ``restore`` gives back what ``snapshot`` read.

A property test on real folders: a random tree of files and symlinks, then random changes (rewrite, add, remove, a
file turned into a link or a link into a file, new folders, folders removed, named pipes, a file's or a folder's mode
or modification time changed), then the restore; the tree read again is the first one, modes and times included,
and the paths reported are exactly those that differed. And a tree thousands of folders deep (the session 51
review's ``c01``: the recursive walk raised ``RecursionError`` out of the runner), put back by a walk of its own.
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from hypothesis import example, given, settings
from hypothesis import strategies as st

from beacon.repair.writable_checkout import restore, snapshot

NAMES = st.sampled_from(["a.py", "b.txt", "pkg/__init__.py", "pkg/c.py", "pkg/sub/d.json", "e", "tests/test_x.py"])
CONTENT = st.binary(max_size=64)
TREE = st.dictionaries(NAMES, CONTENT, max_size=6)
CHANGE = st.tuples(st.sampled_from(["write", "remove", "link", "add", "folder", "mkdir", "rmtree", "fifo", "chmod",
                                    "touch", "chmod_folder", "touch_folder", "hardlink", "atime", "chmod_root"]),
                   NAMES, CONTENT)


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


def _timeless(entries: dict) -> dict:
    """Entries without their access times (which reading moves: a change of it alone is no change)."""
    return {rel: entry[:-1] if entry[0] in ("file", "folder") else entry for rel, entry in entries.items()}


def _stats(root: Path) -> dict:
    """Each file's and folder's mode, modification and access times, and the paths each file shares its inode with,
    read here (not by the module under test); the checkout folder's own as "."."""
    found = os.lstat(root)
    out: dict = {".": (stat.S_IMODE(found.st_mode), found.st_mtime_ns)}
    inodes: dict = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in dirs + names:
            found = os.lstat(os.path.join(folder, name))
            rel = os.path.relpath(os.path.join(folder, name), root)
            if stat.S_ISREG(found.st_mode):
                inodes.setdefault(found.st_ino, []).append(rel)
                out[rel] = (stat.S_IMODE(found.st_mode), found.st_mtime_ns, found.st_atime_ns)
            elif not stat.S_ISLNK(found.st_mode):
                out[rel] = (stat.S_IMODE(found.st_mode), found.st_mtime_ns)
    for paths in inodes.values():
        for rel in paths:
            out[rel] += (tuple(sorted(paths)),)
    return out


@settings(max_examples=60, deadline=None)
@given(TREE, st.lists(CHANGE, max_size=8))
@example({"a.py": b"x", "b.txt": b"y"}, [("atime", "a.py", b""), ("hardlink", "a.py", b""), ("chmod_root", "e", b"")])
@example({"b.txt": b"y"}, [("write", "b.txt", b"z"), ("remove", "b_again.txt", b"")])
def test_restore_gives_back_what_snapshot_read(tree, changes):
    root = Path(tempfile.mkdtemp(prefix="beacon-wc-"))
    try:
        _write(root, tree)
        (root / ".git").mkdir()
        (root / ".git" / "HEAD").write_text("ref", encoding="utf-8")
        os.symlink("a.py", root / "alias.py")
        if (root / "b.txt").is_file():
            os.link(root / "b.txt", root / "b_again.txt")  # (a hard link the checkout has: made again if broken)
        before, stats = snapshot(root), _stats(root)
        assert ".git/HEAD" not in before and ".git" not in before and before["alias.py"] == ("link", "a.py")
        for kind, rel, data in changes:
            path = root / rel
            if kind == "chmod_root":  # (round 71's d02: the checkout folder's own mode)
                os.chmod(root, 0o700 if len(data) % 2 else 0o750)
                continue
            if kind in ("chmod_folder", "touch_folder"):  # (the session 51 review: modes and times were not put back)
                if path.parent.is_dir() and not path.parent.is_symlink():
                    if kind == "chmod_folder":
                        os.chmod(path.parent, 0o555 if len(data) % 2 else 0o700)
                    else:
                        os.utime(path.parent, ns=(1, 10**18 + len(data)))
                continue
            if path.is_dir() and not path.is_symlink():
                continue
            if kind in ("chmod", "touch", "atime"):
                if path.is_file() and not path.is_symlink():
                    if kind == "chmod":
                        os.chmod(path, (0o755, 0o400, 0o000, 0o640)[len(data) % 4])
                    elif kind == "touch":
                        os.utime(path, ns=(1, 10**18 + len(data)))
                    else:  # (round 71's d01: an access time set through a descriptor)
                        os.utime(path, ns=(10**18 + len(data), os.lstat(path).st_mtime_ns))
                continue
            if kind == "hardlink":  # (round 71's d03 and h01: which paths are one file)
                others = sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink() and p != path
                                and ".git" not in p.parts)
                if others and path.parent.is_dir():
                    if path.is_symlink() or path.exists():
                        path.unlink()
                    os.link(others[len(data) % len(others)], path)
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
        before_, during_ = _timeless(before), _timeless(during)
        assert changed == sorted(r for r in set(before) | set(during) if before_.get(r) != during_.get(r))
        assert snapshot(root) == before and _stats(root) == stats
    finally:
        for folder, _, _ in os.walk(root):
            os.chmod(folder, 0o700)
        shutil.rmtree(root)


def test_a_tree_thousands_of_folders_deep_is_put_back(tmp_path, monkeypatch):
    root = tmp_path / "checkout"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "stock.py").write_text("x = 1\n", encoding="utf-8")
    before = snapshot(root)
    deep = root / "made"
    deep.mkdir()
    monkeypatch.chdir(deep)  # (the test's working folder back at its end)
    for _ in range(1_500):
        os.mkdir("d")
        os.chdir("d")
    Path("leaf.txt").write_bytes(b"deep")
    os.chdir(tmp_path)
    assert len(str(deep)) + 2 * 1_500 < 4_000
    changed = restore(root, before)
    assert changed[:2] == [".", "made"] and len(changed) == 1_503 and snapshot(root) == before
    assert not deep.exists()


AS_OWNER = r'''
import importlib.util, json, os, pathlib, sys
spec = importlib.util.spec_from_file_location("wc", sys.argv[1])
wc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(wc)
root = pathlib.Path(sys.argv[2])
(root / "pkg" / "data").mkdir(parents=True)
(root / "pkg" / "stock.py").write_text("x = 1\n")
(root / "pkg" / "data" / "a.txt").write_text("abc")
(root / "notes.txt").write_text("hello")
os.chmod(root / "notes.txt", 0o000)  # (unreadable to its owner before the run: the snapshot reads it all the same)
before = wc.snapshot(root)
(root / "out").mkdir()
(root / "out" / "f.txt").write_text("x")
os.chmod(root / "out", 0o555)  # a folder the test made, then closed
(root / "pkg" / "data" / "a.txt").write_text("xyz!")
os.chmod(root / "pkg" / "data", 0o000)  # a folder of the checkout rewritten, then closed
changed = wc.restore(root, before)
print(json.dumps({"changed": changed, "same": wc.snapshot(root) == before}))
'''


def test_folders_and_files_closed_to_their_owner_are_put_back(tmp_path):
    # The session 51 review's n1-n6: as anyone but root, a folder the run made read-only or unlistable, or a file it
    # made unreadable, raised PermissionError out of the restore. Run as nobody (root passes every permission check).
    python = next((p for p in ("/usr/bin/python3", sys.executable) if os.access(p, os.X_OK)), None)
    if os.geteuid() != 0 or shutil.which("setpriv") is None or python is None:
        pytest.skip("needs root and setpriv to run the restore as another user")
    shared = Path(tempfile.mkdtemp(prefix="beacon-wc-owner-", dir="/tmp"))
    try:
        os.chmod(shared, 0o755)
        module = shared / "writable_checkout.py"
        shutil.copy(Path(restore.__code__.co_filename), module)
        (shared / "root").mkdir()
        os.chown(shared / "root", 65534, 65534)
        done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", AS_OWNER,
                               str(module), str(shared / "root")], capture_output=True, text=True, timeout=60)
        if "Permission denied" in done.stderr and "spec_from_file_location" not in done.stderr:
            pytest.skip(f"{python} cannot run as nobody here: {done.stderr[-200:]}")
        assert done.returncode == 0, done.stderr
        found = json.loads(done.stdout)
        assert found["same"] and found["changed"] == [".", "out", "out/f.txt", "pkg/data", "pkg/data/a.txt"], found
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", str(shared)], check=False)
        shutil.rmtree(shared)
