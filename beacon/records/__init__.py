"""The rows runners write to ``records.jsonl`` and ``paper/`` reads, as types: one module, below every pipeline.

- ``RepairOutcome``: one repair attempt (repair and control runs), with the
  ``Outcome`` enum and its strings ``OUTCOMES``.
- ``LocalizationRecord``: one retrieval method on one localization instance
  at one budget; ``TrajectoryRecord``: one agent trajectory under one metric
  profile. Both have ``kind == "localize"``; a repair row has no ``kind``.

Runners build these types and append ``row.to_json()``; readers call
:func:`row_from_json` (or :func:`read_rows`), which validates every field and
names the file, line and field of what is wrong. ``RunWriter`` writes
canonical JSON (sorted keys), so rows are byte-identical to the dict literals
they replace. ``RECORD_SCHEMA`` is recorded in each repair run's run.json.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator, Union

from .fields import ABSENT, RecordError, Row
from .localize import KIND, LocalizationRecord, TrajectoryRecord
from .repair import OUTCOMES, Outcome, RepairOutcome

# Version of the repair row layout. 1: the original rows. 2: adds the outcomes suspicious_edit and
# tampered and the per-row ``checks`` evidence (screen, canaries, integrity, sandbox). 3: adds
# ``structured_output`` (whether and how the model's output was constrained). Readers accept all three:
# a field added later is absent (``ABSENT``) from the older rows. 4: adds ``checks.limits`` (the run's resource
# limits, what enforced them, which were reached) and ``checks.sandbox.observed`` (what a probe sandbox saw).
# 5: adds ``checks.addopts`` (the checkout's configured addopts: which were passed on to pytest, which dropped, why).
# 6: adds ``checks.oracle`` (calls of changed code that the task's pristine code re-made, and those it could not).
# 7: adds ``checks.replay`` (the tests' calls into the declared files made again outside the run, beacon.repair.replay).
# 8: adds ``checks.plain`` (the tests run again with no pristine call in the process, after a run that passed).
RECORD_SCHEMA = 8

AnyRow = Union[RepairOutcome, LocalizationRecord, TrajectoryRecord]

__all__ = ["ABSENT", "KIND", "OUTCOMES", "RECORD_SCHEMA", "AnyRow", "LocalizationRecord", "Outcome", "RecordError",
           "RepairOutcome", "Row", "TrajectoryRecord", "read_rows", "row_from_json"]


def row_from_json(data: dict, where: str = "<row>") -> AnyRow:
    """The typed row of one JSON object: no ``kind`` is a repair row, ``localize`` a localization or trajectory row."""
    if not isinstance(data, dict):
        raise RecordError(f"{where}: expected a JSON object, got {type(data).__name__}")
    if "kind" not in data:
        return RepairOutcome.from_json(data, where)
    if data["kind"] != KIND:
        raise RecordError(f"{where}: field 'kind': expected {KIND!r} or no kind (a repair row), got {data['kind']!r}")
    if "trajectory" in data:
        return TrajectoryRecord.from_json(data, where)
    return LocalizationRecord.from_json(data, where)


def read_rows(path: Path | str) -> Iterator[AnyRow]:
    """The typed rows of a ``records.jsonl``, validated (a torn last line is no row; see ``iter_records``)."""
    from ..artifacts.records import iter_records  # artifacts reads lines; records gives them types

    for lineno, data in enumerate(iter_records(path), start=1):
        yield row_from_json(data, f"{path}:{lineno}")
