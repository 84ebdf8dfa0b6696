"""Mutation discovery: every candidate of a repository at a commit, within explicit limits.

The commit is read through its object database (``materialize``), never a
working tree. Candidates are enumerated within limits by
:mod:`beacon.tasks.candidates` (a limit reached raises
:class:`DiscoveryLimitError` before anything is written) and, optionally,
validated with the repair harness by :mod:`beacon.tasks.validate`. The
manifest is written whole (temp file + ``os.replace``), so an incomplete
prefix never exists.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, Sequence

from ..repo.git import GitSource
from ..repo.snapshot import materialize
from ..scratch import make_owned_tempdir, remove_tree
from .candidates import (
    DEFAULT_TOKEN_BUDGET, Discovery, DiscoveryError, DiscoveryLimitError, Limits, default_tests, enumerate_candidates,
    test_command,
)
from .operators import OPERATORS
from .validate import ValidateOptions, validate_candidates


def discover(source: GitSource, commit: str, *, repo: str, paths: Sequence[str] = (),
             tests: Sequence[str] | None = None, token_budget: int = DEFAULT_TOKEN_BUDGET,
             limits: Limits = Limits(), operators: Sequence[str] | None = None,
             validate: ValidateOptions | None = None,
             work: Path | None = None, progress: Callable[[str], None] | None = None) -> Discovery:
    """Enumerate (and with ``validate``, validate) the candidates of ``repo`` at ``commit``."""
    commit = source.resolve_commit(commit)
    unknown = sorted(set(operators or ()) - set(OPERATORS))
    if unknown:
        raise DiscoveryError(f"unknown operator(s) {', '.join(unknown)}; known: {', '.join(OPERATORS)}")
    own_work = work is None
    work = make_owned_tempdir("beacon-discover-") if own_work else Path(work)  # ours: removed below
    try:
        tree = materialize(source, commit, work / "snapshot")
        selection = tuple(tests) if tests else default_tests(tree)
        for item in selection:
            if not (tree / item.split("::", 1)[0]).exists():
                raise DiscoveryError(f"--tests {item!r} does not exist at {commit[:12]}")
        try:
            test_command(selection)
        except ValueError as exc:
            raise DiscoveryError(f"--tests: {exc}") from None
        d = Discovery(repo, commit, selection, limits,
                      operators=tuple(o for o in OPERATORS if not operators or o in operators))
        # Without validation every candidate is a row; with it, at most the validated ones are.
        enumerate_candidates(tree, d, paths=paths, budget=token_budget, rows=validate is None)
        if progress is not None:
            progress(f"enumerated {len(d.candidates)} candidates in {len(d.files)} files "
                     f"({d.checks} syntax checks, {d.check_bytes / 1e6:.1f} MB compiled)")
        if validate is not None:
            chosen = validate.choose(d.candidates)
            if len(chosen) > limits.max_tasks:
                raise DiscoveryLimitError("max_tasks", len(chosen), limits.max_tasks, "the candidates to validate")
            validate_candidates(d, chosen, source, work / "validate", validate, progress=progress)
        return d
    finally:
        if own_work:
            remove_tree(work)


def write_manifest(rows: list[dict], out: Path | str) -> Path:
    """Write ``rows`` as JSONL atomically: a temp file in the same folder, then ``os.replace``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, sort_keys=True) + "\n")
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return out
