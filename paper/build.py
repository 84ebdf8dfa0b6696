"""Regenerate every paper table and figure from artifact run folders alone.

    python -m paper.build RUN_OR_SWEEP_DIR... [--out paper/build] [--reference bm25]
                          [--resamples 10000] [--seed 0] [--allow-unsealed] [--methods "bm25;hybrid"]

A folder holding ``run.json`` is a run; any other folder is searched for runs
(a Hydra multirun sweep). Only ``run.json`` and ``records.jsonl`` are read.
Runs may hold repair rows (no ``kind``, or ``kind: "repair"``), localization
rows (``kind: "localize"``) or both: the repair outputs are built when there
are repair rows, the localization outputs when there are localization rows.
Runs that fail ``beacon.artifacts.verify`` (unsealed, altered) and sweep
jobs that never created a run are refused unless ``--allow-unsealed``; then
they are named in every caption, figure and in ``index.md``.

Repair outputs: tab_runs, tab_pass_rate, tab_failure_modes, tab_coverage,
tab_paired, tab_router_oracle_upper_bound; fig_pass_rate, fig_failure_modes,
fig_coverage; for a pilot of at most 10 tasks also tab_outcome_grid and fig_outcome_grid
(every attempt's outcome, method x task x edit format). Localization outputs: tab_localization_runs,
tab_localization_acc, tab_localization_budget, tab_localization_paired,
tab_localization_paired_metrics (every metric vs the reference, per task set);
fig_localization_recall_vs_budget. ``--reference`` names the reference method
of both paired tables. ``--methods`` keeps only the listed method labels in
every table and figure (a paper figure of five methods from a 21-method sweep);
the others are still read and verified, and every caption says so.

Writes, into ``--out``: ``tab_<name>.tex`` (booktabs), ``fig_<name>.pdf``,
``fig_<name>.png`` and ``fig_<name>.tex`` (figure environment + caption),
``summary.json`` (every table cell: ``tables -> label -> rows -> row id ->
column``) and ``index.md`` (outputs and source runs). Nothing written holds
a timestamp or an absolute path, so rebuilding unchanged runs rewrites the
same bytes. Exit status: 0 built, 2 refused (the message says why).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from beacon.artifacts import atomic_write_bytes, atomic_write_text, safe_label
from beacon.records import OUTCOMES

from . import outcome_grid
from .latex import Table
from .load import BuildInputError, Dataset, load, restrict
from .loc_tables import loc_notes, localization_tables, slice_note
from .localization import BUDGET_METRICS, RANKING_METRICS
from .tables import Settings, all_tables, notes

if TYPE_CHECKING:
    from .figures import FigureOut

SUMMARY = "summary.json"
INDEX = "index.md"


def make_figures(data: Dataset, tables: dict[str, Table]) -> list[FigureOut]:
    """The figures of the tables present: repair figures, then the localization figure."""
    from .figures import failure_figure, rate_figure, recall_figure  # matplotlib only once the runs are accepted

    warning = "includes UNVERIFIED runs" if data.unverified else None
    figures = []
    if "tab_pass_rate" in tables:
        tail = notes(data)
        figures += [
            rate_figure(tables["tab_pass_rate"], "fig_pass_rate", "Pass rate (%)", "pass rate (%)",
                        "Repair pass rate (%) against token budget.", tail, warning),
            failure_figure(tables["tab_failure_modes"], OUTCOMES, tail, warning),
            rate_figure(tables["tab_coverage"], "fig_coverage", "Coverage (%)", "attempts covering the bug line (%)",
                        "Retrieval target coverage: share of attempts whose context contains the bug line, against "
                        "token budget.", tail, warning),
        ]
    if outcome_grid.LABEL in tables:
        figures.append(outcome_grid.outcome_grid_figure(tables[outcome_grid.LABEL], warning))
    if "tab_localization_budget" in tables:
        budget = tables["tab_localization_budget"]
        levels = tuple(BUDGET_METRICS.values())
        ns = [row[f"{level} n"] for row in budget.rows() for level in levels]
        figures.append(recall_figure(budget, levels, slice_note(ns, "point") + loc_notes(data), warning))
    return figures


def summary(data: Dataset, settings: Settings, tables: list[Table], figures: list[FigureOut]) -> dict:
    doc = {
        "schema": "beacon-paper-summary/1",
        "settings": {"reference": settings.reference, "resamples": settings.resamples, "seed": settings.seed,
                     "confidence": 0.95, **({"methods_shown": list(data.shown)} if data.shown else {})},
        "runs": [{"name": r.name, "config_hash": r.config_hash, "status": r.status, "manifest": r.manifest,
                  "verified": r.verified, "problems": r.problems, "rows": r.rows, "repair_rows": r.repair_rows,
                  "dry_run": r.dry_run, "no_outcome": r.no_outcome, "control": r.control,
                  "method_rows": r.method_rows, "localization_rows": r.loc_rows, "localization_errors": r.loc_errors}
                 for r in data.runs],
        "missing_jobs": data.missing_jobs,
        "failed_jobs": [{"job": name, "reason": reason} for name, reason in data.failed_jobs],
        "sweeps": data.sweeps,
        "methods": data.methods,
        "tables": {t.label: t.to_summary() for t in tables},
        "figures": {f.label: {"caption": f.caption, "latex_label": f.latex_label,
                              "files": [f"{f.label}.pdf", f"{f.label}.png", f"{f.label}.tex"]} for f in figures},
    }
    if "tab_runs" in {t.label for t in tables}:
        doc["counts"] = data.counts()  # repair rows
        doc["settings"]["bootstrap_unit"] = "task"
    if data.has_localization:
        doc["localization"] = {"counts": data.loc_counts(), "bootstrap_unit": "instance",
                               "ranking_metrics": RANKING_METRICS, "budget_metrics": BUDGET_METRICS}
    return doc


def index(data: Dataset, settings: Settings, tables: list[Table], figures: list[FigureOut]) -> str:
    labels = {t.label for t in tables}
    lines = ["# Paper build", "",
             "Generated by `python -m paper.build` from artifact folders only (run.json + records.jsonl); "
             "do not edit by hand. Every table cell is also in `summary.json`.", "",
             f"Reference method: `{settings.reference}`; bootstrap: {settings.resamples} resamples of tasks "
             f"(repair) or instances (localization), seed {settings.seed}, 95% percentile intervals.", ""]
    if "tab_runs" in labels:
        c = data.counts()
        lines += [f"Repair rows read: {c['rows_read']}; excluded: {c['dry_run_excluded']} dry-run, "
                  f"{c['no_outcome_excluded']} without an outcome (invalid tasks); scored: {c['method_rows']} method "
                  f"rows and {c['control_rows']} oracle-control rows (reported separately, never in method "
                  "comparisons).", ""]
    if "tab_localization_runs" in labels:
        c = data.loc_counts()
        lines += [f"Localization rows read: {c['rows_read']}; excluded: {c['error_excluded']} with an error; "
                  f"scored: {c['scored_rows']} rows, {c['instances_scored']} of {c['instances_read']} instances.",
                  ""]
    if data.unverified:
        lines += [f"**WARNING: built with --allow-unsealed from UNVERIFIED runs: {', '.join(data.unverified)}.**", ""]
    if data.sweeps:
        lines += ["Sweeps read: " + ", ".join(f"`{_cell(s)}`" for s in data.sweeps) + ".", ""]
    if data.failed_jobs:
        lines += [f"**{len(data.failed_jobs)} failed job(s) left out** (none of their rows is read; every caption "
                  "names them):", ""] + [f"- {_cell(name)}: {_cell(reason)}" for name, reason in data.failed_jobs]
        lines.append("")
    if data.shown:
        hidden = [m for m in data.read_methods if m not in data.shown]
        lines += [f"Methods shown (--methods): {', '.join(data.shown)}. "
                  + (f"The runs also hold: {', '.join(hidden)}; their rows are read and verified but appear in no "
                     "output." if hidden else "That is every method the runs hold."), ""]
    lines += glance(tables)
    lines += ["## Outputs", "", "| label | LaTeX label | files | caption |", "|---|---|---|---|"]
    for t in tables:
        lines.append(f"| {t.label} | `{t.latex_label}` | {t.label}.tex | {_cell(t.caption)} |")
    for f in figures:
        lines.append(f"| {f.label} | `{f.latex_label}` | {f.label}.pdf, {f.label}.png, {f.label}.tex "
                     f"| {_cell(f.caption)} |")
    lines += ["", "## Methods", "", "A method's parameters appear in its label only when the runs score it with "
              "several parameter sets.", "", "| label | method | parameters |", "|---|---|---|"]
    for label, spec in data.methods.items():
        params = json.dumps(spec["params"], sort_keys=True, ensure_ascii=False)
        lines.append(f"| {_cell(label)} | {_cell(spec['method'])} | `{_cell(params)}` |")
    lines += ["", "## Source runs", "", "Every output above is built from all of these runs.", "",
              "| run | config hash | manifest | status | rows |", "|---|---|---|---|---|"]
    for r in data.runs:
        lines.append(f"| {_cell(r.name)} | `{r.config_hash}` | {r.manifest} | {r.status} | {r.rows} |")  # both kinds
    for job in data.missing_jobs:
        lines.append(f"| {_cell(job)} | — | MISSING (no run.json) | — | 0 |")
    problems = [(r.name, p) for r in data.runs for p in r.problems]
    if problems:
        lines += ["", "## Verification problems", ""] + [f"- {_cell(name)}: {_cell(p)}" for name, p in problems]
    return "\n".join(lines) + "\n"


def glance(tables: list[Table]) -> list[str]:
    """index.md's first look at the results: each method's rate with its 95% interval, from the tables' own cells."""
    by_label = {t.label: t for t in tables}
    lines: list[str] = []

    def pct(v) -> str:
        return "--" if v is None else f"{v:.1f}"

    if "tab_pass_rate" in by_label:
        t = by_label["tab_pass_rate"]
        key = ("Method", "Query", "Provider", "Edit format", "Budget", "Control")
        cover = {tuple(r[k] for k in key): r for r in by_label["tab_coverage"].rows()} \
            if "tab_coverage" in by_label else {}
        lines += ["## Results at a glance", "", f"Pass rate and retrieval target coverage (the context shows the bug "
                  f"line) per method, from tables `{t.label}` and `tab_coverage`, each with its 95% Wilson score "
                  "interval over attempts; rows marked control are oracle controls, not method results.", "",
                  "| method | query | provider | edit format | budget | passes / attempts | pass rate (%) [95% CI] "
                  "| covering / attempts | coverage (%) [95% CI] |", "|---|---|---|---|---|---|---|---|---|"]
        for r in t.rows():
            name = r["Method"] + (" (control)" if r["Control"] == "yes" else "")
            c = cover.get(tuple(r[k] for k in key))
            coverage = (f"{c['Covering']} / {c['Attempts']} | {pct(c['Coverage (%)'])} "
                        f"[{pct(c['CI low (%)'])}, {pct(c['CI high (%)'])}]") if c else "-- | --"
            lines.append(f"| {_cell(name)} | {_cell(r['Query'])} | {_cell(r['Provider'])} | {_cell(r['Edit format'])} "
                         f"| {r['Budget']} | {r['Passes']} / {r['Attempts']} | {pct(r['Pass rate (%)'])} "
                         f"[{pct(r['CI low (%)'])}, {pct(r['CI high (%)'])}] | {coverage} |")
        lines.append("")
    if "tab_localization_budget" in by_label:
        t = by_label["tab_localization_budget"]
        level = next(c.name[: -len(" recall (%)")] for c in t.columns if c.name.endswith(" recall (%)"))
        if not lines:
            lines += ["## Results at a glance", ""]
        lines += [f"{level} recall in the packed context per method and budget (table `{t.label}`; 95% bootstrap "
                  "interval over instances).", "",
                  f"| task set | method | budget | n | {level.lower()} recall (%) | 95% CI |", "|---|---|---|---|---|---|"]
        for r in t.rows():
            lines.append(f"| {_cell(r['Task set'])} | {_cell(r['Method'])} | {r['Budget']} | {r[f'{level} n']} "
                         f"| {pct(r[f'{level} recall (%)'])} | [{pct(r[f'{level} CI low (%)'])}, "
                         f"{pct(r[f'{level} CI high (%)'])}] |")
        lines.append("")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _check_out(out: Path, data: Dataset) -> None:
    real = out.resolve()
    for run in data.runs:
        if real == run.path.resolve() or run.path.resolve() in real.parents:
            raise BuildInputError(f"--out {out}: inside run folder {run.path}; writing there would break its "
                                  "manifest — choose a folder outside every run")


def build(paths: list[Path], out: Path, settings: Settings, *, allow_unsealed: bool = False,
          methods: list[str] | None = None) -> list[Path]:
    """Build every output into ``out`` (only ``methods``' rows, when given); returns the paths written."""
    data = load(paths, allow_unsealed=allow_unsealed)
    if methods is not None:
        data = restrict(data, methods)
    _check_out(out, data)
    tables = []
    if data.has_repair or not data.has_localization:  # no rows at all: all_tables says so
        tables += all_tables(data, settings)
        if outcome_grid.wanted(data):
            tables.append(outcome_grid.outcome_grid_table(data))
    if data.has_localization:
        tables += localization_tables(data, settings)
    figures = make_figures(data, {t.label: t for t in tables})
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for t in tables:
        written.append(atomic_write_text(out / f"{safe_label(t.label)}.tex", t.to_latex()))
    for f in figures:
        stem = safe_label(f.label)
        written.append(atomic_write_bytes(out / f"{stem}.pdf", f.pdf))
        written.append(atomic_write_bytes(out / f"{stem}.png", f.png))
        written.append(atomic_write_text(out / f"{stem}.tex", f.to_latex()))
    doc = summary(data, settings, tables, figures)
    text = json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    written.append(atomic_write_text(out / SUMMARY, text))
    written.append(atomic_write_text(out / INDEX, index(data, settings, tables, figures)))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m paper.build", description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_OR_SWEEP_DIR")
    parser.add_argument("--out", type=Path, default=Path("paper/build"), help="output folder (default paper/build)")
    parser.add_argument("--reference", default="bm25",
                        help="reference method of the paired tables, repair and localization (default bm25)")
    parser.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument("--allow-unsealed", action="store_true",
                        help="build from unsealed/altered runs too, marking them in every output")
    parser.add_argument("--methods", type=lambda text: [m.strip() for m in text.split(";") if m.strip()],
                        help="only these method labels (';'-separated, as in index.md's Methods table; the "
                             "reference among them) in every table and figure")
    args = parser.parse_args(argv)
    if args.resamples < 1:
        parser.error(f"--resamples must be at least 1, got {args.resamples}")
    settings = Settings(reference=args.reference, resamples=args.resamples, seed=args.seed)
    try:
        written = build(args.runs, args.out, settings, allow_unsealed=args.allow_unsealed, methods=args.methods)
    except BuildInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} files to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
