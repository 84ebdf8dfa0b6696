"""Validation of mutation candidates with the repair harness: which mutants the passing suite kills.

The original suite runs once through ``run_pytest``/``verify_run`` (it must
pass, every id recorded), each chosen mutant runs the same selection, and a
mutant that fails some ids becomes a task whose ``test_command`` selects
exactly those node ids; that narrowed task is then confirmed by
``prepare_task``, the very preconditions the repair runner applies, before it
is kept.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

from ..data.manifest import parse_test_command
from ..repair.controls import snapshot_protected
from ..repair.prepare import RunSettings, prepare_task, selected_files, summarize_run
from ..repair.pytest_runner import run_pytest, verify_run
from ..repo.git import GitSource
from ..repo.snapshot import materialize, replace_line
from .candidates import Candidate, Discovery, DiscoveryError, test_command

STATUSES = ("killed", "survived", "timeout", "no_report", "unconfirmed", "not_validated")


@dataclass(frozen=True)
class ValidateOptions:
    """How candidates are validated; ``settings`` is the repair harness's ``RunSettings``."""

    settings: RunSettings
    max_validate: int | None = None
    select: str = "spread"  # spread: evenly over the ordered candidates; first: the first N
    confirm: bool = True  # re-check each kept task with prepare_task (the repair runner's preconditions)
    max_node_ids: int = 25  # more failing ids than this: select their files instead

    def choose(self, candidates: list[Candidate]) -> list[Candidate]:
        if self.select not in {"spread", "first"}:
            raise DiscoveryError(f"select must be 'spread' or 'first', got {self.select!r}")
        n = len(candidates)
        k = n if self.max_validate is None else max(0, min(self.max_validate, n))
        if self.select == "first":
            return candidates[:k]
        return [candidates[(i * n) // k] for i in range(k)]


def killing_command(failing_ids: Sequence[str], max_ids: int) -> str:
    """``python -m pytest -q`` + the failing node ids (their files where an id cannot be written, or too many)."""
    files = sorted({i.split("::", 1)[0] for i in failing_ids})
    if len(failing_ids) > max_ids:
        return test_command(files)
    chosen: list[str] = []
    for node_id in failing_ids:
        try:
            parse_test_command(f"python -m pytest {node_id}")
            chosen.append(node_id)
        except ValueError:  # e.g. a parametrize id with spaces or quotes
            chosen.append(node_id.split("::", 1)[0])
    whole = {c for c in chosen if "::" not in c}
    return test_command(list(dict.fromkeys(c for c in chosen if c in whole or c.split("::", 1)[0] not in whole)))


def validate_candidates(d: Discovery, chosen: list[Candidate], source: GitSource, work: Path,
                        options: ValidateOptions, *, progress: Callable[[str], None] | None = None) -> None:
    """Set each chosen candidate's status; raise :class:`DiscoveryError` if the original suite fails."""
    settings = options.settings
    if not settings.allow_local_execution:
        raise PermissionError("validation runs the repository's tests on this machine; "
                              "it needs allow_local_execution=True (--allow-local-execution)")
    pristine = materialize(source, d.commit, work / "pristine")
    protected = snapshot_protected(pristine, extra=selected_files(pristine, d.tests))
    run_kw = dict(protected=protected, flags=("-q",), sandbox=settings.sandbox, network=settings.network)
    original = run_pytest(materialize(source, d.commit, work / "original"), d.tests, timeout=settings.timeout_s,
                          report_dir=work / "reports" / "original", **run_kw)
    ids = sorted({tc.node_id for tc in original.report.testcases if tc.node_id}) if original.report else []
    if not ids:
        raise DiscoveryError(f"the original suite {' '.join(d.tests)} at {d.commit[:12]} reports no test ids "
                             f"({original.report_error or 'empty report'})")
    verdict = verify_run(original, ids)
    if not verdict.passed:
        raise DiscoveryError(f"the original suite {' '.join(d.tests)} does not pass at {d.commit[:12]}: "
                             + "; ".join(verdict.reasons[:5]))
    # A mutant that loops forever should cost a few baseline durations, not the whole timeout.
    timeout = min(settings.timeout_s, max(10.0, 5 * original.duration))
    d.validation = {"original": {**summarize_run(original), "ids": len(ids)}, "sandboxed": original.sandboxed,
                    "mutant_timeout_s": round(timeout, 1), "chosen": len(chosen), "confirm": options.confirm}
    for c in d.candidates:
        c.status = "not_validated"
    for n, c in enumerate(chosen, start=1):
        tree = materialize(source, d.commit, work / f"mutant-{n}")
        replace_line(tree, c.task.path, c.task.line, c.task.original_line, c.task.mutated_line)
        run = run_pytest(tree, d.tests, timeout=timeout, report_dir=work / "reports" / f"mutant-{n}", **run_kw)
        shutil.rmtree(tree, ignore_errors=True)
        if run.timed_out:
            c.status, c.reason = "timeout", f"timed out after {timeout:g} s"
        elif run.report is None:
            c.status, c.reason = "no_report", run.report_error
        else:
            failing = sorted(i for i, outcome in verify_run(run, ids).outcomes.items() if outcome != "passed")
            c.status, c.failing_ids = ("killed", tuple(failing)) if failing else ("survived", ())
        if c.status == "killed":
            c.task = replace(c.task, test_command=killing_command(c.failing_ids, options.max_node_ids))
            if options.confirm:
                prepared = prepare_task(c.task, source, work / f"confirm-{n}", settings)
                shutil.rmtree(work / f"confirm-{n}", ignore_errors=True)
                if not prepared.valid:
                    c.status, c.reason = "unconfirmed", prepared.invalid_reason
        if progress is not None:
            progress(f"[{n}/{len(chosen)}] {c.task.bug_location} {c.mutation.operator}:{c.mutation.variant} "
                     f"-> {c.status}" + (f" ({c.reason})" if c.reason and c.status != "killed" else ""))
    counts = {s: 0 for s in STATUSES}
    for c in d.candidates:
        counts[c.status] += 1
    d.validation["statuses"] = counts
