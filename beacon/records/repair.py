"""Repair rows: the outcome enum and ``RepairOutcome``, one scored attempt (repair and control runs).

What each outcome means is told in :mod:`beacon.repair.attempt`; outcomes are
never collapsed into a pass. A row of a task that could not be prepared (or
is invalid) has no context, prompt or test fields; a row written before
schema 2 has no ``checks``, before schema 3 no ``structured_output``. Such
fields are absent (``ABSENT``), never null, so a row keeps its bytes.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from .fields import ABSENT, NULL, RecordError, Row, may, need


class Outcome(str, Enum):
    """The outcome of a scored attempt; the values are the strings rows hold, in table order."""

    PASS = "pass"
    ABSTAIN = "abstain"
    NO_PATCH = "no_patch"
    INVALID_PATCH = "invalid_patch"
    UNAUTHORIZED_PATH = "unauthorized_path"
    SYNTAX_ERROR = "syntax_error"
    SUSPICIOUS_EDIT = "suspicious_edit"
    TAMPERED = "tampered"
    TIMEOUT = "timeout"
    TEST_FAIL = "test_fail"
    HARNESS_ERROR = "harness_error"

    def __str__(self) -> str:  # f-strings and joins show the row's string
        return self.value


# The one list of outcome strings (tables, figures and checks follow its order).
OUTCOMES: tuple[str, ...] = tuple(o.value for o in Outcome)


@dataclass(kw_only=True)
class RepairOutcome(Row):
    """One repair attempt (``beacon.repair.attempt.run_attempt``), keyed by the job (``AttemptSpec.key``)."""

    SHAPE = "a repair record (see beacon.records.RepairOutcome)"

    key: str = need(str)
    task_id: str = need(str)
    task_sha256: str = may(str)
    repo: str = may(str)
    commit: str = may(str)
    bug_location: str = may(str)
    mutation_type: str = may(str)
    method: str = need(str)
    method_params: dict[str, Any] = need(dict)
    budget: int = need(int)
    query_type: str = need(str)
    query_oracle: bool = may(bool)
    query_fallback: bool = may(bool)  # dev_report asked for, none in the task: the exact report was used
    edit_format: str = need(str)
    provider: str = need(str)
    control: bool = need(bool)  # oracle provider, target_file method or a query revealing the line
    context_tokens: int = may(int)
    context_renderer: str = may(str)
    context_snippets: list[str] = may(list)
    context_notes: list[str] = may(list)
    covers_bug_line: bool | None = may(bool, NULL)  # null: no context was built
    ranking_top: list[str] = may(list)
    prompt_version: str = may(str)
    prompt_template_sha256: str = may(str)
    prompt_sha256: str = may(str)
    prompt_tokens: int | None = may(int, NULL)
    prompt: str = may(str)
    structured_output: dict[str, Any] = may(dict)  # since schema 3
    dry_run: bool = need(bool)
    task_valid: bool = may(bool)
    task_invalid_reason: str | None = may(str, NULL)
    baseline: dict[str, Any] | None = may(dict, NULL)
    mutant: dict[str, Any] | None = may(dict, NULL)
    sandboxed: bool | None = may(bool, NULL)
    model: str | None = may(str, NULL)
    response: dict[str, Any] | None = may(dict, NULL)
    repair: dict[str, Any] | None = may(dict, NULL)
    outcome: Outcome | None = need(Outcome, NULL)  # null: a dry run or an invalid task (not scored)
    outcome_detail: str | None = may(str, NULL)
    tests: dict[str, Any] | None = may(dict, NULL)
    checks: dict[str, Any] | None = may(dict, NULL)  # since schema 2

    def check(self, where: str) -> None:
        if self.dry_run and self.outcome is not None:
            raise RecordError(f"{where}: field 'outcome': expected null in a dry-run row, got {self.outcome.value!r}")

    @property
    def prepared(self) -> bool:
        """Whether the task was prepared (the row has context and prompt fields)."""
        return self.prompt is not ABSENT
