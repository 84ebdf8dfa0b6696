"""Materialise ``repo@commit`` into a fresh directory (``git archive``, never a checkout)."""
from __future__ import annotations

import io
import tarfile
from pathlib import Path

from .git import FULL_HASH, GitError, GitSource


def materialize(source: GitSource, commit: str, dest: Path | str) -> Path:
    """Extract the tree of ``commit`` (a full 40-hex hash) into ``dest`` (new or empty); ``dest`` is returned.

    The caller owns ``dest`` and removes it: a job's work folder
    (:mod:`beacon.repair.prepare`, :mod:`beacon.tasks.validate`), the snapshot
    cache (:class:`beacon.localize.instances.SnapshotCache`), or a test's
    ``tmp_path``. There is no default: a temporary folder made here would have
    no owner. Each attempt should get its own, so nothing an attempt writes can
    leak into the next.
    """
    if not FULL_HASH.fullmatch(commit):
        raise GitError(f"commit must be a full 40-hex hash, got {commit!r}")
    if source.resolve_commit(commit) != commit:
        raise GitError(f"{source.origin}: {commit} does not name a commit")
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise FileExistsError(f"{dest}: snapshot destination must be empty")
    with tarfile.open(fileobj=io.BytesIO(source.archive(commit)), mode="r:") as tar:
        # the "data" filter refuses absolute paths, links escaping dest and device files
        tar.extractall(dest, filter="data")
    return dest


def replace_line(tree: Path | str, path: str, line: int, expected: str, replacement: str) -> None:
    """Replace line ``line`` (1-based) of ``tree/path``, which must read ``expected`` exactly.

    Used to plant a task's mutation in a fresh snapshot (retrieval then sees
    the mutated code) and to apply known repairs. Bytes outside the line,
    including the line ending, are kept.
    """
    file = Path(tree) / path
    data = file.read_bytes().decode("utf-8")
    lines = data.split("\n")
    if not 1 <= line <= len(lines):
        raise ValueError(f"{path}:{line}: no such line ({len(lines)} lines)")
    current = lines[line - 1]
    ending = "\r" if current.endswith("\r") else ""
    if current[: len(current) - len(ending)] != expected:
        raise ValueError(f"{path}:{line}: expected {expected!r}, found {current!r}")
    lines[line - 1] = replacement + ending
    file.write_bytes("\n".join(lines).encode("utf-8"))
