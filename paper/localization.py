"""Localization rows (``kind == "localize"``): validation, the metrics the paper reports, consistency checks.

A row is a ``beacon.records.LocalizationRecord`` (or ``TrajectoryRecord``),
typed and validated there: fields, and ``error`` against ``metrics``. Rows
without ``task_set`` (the tasks config name, e.g. ``mined`` or
``swebench_lite_dev``) form the set ``all``. Here: a scored row must have
every metric the paper reports, each a number in [0, 1] or null (no gold at
that level); a failed instance (``error`` set, ``metrics`` null) is excluded
from every metric and counted.

Rankings do not depend on the token budget (only the packed context does),
so every metric that does not start with ``budget_`` must agree between rows
of one method and instance at different budgets; :func:`check_rankings`
refuses runs where they do not, since such rows cannot come from the same
method, data and code.
"""
from __future__ import annotations

import json
from typing import Any

import pandas as pd

from beacon.records import ABSENT, LocalizationRecord, TrajectoryRecord

from .errors import BuildInputError

# metric key -> display name; budget-independent ranking metrics, in table order
RANKING_METRICS = {"file_acc@1": "File Acc@1", "file_acc@5": "File Acc@5", "module_acc@5": "Module Acc@5",
                   "function_acc@5": "Function Acc@5", "function_acc@10": "Function Acc@10",
                   "file_mrr": "File MRR", "function_mrr": "Function MRR"}
# recall of the gold within the packed context, per budget
BUDGET_METRICS = {"budget_file_recall": "File", "budget_function_recall": "Function"}
BUDGET_PREFIX = "budget_"
COLUMNS = ["run", "key", "instance_id", "method", "budget", "error", *RANKING_METRICS, *BUDGET_METRICS, "ranking",
           "task_set"]
# Runs written before the runner recorded ``task_set`` (its tasks config name) form one unnamed set.
DEFAULT_TASK_SET = "all"


def _check_metric(name: str, value: Any, where: str) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise BuildInputError(f"{where}: field 'metrics.{name}': expected a number in [0, 1] or null, got {value!r}")


def check_metrics(row: LocalizationRecord | TrajectoryRecord, where: str) -> None:
    """Refuse a scored row without a metric the paper reports, or with one outside [0, 1] (types: beacon.records)."""
    if row.error is not None:
        return
    for name in (*RANKING_METRICS, *BUDGET_METRICS):
        if name not in row.metrics:
            raise BuildInputError(f"{where}: field 'metrics.{name}' is missing; expected {row.SHAPE}")
    for name, value in row.metrics.items():
        _check_metric(name, value, where)


def convert(row: LocalizationRecord | TrajectoryRecord, run: str) -> dict:
    """The columns the paper keeps of one checked row (``params`` is replaced by a label in ``load``)."""
    metrics = row.metrics or {}
    # as floats, so that 1 and 1.0 compare equal in the ranking check
    ranking = {k: None if v is None else float(v) for k, v in metrics.items() if not k.startswith(BUDGET_PREFIX)}
    return {"run": run, "key": row.key, "instance_id": row.instance_id, "method": row.method,
            "params": json.dumps(row.method_params, sort_keys=True), "budget": row.budget,
            "error": row.error, **{name: metrics.get(name) for name in (*RANKING_METRICS, *BUDGET_METRICS)},
            "ranking": json.dumps(ranking, sort_keys=True) if row.error is None else None,
            "task_set": DEFAULT_TASK_SET if row.task_set is ABSENT else row.task_set}


def check_unique(frame: pd.DataFrame) -> None:
    """One row per method label, instance and budget (pairing and the ranking check rely on it)."""
    cell = ["method", "instance_id", "budget"]
    dup = frame[frame.duplicated(cell, keep=False)].sort_values([*cell, "run"])
    if len(dup):
        first = dup.iloc[0]
        same = dup[(dup[cell] == first[cell]).all(axis=1)]
        where = ", ".join(f"{r.run} ({r.key})" for r in same.itertuples())
        raise BuildInputError(f"localization: method {first['method']!r} instance {first['instance_id']!r} budget "
                              f"{first['budget']} is scored more than once: {where}; pass each run once")


def check_rankings(frame: pd.DataFrame) -> None:
    """Refuse rows of one method and instance whose ranking metrics differ between budgets."""
    scored = frame[frame["error"].isna()].sort_values(["method", "instance_id", "budget"])
    for (method, instance), rows in scored.groupby(["method", "instance_id"], sort=True):
        if rows["ranking"].nunique() < 2:
            continue
        first = rows.iloc[0]
        other = rows[rows["ranking"] != first["ranking"]].iloc[0]
        a, b = json.loads(first["ranking"]), json.loads(other["ranking"])
        diff = [f"{k}: {a.get(k)!r} vs {b.get(k)!r}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
        raise BuildInputError(
            f"localization: method {method!r} instance {instance!r}: ranking metrics differ between budget "
            f"{first['budget']} ({first['run']}, {first['key']}) and budget {other['budget']} ({other['run']}, "
            f"{other['key']}): {'; '.join(diff[:4])}{' …' if len(diff) > 4 else ''}. Rankings do not depend on the "
            "budget, so these rows cannot come from the same method, data and code; build from runs that agree "
            "(e.g. rerun the method at every budget with one code version)")
