"""Mutation discovery: every candidate of a repository at a commit, within explicit limits.

The commit is read through its object database (``materialize``), never a
working tree. Source files (test files and files the task policy refuses left
out) are mutated by :mod:`beacon.tasks.mutate`, each mutant file is compiled
in memory, and the survivors become manifest rows in a deterministic order
(path, line, operator, variant) with stable task ids. Four limits bound the
work; reaching one raises :class:`DiscoveryLimitError` before anything is
written, and the manifest is written whole (temp file + ``os.replace``), so
an incomplete prefix never exists.

Validation (:func:`validate_candidates`) reuses the repair harness: the
original suite runs once through ``run_pytest``/``verify_run`` (it must pass,
every id recorded), each chosen mutant runs the same selection, and a mutant
that fails some ids becomes a task whose ``test_command`` selects exactly
those node ids; that narrowed task is then confirmed by ``prepare_task``, the
very preconditions the repair runner applies, before it is kept.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Callable, Sequence

from ..data.manifest import Task, parse_test_command
from ..graph.symbols import is_test_path
from ..repair.controls import SHADOW_NAMES, snapshot_protected
from ..repair.prepare import RunSettings, prepare_task, selected_files, summarize_run
from ..repair.pytest_runner import run_pytest, verify_run
from ..repair.task_policy import source_file_problems
from ..repo.git import GitSource
from ..repo.snapshot import materialize, replace_line
from .mutate import Mutation, compiles, mutations
from .operators import OPERATORS

DISCOVERY_VERSION = 1
DEFAULT_TOKEN_BUDGET = 2000


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = 256 << 10  # one source file
    max_check_bytes: int = 64 << 20  # all mutant files compiled, summed
    max_checks: int = 10_000  # syntax checks (one per candidate)
    max_tasks: int = 10_000  # manifest rows

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


LIMIT_OPTIONS = {"max_file_bytes": "--max-file-bytes", "max_check_bytes": "--max-check-bytes",
                 "max_checks": "--max-checks", "max_tasks": "--max-tasks"}


class DiscoveryError(ValueError):
    """Discovery cannot run as asked (bad paths, no tests, original suite failing …)."""


class DiscoveryLimitError(DiscoveryError):
    """A limit was reached; nothing has been written."""

    def __init__(self, limit: str, value: int, maximum: int, where: str):
        self.limit, self.value, self.maximum, self.where = limit, value, maximum, where
        super().__init__(
            f"discovery limit {limit}={maximum} exceeded: reached {value} at {where}; nothing was written "
            f"(raise it with {LIMIT_OPTIONS[limit]}, or narrow the run with --paths)")


@dataclass
class Candidate:
    mutation: Mutation
    task: Task
    status: str = "unvalidated"  # or one of STATUSES once validation ran
    failing_ids: tuple[str, ...] = ()
    reason: str | None = None


@dataclass
class Discovery:
    repo: str
    commit: str
    tests: tuple[str, ...]
    limits: Limits
    files: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # path -> why it was not mutated
    candidates: list[Candidate] = field(default_factory=list)
    checks: int = 0
    check_bytes: int = 0
    rejected_syntax: int = 0
    validation: dict = field(default_factory=dict)
    operators: tuple[str, ...] = tuple(OPERATORS)  # which operators were enumerated

    def rows(self) -> list[dict]:
        """Manifest rows: all candidates, or after validation only the killed ones."""
        keep = self.candidates if not self.validation else [c for c in self.candidates if c.status == "killed"]
        return [candidate_row(c, self) for c in keep]

    def summary(self) -> dict:
        ops: dict[str, int] = {}
        for c in self.candidates:
            ops[c.mutation.operator] = ops.get(c.mutation.operator, 0) + 1
        return {"repo": self.repo, "commit": self.commit, "tests": list(self.tests), "files": len(self.files),
                "test_files": sum(1 for why in self.skipped.values() if why == "test file"),
                "skipped": {p: why for p, why in sorted(self.skipped.items()) if why != "test file"},
                "operators": list(self.operators), "candidates": len(self.candidates),
                "by_operator": dict(sorted(ops.items())), "syntax_checks": self.checks,
                "syntax_check_bytes": self.check_bytes, "rejected_syntax": self.rejected_syntax,
                "limits": self.limits.as_dict(), "validation": self.validation}


def test_command(selection: Sequence[str]) -> str:
    command = " ".join(["python", "-m", "pytest", "-q", *selection])
    parse_test_command(command)  # raises ValueError naming the offending word
    return command


test_command.__test__ = False  # a helper, not a pytest test


def _task(repo: str, commit: str, m: Mutation, command: str, budget: int) -> Task:
    return Task(repo=repo, commit=commit, bug_location=f"{m.path}:{m.line}", mutation_type=m.operator,
                original_line=m.original_line, mutated_line=m.mutated_line, token_budget=budget,
                test_command=command, task_id=f"{repo}:{m.path}:{m.line}:{m.operator}:{m.variant}")


def candidate_row(c: Candidate, d: Discovery) -> dict:
    meta = {"discovery_version": DISCOVERY_VERSION, "operator": c.mutation.operator, "variant": c.mutation.variant,
            "description": c.mutation.description, "limits": d.limits.as_dict(), "base_tests": list(d.tests)}
    if d.validation:
        meta["validation"] = {"status": c.status, "failing_ids": list(c.failing_ids)}
    return {**c.task.to_json(), "metadata": meta}


def _select_files(tree: Path, paths: Sequence[str]) -> list[str]:
    every = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.py") if p.is_file() and not p.is_symlink())
    if not paths:
        return every
    chosen: set[str] = set()
    for raw in paths:
        prefix = PurePosixPath(raw.strip("/")).as_posix()
        if PurePosixPath(prefix).is_absolute() or ".." in PurePosixPath(prefix).parts:
            raise DiscoveryError(f"--paths {raw!r} must be a path inside the repository")
        hits = [f for f in every if f == prefix or prefix in (".", "") or f.startswith(prefix + "/")]
        if not hits:
            raise DiscoveryError(f"--paths {raw!r} matches no .py file at the commit")
        chosen.update(hits)
    return sorted(chosen)


def _default_tests(tree: Path) -> tuple[str, ...]:
    for name in ("tests", "test"):
        if (tree / name).is_dir():
            return (name,)
    raise DiscoveryError(f"no tests/ or test/ directory at the commit; name the test selection with --tests")


def enumerate_candidates(tree: Path, d: Discovery, *, paths: Sequence[str] = (), budget: int = DEFAULT_TOKEN_BUDGET,
                         rows: bool = True) -> None:
    """Fill ``d.files``/``d.skipped``/``d.candidates`` from the snapshot ``tree``; raise on a limit.

    ``rows``: every candidate becomes a manifest row (no validation), so ``max_tasks`` applies here.
    """
    limits, command = d.limits, test_command(d.tests)
    for rel in _select_files(tree, paths):
        if is_test_path(rel):
            d.skipped[rel] = "test file"
            continue
        if rel.split("/", 1)[0] in SHADOW_NAMES:  # pinned by the runner: a mutant could never run
            d.skipped[rel] = "shadows pytest at the repository root"
            continue
        data = (tree / rel).read_bytes()
        if len(data) > limits.max_file_bytes:
            raise DiscoveryLimitError("max_file_bytes", len(data), limits.max_file_bytes, rel)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            d.skipped[rel] = "not UTF-8"
            continue
        if "\r" in text:  # manifest lines are split on "\n" only; a CR would end up inside original_line
            d.skipped[rel] = "has CR line endings"
            continue
        probe = Task(d.repo, d.commit, f"{rel}:1", "probe", "", "x", budget, command, "probe")
        problems = source_file_problems(probe, tree)
        if problems:
            d.skipped[rel] = "policy: " + "; ".join(problems)
            continue
        try:
            found = mutations(rel, text)
        except (SyntaxError, ValueError) as exc:
            d.skipped[rel] = f"does not parse: {exc}"
            continue
        d.files.append(rel)
        for m in (m for m in found if m.operator in d.operators):
            mutant = m.apply(text)
            size = len(mutant.encode("utf-8"))
            if d.checks + 1 > limits.max_checks:
                raise DiscoveryLimitError("max_checks", d.checks + 1, limits.max_checks, f"{rel}:{m.line}")
            if d.check_bytes + size > limits.max_check_bytes:
                raise DiscoveryLimitError("max_check_bytes", d.check_bytes + size, limits.max_check_bytes,
                                          f"{rel}:{m.line}")
            d.checks += 1
            d.check_bytes += size
            if not compiles(mutant, rel):
                d.rejected_syntax += 1
                continue
            if rows and len(d.candidates) + 1 > limits.max_tasks:
                raise DiscoveryLimitError("max_tasks", len(d.candidates) + 1, limits.max_tasks, f"{rel}:{m.line}")
            d.candidates.append(Candidate(m, _task(d.repo, d.commit, m, command, budget)))


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
    work = Path(tempfile.mkdtemp(prefix="beacon-discover-")) if own_work else Path(work)
    try:
        tree = materialize(source, commit, work / "snapshot")
        selection = tuple(tests) if tests else _default_tests(tree)
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
            shutil.rmtree(work, ignore_errors=True)


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
