"""Evict whole graph stores from an index-store root, least recently used first, down to a size limit.

Each graph's indexes live in ``<root>/<digest[:2]>/<digest>/`` (``index_store``); a sympy-sized graph's
store is ~125 MB and a sweep over many base commits leaves one per commit, so a long-lived cache grows
without bound. ``prune`` removes whole graph folders (never single members: a store missing one
member would just rebuild it, but a half-evicted store saves nothing) in order of their ``last_used``
stamp (touched whenever a process opens the store; a store without one counts by its folder's mtime).
A folder is renamed out of the way before it is deleted, so a concurrent reader sees a whole store or
none, and a process that already mapped its arrays keeps them (POSIX unlink semantics); a store it
opens afterwards is rebuilt and written again, never read half-deleted.
"""
from __future__ import annotations

import os
import re
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

from .index_store import LAST_USED

_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?", re.IGNORECASE)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


@dataclass(frozen=True)
class GraphStore:
    folder: Path
    bytes: int
    last_used: float  # seconds since the epoch


def parse_size(text: str) -> int:
    """``"2G"``, ``"500M"``, ``"1.5GiB"``, ``"123"`` (bytes) -> bytes; anything else is a ValueError."""
    m = _SIZE.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"size {text!r}: expected a number with an optional K, M, G or T suffix (e.g. 2G)")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def graph_stores(root: Path | str) -> list[GraphStore]:
    """Every graph folder under ``root`` with its size on disk and last use, least recently used first."""
    root = Path(root)
    found = []
    for shard in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")) \
            if root.is_dir() else ():
        for folder in sorted(p for p in shard.iterdir() if p.is_dir() and not p.name.startswith(".")):
            size = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(folder) for f in files)
            stamp = folder / LAST_USED
            found.append(GraphStore(folder, size, (stamp if stamp.exists() else folder).stat().st_mtime))
    return sorted(found, key=lambda s: (s.last_used, str(s.folder)))


def prune(root: Path | str, max_bytes: int, dry_run: bool = False) -> tuple[list[GraphStore], int]:
    """Remove the least recently used graph stores until the rest fit in ``max_bytes``.

    Returns the stores removed (or, with ``dry_run``, that would be) and the bytes kept.
    """
    stores = graph_stores(root)
    total = sum(s.bytes for s in stores)
    removed = []
    for store in stores:
        if total <= max_bytes:
            break
        if not dry_run:
            trash = store.folder.parent / f".prune-{os.getpid()}-{uuid.uuid4().hex}"
            os.rename(store.folder, trash)  # gone from its name at once, deleted at leisure
            shutil.rmtree(trash, ignore_errors=True)
        removed.append(store)
        total -= store.bytes
    return removed, total
