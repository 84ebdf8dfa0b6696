"""The outcome grid (tab_outcome_grid, fig_outcome_grid) built from the committed control_smoke archive."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from paper.build import build
from paper.tables import Settings

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT / "outputs" / "archive" / "control_smoke"


def test_every_cell_is_the_outcome_of_its_record(tmp_path):
    out = tmp_path / "out"
    build([ARCHIVE], out, Settings(resamples=200))
    table = json.loads((out / "summary.json").read_text())["tables"]["tab_outcome_grid"]
    records = [json.loads(line) for line in (ARCHIVE / "records.jsonl").read_text().splitlines() if line]
    tasks = sorted({r["task_id"] for r in records})
    number = {t: f"T{i}" for i, t in enumerate(tasks, start=1)}
    seen = 0
    for r in records:
        row_id = "|".join(map(str, [r["method"], r["budget"], r["query_type"], r["provider"],
                                    "yes" if r["control"] else "no"]))
        assert table["rows"][row_id][f"{number[r['task_id']]} {r['edit_format']}"] == r["outcome"]
        seen += 1
    assert seen == sum(row["Attempts"] for row in table["rows"].values())
    for row in table["rows"].values():
        assert row["Passes"] == sum(v == "pass" for k, v in row.items() if k[:1] == "T" and " " in k)
    for t, n in number.items():
        assert f"{n} = {t}" in table["caption"]
    assert (out / "fig_outcome_grid.png").read_bytes().startswith(b"\x89PNG")
    assert "tab:outcome_grid" in (out / "tab_outcome_grid.tex").read_text()


def test_grid_is_left_out_of_large_sweeps(tmp_path):
    """More than MAX_TASKS tasks: no grid (it would be unreadable); the other tables are unchanged."""
    from paper import outcome_grid

    copy = tmp_path / "run"
    shutil.copytree(ARCHIVE, copy)
    original = outcome_grid.MAX_TASKS
    try:
        outcome_grid.MAX_TASKS = 2  # the archive holds 3 tasks
        build([copy], tmp_path / "out", Settings(resamples=200))
    finally:
        outcome_grid.MAX_TASKS = original
    assert not (tmp_path / "out" / "tab_outcome_grid.tex").exists()
    assert (tmp_path / "out" / "tab_pass_rate.tex").exists()
