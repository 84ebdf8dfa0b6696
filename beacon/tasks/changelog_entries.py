"""Changelog entries: the bullets of a changelog with their sections, fix detection and reference stripping.

``parse_entries`` reads top-level bullets (``-``/``*``/``+``, indented at most
3 spaces) with their continuation lines and the nearest heading above
(rst underlined, markdown ``#``, a bold line, ``Word:``); an entry's
``text`` is always an exact slice of the changelog. ``strip_refs`` removes
every issue/PR reference form the projects use (``:issue:`N```,
``{pr}`N```, ``#N``, ``owner/repo#N``, ``[#N](url)``, ```#N`_``, issue and
PR URLs, lines left holding only "Closes"), so a query cannot leak the
number that pins it. Used by ``beacon.tasks.changelog``.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

_BULLET = re.compile(r"^( {0,3})[-*+]( +)\S")
_UNDERLINE = re.compile(r"^(=+|-+|\++|~+|\^+|\*+)\s*$")
_MD_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_BOLD_HEADING = re.compile(r"^\*\*([^*]+)\*\*:?\s*$")
_COLON_HEADING = re.compile(r"^([A-Z][\w /-]{2,40}):\s*$")
_FIX_WORD = re.compile(r"\b(fix(es|ed|ing)?|bug(s|fix(es)?)?|regression|crash(es|ed)?|incorrect(ly)?|broken|"
                       r"no longer (fails|raises|crashes|breaks))\b", re.IGNORECASE)
_NOT_FIX_SECTION = re.compile(r"feature|added|addition|deprecat|remov|doc|support|internal|changed|improvement",
                              re.IGNORECASE)
_FIX_SECTION = re.compile(r"fix|bug", re.IGNORECASE)
# Issue citations (they make an entry a fix) and every issue/PR reference (stripped from the query).
_ISSUE_REF = re.compile(r"[:{]issue[:}]`|(?<![\w&])#\d+|/issues/\d+")
_REF_NUMBER = re.compile(r"[:{](?:issue|pr|ghissue|ghpull|gh)[:}]`(?:[\w.-]+/[\w.-]+)?#?(\d+)`"
                         r"|(?<![\w&/])(?:[\w.-]+/[\w.-]+)?#(\d+)\b|/(?:issues|pull)/(\d+)")
_STRIP = [
    re.compile(r"\[#\d+\]\([^)\s]*\)"),  # markdown link to an issue/PR
    re.compile(r"\[@[\w-]+\]\([^)\s]*\)"),  # markdown link to an author (sqlfluff): noise next to the refs
    re.compile(r"\[[^\]\n]*#\d+[^\]\n]*\]\([^)\s]*\)"),  # markdown link whose label cites a number
    re.compile(r"`[^`]*#\d+[^`]*`_+"),
    re.compile(r"`+#\d+`+"),  # ``#123``
    re.compile(r"\b(?:pull request|pull|pr|issue|issues|gh)\s+(?=[\w.-]*#\d)", re.IGNORECASE),  # "(Pull #12)"  # rst link (inline or named) whose label is an issue
    re.compile(r"<?https?://\S*/(issues|pull|discussions)/\d+\S*?>?(?=[\s),.;]|$)"),
    re.compile(r"[:{](?:issue|pr|ghissue|ghpull|gh)[:}]`[^`]*`"),
    re.compile(r"(?<![\w&/])(?:[\w.-]+/[\w.-]+)?#\d+\b"),
]
_REF_LINE = re.compile(r"^\s*(closes|fixes|fixed|refs|ref|see|resolves|close|fix|part of)?\s*[:,.]?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Entry:
    """One bullet of a changelog: ``text`` is the exact slice of the file (bullet and continuations)."""

    text: str
    section: str
    line: int  # 1-based first line

    @property
    def body(self) -> str:
        """The entry without its bullet marker, continuation lines dedented."""
        first, _, rest = self.text.partition("\n")
        m = _BULLET.match(first)
        head = first[m.end() - 1:] if m else first.lstrip()
        return (head + ("\n" + textwrap.dedent(rest) if rest else "")).strip()

    def is_fix(self) -> bool:
        if _FIX_WORD.search(self.body):
            return True
        if _NOT_FIX_SECTION.search(self.section) and not _FIX_SECTION.search(self.section):
            return False
        return bool(_FIX_SECTION.search(self.section) or _ISSUE_REF.search(self.body))

    def numbers(self) -> list[str]:
        """Issue and PR numbers the entry cites, in order."""
        return list(dict.fromkeys(a or b or c for a, b, c in _REF_NUMBER.findall(self.text)))


def _heading(lines: list[str], i: int) -> str | None:
    """The heading text if line ``i`` is one (rst underlined, markdown ``#``, bold line, ``Word:``)."""
    line = lines[i]
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    if line.strip() and not line[:1].isspace() and _UNDERLINE.match(nxt) and len(nxt.strip()) >= 3 \
            and not _BULLET.match(line):
        return line.strip()
    for pattern in (_MD_HEADING, _BOLD_HEADING, _COLON_HEADING):
        m = pattern.match(line)
        if m:
            return m.group(1).strip()
    return None


def parse_entries(text: str) -> list[Entry]:
    """Every top-level bullet of ``text`` with its continuation lines and section; never raises."""
    lines = text.split("\n")
    entries: list[Entry] = []
    section = ""
    i = 0
    while i < len(lines):
        heading = _heading(lines, i)
        m = _BULLET.match(lines[i])
        if heading is not None and not m:
            section = heading
            i += 1
            continue
        if not m:
            i += 1
            continue
        indent = len(m.group(1))
        j = i + 1
        while j < len(lines):  # continuations: indented deeper than the bullet, blank lines between them
            ln = lines[j]
            if ln.strip() and (len(ln) - len(ln.lstrip(" ")) <= indent or _heading(lines, j) is not None):
                break
            j += 1
        end = j
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1
        entries.append(Entry("\n".join(lines[i:end]), section, i + 1))
        i = j
    return entries


def strip_refs(text: str) -> str:
    """``text`` without issue/PR references, lines left holding only "Closes"-like words, empty brackets."""
    for pattern in _STRIP:
        text = pattern.sub("", text)
    text = re.sub(r"\(\s*(?:[,;]\s*|and\s+)*\)", "", text)
    text = re.sub(r"(?<=[.!?])[ \t]+(?:see|closes|fixes|refs|ref|resolves)[ \t]*[.:]?[ \t]*$", "", text,
                  flags=re.IGNORECASE | re.MULTILINE)
    text = re.sub(r"[ \t]+\)", ")", text)
    text = re.sub(r"\[\s*\]", "", text)
    lines = [ln.rstrip() for ln in text.split("\n")]
    lines = [ln for ln in lines if ln.strip() == "" or not _REF_LINE.match(ln)]
    text = "\n".join(re.sub(r"(?<=\S)[ \t]{2,}", " ", ln) for ln in lines)
    text = re.sub(r"\s+([.,;])(?=\s|$)", r"\1", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()
