"""Per-task preparation and preconditions, run once per task before any attempt.

A task is valid only if (1) its declared source file passes the task policy,
(2) the original suite is non-empty and passes, every test id recorded from
the JUnit report, and (3) the mutant completes (a report, no timeout) with
at least one recorded id not passing. Otherwise the task is *invalid*, with
the reason, and no attempt on it is scored.

Every run uses its own fresh snapshot; the snapshot retrieval indexes (the
mutated tree) is never executed.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from ..graph.codebase import CodebaseGraph
from ..repo.git import GitSource
from ..repo.history import NO_INPUTS, RepoInputs, read_inputs
from ..repo.snapshot import materialize, replace_line
from ..data.manifest import Task
from .addopts import ProjectConfigError
from .controls import snapshot_protected
from .limits import Limits
from .pytest_runner import PytestRun, plain_seed, run_pytest, sandbox_hint, verify_run
from .shared_validation import SharedValidation
from .task_policy import source_file_problems


@dataclass
class RunSettings:
    """How tests are executed; ``allow_local_execution`` must be given explicitly."""

    allow_local_execution: bool = False
    timeout_s: float = 60.0
    sandbox: str = "auto"  # auto | required | off
    network: str = "deny"
    limits: Limits = field(default_factory=Limits)  # processes, memory, /tmp size per test run
    # the checkout's addopts: "keep_safe" passes on the allowlisted ones (beacon.repair.addopts), "drop" none
    project_addopts: str = "keep_safe"


@dataclass
class PreparedTask:
    task: Task
    source: GitSource
    work: Path
    mutated_text: str
    graph: CodebaseGraph
    inputs: RepoInputs = NO_INPUTS  # the history the job's methods need, up to the task's commit
    protected: dict[str, str] = field(default_factory=dict)
    original_ids: tuple[str, ...] = ()
    baseline: dict = field(default_factory=dict)
    mutant: dict = field(default_factory=dict)
    sandboxed: bool | None = None
    invalid_reason: str | None = None
    validation: str = ""  # "ran" here, "shared" from another job of the sweep, "" when not run
    validation_key: str = ""  # the shared entry's key (``shared_validation``)

    @property
    def valid(self) -> bool:
        return self.invalid_reason is None and bool(self.original_ids)

    def fresh_mutant(self, name: str) -> Path:
        tree = materialize(self.source, self.task.commit, self.work / name)
        replace_line(tree, self.task.path, self.task.line, self.task.original_line, self.task.mutated_line)
        return tree


def _text(path: Path) -> str | None:
    """A pristine declared file's text (for the canary plugin's pristine comparison bindings), or None."""
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def selected_files(tree: Path, selection: tuple[str, ...]) -> list[str]:
    """Test files named by a selection (paths or node ids) under ``tree``: pinned like control files."""
    files: set[str] = set()
    for item in selection:
        target = tree / item.split("::", 1)[0]
        if target.is_file():
            files.add(target.relative_to(tree).as_posix())
        elif target.is_dir():
            files.update(p.relative_to(tree).as_posix() for p in target.rglob("*.py"))
    return sorted(files)


def summarize_run(run: PytestRun) -> dict:
    counts = run.report.outcome_counts() if run.report else {}
    return {"exit_code": run.exit_code, "timed_out": run.timed_out, "outcomes": dict(sorted(counts.items())),
            "report_error": run.report_error}


def prepare_task(task: Task, source: GitSource, work: Path, settings: RunSettings,
                 needs: frozenset[str] = frozenset(), *, shared: SharedValidation | None = None,
                 parse_cache: Path | None = None) -> PreparedTask:
    """Snapshot, index and (with local execution) check the preconditions of ``task``.

    ``needs``: the history inputs the job's methods declare (``Method.needs``), read as the localization
    runner reads them (``beacon.repo.history.read_inputs`` at the task's commit, blaming its non-test files).
    ``shared``: the sweep's validations (``beacon.repair.shared_validation``), used when the sandbox is required.
    ``parse_cache``: a folder of file parses by content hash (``beacon.graph.parse_store``), shared by runs.
    """
    work.mkdir(parents=True, exist_ok=True)
    pristine = materialize(source, task.commit, work / "pristine")
    indexed = materialize(source, task.commit, work / "indexed")
    replace_line(indexed, task.path, task.line, task.original_line, task.mutated_line)
    prepared = PreparedTask(
        task=task, source=source, work=work,
        mutated_text=(indexed / task.path).read_text(encoding="utf-8"),
        graph=CodebaseGraph.from_repo(indexed, cache_dir=parse_cache),
    )
    if needs:
        paths = sorted({s.path for s in prepared.graph.symbols if not s.is_test})
        prepared.inputs = read_inputs(source, task.commit, needs, paths)
    problems = source_file_problems(task, pristine)
    if problems:
        prepared.invalid_reason = "policy: " + "; ".join(problems)
        return prepared
    prepared.protected = snapshot_protected(pristine, extra=selected_files(pristine, task.tests.selection))
    if not settings.allow_local_execution:
        return prepared

    def validate() -> dict:
        return validate_task(prepared, pristine, settings)

    if shared is not None and settings.sandbox == "required":
        verdict, prepared.validation, prepared.validation_key = shared.get_or_run(task, settings, validate)
    else:
        verdict, prepared.validation = validate(), "ran"
    prepared.sandboxed = verdict["sandboxed"]
    prepared.baseline, prepared.mutant = verdict["baseline"], verdict["mutant"]
    prepared.original_ids = tuple(verdict["original_ids"])
    prepared.invalid_reason = verdict["invalid_reason"]
    return prepared


def validate_task(prepared: PreparedTask, pristine: Path, settings: RunSettings) -> dict:
    """The task's verdict from three fresh snapshots: the original suite must pass (its test ids recorded from the
    JUnit report), also with the plain run's hash seed, and the mutant must complete and fail at least one of them. ``original_ids`` is empty and
    ``invalid_reason`` says why when the task is not valid. Plain JSON values (``shared_validation`` stores them)."""
    task, source, work = prepared.task, prepared.source, prepared.work
    verdict = {"sandboxed": None, "baseline": {}, "mutant": {}, "original_ids": [], "invalid_reason": None}
    selection = task.tests.selection
    run_kw = dict(protected=prepared.protected, flags=task.tests.flags or ("-q",), timeout=settings.timeout_s,
                  sandbox=settings.sandbox, network=settings.network, limits=settings.limits,
                  sources=(task.path,), pristine={task.path: _text(pristine / task.path)},
                  project_addopts=settings.project_addopts)
    try:
        original = run_pytest(materialize(source, task.commit, work / "original-run"), selection,
                              report_dir=work / "reports" / "original", **run_kw)
    except ProjectConfigError as exc:  # the project's own pytest cannot start with this config either
        verdict["invalid_reason"] = f"project config: {exc}"
        return verdict
    verdict["sandboxed"] = original.sandboxed
    baseline = verdict["baseline"] = summarize_run(original)
    cases = original.report.testcases if original.report else ()
    ids = sorted({tc.node_id for tc in cases if tc.node_id})
    if not ids:
        verdict["invalid_reason"] = "original suite: no test ids in the JUnit report " + str(original.report_error or "")
        return verdict
    passed = verify_run(original, ids)
    if not passed.passed:
        hint = sandbox_hint(original)
        verdict["invalid_reason"] = "original suite does not pass: " + "; ".join(passed.reasons[:5]) + (
            f" (in the sandbox: {hint})" if hint else "")
        return verdict
    # The plain run after a passing repair has hash randomization on, with a seed drawn from the pristine files
    # (``pytest_runner.plain_seed``): a suite that passes only with it off (a test of the order of a set of strings)
    # would refuse every repair but the pristine file, which has no plain run (session 51's review, h01). So the
    # original suite must pass at that seed too.
    seed = plain_seed(run_kw["pristine"])
    seeded = run_pytest(materialize(source, task.commit, work / "original-seeded-run"), selection,
                        report_dir=work / "reports" / "original-seeded", hash_seed=seed, **run_kw)
    passed = verify_run(seeded, ids)
    if not passed.passed:
        verdict["invalid_reason"] = (f"original suite does not pass with hash randomization on (PYTHONHASHSEED={seed}, "
                                     "the plain run's): " + "; ".join(passed.reasons[:5]))
        return verdict
    baseline["ids"] = len(ids)
    baseline["ids_sha256"] = hashlib.sha256("\n".join(ids).encode()).hexdigest()
    mutant = run_pytest(prepared.fresh_mutant("mutant-run"), selection,
                        report_dir=work / "reports" / "mutant", **run_kw)
    summary = verdict["mutant"] = summarize_run(mutant)
    if mutant.timed_out or mutant.report is None:
        verdict["invalid_reason"] = "mutant does not complete: " + (
            "timed out" if mutant.timed_out else str(mutant.report_error))
        return verdict
    killed = sorted(i for i, outcome in verify_run(mutant, ids).outcomes.items() if outcome != "passed")
    summary["failing_ids"] = killed
    if not killed:
        verdict["invalid_reason"] = "mutant survives: every original test still passes"
        return verdict
    verdict["original_ids"] = ids
    return verdict
