"""Localization rows (``kind == "localize"``): validation, the metrics the paper reports, consistency checks.

A row is shaped like ``experiments.localize.run_localize``'s record: the
body of ``beacon.localize.evaluate.evaluate`` plus ``key``, ``instance_id``,
``repo``, ``base_commit``, ``method``, ``method_params``, ``budget`` and
``error``, and optionally ``task_set`` (the tasks config name, e.g.
``mined`` or ``swebench_lite_dev``; rows without it form the set ``all``).
A scored row has ``error: null`` and a ``metrics`` dict (every
value a number in [0, 1], or null when the instance has no gold at that
level); a failed instance has ``metrics: null`` and an ``error`` string, and
is excluded from every metric and counted.

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

from .errors import BuildInputError

KIND = "localize"
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
_FIELDS: dict[str, tuple[type, ...]] = {
    "key": (str,), "instance_id": (str,), "repo": (str,), "base_commit": (str,), "method": (str,),
    "method_params": (dict,), "budget": (int,), "error": (str, type(None)), "metrics": (dict, type(None)),
}
_SHAPE = "expected a localization record (see experiments.localize.run_localize)"


def _type_name(types: tuple[type, ...]) -> str:
    return " or ".join("null" if t is type(None) else t.__name__ for t in types)


def _check_metric(name: str, value: Any, where: str) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise BuildInputError(f"{where}: field 'metrics.{name}': expected a number in [0, 1] or null, got {value!r}")


def check_row(row: dict, where: str) -> None:
    """Refuse a localization row that is not shaped like the runner's, naming file, line and field."""
    for name, types in _FIELDS.items():
        if name not in row:
            raise BuildInputError(f"{where}: field '{name}' is missing; {_SHAPE}")
        value = row[name]
        if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
            raise BuildInputError(f"{where}: field '{name}': expected {_type_name(types)}, got {value!r}")
    if not isinstance(row.get("task_set", ""), str) or row.get("task_set") == "":
        raise BuildInputError(f"{where}: field 'task_set': expected a non-empty string (the tasks config name) "
                              f"or no field, got {row['task_set']!r}")
    if row["error"] is not None:
        if not row["error"].strip():
            raise BuildInputError(f"{where}: field 'error': an empty message; expected null (scored) or the error")
        if row["metrics"] is not None:
            raise BuildInputError(f"{where}: field 'metrics': expected null in a row with an error "
                                  f"({row['error']!r}), got a metrics dict")
        return
    if row["metrics"] is None:
        raise BuildInputError(f"{where}: field 'metrics' is null but 'error' is null too; a scored row has "
                              "metrics, a failed one an error")
    for name in (*RANKING_METRICS, *BUDGET_METRICS):
        if name not in row["metrics"]:
            raise BuildInputError(f"{where}: field 'metrics.{name}' is missing; {_SHAPE}")
    for name, value in row["metrics"].items():
        _check_metric(name, value, where)


def convert(row: dict, run: str) -> dict:
    """The columns the paper keeps of one checked row (``params`` is replaced by a label in ``load``)."""
    metrics = row["metrics"] or {}
    # as floats, so that 1 and 1.0 compare equal in the ranking check
    ranking = {k: None if v is None else float(v) for k, v in metrics.items() if not k.startswith(BUDGET_PREFIX)}
    return {"run": run, "key": row["key"], "instance_id": row["instance_id"], "method": row["method"],
            "params": json.dumps(row["method_params"], sort_keys=True), "budget": row["budget"],
            "error": row["error"], **{name: metrics.get(name) for name in (*RANKING_METRICS, *BUDGET_METRICS)},
            "ranking": json.dumps(ranking, sort_keys=True) if row["error"] is None else None,
            "task_set": row.get("task_set", DEFAULT_TASK_SET)}


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
