"""Find the indexable ``.py`` files of a tree, and record what is skipped and why.

Files that cannot be indexed are recorded as ``Skipped`` with the reason:
files over ``max_file_bytes``, unreadable ones, and symlinks (never followed:
outside the repository, looping, or duplicates of a file inside it). Folders
whose name starts with a dot, ``__pycache__``, ``node_modules`` and
``site-packages`` are not entered.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from .symbols import Skipped

_PRUNED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})


def scan(root: Path, max_file_bytes: int) -> tuple[list[str], list[Skipped]]:
    """Relative POSIX paths of indexable ``.py`` files, and what was skipped."""
    found, skipped, _ = scan_with_stats(Path(root), max_file_bytes)
    return found, skipped


def scan_with_stats(root: Path, max_file_bytes: int) -> tuple[list[str], list[Skipped], dict[str, os.stat_result]]:
    """``scan`` plus each found file's ``lstat`` (which ``GraphBuilder.build`` reuses).

    Same rules as ``os.walk(followlinks=False)``, but with ``os.scandir``,
    strings and one ``lstat`` per file instead of ``Path`` objects and two
    syscalls: this walk runs on every rebuild. Unreadable directories are
    left out, as ``os.walk`` does.
    """
    root = root.resolve()
    found: list[str] = []
    skipped: list[Skipped] = []
    stats: dict[str, os.stat_result] = {}
    pending = [(str(root), "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir()  # follows symlinks, as os.walk does
            except OSError:
                is_dir = False
            if is_dir:
                if name.startswith(".") or name in _PRUNED_DIRS:
                    continue
                if entry.is_symlink():
                    skipped.append(Skipped(prefix + name, _symlink_reason(Path(entry.path), root, "directory")))
                    continue
                pending.append((entry.path, prefix + name + "/"))
            elif not name.endswith(".py") and entry.is_symlink() and not os.path.exists(entry.path):
                # A link that cannot be resolved (a loop such as dir_a -> dir_b -> dir_a, or a
                # dangling link) is neither a file nor a folder: record it rather than drop it.
                skipped.append(Skipped(prefix + name, _symlink_reason(Path(entry.path), root, "unresolvable")))
            elif name.endswith(".py"):
                rel = prefix + name
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError as exc:
                    skipped.append(Skipped(rel, f"unreadable: {exc.strerror}"))
                    continue
                if stat.S_ISLNK(st.st_mode):
                    skipped.append(Skipped(rel, _symlink_reason(Path(entry.path), root, "file")))
                    continue
                if st.st_size > max_file_bytes:
                    skipped.append(Skipped(rel, f"too large: {st.st_size} bytes > limit {max_file_bytes}"))
                    continue
                found.append(rel)
                stats[rel] = st
    found.sort()
    skipped.sort(key=lambda s: s.path)
    return found, skipped, stats


def _symlink_reason(full: Path, root: Path, what: str) -> str:
    try:
        target = full.resolve(strict=True)
    except RuntimeError:
        return f"symlink loop ({what}); not followed"
    except OSError as exc:
        if "loop" in str(exc).lower() or getattr(exc, "errno", None) == 40:
            return f"symlink loop ({what}); not followed"
        return f"broken symlink ({what}); not followed"
    if not target.is_relative_to(root):
        return f"symlink pointing outside the repository ({what}); not followed"
    return f"symlink to {target.relative_to(root).as_posix()} inside the repository ({what}); not followed"
