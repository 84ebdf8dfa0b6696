"""A project's documentation read as text: which files, their sections, and the code names each section cites.

Users write reports in the vocabulary of the project's documentation, and documentation ties that
vocabulary to code: Sphinx roles (``:func:`flask.Flask.run```, ``:class:`~marshmallow.fields.Nested```),
autodoc and Python-domain directives (``.. autoclass:: requests.Session``, ``.. method:: get``),
``.. currentmodule::`` context, double-backquoted names (````Response.iter_content````) and, in
Markdown, single-backquoted ones. This module only reads text (no graph): ``doc_files`` lists the
documentation files of a snapshot (``docs/``/``doc/`` ``.rst``/``.md``/``.txt`` and the top-level
README; release notes and changelogs are excluded: they are history, and the changelog tasks' queries
come from them), ``sections`` splits a file at its headings (long sections again at blank lines), and
each ``Section`` carries the references it cites with the module context in effect where they stand.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

DOC_DIRS = ("docs", "doc")
DOC_SUFFIXES = (".rst", ".md", ".txt")
# release notes are history (and the source of the changelog tasks' queries): never read
_HISTORY_NAME = re.compile(r"(?i)^(changes|history|changelog|news|release[-_]?notes|whatsnew)(\.|$|[-_]?\d)")
_HISTORY_DIRS = frozenset({"changelog", "changes", "releases", "release_notes", "release-notes", "whatsnew",
                           "history", "news"})
MAX_FILE_BYTES = 1_000_000
MAX_SECTION_LINES = 60  # a longer section is cut again at blank lines, so one huge page is not one section

_NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_ROLE = re.compile(rf":(?:py:)?(?:func|class|meth|attr|exc|mod|data|obj|const|any):`(?:[^`<]*<)?[~!.]*({_NAME})(?:\(\))?>?`")
_DIRECTIVE = re.compile(rf"(?m)^[ \t]*\.\.[ \t]+(?:py:)?(auto)?(class|function|method|module|exception|data|attribute|"
                        rf"decorator|classmethod|staticmethod|property)::[ \t]+({_NAME})")
_CONTEXT = re.compile(rf"(?m)^[ \t]*\.\.[ \t]+(?:py:)?(?:currentmodule|module)::[ \t]+({_NAME})[ \t]*$")
_DOUBLE = re.compile(rf"``({_NAME})(?:\(\))?``")
_SINGLE = re.compile(rf"(?<![`:A-Za-z0-9_])`({_NAME})(?:\(\))?`(?![`_])")
_RST_RULE = re.compile(r"^([=\-~^\"'`#*+<>_:.])\1{2,}\s*$")
_MD_HEADING = re.compile(r"^#{1,6}\s+\S")


@dataclass(frozen=True)
class Reference:
    """A code name a section cites: ``name`` as written (``~``/``!``/``.`` prefixes and ``()`` dropped),
    ``module`` the ``currentmodule`` in effect ("" when none), ``kind`` how it was cited."""

    name: str
    module: str
    kind: str  # "role", "directive", "code" (double or single backquotes)


@dataclass(frozen=True)
class Section:
    path: str
    title: str
    text: str
    start_line: int  # 1-based
    refs: tuple[Reference, ...]


def is_history(rel: str) -> bool:
    """True for release notes and changelogs (by file name or folder)."""
    parts = rel.replace("\\", "/").split("/")
    return bool(_HISTORY_NAME.match(parts[-1])) or any(p.lower() in _HISTORY_DIRS for p in parts[:-1])


def doc_files(root: Path | str) -> list[str]:
    """The documentation files of a snapshot, as sorted paths relative to ``root``."""
    root = Path(root)
    out = []
    for top in DOC_DIRS:
        base = root / top
        if base.is_dir():
            out += [p for p in base.rglob("*") if p.suffix.lower() in DOC_SUFFIXES and p.is_file()]
    out += [p for p in root.glob("README*") if p.is_file() and p.suffix.lower() in ("", *DOC_SUFFIXES)]
    rels = {p.relative_to(root).as_posix() for p in out if p.stat().st_size <= MAX_FILE_BYTES}
    return sorted(r for r in rels if not is_history(r))


def _headings(lines: list[str]) -> list[tuple[int, str]]:
    """(line index where the section starts, title) for each heading: RST underlined/overlined, Markdown #."""
    out = []
    for i, line in enumerate(lines):
        if _MD_HEADING.match(line):
            out.append((i, line.lstrip("#").strip()))
        elif (i > 0 and _RST_RULE.match(line) and lines[i - 1].strip() and not _RST_RULE.match(lines[i - 1])
              and len(line.rstrip()) >= len(lines[i - 1].strip())):
            start = i - 2 if i >= 2 and _RST_RULE.match(lines[i - 2]) else i - 1
            out.append((start, lines[i - 1].strip()))
    return out


def _chunks(start: int, end: int, lines: list[str]) -> list[tuple[int, int]]:
    """[start, end) cut at blank lines into pieces of about MAX_SECTION_LINES lines."""
    out, cur = [], start
    while end - cur > MAX_SECTION_LINES:
        cut = next((j for j in range(cur + MAX_SECTION_LINES, end) if not lines[j].strip()), end)
        out.append((cur, cut))
        cur = cut
    out.append((cur, end))
    return out


def references(text: str, module: str = "") -> tuple[list[Reference], str]:
    """The references of ``text`` in order, and the module context in effect at its end."""
    events: list[tuple[int, int, Reference | str]] = []
    for m in _CONTEXT.finditer(text):
        events.append((m.start(), 0, m.group(1)))
    for m in _DIRECTIVE.finditer(text):
        events.append((m.start(), 1, Reference(m.group(3), "", "directive")))
    for m in _ROLE.finditer(text):
        events.append((m.start(), 1, Reference(m.group(1), "", "role")))
    taken = {(s, e) for s, e in ((m.start(), m.end()) for m in _ROLE.finditer(text))}
    for m in _DOUBLE.finditer(text):
        events.append((m.start(), 1, Reference(m.group(1), "", "code")))
    for m in _SINGLE.finditer(text):
        if not any(s <= m.start() < e for s, e in taken):
            events.append((m.start(), 1, Reference(m.group(1), "", "code")))
    out = []
    for _, _, ev in sorted(events, key=lambda e: (e[0], e[1])):
        if isinstance(ev, str):
            module = ev
        else:
            out.append(Reference(ev.name, module, ev.kind))
    return out, module


def sections(path: str, text: str) -> list[Section]:
    """``text`` split at its headings (long sections again at blank lines), each with its references."""
    lines = text.split("\n")
    starts = [0, *(i for i, _ in _headings(lines) if i > 0)]
    titles = {i: t for i, t in _headings(lines)}
    bounds = sorted(set(starts))
    out, module = [], ""
    for n, start in enumerate(bounds):
        end = bounds[n + 1] if n + 1 < len(bounds) else len(lines)
        for lo, hi in _chunks(start, end, lines):
            chunk = "\n".join(lines[lo:hi])
            refs, module = references(chunk, module)
            if chunk.strip():
                out.append(Section(path, titles.get(start, ""), chunk, lo + 1, tuple(refs)))
    return out


def read_sections(root: Path | str) -> list[Section]:
    """Every section of every documentation file of the snapshot at ``root``."""
    root = Path(root)
    out = []
    for rel in doc_files(root):
        text = (root / rel).read_bytes().decode("utf-8", errors="replace").replace("\r\n", "\n")
        out += sections(rel, text)
    return out
