"""Repair task manifests: JSONL, one ``Task`` a row, validated on load.

Required fields: ``repo``, ``commit`` (full 40-hex hash), ``bug_location``
(``path.py:line``), ``mutation_type``, ``original_line``, ``mutated_line``,
``token_budget``, ``test_command``. Optional: ``dev_report``,
``known_repair`` (the line that repairs the mutant; defaults to
``original_line``), ``task_id`` (defaults to ``repo:path:line:mutation_type``),
``metadata`` (a JSON object carried along unchanged, e.g. how discovery found
the mutation).

Every problem is a ``ManifestError`` naming the file, the line number and the
field. With a repository resolver, each row is also checked against the file
at its commit: ``original_line`` must be that line exactly, and the mutated
file must still compile.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from ..repo.git import FULL_HASH, GitError, GitSource
from .jsonl import jsonl_objects

REQUIRED = {
    "repo": str, "commit": str, "bug_location": str, "mutation_type": str,
    "original_line": str, "mutated_line": str, "token_budget": int, "test_command": str,
}
OPTIONAL = {"dev_report": str, "known_repair": str, "task_id": str, "metadata": dict, "screen_allow": list}
# Rules of the repair harness's static edit screen (beacon.repair.screen.RULES); kept here because
# tasks sit below repair in the stack (a test checks the two agree).
SCREEN_RULES = ("import", "dynamic_code", "interpreter", "test_framework", "introspection", "host_path",
                "process_exit", "unscreenable", "comparison_override")
ALLOWED_FLAGS = ("-q", "-v", "--tb=short")
_LOCATION = re.compile(r"(?P<path>[^:\s]+\.py):(?P<line>[1-9][0-9]*)")
# A test path or node id: relative path, then optional ::parts (parametrize ids allowed).
_SELECTION = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*(?:::[^\s;|&$`<>(){}!*?~\\'\"]+)?")


class ManifestError(ValueError):
    """A manifest row is wrong; the message starts ``file:line[:column]`` and names the field."""

    def __init__(self, file: Path | str, line: int, field: str | None, message: str, column: int | None = None):
        self.file, self.line, self.field, self.column = str(file), line, field, column
        where = f"{file}:{line}" + (f":{column}" if column else "") + (f": field '{field}'" if field else "")
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class TestCommand:
    selection: tuple[str, ...]
    flags: tuple[str, ...]

    __test__ = False  # not a pytest class

    def argv(self) -> list[str]:
        return ["python", "-m", "pytest", *self.flags, *self.selection]


def parse_test_command(command: str) -> TestCommand:
    """``python -m pytest`` + test paths/node ids + only ``-q``, ``-v``, ``--tb=short``."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise ValueError(f"cannot split {command!r}: {exc}") from None
    if words[:3] != ["python", "-m", "pytest"]:
        raise ValueError(f"must start with 'python -m pytest' (other runners are refused), got {command!r}")
    flags, selection = [], []
    for word in words[3:]:
        if word.startswith("-"):
            if word not in ALLOWED_FLAGS:
                raise ValueError(
                    f"option {word!r} is not allowed (only {', '.join(ALLOWED_FLAGS)}; "
                    "options such as -p, -c, --rootdir, -o change what runs or how it is reported)"
                )
            flags.append(word)
            continue
        if not _SELECTION.fullmatch(word) or ".." in word.split("::")[0].split("/") or word.startswith("/"):
            raise ValueError(
                f"{word!r} is not a test path or node id inside the repository "
                "(shell syntax, absolute paths and '..' are refused)"
            )
        selection.append(word)
    if not selection:
        raise ValueError("names no test path or node id")
    return TestCommand(tuple(selection), tuple(flags))


@dataclass(frozen=True)
class Task:
    repo: str
    commit: str
    bug_location: str
    mutation_type: str
    original_line: str
    mutated_line: str
    token_budget: int
    test_command: str
    task_id: str
    dev_report: str | None = None
    known_repair: str | None = None
    metadata: dict | None = field(default=None, hash=False)  # a dict cannot be hashed
    # Constructs the edit screen lets through for this task: a rule, 'rule:key' or '*' (see beacon.repair.screen).
    screen_allow: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        return self.bug_location.rsplit(":", 1)[0]

    @property
    def line(self) -> int:
        return int(self.bug_location.rsplit(":", 1)[1])

    @property
    def repair_line(self) -> str:
        return self.original_line if self.known_repair is None else self.known_repair

    @property
    def tests(self) -> TestCommand:
        return parse_test_command(self.test_command)

    def to_json(self) -> dict:
        # An empty screen_allow is left out, so tasks written before it existed keep their hash.
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()
                if v is not None and not (k == "screen_allow" and not v)}


def _row_to_task(row: object, file: Path, lineno: int) -> Task:
    if not isinstance(row, dict):
        raise ManifestError(file, lineno, None, f"expected a JSON object, got {type(row).__name__}")
    for name in row:
        if name not in REQUIRED and name not in OPTIONAL:
            raise ManifestError(file, lineno, name, f"unknown field (known: {', '.join([*REQUIRED, *OPTIONAL])})")
    for name, kind in {**REQUIRED, **OPTIONAL}.items():
        if name not in row:
            if name in REQUIRED:
                raise ManifestError(file, lineno, name, "missing")
            continue
        value = row[name]
        if kind is dict and not isinstance(value, dict):
            raise ManifestError(file, lineno, name, f"expected a JSON object, got {type(value).__name__} {value!r}")
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ManifestError(file, lineno, name, f"expected {kind.__name__}, got {type(value).__name__} {value!r}")
    if not FULL_HASH.fullmatch(row["commit"]):
        raise ManifestError(file, lineno, "commit", f"must be a full 40-hex commit hash, got {row['commit']!r}")
    if not _LOCATION.fullmatch(row["bug_location"]):
        raise ManifestError(file, lineno, "bug_location", f"expected 'path.py:line', got {row['bug_location']!r}")
    if row["token_budget"] < 0:
        raise ManifestError(file, lineno, "token_budget", f"must be >= 0, got {row['token_budget']}")
    for name in ("original_line", "mutated_line", "known_repair"):
        if "\n" in row.get(name, ""):
            raise ManifestError(file, lineno, name, "must be a single line (no newline)")
    if row["mutated_line"] == row["original_line"]:
        raise ManifestError(file, lineno, "mutated_line", "is identical to original_line")
    try:
        parse_test_command(row["test_command"])
    except ValueError as exc:
        raise ManifestError(file, lineno, "test_command", str(exc)) from None
    allow = row.get("screen_allow", [])
    for i, entry in enumerate(allow):
        if not isinstance(entry, str) or (entry != "*" and entry.partition(":")[0] not in SCREEN_RULES):
            raise ManifestError(file, lineno, "screen_allow",
                                f"entry {i} is {entry!r}; expected '*', a rule ({', '.join(SCREEN_RULES)}) or 'rule:key'")
    task_id = row.get("task_id") or f"{row['repo']}:{row['bug_location']}:{row['mutation_type']}"
    return Task(**{**row, "task_id": task_id, "screen_allow": tuple(allow)})


def check_against_source(task: Task, source: GitSource, file: Path, lineno: int) -> None:
    """``original_line`` is the file's line at the commit; the mutated file compiles."""
    try:
        source.resolve_commit(task.commit)
    except GitError:
        raise ManifestError(file, lineno, "commit", f"{task.commit} is not a commit of {source.origin}") from None
    try:
        text = source.read_file(task.commit, task.path).decode("utf-8")
    except (GitError, UnicodeDecodeError) as exc:
        raise ManifestError(file, lineno, "bug_location", str(exc)) from None
    lines = text.split("\n")
    if task.line > len(lines):
        raise ManifestError(file, lineno, "bug_location", f"{task.path} has {len(lines)} lines at {task.commit[:12]}")
    actual = lines[task.line - 1]
    if actual != task.original_line:
        raise ManifestError(file, lineno, "original_line",
                            f"does not match {task.bug_location} at {task.commit[:12]}: the file has {actual!r}")
    mutated = lines[: task.line - 1] + [task.mutated_line] + lines[task.line:]
    try:
        compile("\n".join(mutated), task.path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise ManifestError(file, lineno, "mutated_line", f"the mutated file does not compile: {exc.msg}") from None


def load_manifest(path: Path | str, *, resolve_repo: Callable[[str], GitSource] | None = None) -> list[Task]:
    """Load and validate a JSONL manifest; ``resolve_repo`` enables checks against the source."""
    path = Path(path)
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for lineno, row in jsonl_objects(path, ManifestError):
        task = _row_to_task(row, path, lineno)
        if task.task_id in seen:
            raise ManifestError(path, lineno, "task_id",
                                f"duplicate id {task.task_id!r} (first on line {seen[task.task_id]})")
        seen[task.task_id] = lineno
        if resolve_repo is not None:
            try:
                source = resolve_repo(task.repo)
            except (GitError, FileNotFoundError) as exc:
                raise ManifestError(path, lineno, "repo", str(exc)) from None
            check_against_source(task, source, path, lineno)
        tasks.append(task)
    return tasks


def repo_resolver(repos_dir: Path | str, *, cache_dir: Path | str | None = None) -> Callable[[str], GitSource]:
    """Find ``repo`` as ``<dir>/<repo>``, ``<repo>.git`` or ``<repo>.bundle``; opened once each."""
    from ..repo.git import open_source

    base = Path(repos_dir)
    opened: dict[str, GitSource] = {}

    def resolve(repo: str) -> GitSource:
        if repo not in opened:
            if "/" in repo.strip("/") and not (base / repo).exists() or ".." in Path(repo).parts:
                raise FileNotFoundError(f"repo {repo!r} must name an entry of {base}")
            for candidate in (base / repo, base / f"{repo}.git", base / f"{repo}.bundle"):
                if candidate.exists():
                    opened[repo] = open_source(candidate, cache_dir=cache_dir)
                    break
            else:
                raise FileNotFoundError(f"no repository {repo!r} in {base} (tried {repo}, {repo}.git, {repo}.bundle)")
        return opened[repo]

    return resolve
