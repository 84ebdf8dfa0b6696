"""The README's "first paper" commands, run as written from another directory: a method comparison with intervals.

The sweep replays the archived SmolLM2 answers (provider replay) over one job per method on the
Boltons pilot tasks, then paper.build writes index.md with every method's pass rate and coverage
and their Wilson intervals. Needs the pinned boltons sdist in the cache (``.ci/run`` fetches it).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from beacon.repo.pypi import SdistPin, cached_sdist

ROOT = Path(__file__).resolve().parents[2]
PIN = SdistPin("boltons", "26.2.0", "d39cfd15c1a1c3bd4d705c82252fa9edb8e4f5e8cc039f8e39afac7b1b47e92c")
CACHE = Path("~/.cache/beacon/sdists").expanduser()


def readme_first_paper() -> list[list[str]]:
    text = (ROOT / "README.md").read_text()
    block = text.split("Your first paper", 1)[1].split("```", 2)[1]
    return [line.split() for line in block.splitlines() if line.startswith("python -m")]


def test_readme_first_paper_compares_methods_with_intervals(tmp_path):
    if cached_sdist(PIN, CACHE) is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must fetch {PIN} into {CACHE} before the tests (.ci/run does)")
        pytest.skip(f"{PIN} is not in {CACHE} (python -m beacon.repo.pypi boltons==26.2.0 --sha256 … --repos-dir "
                    "~/.cache/beacon/repos)")
    commands = readme_first_paper()
    assert [c[:3] for c in commands] == [["python", "-m", "experiments.repair"], ["python", "-m", "paper.build"]]
    env = {**os.environ, "CI": "1", "PYTHONPATH": str(ROOT)}
    for command in commands:
        out = subprocess.run([sys.executable, *command[1:]], cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=1200)
        assert out.returncode == 0, (command, out.stderr[-3000:])
    index = (tmp_path / "paper" / "build" / "index.md").read_text()
    rows = [line for line in index.splitlines() if re.match(r"\| \w+ \| dev_report \| replay \|", line)]
    methods = {row.split(" | ")[0].strip("| ") for row in rows}
    assert methods == {"no_retrieval", "bm25", "grounded_bm25", "vector", "bca", "ppr", "perron"}, methods
    assert all(re.search(r"\d+\.\d \[\d+\.\d, \d+\.\d\] \| \d+ / \d+ \| \d+\.\d \[\d+\.\d, \d+\.\d\]", r) for r in rows)
    assert "Sweeps read: `boltons_replay/+experiment=boltons_replay`" in index
    summary = json.loads((tmp_path / "paper" / "build" / "summary.json").read_text())
    coverage = summary["tables"]["tab_coverage"]["rows"]
    assert coverage["bm25|dev_report|replay|diff|2000|no"]["Coverage (%)"] == 100.0
    assert coverage["no_retrieval|dev_report|replay|diff|2000|no"]["Coverage (%)"] == 0.0
    for png in ("fig_coverage.png", "fig_pass_rate.png"):
        assert (tmp_path / "paper" / "build" / png).stat().st_size > 10_000
    # the sweep validated each of its 3 tasks once (two sandboxed runs each), and its 8 jobs shared the verdicts
    sweep = tmp_path / "outputs" / "sweeps" / "boltons_replay" / "+experiment=boltons_replay"
    validations = [json.loads(p.read_text())["sessions"][-1]["environment"]["validation"]
                   for p in sweep.glob("*/run/run.json")]
    assert len(validations) == 8 and all(len(v) == 3 for v in validations)
    assert sorted(how for v in validations for how in v.values() if how == "ran") == ["ran"] * 3
    assert len(list((sweep / ".shared" / "validation").glob("*.json"))) == 3
