"""Trace and profile functions the tests' frames run under (session 37).

A trace function sees each frame of its thread and, in Python 3.11, writes the frame's locals back when it
returns: red-team round 30 flipped a rewritten assert's ``@py_assert`` results that way. The plugin refuses
``sys.settrace`` from the code under test and judges the trace function still active when a test function returns.
Two openings closed here: ``threading.settrace`` raises no audit event, so the edit's hook ran in every thread
started later (an assert run in a pool's worker passed on a wrong repair); and an object whose class defines
``__call__`` counted as a C-level tracer."""

from __future__ import annotations

import functools
import sys
import weakref
from pathlib import Path

import pytest

from beacon.repair.canary_plugin import _ABSENT, _trace_runs
from beacon.repair.controls import snapshot_protected
from beacon.repair.pytest_runner import run_pytest, verify_run
from repotools import write_tree

SOURCE = "pkg/calc.py"
BUGGY_ADD = "\n\ndef add(a, b):\n    return a - b\n"
PRISTINE = "\n\ndef add(a, b):\n    return a + b\n"
LATER = "from pkg.calc import add\n\n\ndef test_later():\n    assert add(2, 3) == 5\n"
BOTH = ["tests/test_a.py::test_a", "tests/test_later.py::test_later"]


def score(tmp_path: Path, source: str, first: str, oracle: bool):
    files = {"tests/test_a.py": first, "tests/test_later.py": LATER}
    root = write_tree(tmp_path / "repo", {"pkg/__init__.py": "", SOURCE: source, **files})
    options = dict(before={SOURCE: (BUGGY_ADD, PRISTINE)}, pristine={SOURCE: PRISTINE}, oracle=True) if oracle else {}
    run = run_pytest(root, ["tests"], protected=snapshot_protected(root, extra=list(files)), sandbox="off",
                     report_dir=tmp_path / "report", sources=(SOURCE,), timeout=120, **options)
    return run, verify_run(run, BOTH)


class _Called:
    def __call__(self, frame, event, arg):
        return None


class _Partial(functools.partial):
    pass


class _Static(staticmethod):
    pass


def _tracer(frame, event, arg):
    return None


def test_trace_runs_names_the_python_code_a_call_runs():
    called = _Called()
    assert _trace_runs(_tracer) is _tracer
    assert _trace_runs(called) is _Called.__call__
    assert _trace_runs(called.__call__) is _Called.__call__
    assert _trace_runs(functools.partial(_tracer)) is _tracer
    assert _trace_runs(functools.partial(functools.partial(called))) is _Called.__call__
    assert _trace_runs(_Partial(_tracer)) is _tracer  # (a subclass's: read through partial's own descriptor)
    assert _trace_runs(_Static(_tracer)) is _tracer
    # runs Python code the plugin cannot name: a class (its __init__), a weak proxy
    assert _trace_runs(_Called) is _ABSENT
    assert _trace_runs(weakref.proxy(_tracer)) is _ABSENT
    assert _trace_runs(functools.lru_cache(_tracer)) is _tracer  # (what it holds for the collector)
    # no Python code of its own: C functions and objects
    assert _trace_runs(len) is None
    assert _trace_runs(sys.settrace) is None
    assert _trace_runs(object()) is None


THREAD_TEST = """from concurrent.futures import ThreadPoolExecutor
from pkg.calc import add


def test_a():
    def check():
        assert add(2, 3) == 5
    with ThreadPoolExecutor(1) as ex:
        ex.submit(check).result()
"""


def test_a_threading_hook_of_the_edit_is_a_finding(tmp_path):
    # The edit's threading.settrace(f) (no audit event) gave the pool's worker a trace function that flipped the
    # assert's result in the worker's frame: a forged pass, with the oracle of calls on and without it.
    attack = (Path(__file__).parent / "session37" / "thread_hook.py.txt").read_text(encoding="utf-8") + BUGGY_ADD
    for oracle in (True, False):
        run, verdict = score(tmp_path / str(oracle), attack, THREAD_TEST, oracle)
        assert not verdict.passed and verdict.tampered, (oracle, verdict.reasons)
        # (with the oracle of calls, its own hook is the only one allowed; without it, the hook's code is judged)
        expected = ("oracle: threading's trace hook, which gives each new thread the trace function" if oracle else
                    "source: threading's trace hook, installed by each new thread, runs _calls: pkg/calc.py, a declared "
                    "source")
        assert expected in " ".join(run.canaries.reasons), run.canaries.reasons


TRACER_OBJECT = "\n\nclass Tracer:\n    def __call__(self, frame, event, arg):\n        return None\n"
OBJECT_TEST = """import sys

from pkg.calc import Tracer, add


def test_a():
    sys.settrace(Tracer())
    assert add(2, 3) == 5
"""


def test_a_trace_object_whose_call_is_a_declared_sources_def_is_judged(tmp_path):
    # Until session 37 an object with a __call__ def counted as a C-level tracer and was let through at the test's
    # return; a def of a declared source installed as a function was already a finding.
    run, verdict = score(tmp_path, PRISTINE + TRACER_OBJECT, OBJECT_TEST, oracle=False)
    assert not verdict.passed and verdict.tampered, verdict.reasons
    found = " ".join(run.canaries.reasons)
    assert "a trace function (Tracer.__call__: pkg/calc.py, a declared source) was active" in found, found


def test_a_tests_own_trace_object_and_threading_hook_pass(tmp_path):
    honest = """import sys
import threading

from pkg.calc import add


class Tracer:
    def __call__(self, frame, event, arg):
        return None


def test_a():
    old = threading.gettrace()
    threading.settrace(Tracer())
    try:
        done = []
        worker = threading.Thread(target=lambda: done.append(add(2, 3)))
        worker.start()
        worker.join()
    finally:
        threading.settrace(old)
    sys.settrace(Tracer())
    assert done == [5] and add(2, 3) == 5
    sys.settrace(None)
"""
    for oracle in (False, True):
        run, verdict = score(tmp_path / str(oracle), PRISTINE, honest, oracle)
        assert verdict.passed, (oracle, verdict.reasons, run.canaries.reasons)


# Red-team round 40 (helper 123, on e870056): a library def (bdb.Bdb.trace_dispatch) bound to, or made the __call__ of,
# the edit's subclass ran the subclass's dispatch_call, which negated add's argument in the frame's locals. a1 gave it
# to every new thread through threading.settrace; a3 had a signal handler made of C pieces run trace.Trace.runfunc
# (a library def) with no frame of the edit on the stack, and its class answered the oracle's ``!=`` with False.
ROUND_40 = {"a1_thread_bdb": (THREAD_TEST, THREAD_TEST.replace("test_a", "test_later")),
            "a3_signal_ne": ("from pkg.calc import add\n\n\ndef test_a():\n    assert add(2, 3) == 5\n", LATER),
            "a3_bound": ("from pkg.calc import add\n\n\ndef test_a():\n    assert add(2, 3) == 5\n", LATER)}


# Red-team round 41 (helper 125, on 3130b64): the same idea one level down. profile.Profile's trace_dispatch_i, on a
# library instance (p1) or the edit's subclass (p2), runs ``self.dispatch[event]``: a dict the edit filled with its
# own functions, which the owner check did not follow (it does now, into lists, tuples, dicts and sets). p1 installed
# it through weakref.finalize during a collection pytest's allocations triggered, and at import in the replay, which
# now refuses every trace and profile function (test_replay.py).
ROUND_41 = {"p1_profile_dispatch": ROUND_40["a3_bound"], "p2_class_dict": ROUND_40["a3_bound"]}


@pytest.mark.parametrize("oracle", [True, False], ids=["oracle", "no_oracle"])
@pytest.mark.parametrize("attack", sorted(ROUND_40) + sorted(ROUND_41))
def test_round_40_and_41s_forgeries_are_refused(tmp_path, attack, oracle):
    first, later = ROUND_40.get(attack) or ROUND_41[attack]
    folder = "round40" if attack in ROUND_40 else "round41"
    source = (Path(__file__).parent / folder / f"{attack}.py.txt").read_text(encoding="utf-8") + BUGGY_ADD
    files = {"tests/test_a.py": first, "tests/test_later.py": later}
    root = write_tree(tmp_path / "repo", {"pkg/__init__.py": "", SOURCE: source, **files})
    options = dict(before={SOURCE: (BUGGY_ADD, PRISTINE)}, pristine={SOURCE: PRISTINE}, oracle=True) if oracle else {}
    run = run_pytest(root, ["tests"], protected=snapshot_protected(root, extra=list(files)), sandbox="off",
                     report_dir=tmp_path / "report", sources=(SOURCE,), timeout=120, **options)
    verdict = verify_run(run, BOTH)
    assert not verdict.passed, (verdict.reasons, run.oracle_calls, run.replay)
    # (a3's interval timer can outlive the run, whose process then dies of SIGALRM: refused, with no report; and
    # its timer may not fire while a frame it can rewrite runs, on a loaded machine: then the mutant fails the tests
    # as itself, ``-1 = add(2, 3)``, and there is nothing to find; or it fires inside pytest's own code, on a loaded
    # machine, and pytest stops with an internal error before any test reports: nothing passed, nothing to find)
    landed = not all("where -1 = add(2, 3)" in r for r in verdict.reasons if r.startswith("tests/")) \
        and not any(r.endswith("internal error") and "pytest::internal" in r for r in verdict.reasons)
    if run.exit_code >= 0 and (landed or not attack.startswith("a3")):
        assert verdict.tampered, verdict.reasons
