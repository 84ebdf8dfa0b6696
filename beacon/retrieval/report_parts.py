"""Which lines of a bug report are pasted code: blocks, sessions and tracebacks, as opposed to prose.

``code_lines(text)`` marks, line by line, what ``signals_real.snippets``'s
block finder (``code_blocks``) reads as code, with the same patterns: every
line a fenced block spans, from its opening fence through its closing one
(``_FENCE``, also an unclosed fence to the end); outside fences a line
indented by 4 spaces or a tab (one line of ``_INDENTED``'s blocks) or a
``>>>``/``...`` prompt line (``_PROMPT``); and a traceback: its
``Traceback (most recent call last):`` header, the indented lines after it
and the exception line that ends it, plus any line holding a
``File "x", line N`` frame with the deeper-indented source line after it.
Lines are split on ``\n`` after ``\r\n`` -> ``\n``, as the block finder
reads the text. Inline backticks are prose: a report that marks names as
code but pastes nothing is a prose report.

``pastes_code(text)``: does any line hold pasted code? The composer's
``prose_title_boost`` (``query_weights``) switches on when it does not; the
text variants of the real issues (``experiments/benchmarks/text_variants``)
keep or drop these lines.
"""
from __future__ import annotations

import bisect
import itertools
import re
from functools import lru_cache

from .query_features import _FENCE  # the block finders' fence pattern (signals_real.snippets has the same)

_PROMPT = re.compile(r"^\s*(?:>>>|\.\.\.)(?: |$)")  # signals_real.snippets' prompt (not imported: an import cycle)
_HEADER = "Traceback (most recent call last):"
_FRAME = re.compile(r'File "[^"\n]+", line \d+')  # anywhere in a line, as query_features reads frames
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?::|$)")  # ``socket.error: [Errno 104] ...``, ``KeyboardInterrupt``
_INDENT_LINE = re.compile(r"^(?: {4}|\t)")  # one line of ``_INDENTED``'s blocks


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def code_lines(text: str) -> list[bool]:
    """Per line of ``text`` (split on ``\\n`` after ``\\r\\n`` -> ``\\n``): is it part of pasted code?"""
    normal = text.replace("\r\n", "\n")
    lines = normal.split("\n")
    code = [False] * len(lines)
    starts = list(itertools.accumulate((len(ln) + 1 for ln in lines[:-1]), initial=0))
    for m in _FENCE.finditer(normal):
        first = bisect.bisect_right(starts, m.start()) - 1
        last = bisect.bisect_right(starts, max(m.start(), m.end() - 1)) - 1
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


@lru_cache(maxsize=1024)
def pastes_code(text: str) -> bool:
    """Does the report paste code (a fenced or indented block, a ``>>>`` session, a traceback)?"""
    return any(code_lines(text))
