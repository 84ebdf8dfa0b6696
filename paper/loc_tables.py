"""The localization tables, computed from the localization rows of a :class:`~paper.load.Dataset`.

Every metric is a mean over instances on a 0 to 100 scale (accuracy and
recall as percentages of instances, MRR times 100) with a percentile
bootstrap interval that resamples instances (:func:`paper.stats.bootstrap_ci`,
fresh ``seed`` per row). Rows with an ``error`` are excluded from every
mean and counted; a metric that is null (the instance has no gold at that
level) leaves the instance out of that metric's ``n``. Means are
``100 * math.fsum(values) / n``.
"""
from __future__ import annotations

import json
import math
from collections.abc import Sequence

import pandas as pd

from .errors import BuildInputError
from .latex import Column, Table
from .load import Dataset
from .localization import BUDGET_METRICS, DEFAULT_TASK_SET, RANKING_METRICS
from .stats import LEVEL, bootstrap_ci, paired_bootstrap_ci, sign_test_p
from .tables import Settings

SMALL_N = 30  # below this many instances a row is a development check, not evidence
PAIRED_RANKING = "function_acc@10"
PAIRED_BUDGET = "budget_function_recall"
# tab_localization_paired_metrics: every headline metric against the reference, per task set
PAIRED_METRICS = ("file_acc@1", "file_acc@5", "function_acc@5", "function_acc@10")
ANY_BUDGET = "any"  # the Budget cell of a budget-independent (ranking) row
# context metrics of agent-trajectory rows, named by the metric profile that computed them
# (beacon.localize.agent_scoring): the ContextBench reference evaluator's, or Beacon's own
CONTEXT_PREFIXES = ("contextbench_", "beacon_")


def _scored(data: Dataset) -> pd.DataFrame:
    return data.loc_rows[data.loc_rows["error"].isna()]


def ranking_rows(data: Dataset) -> pd.DataFrame:
    """One scored row per method and instance (load checked that its budgets agree on every ranking metric)."""
    rows = _scored(data).sort_values(["method", "instance_id", "budget"])
    return rows.drop_duplicates(["method", "instance_id"], keep="first")


def _methods(data: Dataset) -> list[str]:
    return sorted(set(data.loc_rows["method"]))


def _mean_ci(rows: pd.DataFrame, metric: str, settings: Settings) -> tuple[int, float | None, float | None,
                                                                           float | None]:
    known = rows[rows[metric].notna()]
    if known.empty:
        return 0, None, None, None
    values = [float(v) for v in known[metric]]
    low, high = bootstrap_ci(list(known["instance_id"]), values, resamples=settings.resamples, seed=settings.seed)
    return len(values), 100 * math.fsum(values) / len(values), 100 * low, 100 * high


def slice_note(ns: Sequence[int], unit: str = "row") -> str:
    """Caption sentence on small slices: a ``unit`` (table row, figure point) on fewer than SMALL_N instances."""
    ns = [n for n in ns if n]
    if not ns:
        return f" No {unit} has a scored instance."
    low, high = min(ns), max(ns)
    if high < SMALL_N:
        span = f"n = {high} instances" if low == high else f"n = {low} to {high} instances per {unit}"
        return f" {span}: a development check, not evidence."
    if low < SMALL_N:
        return (f" {unit.capitalize()}s with n < {SMALL_N} (as few as {low} instances) decide little: a "
                "development check, not evidence.")
    return ""


def loc_notes(data: Dataset) -> str:
    """Caption tail of every localization table and figure: instances, error rows, unverified runs."""
    c = data.loc_counts()
    text = (f" Instances: {c['instances_scored']} scored of {c['instances_read']} read; {c['scored_rows']} scored "
            f"rows.")
    if c["error_excluded"]:
        errors = data.loc_rows[data.loc_rows["error"].notna()].groupby("method").size()
        per_method = ", ".join(f"{m}: {int(k)}" for m, k in errors.items())
        text += (f" Excluded from every metric: {c['error_excluded']} rows with an error (the instance could not "
                 f"be scored; {per_method}).")
    else:
        text += " No row has an error."
    if data.unverified:
        text += f" Includes UNVERIFIED runs (unsealed, altered or missing): {', '.join(data.unverified)}."
    return text + data.failed_note() + data.shown_note()


def _bootstrap_text(settings: Settings) -> str:
    return (f"{LEVEL:.0%} percentile bootstrap interval ({settings.resamples} resamples of instances, seed "
            f"{settings.seed})")


def loc_runs_table(data: Dataset) -> Table:
    rows = []
    for r in data.runs:
        if r.loc_rows or not r.rows:
            mine = data.all_loc_rows[data.all_loc_rows["run"] == r.name]
            rows.append({"Run": r.name, "Config hash": (r.config_hash or "")[:12], "Manifest": r.manifest,
                         "Status": r.status, "Rows": r.loc_rows, "Errors": r.loc_errors,
                         "Scored rows": r.loc_rows - r.loc_errors, "Instances": int(mine["instance_id"].nunique())})
    caption = ("Source runs of the localization results: localization rows read from each run's records.jsonl; "
               "rows with an error (the instance could not be scored) are excluded from every localization "
               "metric. Manifest: checked with beacon.artifacts.verify.")
    if data.missing_jobs:
        caption += f" Missing jobs (no run.json): {', '.join(data.missing_jobs)}."
    caption += loc_notes(data)
    cols = [Column("Run"), Column("Config hash"), Column("Manifest"), Column("Status"), Column("Rows", "int"),
            Column("Errors", "int"), Column("Scored rows", "int"), Column("Instances", "int")]
    return Table("tab_localization_runs", caption, cols, key_columns=1, sections=[rows])


def _task_sets(data: Dataset) -> list[str]:
    return sorted(set(data.loc_rows["task_set"]))


def accuracy_table(data: Dataset, settings: Settings) -> Table:
    ranked = ranking_rows(data)
    sections = []
    for metric, name in RANKING_METRICS.items():
        section = []
        for task_set in _task_sets(data):
            in_set = ranked[ranked["task_set"] == task_set]
            for method in sorted(set(data.loc_rows.loc[data.loc_rows["task_set"] == task_set, "method"])):
                n, mean, low, high = _mean_ci(in_set[in_set["method"] == method], metric, settings)
                section.append({"Task set": task_set, "Metric": name, "Method": method, "n": n, "Mean": mean,
                                "CI low": low, "CI high": high})
        sections.append(section)
    ns = [row["n"] for s in sections for row in s]
    caption = ("Localization ranking accuracy by task set and method: the mean over instances of each ranking "
               "metric on a 0 to 100 scale (Acc@k: percentage of instances with a gold file, module or function "
               "among the first k of the ranking; MRR: mean reciprocal rank of the first gold item, times 100), "
               f"with a {_bootstrap_text(settings)}. Rankings do not depend on the token budget, so each method and "
               "instance counts once (its rows at different budgets were checked to agree). Task set: the tasks "
               f"config (and split) the rows came from ({DEFAULT_TASK_SET}: runs that did not record one). n: "
               "instances scored without error whose gold has that level (metric not null)." + slice_note(ns)
               + loc_notes(data))
    cols = [Column("Task set"), Column("Metric"), Column("Method"), Column("n", "int"), Column("Mean", "pct"),
            Column("CI low", "pct"), Column("CI high", "pct")]
    return Table("tab_localization_acc", caption, cols, key_columns=3, sections=sections)


def budget_table(data: Dataset, settings: Settings) -> Table:
    scored = _scored(data)
    rows = []
    for (task_set, method, budget), all_rows in data.loc_rows.groupby(["task_set", "method", "budget"], sort=True):
        row: dict = {"Task set": task_set, "Method": method, "Budget": int(budget),
                     "Errors": int(all_rows["error"].notna().sum())}
        at = scored[(scored["task_set"] == task_set) & (scored["method"] == method) & (scored["budget"] == budget)]
        for metric, level in BUDGET_METRICS.items():
            n, mean, low, high = _mean_ci(at, metric, settings)
            row.update({f"{level} n": n, f"{level} recall (%)": mean, f"{level} CI low (%)": low,
                        f"{level} CI high (%)": high})
        rows.append(row)
    ns = [row[f"{level} n"] for row in rows for level in BUDGET_METRICS.values()]
    caption = ("Localization recall within the packed context: for each task set, method and token budget, the "
               "percentage "
               "of an instance's gold files (File) and gold functions (Function) that the context packed at that "
               f"budget contains, averaged over instances, with a {_bootstrap_text(settings)}. n: instances scored "
               "without error at that budget whose gold has that level; Errors: rows with an error at that "
               "budget." + slice_note(ns) + loc_notes(data))
    cols = [Column("Task set"), Column("Method"), Column("Budget", "int"), Column("Errors", "int")]
    for level in BUDGET_METRICS.values():
        cols += [Column(f"{level} n", "int"), Column(f"{level} recall (%)", "pct"),
                 Column(f"{level} CI low (%)", "pct"), Column(f"{level} CI high (%)", "pct")]
    return Table("tab_localization_budget", caption, cols, key_columns=3, sections=[rows])


def _paired_row(method: str, metric: str, budget: str, mine: pd.DataFrame, ref: pd.DataFrame, column: str,
                ref_col: str, settings: Settings) -> dict:
    pairs = mine[mine[column].notna()].merge(ref[ref[column].notna()], on="instance_id", suffixes=("_m", "_r"))
    row = {"Method": method, "Metric": metric, "Budget": budget, "Pairs": len(pairs), "Method (%)": None,
           ref_col: None, "Difference (pp)": None, "CI low (pp)": None, "CI high (pp)": None}
    if pairs.empty:
        return row
    m, r = [float(v) for v in pairs[f"{column}_m"]], [float(v) for v in pairs[f"{column}_r"]]
    diffs = [a - b for a, b in zip(m, r)]
    low, high = paired_bootstrap_ci(list(pairs["instance_id"]), diffs, resamples=settings.resamples,
                                    seed=settings.seed)
    n = len(pairs)
    row.update({"Method (%)": 100 * math.fsum(m) / n, ref_col: 100 * math.fsum(r) / n,
                "Difference (pp)": 100 * math.fsum(diffs) / n, "CI low (pp)": 100 * low, "CI high (pp)": 100 * high})
    return row


def paired_table(data: Dataset, settings: Settings) -> Table:
    ref = settings.reference
    methods = _methods(data)
    if ref not in methods:
        raise BuildInputError(f"--reference {ref}: no localization rows for method {ref!r}; localization methods "
                              f"present (pass one label exactly): {', '.join(methods)}")
    ranked, scored = ranking_rows(data), _scored(data)
    ref_col = f"Reference {ref} (%)"
    ranking_section, budget_section = [], []
    for method in methods:
        if method == ref:
            continue
        ranking_section.append(_paired_row(method, RANKING_METRICS[PAIRED_RANKING], ANY_BUDGET,
                                           ranked[ranked["method"] == method], ranked[ranked["method"] == ref],
                                           PAIRED_RANKING, ref_col, settings))
        for budget in sorted(set(data.loc_rows.loc[data.loc_rows["method"] == method, "budget"])):
            at = scored[scored["budget"] == budget]
            budget_section.append(_paired_row(method, "Budget function recall", str(budget),
                                              at[at["method"] == method], at[at["method"] == ref], PAIRED_BUDGET,
                                              ref_col, settings))
    ns = [row["Pairs"] for row in ranking_section + budget_section]
    caption = (f"Paired localization comparison with the reference method {ref} on the same instances: Function "
               "Acc@10 (a ranking metric, the same at every budget: Budget any) and recall of the gold functions "
               "within the packed context at each budget. An instance is a pair when both methods scored it "
               "without error and the metric is not null for it. Difference = method minus reference, in "
               f"percentage points, with a paired {_bootstrap_text(settings)}." + slice_note(ns) + loc_notes(data))
    cols = [Column("Method"), Column("Metric"), Column("Budget"), Column("Pairs", "int"), Column("Method (%)", "pct"),
            Column(ref_col, "pct"), Column("Difference (pp)", "pp"), Column("CI low (pp)", "pp"),
            Column("CI high (pp)", "pp")]
    return Table("tab_localization_paired", caption, cols, key_columns=3, sections=[ranking_section, budget_section])


def _metric_pairs(mine: pd.DataFrame, ref: pd.DataFrame, column: str) -> tuple[list[str], list[float], list[float]]:
    """(instance ids, method values, reference values) of the instances both have a value for, sorted by id."""
    pairs = mine[mine[column].notna()].merge(ref[ref[column].notna()], on="instance_id", suffixes=("_m", "_r"))
    pairs = pairs.sort_values("instance_id")
    return (list(pairs["instance_id"]), [float(v) for v in pairs[f"{column}_m"]],
            [float(v) for v in pairs[f"{column}_r"]])


def _metric_row(keys: dict, ids: list[str], m: list[float], r: list[float], settings: Settings) -> dict:
    row = {**keys, "Pairs": len(ids), "Method (%)": None, "Reference (%)": None, "Difference (pp)": None,
           "CI low (pp)": None, "CI high (pp)": None, "Better": 0, "Worse": 0, "Sign p": None}
    if not ids:
        return row
    diffs = [a - b for a, b in zip(m, r)]
    low, high = paired_bootstrap_ci(ids, diffs, resamples=settings.resamples, seed=settings.seed)
    better, worse = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
    n = len(ids)
    row.update({"Method (%)": 100 * math.fsum(m) / n, "Reference (%)": 100 * math.fsum(r) / n,
                "Difference (pp)": 100 * math.fsum(diffs) / n, "CI low (pp)": 100 * low, "CI high (pp)": 100 * high,
                "Better": better, "Worse": worse, "Sign p": f"{sign_test_p(better, worse):.3g}"})  # text: p-values need more than .1f
    return row


def paired_metrics_table(data: Dataset, settings: Settings) -> Table:
    """Every headline metric of every method minus the reference's, on the same instances, per task set."""
    ref = settings.reference
    ranked, scored = ranking_rows(data), _scored(data)
    sections = []
    for task_set in sorted(set(data.loc_rows["task_set"])):
        section = []
        in_set = data.loc_rows[data.loc_rows["task_set"] == task_set]
        r_set, s_set = ranked[ranked["task_set"] == task_set], scored[scored["task_set"] == task_set]
        for method in sorted(set(in_set["method"]) - {ref}):
            for metric in PAIRED_METRICS:
                ids, m, r = _metric_pairs(r_set[r_set["method"] == method], r_set[r_set["method"] == ref], metric)
                keys = {"Task set": task_set, "Method": method, "Metric": RANKING_METRICS[metric],
                        "Budget": ANY_BUDGET}
                section.append(_metric_row(keys, ids, m, r, settings))
            for budget in sorted(set(in_set.loc[in_set["method"] == method, "budget"])):
                at = s_set[s_set["budget"] == budget]
                ids, m, r = _metric_pairs(at[at["method"] == method], at[at["method"] == ref], PAIRED_BUDGET)
                keys = {"Task set": task_set, "Method": method, "Metric": "Function recall", "Budget": str(budget)}
                section.append(_metric_row(keys, ids, m, r, settings))
        sections.append(section)
    ns = [row["Pairs"] for s in sections for row in s]
    caption = (f"Paired comparison of every method with the reference {ref}, per task set: File Acc@1/5 and "
               "Function Acc@5/10 (ranking metrics, the same at every budget: Budget any) and recall of the gold "
               "functions within the packed context at each budget. Only instances both methods scored without "
               "error, with the metric not null, are pairs. Method (%) and Reference (%) are means over the pairs; "
               f"Difference = method minus reference, in percentage points, with a paired {_bootstrap_text(settings)}"
               "; Better/Worse: pairs where the method scores higher/lower (ties in neither); Sign p: two-sided "
               "exact sign test on Better vs Worse (3 significant digits; 1 when every pair ties)." + slice_note(ns) + loc_notes(data))
    cols = [Column("Task set"), Column("Method"), Column("Metric"), Column("Budget"), Column("Pairs", "int"),
            Column("Method (%)", "pct"), Column("Reference (%)", "pct"), Column("Difference (pp)", "pp"),
            Column("CI low (pp)", "pp"), Column("CI high (pp)", "pp"), Column("Better", "int"),
            Column("Worse", "int"), Column("Sign p")]
    return Table("tab_localization_paired_metrics", caption, cols, key_columns=4, sections=sections)


def context_table(data: Dataset, settings: Settings) -> Table | None:
    """Context metrics of trajectory rows per task set, method and metric; ``None`` when no row has any."""
    ranked = ranking_rows(data)
    values = [json.loads(v) for v in ranked["ranking"]]
    names = sorted({k for v in values for k in v if k.startswith(CONTEXT_PREFIXES)})
    if not names:
        return None
    frame = ranked[["task_set", "method", "instance_id"]].copy()
    for name in names:
        frame[name] = [v.get(name) for v in values]
    rows = []
    for (task_set, method), at in frame.groupby(["task_set", "method"], sort=True):
        for name in names:
            if at[name].notna().any():
                n, mean, low, high = _mean_ci(at, name, settings)
                rows.append({"Task set": task_set, "Method": method, "Metric": name, "n": n, "Mean": mean,
                             "CI low": low, "CI high": high})
    caption = ("Context retrieved by agent trajectories, per task set, method and metric: the mean over instances "
               f"on a 0 to 100 scale, with a {_bootstrap_text(settings)}. Each metric is named by the metric "
               "profile that computed it, as is each method (agent/profile): contextbench_* are the public "
               "ContextBench evaluator's definitions, reproduced exactly (coverage and precision of the final "
               "context at file, symbol, span and line grain, AUC as the mean per-step coverage, redundancy, "
               "EditLoc); beacon_* are Beacon's own (units instead of definition nodes, trapezoid AUC, EditLoc by "
               "file, unit and line). Means are over instances (ContextBench's own summary pools the final-context sizes "
               "instead; each row's contextbench field keeps them). n: instances scored without error with that "
               "metric not null."
               + slice_note([row["n"] for row in rows]) + loc_notes(data))
    cols = [Column("Task set"), Column("Method"), Column("Metric"), Column("n", "int"), Column("Mean", "pct"),
            Column("CI low", "pct"), Column("CI high", "pct")]
    return Table("tab_localization_context", caption, cols, key_columns=3, sections=[rows])


def localization_tables(data: Dataset, settings: Settings) -> list[Table]:
    c = data.loc_counts()
    if not c["scored_rows"]:
        raise BuildInputError(f"no scored localization rows: {c['rows_read']} rows read, all {c['error_excluded']} "
                              "with an error; nothing to report (see the error fields in records.jsonl)")
    tables = [loc_runs_table(data), accuracy_table(data, settings), budget_table(data, settings),
              paired_table(data, settings), paired_metrics_table(data, settings)]
    context = context_table(data, settings)  # only for runs with agent trajectories (experiments.trajectories)
    return tables + ([context] if context is not None else [])
