"""The archived Boltons pilot (issue 7): its reproduction by replay (no model) and its paper outputs.

``outputs/archive/boltons_pilot`` holds two sealed runs of one sweep: ``local_llm`` (SmolLM2-135M
via llama.cpp, every completion recorded) and ``oracle_controls`` (the known repairs on the same
grid). Reproduction replays the recorded completions and re-runs boltons' own tests in the
sandbox; the pinned sdist must be in the sdist cache (``.ci/run`` fetches it, hash-checked,
before the tests: the tests themselves never touch the network).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from beacon.repo.pypi import SdistPin, cached_sdist
from paper.build import build
from paper.tables import Settings

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT / "outputs" / "archive" / "boltons_pilot"
PIN = SdistPin("boltons", "26.2.0", "d39cfd15c1a1c3bd4d705c82252fa9edb8e4f5e8cc039f8e39afac7b1b47e92c")
CACHE = Path("~/.cache/beacon/sdists").expanduser()


@pytest.fixture(scope="module")
def sdist():
    if cached_sdist(PIN, CACHE) is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must fetch {PIN} into {CACHE} before the tests (.ci/run does)")
        pytest.skip(f"{PIN} is not in {CACHE}; fetch it with: python -m beacon.repo.pypi boltons==26.2.0 "
                    f"--sha256 {PIN.sha256} --repos-dir ~/.cache/beacon/repos")


def records(run: str) -> list[dict]:
    return [json.loads(line) for line in (ARCHIVE / run / "records.jsonl").read_text().splitlines() if line]


def test_archive_is_the_pilot_grid():
    model, controls = records("local_llm"), records("oracle_controls")
    for rows, provider in ((model, "local_llm"), (controls, "oracle")):
        assert len(rows) == 48 and {r["provider"] for r in rows} == {provider}
        assert len({r["task_id"] for r in rows}) == 3 and {r["edit_format"] for r in rows} == {"diff", "exact_edit"}
        assert len({r["method"] for r in rows} - {"no_retrieval", "target_file"}) >= 6
    assert all(r["outcome"] == "pass" for r in controls)  # every known repair passes, proven by JUnit
    for r in controls:
        assert r["tests"]["outcomes"].get("failed", 0) == 0 and r["tests"]["outcomes"]["passed"] >= 1
    # the real model's native token counts are recorded, and every prompt fitted the context
    meta = json.loads((ARCHIVE / "local_llm" / "run.json").read_text())
    n_ctx = meta["config"]["provider"]["options"]["n_ctx"]
    for r in model:
        usage = r["response"]
        assert usage["input_tokens"] > 0 and usage["input_tokens"] + meta["config"]["provider"]["max_tokens"] <= n_ctx
    completions = (ARCHIVE / "local_llm" / "completions.jsonl").read_text().splitlines()
    assert len(completions) == 48


# A seeded sample of each run's 48 rows, every task among them (every row: ``python -m
# experiments.benchmarks.reproduce_archives``, a release check; all 96 cost about 200 s on a loaded 2-core machine).
SAMPLE = 6


def test_pilot_reproduces_by_replay(sdist, tmp_path):
    from experiments.reproduce import sample_keys
    for run in ("local_llm", "oracle_controls"):
        archived = {r["key"]: r for r in records(run)}
        assert len({archived[k]["task_id"] for k in sample_keys(archived, SAMPLE, 0)}) == 3
    out = subprocess.run([sys.executable, "-m", "experiments.reproduce", str(ARCHIVE), "--out", str(tmp_path),
                          "--sample", str(SAMPLE)],
                         cwd=ROOT, capture_output=True, text=True, timeout=900, env={**os.environ, "CI": "1"})
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
    assert out.stdout.count(f"{SAMPLE} of 48 records (a sample: --sample {SAMPLE} --seed 0), "
                            "every scored field identical") == 2
    for run in ("local_llm", "oracle_controls"):  # the sampled rows, as the archive holds them
        assert len((tmp_path / run / "records.jsonl").read_text().splitlines()) == SAMPLE


def test_paper_outcome_grid_of_the_pilot(tmp_path):
    build([ARCHIVE], tmp_path, Settings(resamples=500))
    summary = json.loads((tmp_path / "summary.json").read_text())
    grid = summary["tables"]["tab_outcome_grid"]
    cells = [c for c in grid["columns"] if c[:1] == "T" and " " in c]
    assert len(cells) == 6  # 3 mutations x 2 edit formats
    expected = {}
    for run in ("local_llm", "oracle_controls"):
        for r in records(run):
            expected.setdefault((r["method"], r["provider"], r["control"]), []).append(r["outcome"])
    for row in grid["rows"].values():
        outcomes = expected[(row["Method"], row["Provider"], row["Control"] == "yes")]
        assert sorted(row[c] for c in cells) == sorted(outcomes)
    assert (tmp_path / "fig_outcome_grid.png").read_bytes().startswith(b"\x89PNG")


def test_reproduce_names_a_folder_without_runs(tmp_path):
    from experiments.reproduce import archived_runs, main

    assert archived_runs(ARCHIVE) == [ARCHIVE / "local_llm", ARCHIVE / "oracle_controls"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="neither a run folder"):
        archived_runs(tmp_path / "empty")
    assert main([str(tmp_path / "empty")]) == 2


def test_a_sample_is_a_seeded_draw_of_whole_rows(capsys):
    from experiments.reproduce import main, sample_keys

    rows = {r["key"]: r for r in records("oracle_controls")}
    assert sample_keys(rows, 6, 0) == sample_keys(rows, 6, 0) != sample_keys(rows, 6, 1)
    assert len(sample_keys(rows, 6, 0)) == 6 and sample_keys(rows, 6, 0) <= set(rows)
    assert sample_keys(rows, 48, 0) is None and sample_keys(rows, None, 0) is None  # every row: the full run
    for bad in ("0", "-3", "many"):
        with pytest.raises(SystemExit) as exit_info:
            main([str(ARCHIVE), "--sample", bad])
        assert exit_info.value.code == 2
    assert "--sample" in capsys.readouterr().err
