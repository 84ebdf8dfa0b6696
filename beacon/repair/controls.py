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

The checkout is hostile after a run without the sandbox (which binds it read-only): the code under test may have
left a FIFO, a symlink, a 16 TiB sparse file, a tree 1,000 folders deep or names that are not UTF-8 where a control
file should be. The walk here is iterative, never follows a link, and names a path that is not a small regular file
by what it is instead of opening it, so such a tree reads as a changed control file; it cannot stall, crash or
mislead the host (red-team findings F6-F8).
"""
from __future__ import annotations

import configparser
import hashlib
import os
import stat
import tomllib
from pathlib import Path, PurePosixPath
from typing import Iterable, Iterator, Mapping

# pytest's config file names in its own precedence order (pytest 9).
CONFIG_NAMES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini",
                "pyproject.toml", "tox.ini", "setup.cfg")
_ALWAYS_CONFIG = frozenset({"pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini"})
# ``python -m pytest`` puts the checkout first on sys.path, so these names at
# its root would replace pytest itself (or what it imports at startup).
SHADOW_NAMES = ("pytest", "pytest.py", "_pytest", "pluggy", "pluggy.py", "py.py")
_SKIP_DIRS = frozenset({".git", ".hg", ".svn"})
MAX_CONTROL_BYTES = 16 << 20  # a conftest, config or test module larger than this is named, not hashed


def _digest(path: Path) -> str:
    """SHA-256 of a regular file, opened without following a link or blocking on a FIFO; ``"absent"``; or what
    else is there (never equal to a hash, so a pristine file replaced by it reads as changed)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "absent"
    except OSError as exc:
        return f"unreadable ({exc.strerror})"
    if not stat.S_ISREG(st.st_mode):
        return f"not a regular file ({stat.filemode(st.st_mode)})"
    if st.st_size > MAX_CONTROL_BYTES:
        return f"too large ({st.st_size} bytes)"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        return f"unreadable ({exc.strerror})"
    digest = hashlib.sha256()
    with os.fdopen(fd, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            if handle.tell() > MAX_CONTROL_BYTES:  # grew after the lstat
                return "too large (grew while read)"
    return digest.hexdigest()


def _walk(root: Path) -> Iterator[tuple[Path, list[str], list[str]]]:
    """``os.walk`` without recursion (a deep tree cannot exhaust the stack) or links: (folder, dirs, non-dirs)."""
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        dirs = [e.name for e in entries if e.is_dir(follow_symlinks=False) and e.name not in _SKIP_DIRS]
        yield folder, dirs, [e.name for e in entries if not e.is_dir(follow_symlinks=False)]
        stack.extend(folder / d for d in reversed(dirs))


def shown(rel: str) -> str:
    """A path for messages and rows: a name that is not UTF-8 (surrogate escapes) shown with ``\\x..`` escapes."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


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
    for folder, dirs, files in _walk(root):
        if "conftest.py" in files or "conftest.py" in dirs:  # a folder named conftest.py is a change too
            path = folder / "conftest.py"
            found[path.relative_to(root).as_posix()] = _digest(path)
    for name in CONFIG_NAMES + SHADOW_NAMES:
        path = root / name
        if os.path.isdir(path) and not os.path.islink(path):
            for folder, _, files in _walk(path):
                for f in files:
                    found[(folder / f).relative_to(root).as_posix()] = _digest(folder / f)
        elif os.path.lexists(path):
            found[name] = _digest(path)
    for rel in extra:
        rel = _relative(rel)
        found[rel] = _digest(root / rel)
    return dict(sorted(found.items()))


def protected_changes(root: Path, expected: Mapping[str, str]) -> list[str]:
    """How ``root``'s control files differ from ``expected``; empty if identical."""
    actual = snapshot_protected(root, extra=[k for k in expected if not _is_control(k)])
    problems = []
    for rel in sorted(set(expected) | set(actual)):
        want, got = expected.get(rel), actual.get(rel, "absent")
        name = shown(rel)
        if want is None:
            problems.append(f"{name} was added (pytest would load it)")
        elif got == "absent" and want != "absent":
            problems.append(f"{name} was removed")
        elif got != want:
            odd = "" if len(got) == 64 or got == "absent" else f": {got}"  # not a hash: say what is there
            problems.append(f"{name} was {'created' if want == 'absent' else 'modified'}{odd}")
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
