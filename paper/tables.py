"""The paper's tables, computed with pandas from the scored rows of a :class:`~paper.load.Dataset`.

Every table keeps oracle controls out of method results: rates and
failure modes list control rows in their own section (``Control = yes``),
paired comparisons put pairs that involve a control in their own section,
and the post-hoc router leaves controls out entirely. Percentages are
``100 * count / n`` computed from integer counts.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from beacon.records import OUTCOMES

from .latex import Column, Table
from .load import PAIR_KEYS, BuildInputError, Dataset
from .stats import LEVEL, paired_bootstrap_ci, wilson_ci

CELL = ["method", "query_type", "provider", "edit_format", "budget", "control"]
_KEY_COLUMNS = [Column("Method"), Column("Query"), Column("Provider"), Column("Edit format"), Column("Budget", "int"),
                Column("Control")]
CI_COLUMNS = ("CI low (%)", "CI high (%)")  # of every rate column; the figures draw them as error bars
CONTROLS = ("oracle controls (the target_file method, the oracle provider, or a query that reveals the bug "
            "line: exact, or dev_report falling back to it)")
CONTROL_NOTE = (f"Rows with Control = yes are {CONTROLS}; they are listed in their own section, below the method "
                "rows, and are not method results.")


@dataclass(frozen=True)
class Settings:
    reference: str = "bm25"
    resamples: int = 10_000
    seed: int = 0


def notes(data: Dataset) -> str:
    """Caption tail shared by every table and figure: exclusions and unverified runs."""
    c = data.counts()
    text = (f" Excluded before counting: {c['dry_run_excluded']} dry-run rows and {c['no_outcome_excluded']} rows "
            "without an outcome (invalid tasks).")
    if data.unverified:
        text += f" Includes UNVERIFIED runs (unsealed, altered or missing): {', '.join(data.unverified)}."
    if data.unsandboxed:
        text += (f" Includes {data.unsandboxed} rows whose tests ran WITHOUT the sandbox (sandboxed: false; "
                 "host files and the network were reachable by the code under test).")
    return text + data.failed_note() + data.shown_note()


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _key_cells(key: tuple) -> dict:
    method, query, provider, edit_format, budget, control = key
    return {"Method": method, "Query": query, "Provider": provider, "Edit format": edit_format,
            "Budget": int(budget), "Control": _yes(bool(control))}


def _pct(count: int, n: int) -> float | None:
    return 100 * int(count) / int(n) if n else None


def _split(rows: list[dict]) -> list[list[dict]]:
    return [[r for r in rows if r["Control"] == "no"], [r for r in rows if r["Control"] == "yes"]]


WILSON_NOTE = ("CI low/high: Wilson score 95% interval of the rate over the cell's attempts (one attempt per "
               "task in a cell).")


def _wilson(k: int, n: int) -> tuple[float | None, float | None]:
    if not n:
        return None, None
    low, high = wilson_ci(int(k), int(n))
    return 100 * low, 100 * high


# Outcomes that mean the scorer caught an attempt to fake a pass: shown in their own columns beside
# the pass rate, so a reader sees them without opening the failure-mode table.
TAMPER_COLUMNS = {"suspicious_edit": "Suspicious edit", "tampered": "Tampered"}


def _rate_table(data: Dataset, label: str, flag: str, counted: str, rate: str, what: str,
                outcome_columns: dict[str, str] | None = None) -> Table:
    known = data.rows[data.rows[flag].notna()].astype({flag: bool})
    grouped = known.groupby(CELL, sort=True)[flag].agg(["size", "sum"])
    extra = outcome_columns or {}
    outcomes = known.groupby(CELL, sort=True)["outcome"]
    rows = [{**_key_cells(key), "Attempts": int(n), counted: int(k), rate: _pct(k, n),
             **dict(zip(CI_COLUMNS, _wilson(k, n))),
             **{title: int((outcomes.get_group(key) == name).sum()) for name, title in extra.items()}}
            for key, (n, k) in grouped.iterrows()]
    caption = f"{what} {WILSON_NOTE} {CONTROL_NOTE}{notes(data)}"
    return Table(label, caption, [*_KEY_COLUMNS, Column("Attempts", "int"), Column(counted, "int"),
                                  Column(rate, "pct"), *(Column(c, "pct") for c in CI_COLUMNS),
                                  *(Column(title, "int") for title in extra.values())],
                 key_columns=6, sections=_split(rows))


def runs_table(data: Dataset) -> Table:
    # Runs holding only localization rows are listed in tab_localization_runs instead.
    rows = [{"Run": r.name, "Config hash": (r.config_hash or "")[:12], "Manifest": r.manifest,
             "Status": r.status, "Rows": r.repair_rows, "Dry run": r.dry_run, "No outcome": r.no_outcome,
             "Control": r.control, "Method rows": r.method_rows} for r in data.runs if r.repair_rows or not r.rows]
    caption = ("Source runs: repair rows read from each run's records.jsonl; dry-run rows and rows without an "
               "outcome (invalid tasks) are excluded from every other table; control rows are oracle controls, "
               "reported separately. Manifest: checked with beacon.artifacts.verify.")
    if data.missing_jobs:
        caption += f" Missing jobs (no run.json): {', '.join(data.missing_jobs)}."
    caption += data.failed_note()
    cols = [Column("Run"), Column("Config hash"), Column("Manifest"), Column("Status"), Column("Rows", "int"),
            Column("Dry run", "int"), Column("No outcome", "int"), Column("Control", "int"),
            Column("Method rows", "int")]
    return Table("tab_runs", caption, cols, key_columns=1, sections=[rows])


def pass_rate_table(data: Dataset) -> Table:
    return _rate_table(data, "tab_pass_rate", "passed", "Passes", "Pass rate (%)",
                       "Repair pass rate by method, query type, provider, edit format and token budget "
                       "(Attempts: scored rows; Passes: outcome pass; Suspicious edit: the static screen found "
                       "a construct the edit introduced; Tampered: the run's canary tests contradicted its "
                       "report — both are caught attempts to fake a pass, never counted as passes).",
                       TAMPER_COLUMNS)


def coverage_table(data: Dataset) -> Table:
    unknown = int(data.rows["covers"].isna().sum())
    return _rate_table(data, "tab_coverage", "covers", "Covering", "Coverage (%)",
                       "Retrieval target coverage: share of attempts whose context contains the bug line "
                       "(covers_bug_line), by method, query type, provider, edit format and token budget; "
                       f"{unknown} scored rows without a context (task preparation failed) are not counted here.")


def failure_table(data: Dataset) -> Table:
    counts = (data.rows.groupby(["method", "control", "outcome"]).size()
              .unstack("outcome", fill_value=0).reindex(columns=list(OUTCOMES), fill_value=0))
    rows = [{"Method": method, "Control": _yes(control), "Attempts": int(line.sum()),
             **{o: int(line[o]) for o in OUTCOMES}} for (method, control), line in counts.iterrows()]
    caption = ("Failure modes: number of attempts per outcome and method, over all budgets, query types, "
               f"providers and edit formats. {CONTROL_NOTE}{notes(data)}")
    cols = [Column("Method"), Column("Control"), Column("Attempts", "int"), *(Column(o, "int") for o in OUTCOMES)]
    return Table("tab_failure_modes", caption, cols, key_columns=2, sections=_split(rows))


def _paired_row(key: tuple, budget: str, pairs: pd.DataFrame, settings: Settings, ref_col: str) -> dict:
    diffs = pairs["passed_m"].astype(int) - pairs["passed_r"].astype(int)
    low, high = paired_bootstrap_ci(list(pairs["task_id"]), list(diffs), resamples=settings.resamples,
                                    seed=settings.seed)
    n, wins_m, wins_r = len(pairs), int(pairs["passed_m"].sum()), int(pairs["passed_r"].sum())
    method, query, provider, edit_format, control = key
    return {"Method": method, "Query": query, "Provider": provider, "Edit format": edit_format, "Budget": budget,
            "Control": _yes(bool(control)), "Pairs": n, "Tasks": int(pairs["task_id"].nunique()),
            "Method pass (%)": _pct(wins_m, n), ref_col: _pct(wins_r, n),
            "Difference (pp)": 100 * (wins_m - wins_r) / n, "CI low (pp)": 100 * low, "CI high (pp)": 100 * high}


def paired_table(data: Dataset, settings: Settings) -> Table:
    df, ref = data.rows, settings.reference
    if ref not in set(df["method"]):
        raise BuildInputError(f"--reference {ref}: no scored rows for method {ref!r}; methods present (pass one "
                              f"label exactly): {', '.join(sorted(set(df['method'])))}")
    merged = df[df["method"] != ref].merge(df[df["method"] == ref], on=list(PAIR_KEYS), suffixes=("_m", "_r"))
    merged["control"] = merged["control_m"] | merged["control_r"]
    merged = merged.rename(columns={"method_m": "method"})
    ref_col = f"Reference {ref} pass (%)"
    group = ["method", "query_type", "provider", "edit_format", "control"]
    rows = []
    for key, pairs in merged.groupby(group, sort=True):
        for budget, at_budget in pairs.groupby("budget", sort=True):
            rows.append(_paired_row(key, str(budget), at_budget, settings, ref_col))
        if pairs["budget"].nunique() > 1:
            rows.append(_paired_row(key, "all", pairs, settings, ref_col))
    caption = (f"Paired comparison with the reference method {ref}: rows of a method and of {ref} are paired when "
               "task, budget, query type, edit format and provider agree. Difference = method pass rate minus "
               f"reference pass rate on the pairs, in percentage points, with a {LEVEL:.0%} percentile bootstrap "
               f"interval ({settings.resamples} resamples of tasks, seed {settings.seed}); Budget all pools every "
               "budget, resampling whole tasks. Pairs that involve an oracle control on either side have "
               f"Control = yes and are listed in their own section; they are not method comparisons.{notes(data)}")
    cols = [Column("Method"), Column("Query"), Column("Provider"), Column("Edit format"), Column("Budget"),
            Column("Control"), Column("Pairs", "int"), Column("Tasks", "int"), Column("Method pass (%)", "pct"),
            Column(ref_col, "pct"), Column("Difference (pp)", "pp"), Column("CI low (pp)", "pp"),
            Column("CI high (pp)", "pp")]
    return Table("tab_paired", caption, cols, key_columns=6, sections=_split(rows))


ORACLE_COLUMN = "In-sample oracle upper bound (%)"


def router_table(data: Dataset) -> Table:
    df = data.rows[~data.rows["control"]]
    rows = []
    for (query, provider, edit_format, budget), cell in df.groupby(
            ["query_type", "provider", "edit_format", "budget"], sort=True):
        grid = cell.pivot(index="task_id", columns="method", values="passed")
        complete = grid.dropna().astype(bool)
        n = len(complete)
        solved = {m: int(complete[m].sum()) for m in grid.columns}
        best = max(solved.values()) if n else None
        rows.append({"Query": query, "Provider": provider, "Edit format": edit_format, "Budget": int(budget),
                     "Methods": grid.shape[1], "Tasks": n, "Incomplete tasks": len(grid) - n,
                     "Best single method (in-sample)": ", ".join(sorted(m for m, k in solved.items() if k == best))
                     if n else None,
                     "Best single method pass (%)": _pct(best, n) if n else None,
                     ORACLE_COLUMN: _pct(int(complete.any(axis=1).sum()), n)})
    caption = ("Post-hoc router, in-sample oracle upper bound (not a method): for each task, budget, query type, "
               "provider and edit format, the task counts as solved if any method solved it, i.e. the best "
               "method is chosen in hindsight on the very tasks being scored. This bounds any router from above "
               "and is not an achievable result. The best single method is also chosen in-sample. Only tasks "
               "attempted by every method of the row count (Incomplete tasks: attempted by only some). Oracle "
               f"control rows are excluded.{notes(data)}")
    cols = [Column("Query"), Column("Provider"), Column("Edit format"), Column("Budget", "int"),
            Column("Methods", "int"), Column("Tasks", "int"), Column("Incomplete tasks", "int"),
            Column("Best single method (in-sample)"), Column("Best single method pass (%)", "pct"),
            Column(ORACLE_COLUMN, "pct")]
    return Table("tab_router_oracle_upper_bound", caption, cols, key_columns=4, sections=[rows])


def all_tables(data: Dataset, settings: Settings) -> list[Table]:
    if data.rows.empty:
        c = data.counts()
        raise BuildInputError(f"no scored rows: {c['rows_read']} rows read, {c['dry_run_excluded']} dry-run, "
                              f"{c['no_outcome_excluded']} without an outcome; nothing to report")
    return [runs_table(data), pass_rate_table(data), failure_table(data), coverage_table(data),
            paired_table(data, settings), router_table(data)]
