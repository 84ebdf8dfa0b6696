"""Temporary folders a job owns: created under ``TMPDIR``, removed when the job ends, swept if it was killed.

A job's scratch folder (snapshots, a server log, a reproduction nobody asked
to keep) is :func:`owned_tempdir`: a context manager whose folder is removed
when the block ends, normally, on an exception or on ``KeyboardInterrupt``.
A process killed outright (``SIGKILL``, the machine's OOM killer) runs no
cleanup, so the folder is named ``<prefix><pid>.<host>-<random>`` (``host``:
a short hash of the machine's name) and the next
:func:`owned_tempdir` (or :func:`make_owned_tempdir`) with the same prefix
removes the folders of that prefix whose process is gone
(:func:`sweep_stale`). A folder whose pid is alive, that another machine
made, or whose name carries no pid (made by an older Beacon, or by hand), is
never touched.

What a user asked to keep (``--out``, ``work_dir``) or needs after the job
belongs in the run's own folder, never here. (:mod:`beacon.repair.pytest_runner`
keeps its own older scheme for its per-run folders, ``beacon-pytest-<pid>-*``.)
"""
from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


def remove_tree(path: os.PathLike | str) -> None:
    """Remove ``path`` (best effort, never raises): read-only files and folders are made writable first, and a
    tree too deep for ``shutil.rmtree``'s recursion goes by ``rm -rf``."""

    def retry(func, name, _exc):
        try:
            os.chmod(os.path.dirname(name), stat.S_IRWXU)
            if not os.path.islink(name):
                os.chmod(name, stat.S_IRWXU)
            func(name)
        except OSError:
            pass

    try:
        shutil.rmtree(path, **({"onexc": retry} if sys.version_info >= (3, 12) else {"onerror": retry}))
    except FileNotFoundError:
        pass
    except (RecursionError, OSError):
        subprocess.run(["rm", "-rf", "--", os.fspath(path)], check=False, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _host() -> str:
    """A short hash of this machine's name: a ``TMPDIR`` on storage other machines share must not lose a live
    folder because its pid is free here."""
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _owner(name: str, prefix: str) -> int | None:
    """The pid in ``<prefix><pid>.<host>-<random>`` made on this machine, else None."""
    if not name.startswith(prefix):
        return None
    tag, sep, rest = name[len(prefix):].partition("-")
    pid, dot, host = tag.partition(".")
    return int(pid) if sep and rest and dot and pid.isdigit() and host == _host() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process (or not a pid we can ask about): leave its folder
    return True


# A byte that may continue a folder name: a command line naming ``/tmp/beacon-x-ab`` must not be taken for one
# naming ``/tmp/beacon-x-abc``.
_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def _names(command: bytes, needles: tuple[bytes, ...]) -> bool:
    for needle in needles:
        at = command.find(needle)
        while at >= 0:
            end = at + len(needle)
            if end == len(command) or command[end] not in _NAME_BYTES:
                return True
            at = command.find(needle, end)
    return False


def _process(pid: str) -> tuple[bytes, int, int, str] | None:
    """``(command line, real uid, process group, state)`` of ``/proc/<pid>``, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            command = fh.read()
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()  # after the name, which may hold spaces and parens
        with open(f"/proc/{pid}/status", "rb") as fh:
            uid = next(int(line.split()[1]) for line in fh if line.startswith(b"Uid:"))
    except (OSError, StopIteration, IndexError, ValueError):
        return None
    return command, uid, int(fields[2]), fields[0].decode()


def kill_processes_naming(folder: os.PathLike | str) -> list[int]:
    """SIGKILL this user's processes whose command line names ``folder``, and their process groups where the
    group's leader names it too or is gone; the pids killed.

    For the folder of a job that is gone (killed outright): what it started may outlive it. A test run's sandbox
    names its folders in every command line (bubblewrap's mounts, pytest's plugin and report paths), and
    bubblewrap's inner process, the sandbox's pid 1, was seen left waiting after a ``kill -9`` of the job (most
    likely the kill landed while bubblewrap was making the sandbox, before its parent-death signal was set).
    Killing it takes down the whole sandbox (its pid namespace); killing the group takes the rest of a run without
    a sandbox (a test's own children name nothing). Only the owner's processes are looked at, and never this one's
    own group."""
    needles = tuple(dict.fromkeys(os.fsencode(p) for p in (os.fspath(folder), os.path.realpath(folder))))
    me, my_group, my_uid = os.getpid(), os.getpgrp(), os.getuid()
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit() and int(name) != me]
    except OSError:
        return []
    matches = {}  # pid -> its process group, all read before anything is killed: a dying leader's command line
    for pid in pids:  # reads empty, which would hide its group
        seen = _process(pid)
        if seen is not None and seen[1] == my_uid and seen[3] != "Z" and _names(seen[0], needles):
            matches[int(pid)] = seen[2]
    groups = set()
    for group in set(matches.values()):
        if group > 1 and group != my_group:
            leader = _process(str(group))
            if group in matches or leader is None or leader[3] == "Z":
                groups.add(group)
    killed = []
    for pid in matches:
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except (ProcessLookupError, PermissionError):
            continue
    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return killed


def sweep_stale(prefix: str, root: os.PathLike | str | None = None) -> list[Path]:
    """Remove the ``<root>/<prefix><pid>.<host>-*`` folders of this machine whose process is gone (``root``:
    ``TMPDIR``), after killing what still runs in them (:func:`kill_processes_naming`); the paths removed."""
    base = Path(root if root is not None else tempfile.gettempdir())
    try:
        entries = list(base.iterdir())
    except OSError:
        return []
    removed = []
    for entry in entries:
        pid = _owner(entry.name, prefix)
        if pid is None or pid == os.getpid() or _alive(pid) or not entry.is_dir() or entry.is_symlink():
            continue
        kill_processes_naming(entry)
        remove_tree(entry)
        removed.append(entry)
    return removed


def make_owned_tempdir(prefix: str) -> Path:
    """A fresh ``<TMPDIR>/<prefix><pid>.<host>-<random>``, after sweeping the prefix's stale folders; the caller
    removes it (use :func:`owned_tempdir` where a ``with`` block fits)."""
    sweep_stale(prefix)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}.{_host()}-"))


@contextmanager
def owned_tempdir(prefix: str) -> Iterator[Path]:
    """``with owned_tempdir("beacon-work-") as work:`` a fresh folder, removed when the block ends however it ends."""
    path = make_owned_tempdir(prefix)
    try:
        yield path
    finally:
        remove_tree(path)
