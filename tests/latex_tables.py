"""Shared test helper: read back a booktabs table that ``paper.build`` wrote (header, sections, caption, label)."""
from __future__ import annotations

from pathlib import Path


def parse_tex(path: Path) -> tuple[list[str], list[list[list[str]]], str, str]:
    """(header, sections of rows of cells, caption, label) of a booktabs table written by paper.build."""
    text = path.read_text()
    lines = text.splitlines()
    assert lines.count(r"\toprule") == 1 and lines.count(r"\bottomrule") == 1
    top, bottom = lines.index(r"\toprule"), lines.index(r"\bottomrule")
    assert lines[top + 2] == r"\midrule"

    def cells(line):
        assert line.endswith(r" \\"), line
        return [unescape(c) for c in line[:-3].split(" & ")]

    sections, current = [], []
    for line in lines[top + 3:bottom]:
        if line == r"\midrule":
            sections.append(current)
            current = []
        else:
            current.append(cells(line))
    sections.append(current)
    caption = next(l for l in lines if l.startswith(r"\caption{"))[len(r"\caption{"):-1]
    label = next(l for l in lines if l.startswith(r"\label{"))[len(r"\label{"):-1]
    return cells(lines[top + 1]), sections, unescape(caption), label


def unescape(s: str) -> str:
    for a, b in ((r"\_", "_"), (r"\%", "%"), (r"\&", "&"), (r"\#", "#"), (r"\$", "$"), (r"\{", "{"), (r"\}", "}")):
        s = s.replace(a, b)
    return s
