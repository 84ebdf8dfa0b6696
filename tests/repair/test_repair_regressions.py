"""Patches that try to look like fixes must never score as a pass (real pytest runs).

Every case starts from the same pristine task: ``add`` in ``pkg/calc.py`` is
buggy, so ``tests/unit/test_add.py::test_add`` fails. A "patch" rewrites
``pkg/calc.py`` (the one editable file) so that the bug stays but something
tries to make the run look green.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from beacon.repair.controls import snapshot_protected
from beacon.repair.junit import parse_junit
from beacon.repair.pytest_runner import TamperedCheckoutError, run_pytest, verify_run
from beacon.repair.sandbox import find_bwrap
from repotools import write_tree

BWRAP, WHY_NO_BWRAP = find_bwrap()
needs_bwrap = pytest.mark.skipif(BWRAP is None, reason=f"bubblewrap unavailable: {WHY_NO_BWRAP}")

BUGGY = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
FIXED = BUGGY.replace("return a - b", "return a + b", 1)
PRISTINE = {
    "pkg/__init__.py": "",
    "pkg/calc.py": BUGGY,
    # Collected first (t < u), so code imported here runs before tests/unit is collected.
    "tests/test_calc.py": (
        "from pkg.calc import sub\n\n"
        "class TestCalc:\n    def test_sub(self):\n        assert sub(5, 3) == 2\n"
    ),
    "tests/unit/test_add.py": "from pkg.calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}
EXPECTED = ["tests/test_calc.py::TestCalc::test_sub", "tests/unit/test_add.py::test_add"]
TEST_FILES = ["tests/test_calc.py", "tests/unit/test_add.py"]

FORCE_PASS_CONFTEST = (
    "import pytest\n\n"
    "@pytest.hookimpl(wrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n"
    "    report = yield\n"
    "    report.outcome = 'passed'\n"
    "    report.longrepr = None\n"
    "    return report\n"
)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    return write_tree(tmp_path_factory.mktemp("pristine") / "repo", PRISTINE)


@pytest.fixture(scope="module")
def protected(pristine) -> dict[str, str]:
    return snapshot_protected(pristine, extra=TEST_FILES)


@pytest.fixture
def patched(pristine, tmp_path):
    """``patched(calc_source, **other_files)`` → a fresh checkout with the patch applied."""
    def make(calc: str, extra: dict[str, str] | None = None) -> Path:
        checkout = tmp_path / f"checkout{len(list(tmp_path.iterdir()))}" / "repo"
        shutil.copytree(pristine, checkout)
        return write_tree(checkout, {"pkg/calc.py": calc, **(extra or {})})
    return make


def score(checkout: Path, protected, sandbox: str = "off"):
    run = run_pytest(checkout, ["tests"], protected=protected, sandbox=sandbox,
                     report_dir=checkout.parent / "report")
    return run, verify_run(run, EXPECTED)


def test_pristine_fails_and_the_real_fix_passes(patched, protected):
    run, verdict = score(patched(BUGGY), protected)
    assert not verdict.passed and verdict.outcomes["tests/unit/test_add.py::test_add"] == "failed"
    run, verdict = score(patched(FIXED), protected)
    assert verdict.passed, verdict.reasons


def test_sys_exit_at_import(patched, protected):
    run, verdict = score(patched("import sys\nsys.exit(0)\n" + BUGGY), protected)
    assert not verdict.passed
    assert verdict.outcomes == {i: "missing" for i in EXPECTED}
    assert any("pytest::internal: error" in r for r in verdict.reasons)


def test_sys_exit_during_the_test(patched, protected):
    calc = BUGGY.replace("    return a - b", "    import sys\n    sys.exit(0)", 1)
    run, verdict = score(patched(calc), protected)
    assert not verdict.passed
    assert verdict.outcomes["tests/unit/test_add.py::test_add"] == "failed"
    assert "SystemExit" in run.report.testcases[-1].message or "SystemExit" in run.stdout


@pytest.mark.parametrize("where", ["at import", "during the test"])
def test_os_exit_zero_leaves_no_report(patched, protected, where):
    if where == "at import":
        calc = "import os\nos._exit(0)\n" + BUGGY
    else:
        calc = BUGGY.replace("    return a - b", "    import os\n    os._exit(0)", 1)
    run, verdict = score(patched(calc), protected)
    assert run.exit_code == 0  # the exit status alone would have said "success"
    assert run.report is None and run.report_path is None
    assert not verdict.passed and any("no JUnit report" in r for r in verdict.reasons)


def test_conftest_added_by_the_patch_is_refused(patched, protected):
    checkout = patched(BUGGY, {"tests/conftest.py": FORCE_PASS_CONFTEST})
    with pytest.raises(TamperedCheckoutError, match="tests/conftest.py was added"):
        score(checkout, protected)


def test_a_shipped_pytest_module_is_refused(patched, protected):
    """``python -m pytest`` would import a root pytest.py from the checkout instead of pytest."""
    fake_pytest = "import sys\nprint('2 passed in 0.01s')\nsys.exit(0)\n"
    with pytest.raises(TamperedCheckoutError, match="pytest.py was added"):
        score(patched(BUGGY, {"pytest.py": fake_pytest}), protected)
    with pytest.raises(TamperedCheckoutError, match="_pytest/__init__.py was added"):
        score(patched(BUGGY, {"_pytest/__init__.py": ""}), protected)


def test_patched_test_file_is_refused(patched, protected):
    checkout = patched(BUGGY, {"tests/unit/test_add.py": "def test_add():\n    pass\n"})
    with pytest.raises(TamperedCheckoutError, match="tests/unit/test_add.py was modified"):
        score(checkout, protected)


def test_a_trusted_forcing_conftest_is_caught_by_the_canaries(patched):
    """Even a forcing conftest the pristine tree carried (so it is trusted) cannot fake a pass:
    JUnit records the forced outcome for the project's tests, but also for the must-fail canary."""
    checkout = patched(BUGGY, {"tests/conftest.py": FORCE_PASS_CONFTEST})
    trusted = snapshot_protected(checkout, extra=TEST_FILES)
    run, verdict = score(checkout, trusted)
    # the forcing worked on the report (3 passed: the project's tests and must_fail; the one failure is must_pass,
    # failed by the plugin's report hook, which runs outside every conftest wrapper, on the watch's findings)...
    assert "1 failed, 3 passed" in run.stdout
    assert run.report is not None and all(tc.outcome == "passed" for tc in run.report.testcases)
    assert not verdict.passed and verdict.tampered  # ...and the canaries saw it
    assert run.canaries.must_fail == "passed" and not run.canaries.ok


def test_deselecting_conftest_is_caught_as_missing_ids(patched):
    deselect = (
        "def pytest_collection_modifyitems(config, items):\n"
        "    keep = [i for i in items if i.name != 'test_add']\n"
        "    config.hook.pytest_deselected(items=[i for i in items if i.name == 'test_add'])\n"
        "    items[:] = keep\n"
    )
    checkout = patched(BUGGY, {"tests/conftest.py": deselect})
    run, verdict = score(checkout, snapshot_protected(checkout, extra=TEST_FILES))  # even if trusted
    assert run.exit_code == 0 and not verdict.passed
    assert verdict.outcomes["tests/unit/test_add.py::test_add"] == "missing"


WRITE_CONFTEST_AT_IMPORT = (
    "from pathlib import Path\n"
    "_target = Path(__file__).resolve().parent.parent / 'tests' / 'unit' / 'conftest.py'\n"
    "_target.write_text({conftest!r})\n"
).format(conftest=FORCE_PASS_CONFTEST)


def test_conftest_written_during_the_run_is_caught(patched, protected):
    run, verdict = score(patched(WRITE_CONFTEST_AT_IMPORT + BUGGY), protected)
    # Without the sandbox the forged conftest was loaded: the report alone would say all passed...
    assert run.report is not None and {tc.outcome for tc in run.report.testcases} == {"passed"}
    # ...but the runner saw a control file appear during the run.
    assert not verdict.passed
    assert "integrity: changed during the run: tests/unit/conftest.py was added (pytest would load it)" in verdict.reasons


@needs_bwrap
def test_the_sandbox_checkout_is_read_only_so_no_conftest_is_written(patched, protected):
    checkout = patched(WRITE_CONFTEST_AT_IMPORT + BUGGY)
    run, verdict = score(checkout, protected, "required")
    assert not verdict.passed and not (checkout / "tests" / "unit" / "conftest.py").exists()
    assert "Read-only file system" in run.stdout  # the write fails where the code under test is imported
    assert any(m.startswith("ro ") and m.endswith("(checkout)") for m in run.mounts)


def test_fake_pass_lines_on_stdout_are_ignored(patched, protected):
    fake = (
        "import atexit, os\n"
        "atexit.register(os._exit, 0)  # after a failed run: would make its exit status 0\n"
        "print('tests/unit/test_add.py::test_add PASSED')\n"
    )
    calc = BUGGY.replace("    return a - b", "    os.write(1, b'tests/unit/test_add.py::test_add PASSED\\n'\n"
                         "             b'============================== 2 passed in 0.01s =====\\n')\n"
                         "    return a - b", 1)
    run, verdict = score(patched(fake + calc), protected)
    assert "2 passed in 0.01s =====" in run.stdout  # the captured output of the failed test, shown by pytest
    assert not verdict.passed and verdict.outcomes["tests/unit/test_add.py::test_add"] == "failed"
    # A run in which a test failed ends through os._exit right after pytest.main (red-team round 6, F3a): no
    # atexit handler of the code under test runs, so none can turn the status into 0.
    assert run.exit_code == 1


def test_skip_and_xfail_from_the_code_under_test(patched, protected):
    calc = (
        "import pytest\n\n"
        "def add(a, b):\n    pytest.skip('cannot add today')\n\n\n"
        "def sub(a, b):\n    pytest.xfail('subtraction is hard')\n"
    )
    run, verdict = score(patched(calc), protected)
    assert run.exit_code == 0 and not verdict.passed
    assert verdict.outcomes == {"tests/test_calc.py::TestCalc::test_sub": "xfailed",
                                "tests/unit/test_add.py::test_add": "skipped"}


FORGED = (
    '<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" '
    'errors="0" failures="0" skipped="0" tests="2">'
    '<testcase classname="tests.test_calc.TestCalc" name="test_sub" file="tests/test_calc.py"/>'
    '<testcase classname="tests.unit.test_add" name="test_add" file="tests/unit/test_add.py"/>'
    "</testsuite></testsuites>"
)
REPLACE_REPORT = (
    "import os, sys, time\n"
    "from pathlib import Path\n"
    "FORGED = {forged!r}\n"
    "JUNIT_FD_PATH = next(a.split('=', 1)[1] for a in sys.argv if a.startswith('--junitxml='))\n"
    "REPORT = Path(Path(__file__).resolve().parent.parent / 'report_dir.txt').read_text() + '/junit.xml'\n\n"
    "def _forge():\n"
    "    try:\n"
    "        os.makedirs(os.path.dirname(REPORT), exist_ok=True)\n"
    "        Path(REPORT).write_text(FORGED)\n"
    "        Path(REPORT).with_name('forged-at-least-once').touch()\n"
    "    except OSError:\n"
    "        pass  # not reachable from inside the sandbox\n\n"
    "def add(a, b):\n"
    "    _forge()\n"
    "    if os.fork() == 0:  # a lingering child that forges again once pytest is done\n"
    "        time.sleep(0.5)\n"
    "        _forge()\n"
    "        with open(JUNIT_FD_PATH, 'w') as fh:\n"
    "            fh.write(FORGED)\n"
    "        os._exit(0)\n"
    "    return a - b\n\n\n"
    "def sub(a, b):\n    return a - b\n"
).format(forged=FORGED)


@pytest.mark.parametrize("sandbox", ["off", pytest.param("required", marks=needs_bwrap)])
def test_report_replaced_by_the_code_under_test(patched, protected, sandbox):
    checkout = patched(REPLACE_REPORT, {"report_dir.txt": ""})
    report_dir = checkout.parent / "report"
    (checkout / "report_dir.txt").write_text(str(report_dir))
    assert parse_junit(FORGED.encode())  # the forgery itself is a well-formed all-pass report
    run, verdict = score(checkout, protected, sandbox)
    # Unsandboxed, the forgery did land in the report directory; sandboxed, it is out of reach.
    assert (report_dir / "forged-at-least-once").exists() == (sandbox == "off")
    assert not verdict.passed and verdict.outcomes["tests/unit/test_add.py::test_add"] == "failed"
    # The saved report is what pytest sent through the pipe, not the forgery.
    saved = parse_junit(run.report_path.read_bytes())
    assert len(saved.testcases) == len(run.report.testcases) + 2  # the saved bytes still hold the canaries
    assert set(run.report.testcases) <= set(saved.testcases)
    assert any(tc.outcome == "failed" for tc in run.report.testcases)


def test_forgery_written_into_the_report_pipe_corrupts_it(patched, protected):
    calc = (
        "import sys\n"
        "def add(a, b):\n"
        "    path = next(a.split('=', 1)[1] for a in sys.argv if a.startswith('--junitxml='))\n"
        "    with open(path, 'w') as fh:\n"
        "        fh.write({forged!r})\n"
        "    return a - b\n\n\n"
        "def sub(a, b):\n    return a - b\n"
    ).format(forged=FORGED)
    run, verdict = score(patched(calc), protected)
    # pytest appended its own document after the forged one: not one XML document (refused before parsing).
    assert run.report is None and "not one document" in run.report_error
    assert not verdict.passed


SELECTIVE_FORCE_CONFTEST = FORCE_PASS_CONFTEST.replace(
    "    report.outcome = 'passed'\n    report.longrepr = None\n",
    "    if item.name == 'test_add':  # spares the canaries, so both behave\n"
    "        report.outcome = 'passed'\n        report.longrepr = None\n")


def test_a_phase_that_raised_but_reports_passed_is_tampering(patched):
    """Selective forcing that spares the canaries (here from a trusted conftest, as a stand-in for any route to
    the report) is caught by the plugin's outermost report hook: pytest passes a phase only if it raised nothing."""
    checkout = patched(BUGGY, {"tests/conftest.py": SELECTIVE_FORCE_CONFTEST})
    run, verdict = score(checkout, snapshot_protected(checkout, extra=TEST_FILES))
    assert run.report is not None and {tc.outcome for tc in run.report.testcases} == {"passed"}  # the forgery...
    assert run.canaries.must_fail == "failed"  # ...spared the canaries,
    assert not verdict.passed and not run.canaries.ok  # ...and still fails: must_pass saw it
    assert any("raised AssertionError but reported passed" in r for r in run.canaries.reasons), run.canaries.reasons


# ---- red-team round 5 (F3): a test that is never called raises nothing, so nothing is "raised but passed" ----

def watch_findings(run) -> list[str]:
    """The watch's findings, from the must-pass canary's whole failure message in the saved report."""
    import ast
    import re
    import xml.etree.ElementTree as ET
    project = {tc.name for tc in run.report.testcases}
    for case in ET.parse(run.report_path).iter("testcase"):
        for failure in case.iter("failure") if case.get("name") not in project else ():
            # pytest >= 9.2 truncates a long message attribute ("[truncated; full report in element text]"): read
            # the element text too. The list's repr is one line; greedy to that line's last bracket (an element
            # with an apostrophe is repr'd in double quotes, so a match up to the first `']` can stop short).
            text = (failure.text or "") + "\n" + (failure.get("message") or "")
            found = re.search(r"AssertionError: (\[.*\])", text)
            if found:
                return ast.literal_eval(found.group(1))
    return []


NEVER_CALLED = "tests/unit/test_add.py::test_add call: reported passed but pytest never called its test function"


def assert_forged_pass_caught(run, verdict, *findings):
    assert run.report is not None and {tc.outcome for tc in run.report.testcases} == {"passed"}  # the forgery...
    assert run.canaries.must_fail == "failed"  # ...spared the canaries,
    assert not verdict.passed and verdict.tampered and run.canaries.must_pass == "failed"  # ...and is tampering
    seen = watch_findings(run)
    for finding in findings:
        assert any(f.startswith(finding) for f in seen), seen


SKIP_LATER_TEST_FROM_CODE = (
    "import sys\n\n"
    "def add(a, b):\n    return a - b\n\n\n"
    "def sub(a, b):  # called by TestCalc::test_sub, which runs before test_add\n"
    "    frame = sys._getframe()\n"
    "    while frame is not None and not hasattr(frame.f_locals.get('item'), 'session'):\n"
    "        frame = frame.f_back\n"
    "    for other in frame.f_locals['item'].session.items:\n"
    "        if other.name == 'test_add':\n"
    "            other.runtest = lambda: None\n"
    "    return a - b\n"
)
SKIP_LATER_TEST_FROM_A_TEST = (
    "from pkg.calc import sub\n\n"
    "class TestCalc:\n    def test_sub(self, request):\n"
    "        for other in request.node.session.items:\n"
    "            if other.name == 'test_add':\n"
    "                other.runtest = lambda: None\n"
    "        assert sub(5, 3) == 2\n"
)


@pytest.mark.parametrize("route", ["code under test", "earlier test"])
def test_an_instance_runtest_set_for_a_later_test_is_tampering(patched, route):
    """``item.runtest = lambda: None`` on a later test's item (an instance attribute: the class's ``runtest``, which
    the watch compares, is untouched): the test runs nothing, raises nothing and was reported passed."""
    if route == "code under test":
        checkout = patched(SKIP_LATER_TEST_FROM_CODE)
    else:  # a trusted test module, as a stand-in for any route to the item
        checkout = patched(BUGGY, {"tests/test_calc.py": SKIP_LATER_TEST_FROM_A_TEST})
    run, verdict = score(checkout, snapshot_protected(checkout, extra=TEST_FILES))
    assert_forged_pass_caught(run, verdict, NEVER_CALLED,
                              "tests/unit/test_add.py::test_add: instance attribute(s) runtest set on the item")


RENAME_LATER_TEST = (
    "from pkg.calc import sub\n\n"
    "class TestCalc:\n    def test_sub(self, request):\n"
    "        for other in request.node.session.items:\n"
    "            if other.name == 'test_add':\n"
    "                other.name = ''.join(other.name)  # the same text, another object: any rename\n"
    "        assert sub(5, 3) == 2\n"
)


def test_an_item_renamed_after_collection_is_tampering(patched):
    """Renaming an item (``name``, its node id) would let a passing item stand in for a failing test's id."""
    checkout = patched(FIXED, {"tests/test_calc.py": RENAME_LATER_TEST})
    run, verdict = score(checkout, snapshot_protected(checkout, extra=TEST_FILES))
    assert verdict.tampered and run.canaries.must_pass == "failed", verdict.reasons
    assert any("tests/unit/test_add.py::test_add: the item's name rebound (renamed or moved)" in f
               for f in watch_findings(run)), watch_findings(run)


WRAPPED_SETUPSTATE = (  # red-team round 5's p2_setupstate.py, with a plain import
    "import sys\n\n"
    "_state = sys.modules['_pytest.runner'].SetupState\n"
    "_orig = _state.setup\n\n"
    "def _setup(self, item, _orig=_orig):\n"
    "    _orig(self, item)\n"
    "    if item.name == 'test_add':\n"
    "        item.runtest = lambda: None\n\n"
    "_state.setup = _setup\n\n" + BUGGY
)


def test_a_wrapped_setupstate_setup_is_tampering(patched, protected):
    run, verdict = score(patched(WRAPPED_SETUPSTATE), protected)
    assert_forged_pass_caught(run, verdict, NEVER_CALLED, "_pytest.runner.SetupState.setup was replaced",
                              "tests/unit/test_add.py::test_add: instance attribute(s) runtest set on the item")


SKIPPED_HOOK_CALL = (  # pluggy is on no list: only the positive check sees that the test function never ran
    "import pluggy\n\n"
    "_orig = pluggy.HookCaller.__call__\n\n"
    "def _call(self, **kwargs):\n"
    "    item = kwargs.get('pyfuncitem')\n"
    "    if item is not None and item.name == 'test_add':\n"
    "        return True\n"
    "    return _orig(self, **kwargs)\n\n"
    "pluggy.HookCaller.__call__ = _call\n\n" + BUGGY
)


def test_a_never_called_must_pass_canary_still_reports_the_watch(patched, protected):
    """The same edit also neuters the last item, which is always the must-pass canary: its body (which asks the
    watch) never runs, so the plugin's report hook fails it with the findings instead."""
    neuter_last = WRAPPED_SETUPSTATE.replace("if item.name == 'test_add':",
                                             "if item.name == 'test_add' or item is item.session.items[-1]:")
    run, verdict = score(patched(neuter_last), protected)
    assert_forged_pass_caught(run, verdict, NEVER_CALLED, "_pytest.runner.SetupState.setup was replaced")
    must_pass = [f for f in watch_findings(run) if "pytest never called" in f and "test_add.py::test_add" not in f]
    assert len(must_pass) == 1, watch_findings(run)  # the canary's own call was skipped too


def test_a_skipped_pyfunc_call_is_tampering_without_any_listed_change(patched, protected):
    run, verdict = score(patched(SKIPPED_HOOK_CALL), protected)
    assert_forged_pass_caught(run, verdict, NEVER_CALLED)
    # nothing on any list changed: the positive check, and the wholesale watch of pluggy (red-team round 7)
    assert any(f.startswith("pluggy.") and "HookCaller.__call__ was replaced" in f for f in watch_findings(run))
    assert len([f for f in watch_findings(run) if not f.startswith("pluggy.")]) == 1, watch_findings(run)


HONEST_MIXED = {
    "pkg/calc.py": FIXED,
    "tests/test_mixed.py": (
        "import unittest\n\nimport pytest\n\nfrom pkg.calc import add\n\n\n"
        "class TestUnit(unittest.TestCase):\n"
        "    def setUp(self):\n        self.one = 1\n\n"
        "    def test_add(self):\n        self.assertEqual(add(self.one, 1), 2)\n\n"
        "    @unittest.skip('not today')\n    def test_skipped(self):\n        pass\n\n"
        "    @unittest.expectedFailure\n    def test_expected_failure(self):\n        self.assertEqual(add(1, 1), 3)\n\n\n"
        "class TestPlain:\n"
        "    @pytest.mark.parametrize('a', [1, 2])\n    def test_param(self, a):\n        assert add(a, 0) == a\n\n\n"
        "@pytest.fixture\ndef three():\n    yield 3\n\n\n"
        "@pytest.mark.parametrize('a, b', [(1, 2), (2, 3)])\n"
        "def test_param_fixture(a, b, three):\n    assert add(a, 1) == b and three == 3\n\n\n"
        "@pytest.mark.xfail(strict=True)\ndef test_xfail_strict():\n    assert add(1, 1) == 3\n\n\n"
        "@pytest.mark.skip\ndef test_skip():\n    pass\n\n\n"
        "def test_skip_inside():\n    pytest.skip('inside')\n"
    ),
}


def test_honest_unittest_parametrized_class_xfail_and_skip_tests_are_not_tampering(patched):
    """The watch's item checks and the pyfunc check on an honest mix (unittest drops its bound method at teardown,
    its runtest never calls pytest_pyfunc_call; skipped and xfailed tests have no passed call)."""
    checkout = patched(FIXED, HONEST_MIXED)
    run, verdict = score(checkout, snapshot_protected(checkout, extra=TEST_FILES))
    ids = EXPECTED + [f"tests/test_mixed.py::{n}" for n in (
        "TestUnit::test_add", "TestPlain::test_param[1]", "TestPlain::test_param[2]",
        "test_param_fixture[1-2]", "test_param_fixture[2-3]")]
    verdict = verify_run(run, ids)
    assert verdict.passed and run.canaries.ok, (verdict.reasons, run.stdout[-2000:])
    outcomes = {tc.name: tc.outcome for tc in run.report.testcases}
    assert outcomes["test_xfail_strict"] == "xfailed" and outcomes["test_skip"] == "skipped"
