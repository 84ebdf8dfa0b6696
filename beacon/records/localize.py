"""Localization rows (``kind == "localize"``): a retrieval method on an instance, or an agent's trajectory.

``LocalizationRecord``: one method, instance and budget
(``experiments.localize``; the scored body comes from
``beacon.localize.evaluate.evaluate``). ``TrajectoryRecord``: one agent
trajectory under one metric profile (``experiments.trajectories``; the body
from ``beacon.localize.agent_scoring.score_trajectory``). A scored row has
``error: null`` and a ``metrics`` dict; a failed one has ``metrics: null`` and
the error, and lacks the scored fields. ``task_set`` is absent from rows
written before the runner recorded it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .fields import ABSENT, NULL, RecordError, Row, may, need

KIND = "localize"


@dataclass(kw_only=True)
class _Located(Row):
    """The fields both localization row types share, and the rule between ``error`` and ``metrics``."""

    key: str = need(str)
    kind: str = need(str)
    instance_id: str = need(str)
    repo: str = need(str)
    base_commit: str = need(str)
    method: str = need(str)
    method_params: dict[str, Any] = need(dict)
    budget: int = need(int)
    task_set: str = may(str)  # the tasks config name, with /<split> for mined tasks

    def check(self, where: str) -> None:
        if self.kind != KIND:
            raise RecordError(f"{where}: field 'kind': expected {KIND!r}, got {self.kind!r}")
        if self.task_set is not ABSENT and not self.task_set:
            raise RecordError(f"{where}: field 'task_set': expected a non-empty string (the tasks config name) "
                              f"or no field, got {self.task_set!r}")
        error, metrics = getattr(self, "error"), getattr(self, "metrics")
        if error is not None:
            if not error.strip():
                raise RecordError(f"{where}: field 'error': an empty message; expected null (scored) or the error")
            if metrics is not None:
                raise RecordError(f"{where}: field 'metrics': expected null in a row with an error ({error!r}), "
                                  "got a metrics dict")
        elif metrics is None:
            raise RecordError(f"{where}: field 'metrics' is null but 'error' is null too; a scored row has "
                              "metrics, a failed one an error")


@dataclass(kw_only=True)
class LocalizationRecord(_Located):
    """One retrieval method on one instance at one budget."""

    SHAPE = "a localization record (see beacon.records.LocalizationRecord)"

    query_sha256: str = may(str)
    gold: dict[str, list] = may(dict)  # files, added_files, units, functions, modules
    ranked: dict[str, list] = may(dict)  # symbols, files, modules, functions (first RANKING_KEEP)
    context_tokens: int = may(int)
    context_snippets: list[list] = may(list)  # [symbol_id, path, start_line, end_line]
    metrics: dict[str, float | None] | None = need(dict, NULL)
    error: str | None = need(str, NULL)


@dataclass(kw_only=True)
class TrajectoryRecord(_Located):
    """One agent trajectory under one metric profile (``method`` is ``<agent>/<profile>``, ``budget`` 0)."""

    SHAPE = "a trajectory record (see beacon.records.TrajectoryRecord)"

    trajectory: dict[str, str] = need(dict)  # file (relative to the trajectories folder) and sha256
    metric_profile: str = need(str)
    steps: int | None = may(int, NULL)
    ranked: dict[str, list] = may(dict)
    contextbench: dict[str, Any] = may(dict)  # the reference's own per-instance result (contextbench profile)
    editloc_error: str | None = may(str, NULL)
    metrics: dict[str, float | None] | None = need(dict, NULL)
    error: str | None = need(str, NULL)
