"""Subtests (unittest's ``subTest``, pytest 9's ``subtests`` fixture): an honest suite is scorable, a failing subtest
never passes, a forged count is still refused.

pytest's JUnit writer counts each subtest's report in the suite's ``tests=`` and writes a failing or skipped one into
its test's testcase, but no testcase of its own, so ``tests=`` exceeds the testcases. The canary plugin counts the
subtest reports it sees logged and the must-pass canary carries the number (a ``beacon_subtests`` property); the
report check allows exactly that many more. Real pytest runs through ``run_pytest`` (pytest 9.0 here, 9.2 in CI).
"""
from __future__ import annotations

import re
from dataclasses import replace

import pytest

from beacon.repair.canary import LEDGER, CanarySecret, check_canaries
from beacon.repair.controls import snapshot_protected
from beacon.repair.junit import check_report_bytes, parse_junit, verify_all_passed
from beacon.repair.pytest_runner import SUBTESTS, _subtests, run_pytest, verify_run
from repotools import write_tree

pytestmark = pytest.mark.skipif(not hasattr(pytest, "Subtests"), reason="this pytest has no built-in subtests")

CALC = "def double(x):\n    return x * 2\n"
WRONG = "def double(x):\n    return 0 if x == 1 else x * 2\n"  # one subtest of three fails
SUITES = {
    "unittest_subTest": (
        "import unittest\n\nfrom calc import double\n\n\n"
        "class TestDouble(unittest.TestCase):\n"
        "    def test_values(self):\n"
        "        for n in range(3):\n"
        "            with self.subTest(n=n):\n"
        "                self.assertEqual(double(n), n + n)\n\n"
        "    def test_zero(self):\n"
        "        self.assertEqual(double(0), 0)\n",
        ["tests/test_calc.py::TestDouble::test_values", "tests/test_calc.py::TestDouble::test_zero"]),
    "subtests_fixture": (
        "from calc import double\n\n\n"
        "def test_values(subtests):\n"
        "    for n in range(3):\n"
        "        with subtests.test(n=n):\n"
        "            assert double(n) == n + n\n\n\n"
        "def test_zero():\n"
        "    assert double(0) == 0\n",
        ["tests/test_calc.py::test_values", "tests/test_calc.py::test_zero"]),
}


def _run(tmp_path, suite, calc=CALC, extra=None):
    text, ids = SUITES[suite] if isinstance(suite, str) else suite
    files = {"calc.py": calc, "tests/test_calc.py": text, **(extra or {})}
    root = write_tree(tmp_path / "repo", files)
    run = run_pytest(root, ["tests"], protected=snapshot_protected(root, extra=["tests/test_calc.py"]),
                     sandbox="off", report_dir=tmp_path / "report")
    return run, ids


def _rescore(run, data: bytes, ids):
    """What run_pytest and verify_run make of ``data`` had pytest written it in ``run`` (a forged report): the
    same byte check, parser, canary check and subtest count, with the run's secret read back from its own report."""
    full = parse_junit(run.report_path.read_bytes())
    must_pass = next(tc for tc in full.testcases if any(name == SUBTESTS for name, _ in tc.properties))
    must_fail, left, right = next((tc.name, int(m[1]), int(m[2])) for tc in full.testcases
                                  if (m := re.fullmatch(r"assert (\d+) == (\d+)", tc.message)))
    secret = CanarySecret("", must_pass.name, must_fail, left, right)
    check_report_bytes(data)
    forged = parse_junit(data)
    canaries, report = check_canaries(forged, secret)
    return verify_run(replace(run, report=replace(report, subtests=_subtests(forged, secret)), canaries=canaries),
                      ids)


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_an_honest_suite_with_subtests_passes(tmp_path, suite):
    run, ids = _run(tmp_path, suite)
    verdict = verify_run(run, ids)
    assert verdict.passed and not verdict.tampered, (verdict.reasons, run.stdout[-2000:])
    assert run.report.subtests == 3
    assert run.report.declared.tests == len(run.report.testcases) + 3


def test_a_fixture_that_records_the_same_property_name_does_not_set_the_count(tmp_path):
    """A project's autouse fixture adds its properties to the canaries' testcases too: the plugin's comes last."""
    conftest = ("import pytest\n\n\n@pytest.fixture(autouse=True)\n"
                f"def _prop(record_property):\n    record_property({SUBTESTS!r}, 99)\n")
    run, ids = _run(tmp_path, "subtests_fixture", extra={"tests/conftest.py": conftest})
    verdict = verify_run(run, ids)
    assert verdict.passed and not verdict.tampered, verdict.reasons
    assert run.report.subtests == 3


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_one_failing_subtest_fails_its_test_and_the_run(tmp_path, suite):
    run, ids = _run(tmp_path, suite, calc=WRONG)
    verdict = verify_run(run, ids)
    assert not verdict.passed and not verdict.tampered and run.canaries.ok, verdict.reasons
    assert verdict.outcomes == {ids[0]: "failed", ids[1]: "passed"}
    # Failed for what it is: the subtest's failure in its test's testcase and pytest's status, not the count.
    assert [r.split(":")[0] for r in verdict.reasons] == ["pytest exit status 1 (an all-passed report also needs "
                                                          "status 0)", ids[0].split(":")[0]], verdict.reasons
    assert verdict.reasons[1].startswith(f"{ids[0]}: failed")


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_a_count_inflated_past_the_subtests_is_refused(tmp_path, suite):
    run, ids = _run(tmp_path, suite)
    data = run.report_path.read_bytes()
    tests = int(re.search(rb' tests="(\d+)"', data)[1])
    assert _rescore(run, data, ids).passed  # the genuine bytes, rescored, pass
    forged = data.replace(b' tests="%d"' % tests, b' tests="%d"' % (tests + 1), 1)
    verdict = _rescore(run, forged, ids)
    assert not verdict.passed and any("suite says tests=" in r for r in verdict.reasons), verdict.reasons


def test_a_count_inflated_without_subtests_is_refused(tmp_path):
    """A suite without subtests: the plugin counted none, so no surplus in ``tests=`` is allowed."""
    text, ids = SUITES["subtests_fixture"]
    plain = text.replace("def test_values(subtests):\n    for n in range(3):\n        with subtests.test(n=n):\n"
                         "            assert", "def test_values():\n    for n in range(3):\n        assert")
    run, _ = _run(tmp_path, (plain, ids))
    assert verify_run(run, ids).passed and run.report.subtests == 0
    data = run.report_path.read_bytes()
    tests = int(re.search(rb' tests="(\d+)"', data)[1])
    verdict = _rescore(run, data.replace(b' tests="%d"' % tests, b' tests="%d"' % (tests + 3), 1), ids)
    assert not verdict.passed and any("suite says tests=" in r for r in verdict.reasons), verdict.reasons
    # The surplus allowed is the plugin's count exactly: one more or one less is refused too.
    report = run.report
    for subtests in (2, 4):
        forged = replace(report, declared=replace(report.declared, tests=report.declared.tests + 3), subtests=subtests)
        assert not verify_all_passed(forged, ids).passed
    assert verify_all_passed(replace(report, declared=replace(report.declared, tests=report.declared.tests + 3),
                                     subtests=3), ids).passed


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_a_hidden_subtest_failure_is_refused(tmp_path, suite):
    """The failing subtest's <failure> removed from the report and the failure counts lowered to match: the
    testcase reads passed, but the plugin's failure ledger saw the failed report: tampered."""
    run, ids = _run(tmp_path, suite, calc=WRONG)
    data = run.report_path.read_bytes()
    name = ids[0].rsplit("::", 1)[1].encode()
    case = re.search(rb'<testcase [^>]*name="' + name + rb'"[^>]*>(.*?)</testcase>', data, re.S)
    failures = case[1].count(b"<failure ")
    assert failures >= 1
    hidden = data[:case.start()] + case[0][:case[0].index(b">")] + b" />" + data[case.end():]
    declared = int(re.search(rb' failures="(\d+)"', hidden)[1])
    tests = int(re.search(rb' tests="(\d+)"', hidden)[1])
    hidden = hidden.replace(b' failures="%d"' % declared, b' failures="%d"' % (declared - failures), 1)
    for forged in (hidden, hidden.replace(b' tests="%d"' % tests, b' tests="%d"' % (tests - 1), 1)):
        verdict = _rescore(run, forged, ids)
        assert not verdict.passed and verdict.tampered, verdict.reasons
        assert any(LEDGER in r for r in verdict.reasons), verdict.reasons


def test_a_writer_patched_to_drop_subtest_failures_is_caught(tmp_path):
    """In the run: the code under test makes pytest's JUnit writer skip subtest failures (a unittest subTest's
    own test report passes, so its testcase would read passed). The count no longer adds up, the ledger saw the
    failure, and the internals watch saw the patch."""
    attack = ("import _pytest.junitxml as _j\n"
              "_orig = _j._NodeReporter.append_failure\n\n\n"
              "def _quiet(self, report):\n"
              "    if type(report).__name__ != 'SubtestReport':\n"
              "        return _orig(self, report)\n\n\n"
              "_j._NodeReporter.append_failure = _quiet\n\n\n") + WRONG
    run, ids = _run(tmp_path, "unittest_subTest", calc=attack)
    verdict = verify_run(run, ids)
    assert not verdict.passed and verdict.tampered, verdict.reasons
    assert any("suite says tests=" in r for r in verdict.reasons), verdict.reasons
