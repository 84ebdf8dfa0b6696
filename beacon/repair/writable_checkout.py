"""What a run without the sandbox may leave in its checkout, undone before the plain run.

Under bubblewrap the checkout is read-only, so nothing a run does there outlives it. Without the sandbox
(``sandbox: auto`` on a machine without a working bubblewrap, ``sandbox: off``) the tests, the code under test and the
oracle's pristine calls may write into it, and the plain run (:func:`beacon.repair.pytest_runner._plain_run`), made
in the same checkout, would read what the full run left: a ledger file the pristine call appended to (red-team round
69's ``p05``), a folder an honest test made and makes again (the review's ``c3``: ``FileExistsError`` in the plain
run), or the declared source itself rewritten with a fixed copy of the code (``p10``: the plain run and the replay
then imported code the edit never showed). :func:`snapshot` reads every file, link and folder of the checkout before
the run (``.git`` aside) and :func:`restore` puts each back as it was, removing what the run added; the declared
sources it had to put back are named, and :func:`beacon.repair.pytest_runner.run_pytest` records them as integrity
violations (a test suite does not rewrite the code it tests).
"""
from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

# A link's target, a folder and anything else (a FIFO, a socket, a device), kept apart from a file's bytes.
_LINK, _FOLDER, _OTHER = "link", ("folder",), ("other",)


def snapshot(checkout: Path) -> dict[str, bytes | tuple]:
    """Every entry under ``checkout`` but ``.git``: relative path -> a file's bytes, ``("link", target)`` for a
    symlink, ``("folder",)`` for a folder, ``("other",)`` for a FIFO, socket or device."""
    return _entries(checkout, None)


def _entries(checkout: Path, before: dict | None) -> dict[str, bytes | tuple]:
    """:func:`snapshot`'s walk; with ``before``, a file is read only when ``before`` holds a file of its size there
    (a file the run made or resized is changed whatever it holds, and is never read: a sparse terabyte costs nothing).
    """
    entries: dict[str, bytes | tuple] = {}
    for folder, dirs, names in os.walk(checkout):
        if folder == str(checkout):
            dirs[:] = [d for d in dirs if d != ".git"]
        for name in names + dirs:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, checkout)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                entries[rel] = (_LINK, os.readlink(path))
            elif stat.S_ISDIR(mode):
                entries[rel] = _FOLDER
            elif not stat.S_ISREG(mode):
                entries[rel] = _OTHER  # (never opened: a FIFO's open would wait for a writer)
            elif before is not None and not (isinstance(before.get(rel), bytes)
                                             and len(before[rel]) == os.lstat(path).st_size):
                entries[rel] = _OTHER  # (unequal to what was there: changed)
            else:
                with open(path, "rb") as handle:
                    entries[rel] = handle.read()
    return entries


def restore(checkout: Path, before: dict[str, bytes | tuple]) -> list[str]:
    """Put ``checkout`` back as :func:`snapshot` read it; the relative paths that differed (changed, added, removed),
    sorted."""
    now = _entries(checkout, before)
    changed = sorted(rel for rel in set(before) | set(now) if before.get(rel) != now.get(rel))
    for rel in reversed(changed):  # what the run made goes first, deepest first (a folder after its files)
        if rel in now:
            path = checkout / rel
            if now[rel] == _FOLDER:
                shutil.rmtree(path)  # (its entries not in ``before`` went already; those in it are written again)
            else:
                path.unlink()
    for rel in changed:  # then what was there, shallowest first (a folder before its files)
        kept = before.get(rel)
        if kept is None:
            continue
        path = checkout / rel
        if kept == _FOLDER:
            path.mkdir(parents=True, exist_ok=True)
            continue
        if kept == _OTHER:
            continue  # (a FIFO or socket of the checkout itself that the run removed: not made again)
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(kept, tuple):
            os.symlink(kept[1], path)
        else:
            path.write_bytes(kept)
    # (entries inside a folder the run removed or replaced were listed as changed too: each was written above)
    return changed
