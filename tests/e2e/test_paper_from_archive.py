"""paper.build on a real archived run: every failure-mode cell equals a count from its records."""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from beacon.artifacts import verify
from beacon.records import OUTCOMES  # the single outcome list paper/ follows

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT / "outputs" / "archive" / "control_smoke"


def test_paper_tables_match_the_archived_records(tmp_path):
    out = subprocess.run([sys.executable, "-m", "paper.build", str(ARCHIVE), "--out", str(tmp_path / "build"),
                          "--resamples", "500"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in (ARCHIVE / "records.jsonl").read_text().splitlines() if line]
    expected: dict[str, Counter] = {}
    for r in rows:
        expected.setdefault(r["method"], Counter())[r["outcome"]] += 1
    tex = (tmp_path / "build" / "tab_failure_modes.tex").read_text()
    body = tex.split("\\midrule", 1)[1].split("\\bottomrule", 1)[0]
    seen = set()
    for line in body.strip().splitlines():
        if "&" not in line:
            continue
        cells = [c.strip() for c in line.rstrip("\\ ").split("&")]
        method = cells[0].replace("\\_", "_")
        counts = expected[method]
        assert cells[2] == str(sum(counts.values()))
        assert cells[3:] == [str(counts[o]) for o in OUTCOMES], method
        seen.add(method)
    assert seen == set(expected)
    assert verify(ARCHIVE) == []  # building never touches the run
    for name in ("fig_pass_rate.png", "fig_coverage.pdf", "tab_paired.tex", "tab_router_oracle_upper_bound.tex"):
        assert (tmp_path / "build" / name).stat().st_size > 0
