"""Files that control how pytest runs, and which of them a run may trust.

``conftest.py`` files and pytest config files are code and settings that run
*inside* pytest with the power to rewrite results: a conftest hookwrapper on
``pytest_runtest_makereport`` can set every report's outcome to "passed", and
the JUnit XML then faithfully records the lie. Disabling conftests outright
(``--noconftest``) would break every task whose tests need their fixtures, so
instead the runner only runs a checkout whose control files are byte-identical
to the task's pristine tree: :func:`snapshot_protected` hashes them on the
pristine tree, and :func:`protected_changes` lists every added, removed or
changed one on the checkout. Callers should also protect the task's test
files (``extra=``), since a test module can load plugins via
``pytest_plugins``. Modules at the checkout's root named like pytest or its
startup dependencies count as control files too: ``python -m pytest`` puts
the checkout first on ``sys.path``, so a root ``pytest.py`` would *be* pytest.

Only the checkout's root config file is ever used (:func:`root_config_file`):
pytest would otherwise search ancestor directories of the checkout for a
``pytest.ini``/``pyproject.toml`` and silently adopt settings from outside
the task.
"""
from __future__ import annotations

import configparser
import os
import tomllib
from pathlib import Path, PurePosixPath
from typing import Iterable, Mapping

from ..digests import sha256_file

# pytest's config file names in its own precedence order (pytest 9).
CONFIG_NAMES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini",
                "pyproject.toml", "tox.ini", "setup.cfg")
_ALWAYS_CONFIG = frozenset({"pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini"})
# ``python -m pytest`` puts the checkout first on sys.path, so these names at
# its root would replace pytest itself (or what it imports at startup).
SHADOW_NAMES = ("pytest", "pytest.py", "_pytest", "pluggy", "pluggy.py", "py.py")
_SKIP_DIRS = frozenset({".git", ".hg", ".svn"})


def _relative(rel: str) -> str:
    p = PurePosixPath(rel)
    if p.is_absolute() or ".." in p.parts or not p.parts:
        raise ValueError(f"protected path {rel!r} must be relative to the checkout, without '..'")
    return p.as_posix()


def snapshot_protected(root: Path, extra: Iterable[str] = ()) -> dict[str, str]:
    """SHA-256 of every conftest.py, root config file, root module that would shadow
    pytest (:data:`SHADOW_NAMES`), and each ``extra`` path.

    An ``extra`` path that does not exist is recorded as ``"absent"`` so that
    creating it later is caught too.
    """
    root = Path(root)
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        if "conftest.py" in filenames:
            path = Path(dirpath) / "conftest.py"
            found[path.relative_to(root).as_posix()] = sha256_file(path)
    for name in CONFIG_NAMES + SHADOW_NAMES:
        path = root / name
        if path.is_file():
            found[name] = sha256_file(path)
        elif path.is_dir():
            for sub in sorted(p for p in path.rglob("*") if p.is_file()):
                found[sub.relative_to(root).as_posix()] = sha256_file(sub)
    for rel in extra:
        rel = _relative(rel)
        path = root / rel
        found[rel] = sha256_file(path) if path.is_file() else "absent"
    return dict(sorted(found.items()))


def protected_changes(root: Path, expected: Mapping[str, str]) -> list[str]:
    """How ``root``'s control files differ from ``expected``; empty if identical."""
    actual = snapshot_protected(root, extra=[k for k in expected if not _is_control(k)])
    problems = []
    for rel in sorted(set(expected) | set(actual)):
        want, got = expected.get(rel), actual.get(rel, "absent")
        if want is None:
            problems.append(f"{rel} was added (pytest would load it)")
        elif got == "absent" and want != "absent":
            problems.append(f"{rel} was removed")
        elif got != want:
            problems.append(f"{rel} was {'created' if want == 'absent' else 'modified'}")
    return problems


def _is_control(rel: str) -> bool:
    p = PurePosixPath(rel)
    return p.name == "conftest.py" or rel in CONFIG_NAMES or p.parts[0] in SHADOW_NAMES


def _has_pytest_section(path: Path) -> bool:
    if path.name in _ALWAYS_CONFIG:
        return True
    try:
        text = path.read_text(encoding="utf-8")
        if path.name == "pyproject.toml":
            tool = tomllib.loads(text).get("tool")
            return isinstance(tool, dict) and isinstance(tool.get("pytest"), dict)
        parser = configparser.RawConfigParser(strict=False, interpolation=None)
        parser.read_string(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, configparser.Error):
        return True  # hand the broken file to pytest, which will refuse it loudly
    return parser.has_section("pytest" if path.name == "tox.ini" else "tool:pytest")


def root_config_file(checkout: Path) -> Path | None:
    """The config file pytest would pick in the checkout's root directory, if any."""
    for name in CONFIG_NAMES:
        path = Path(checkout) / name
        if path.is_file() and _has_pytest_section(path):
            return path
    return None
