"""One scored repair attempt: retrieve -> prompt -> model -> edit -> policy -> tests -> outcome.

Outcomes (never collapsed into a pass): ``pass``, ``abstain``, ``no_patch``,
``invalid_patch``, ``unauthorized_path``, ``syntax_error``,
``suspicious_edit`` (the static screen found a construct the edit introduced,
:mod:`beacon.repair.screen`), ``tampered`` (the run's canary tests contradict
its report, :mod:`beacon.repair.canary`), ``timeout``, ``test_fail``,
``harness_error``. A ``pass`` comes only from :func:`verify_run` on a fresh
JUnit report whose canaries behaved. ``row.checks`` holds each layer's
evidence (screen, canaries, integrity, sandbox) so a reader can see why a
pass is a pass. ``row.structured_output`` says whether the answer was
constrained by the edit format's JSON schema (:mod:`beacon.repair.structured`)
or why not; the answer is parsed equally strictly either way. A dry run
assembles context and prompt without calling a model or executing code; its
scores are null.

The returned row is deterministic for identical inputs: no timestamps, no
absolute paths (durations are returned separately, for ``timings.jsonl``).

An attempt has two stages: :func:`stage_attempt` (retrieval, prompt, the
model's answer, parsing, policy, screen) and :meth:`StagedAttempt.finish`
(the sandboxed test run and its verdict). The first runs in the job's own
thread, in order, so model calls and their recordings keep the grid's order;
the second touches only the attempt's own folders, so a job may run several
at once (``score_workers``; :func:`beacon.repair.job.run_repair_job`).
:func:`run_attempt` runs both.
"""
from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass
from functools import partial
from typing import Callable, Union

from ..providers.base import Provider, ProviderError
from ..records import Outcome, RepairOutcome
from ..repo.git import GitError
from ..retrieval import assemble_context
from ..retrieval.recipes import method_params
from ..data.queries import build_query
from ..tokens import count_tokens
from .edited_lines import lines_changed
from .edits import Abstain, apply_edit, check_python_syntax, parse_edit
from .errors import EditApplyError, EditParseError, EditSyntaxError
from .policy import PolicyViolation, check_edit
from .process import remove_tree
from .prepare import PreparedTask, RunSettings
from .prompt import FORMAT_RENDERER, build_prompt
from .pytest_runner import PytestRun, TamperedCheckoutError, plain_evidence, run_pytest, verify_run
from .screen import screen_edit
from .structured import decide
from .task_policy import edit_policy, extended_header_problem


_EDIT_MARKERS = ("```", "{", "@@", "--- ", "+++ ")


@dataclass(frozen=True)
class AttemptSpec:
    method: str
    budget: int
    query_type: str
    edit_format: str
    provider: str
    method_params: tuple[tuple[str, object], ...] = ()
    max_tokens: int = 512
    # provider.structured_output (auto | off) and the provider class's capability
    # ("json_schema", or None when it cannot constrain decoding).
    structured_output: str = "off"
    provider_structured: str | None = None
    stop: tuple[str, ...] = ()  # stop strings sent with the call (none: the provider's default)
    temperature: float = 0.0
    seed: int | None = 0

    def key(self, task_id: str) -> str:
        params = ",".join(f"{k}={v}" for k, v in self.method_params)
        return f"{task_id}|{self.method}({params})|{self.budget}|{self.query_type}|{self.edit_format}|{self.provider}"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


DETAIL_CAP = 2000  # characters of outcome_detail kept in a row


def _bounded(detail: str | None) -> str | None:
    """``outcome_detail`` cut to ``DETAIL_CAP`` characters: its test ids and messages come from the run's report,
    which the code under test can make huge (red-team round 6: a 4.2 MB row from forged testcase names)."""
    if detail is None or len(detail) <= DETAIL_CAP:
        return detail
    return detail[:DETAIL_CAP] + f" … ({len(detail) - DETAIL_CAP} more characters)"


def _storable(value):
    """A string a row can hold: a lone surrogate (a server's JSON may deliver one as an escape; no UTF-8 holds it,
    so the row could not be written and the job would stop: red-team round 28) kept as its ``\\udXXX`` escape.
    Anything else as it is."""
    if not isinstance(value, str):
        return value
    return value.encode("utf-8", "backslashreplace").decode("utf-8")


def _clean(message: str, prepared: PreparedTask) -> str:
    """Error text without the run's temporary paths or object addresses (records must be reproducible: pytest's
    failure text shows ``<function double at 0x7f…>``, another address in every run; the session 51 review)."""
    return _ADDRESS.sub(" at 0x?", message.replace(str(prepared.work), "<work>"))


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]{4,16}\b")  # (CPython's default repr: ``<… object at 0x…>``)


# What the first stage decides: an outcome with its detail, or the test stage still to run.
_Decided = Union[tuple[Outcome, Union[str, None]], Callable[[], tuple[Outcome, Union[str, None]]]]


@dataclass
class StagedAttempt:
    """An attempt whose answer has been judged up to the test run. ``finish`` runs what is left (nothing, or the
    sandboxed tests) and returns (row, timings); it touches only the attempt's own checkout and report folders."""
    row: RepairOutcome
    timings: dict
    prepared: PreparedTask
    tests: Callable[[], tuple[Outcome, str | None]] | None = None

    def finish(self) -> tuple[RepairOutcome, dict]:
        if self.tests is not None:
            _settle(self.row, self.prepared, self.tests)
            self.tests = None
        return self.row, self.timings


def run_attempt(prepared: PreparedTask, spec: AttemptSpec, provider_for: Callable[[PreparedTask, AttemptSpec], Provider],
                settings: RunSettings, *, dry_run: bool, slot: str) -> tuple[dict, dict]:
    """Score one attempt; returns (row, timings), the row keyed as the job records it (``spec.key``)."""
    return stage_attempt(prepared, spec, provider_for, settings, dry_run=dry_run, slot=slot).finish()


def stage_attempt(prepared: PreparedTask, spec: AttemptSpec,
                  provider_for: Callable[[PreparedTask, AttemptSpec], Provider], settings: RunSettings, *,
                  dry_run: bool, slot: str) -> StagedAttempt:
    """Retrieve, prompt, ask the model and judge its answer up to the test run (see the module docstring)."""
    task = prepared.task
    timings: dict[str, float] = {}
    clock = time.perf_counter()
    query = build_query(task, spec.query_type)
    params = method_params(spec.method, dict(spec.method_params))  # the recipe, as every runner
    if spec.method == "target_file":
        params.setdefault("target", task.bug_location)
    renderer = FORMAT_RENDERER.get(spec.edit_format)
    if renderer is not None:  # the edit format's renderer over the recipe's
        params["renderer"] = renderer
    result = assemble_context(prepared.graph, query.text, spec.method, budget=spec.budget, inputs=prepared.inputs,
                              **params)
    context = result.context
    structured = decide(spec.structured_output, spec.provider_structured, spec.edit_format)
    prompt = build_prompt(query.text, context.render(), spec.edit_format, structured=structured)
    timings["retrieve_s"] = time.perf_counter() - clock
    covers = any(s.path == task.path and s.start_line <= task.line <= s.end_line for s in context.snippets)
    row = RepairOutcome(
        key=spec.key(task.task_id), task_id=task.task_id, task_sha256=_sha(repr(sorted(task.to_json().items()))),
        repo=task.repo, commit=task.commit, bug_location=task.bug_location,
        mutation_type=task.mutation_type, method=spec.method, method_params=dict(spec.method_params),
        budget=spec.budget, query_type=spec.query_type, query_oracle=query.oracle,
        query_fallback=query.fallback, edit_format=spec.edit_format, provider=spec.provider,
        control=spec.method == "target_file" or query.oracle or spec.provider == "oracle",
        context_tokens=context.total_tokens, context_renderer=context.renderer,
        context_snippets=context.symbol_ids, context_notes=list(context.notes),
        covers_bug_line=covers, ranking_top=[i for i, _ in result.ranking[:20]],
        prompt_version=prompt.version, prompt_template_sha256=prompt.template_sha256,
        prompt_sha256=prompt.sha256, prompt_tokens=count_tokens(prompt.text), prompt=prompt.text,
        structured_output=structured.record(),
        dry_run=dry_run, task_valid=prepared.valid, task_invalid_reason=prepared.invalid_reason,
        baseline=prepared.baseline, mutant=prepared.mutant, sandboxed=prepared.sandboxed,
        model=None, response=None, repair=None, outcome=None, outcome_detail=None, tests=None, checks=None,
    )
    if not dry_run and not settings.allow_local_execution:
        raise PermissionError("scoring executes repository code: set allow_local_execution=true (or use dry_run)")
    staged = StagedAttempt(row, timings, prepared)
    if dry_run or not prepared.valid:
        return staged
    decided = _settle(row, prepared, lambda: _score(prepared, spec, provider_for, settings, prompt, row, timings,
                                                    slot))
    if callable(decided):
        staged.tests = decided
    return staged


def _settle(row: RepairOutcome, prepared: PreparedTask, stage: Callable[[], _Decided]) -> _Decided:
    """Run ``stage``; an outcome it decides goes into the row (its detail bounded), a test stage is returned as is.
    An ``OSError``, ``ValueError`` or ``RuntimeError`` is the harness failing, not the model: ``harness_error``."""
    try:
        decided = stage()
        if callable(decided):
            return decided
        row.outcome, row.outcome_detail = decided
        row.outcome_detail = _bounded(row.outcome_detail)
    except (OSError, ValueError, RuntimeError) as exc:
        row.outcome, row.outcome_detail = Outcome.HARNESS_ERROR, _clean(f"{type(exc).__name__}: {exc}", prepared)
    return row.outcome, row.outcome_detail


def _score(prepared, spec, provider_for, settings, prompt, row: RepairOutcome, timings, slot) -> _Decided:
    """The answer's judgement up to the test run: an outcome, or the test stage (a function) when the edit is to be
    run."""
    task = prepared.task
    provider = provider_for(prepared, spec)
    # Only keywords that are set: a provider that cannot constrain output need not accept them.
    extra = {k: v for k, v in (("response_schema", prompt.response_schema), ("stop", list(spec.stop))) if v}
    clock = time.perf_counter()
    try:
        completion = provider.complete(prompt.text, max_tokens=spec.max_tokens, temperature=spec.temperature,
                                       seed=spec.seed, **extra)
    except ProviderError as exc:
        timed_out = "timed out" in str(exc).lower() or "timeout" in str(exc).lower()
        return (Outcome.TIMEOUT if timed_out else Outcome.HARNESS_ERROR), _clean(f"provider: {exc}", prepared)
    finally:
        timings["model_s"] = time.perf_counter() - clock
    row.model = _storable(completion.model)
    row.response = {
        "text": _storable(completion.text), "sha256": completion.response_sha256,
        "request_sha256": completion.request_sha256, "stop_reason": _storable(completion.stop_reason),
        "input_tokens": completion.input_tokens, "output_tokens": completion.output_tokens,
        "usable": completion.usable, "unusable_reason": _storable(completion.unusable_reason),
        "model_digest": _storable(completion.model_digest),
    }
    if not completion.usable:
        why = row.response["unusable_reason"] or row.response["stop_reason"]
        return Outcome.INVALID_PATCH, f"unusable completion: {why}"
    if isinstance(completion.text, str) and row.response["text"] != completion.text:
        return Outcome.INVALID_PATCH, "the completion is not valid text: it holds a lone surrogate (kept escaped)"
    try:
        edit = parse_edit(completion.text, spec.edit_format)
    except EditParseError as exc:
        has_edit = any(m in completion.text for m in _EDIT_MARKERS)
        return (Outcome.INVALID_PATCH if has_edit else Outcome.NO_PATCH), str(exc)
    if isinstance(edit, Abstain):
        return Outcome.ABSTAIN, edit.reason or None
    if spec.edit_format == "diff":
        problem = extended_header_problem(completion.text)
        if problem:
            return Outcome.UNAUTHORIZED_PATH, problem
    current = {task.path: prepared.mutated_text}
    try:
        check_edit(edit, edit_policy(task), current, protected=prepared.protected)
    except PolicyViolation as exc:
        return Outcome.UNAUTHORIZED_PATH, str(exc)
    try:
        new_files = apply_edit(edit, current, spans=list(record_spans(prepared, row)))
    except EditApplyError as exc:
        return Outcome.INVALID_PATCH, str(exc)
    try:
        check_python_syntax(new_files)
    except EditSyntaxError as exc:
        return Outcome.SYNTAX_ERROR, str(exc)
    row.repair = {path: {"sha256": _sha(text), "diff_lines_changed": lines_changed(prepared.mutated_text, text)}
                        for path, text in sorted(new_files.items())}
    screen = screen_edit(current, new_files, task.screen_allow, reference={task.path: _pristine(prepared)},
                         read=lambda path: _read_at_commit(prepared, path))
    checks = row.checks = {"screen": screen.evidence(), "canaries": {"ran": False}, "integrity": {"ran": False},
                                 "sandbox": {"ran": False}, "limits": {"ran": False}, "addopts": {"ran": False},
                                 "oracle": {"ran": False}, "plain": {"ran": False}}
    if screen.suspicious:
        return Outcome.SUSPICIOUS_EDIT, "; ".join(f.describe() for f in screen.findings[:5])
    return partial(_run_tests, prepared, settings, row, timings, slot, new_files[task.path])


def _run_tests(prepared: PreparedTask, settings: RunSettings, row: RepairOutcome, timings: dict, slot: str,
               text: str) -> tuple[Outcome, str | None]:
    """The edited file in a fresh snapshot of the task, its tests run and verified (the attempt's second stage)."""
    task = prepared.task
    checks = row.checks
    checkout = prepared.fresh_mutant(f"attempt-{slot}")
    try:
        (checkout / task.path).write_text(text, encoding="utf-8")
        clock = time.perf_counter()
        try:
            run = run_pytest(checkout, task.tests.selection, protected=prepared.protected,
                             flags=task.tests.flags or ("-q",), timeout=settings.timeout_s,
                             sandbox=settings.sandbox, network=settings.network, limits=settings.limits,
                             report_dir=prepared.work / "reports" / f"attempt-{slot}", sources=(task.path,),
                             before={task.path: (prepared.mutated_text, _pristine(prepared))},
                             pristine={task.path: _pristine(prepared)}, oracle=True,
                             project_addopts=settings.project_addopts)
        except TamperedCheckoutError as exc:
            checks["integrity"] = {"ran": True, "before_run": _clean(str(exc), prepared)}
            return Outcome.UNAUTHORIZED_PATH, _clean(str(exc), prepared)
        timings["tests_s"] = time.perf_counter() - clock
        if run.oracle_calls:
            timings["oracle_calls_s"] = run.oracle_calls["seconds"]  # a measurement: not in the row
        if run.plain is not None:
            timings["plain_s"] = run.plain.duration  # (inside tests_s: the plain run is part of run_pytest)
    finally:
        remove_tree(checkout)
    verdict = verify_run(run, prepared.original_ids)
    row.tests = {"outcomes": dict(sorted(run.report.outcome_counts().items())) if run.report else {},
                       "exit_code": run.exit_code, "timed_out": run.timed_out, "sandboxed": run.sandboxed}
    checks.update(_run_evidence(run, len(prepared.protected), prepared.original_ids))
    if verdict.tampered:
        return Outcome.TAMPERED, _clean("; ".join(verdict.reasons[:5]), prepared)
    if run.timed_out or (run.plain is not None and run.plain.timed_out):
        return Outcome.TIMEOUT, f"tests timed out after {settings.timeout_s:g} s" + (
            "" if run.timed_out else " (the plain run: the tests again with no pristine code in the process)")
    if verdict.passed:
        return Outcome.PASS, None
    return Outcome.TEST_FAIL, _clean("; ".join(verdict.reasons[:5]), prepared)


def _run_evidence(run: PytestRun, protected: int, expected_ids) -> dict:
    """What the canary, integrity, sandbox and resource-limit layers saw (no paths that vary between identical runs).

    ``sandbox.observed`` is what a probe sandbox with the run's settings saw from inside (uid, loopback only, no
    ``/proc``, a read-only checkout, the ``/tmp`` size), not what the settings asked for."""
    return {
        "canaries": run.canaries.evidence(),
        "integrity": {"ran": True, "protected_files": protected, "violations": list(run.integrity_violations)},
        "sandbox": {"ran": run.sandboxed, "uid": run.observed["uid"] if run.observed else None,
                    "network_isolated": run.network_isolated,
                    "note": run.sandbox_note, "mounts": list(run.mounts), "observed": run.observed},
        "limits": {"ran": True, **run.limits},
        "addopts": {"ran": True, **run.addopts},  # the checkout's addopts: what was kept and dropped, and why
        # calls of changed code the task's pristine code re-made (checked) and could not (canary_plugin._Shadow)
        "oracle": {"ran": bool(run.oracle_calls),
                   **{k: v for k, v in run.oracle_calls.items() if k not in ("seconds", "work")}},
        # the calls the tests made, made again outside the run (beacon.repair.replay); where the sandbox put the
        # checkout and what it hid are machine facts (checks.sandbox says whether there was one), not in the row
        "replay": {"ran": False, **{k: v for k, v in run.replay.items()
                                    if k not in ("sandboxed", "mounted_at", "hidden", "seconds")}},
        # the tests again with no pristine call in the process, after a run whose tests all passed (_plain_run)
        "plain": plain_evidence(run, expected_ids),
    }


def _read_at_commit(prepared: PreparedTask, path: str) -> str | None:
    """A checkout-relative file's text at the task's commit, or None (the screen judges a new project import by it)."""
    try:
        return prepared.source.read_file(prepared.task.commit, path).decode("utf-8")
    except (GitError, UnicodeDecodeError):  # no such file, or not text: the import is not let through
        return None


def _pristine(prepared: PreparedTask) -> str:
    """The declared file before the task's mutation (the screen's reference: restoring a line is no finding)."""
    task = prepared.task
    lines = prepared.mutated_text.split("\n")
    i = task.line - 1
    if 0 <= i < len(lines) and lines[i].removesuffix("\r") == task.mutated_line:
        lines[i] = task.original_line + ("\r" if lines[i].endswith("\r") else "")
    return "\n".join(lines)


def record_spans(prepared: PreparedTask, row: RepairOutcome):
    """The spans the model was shown (for line-span edits), from the context's snippet ids."""
    graph = prepared.graph
    for symbol_id in row.context_snippets:
        sym = graph.symbol(symbol_id)
        yield _Span(sym.path, sym.start_line, sym.end_line, graph.files[sym.path].text_sha256)


@dataclass(frozen=True)
class _Span:
    path: str
    start_line: int
    end_line: int
    file_sha256: str


