"""``tab_localization_paired_metrics``: every metric vs the reference, per task set, against hand-computed records.

Two task sets: ``mined`` (rows carry ``task_set``) and a run written before
the field existed (rows without it: the set ``all``). Values are chosen so
means, Better/Worse, the sign test and (for constant differences) the
bootstrap interval can be worked out by hand; the one non-constant interval
is recomputed with numpy per the procedure in ``paper/stats.py``.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from beacon.artifacts import RunWriter

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `paper` is a top-level folder of the checkout, not an installed package
    sys.path.insert(0, str(ROOT))

from paper.build import build  # noqa: E402
from paper.stats import sign_test_p  # noqa: E402
from paper.tables import Settings  # noqa: E402

RESAMPLES, SEED = 500, 3
BUDGETS = (2000, 8000)
# instance -> (file_acc@1, file_acc@5, function_acc@5, function_acc@10, {budget: budget_function_recall})
MINED = {
    "bm25": {"m1": (1, 1, 0, 0, {2000: 0.0, 8000: 0.5}), "m2": (0, 1, 0, 0, {2000: 0.0, 8000: 0.5}),
             "m3": (0, 0, None, None, {2000: None, 8000: None}), "m4": (1, 1, 1, 0, {2000: 1.0, 8000: 1.0})},
    "perron": {"m1": (1, 1, 1, 1, {2000: 0.5, 8000: 1.0}), "m2": (1, 1, 1, 1, {2000: 0.0, 8000: 1.0}),
               "m3": (1, 0, None, None, {2000: None, 8000: None}), "m4": "error"},
}
LEGACY = {
    "bm25": {"d1": (0, 0, 0, 0, {2000: 0.0, 8000: 0.0}), "d2": (1, 1, 1, 1, {2000: 1.0, 8000: 1.0})},
    "perron": {"d1": (1, 1, 0, 0, {2000: 0.0, 8000: 0.0}), "d2": (0, 1, 1, 1, {2000: 1.0, 8000: 1.0})},
}


def record(instance: str, method: str, budget: int, value, task_set: str | None) -> dict:
    base = {"key": f"{instance}|{method}()|{budget}", "kind": "localize", "instance_id": instance, "repo": "o/r",
            "base_commit": "c" * 40, "method": method, "method_params": {}, "budget": budget}
    if task_set is not None:
        base["task_set"] = task_set
    if value == "error":
        return {**base, "metrics": None, "error": "PatchMismatchError: hunk 1"}
    f1, f5, fn5, fn10, recall = value
    metrics = {"file_acc@1": f1, "file_acc@5": f5, "module_acc@5": None, "function_acc@5": fn5,
               "function_acc@10": fn10, "file_mrr": f1, "function_mrr": fn10, "budget_file_recall": 1.0,
               "budget_function_recall": recall[budget]}
    return {**base, "metrics": metrics, "error": None}


def write_run(run_dir: Path, rows: list[dict]) -> None:
    sci = {"n": len(rows), "first": rows[0]["key"]}
    with RunWriter(run_dir, config=sci, scientific=sci, overrides=[], inputs={},
                   code={"commit": "0" * 40, "dirty": False}, packages={}) as run:
        for row in rows:
            run.append(row)
        run.seal()


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("paired_metrics")
    for name, data, task_set in (("mined", MINED, "mined"), ("legacy", LEGACY, None)):
        for method, values in data.items():
            for budget in BUDGETS:
                rows = [record(i, method, budget, v, task_set) for i, v in values.items()]
                write_run(tmp / "sweep" / f"{name}-{method}-{budget}" / "run", rows)
    out = tmp / "out"
    build([tmp / "sweep"], out, Settings(reference="bm25", resamples=RESAMPLES, seed=SEED))
    summary = json.loads((out / "summary.json").read_text())
    tex = (out / "tab_localization_paired_metrics.tex").read_text()
    return {"summary": summary["tables"]["tab_localization_paired_metrics"], "tex": tex}


def cells(table, task_set, metric, budget="any") -> dict:
    return table["summary"]["rows"][f"{task_set}|perron|{metric}|{budget}"]


def test_rows_grouped_by_task_set_and_ordered(table):
    order = table["summary"]["row_order"]
    metrics = ["File Acc@1", "File Acc@5", "Function Acc@5", "Function Acc@10"]
    expected = [f"{s}|perron|{m}|any" for s in ("all", "mined") for m in metrics]
    expected = expected[:4] + [f"all|perron|Function recall|{b}" for b in BUDGETS] + expected[4:] + \
        [f"mined|perron|Function recall|{b}" for b in BUDGETS]
    assert order == expected  # no bm25-vs-bm25 rows; sets sorted, "all" = rows without task_set
    assert table["tex"].count(r"\midrule") == 2  # header rule + one between the two task sets


def test_hand_computed_cells(table):
    # mined, File Acc@1: pairs m1..m3 (perron failed on m4): perron 1,1,1 vs bm25 1,0,0
    row = cells(table, "mined", "File Acc@1")
    assert row["Pairs"] == 3 and row["Better"] == 2 and row["Worse"] == 0
    assert row["Method (%)"] == pytest.approx(100) and row["Reference (%)"] == pytest.approx(100 / 3)
    assert row["Difference (pp)"] == pytest.approx(200 / 3)
    assert row["Sign p"] == "0.5"  # 2 * P(X <= 0), X ~ Bin(2, 1/2); text, 3 significant digits
    diffs = {"m1": 0.0, "m2": 1.0, "m3": 1.0}  # the documented bootstrap, recomputed
    arr = np.array([diffs[k] for k in sorted(diffs)])
    idx = np.random.default_rng(SEED).integers(0, 3, size=(RESAMPLES, 3))
    low, high = np.percentile(arr[idx].sum(axis=1) / 3, [2.5, 97.5])
    assert (row["CI low (pp)"], row["CI high (pp)"]) == pytest.approx((100 * low, 100 * high))
    # Function Acc@10: m3 has no gold function (null): 2 pairs, both better, constant difference
    row = cells(table, "mined", "Function Acc@10")
    assert (row["Pairs"], row["Better"], row["Worse"], row["Difference (pp)"]) == (2, 2, 0, pytest.approx(100))
    assert (row["CI low (pp)"], row["CI high (pp)"]) == pytest.approx((100, 100))
    # File Acc@5: every pair ties
    row = cells(table, "mined", "File Acc@5")
    assert (row["Better"], row["Worse"], row["Difference (pp)"], row["Sign p"]) == (0, 0, pytest.approx(0), "1")
    # budgets: recall at 2000 is 0.5,0 vs 0,0 and at 8000 1,1 vs 0.5,0.5
    row = cells(table, "mined", "Function recall", "2000")
    assert (row["Pairs"], row["Better"], row["Worse"], row["Difference (pp)"]) == (2, 1, 0, pytest.approx(25))
    row = cells(table, "mined", "Function recall", "8000")
    assert (row["Better"], row["Difference (pp)"]) == (2, pytest.approx(50))
    # the legacy set: file_acc@1 0,1 vs 1,0 -> one better, one worse, mean 0
    row = cells(table, "all", "File Acc@1")
    assert (row["Pairs"], row["Better"], row["Worse"], row["Difference (pp)"], row["Sign p"]) == \
        (2, 1, 1, pytest.approx(0), "1")
    assert r"mined & perron & File Acc@1 & any & 3 & 100.0 & 33.3 & +66.7" in table["tex"]


def test_sign_test_exact_values():
    assert sign_test_p(0, 0) == 1.0 and sign_test_p(3, 3) == 1.0
    assert sign_test_p(4, 0) == pytest.approx(2 / 16) and sign_test_p(0, 4) == pytest.approx(2 / 16)
    assert sign_test_p(9, 1) == pytest.approx(2 * (1 + 10) / 1024)
    assert sign_test_p(400, 0) == pytest.approx(2 * 0.5 ** 400)  # big n: exact integers, no overflow
    assert sign_test_p(6, 4) == pytest.approx(2 * sum(math.comb(10, i) for i in range(5)) / 1024)
    with pytest.raises(ValueError, match="non-negative"):
        sign_test_p(-1, 2)
