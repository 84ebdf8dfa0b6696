"""Query-term weights by where a word stands in the issue: the title, code, or a pasted dump.

The lexical BM25 signals (symbol, file, name field, caller-expanded documents)
score a document by ``Σ_t qtf(t) · w(d, t)``, with ``qtf(t)`` the raw count of
the term in the issue: a word of the title counts like the same word on each
of 200 lines of a pasted log. ``QueryWeights`` gives each *occurrence* of a
term a weight by the line it stands on and sums them per term instead:

* ``title_boost``: occurrences on the title, the first non-empty line (a
  SWE-bench problem statement starts with the issue's title, a mined task with
  the commit subject) count ``1 + title_boost``;
* ``code_boost``: occurrences inside inline backticks or on a code line of a
  fenced or indented block count ``1 + code_boost``;
* ``dump_weight``: occurrences on a *dump* line count ``dump_weight`` instead
  (a dump line is never a code line): a number-heavy line (``NUMERIC_SHARE``
  of its non-space characters are digits), an output line of a ``>>>``
  session, or a line of a long pasted block (``LONG_BLOCK`` non-empty lines
  or more) that does not parse as Python; a traceback line (``Traceback``,
  ``File "..."`` and the source line under it, ``SomeError: ...``) is never a
  dump: the frames and error messages name the code at fault;
* ``qtf_cap``: a term counts its ``qtf_cap`` heaviest occurrences only
  (0: all);
* ``prose_title_boost``: added to ``title_boost`` when the report pastes no
  code (``report_parts.pastes_code``: no fenced or indented block, no
  ``>>>`` session, no traceback). In a prose-only report the title is the
  one summary and the body is narrative that dilutes it; a report with code
  keeps the plain weights, the code carries its signal.

The neutral values (0, 0, 1, 0, 0) give exactly today's query: ``weighted_vector``
then returns what ``lookup`` of the plain counts gives, float for float. Pure
text in; ``lookup`` maps a term to its column in a graph's index.
"""
from __future__ import annotations

import ast
import bisect
import math
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..graph.word_terms import split_identifier
from .report_parts import pastes_code

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # the identifiers ``text.terms`` splits, in the same order
_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)  # as query_features: the block's body is group 1
_INLINE = re.compile(r"`([^`\n]+)`")
_PROMPT = re.compile(r"^\s*(?:>>>|\.\.\.)(?: |$)")
_TRACE = re.compile(r'^\s*(?:Traceback \(most recent call last\)|File "|During handling|The above exception)')
_ERROR = re.compile(r"^\s*[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit)\b")
LONG_BLOCK = 10  # a pasted block of this many non-empty lines or more is long
NUMERIC_SHARE = 0.3  # a line whose non-space characters are this share digits or more is number-heavy
MIN_DIGITS = 4  # ... and has at least this many digits (``L031`` is a rule name, not data)
MAX_CHARS = 200_000  # longer texts are weighed on their first MAX_CHARS characters' layout (the rest: prose)


@dataclass(frozen=True)
class QueryWeights:
    """How much an occurrence of a query term counts, by where it stands (see the module docstring)."""

    title_boost: float = 0.0
    code_boost: float = 0.0
    dump_weight: float = 1.0
    qtf_cap: int = 0
    prose_title_boost: float = 0.0

    def __post_init__(self) -> None:
        for name in ("title_boost", "code_boost", "prose_title_boost"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be finite and >= 0, got {value!r}")
        if not (math.isfinite(self.dump_weight) and 0 < self.dump_weight <= 1):
            raise ValueError(f"dump_weight must be in (0, 1], got {self.dump_weight!r}")
        if isinstance(self.qtf_cap, bool) or not isinstance(self.qtf_cap, int) or self.qtf_cap < 0:
            raise ValueError(f"qtf_cap must be an integer >= 0 (0: no cap), got {self.qtf_cap!r}")

    @property
    def neutral(self) -> bool:
        return (self.title_boost == 0 and self.code_boost == 0 and self.dump_weight == 1 and self.qtf_cap == 0
                and self.prose_title_boost == 0)


NEUTRAL = QueryWeights()

# a line's role; an occurrence's weight is its line's (a title or inline-code occurrence may add to it)
PROSE, TITLE, CODE, DUMP = "prose", "title", "code", "dump"


@lru_cache(maxsize=64)
def _outside_fences(head: str) -> str:
    """``head`` with every fenced block (fences included) turned to spaces, newlines kept (offsets unchanged)."""
    return _FENCE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), head)


def _parses(lines: list[str]) -> bool:
    try:
        ast.parse(textwrap.dedent("\n".join(_PROMPT.sub("", x) for x in lines)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _block_roles(lines: list[str]) -> list[str]:
    """The roles of one pasted block's lines (code, or dump for output, number-heavy and long non-Python lines)."""
    session = any(_PROMPT.match(x) for x in lines)
    long_foreign = (not session and sum(1 for x in lines if x.strip()) >= LONG_BLOCK and not _parses(lines))
    roles, after_frame = [], False
    for line in lines:
        trace = bool(_TRACE.match(line) or _ERROR.match(line)) or (after_frame and line.strip() != "")
        after_frame = line.lstrip().startswith('File "')
        if not line.strip() or trace or _PROMPT.match(line):
            roles.append(CODE)
        elif session or long_foreign or _numeric(line):
            roles.append(DUMP)
        else:
            roles.append(CODE)
    return roles


def _numeric(line: str) -> bool:
    chars = "".join(line.split())
    digits = sum(c.isdigit() for c in chars)
    return digits >= MIN_DIGITS and digits >= NUMERIC_SHARE * len(chars)


@lru_cache(maxsize=1024)
def line_roles(text: str) -> tuple[str, ...]:
    """The role of each ``\\n``-separated line of ``text``: ``title`` (the first non-empty line), ``code``,
    ``dump`` or ``prose``."""
    head = text[:MAX_CHARS]
    lines = head.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    roles = [PROSE] * len(lines)
    for m in _FENCE.finditer(head):  # fenced blocks, the body's lines (the fence lines themselves stay prose)
        first = bisect.bisect_right(starts, m.start(1)) - 1
        body = m.group(1).split("\n")
        if body and body[-1] == "":
            body = body[:-1]
        for i, role in enumerate(_block_roles(body)):
            roles[first + i] = role
    i = 0
    plain = _outside_fences(head).split("\n")
    while i < len(plain):  # indented blocks outside the fences: runs of lines starting with 4 spaces or a tab
        if plain[i].startswith(("    ", "\t")) and plain[i].strip():
            j = i
            while j < len(plain) and (plain[j].startswith(("    ", "\t")) or not plain[j].strip()):
                j += 1
            while j > i and not plain[j - 1].strip():
                j -= 1
            for k, role in enumerate(_block_roles(plain[i:j])):
                roles[i + k] = role
            i = j
        else:
            if plain[i].strip() and _numeric(plain[i]):
                roles[i] = DUMP
            i += 1
    for i, line in enumerate(lines):  # the title: the first non-empty line, whatever it held
        if line.strip():
            roles[i] = TITLE
            break
    return tuple(roles)


def _inline_spans(text: str) -> list[tuple[int, int]]:
    """Offsets of inline backtick spans outside fenced blocks."""
    return [m.span(1) for m in _INLINE.finditer(_outside_fences(text[:MAX_CHARS]))]


@lru_cache(maxsize=1024)
def term_weights(text: str, weights: QueryWeights) -> tuple[tuple[str, float], ...]:
    """Every term occurrence of ``text`` (the order of ``text.terms``) with its weight."""
    roles = line_roles(text)
    title = 1.0 + weights.title_boost + (weights.prose_title_boost if weights.prose_title_boost
                                         and not pastes_code(text) else 0.0)
    starts = [m.end() for m in re.finditer("\n", text[:MAX_CHARS])]
    inline = _inline_spans(text)
    inline_starts = [s for s, _ in inline]
    out: list[tuple[str, float]] = []
    for m in _IDENT.finditer(text):
        parts = split_identifier(m.group(0))
        if not parts:
            continue
        pos = m.start()
        role = roles[bisect.bisect_right(starts, pos)] if pos < MAX_CHARS else PROSE
        k = bisect.bisect_right(inline_starts, pos) - 1
        in_code = role == CODE or (k >= 0 and inline[k][0] <= pos < inline[k][1])
        w = weights.dump_weight if role == DUMP else 1.0
        if role == TITLE:
            w *= title
        if in_code and role != DUMP:
            w *= 1.0 + weights.code_boost
        out.extend((t, w) for t in parts)
    return tuple(out)


def weighted_vector(text: str, weights: QueryWeights, lookup: Callable[[str], int | None]
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Sorted columns and weighted counts of the terms of ``text`` that ``lookup`` knows.

    Per column the weights of its occurrences are summed (the ``qtf_cap`` heaviest ones, with a cap); with
    every weight 1 and no cap these are the plain counts.
    """
    found: dict[int, list[float]] = {}
    for term, w in term_weights(text, weights):
        j = lookup(term)
        if j is not None:
            found.setdefault(j, []).append(w)
    cols = np.array(sorted(found), dtype=np.int64)
    cap = weights.qtf_cap
    vals = np.array([sum(sorted(found[c], reverse=True)[:cap] if cap else found[c]) for c in cols.tolist()],
                    dtype=np.float64)
    return cols, vals
