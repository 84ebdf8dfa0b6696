"""``python -m paper.build`` on sealed localization runs (alone and mixed with repair runs), cell by cell.

Rows are shaped exactly like ``experiments.localize.run_localize``'s records
(the body of ``beacon.localize.evaluate.evaluate`` plus the runner's fields;
a test checks the shape against both sources). Expected numbers are
recomputed here with plain Python and numpy (the documented bootstrap),
never with the ``paper`` package.
"""
from __future__ import annotations

import ast
import hashlib
import json
import math
import os
import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from beacon.artifacts import RunWriter
from latex_tables import assert_summary_matches_tex, parse_tex

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `paper` is a top-level folder of the checkout, not an installed package
    sys.path.insert(0, str(ROOT))

from paper.build import main  # noqa: E402
from paper.loc_tables import slice_note  # noqa: E402

INSTANCES = [f"i{i:02d}" for i in range(1, 11)]
BROKEN = "i10"  # its patch does not apply: an error row for every method and budget
NO_FUNCTIONS = "i03"  # gold without functions or modules: those metrics are null
NO_MODULES = "i04"  # gold without modules
TIMEOUT = ("perron", 4000, "i05")  # one more error row, at one budget only
METHODS = [("bm25", {}), ("bca", {"depth": 2}), ("bca", {"depth": 3}), ("perron", {})]
BUDGETS = (1000, 4000, 16000)
RESAMPLES, SEED = 2000, 7
FILE_KS, MODULE_KS, FUNCTION_KS = (1, 3, 5, 10), (5, 10), (5, 10)
RANKING = {"file_acc@1": "File Acc@1", "file_acc@5": "File Acc@5", "module_acc@5": "Module Acc@5",
           "function_acc@5": "Function Acc@5", "function_acc@10": "Function Acc@10", "file_mrr": "File MRR",
           "function_mrr": "Function MRR"}


# -- records -------------------------------------------------------------------------------------------------
def param_text(params: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(params.items()))


def base(instance: str, method: str, params: dict, budget: int) -> dict:
    """The fields ``run_localize`` adds to (or puts in place of) ``evaluate``'s record."""
    return {"key": f"{instance}|{method}({param_text(params)})|{budget}", "kind": "localize",
            "instance_id": instance, "repo": "demo/lib", "base_commit": "c" * 40, "method": method,
            "method_params": dict(params), "budget": budget}


def level_metrics(level: str, ks: tuple[int, ...], rank: int | None, n_gold: int) -> dict:
    if not n_gold:
        return {**{f"{level}_acc@{k}": None for k in ks}, **{f"{level}_recall@{k}": None for k in ks},
                f"{level}_mrr": None}
    out = {}
    for k in ks:
        out[f"{level}_acc@{k}"] = 1.0 if rank is not None and rank <= k else 0.0
        out[f"{level}_recall@{k}"] = (min(n_gold, 1 + (k - rank) // 3) / n_gold) if rank is not None and rank <= k \
            else 0.0
    out[f"{level}_mrr"] = 1 / rank if rank is not None else 0.0
    return out


def loc_record(instance: str, method: str, params: dict, budget: int, *, shift: int = 0) -> dict:
    """A scored row shaped like ``evaluate``'s body plus the runner's fields; rankings ignore the budget."""
    rng = random.Random(f"{method}|{param_text(params)}|{instance}")  # str seeds are stable across runs
    n_files, n_functions = rng.choice((1, 1, 2, 3)), rng.choice((1, 2, 3))
    n_functions = 0 if instance == NO_FUNCTIONS else n_functions
    n_modules = 0 if instance in (NO_FUNCTIONS, NO_MODULES) else n_functions

    def rank(top: int):
        return None if rng.random() < 0.25 else rng.randint(1, top)

    metrics = {**level_metrics("file", FILE_KS, rank(8), n_files),
               **level_metrics("module", MODULE_KS, rank(12), n_modules),
               **level_metrics("function", FUNCTION_KS, rank(14), n_functions)}
    metrics["file_acc@1"] = metrics["file_acc@1"] if not shift else 1.0 - metrics["file_acc@1"]
    grow = BUDGETS.index(budget) + 1
    file_seen = min(n_files, rng.randint(0, n_files) + grow - 1)
    metrics["budget_file_recall"] = file_seen / n_files
    metrics["budget_function_recall"] = (min(n_functions, rng.randint(0, n_functions) + grow - 1) / n_functions
                                         if n_functions else None)
    functions = [f"lib/m{i}.py::f{i}" for i in range(n_functions)]
    body = {
        "kind": "localize", "instance_id": instance, "method": method, "method_params": dict(params),
        "budget": budget, "query_sha256": hashlib.sha256(instance.encode()).hexdigest(),
        "gold": {"files": [f"lib/m{i}.py" for i in range(n_files)], "units": functions, "functions": functions,
                 "modules": functions[:n_modules]},
        "ranked": {"symbols": ["lib/m0.py::f0"], "files": ["lib/m0.py"], "modules": ["lib/m0.py::f0"],
                   "functions": ["lib/m0.py::f0"]},
        "context_tokens": budget - 11, "context_snippets": [["lib/m0.py::f0", "lib/m0.py", 1, 9]],
        "metrics": metrics,
    }
    return {**body, **base(instance, method, params, budget), "error": None}


def error_record(instance: str, method: str, params: dict, budget: int, error: str) -> dict:
    return {**base(instance, method, params, budget), "metrics": None, "error": error}


def job_rows(method: str, params: dict, budget: int) -> list[dict]:
    rows = []
    for instance in INSTANCES:
        if instance == BROKEN:
            rows.append(error_record(instance, method, params, budget, "PatchError: patch does not apply to "
                                     "lib/m0.py"))
        elif (method, budget, instance) == TIMEOUT:
            rows.append(error_record(instance, method, params, budget, "TimeoutError: graph build took too long"))
        else:
            rows.append(loc_record(instance, method, params, budget))
    return rows


def write_run(run_dir: Path, rows: list[dict], name: str) -> Path:
    sci = {"kind": name, "n": len(rows), "first": rows[0]["key"]}
    with RunWriter(run_dir, config=sci, scientific=sci, overrides=[], inputs={},
                   code={"commit": "0" * 40, "dirty": False}, packages={}) as run:
        for row in rows:
            run.append(row)
        run.seal()
    return run_dir


def repair_row(task: str, method: str, outcome: str) -> dict:
    return {"key": f"{task}|{method}()|1000|vague|diff|replay", "task_id": task, "method": method,
            "method_params": {}, "budget": 1000, "query_type": "vague", "edit_format": "diff", "provider": "replay",
            "control": False, "dry_run": False, "covers_bug_line": outcome == "pass", "outcome": outcome}


REPAIR_OUTCOMES = {("t1", "bm25"): "pass", ("t2", "bm25"): "test_fail", ("t3", "bm25"): "pass",
                   ("t1", "perron"): "no_patch", ("t2", "perron"): "pass", ("t3", "perron"): "pass"}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("paper_loc")
    runs = {}
    jobs = [(m, p, b) for m, p in METHODS for b in BUDGETS]
    for i, (method, params, budget) in enumerate(jobs):
        runs[f"loc_sweep/{i}/run"] = write_run(tmp / "loc_sweep" / str(i) / "run", job_rows(method, params, budget),
                                               f"loc{i}")
    repair = write_run(tmp / "repair_run", [repair_row(t, m, o) for (t, m), o in REPAIR_OUTCOMES.items()], "repair")
    return tmp, runs, repair


def run_build(args, out, *extra) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "paper.build", *map(str, args), "--out", str(out),
                           "--resamples", str(RESAMPLES), "--seed", str(SEED), *extra],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def built(corpus):
    tmp, _, _ = corpus
    out = tmp / "out_loc"
    proc = run_build([tmp / "loc_sweep"], out)
    assert proc.returncode == 0, proc.stderr
    return out


# -- independent expectations ----------------------------------------------------------------------------------
def rows_of(runs) -> list[dict]:
    return [json.loads(line) for d in runs.values() for line in (d / "records.jsonl").read_text().splitlines()]


def label(row) -> str:
    variants = {param_text(p) for m, p in METHODS if m == row["method"]}
    return row["method"] if len(variants) == 1 else f"{row['method']}({param_text(row['method_params'])})"


def fmt(v, signed=False) -> str:
    return "--" if v is None else (f"{v:+.1f}" if signed else f"{v:.1f}")


def mean_ci(values: dict[str, float], signed=False) -> list[str]:
    """[n, mean, low, high] over instances (one value each) as printed, bootstrap per the stats docstring."""
    if not values:
        return ["0", "--", "--", "--"]
    ids = sorted(values)
    arr = np.array([values[i] for i in ids], dtype=float)
    idx = np.random.default_rng(SEED).integers(0, len(ids), size=(RESAMPLES, len(ids)))
    low, high = np.percentile(arr[idx].sum(axis=1) / len(ids), [2.5, 97.5])
    mean = 100 * math.fsum(arr) / len(arr)
    return [str(len(ids)), fmt(mean, signed), fmt(100 * low, signed), fmt(100 * high, signed)]


def ranking_by(runs) -> dict[str, dict[str, dict]]:
    """label -> instance -> metrics, from any scored row (the test data ignores the budget in rankings)."""
    out: dict[str, dict[str, dict]] = defaultdict(dict)
    for r in rows_of(runs):
        if r["error"] is None:
            out[label(r)][r["instance_id"]] = r["metrics"]
    return out


def expected_acc(runs) -> list[list[list[str]]]:
    ranked = ranking_by(runs)
    labels = sorted({label(r) for r in rows_of(runs)})
    return [[["all", name, lab, *mean_ci({i: m[metric] for i, m in ranked[lab].items() if m[metric] is not None})]
             for lab in labels] for metric, name in RANKING.items()]  # "all": rows without a task_set


def budget_values(runs, lab, budget, metric) -> dict[str, float]:
    return {r["instance_id"]: r["metrics"][metric] for r in rows_of(runs) if label(r) == lab
            and r["budget"] == budget and r["error"] is None and r["metrics"][metric] is not None}


def expected_budget(runs) -> list[list[list[str]]]:
    rows = []
    for lab, budget in sorted({(label(r), r["budget"]) for r in rows_of(runs)}):
        errors = sum(1 for r in rows_of(runs) if label(r) == lab and r["budget"] == budget and r["error"])
        rows.append(["all", lab, str(budget), str(errors),
                     *mean_ci(budget_values(runs, lab, budget, "budget_file_recall")),
                     *mean_ci(budget_values(runs, lab, budget, "budget_function_recall"))])
    return [rows]


def paired(lab: str, metric: str, budget: str, mine: dict, ref: dict) -> list[str]:
    both = sorted(set(mine) & set(ref))
    if not both:
        return [lab, metric, budget, "0", "--", "--", "--", "--", "--"]
    n = len(both)
    m = 100 * math.fsum(mine[i] for i in both) / n
    r = 100 * math.fsum(ref[i] for i in both) / n
    _, diff, low, high = mean_ci({i: mine[i] - ref[i] for i in both}, signed=True)
    return [lab, metric, budget, str(n), fmt(m), fmt(r), diff, low, high]


def expected_paired(runs) -> list[list[list[str]]]:
    ranked = ranking_by(runs)
    labels = sorted({label(r) for r in rows_of(runs)} - {"bm25"})

    def acc10(lab):
        return {i: m["function_acc@10"] for i, m in ranked[lab].items() if m["function_acc@10"] is not None}

    first = [paired(lab, "Function Acc@10", "any", acc10(lab), acc10("bm25")) for lab in labels]
    second = [paired(lab, "Budget function recall", str(b), budget_values(runs, lab, b, "budget_function_recall"),
                     budget_values(runs, "bm25", b, "budget_function_recall")) for lab in labels for b in BUDGETS]
    return [first, second]


# -- tests -------------------------------------------------------------------------------------------------------
def test_rows_are_shaped_like_the_runner_and_evaluate():
    """The synthetic rows are the runner's types: a scored row has every field, an error row only the identity."""
    import dataclasses

    from beacon.records import LocalizationRecord, row_from_json

    scored, failed = loc_record("i01", "bm25", {}, 1000), error_record("i01", "bm25", {}, 1000, "E: x")
    # written as before the runner recorded task_set (so the build's default set is exercised too)
    assert set(scored) == {f.name for f in dataclasses.fields(LocalizationRecord)} - {"task_set"}
    assert isinstance(row_from_json(scored), LocalizationRecord) and row_from_json(scored).to_json() == scored
    assert row_from_json(failed).to_json() == failed
    evaluate = ast.parse((ROOT / "beacon" / "localize" / "evaluate.py").read_text())
    runner = ast.parse((ROOT / "experiments" / "localize.py").read_text())
    consts = {n.targets[0].id: ast.literal_eval(n.value) for n in evaluate.body
              if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "").endswith("_KS")}
    assert (consts["FILE_KS"], consts["MODULE_KS"], consts["FUNCTION_KS"]) == (FILE_KS, MODULE_KS, FUNCTION_KS)
    source = (ROOT / "beacon" / "localize" / "evaluate.py").read_text()
    assert '"budget_file_recall"' in source and '"budget_function_recall"' in source
    assert set(RANKING) <= set(scored["metrics"])
    keys = [ast.unparse(n) for n in ast.walk(runner) if isinstance(n, ast.JoinedStr)
            and ast.unparse(n).startswith("f'{inst.instance_id}|")]
    assert keys == ["f'{inst.instance_id}|{name}({_param_text(params)})|{budget}'"]


def test_accuracy_table_matches_records(built, corpus):
    _, runs, _ = corpus
    header, sections, caption, latex_label = parse_tex(built / "tab_localization_acc.tex")
    assert latex_label == "tab:localization_acc"
    assert header == ["Task set", "Metric", "Method", "n", "Mean", "CI low", "CI high"]
    assert sections == expected_acc(runs)
    assert {row[2] for row in sections[0]} == {"bca(depth=2)", "bca(depth=3)", "bm25", "perron"}
    assert "n = 7 to 9 instances per row: a development check, not evidence." in caption
    assert "Instances: 9 scored of 10 read" in caption
    assert "13 rows with an error" in caption and "perron: 4" in caption and "bm25: 3" in caption
    assert f"{RESAMPLES} resamples of instances, seed {SEED}" in caption


def test_budget_table_matches_records(built, corpus):
    _, runs, _ = corpus
    header, sections, caption, _ = parse_tex(built / "tab_localization_budget.tex")
    assert header == ["Task set", "Method", "Budget", "Errors", "File n", "File recall (%)", "File CI low (%)",
                      "File CI high (%)", "Function n", "Function recall (%)", "Function CI low (%)",
                      "Function CI high (%)"]
    assert sections == expected_budget(runs)
    assert ["all", "perron", "4000", "2", "8"] == sections[0][-2][:5]  # the timeout row is excluded and counted
    assert "a development check, not evidence" in caption and "Errors: rows with an error" in caption


def test_paired_table_matches_records(built, corpus):
    _, runs, _ = corpus
    header, sections, caption, _ = parse_tex(built / "tab_localization_paired.tex")
    assert header == ["Method", "Metric", "Budget", "Pairs", "Method (%)", "Reference bm25 (%)", "Difference (pp)",
                      "CI low (pp)", "CI high (pp)"]
    assert sections == expected_paired(runs)
    assert not any(row[0] == "bm25" for section in sections for row in section)
    assert "same instances" in caption and "percentage points" in caption


def test_runs_table_summary_figure_and_no_repair_outputs(built, corpus):
    tmp, runs, _ = corpus
    header, sections, caption, _ = parse_tex(built / "tab_localization_runs.tex")
    assert header == ["Run", "Config hash", "Manifest", "Status", "Rows", "Errors", "Scored rows", "Instances"]
    expected = []
    for name, d in runs.items():
        recs = [json.loads(line) for line in (d / "records.jsonl").read_text().splitlines()]
        errors = sum(1 for r in recs if r["error"])
        meta = json.loads((d / "run.json").read_text())
        expected.append([name, meta["config_hash"][:12], "verified", "complete", str(len(recs)), str(errors),
                         str(len(recs) - errors), str(len({r["instance_id"] for r in recs}))])
    assert sorted(sections[0]) == sorted(expected) and len(sections) == 1
    summary = assert_summary_matches_tex(built)
    assert summary["localization"]["counts"] == {"rows_read": 120, "error_excluded": 13, "scored_rows": 107,
                                                 "instances_read": 10, "instances_scored": 9}
    assert "counts" not in summary  # no repair rows: no repair counts
    assert sorted(p.name for p in built.glob("tab_*.tex")) == [
        "tab_localization_acc.tex", "tab_localization_budget.tex", "tab_localization_paired.tex",
        "tab_localization_paired_metrics.tex", "tab_localization_runs.tex"]
    assert sorted(p.name for p in built.glob("fig_*")) == [f"fig_localization_recall_vs_budget.{x}"
                                                           for x in ("pdf", "png", "tex")]
    assert (built / "fig_localization_recall_vs_budget.png").read_bytes().startswith(b"\x89PNG")
    fig_tex = (built / "fig_localization_recall_vs_budget.tex").read_text()
    assert "development check, not evidence" in fig_tex and "tab\\_localization\\_budget" in fig_tex
    index = (built / "index.md").read_text()
    assert "Localization rows read: 120; excluded: 13 with an error" in index and "Repair rows" not in index


def test_methods_option_shows_only_those_methods_with_every_cell_unchanged(built, corpus):
    tmp, _, _ = corpus
    out = tmp / "out_some"
    proc = run_build([tmp / "loc_sweep"], out, "--methods", "bm25;bca(depth=3)")
    assert proc.returncode == 0, proc.stderr
    full = json.loads((built / "summary.json").read_text())
    some = json.loads((out / "summary.json").read_text())
    assert list(some["methods"]) == ["bca(depth=3)", "bm25"] and some["settings"]["methods_shown"] == [
        "bm25", "bca(depth=3)"]
    for label, table in some["tables"].items():
        rows = table["rows"]
        methods = {row.get("Method") for row in rows.values()} - {None}
        assert methods <= {"bm25", "bca(depth=3)"}, (label, methods)
        if label != "tab_localization_runs":
            assert methods, label
        for key, row in rows.items():  # every number is the full build's: bootstraps are seeded per cell
            assert full["tables"][label]["rows"][key] == {**row, **{k: full["tables"][label]["rows"][key][k]
                                                                    for k in ("caption",) if k in row}}, key
        assert "Methods shown (--methods): bm25, bca(depth=3), of the 4 the runs hold" in table["caption"]
    index = (out / "index.md").read_text()
    assert "The runs also hold: bca(depth=2), perron; their rows are read and verified" in index
    assert "methods_shown" not in full["settings"]
    # Unknown labels and a list without the reference are refused, naming what the runs hold.
    bad = run_build([tmp / "loc_sweep"], tmp / "out_bad", "--methods", "bm25;bca")
    assert bad.returncode == 2 and "--methods: bca: expected labels of methods in the runs: bca(depth=2), " \
        "bca(depth=3), bm25, perron" in bad.stderr
    noref = run_build([tmp / "loc_sweep"], tmp / "out_noref", "--methods", "perron")
    assert noref.returncode == 2 and "--reference bm25: no localization rows" in noref.stderr
    assert not (tmp / "out_bad").exists() and not (tmp / "out_noref").exists()


def test_mixed_build_produces_both_sets(built, corpus):
    tmp, _, repair = corpus
    out = tmp / "out_mixed"
    proc = run_build([repair, tmp / "loc_sweep"], out)
    assert proc.returncode == 0, proc.stderr
    for name in ("tab_runs", "tab_pass_rate", "tab_failure_modes", "tab_coverage", "tab_paired",
                 "tab_router_oracle_upper_bound", "tab_localization_runs", "tab_localization_acc",
                 "tab_localization_budget", "tab_localization_paired"):
        assert (out / f"{name}.tex").is_file(), name
    for name in ("fig_pass_rate", "fig_failure_modes", "fig_coverage", "fig_localization_recall_vs_budget"):
        assert (out / f"{name}.pdf").is_file(), name
    for name in ("tab_localization_acc", "tab_localization_budget", "tab_localization_paired"):
        assert (out / f"{name}.tex").read_bytes() == (built / f"{name}.tex").read_bytes(), name
    _, sections, _, _ = parse_tex(out / "tab_runs.tex")
    assert [row[0] for s in sections for row in s] == ["repair_run"]  # localization runs: their own table
    _, sections, _, _ = parse_tex(out / "tab_localization_runs.tex")
    assert "repair_run" not in [row[0] for s in sections for row in s] and len(sections[0]) == 12
    _, sections, _, _ = parse_tex(out / "tab_pass_rate.tex")
    passes = {m: sum(o == "pass" for (_, mm), o in REPAIR_OUTCOMES.items() if mm == m) for m in ("bm25", "perron")}
    assert [[row[:9] for row in s] for s in sections] == [
        [[m, "vague", "replay", "diff", "1000", "no", "3", str(k), f"{100 * k / 3:.1f}"]
         for m, k in sorted(passes.items())]]
    wilson_of_3 = {0: ["0.0", "56.1"], 1: ["6.1", "79.2"], 2: ["20.8", "93.9"], 3: ["43.9", "100.0"]}  # 95%, z=1.96
    assert [row[9:11] for row in sections[0]] == [wilson_of_3[k] for _, k in sorted(passes.items())]
    assert [row[11:] for row in sections[0]] == [["0", "0"]] * 2  # no suspicious edit, no tampered run
    summary = assert_summary_matches_tex(out)
    assert summary["counts"]["rows_read"] == 6 and summary["localization"]["counts"]["rows_read"] == 120


def test_inconsistent_rankings_across_budgets_are_refused(corpus):
    tmp, _, _ = corpus
    bad = tmp / "bad_rankings"
    write_run(bad / "a", [loc_record(i, "bm25", {}, 1000) for i in INSTANCES[:3]], "a")
    write_run(bad / "b", [loc_record(i, "bm25", {}, 4000, shift=i == "i02") for i in INSTANCES[:3]], "b")
    proc = run_build([bad], tmp / "bad_out")
    assert proc.returncode == 2
    assert "method 'bm25' instance 'i02': ranking metrics differ between budget 1000" in proc.stderr
    assert "file_acc@1" in proc.stderr and "budget 4000" in proc.stderr
    assert not (tmp / "bad_out").exists()


# -- refusals, in-process (no figures are drawn before a refusal) ------------------------------------------------
def _sealed(path: Path, rows: list[dict]) -> Path:
    return write_run(path, rows, path.name)


def _build(capsys, *args) -> tuple[int, str]:
    code = main([*map(str, args), "--resamples", "20"])
    return code, capsys.readouterr().err


def _with(row: dict, **change) -> dict:
    return {**row, **change}


@pytest.mark.parametrize("make, message", [
    (lambda: _with(loc_record("i02", "bm25", {}, 1000), kind="localise"),
     "records.jsonl:2: field 'kind': expected 'localize' or no kind (a repair row), got 'localise'"),
    (lambda: _with(loc_record("i02", "bm25", {}, 1000), budget="1000"),
     "records.jsonl:2: field 'budget': expected int"),
    (lambda: {k: v for k, v in loc_record("i02", "bm25", {}, 1000).items() if k != "error"},
     "records.jsonl:2: field 'error' is missing"),
    (lambda: _with(loc_record("i02", "bm25", {}, 1000), error="E: x"),
     "records.jsonl:2: field 'metrics': expected null in a row with an error"),
    (lambda: _with(loc_record("i02", "bm25", {}, 1000), metrics=None), "field 'metrics' is null but 'error' is null"),
    (lambda: _with(loc_record("i02", "bm25", {}, 1000), metrics={**loc_record("i02", "bm25", {}, 1000)["metrics"],
                                                                 "file_mrr": 1.5}),
     "field 'metrics.file_mrr': expected a number in [0, 1] or null, got 1.5"),
    (lambda: _with(loc_record("i02", "bm25", {}, 1000), metrics={
        k: v for k, v in loc_record("i02", "bm25", {}, 1000)["metrics"].items() if k != "budget_function_recall"}),
     "field 'metrics.budget_function_recall' is missing"),
])
def test_malformed_rows_are_refused_with_file_line_and_field(tmp_path, capsys, make, message):
    run = _sealed(tmp_path / "run", [loc_record("i01", "bm25", {}, 1000), make()])
    code, err = _build(capsys, run, "--out", tmp_path / "out")
    assert code == 2 and message in err, err


def test_duplicates_missing_reference_and_all_errors_are_refused(tmp_path, capsys):
    a = _sealed(tmp_path / "a", [loc_record("i01", "bm25", {}, 1000)])
    b = _sealed(tmp_path / "b", [loc_record("i01", "bm25", {}, 1000)])
    code, err = _build(capsys, a, b, "--out", tmp_path / "out")
    assert code == 2 and "instance 'i01' budget 1000 is scored more than once: a (" in err
    c = _sealed(tmp_path / "c", [loc_record("i01", "bca", {}, 1000), loc_record("i01", "perron", {}, 1000)])
    code, err = _build(capsys, c, "--out", tmp_path / "out")
    assert code == 2 and "--reference bm25: no localization rows" in err and "bca, perron" in err
    d = _sealed(tmp_path / "d", [error_record("i01", "bm25", {}, 1000, "PatchError: no")])
    code, err = _build(capsys, d, "--out", tmp_path / "out")
    assert code == 2 and "no scored localization rows: 1 rows read, all 1 with an error" in err
    assert not (tmp_path / "out").exists()


def test_small_slice_note():
    assert slice_note([9, 9, 0]) == " n = 9 instances: a development check, not evidence."
    assert slice_note([5, 40]).startswith(" Rows with n < 30 (as few as 5 instances) decide little")
    assert slice_note([30, 40]) == ""
    assert slice_note([0]) == " No row has a scored instance."
