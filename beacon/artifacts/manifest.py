"""``MANIFEST.sha256``: list the files of a run folder, write their hashes, read them back.

One ``<sha256>  <relative posix path>`` line per regular file, sorted by
path, excluding the manifest itself (the ``sha256sum`` text format, so
``sha256sum -c MANIFEST.sha256`` works inside the folder). Symlinks and
special files are never hashed: a sealed run must hold its own bytes.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from ..digests import sha256_file
from .atomic import atomic_write_text
from .runfile import MANIFEST_NAME

_LINE = re.compile(r"(?P<sha>[0-9a-f]{64})  (?P<path>[^\x00-\x1f\x7f\\]+)")
UNSAFE_NAME = re.compile(r"[\x00-\x1f\x7f\\]")  # sha256sum would escape these; keep the format plain


def walk_run(run_dir: Path) -> tuple[list[str], list[str]]:
    """``(regular files, other entries)`` under ``run_dir`` as sorted relative posix paths.

    The manifest itself is left out; "other entries" are symlinks (to files
    or folders, never followed) and special files (FIFOs, sockets, devices).
    """
    files, others = [], []
    for folder, dirs, names in os.walk(run_dir):
        linked_dirs = [d for d in dirs if os.path.islink(os.path.join(folder, d))]
        for name in names + linked_dirs:
            path = Path(folder) / name
            rel = path.relative_to(run_dir).as_posix()
            if rel == MANIFEST_NAME:
                continue
            (files if path.is_file() and not path.is_symlink() else others).append(rel)
    return sorted(files), sorted(others)


def write_manifest(run_dir: Path, files: list[str]) -> Path:
    lines = [f"{sha256_file(run_dir / rel)}  {rel}\n" for rel in sorted(files)]
    return atomic_write_text(run_dir / MANIFEST_NAME, "".join(lines))


def read_manifest(run_dir: Path) -> tuple[dict[str, str], list[str]]:
    """``(relative path -> sha256, problems)``; malformed or unsafe lines are problems, not entries."""
    entries: dict[str, str] = {}
    problems: list[str] = []
    raw = (run_dir / MANIFEST_NAME).read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return {}, [f"{MANIFEST_NAME}: not UTF-8 ({exc})"]
    if text and not text.endswith("\n"):
        problems.append(f"{MANIFEST_NAME}: last line has no newline (truncated manifest?)")
    for lineno, line in enumerate(text.splitlines(), start=1):
        match = _LINE.fullmatch(line)
        if not match:
            problems.append(f"{MANIFEST_NAME}:{lineno}: expected '<64 hex sha256>  <relative path>', got {line!r}")
            continue
        rel = match["path"]
        parts = rel.split("/")
        if rel.startswith("/") or ".." in parts or "" in parts or "." in parts:
            problems.append(f"{MANIFEST_NAME}:{lineno}: path {rel!r} is not a plain relative path inside the run")
        elif rel in entries:
            problems.append(f"{MANIFEST_NAME}:{lineno}: {rel} is listed twice")
        else:
            entries[rel] = match["sha"]
    return entries, problems
