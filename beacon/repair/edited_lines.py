"""Which lines of a repaired file the edit changed, aligned by difflib (not by position).

Two uses: the row's ``diff_lines_changed`` (how big the repair is) and the lines the canary plugin's comparison
probe watches (:func:`edited_lines`: a comparison dunder whose code spans one of them is probed at asserts; see
``canary_plugin._Comparisons.probe``). Lines are compared as text split on ``"\\n"``.
"""

from __future__ import annotations

import difflib
from typing import Iterator, Sequence


def _hunks(before: str, after: str) -> Iterator[tuple[int, int, int, int]]:
    matcher = difflib.SequenceMatcher(None, before.split("\n"), after.split("\n"), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            yield i1, i2, j1, j2


def lines_changed(before: str, after: str) -> int:
    """Per hunk, the larger of the lines removed and added: a one-line fix counts 1, and a line inserted near the
    top does not count every line after it."""
    return sum(max(i2 - i1, j2 - j1) for i1, i2, j1, j2 in _hunks(before, after))


def _changed_in(before: str, after: str) -> set[int]:
    """1-based lines of ``after`` the edit from ``before`` wrote, and for a removal the lines on both sides of it
    (what is left of a function whose line was deleted is changed too)."""
    lines: set[int] = set()
    for _, _, j1, j2 in _hunks(before, after):
        lines.update(range(j1 + 1, j2 + 1) if j2 > j1 else (j1, j1 + 1))
    return lines


def edited_lines(after: str, befores: Sequence[str]) -> tuple[int, ...]:
    """The 1-based lines of ``after`` changed relative to *every* text in ``befores`` (the file the model was
    given, and the task's pristine file before its mutation): restoring a pristine line is no edit, as for the
    static screen. Sorted; empty when ``befores`` is empty or ``after`` equals one of them."""
    result: set[int] | None = None
    for before in befores:
        changed = _changed_in(before, after)
        result = changed if result is None else result & changed
    last = after.count("\n") + 1
    return tuple(sorted(n for n in (result or ()) if 1 <= n <= last))
