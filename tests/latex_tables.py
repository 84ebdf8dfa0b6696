"""Shared test helpers: read back the booktabs tables ``paper.build`` wrote and check them against ``summary.json``."""
from __future__ import annotations

import json
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


def assert_summary_matches_tex(out: Path) -> dict:
    """Every ``tab_*.tex`` in ``out`` shows exactly the rows and cells ``summary.json`` lists; the summary."""
    summary = json.loads((out / "summary.json").read_text())
    labels = sorted(p.stem for p in out.glob("tab_*.tex"))
    assert sorted(summary["tables"]) == labels
    for lab in labels:
        header, sections, _, _ = parse_tex(out / f"{lab}.tex")
        table = summary["tables"][lab]
        assert table["columns"] == header
        flat = [row for section in sections for row in section]
        assert len(flat) == len(table["rows"]) == len(table["row_order"])
        for row_id, cells in zip(table["row_order"], flat):
            for column, text in zip(header, cells):
                value = table["rows"][row_id][column]
                if isinstance(value, float):
                    assert text in (f"{value:.1f}", f"{value:+.1f}"), (lab, row_id, column)
                else:
                    assert text == ("--" if value is None else str(value)), (lab, row_id, column)
    return summary
