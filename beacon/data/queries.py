"""Query builders: what the retrieval method and the model are told about the bug.

* ``exact`` reveals the original line: an ORACLE control, labelled so;
* ``vague`` names the target file but not the line or the repair;
* ``dev_report`` is the task's developer-style report; a task without one
  falls back to revealing the line, and the query says so
  (``fallback=True``), so reports can exclude or separate those rows.
"""
from __future__ import annotations

from dataclasses import dataclass

from .manifest import Task

QUERY_TYPES = ("exact", "vague", "dev_report")


@dataclass(frozen=True)
class Query:
    type: str
    text: str
    oracle: bool  # reveals the answer: a harness control, not a retrieval result
    fallback: bool = False  # dev_report asked for, none in the task


def _exact(task: Task) -> str:
    return (f"Tests fail. In {task.path}, line {task.line} currently reads "
            f"`{task.mutated_line.strip()}` but it should read `{task.original_line.strip()}`.")


def build_query(task: Task, query_type: str) -> Query:
    if query_type == "exact":
        return Query("exact", _exact(task), oracle=True)
    if query_type == "vague":
        return Query("vague", f"Some tests fail after a recent change to {task.path}. "
                              "Find the bug and fix it.", oracle=False)
    if query_type == "dev_report":
        if task.dev_report:
            return Query("dev_report", task.dev_report, oracle=False)
        return Query("dev_report", _exact(task), oracle=True, fallback=True)
    raise ValueError(f"unknown query type {query_type!r}; known: {', '.join(QUERY_TYPES)}")
