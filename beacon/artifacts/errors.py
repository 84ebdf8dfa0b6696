"""Exceptions raised by ``beacon.artifacts``; every message names the file and what was expected."""
from __future__ import annotations

from pathlib import Path


class ArtifactError(Exception):
    """Base class: something about a run folder prevents a safe read or write."""


class CanonicalJSONError(ValueError, ArtifactError):
    """A value cannot be written as canonical JSON (NaN/inf, non-string key, unknown type)."""


class RecordError(ValueError, ArtifactError):
    """A record passed to ``RunWriter.append`` is invalid (no ``key``, duplicate key, NaN, …)."""


class RunFileError(ArtifactError):
    """``run.json`` is missing a field, has the wrong schema version, or cannot be parsed."""


class RunMismatchError(ArtifactError):
    """A run folder holds a different run (config hash or input hashes differ): never mix runs."""


class SealedRunError(ArtifactError):
    """The run is sealed (``MANIFEST.sha256`` exists): its files are frozen."""


class DamagedRunError(SealedRunError):
    """A sealed run no longer verifies against its ``MANIFEST.sha256``; it is refused, never extended."""


class RunInUseError(ArtifactError):
    """Another ``RunWriter`` (this or another process) has the run folder open."""


class CodeStateError(ArtifactError):
    """The code commit or dirty flag could not be determined with git."""


class CorruptRecordsError(ArtifactError):
    """A complete line of ``records.jsonl`` is not a valid record (not a torn tail: a real corruption)."""

    def __init__(self, file: Path | str, line: int, message: str):
        self.file, self.line = str(file), line
        super().__init__(f"{file}:{line}: {message}")


class SealError(ArtifactError):
    """A file in the run folder cannot be sealed (symlink, special file, or a name the manifest cannot hold)."""


class RunClosedError(ArtifactError):
    """The ``RunWriter`` was closed (sealed, failed or closed); open a new one to resume."""
