"""Frozen, hashed run folders: ``run.json`` + ``records.jsonl`` + ``MANIFEST.sha256``.

The core stays free of Hydra: runners pass plain dicts (for OmegaConf,
``OmegaConf.to_container(cfg, resolve=True)``). Typical runner::

    with RunWriter(run_dir, config=cfg, scientific=sci, overrides=overrides,
                   inputs={"tasks": sha256_file(manifest)}, code=code_state(repo_root),
                   packages=package_versions(["beacon", "numpy"])) as run:
        done = run.finished_keys()
        for task in tasks:
            if task.key not in done:
                run.append(score(task))      # deterministic: no timestamps or absolute paths
        run.seal()

``python -m beacon.artifacts verify DIR`` and ``… collect SWEEP_DIR`` check and
index finished runs.
"""
from __future__ import annotations

from .atomic import atomic_write_bytes, atomic_write_text, safe_label
from .errors import (ArtifactError, CanonicalJSONError, CodeStateError, CorruptRecordsError, RecordError,
                     RunClosedError, RunFileError, RunInUseError, RunMismatchError, SealedRunError, SealError)
from ..digests import sha256_bytes, sha256_file
from .hashing import EXCLUDED_KEYS, EXCLUDED_SUFFIXES, canonical_json, canonical_json_bytes, config_hash, scientific_view
from .records import iter_records, scan_records
from .runfile import MANIFEST_NAME, RUN_JSON, SCHEMA_VERSION, load_run_json
from .verify import collect, verify
from .writer import RunWriter, code_state, package_versions

__all__ = [
    "ArtifactError", "CanonicalJSONError", "CodeStateError", "CorruptRecordsError", "EXCLUDED_KEYS",
    "EXCLUDED_SUFFIXES", "MANIFEST_NAME", "RUN_JSON", "RecordError", "RunClosedError", "RunFileError",
    "RunInUseError", "RunMismatchError", "RunWriter", "SCHEMA_VERSION", "SealError", "SealedRunError",
    "atomic_write_bytes", "atomic_write_text", "canonical_json", "canonical_json_bytes", "code_state",
    "collect", "config_hash", "iter_records", "load_run_json", "package_versions", "safe_label",
    "scan_records", "scientific_view", "sha256_bytes", "sha256_file", "verify",
]
