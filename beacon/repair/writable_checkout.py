"""What a run without the sandbox may leave in its checkout, undone before the plain run.

Under bubblewrap the checkout is read-only, so nothing a run does there outlives it. Without the sandbox
(``sandbox: auto`` on a machine without a working bubblewrap, ``sandbox: off``) the tests, the code under test and the
oracle's pristine calls may write into it, and the plain run (:func:`beacon.repair.pytest_runner._plain_run`), made
in the same checkout, would read what the full run left: a ledger file the pristine call appended to (red-team round
69's ``p05``), a folder an honest test made and makes again (the review's ``c3``: ``FileExistsError`` in the plain
run), the declared source itself rewritten with a fixed copy of the code (``p10``: the plain run and the replay then
imported code the edit never showed), or a file's mode, times or hard links (session 51's review and red-team round
71: ``os.fchmod``, ``os.utime`` and ``os.link`` by a pristine call carried into the plain run, as did the checkout
folder's own mode; an honest test's executable script lost its execute bit, a make-like rebuild looked fresh, and two
copies a dedupe test links stayed linked). :func:`snapshot` reads every file, link and folder of the checkout before
the run (``.git`` aside), with each file's and folder's mode, modification and access times and the other paths a
file shares its inode with, and the checkout folder's own mode and times (``"."``), and :func:`restore` puts each
back as it was, removing what the run added (a changed file is written anew, never through the inode it may now
share); the declared sources it had to put back are named, and
:func:`beacon.repair.pytest_runner.run_pytest` records them as integrity violations (a test suite does not rewrite
the code it tests). Both walk without recursion (a run may leave a tree thousands of folders deep) and make a folder
the run closed to its owner readable and writable again to put it back; what they still cannot read or put back (a
path past the system's length limit) raises :class:`CheckoutError`, which the runner records as an integrity
violation: the run is refused, never the harness crashed.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

# Entries: ("file", bytes or None, mode, mtime_ns, the other paths sharing its inode, atime_ns) — None for a file
# whose size differs from the snapshot's (changed whatever it holds: never read, so a sparse terabyte costs nothing);
# ("link", target); ("folder", mode, mtime_ns, atime_ns); ("other", file type bits) for a FIFO, socket or device (never
# opened: a FIFO's open would wait for a writer). The access time is the last field and is put back, but a change of
# it alone is no change (``_same``): reading a file moves it.
_FILE, _LINK, _FOLDER, _OTHER = "file", "link", "folder", "other"
_OWNER_ALL = stat.S_IRWXU
_ROOT = "."  # the checkout folder itself (its mode and times)


class CheckoutError(OSError):
    """The checkout could not be read or put back (a path too long, a file that stays unreadable)."""


def snapshot(checkout: Path) -> dict[str, tuple]:
    """Every entry under ``checkout`` but ``.git``, and the checkout folder itself as ``"."``: relative path ->
    ``("file", bytes, mode, mtime_ns, linked paths, atime_ns)``, ``("link", target)``, ``("folder", mode, mtime_ns,
    atime_ns)`` or ``("other", type bits)``."""
    return _entries(checkout, None)


def _same(one: tuple | None, other: tuple | None) -> bool:
    """Two entries alike but for their access times."""
    if one is None or other is None or one[0] != other[0] or one[0] not in (_FILE, _FOLDER):
        return one == other
    return one[:-1] == other[:-1]


def _entries(checkout: Path, before: dict | None) -> dict[str, tuple]:
    """:func:`snapshot`'s walk, depth first with a stack of its own; with ``before``, a file is read only when
    ``before`` holds a file of its size there."""
    entries: dict[str, tuple] = {}
    root = str(checkout)
    stack = [root]
    inodes: dict[tuple, list] = {}  # (device, inode) -> the paths of a file with more than one link
    try:
        found = os.lstat(root)
        entries[_ROOT] = (_FOLDER, stat.S_IMODE(found.st_mode), found.st_mtime_ns, found.st_atime_ns)
        while stack:
            folder = stack.pop()
            for entry in sorted(_listed(folder), key=lambda e: e.name):
                if folder == root and entry.name == ".git":
                    continue
                path = entry.path
                rel = os.path.relpath(path, root)
                found = os.lstat(path)
                mode = found.st_mode
                if stat.S_ISLNK(mode):
                    entries[rel] = (_LINK, os.readlink(path))
                elif stat.S_ISDIR(mode):
                    entries[rel] = (_FOLDER, stat.S_IMODE(mode), found.st_mtime_ns, found.st_atime_ns)
                    stack.append(path)
                elif not stat.S_ISREG(mode):
                    entries[rel] = (_OTHER, stat.S_IFMT(mode))
                else:
                    kept = before.get(rel) if before is not None else None
                    same_size = before is None or (kept is not None and kept[0] == _FILE and kept[1] is not None
                                                   and len(kept[1]) == found.st_size)
                    entries[rel] = (_FILE, _read(path, mode) if same_size else None, stat.S_IMODE(mode),
                                    found.st_mtime_ns, (), found.st_atime_ns)
                    if found.st_nlink > 1:
                        inodes.setdefault((found.st_dev, found.st_ino), []).append(rel)
    except (OSError, RecursionError) as exc:
        raise CheckoutError(f"the checkout could not be read ({type(exc).__name__}: {exc})") from exc
    for paths in inodes.values():  # (which other paths of the checkout are the same file)
        for rel in paths:
            kind, data, mode, mtime, _, atime = entries[rel]
            entries[rel] = (kind, data, mode, mtime, tuple(sorted(p for p in paths if p != rel)), atime)
    return entries


def _listed(folder: str) -> list:
    """The entries of ``folder``; one the run closed to its owner is opened to it first (its mode is put back with
    the folder's by :func:`restore`)."""
    try:
        with os.scandir(folder) as listing:
            return list(listing)
    except PermissionError:
        os.chmod(folder, stat.S_IMODE(os.lstat(folder).st_mode) | _OWNER_ALL)
        with os.scandir(folder) as listing:
            return list(listing)


def _read(path: str, mode: int) -> bytes:
    """A file's bytes (its access time left alone where the system lets its owner); one its owner may not read is read
    with the owner's read bit set for the moment."""
    try:
        return _read_bytes(path)
    except PermissionError:
        os.chmod(path, stat.S_IMODE(mode) | stat.S_IRUSR)
        try:
            return _read_bytes(path)
        finally:
            os.chmod(path, stat.S_IMODE(mode))


def _read_bytes(path: str) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOATIME)
    except PermissionError:  # (O_NOATIME is the owner's: a file of another user's is read as it is)
        fd = os.open(path, os.O_RDONLY)
    with open(fd, "rb") as handle:
        return handle.read()


def restore(checkout: Path, before: dict[str, tuple]) -> list[str]:
    """Put ``checkout`` back as :func:`snapshot` read it; the relative paths that differed (changed, added, removed,
    or only a mode or modification time), sorted. Raises :class:`CheckoutError` when that cannot be done."""
    now = _entries(checkout, before)
    changed = sorted(rel for rel in set(before) | set(now) if not _same(before.get(rel), now.get(rel)))
    root = str(checkout)
    try:
        for rel in reversed(changed):  # what the run made goes first, deepest first (a folder after its entries)
            was, found = before.get(rel), now.get(rel)
            if rel == _ROOT or found is None or (was is not None and was[0] == found[0] == _FOLDER):
                continue  # (gone already, or a folder still: its entries, mode and times are put back below)
            path = os.path.join(root, rel)
            _open_folder(os.path.dirname(path))
            if found[0] == _FOLDER:
                os.rmdir(path)  # (empty: every entry under it was listed, and deeper, so went first)
            else:
                os.unlink(path)
        for rel in changed:  # then what was there, shallowest first (a folder before its entries)
            was, found = before.get(rel), now.get(rel)
            if rel == _ROOT or was is None or was[0] == _OTHER:
                continue  # (a FIFO or socket of the checkout itself that the run removed: not made again)
            path = os.path.join(root, rel)
            same_kind = found is not None and found[0] == was[0]
            if was[0] == _FOLDER:
                if not same_kind:
                    _open_folder(os.path.dirname(path))
                    os.mkdir(path)
                continue  # (its mode and time last: putting its entries back changes its time)
            if was[0] == _LINK:
                _open_folder(os.path.dirname(path))
                os.symlink(was[1], path)
                continue
            # (a changed file was unlinked above and is written anew: never through an inode another path may share
            # now, round 71's d03; the links it had are made again below)
            _open_folder(os.path.dirname(path))
            with open(path, "wb") as handle:
                handle.write(was[1])
            os.chmod(path, was[2])
            os.utime(path, ns=(was[5], was[3]))
        for rel in changed:  # the hard links the snapshot found, made again to the first path of each
            was = before.get(rel)
            if was is not None and was[0] == _FILE and was[4] and was[4][0] < rel:
                path, first = os.path.join(root, rel), os.path.join(root, was[4][0])
                if not os.path.samefile(path, first):
                    os.unlink(path)
                    os.link(first, path)
        # every folder's mode and time as the snapshot read them, deepest first (a folder's time moves when an entry
        # in it is made or removed, never when a folder in it is touched)
        # (the checkout folder last), and every file's access time (round 71's d01: one set through a descriptor)
        for rel in [*sorted((r for r, was in before.items() if was[0] == _FOLDER and r != _ROOT), reverse=True), _ROOT]:
            path = os.path.join(root, rel)
            found = os.lstat(path)
            if stat.S_IMODE(found.st_mode) != before[rel][1]:
                os.chmod(path, before[rel][1])
            if (found.st_mtime_ns, found.st_atime_ns) != (before[rel][2], before[rel][3]):
                os.utime(path, ns=(before[rel][3], before[rel][2]))
        for rel, was in before.items():
            if was[0] == _FILE and rel in now and now[rel][0] == _FILE and now[rel][5] != was[5] \
                    and rel not in changed:
                os.utime(os.path.join(root, rel), ns=(was[5], was[3]))
    except (OSError, RecursionError) as exc:
        raise CheckoutError(f"the checkout could not be put back ({type(exc).__name__}: {exc})") from exc
    return changed


def _open_folder(folder: str) -> None:
    """Let its owner add and remove entries in ``folder`` (a folder the run made read-only: its mode is put back
    after, or it goes)."""
    mode = stat.S_IMODE(os.lstat(folder).st_mode)
    if mode & _OWNER_ALL != _OWNER_ALL:
        os.chmod(folder, mode | _OWNER_ALL)
