"""Mutation candidates of a snapshot: the discovery record, its limits, and enumeration within them.

Source files (test files and files the task policy refuses left out) are
mutated by :mod:`beacon.tasks.mutate`, each mutant file is compiled in memory,
and the survivors become manifest rows in a deterministic order (path, line,
operator, variant) with stable task ids. Four limits bound the work; reaching
one raises :class:`DiscoveryLimitError`.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Sequence

from ..data.manifest import Task, parse_test_command
from ..graph.symbols import is_test_path
from ..repair.controls import SHADOW_NAMES
from ..repair.task_policy import source_file_problems
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


def mutant_task(repo: str, commit: str, m: Mutation, command: str, budget: int) -> Task:
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


def default_tests(tree: Path) -> tuple[str, ...]:
    for name in ("tests", "test"):
        if (tree / name).is_dir():
            return (name,)
    raise DiscoveryError("no tests/ or test/ directory at the commit; name the test selection with --tests")


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
            d.candidates.append(Candidate(m, mutant_task(d.repo, d.commit, m, command, budget)))
