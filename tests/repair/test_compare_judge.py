"""The canary plugin's compare-time judge (red-team round 7, G3 (d)), through real pytest runs (``run_pytest``).

The sampled comparison checks (after collection, after each test call, in must_pass) miss a class that lives only
between two of them (r2: made in the buggy call, freed by a collection the code under test triggers) and a dunder
set before an assert and restored after it (r4, r8). The plugin patches pytest's assertion rewriting so each
operand of a comparison in an assert, and the value of a plain ``assert x``, has its class's comparison dunders
judged at the moment it is compared (:meth:`beacon.repair.canary_plugin._Comparisons.judge_at_assert`). The
declared source is ``pkg/calc.py``; the screen is not involved (``run_pytest`` runs the plugin directly).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from beacon.repair.controls import snapshot_protected
from beacon.repair.junit import parse_junit
from beacon.repair.pytest_runner import run_pytest, verify_run
from repotools import write_tree

SOURCE = "pkg/calc.py"
TEST = "tests/test_calc.py"
TWO_CALLS = ("from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
             "    assert add(0, 0) == 0\n")
EXPECTED = ["tests/test_calc.py::test_add"]


def score(tmp_path: Path, calc: str, test: str = TWO_CALLS, expected=EXPECTED):
    root = write_tree(tmp_path / "repo", {"pkg/__init__.py": "", SOURCE: calc, TEST: test})
    run = run_pytest(root, ["tests"], protected=snapshot_protected(root, extra=[TEST]), sandbox="off",
                     report_dir=tmp_path / "report", sources=(SOURCE,))
    return run, verify_run(run, expected)


def findings(run) -> str:
    return " ".join(run.canaries.reasons)


# Each buggy ``add`` answers 2 + 3 with a value that equals anything, and leaves nothing for the sampled checks.
BETWEEN_CHECKS = {
    # r2: a class made in the buggy call, freed by a collection before the check after the call
    "transient_class": ("import gc\n\n\ndef add(a, b):\n    if a:\n"
                        "        return type('Exact', (int,), {'__eq__': lambda s, o: True})(a - b)\n"
                        "    gc.collect()\n    return a + b\n",
                        "comparison pkg.calc.Exact.__eq__ is <lambda> from pkg/calc.py (at an assert)"),
    # r4: set before the assert, deleted by the next call
    "rebind_and_delete": ("class Exact(int):\n    pass\n\n\ndef add(a, b):\n    if a:\n"
                          "        Exact.__eq__ = lambda s, o: True\n        return Exact(a - b)\n"
                          "    del Exact.__eq__\n    return a + b\n",
                          "comparison pkg.calc.Exact.__eq__ is <lambda> from pkg/calc.py (at an assert)"),
    # r8: set before the assert, restored to int's own builtin (of the right name) by the next call
    "rebind_and_restore": ("class Exact(int):\n    pass\n\n\ndef add(a, b):\n    if a:\n"
                           "        Exact.__eq__ = lambda s, o: True\n        return Exact(a - b)\n"
                           "    Exact.__eq__ = int.__eq__\n    return a + b\n",
                           "comparison pkg.calc.Exact.__eq__ is <lambda> from pkg/calc.py (at an assert)"),
    # the reflected operand: 5 == Exact(...) asks Exact.__eq__ first (a subclass of int)
    "right_operand": ("class Exact(int):\n    pass\n\n\ndef add(a, b):\n    if a:\n"
                      "        Exact.__eq__ = lambda s, o: True\n        return Exact(a - b)\n"
                      "    Exact.__eq__ = int.__eq__\n    return a + b\n",
                      "comparison pkg.calc.Exact.__eq__ is <lambda> from pkg/calc.py (at an assert)",
                      "from pkg.calc import add\n\n\ndef test_add():\n    assert 5 == add(2, 3)\n"
                      "    assert add(0, 0) == 0\n"),
    # a base class's dunder, resolved through the MRO
    "inherited": ("class Base(int):\n    pass\n\n\nclass Exact(Base):\n    pass\n\n\ndef add(a, b):\n    if a:\n"
                  "        Base.__eq__ = lambda s, o: True\n        return Exact(a - b)\n"
                  "    Base.__eq__ = int.__eq__\n    return a + b\n",
                  "comparison pkg.calc.Base.__eq__ is <lambda> from pkg/calc.py (at an assert)"),
    # ``assert x``: truthiness through __bool__, set for the buggy call and deleted by the next one
    "plain_assert": ("class Hollow:\n    pass\n\n\ndef add(a, b):\n    if a:\n"
                     "        Hollow.__bool__ = lambda s: True\n        return Hollow()\n"
                     "    del Hollow.__bool__\n    return a + b\n",
                     "comparison pkg.calc.Hollow.__bool__ is <lambda> from pkg/calc.py (at an assert)",
                     "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3)\n"
                     "    assert add(0, 0) == 0\n"),
    # ``assert not x``: truthiness through __bool__ (round 8's noticed gap)
    "not_assert": ("class Hollow:\n    pass\n\n\ndef add(a, b):\n    if a:\n"
                   "        Hollow.__bool__ = lambda s: False\n        return Hollow()\n"
                   "    del Hollow.__bool__\n    return a + b\n",
                   "comparison pkg.calc.Hollow.__bool__ is <lambda> from pkg/calc.py (at an assert)",
                   "from pkg.calc import add\n\n\ndef test_add():\n    assert not add(2, 3)\n"
                   "    assert add(0, 0) == 0\n"),
    # an operand of ``and``/``or`` that is no comparison: its truthiness decides
    "boolop_operand": ("class Hollow:\n    pass\n\n\ndef add(a, b):\n    if a:\n"
                       "        Hollow.__bool__ = lambda s: True\n        return Hollow()\n"
                       "    if '__bool__' in vars(Hollow):\n        del Hollow.__bool__\n    return a + b\n",
                       "comparison pkg.calc.Hollow.__bool__ is <lambda> from pkg/calc.py (at an assert)",
                       "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) and add(0, 1) == 1\n"
                       "    assert add(0, 0) == 0\n"),
    # a ``def __eq__`` (the dunder's own name) whose result's __bool__ lies: the comparison's result is judged
    "comparison_result": ("class Verdict:\n    pass\n\n\nclass Exact(int):\n    def __eq__(self, other):\n"
                          "        return Verdict()\n\n    __hash__ = int.__hash__\n\n\ndef add(a, b):\n    if a:\n"
                          "        Verdict.__bool__ = lambda s: True\n        return Exact(a - b)\n"
                          "    del Verdict.__bool__\n    return a + b\n",
                          "comparison pkg.calc.Verdict.__bool__ is <lambda> from pkg/calc.py (at an assert)"),
    # a container's elements compare with their own dunders: a transient class inside a list, a dict's value, a
    # nested tuple, and a list subclass whose own __iter__ shows nothing
    "list_element": ("import gc\n\n\ndef add(a, b):\n    if a:\n"
                     "        return [type('Exact', (int,), {'__eq__': lambda s, o: True})(a - b)]\n"
                     "    gc.collect()\n    return a + b\n",
                     "comparison pkg.calc.Exact.__eq__ is <lambda> from pkg/calc.py (at an assert)",
                     "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == [5]\n"
                     "    assert add(0, 0) == 0\n"),
    "dict_value": ("import gc\n\n\ndef add(a, b):\n    if a:\n"
                   "        return {'sum': type('Exact', (int,), {'__eq__': lambda s, o: True})(a - b)}\n"
                   "    gc.collect()\n    return a + b\n",
                   "comparison pkg.calc.Exact.__eq__ is <lambda> from pkg/calc.py (at an assert)",
                   "from pkg.calc import add\n\n\ndef test_add():\n    assert {'sum': 5} == add(2, 3)\n"
                   "    assert add(0, 0) == 0\n"),
    "nested_element": ("import gc\n\n\ndef add(a, b):\n    if a:\n"
                       "        return [(type('Exact', (int,), {'__eq__': lambda s, o: True})(a - b),)]\n"
                       "    gc.collect()\n    return a + b\n",
                       "comparison pkg.calc.Exact.__eq__ is <lambda> from pkg/calc.py (at an assert)",
                       "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == [(5,)]\n"
                       "    assert add(0, 0) == 0\n"),
    "element_behind_iter": ("import gc\n\n\nclass Quiet(list):\n    def __iter__(self):\n        return iter(())\n\n\n"
                            "def add(a, b):\n    if a:\n"
                            "        return Quiet([type('Exact', (int,), {'__eq__': lambda s, o: True})(a - b)])\n"
                            "    gc.collect()\n    return a + b\n",
                            "comparison pkg.calc.Exact.__eq__ is <lambda> from pkg/calc.py (at an assert)",
                            "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == [5]\n"
                            "    assert add(0, 0) == 0\n"),
    # ``in``: the container's __contains__
    "contains": ("class Bag(list):\n    pass\n\n\ndef add(a, b):\n    if a:\n"
                 "        Bag.__contains__ = lambda s, o: True\n        return Bag()\n"
                 "    Bag.__contains__ = list.__contains__\n    return a + b\n",
                 "comparison pkg.calc.Bag.__contains__ is <lambda> from pkg/calc.py (at an assert)",
                 "from pkg.calc import add\n\n\ndef test_add():\n    assert 5 in add(2, 3)\n"
                 "    assert add(0, 0) == 0\n"),
}


@pytest.mark.parametrize("shape", sorted(BETWEEN_CHECKS))
def test_a_comparison_that_exists_only_between_the_sampled_checks_is_judged_at_the_assert(tmp_path, shape):
    calc, finding, *test = BETWEEN_CHECKS[shape]
    run, verdict = score(tmp_path, calc, *test)
    assert run.report is not None and [tc.outcome for tc in run.report.testcases] == ["passed"]  # the forgery...
    assert run.canaries.must_fail == "failed"  # ...spared the canaries
    assert not verdict.passed and verdict.tampered and run.canaries.must_pass == "failed", verdict.reasons
    assert finding in findings(run), findings(run)
    assert findings(run).rpartition("assert not ")[2].count(finding) == 1  # reported once


SWAPPED = {  # what reaches the judge, replaced when the code under test is imported
    "helper": ("import _pytest.assertion.rewrite as r\n\nr._beacon_judge = lambda value: value\n",
               "_pytest.assertion.rewrite._beacon_judge was replaced"),
    "visit_compare": ("import _pytest.assertion.rewrite as r\n\n_v = r.AssertionRewriter.visit_Compare\n"
                      "r.AssertionRewriter.visit_Compare = lambda self, comp: _v(self, comp)\n",
                      "_pytest.assertion.rewrite.AssertionRewriter.visit_Compare was replaced"),
    "unittest_wrapper": ("import unittest\n\nunittest.TestCase.assertEqual = unittest.TestCase.assertEqual.__wrapped__\n",
                         "unittest.case.TestCase.assertEqual was replaced"),
}


@pytest.mark.parametrize("shape", sorted(SWAPPED))
def test_a_swapped_judge_is_seen_by_the_watch(tmp_path, shape):
    calc, finding = SWAPPED[shape]
    run, verdict = score(tmp_path, calc + "\n\ndef add(a, b):\n    return a + b\n")
    assert not verdict.passed and verdict.tampered, verdict.reasons
    assert finding in findings(run), findings(run)


# ---- honest runs: same outcomes, same failure messages ---------------------------------------------------------

FAILING_TESTS = '''
class Box:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Box) and self.value == other.value

    def __repr__(self):
        return f"Box({self.value})"

    __hash__ = None


def ten():
    return 10


def test_eq():
    assert ten() == 11


def test_lt():
    x = ten()
    assert x < 3


def test_in():
    assert ten() in [1, 2]


def test_plain():
    items = []
    assert items


def test_plain_call():
    assert list(range(ten() - 10))


def test_chain():
    assert 1 < ten() < 5


def test_objects():
    assert Box(1) == Box(ten())


def test_message():
    assert ten() != 10, "ten is ten"


def test_boolop():
    assert ten() == 3 or ten() < 0


def test_not():
    assert not ten()


def test_boolop_values():
    empty = []
    assert ten() and empty


def test_boolop_not():
    assert not (ten() or [])
'''


def test_a_failing_honest_assert_reads_the_same_as_under_plain_pytest(tmp_path):
    """The judge wraps only the evaluated comparisons, after pytest built the explanation from the same
    temporaries: each failure message in the JUnit report is byte-identical to plain pytest's (no plugin)."""
    names = [line[4:].partition("(")[0] for line in FAILING_TESTS.splitlines() if line.startswith("def test_")]
    ids = [f"tests/test_calc.py::{n}" for n in names]
    run, verdict = score(tmp_path, "def add(a, b):\n    return a + b\n", FAILING_TESTS, expected=ids)
    assert run.canaries.ok and not verdict.tampered, (findings(run), run.stdout[-3000:])
    judged = {tc.name: tc.message for tc in run.report.testcases}
    plain_xml = tmp_path / "plain.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
                    "-o", "addopts=", "-o", "junit_family=xunit1", f"--junitxml={plain_xml}", "tests"],
                   cwd=tmp_path / "repo", env=env, capture_output=True, check=False, timeout=120)
    plain = {tc.name: tc.message for tc in parse_junit(plain_xml.read_bytes()).testcases}
    assert sorted(judged.keys() & set(names)) == sorted(names) and sorted(plain) == sorted(names)
    for name in names:
        assert judged[name] and len(judged[name]) < 300, judged[name]  # whole (the report keeps 300 characters)
        assert judged[name] == plain[name], (name, judged[name], plain[name])
    assert "where 10 = ten()" in judged["test_eq"] and "@" not in "".join(judged.values())


# ---- unittest's assertion methods (judged through wrappers on unittest.TestCase) --------------------------------

TRANSIENT = ("import gc\n\n\ndef add(a, b):\n    if a:\n"
             "        return type('Exact', (int,), {'__eq__': lambda s, o: True, '__lt__': lambda s, o: True,\n"
             "                                      '__bool__': lambda s: False})(a - b)\n"
             "    gc.collect()\n    return a + b\n")
UNITTEST_CALLS = {
    "assertEqual": "self.assertEqual(add(2, 3), 5)",
    "assertEqual_keywords": "self.assertEqual(first=add(2, 3), second=5)",
    "assertEquals_alias": "self.assertEquals(add(2, 3), 5)",  # 3.11's deprecated alias calls the unwrapped original
    "assertLess": "self.assertLess(add(2, 3), 0)",
    "assertFalse": "self.assertFalse(add(2, 3))",
    "assertIn_element": "self.assertIn(5, [add(2, 3)])",
    "assertListEqual": "self.assertListEqual([add(2, 3)], [5])",
}


@pytest.mark.parametrize("shape", sorted(UNITTEST_CALLS))
def test_a_unittest_assertion_is_judged_like_an_assert(tmp_path, shape):
    test = ("import unittest\n\nfrom pkg.calc import add\n\n\nclass TestAdd(unittest.TestCase):\n"
            f"    def test_add(self):\n        {UNITTEST_CALLS[shape]}\n        self.assertEqual(add(0, 0), 0)\n")
    run, verdict = score(tmp_path, TRANSIENT, test, expected=["tests/test_calc.py::TestAdd::test_add"])
    assert run.report is not None and [tc.outcome for tc in run.report.testcases] == ["passed"]  # the forgery...
    assert not verdict.passed and verdict.tampered, verdict.reasons
    assert "comparison pkg.calc.Exact." in findings(run) and "(at an assert)" in findings(run), findings(run)


FAILING_UNITTEST = '''
import unittest


def ten():
    return 10


class TestFails(unittest.TestCase):
    def test_equal(self):
        self.assertEqual(ten(), 11)

    def test_list(self):
        self.assertEqual([ten(), 1], [ten(), 2])

    def test_true(self):
        self.assertTrue(ten() > 11, "not above")

    def test_in(self):
        self.assertIn(ten(), {1: "a"})

    def test_almost(self):
        self.assertAlmostEqual(ten() / 3, 3.4, places=3)

    def test_dict(self):
        self.assertDictEqual({"a": ten()}, {"a": 1})

    def test_passes(self):
        self.assertEqual(ten(), 10)
        self.assertIsInstance(ten(), int)
'''


def test_a_failing_unittest_assertion_reads_the_same_as_under_plain_pytest(tmp_path):
    """The wrappers call unittest's own methods: the failures (message and traceback) read as under plain pytest, and
    no frame of the wrapper shows."""
    names = ["test_equal", "test_list", "test_true", "test_in", "test_almost", "test_dict", "test_passes"]
    ids = [f"tests/test_calc.py::TestFails::{n}" for n in names]
    run, verdict = score(tmp_path, "def add(a, b):\n    return a + b\n", FAILING_UNITTEST, expected=ids)
    assert run.canaries.ok and not verdict.tampered, (findings(run), run.stdout[-3000:])
    judged = {tc.name: (tc.outcome, tc.message) for tc in run.report.testcases}
    plain_xml = tmp_path / "plain.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
                    "-o", "addopts=", "-o", "junit_family=xunit1", f"--junitxml={plain_xml}", "tests"],
                   cwd=tmp_path / "repo", env=env, capture_output=True, check=False, timeout=120)
    plain = {tc.name: (tc.outcome, tc.message) for tc in parse_junit(plain_xml.read_bytes()).testcases}
    assert {n: judged[n] for n in names} == {n: plain[n] for n in names}
    assert judged["test_passes"][0] == "passed" and judged["test_equal"] == ("failed", "AssertionError: 10 != 11")
    report = (tmp_path / "report").glob("*.xml")
    assert "beacon unittest judge" not in "".join(path.read_text() for path in report)
