"""Parts of a bug report: its title, its prose and its pasted code, as text variants of an issue.

Real reports mix prose with pasted code (fenced or indented blocks, ``>>>``
sessions, tracebacks); the issue signals mostly read the code parts. To see
how each method does when parts are missing, ``variant(text, kind)`` keeps:

* ``title``: the first line only;
* ``prose``: every line but the code lines (inline ``code`` marks kept);
* ``code``: the title and the code lines (fence lines included, so the
  signals still see fenced blocks as code).

A *code line* is one ``beacon.retrieval.report_parts.code_lines`` marks (the
block finder's patterns, line by line: fenced and indented blocks, ``>>>``
sessions, tracebacks). Whole lines are kept or dropped, so each variant is a
subsequence of the text's lines (after ``\r\n`` -> ``\n``).

Used as instance sets ``real:title``, ``real:prose``, ``real:code`` by
``localize_real_sets.instances`` (so ``localize_real_signals`` and
``localize_distractors`` take ``--sets real,real:prose,real:title``).
"""
from __future__ import annotations

from beacon.retrieval.report_parts import code_lines

KINDS = ("title", "prose", "code")


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").split("\n")


def variant(text: str, kind: str) -> str:
    """``text`` reduced to its ``title``, ``prose`` or ``code`` part (see the module docstring)."""
    if kind not in KINDS:
        raise ValueError(f"unknown text variant {kind!r}; expected one of {', '.join(KINDS)}")
    lines = _lines(text)
    if kind == "title":
        return lines[0]
    code = code_lines(text)
    if kind == "prose":
        return "\n".join(ln for ln, c in zip(lines, code) if not c)
    return "\n".join([lines[0]] + [ln for ln, c in zip(lines[1:], code[1:]) if c])
