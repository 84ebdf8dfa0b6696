"""What ``paper.build`` refuses, and its small pieces (labels, escaping, bootstrap), run in-process."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from beacon.artifacts import RunWriter, verify

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `paper` is a top-level folder of the checkout, not an installed package
    sys.path.insert(0, str(ROOT))

from paper.build import main  # noqa: E402
from paper.latex import Column, Table, escape  # noqa: E402
from paper.load import method_label  # noqa: E402
from paper.stats import paired_bootstrap_ci  # noqa: E402


def row(task="t1", method="bm25", budget=1000, outcome="pass", **extra) -> dict:
    base = {"key": f"{task}|{method}()|{budget}|vague|diff|replay", "task_id": task, "method": method,
            "method_params": {}, "budget": budget, "query_type": "vague", "edit_format": "diff",
            "provider": "replay", "control": False, "dry_run": False, "covers_bug_line": True, "outcome": outcome}
    return {**base, **extra}


def sealed(run_dir: Path, rows: list[dict]) -> Path:
    sci = {"n": len(rows), "name": run_dir.name}
    with RunWriter(run_dir, config=sci, scientific=sci, overrides=[], inputs={},
                   code={"commit": "0" * 40, "dirty": False}, packages={}) as run:
        for r in rows:
            run.append(r)
        run.seal()
    return run_dir


def build(capsys, *args) -> tuple[int, str]:
    code = main([*map(str, args)])
    return code, capsys.readouterr().err


def test_paths_without_runs_are_refused(tmp_path, capsys):
    code, err = build(capsys, tmp_path / "nope", "--out", tmp_path / "out")
    assert code == 2 and "not a folder" in err
    (tmp_path / "empty").mkdir()
    code, err = build(capsys, tmp_path / "empty", "--out", tmp_path / "out")
    assert code == 2 and "no run folder" in err


@pytest.mark.parametrize("change, message", [
    ({"budget": True}, "field 'budget': expected int, got True"),
    ({"outcome": "passed"}, "field 'outcome': 'passed' is not one of"),
    ({"control": None}, "field 'control': expected bool, got None"),
])
def test_bad_rows_are_refused_with_file_line_and_field(tmp_path, capsys, change, message):
    run = sealed(tmp_path / "run", [row("t1"), row("t2", **change)])
    code, err = build(capsys, run, "--out", tmp_path / "out")
    assert code == 2 and f"records.jsonl:2: {message}" in err


def test_missing_field_is_refused(tmp_path, capsys):
    bad = row("t2")
    del bad["provider"]
    run = sealed(tmp_path / "run", [row("t1"), bad])
    code, err = build(capsys, run, "--out", tmp_path / "out")
    assert code == 2 and "records.jsonl:2: field 'provider' is missing" in err


def test_a_cell_scored_twice_is_refused(tmp_path, capsys):
    a = sealed(tmp_path / "a", [row("t1")])
    b = sealed(tmp_path / "b", [row("t1", outcome="test_fail")])
    code, err = build(capsys, a, b, "--out", tmp_path / "out")
    assert code == 2 and "scored more than once: a (" in err and "b (" in err


def test_missing_reference_method_is_refused(tmp_path, capsys):
    run = sealed(tmp_path / "run", [row("t1", method="bca"), row("t1", method="perron")])
    code, err = build(capsys, run, "--out", tmp_path / "out", "--resamples", "10")
    assert code == 2 and "--reference bm25" in err and "bca, perron" in err


def test_out_inside_a_run_is_refused_and_the_run_stays_sealed(tmp_path, capsys):
    run = sealed(tmp_path / "run", [row("t1"), row("t1", method="bca")])
    code, err = build(capsys, run, "--out", run / "paper", "--resamples", "10")
    assert code == 2 and "inside run folder" in err
    assert verify(run) == []


def test_only_dry_run_or_invalid_rows_is_refused(tmp_path, capsys):
    run = sealed(tmp_path / "run", [row("t1", outcome=None, dry_run=True), row("t2", outcome=None)])
    code, err = build(capsys, run, "--out", tmp_path / "out")
    assert code == 2 and "no scored rows: 2 rows read, 1 dry-run, 1 without an outcome" in err


def test_small_build_in_process(tmp_path, capsys):
    rows = [row(t, m, outcome="pass" if (i + j) % 2 else "test_fail")
            for i, t in enumerate(["t1", "t2", "t3"]) for j, m in enumerate(["bm25", "bca"])]
    run = sealed(tmp_path / "run", rows)
    code, err = build(capsys, run, "--out", tmp_path / "out", "--resamples", "100")
    assert code == 0, err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    paired = summary["tables"]["tab_paired"]["rows"]["bca|vague|replay|diff|1000|no"]
    assert paired["Pairs"] == 3 and paired["Difference (pp)"] == pytest.approx(100 * (2 - 1) / 3)


def test_method_label_and_escape():
    assert method_label("bm25", {}) == "bm25"
    assert method_label("bca", {"depth": 3, "alpha": 0.5, "mode": "x"}) == "bca(alpha=0.5,depth=3,mode=x)"
    assert escape("target_file 50% & {x}") == r"target\_file 50\% \& \{x\}"


def test_table_formats_numbers_and_refuses_duplicate_row_ids():
    table = Table("tab_x", "cap", [Column("Name"), Column("Rate", "pct"), Column("Diff", "pp"), Column("N", "int")],
                  key_columns=1, sections=[[{"Name": "a_b", "Rate": 12.345, "Diff": -0.04, "N": 3}],
                                           [{"Name": "c", "Rate": None, "Diff": 5.0, "N": 0}]])
    text = table.to_latex()
    assert r"a\_b & 12.3 & -0.0 & 3 \\" in text and r"c & -- & +5.0 & 0 \\" in text
    assert text.count(r"\midrule") == 2 and r"\label{tab:x}" in text
    table.sections[1][0]["Name"] = "a_b"
    with pytest.raises(ValueError, match="share the id"):
        table.to_summary()


def test_bootstrap_is_seeded_and_resamples_tasks():
    ids, diffs = [f"t{i}" for i in range(40)], [(-1, 0, 1, 1, 0)[i % 5] for i in range(40)]
    first = paired_bootstrap_ci(ids, diffs, resamples=101, seed=3)
    assert first == paired_bootstrap_ci(ids, diffs, resamples=101, seed=3)
    assert first != paired_bootstrap_ci(ids, diffs, resamples=101, seed=4)
    assert paired_bootstrap_ci(["a", "b"], [1, 1], resamples=50) == (1.0, 1.0)
    # Two pairs of one task move together: a resample holding task "a" twice holds four of its pairs.
    low, high = paired_bootstrap_ci(["a", "a", "b"], [1, 1, -1], resamples=2000, seed=0)
    assert -1.0 <= low < 1 / 3 < high <= 1.0
    est = np.array([1.0, 1 / 3, -1.0])  # the only possible resample means: {a,a}, {a,b}, {b,b}
    assert np.isclose(est, low).any() and np.isclose(est, high).any()
    with pytest.raises(ValueError):
        paired_bootstrap_ci([], [])
