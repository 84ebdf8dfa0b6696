"""The editable-path policy of one repair task, and its preconditions on the source file.

A repair may change exactly one file: the task's declared source file. That
file itself must not be something that decides how tests run or what they
check, so a manifest cannot declare its way around the harness: test files
and test directories, ``conftest.py``, files the pytest command selects,
modules named in a literal ``pytest_plugins``, files matching a literal
``python_files`` pattern of the root config, symlinks and paths outside the
repository are refused. Diffs that change file modes, rename, delete or
create files, or carry binary patches are refused too (only text content of
the declared file is ever written).
"""
from __future__ import annotations

import ast
import configparser
import fnmatch
import re
import tomllib
from pathlib import Path, PurePosixPath

from ..graph.symbols import is_test_path
from ..data.manifest import Task
from .policy import EditPolicy

_DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")
_GIT_EXTENDED = re.compile(
    r"^(old mode|new mode|new file mode|deleted file mode|rename from|rename to|copy from|copy to|"
    r"similarity index|GIT binary patch|Binary files)\b", re.MULTILINE)


def edit_policy(task: Task) -> EditPolicy:
    return EditPolicy(editable=frozenset({task.path}), max_files=1, allow_new_files=False)


def extended_header_problem(answer: str) -> str | None:
    """A git extended header in a diff answer (mode change, rename, binary …), if any."""
    match = _GIT_EXTENDED.search(answer)
    return None if match is None else f"diff carries '{match.group(1)}': only text edits of the declared file are allowed"


def _literal_strings(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def plugin_modules(tree: Path, files: list[str]) -> set[str]:
    """Module names in literal ``pytest_plugins = …`` assignments of ``files``."""
    found: set[str] = set()
    for rel in files:
        try:
            module = ast.parse((tree / rel).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for stmt in module.body:
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in stmt.targets):
                found.update(_literal_strings(stmt.value))
    return found


def python_files_patterns(tree: Path) -> tuple[str, ...]:
    """Literal ``python_files`` patterns of the root pytest config (defaults when none)."""
    for name in ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg"):
        path = tree / name
        if path.is_file():
            parser = configparser.ConfigParser(interpolation=None)
            try:
                parser.read(path, encoding="utf-8")
            except (configparser.Error, UnicodeDecodeError):
                continue
            section = "pytest" if name.endswith("pytest.ini") or name == "tox.ini" and parser.has_section("pytest") else "tool:pytest"
            if parser.has_option(section, "python_files"):
                return tuple(parser.get(section, "python_files").split())
    pyproject = tree / "pyproject.toml"
    if pyproject.is_file():
        try:
            options = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
            value = options.get("python_files")
            if value:
                return tuple(value.split() if isinstance(value, str) else value)
        except (KeyError, tomllib.TOMLDecodeError, UnicodeDecodeError, TypeError):
            pass
    return _DEFAULT_PYTHON_FILES


def source_file_problems(task: Task, tree: Path) -> list[str]:
    """Why the task's declared source file may not be the one a repair edits (empty: fine)."""
    path = task.path
    problems: list[str] = []
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts:
        return [f"{path}: escapes the repository"]
    full = tree / path
    if full.is_symlink():
        problems.append(f"{path}: is a symlink")
    elif not full.is_file():
        problems.append(f"{path}: no such file in the snapshot")
    if pure.name == "conftest.py":
        problems.append(f"{path}: conftest.py controls pytest")
    if is_test_path(path):
        problems.append(f"{path}: is a test file or lies in a test directory")
    for selected in task.tests.selection:
        target = selected.split("::", 1)[0].rstrip("/")
        if path == target or path.startswith(target + "/"):
            problems.append(f"{path}: is selected by the test command ({selected})")
    if any(fnmatch.fnmatch(pure.name, pattern) for pattern in python_files_patterns(tree)):
        problems.append(f"{path}: matches a python_files pattern, so pytest collects it")
    candidates = [p.relative_to(tree).as_posix() for p in tree.rglob("conftest.py")]
    candidates += [s.split("::", 1)[0] for s in task.tests.selection if s.split("::", 1)[0].endswith(".py")]
    module = path[:-3].replace("/", ".")
    for plugin in plugin_modules(tree, candidates):
        if plugin == module or module.endswith("." + plugin) or plugin.endswith("." + module):
            problems.append(f"{path}: is loaded as a pytest plugin ({plugin})")
    return problems
