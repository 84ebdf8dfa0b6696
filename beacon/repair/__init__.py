"""Repair harness: edit formats, editable-path policy, sandboxed pytest, JUnit verification.

The trust core. A model's answer is parsed into an edit (:mod:`.edits`),
checked against the editable-path policy (:mod:`.policy`), applied in memory
and compiled, written to a fresh checkout, and the task's tests are run by
:func:`run_pytest`; only :func:`verify_run` (the JUnit report checked against
the expected node ids, plus a clean run) can declare a pass.
"""
from .controls import protected_changes, snapshot_protected
from .edits import (
    FORMATS, Abstain, DiffEdit, Edit, ExactEdit, LineSpanEdit, RenderedSpan, apply_edit,
    check_python_syntax, check_syntax, parse_edit, touched_paths,
)
from .errors import EditApplyError, EditError, EditParseError, EditSyntaxError
from .junit import JUnitError, JUnitReport, TestCase, Verdict, junit_key, load_junit, parse_junit, verify_all_passed
from .policy import EditPolicy, PolicyViolation, check_edit
from .pytest_runner import PytestRun, TamperedCheckoutError, run_pytest, verify_run
from .sandbox import SandboxUnavailableError, find_bwrap

__all__ = [
    "FORMATS", "Abstain", "DiffEdit", "Edit", "EditApplyError", "EditError", "EditParseError", "EditPolicy",
    "EditSyntaxError", "ExactEdit", "JUnitError", "JUnitReport", "LineSpanEdit", "PolicyViolation",
    "PytestRun", "RenderedSpan", "SandboxUnavailableError", "TamperedCheckoutError", "TestCase", "Verdict",
    "apply_edit", "check_edit", "check_python_syntax", "check_syntax", "find_bwrap", "junit_key",
    "load_junit", "parse_edit", "parse_junit", "protected_changes", "run_pytest", "snapshot_protected",
    "touched_paths", "verify_all_passed", "verify_run",
]
