"""SHA-256 of files and bytes: the one helper every layer uses (snapshots, sdists, models, run manifests)."""
from __future__ import annotations

import hashlib
from pathlib import Path

_CHUNK = 1 << 20  # read large files (models, sdists, bundles) in 1 MiB pieces


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path | str) -> str:
    """Hex SHA-256 of a file's bytes, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
