"""``python -m paper.build`` on real sealed artifact runs, checked cell by cell against the records.

The expected numbers are recomputed here with plain Python (and numpy for
the documented bootstrap procedure), never with the ``paper`` package.
"""
from __future__ import annotations

import json
import math
import os
import random
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from beacon.artifacts import RunWriter
from beacon.records import OUTCOMES, RepairOutcome
from latex_tables import assert_summary_matches_tex, parse_tex

ROOT = Path(__file__).resolve().parents[2]
TASKS = [f"t{i:02d}" for i in range(1, 9)]
FALLBACK_TASK = "t08"  # no developer report: its dev_report query reveals the line (an oracle control)
INVALID_TASK = "t09"
METHODS = [("bm25", {}), ("bca", None), ("perron", {}), ("target_file", {})]  # bca: depth 3 at 1000, 2 at 4000
QUERIES = ("vague", "dev_report", "exact")
BUDGETS = (1000, 4000)
RESAMPLES, SEED = 10_000, 0
PASS_P = {"bm25": 0.45, "bca": 0.6, "perron": 0.35, "target_file": 0.8}


def record(task_id, method, params, budget, query_type, provider, outcome, covers, *, dry_run=False,
           valid=True, edit_format="diff"):
    """A row shaped exactly like ``beacon.repair.attempt.run_attempt``'s record, plus the runner's key."""
    oracle = query_type == "exact" or (query_type == "dev_report" and task_id == FALLBACK_TASK)
    p = ",".join(f"{k}={v}" for k, v in params.items())
    return {
        "key": f"{task_id}|{method}({p})|{budget}|{query_type}|{edit_format}|{provider}",
        "task_id": task_id, "task_sha256": "a" * 64, "repo": "demo", "commit": "c" * 40,
        "bug_location": "pkg/mod.py:10", "mutation_type": "flip_comparison", "method": method,
        "method_params": dict(params), "budget": budget, "query_type": query_type, "query_oracle": oracle,
        "query_fallback": query_type == "dev_report" and task_id == FALLBACK_TASK, "edit_format": edit_format,
        "provider": provider, "control": method == "target_file" or oracle or provider == "oracle",
        "context_tokens": budget - 7, "context_renderer": "plain", "context_snippets": ["pkg/mod.py::f"],
        "context_notes": [], "covers_bug_line": covers, "ranking_top": ["pkg/mod.py::f"],
        "prompt_version": "repair-v1", "prompt_template_sha256": "b" * 64, "prompt_sha256": "d" * 64,
        "prompt_tokens": budget + 100, "prompt": "…",
        "structured_output": {"setting": "off", "mode": "off", "schema_sha256": None},
        "dry_run": dry_run, "task_valid": valid,
        "task_invalid_reason": None if valid else "baseline tests fail", "baseline": {}, "mutant": {},
        "sandboxed": True, "model": None if outcome is None else "replay-model", "response": None,
        "repair": None, "outcome": outcome, "outcome_detail": None, "tests": None, "checks": None,
    }


def prep_failure_record(task_id, method, budget, query_type, provider, *, edit_format="diff"):
    """A row shaped like ``beacon.repair.job._prepare_failure``'s: the task could not be prepared (no context)."""
    return {
        "key": f"{task_id}|{method}()|{budget}|{query_type}|{edit_format}|{provider}",
        "task_id": task_id, "repo": "demo", "commit": "c" * 40, "bug_location": "pkg/mod.py:10",
        "mutation_type": "flip_comparison", "method": method, "method_params": {}, "budget": budget,
        "query_type": query_type, "edit_format": edit_format, "provider": provider,
        "query_oracle": query_type == "exact", "query_fallback": False, "covers_bug_line": None,
        "control": method == "target_file" or provider == "oracle" or query_type == "exact",
        "dry_run": False, "task_valid": False,
        "task_invalid_reason": "GitError: no such commit", "outcome": "harness_error",
        "outcome_detail": "GitError: no such commit",
    }


def write_run(run_dir: Path, rows: list[dict], *, seal: bool = True, name: str = "repair") -> Path:
    sci = {"kind": name, "budgets": sorted({r["budget"] for r in rows}), "n": len(rows)}
    run = RunWriter(run_dir, config={**sci, "output_dir": str(run_dir)}, scientific=sci, overrides=[],
                    inputs={}, code={"commit": "0" * 40, "dirty": False}, packages={})
    for row in rows:
        run.append(row)
    if seal:
        run.seal()
    else:
        run.close()
    return run_dir


def sweep_rows(budget: int, rng: random.Random) -> list[dict]:
    rows = []
    for method, params in METHODS:
        params = {"depth": 3 if budget == 1000 else 2} if params is None else params
        for query in QUERIES:
            if query == "exact" and method not in ("bm25", "bca"):
                continue
            for task in TASKS:
                if rng.random() < 0.08 and task != "t01":
                    continue  # a few missing attempts: pairs and router blocks become incomplete
                outcome = "pass" if rng.random() < PASS_P[method] else rng.choice(OUTCOMES[1:])
                rows.append(record(task, method, params, budget, query, "replay", outcome, rng.random() < 0.6))
            rows.append(record(INVALID_TASK, method, params, budget, query, "replay", None, False, valid=False))
    if budget == 4000:
        rows += [prep_failure_record("t10", m, budget, "vague", "replay") for m in ("bm25", "perron")]
    return rows


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("paper")
    rng = random.Random(1234)
    runs = {f"sweep/{i}": write_run(tmp / "sweep" / str(i), sweep_rows(b, rng)) for i, b in enumerate(BUDGETS)}
    (tmp / "sweep" / ".hydra").mkdir()  # sweep-level Hydra folder: not a job
    oracle = [record(t, "bm25", {}, 1000, "vague", "oracle", "pass" if t != "t03" else "test_fail", True)
              for t in TASKS[:4]]
    runs["oracle_run"] = write_run(tmp / "oracle_run", oracle, name="oracle")
    dry = [record(t, "bm25", {}, 1000, "vague", "replay", None, True, dry_run=True) for t in TASKS[:3]]
    runs["dry_run"] = write_run(tmp / "dry_run", dry, name="dry")
    args = [tmp / "sweep", tmp / "oracle_run", tmp / "dry_run"]
    return tmp, runs, args


def run_build(args, out, *extra) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "paper.build", *map(str, args), "--out", str(out), *extra],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def built(corpus):
    tmp, runs, args = corpus
    out = tmp / "out"
    proc = run_build(args, out, "--resamples", str(RESAMPLES), "--seed", str(SEED))
    assert proc.returncode == 0, proc.stderr
    return out


# -- independent expectations ------------------------------------------------------------------------------
def all_rows(runs) -> list[tuple[str, dict]]:
    return [(name, json.loads(line)) for name, d in runs.items()
            for line in (d / "records.jsonl").read_text().splitlines()]


def scored(runs) -> list[dict]:
    rows = [r for _, r in all_rows(runs) if not r["dry_run"] and r["outcome"] is not None]
    variants = defaultdict(set)
    for r in rows:
        variants[r["method"]].add(json.dumps(r["method_params"], sort_keys=True))
    for r in rows:
        params = ",".join(f"{k}={v}" for k, v in sorted(r["method_params"].items()))
        r["label"] = r["method"] if len(variants[r["method"]]) == 1 else f"{r['method']}({params})"
    return rows


def pct(k, n):
    return f"{100 * k / n:.1f}"


def yes(flag):
    return "yes" if flag else "no"


def sectioned(rows: dict[tuple, list[str]], control_at: int) -> list[list[list[str]]]:
    keys = sorted(rows)
    return [s for s in ([rows[k] for k in keys if not k[control_at]], [rows[k] for k in keys if k[control_at]]) if s]


def expected_rates(runs, field, ):
    groups = defaultdict(list)
    for r in scored(runs):
        if field == "covers" and r.get("covers_bug_line") is None:
            continue  # no context was built: not a coverage observation
        groups[(r["label"], r["query_type"], r["provider"], r["edit_format"], r["budget"], r["control"])].append(r)
    rows = {}
    for key, rs in groups.items():
        k = sum(1 for r in rs if (r["outcome"] == "pass" if field == "pass" else r["covers_bug_line"]))
        low, high = wilson(k, len(rs))
        rows[key] = [key[0], key[1], key[2], key[3], str(key[4]), yes(key[5]), str(len(rs)), str(k), pct(k, len(rs)),
                     f"{100 * low:.1f}", f"{100 * high:.1f}"]
        if field == "pass":  # caught attempts to fake a pass, in their own columns
            rows[key] += [str(sum(r["outcome"] == o for r in rs)) for o in ("suspicious_edit", "tampered")]
    return sectioned(rows, 5)


def wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson score 95% interval, written out (z = 1.959964): the paper's intervals are checked against it."""
    z, p = 1.959963984540054, k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap(pairs: list[tuple[str, int]]) -> tuple[float, float]:
    tasks = sorted({t for t, _ in pairs})
    sums = np.array([float(sum(d for t, d in pairs if t == task)) for task in tasks])
    counts = np.array([float(sum(1 for t, _ in pairs if t == task)) for task in tasks])
    idx = np.random.default_rng(SEED).integers(0, len(tasks), size=(RESAMPLES, len(tasks)))
    est = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
    low, high = np.percentile(est, [2.5, 97.5])
    return float(low), float(high)


def expected_paired(runs):
    rows = scored(runs)
    ref = {(r["task_id"], r["budget"], r["query_type"], r["edit_format"], r["provider"]): r
           for r in rows if r["label"] == "bm25"}
    groups = defaultdict(list)
    for r in rows:
        if r["label"] == "bm25":
            continue
        other = ref.get((r["task_id"], r["budget"], r["query_type"], r["edit_format"], r["provider"]))
        if other is not None:
            groups[(r["label"], r["query_type"], r["provider"], r["edit_format"], r["control"] or other["control"])
                   ].append((r, other))
    out = {}
    for (label, query, provider, fmt, control), pairs in groups.items():
        budgets = sorted({a["budget"] for a, _ in pairs})
        for budget in budgets + (["all"] if len(budgets) > 1 else []):
            sel = [(a, b) for a, b in pairs if budget == "all" or a["budget"] == budget]
            n = len(sel)
            wa = sum(a["outcome"] == "pass" for a, _ in sel)
            wb = sum(b["outcome"] == "pass" for _, b in sel)
            low, high = bootstrap([(a["task_id"], int(a["outcome"] == "pass") - int(b["outcome"] == "pass"))
                                   for a, b in sel])
            key = (control, label, query, provider, fmt, (1, 0) if budget == "all" else (0, budget))
            out[key] = [label, query, provider, fmt, str(budget), yes(control), str(n),
                        str(len({a["task_id"] for a, _ in sel})), pct(wa, n), pct(wb, n),
                        f"{100 * (wa - wb) / n:+.1f}", f"{100 * low:+.1f}", f"{100 * high:+.1f}"]
    keys = sorted(out)
    return [s for s in ([out[k] for k in keys if not k[0]], [out[k] for k in keys if k[0]]) if s]


def expected_router(runs):
    cells = defaultdict(lambda: defaultdict(dict))
    for r in scored(runs):
        if not r["control"]:
            cells[(r["query_type"], r["provider"], r["edit_format"], r["budget"])][r["task_id"]][r["label"]] = \
                r["outcome"] == "pass"
    rows = []
    for key in sorted(cells):
        tasks = cells[key]
        methods = sorted({m for t in tasks.values() for m in t})
        complete = [t for t in tasks.values() if len(t) == len(methods)]
        solved = {m: sum(t[m] for t in complete) for m in methods}
        best = max(solved.values())
        oracle = sum(any(t.values()) for t in complete)
        rows.append([key[0], key[1], key[2], str(key[3]), str(len(methods)), str(len(complete)),
                     str(len(tasks) - len(complete)), ", ".join(m for m in methods if solved[m] == best),
                     pct(best, len(complete)), pct(oracle, len(complete))])
    return [rows]


# -- tests -------------------------------------------------------------------------------------------------
def test_fixture_rows_are_repair_outcomes_of_both_shapes():
    """The synthetic rows parse as the runner's rows do: an attempted row has every field, a failed preparation
    only the fields known before a context exists."""
    import dataclasses

    full = record("t", "bm25", {}, 1, "vague", "replay", "pass", True)
    assert set(full) == {f.name for f in dataclasses.fields(RepairOutcome)}
    assert RepairOutcome.from_json(full).prepared
    failed = RepairOutcome.from_json(prep_failure_record("t", "bm25", 1, "vague", "replay"))
    assert not failed.prepared and failed.outcome == "harness_error"


def test_pass_rate_and_coverage_tables_match_records(built, corpus):
    _, runs, _ = corpus
    for label, field, extra in (("tab_pass_rate", "pass", ["Passes", "Pass rate (%)"]),
                                ("tab_coverage", "covers", ["Covering", "Coverage (%)"])):
        header, sections, caption, latex_label = parse_tex(built / f"{label}.tex")
        tamper = ["Suspicious edit", "Tampered"] if field == "pass" else []
        assert header == ["Method", "Query", "Provider", "Edit format", "Budget", "Control", "Attempts", *extra,
                          "CI low (%)", "CI high (%)", *tamper]
        assert "Wilson score 95% interval" in caption
        assert sections == expected_rates(runs, field)
        assert "control" in caption.lower() and "3 dry-run rows" in caption
        assert latex_label == "tab:" + label[4:]
    assert len(sections) == 2 and all(row[5] == "yes" for row in sections[1])
    methods = {row[0] for section in sections for row in section}
    assert {"bca(depth=2)", "bca(depth=3)", "bm25", "target_file"} <= methods  # params shown only when they vary


def test_failure_mode_table_matches_records(built, corpus):
    _, runs, _ = corpus
    header, sections, caption, _ = parse_tex(built / "tab_failure_modes.tex")
    assert header == ["Method", "Control", "Attempts", *OUTCOMES]
    counts = defaultdict(lambda: dict.fromkeys(OUTCOMES, 0))
    for r in scored(runs):
        counts[(r["label"], r["control"])][r["outcome"]] += 1
    rows = {(label, control): [label, yes(control), str(sum(c.values())), *(str(c[o]) for o in OUTCOMES)]
            for (label, control), c in counts.items()}
    assert sections == sectioned(rows, 1)
    assert "Control = yes" in caption


def test_paired_table_matches_records_and_bootstrap(built, corpus):
    _, runs, _ = corpus
    header, sections, caption, _ = parse_tex(built / "tab_paired.tex")
    assert header == ["Method", "Query", "Provider", "Edit format", "Budget", "Control", "Pairs", "Tasks",
                      "Method pass (%)", "Reference bm25 pass (%)", "Difference (pp)", "CI low (pp)",
                      "CI high (pp)"]
    assert sections == expected_paired(runs)
    assert "10000 resamples" in caption and "seed 0" in caption
    assert all(row[5] == "no" for row in sections[0]) and all(row[5] == "yes" for row in sections[1])
    assert not any(row[0] == "target_file" for row in sections[0])  # a control is never a method comparison


def test_router_table_is_labelled_an_in_sample_oracle_upper_bound(built, corpus):
    _, runs, _ = corpus
    header, sections, caption, latex_label = parse_tex(built / "tab_router_oracle_upper_bound.tex")
    assert latex_label == "tab:router_oracle_upper_bound"
    assert header[-1] == "In-sample oracle upper bound (%)"
    assert "in-sample oracle upper bound" in caption and "not a method" in caption
    assert sections == expected_router(runs)
    assert all("target_file" not in row[7] for row in sections[0])


def test_runs_table_and_summary_hold_every_cell(built, corpus):
    _, runs, _ = corpus
    header, sections, _, _ = parse_tex(built / "tab_runs.tex")
    rows = []
    for name, d in runs.items():
        recs = [json.loads(line) for line in (d / "records.jsonl").read_text().splitlines()]
        kept = [r for r in recs if not r["dry_run"] and r["outcome"] is not None]
        meta = json.loads((d / "run.json").read_text())
        rows.append([name, meta["config_hash"][:12], "verified", "complete", str(len(recs)),
                     str(sum(r["dry_run"] for r in recs)),
                     str(sum(1 for r in recs if not r["dry_run"] and r["outcome"] is None)),
                     str(sum(r["control"] for r in kept)), str(sum(not r["control"] for r in kept))])
    assert sections == [rows]
    summary = assert_summary_matches_tex(built)
    assert summary["counts"] == {"rows_read": sum(len(r) for r in map(lambda d: (d / "records.jsonl")
                                                                      .read_text().splitlines(), runs.values())),
                                 "dry_run_excluded": 3, "no_outcome_excluded": 2 * 10,
                                 "control_rows": sum(r["control"] for r in scored(runs)),
                                 "method_rows": sum(not r["control"] for r in scored(runs))}
    index = (built / "index.md").read_text()
    for name, d in runs.items():
        meta = json.loads((d / "run.json").read_text())
        assert f"| {name} | `{meta['config_hash']}` | verified |" in index
    assert "tab_router_oracle_upper_bound" in index and "fig_pass_rate" in index
    assert not list(built.glob("*localization*")) and "localization" not in summary  # repair rows only


def test_figures_exist_and_rebuild_is_byte_identical(built, corpus):
    tmp, _, args = corpus
    for label in ("fig_pass_rate", "fig_failure_modes", "fig_coverage"):
        assert (built / f"{label}.png").read_bytes().startswith(b"\x89PNG")
        assert (built / f"{label}.pdf").read_bytes().startswith(b"%PDF")
        assert "control" in (built / f"{label}.tex").read_text()
    again = tmp / "again"
    proc = run_build(args, again, "--resamples", str(RESAMPLES), "--seed", str(SEED))
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in built.iterdir())
    assert names == sorted(p.name for p in again.iterdir())
    for name in names:
        assert (built / name).read_bytes() == (again / name).read_bytes(), name


def test_corrupted_or_unsealed_runs_are_refused_unless_allowed(corpus):
    tmp, runs, _ = corpus
    bad = tmp / "bad" / "corrupt"
    shutil.copytree(runs["sweep/0"], bad)
    records = bad / "records.jsonl"
    records.chmod(0o644)
    records.write_text(records.read_text().replace('"outcome":"test_fail"', '"outcome":"pass"', 1))
    proc = run_build([bad], tmp / "bad_out", "--resamples", "50")
    assert proc.returncode == 2 and "refusing" in proc.stderr and "records.jsonl: changed" in proc.stderr
    assert not (tmp / "bad_out").exists()
    unsealed = write_run(tmp / "bad" / "unsealed", sweep_rows(2000, random.Random(5)), seal=False)
    proc = run_build([unsealed], tmp / "bad_out", "--resamples", "50")
    assert proc.returncode == 2 and "MANIFEST.sha256: missing" in proc.stderr
    (tmp / "bad" / "3").mkdir()  # a sweep job that never created its run
    proc = run_build([tmp / "bad"], tmp / "bad_out", "--resamples", "50")
    assert proc.returncode == 2 and "bad/3: missing job" in proc.stderr
    proc = run_build([tmp / "bad"], tmp / "bad_out", "--resamples", "50", "--allow-unsealed")
    assert proc.returncode == 0, proc.stderr
    index = (tmp / "bad_out" / "index.md").read_text()
    assert "UNVERIFIED" in index and "| bad/3 | — | MISSING" in index
    for name in ("bad/corrupt", "bad/unsealed"):
        assert f"| {name} | `" in index and "UNVERIFIED" in index.split(f"| {name} | `")[1].splitlines()[0]
    runs_tex = (tmp / "bad_out" / "tab_runs.tex").read_text()
    assert "bad/corrupt & " in runs_tex and "UNVERIFIED (1 problem)" in runs_tex
    for tex in (tmp / "bad_out").glob("*.tex"):
        assert "UNVERIFIED" in tex.read_text(), tex.name
