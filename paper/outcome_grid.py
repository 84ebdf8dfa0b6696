"""The outcome grid of a small repair pilot: one cell per method x task x edit format.

Pass rates hide *how* a model fails. For a pilot with a handful of tasks
(the Boltons pilot: 3 mutations) the paper shows every attempt's outcome
instead: rows are method x budget x query type x provider (controls in
their own section), columns are task x edit format, and a cell is the
outcome of the single attempt scored there (the loader guarantees one row
per cell). Tasks are numbered T1, T2, … in sorted ``task_id`` order and the
caption spells each out. Built only when a build holds at most
``MAX_TASKS`` tasks; a larger sweep would give an unreadable grid.
"""
from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import Patch

from beacon.records import OUTCOMES

from .figures import OUTCOME_COLORS, FigureOut, _render
from .latex import Column, Table
from .load import Dataset
from .tables import CONTROL_NOTE, notes

MAX_TASKS = 10
LABEL = "tab_outcome_grid"
_ROW_KEYS = ["method", "budget", "query_type", "provider", "control"]
_KEY_COLUMNS = [Column("Method"), Column("Budget", "int"), Column("Query"), Column("Provider"), Column("Control")]


def task_numbers(data: Dataset) -> dict[str, str]:
    return {task: f"T{i}" for i, task in enumerate(sorted(set(data.rows["task_id"])), start=1)}


def wanted(data: Dataset) -> bool:
    return not data.rows.empty and data.rows["task_id"].nunique() <= MAX_TASKS


def outcome_grid_table(data: Dataset) -> Table:
    numbers = task_numbers(data)
    formats = sorted(set(data.rows["edit_format"]))
    columns = [f"{numbers[t]} {f}" for t in numbers for f in formats]
    sections: list[list[dict]] = [[], []]
    for key, cell in data.rows.groupby(_ROW_KEYS, sort=True):
        method, budget, query, provider, control = key
        row = {"Method": method, "Budget": int(budget), "Query": query, "Provider": provider,
               "Control": "yes" if control else "no", **{c: None for c in columns}}
        for attempt in cell.itertuples():
            row[f"{numbers[attempt.task_id]} {attempt.edit_format}"] = attempt.outcome
        row["Passes"] = int(cell["passed"].sum())
        row["Attempts"] = len(cell)
        sections[bool(control)].append(row)
    legend = "; ".join(f"{n} = {t}" for t, n in numbers.items())
    caption = (f"Outcome of every repair attempt, by method (rows) and task x edit format (columns): {legend}. "
               "A cell is the harness outcome of the one attempt scored there (pass is proven by the JUnit "
               f"report; -- means not attempted). {CONTROL_NOTE}{notes(data)}")
    cols = [*_KEY_COLUMNS, *(Column(c) for c in columns), Column("Passes", "int"), Column("Attempts", "int")]
    return Table(LABEL, caption, cols, key_columns=5, sections=sections)


def _draw_grid(table: Table, warning: str | None) -> Figure:
    rows = table.rows()
    cells = [c.name for c in table.columns[5:-2]]
    fig = Figure(figsize=(max(4.0, 0.55 * len(cells) + 2.2), max(2.0, 0.28 * len(rows) + 1.2)))
    ax = fig.add_subplot()
    vary = [k for k in ("Query", "Provider") if len({r[k] for r in rows}) > 1]
    names = [f"{r['Method']} @{r['Budget']}" + "".join(f" · {r[k]}" for k in vary)
             + (" (control)" if r["Control"] == "yes" else "") for r in rows]
    for y, row in enumerate(rows):
        for x, name in enumerate(cells):
            outcome = row[name]
            ax.add_patch(_square(x, y, OUTCOME_COLORS.get(outcome, "#ffffff"), outcome is None))
    ax.set_xlim(-0.5, len(cells) - 0.5)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xticks(range(len(cells)), cells, rotation=45, ha="right")
    ax.set_yticks(range(len(rows)), names)
    ax.grid(False)
    seen = [o for o in OUTCOMES if any(r[c] == o for r in rows for c in cells)]
    ax.legend(handles=[Patch(color=OUTCOME_COLORS[o], label=o) for o in seen], loc="upper left",
              bbox_to_anchor=(1.01, 1.0), frameon=False)
    if warning:
        ax.set_title(warning, color="#d62728")
    fig.tight_layout()
    return fig


def _square(x: int, y: int, color: str, empty: bool):
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.45, y - 0.45), 0.9, 0.9, facecolor=color, edgecolor="#555555" if empty else color,
                     linewidth=0.5, hatch="//" if empty else None)


def outcome_grid_figure(table: Table, warning: str | None) -> FigureOut:
    pdf, png = _render(_draw_grid, table, warning)
    caption = ("Outcome of every repair attempt (colour = harness outcome), drawn from tab_outcome_grid: "
               + table.caption)
    return FigureOut("fig_outcome_grid", caption, pdf, png)
