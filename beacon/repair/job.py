"""A repair job: tasks x attempt specs -> rows in a run folder, resumable.

Finished rows (by key) are never recomputed: re-running the same config
resumes. A task that cannot be prepared, or an attempt that fails inside the
harness, becomes a recorded ``harness_error`` row, never an exception that
kills the sweep. Per-row durations go to ``timings.jsonl`` (keyed by row), and
stage totals to run.json, so ``records.jsonl`` stays byte-identical between
identical runs.

``workers`` > 1 runs that many attempts' test stages at once
(:class:`beacon.repair.attempt.StagedAttempt`): retrieval, prompts and model
calls stay in this thread and in the grid's order, and rows are written in
that order too, so the records are the same bytes for any ``workers``.
"""
from __future__ import annotations

import json
import logging
import os
import sys
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..providers.base import Provider
from ..providers.oracle import OracleProvider
from ..records import Outcome, RepairOutcome
from ..repo.git import GitSource
from ..retrieval import get_method
from ..retrieval.recipes import method_params
from ..data.manifest import Task
from ..data.queries import build_query
from .attempt import AttemptSpec, StagedAttempt, stage_attempt
from .prepare import PreparedTask, RunSettings, prepare_task
from .shared_validation import SharedValidation
from .process import remove_tree

log = logging.getLogger("beacon")


@dataclass
class JobSummary:
    rows_written: int = 0
    rows_resumed: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    invalid_tasks: dict[str, str] = field(default_factory=dict)
    sandboxed: bool | None = None
    # per prepared task: "ran" (validated by this job) or "shared <key>" (another job of the sweep's verdict)
    validation: dict[str, str] = field(default_factory=dict)


def oracle_for(prepared: PreparedTask, spec: AttemptSpec) -> Provider:
    task = prepared.task
    return OracleProvider.for_repair(task.path, prepared.mutated_text, task.line, task.repair_line, spec.edit_format)


def _progress(total: int, enabled: bool | None):
    if enabled is None:  # a bar on a terminal, quiet in CI and in pipes
        enabled = sys.stderr.isatty() and not os.environ.get("CI")
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None
    return tqdm(total=total, disable=not enabled, unit="attempt", leave=False)


def run_repair_job(
    tasks: list[Task],
    resolve_repo: Callable[[str], GitSource],
    specs: list[AttemptSpec],
    *,
    writer,
    work_dir: Path,
    settings: RunSettings,
    provider_for: Callable[[PreparedTask, AttemptSpec], Provider] = oracle_for,
    dry_run: bool = False,
    progress: bool | None = None,
    only_keys: frozenset[str] | None = None,
    shared: SharedValidation | None = None,
    parse_cache: Path | None = None,
    workers: int = 1,
) -> JobSummary:
    """Score every task × spec row not yet in ``writer``; ``only_keys``: just those rows (a sampled reproduction).

    ``shared``: the sweep's task validations (``beacon.repair.shared_validation``); ``parse_cache``: file parses by
    content, shared by runs; ``workers``: test runs at once (see the module docstring). None changes a row."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if workers > 1 and settings.sandbox != "required":
        # without the sandbox, runs share the machine's /tmp, ports and the user's files: one at a time
        log.warning("score_workers=%d needs sandbox=required; without it the job runs its tests one at a time",
                    workers)
        workers = 1
    if not dry_run and not settings.allow_local_execution:
        raise PermissionError("scoring executes the tasks' repository code: set allow_local_execution=true "
                              "explicitly (or dry_run=true to assemble prompts only)")
    summary = JobSummary()
    finished = writer.finished_keys()
    # The history inputs the job's methods declare, read per task as the localization runner reads them.
    needs = frozenset().union(*(get_method(spec.method, **method_params(spec.method, dict(spec.method_params))).needs()
                                for spec in specs))
    bar = _progress(len(only_keys) if only_keys is not None else len(tasks) * len(specs), progress)
    timings_path = Path(writer.run_dir) / "timings.jsonl"

    def write(key: str, row, timing: dict) -> None:
        writer.append(row.to_json())
        with open(timings_path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"key": key, **{k: round(v, 6) for k, v in timing.items()}}) + "\n")
        for name, seconds in timing.items():
            writer.add_timing(name, seconds)
        outcome = row.outcome.value if row.outcome else ("dry_run" if dry_run else "invalid_task")
        summary.outcomes[outcome] = summary.outcomes.get(outcome, 0) + 1
        summary.rows_written += 1
        if bar is not None:
            bar.update(1)

    def write_first(waiting: deque) -> None:
        key, staged, running = waiting[0]  # (popped once written: an interrupt meanwhile still waits for it below)
        row, timing = running.result() if running is not None else staged.finish()  # (no worker took it: here)
        waiting.popleft()
        write(key, row, timing)

    # Up to ``workers`` test stages run at once while the next attempts are staged; rows are written in order.
    with ThreadPoolExecutor(workers, thread_name_prefix="beacon-tests") if workers > 1 else nullcontext() as pool:
        for index, task in enumerate(tasks):
            chosen = [(spec, spec.key(task.task_id)) for spec in specs]
            if only_keys is not None:
                chosen = [(spec, key) for spec, key in chosen if key in only_keys]
            todo = [(spec, key) for spec, key in chosen if key not in finished]
            summary.rows_resumed += len(chosen) - len(todo)
            if bar is not None:
                bar.update(len(chosen) - len(todo))
            if not todo:
                continue
            work = Path(work_dir) / f"task-{index:04d}"
            remove_tree(work)
            try:
                prepared = prepare_task(task, resolve_repo(task.repo), work, settings, needs, shared=shared,
                                        parse_cache=parse_cache)
            except Exception as exc:  # recorded per row below; the sweep goes on
                prepared, failure = None, f"{type(exc).__name__}: {exc}".replace(str(work), "<work>")
            else:
                failure = None
                if prepared.invalid_reason:
                    summary.invalid_tasks[task.task_id] = prepared.invalid_reason
                if prepared.sandboxed is not None:
                    summary.sandboxed = prepared.sandboxed
                if prepared.validation:
                    summary.validation[task.task_id] = prepared.validation + (
                        f" {prepared.validation_key}" if prepared.validation == "shared" else "")
            # rows staged but not yet written, in the grid's order: (key, the staged attempt, its test stage's future)
            waiting: deque[tuple[str, StagedAttempt, Future | None]] = deque()
            try:
                for slot, (spec, key) in enumerate(todo):
                    if prepared is None:
                        write(key, _prepare_failure(task, spec, failure, dry_run), {})
                        continue
                    staged = stage_attempt(prepared, spec, provider_for, settings, dry_run=dry_run, slot=str(slot))
                    if pool is None or staged.tests is None:
                        waiting.append((key, staged, None))
                    else:
                        while sum(running is not None for _, _, running in waiting) >= workers:
                            write_first(waiting)  # at most ``workers`` test runs at once
                        waiting.append((key, staged, pool.submit(staged.finish)))
                    while waiting and (waiting[0][2] is None or waiting[0][2].done()):
                        write_first(waiting)
                while waiting:
                    write_first(waiting)
            finally:
                for _key, _staged, running in waiting:  # an exception above: let the runs started end before removal
                    if running is not None and not running.cancel():
                        running.exception()
                remove_tree(work)
    if bar is not None:
        bar.close()
    return summary


def _prepare_failure(task: Task, spec: AttemptSpec, failure: str | None, dry_run: bool) -> RepairOutcome:
    """The row of an attempt whose task could not be prepared: no context, prompt or test fields."""
    query = build_query(task, spec.query_type)
    return RepairOutcome(
        key=spec.key(task.task_id), task_id=task.task_id, repo=task.repo, commit=task.commit,
        bug_location=task.bug_location, mutation_type=task.mutation_type, method=spec.method,
        method_params=dict(spec.method_params), budget=spec.budget, query_type=spec.query_type,
        edit_format=spec.edit_format, query_oracle=query.oracle, query_fallback=query.fallback,
        provider=spec.provider, control=spec.method == "target_file" or query.oracle or spec.provider == "oracle",
        covers_bug_line=None, dry_run=dry_run, task_valid=False, task_invalid_reason=failure,
        outcome=None if dry_run else Outcome.HARNESS_ERROR, outcome_detail=failure,
    )
