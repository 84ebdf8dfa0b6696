"""Evict whole cache folders, least recently used first, down to a size limit: graph index stores and snapshots.

Both kinds are one folder per key two levels below their root. A graph's indexes live in
``<cache>/indexes/<digest[:2]>/<digest>/`` (``index_store``); a sympy-sized graph's store is ~125 MB. A base
commit's extracted tree lives in ``<cache>/snapshots/<owner__repo>/<commit>/`` (``SnapshotCache.snapshot``);
a large repository's is tens of MB. A sweep over many base commits leaves one of each per commit, so a
long-lived cache grows without bound. ``prune`` and ``prune_snapshots`` remove whole folders (never single
files: a store missing one member would just rebuild it, but a half-evicted folder saves nothing) in order of
their ``last_used`` stamp (a folder without one counts by its own mtime). An index store's stamp is a file in
its folder, touched whenever a process opens the store; a snapshot's is the file ``<commit>.last_used`` beside
its tree (``snapshot_stamp``), touched whenever the cache hands the tree out; it is never inside the tree,
which must stay byte-identical to the commit (a graph build scans every file of it).

A folder is renamed out of the way before it is deleted, so a concurrent reader sees a whole folder or none,
and a process that already opened its files keeps them (POSIX unlink semantics); what a process asks for
afterwards is rebuilt (a store's members) or extracted again (a snapshot), never read half-deleted.
"""
from __future__ import annotations

import os
import re
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .index_store import LAST_USED

_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?", re.IGNORECASE)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
SNAPSHOT_STAMP = ".last_used"  # suffix of the stamp beside a snapshot tree: ``<commit>.last_used``
# a snapshot is extracted into a ``.tmp-*`` folder and renamed into place; one older than this outlived the
# process extracting it (an extraction takes seconds to minutes), so it is only disk space
STALE_TMP_S = 3600


@dataclass(frozen=True)
class CachedFolder:
    folder: Path
    bytes: int
    last_used: float  # seconds since the epoch


GraphStore = CachedFolder  # the name index stores were first listed under


def parse_size(text: str) -> int:
    """``"2G"``, ``"500M"``, ``"1.5GiB"``, ``"123"`` (bytes) -> bytes; anything else is a ValueError."""
    m = _SIZE.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"size {text!r}: expected a number with an optional K, M, G or T suffix (e.g. 2G)")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def snapshot_stamp(tree: Path) -> Path:
    """Where a snapshot tree's ``last_used`` stamp is: beside the tree, never inside it."""
    return tree.with_name(tree.name + SNAPSHOT_STAMP)


def mark_used(stamp: Path) -> None:
    """Touch ``stamp`` now (a cache on a read-only disk is still usable; it is only never pruned by recency)."""
    try:
        stamp.touch()
    except OSError:
        pass


def _size(folder: Path) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(folder) for f in files)


def _subfolders(folder: Path) -> list[Path]:
    # hidden names are work in progress (``.tmp-*``) or on their way out (``.prune-*``), never a cached key
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")) \
        if folder.is_dir() else []


def _listed(root: Path | str, stamp_of: Callable[[Path], Path]) -> list[CachedFolder]:
    found = []
    for group in _subfolders(Path(root)):
        for folder in _subfolders(group):
            stamp = stamp_of(folder)
            found.append(CachedFolder(folder, _size(folder), (stamp if stamp.exists() else folder).stat().st_mtime))
    return sorted(found, key=lambda s: (s.last_used, str(s.folder)))


def graph_stores(root: Path | str) -> list[CachedFolder]:
    """Every graph folder under ``root`` with its size on disk and last use, least recently used first."""
    return _listed(root, lambda folder: folder / LAST_USED)


def snapshots(root: Path | str) -> list[CachedFolder]:
    """Every snapshot tree under ``root`` (``<cache>/snapshots``) with its size and last use, least recent first."""
    return _listed(root, snapshot_stamp)


def stale_extractions(root: Path | str) -> list[CachedFolder]:
    """The ``.tmp-*`` folders under ``root`` last changed (mtime) more than ``STALE_TMP_S`` seconds ago."""
    cutoff = time.time() - STALE_TMP_S
    found = []
    for group in _subfolders(Path(root)):
        for tmp in sorted(p for p in group.glob(".tmp-*") if p.is_dir()):
            mtime = tmp.stat().st_mtime
            if mtime < cutoff:
                found.append(CachedFolder(tmp, _size(tmp), mtime))
    return found


def _remove(folder: Path) -> None:
    trash = folder.parent / f".prune-{os.getpid()}-{uuid.uuid4().hex}"
    try:
        os.rename(folder, trash)  # gone from its name at once, deleted at leisure
    except FileNotFoundError:  # another pruner took it first
        return
    shutil.rmtree(trash, ignore_errors=True)


def _evict(found: list[CachedFolder], max_bytes: int, dry_run: bool,
           stamp_beside: Callable[[Path], Path] | None = None) -> tuple[list[CachedFolder], int]:
    total = sum(s.bytes for s in found)
    removed = []
    for entry in found:
        if total <= max_bytes:
            break
        if not dry_run:
            _remove(entry.folder)
            if stamp_beside is not None:  # a stamp outside the folder would outlive it
                stamp_beside(entry.folder).unlink(missing_ok=True)
        removed.append(entry)
        total -= entry.bytes
    return removed, total


def prune(root: Path | str, max_bytes: int, dry_run: bool = False) -> tuple[list[CachedFolder], int]:
    """Remove the least recently used graph stores until the rest fit in ``max_bytes``.

    Returns the stores removed (or, with ``dry_run``, that would be) and the bytes kept.
    """
    return _evict(graph_stores(root), max_bytes, dry_run)


def prune_snapshots(root: Path | str, max_bytes: int, dry_run: bool = False,
                    ) -> tuple[list[CachedFolder], int, list[CachedFolder]]:
    """Remove stale ``.tmp-*`` extractions, then the least recently used snapshots until the rest fit.

    ``root`` is a cache's ``snapshots`` folder. Returns the snapshots removed (or, with ``dry_run``, that would
    be), the bytes of snapshots kept, and the stale extractions removed (or that would be).
    """
    stale = stale_extractions(root)
    if not dry_run:
        for tmp in stale:
            _remove(tmp.folder)
    return (*_evict(snapshots(root), max_bytes, dry_run, snapshot_stamp), stale)
