"""Runs *inside* the test process: starts pytest with two canary tests the code under test cannot predict.

This file is copied next to the run (outside the checkout) and imported by a
two-line bootstrap given to ``python -c`` (see
:func:`beacon.repair.canary.bootstrap_code`); it imports nothing from Beacon.

1. :func:`main` reads the run's secret from an inherited pipe (its number is
   the bootstrap's first argument), closes the pipe and only then starts
   pytest. The secret never appears on the command line, in the environment
   or in a file, and it is gone from every file descriptor before collection
   imports any project code. A re-executed process (``os.execv`` with the same
   arguments) finds the pipe closed and exits without running pytest.
2. :class:`CanaryPlugin` is handed to ``pytest.main(plugins=…)``. After the
   project's tests are collected (so after project code has been imported and
   had every chance to patch pytest), it writes a test module under a fresh
   temporary folder, named to match the project's ``python_files`` so pytest's
   assertion rewriting treats it like any test module, imports it through
   pytest's own ``Module`` collector, deletes the file, and inserts two
   ordinary ``Function`` items, each under a random one of the project's own
   test modules (same conftest hooks, same node-id prefix), at random positions: ``must_pass`` asserts
   ``N == N``; ``must_fail`` asserts ``A == B`` (A ≠ B), whose rewritten
   failure message names both numbers. Patched ``runtest``, forced report
   outcomes, disabled rewriting, deselection, a re-exec with a forcing plugin
   and a hand-written report all break at least one of: must_fail failed with
   ``A == B`` in its message, must_pass passed, both present exactly once.
3. Because the must_fail canary always fails, pytest would exit 1 on an honest
   run; when it and nothing else failed, the exit status is set back to 0 so
   exit codes keep pytest's meaning for the project's own tests.

The verdict is never taken here: the harness reads the JUnit report from its
own pipe and checks the canaries with the secret it kept
(:func:`beacon.repair.canary.check_canaries`).
"""
from __future__ import annotations

import fnmatch
import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

_MODULE_TEMPLATE = '''"""Beacon canary tests (added by the harness, not part of the project)."""


def {must_pass}():
    value = {left}
    assert value == {left}


def {must_fail}():
    left = {left}
    assert left == {right}
'''


# A module-wide `pytestmark` with these would change a canary's expected outcome (skip, xfail) or its
# signature (parametrize): such modules are not used as a canary's parent.
_MODULE_MARKS_TO_AVOID = frozenset({"skip", "skipif", "xfail", "parametrize"})


def _module_file_name(patterns: list[str], token: str) -> str:
    """A file name that the project's ``python_files`` patterns select (so it is assertion-rewritten)."""
    for pattern in patterns:
        if "/" in pattern or "[" in pattern:
            continue
        name = pattern.replace("*", token, 1).replace("*", "").replace("?", "x")
        if name.endswith(".py") and fnmatch.fnmatch(name, pattern):
            return name
    return f"test_{token}.py"


class CanaryPlugin:
    """Adds the two canary items after collection and keeps exit codes meaningful."""

    def __init__(self, secret: dict):
        self._secret = secret
        self._failed_elsewhere = False
        self._canary_ids: set[str] = set()

    @pytest.hookimpl(trylast=True)  # after any project hook that reorders or deselects
    def pytest_collection_modifyitems(self, session, config, items):
        s = self._secret
        rng = random.SystemRandom()
        folder = tempfile.mkdtemp(prefix="c")
        try:
            path = Path(folder) / _module_file_name(list(config.getini("python_files")), s["token"])
            path.write_text(_MODULE_TEMPLATE.format(**s), encoding="utf-8")
            own = pytest.Module.from_parent(session, path=path)
            functions = [getattr(own.obj, name) for name in (s["must_pass"], s["must_fail"])]
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        # Each canary joins a random one of the project's own test modules, so it sits where the
        # project's tests sit: the same conftest hooks and node-id prefix apply to it.
        modules = [m for m in (item.getparent(pytest.Module) for item in items)
                   if m is not None and not any(mark.name in _MODULE_MARKS_TO_AVOID for mark in m.iter_markers())]
        modules = modules or [own]
        for function in functions:
            item = pytest.Function.from_parent(rng.choice(modules), name=function.__name__, callobj=function)
            items.insert(rng.randint(0, len(items)), item)
            self._canary_ids.add(item.nodeid)

    def pytest_runtest_logreport(self, report):
        if report.failed and report.nodeid not in self._canary_ids:
            self._failed_elsewhere = True

    def pytest_collectreport(self, report):
        if report.failed:
            self._failed_elsewhere = True

    def pytest_sessionfinish(self, session, exitstatus):
        # Only the must_fail canary failed: report the project's own result (0), as pytest would.
        if int(exitstatus) == 1 and not self._failed_elsewhere and session.testsfailed == 1:
            session.exitstatus = 0


def _read_secret(fd: int) -> dict:
    chunks = []
    while True:
        data = os.read(fd, 65536)
        if not data:
            break
        chunks.append(data)
    os.close(fd)
    return json.loads(b"".join(chunks))


def main(fd: int, args: list[str]) -> int:
    try:
        secret = _read_secret(fd)
    except (OSError, ValueError) as exc:
        print(f"beacon canary: no secret on fd {fd} ({exc}); refusing to run pytest", file=sys.stderr)
        return 97
    return int(pytest.main(args, plugins=[CanaryPlugin(secret)]))
