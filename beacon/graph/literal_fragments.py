"""The matchable fragments of a file's string constants, computed with its parse (and cached with it).

The literal index (``beacon.retrieval.signals_real.literals``) matches an issue's text against the pieces of the
code's string constants: each constant is cut at format placeholders (``{name}``, ``%s``, ``%(x)r``), each piece
lower-cased with whitespace collapsed, and a piece is kept when it is a phrase (at least ``MIN_WORDS`` words and
``MIN_CHARS`` characters) or an option-like token (``MIN_TOKEN_CHARS`` characters with ``-`` or ``_``). These
rules live here, in one place, because they depend only on a file's constants: ``file_fragments`` applies them
when the file is parsed, so the parse cache (keyed by file content) holds them and building the index cuts no
constant, and a one-line edit recomputes one file's fragments.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

MIN_WORDS = 3
MIN_CHARS = 12
MIN_TOKEN_CHARS = 6
PLACEHOLDER = re.compile(r"\{[^{}]*\}|%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdrifxXeEgGc%]")
WORD = re.compile(r"[a-z0-9_]+")
OPTION = re.compile(r"-{0,2}[a-z0-9][a-z0-9_-]*[-_][a-z0-9_-]*[a-z0-9]")
# ``OPTION``'s matches in a longer text (``findall``'s group), in linear time. Unanchored, a long run of
# ``[a-z0-9_-]`` with no match is rescanned from each of its characters (a pasted hex dump), and even from one start
# ``OPTION``'s two ``[a-z0-9_-]*`` rescan a long ``-``/``_`` tail once per separator. So the match starts at the run
# (in a run only the leftmost start can match: a later one sees a subset of it), past leading ``-``/``_`` as
# ``OPTION`` itself would, and is spelled as alphanumeric runs joined by separator runs, possessively (Python
# 3.11): the same tokens, ending at the run's last letter or digit (tests/retrieval/signals_real/test_long_text.py).
OPTION_IN_TEXT = re.compile(r"(?<![a-z0-9_-])[-_]*?(-{0,2}[a-z0-9]++(?:[-_]++[a-z0-9]++)+)")
# ``OPTION`` for ``fullmatch`` on one piece of a constant, spelled the same way: a constant like ``"a" + "-" * n``
# costs n, not n² (the same pieces: tests/graph/test_literal_fragments.py)
OPTION_WHOLE = re.compile(r"-{0,2}[a-z0-9]++(?:[-_]++[a-z0-9]++)+")


def normalise(text: str) -> str:
    """Lower-cased, whitespace runs collapsed to one space, stripped (``str.split`` splits on exactly the
    characters ``\\s`` matches, without a regular expression)."""
    return " ".join(text.lower().split())


def fragments(literal: str) -> list[str]:
    """The matchable pieces of one string constant (see the module docstring)."""
    if len(literal) < MIN_CHARS and literal.isascii() and "-" not in literal and "_" not in literal:
        # too short for a phrase (pieces of ASCII text only shrink when normalised), and an option token
        # needs a ``-`` or ``_``: most short constants are skipped without splitting them
        return []
    out = []
    # every placeholder starts with ``{`` or ``%``: a constant with neither is one piece
    for piece in PLACEHOLDER.split(literal) if "{" in literal or "%" in literal else (literal,):
        piece = normalise(piece).strip(" :,.;'\"()[]")
        if len(piece) >= MIN_CHARS and len(WORD.findall(piece)) >= MIN_WORDS:
            out.append(piece)
        elif " " not in piece and len(piece) >= MIN_TOKEN_CHARS and OPTION_WHOLE.fullmatch(piece):
            out.append(piece)
    return out


@dataclass(frozen=True, slots=True)
class FileFragments:
    """One file's fragments: ``names`` are its distinct fragments in order of first occurrence (constants in
    ``literals`` order, each constant's fragments in order); occurrence ``k`` is fragment ``names[which[k]]`` of a
    constant on line ``lines[k]``, each (line, fragment) pair once, in order of first occurrence."""
    names: tuple[str, ...] = ()
    lines: tuple[int, ...] = ()
    which: tuple[int, ...] = ()

    def pairs(self) -> list[tuple[int, str]]:
        """The (line, fragment) occurrences."""
        return [(line, self.names[k]) for line, k in zip(self.lines, self.which)]


def file_fragments(literals: list[tuple[int, str]] | tuple[tuple[int, str], ...]) -> FileFragments:
    """The fragments of a file's ``(line, value)`` string constants (``parse.string_constants``)."""
    number: dict[str, int] = {}
    seen: set[tuple[int, int]] = set()
    lines: list[int] = []
    which: list[int] = []
    cut: dict[str, list[str]] = {}  # a file repeats many of its constants
    for line, value in literals:
        if len(value) < MIN_TOKEN_CHARS:  # no fragment is longer than its constant
            continue
        found = cut.get(value)
        if found is None:
            found = cut[value] = fragments(value)
        for frag in found:
            k = number.setdefault(frag, len(number))
            if (line, k) not in seen:
                seen.add((line, k))
                lines.append(line)
                which.append(k)
    return FileFragments(tuple(number), tuple(lines), tuple(which))
