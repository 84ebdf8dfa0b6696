"""Key types of the symbol graph: ``Symbol``, edge types, skipped files."""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from pathlib import PurePosixPath

MODULE_QUALNAME = "<module>"


class EdgeType(IntEnum):
    CALLS = 0
    IMPORTS = 1
    ASSIGNS = 2
    INHERITS = 3
    DECORATES = 4  # decorator -> decorated symbol
    CONTAINS = 5  # parent -> child (module -> class -> method, function -> nested)

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Symbol:
    """One node. Lines are 1-based and inclusive, decorators included.

    The byte span is ``[start_byte, end_byte)`` over the UTF-8 encoding of the
    file's *indexed text* (decoded, newlines normalised to ``\\n``) and covers
    whole lines, trailing newline included.
    """

    id: str
    kind: str  # module | class | function | method
    path: str
    qualname: str
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    is_test: bool
    parent: str | None = None

    @property
    def name(self) -> str:
        if self.kind == "module":
            return PurePosixPath(self.path).stem
        # The Python name: a redefinition `Cls.x#2` (property setter) is still `x`.
        return self.qualname.rsplit(".", 1)[-1].split("#", 1)[0]

    def contains(self, other: Symbol) -> bool:
        return (
            self.path == other.path
            and self.start_line <= other.start_line
            and other.end_line <= self.end_line
        )


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file that was not indexed, with the reason (never fatal)."""

    path: str
    reason: str


def symbol_id(path: str, qualname: str) -> str:
    return f"{path}::{qualname}"


# ``testsuite``: old flask and werkzeug keep their tests in ``flask/testsuite/``, ``werkzeug/testsuite/``.
_TEST_DIRS = frozenset({"test", "tests", "testing", "testsuite"})


def is_test_path(path: str) -> bool:
    """Test files: under a test directory, ``test_*.py``, ``*_test.py``, ``conftest.py``.

    The one predicate for "is this test code": the graph keeps such files out of
    the candidates, the miners (``beacon.tasks.mine``, ``.changelog``) keep them out
    of the gold. A bare ``test.py`` or ``tests.py`` is *not* a test by its name:
    ``werkzeug/test.py`` is the test client (library code) and ``jinja2/tests.py``
    holds the template tests; the dev snapshots' other ``test.py`` files are under a
    test directory already, in ``scripts/`` or vendored (``requests/packages/chardet``).
    """
    parts = PurePosixPath(path).parts
    name = parts[-1]
    if name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py"):
        return True
    return any(part in _TEST_DIRS for part in parts[:-1])
