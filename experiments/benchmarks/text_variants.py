"""Parts of a bug report: its title, its prose and its pasted code, as text variants of an issue.

Real reports mix prose with pasted code (fenced or indented blocks, ``>>>``
sessions, tracebacks); the issue signals mostly read the code parts. To see
how each method does when parts are missing, ``variant(text, kind)`` keeps:

* ``title``: the first line only;
* ``prose``: every line but the code lines (inline ``code`` marks kept);
* ``code``: the title and the code lines (fence lines included, so the
  signals still see fenced blocks as code).

A *code line* is found with the same patterns as ``signals_real.snippets``'s
block finder (``code_blocks``), line by line: every line a fenced block spans,
from its opening fence through its closing one (``_FENCE``, also an unclosed
fence to the end); outside fences a line indented by 4 spaces or a tab
(``_INDENTED``) or a ``>>>``/``...`` prompt line (``_PROMPT``); and a
traceback: its ``Traceback (most recent call last):`` header, the indented
lines after it and the exception line that ends it, plus any line
holding a ``File "x", line N`` frame, with the deeper-indented source line after it.
Whole lines are kept or dropped, so each variant is a subsequence of the
text's lines (after ``\\r\\n`` -> ``\\n``, as the block finder reads it).

Used as instance sets ``real:title``, ``real:prose``, ``real:code`` by
``localize_real_sets.instances`` (so ``localize_real_signals`` and
``localize_distractors`` take ``--sets real,real:prose,real:title``).
"""
from __future__ import annotations

import re

from beacon.retrieval.signals_real.snippets import _FENCE, _PROMPT

KINDS = ("title", "prose", "code")
_HEADER = "Traceback (most recent call last):"
_FRAME = re.compile(r'File "[^"\n]+", line \d+')  # anywhere in a line, as query_features reads frames
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?::|$)")  # ``socket.error: [Errno 104] ...``, ``KeyboardInterrupt``
_INDENT_LINE = re.compile(r"^(?: {4}|\t)")  # one line of ``_INDENTED``'s blocks


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").split("\n")


def code_lines(text: str) -> list[bool]:
    """Per line of ``text`` (split on ``\\n`` after ``\\r\\n`` -> ``\\n``): is it part of pasted code?"""
    normal = text.replace("\r\n", "\n")
    lines = normal.split("\n")
    code = [False] * len(lines)
    for m in _FENCE.finditer(normal):
        first = normal.count("\n", 0, m.start())
        last = normal.count("\n", 0, max(m.start(), m.end() - 1))
        for i in range(first, last + 1):
            code[i] = True
    i = 0
    while i < len(lines):
        line = lines[i]
        if code[i]:
            i += 1
            continue
        if _INDENT_LINE.match(line) or _PROMPT.match(line):
            code[i] = True
        elif _HEADER in line:
            code[i] = True
            j = i + 1
            while j < len(lines) and not code[j] and lines[j].strip() and _indent(lines[j]) > 0:
                code[j] = True  # the frames and their source lines (a blank line ends them)
                j += 1
            if j < len(lines) and not code[j] and _EXCEPTION_LINE.match(lines[j]):
                code[j] = True  # the exception that ends the traceback
                j += 1
            i = j
            continue
        elif _FRAME.search(line):
            code[i] = True
            if i + 1 < len(lines) and lines[i + 1].strip() and _indent(lines[i + 1]) > _indent(line):
                code[i + 1] = True
                i += 1
        i += 1
    return code


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
