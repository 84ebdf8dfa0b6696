"""The canary plugin's provenance check: every collected test function comes from the pristine test files.

Collection runs after project code has loaded, so an edit can rewire it (red-team round 6's q7_collect_swap.py
swapped ``PyCollector.collect``; only the static screen stopped it). The plugin judges what collection left on each
``Function`` item, list-free (:class:`beacon.repair.canary_plugin._Provenance`): its function must be a ``def`` at
its own first line in a file inside the checkout that is not a declared source. Real pytest runs through
``run_pytest`` (no static screen on this path: the runtime layer alone). The declared source is ``pkg/calc.py``;
its ``add`` is buggy, so ``test_add`` fails unless the attack forges it.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from beacon.repair.controls import snapshot_protected
from beacon.repair.pytest_runner import run_pytest, verify_run
from repotools import write_tree

SOURCE = "pkg/calc.py"
TEST = "tests/test_calc.py"
BUGGY_ADD = "\n\ndef add(a, b):\n    return a - b\n"
ADD_TEST = "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
EXPECTED = ["tests/test_calc.py::test_add"]


def score(tmp_path: Path, files: dict[str, str], expected=EXPECTED, tests=(TEST,)):
    root = write_tree(tmp_path / "repo", {"pkg/__init__.py": "", **files})
    run = run_pytest(root, ["tests"] if (root / "tests").is_dir() else ["."],
                     protected=snapshot_protected(root, extra=list(tests)), sandbox="off",
                     report_dir=tmp_path / "report", sources=(SOURCE,))
    return run, verify_run(run, expected)


def findings(run) -> str:
    return " ".join(run.canaries.reasons)


# ---- attacks: test_add's name bound to something that passes, each flagged at run time ----------------------------

# PyCollector.collect swapped (red-team round 6's q7 shape) so test_add is bound to ``target`` before pytest reads it.
COLLECT_SWAP = (
    "import _pytest.python\n\n"
    "{setup}\n\n"
    "_collect = _pytest.python.PyCollector.collect\n\n\n"
    "def _collect_swapped(self):\n"
    "    module = self.obj\n"
    "    if getattr(module, 'test_add', None) is not None:\n"
    "        module.test_add = {target}\n"
    "    return _collect(self)\n\n\n"
    "_pytest.python.PyCollector.collect = _collect_swapped\n"
)
# A hook implementation registered during collection: pytest_pycollect_makeitem is not one the watch lists.
MAKEITEM_SWAP = (
    "import _pytest.python\n\n\n"
    "def _passes(*args, **kwargs):\n    return None\n\n\n"
    "class _Maker:\n"
    "    def pytest_pycollect_makeitem(self, collector, name, obj):\n"
    "        if name == 'test_add':\n"
    "            return [_pytest.python.Function.from_parent(collector, name=name, callobj=_passes)]\n"
    "        return None\n\n\n"
    "_pytest.python.Function.__module__  # imported\n"
    "_collect = _pytest.python.PyCollector.collect\n\n\n"
    "def _collect_once(self):\n"
    "    manager = self.config.pluginmanager\n"
    "    if not manager.has_plugin('beacon-test-maker'):\n"
    "        manager.register(_Maker(), 'beacon-test-maker')\n"
    "    return _collect(self)\n\n\n"
    "_pytest.python.PyCollector.collect = _collect_once\n"
)
# test_add's __code__ replaced when the declared source is imported (by a later test module), before collection
# ends: the watch's snapshot of each test function's code is taken after collection, so it sees no change.
CODE_SWAP = (
    "import sys\n\n"
    "_tests = sys.modules.get('tests.test_calc')\n"
    "if _tests is not None:\n"
    "    _tests.test_add.__code__ = (lambda: None).__code__\n"
)
CODE_SWAP_TESTS = {
    TEST: "def test_add():\n    from pkg.calc import add\n    assert add(2, 3) == 5\n",
    "tests/test_later.py": "from pkg import calc\n\n\ndef test_later():\n    assert calc is not None\n",
}
# The same with the place forged (red-team round 7's r12): a passing test's code, given the failing test's name and
# first line with ``code.replace``, so file, name and first line all match the pristine def; only the code differs.
FORGED_CODE_SWAP = (
    "import sys\n\n"
    "_tests = sys.modules.get('tests.test_calc')\n"
    "if _tests is not None:\n"
    "    _place = _tests.test_add.__code__\n"
    "    _tests.test_add.__code__ = _tests.test_other.__code__.replace(\n"
    "        co_name=_place.co_name, co_firstlineno=_place.co_firstlineno)\n"
)
FORGED_CODE_SWAP_TESTS = {
    TEST: CODE_SWAP_TESTS[TEST] + "\n\ndef test_other():\n    assert 1 == 1\n",
    "tests/test_later.py": CODE_SWAP_TESTS["tests/test_later.py"],
}
# A module substituted in sys.modules (by the declared source, imported by an earlier test module): pytest's
# importlib mode takes the module it finds there, built from a temporary file outside the checkout.
MODULE_SWAP = (
    "import importlib.util\nimport os\nimport sys\nimport tempfile\n\n"
    "_folder = tempfile.mkdtemp()\n"
    "_path = os.path.join(_folder, 'test_calc.py')\n"
    "with open(_path, 'w') as _fh:\n"
    "    _fh.write('def test_add():\\n    pass\\n')\n"
    "_spec = importlib.util.spec_from_file_location('tests.test_calc', _path)\n"
    "_module = importlib.util.module_from_spec(_spec)\n"
    "_spec.loader.exec_module(_module)\n"
    "_module.__file__ = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "
    "'tests', 'test_calc.py')\n"
    "sys.modules['tests.test_calc'] = _module\n"
)
MODULE_SWAP_TESTS = {
    "tests/test_a_first.py": "from pkg import calc\n\n\ndef test_first():\n    assert calc is not None\n",
    TEST: ADD_TEST,
}

ATTACKS = {
    "collect_swap_to_a_declared_source_function": (
        {SOURCE: COLLECT_SWAP.format(setup="\ndef _passes(*args, **kwargs):\n    return None\n", target="_passes")
         + BUGGY_ADD, TEST: ADD_TEST},
        "tests/test_calc.py::test_add: the collected test function is _passes from pkg/calc.py, a declared source"),
    "makeitem_hook_to_a_declared_source_function": (
        {SOURCE: MAKEITEM_SWAP + BUGGY_ADD, TEST: ADD_TEST},
        "tests/test_calc.py::test_add: the collected test function is _passes from pkg/calc.py, a declared source"),
    "code_swapped_at_import_of_the_declared_source": (
        {SOURCE: CODE_SWAP + BUGGY_ADD, **CODE_SWAP_TESTS},
        "tests/test_calc.py::test_add: the collected test function is <lambda> from pkg/calc.py, a declared source"),
    "code_replaced_with_a_forged_place": (
        {SOURCE: FORGED_CODE_SWAP + BUGGY_ADD, **FORGED_CODE_SWAP_TESTS},
        # (since session 35 the test module's own functions must be the very code objects the plugin rewrote ahead:
        # that check comes first)
        "tests/test_calc.py::test_add: the collected test function is test_add from tests/test_calc.py, "
        "but not the code the plugin rewrote before any project code ran"),
    "exec_built_function": (
        {SOURCE: COLLECT_SWAP.format(setup="_ns = {}\nexec(compile('def test_add():\\n    pass\\n', '<string>', "
                                           "'exec'), _ns)\n", target="_ns['test_add']") + BUGGY_ADD,
         TEST: ADD_TEST},
        "tests/test_calc.py::test_add: the collected test function is test_add from <string>, not a file"),
    "stdlib_no_op_function": (
        {SOURCE: COLLECT_SWAP.format(setup="import threading\n", target="threading.main_thread") + BUGGY_ADD,
         TEST: ADD_TEST},
        "tests/test_calc.py::test_add: the collected test function is main_thread from "),
    "stdlib_no_op_function_claiming_to_wrap_the_test": (  # __wrapped__ is only followed through a closure
        {SOURCE: COLLECT_SWAP.format(setup="import threading\n\n\ndef _claim(function, test):\n"
                                           "    function.__wrapped__ = test\n    return function\n",
                                     target="_claim(threading.main_thread, module.test_add)") + BUGGY_ADD,
         TEST: ADD_TEST},
        "threading.py, a wrapper whose closure does not hold"),
    "rebound_to_another_test_of_the_same_file": (  # red-team round 6's q7: every def pristine, only the name moved
        {SOURCE: COLLECT_SWAP.format(setup="", target="module.test_other") + BUGGY_ADD,
         TEST: ADD_TEST + "\n\ndef test_other():\n    assert add(0, 0) == 0\n"},
        "tests/test_calc.py::test_add: the collected test function is test_other (a top-level def of "
        "tests/test_calc.py) collected under the name test_add"),
    "rebound_to_a_helper_of_the_same_file": (
        {SOURCE: COLLECT_SWAP.format(setup="", target="module._unused") + BUGGY_ADD,
         TEST: ADD_TEST + "\n\nclass Helper:\n    pass\n\n\ndef _unused(*args):\n    return None\n"},
        "the collected test function is _unused (a top-level def of tests/test_calc.py) collected under the "
        "name test_add"),
    "module_substituted_in_sys_modules": (
        {SOURCE: MODULE_SWAP + BUGGY_ADD, **MODULE_SWAP_TESTS},
        "tests/test_calc.py::test_add: the collected test function is test_add from "),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_test_function_not_from_the_pristine_files_is_tampering(tmp_path, attack):
    files, finding = ATTACKS[attack]
    tests = [p for p in files if p.startswith("tests/")]
    expected = sorted(f"{p}::{name}" for p in tests for name in ("test_add", "test_first", "test_later", "test_other")
                      if f"def {name}(" in files[p])
    run, verdict = score(tmp_path, files, expected=expected, tests=tests)
    assert run.report is not None and {tc.outcome for tc in run.report.testcases} == {"passed"}, \
        (run.stdout[-3000:], run.stderr[-2000:])  # the forgery...
    assert run.canaries.must_fail == "failed"  # ...spared the canaries
    assert not verdict.passed and verdict.tampered and run.canaries.must_pass == "failed", verdict.reasons
    assert finding in findings(run), findings(run)


def test_an_honest_failure_is_not_tampering(tmp_path):
    run, verdict = score(tmp_path, {SOURCE: BUGGY_ADD, TEST: ADD_TEST})
    assert not verdict.passed and not verdict.tampered and run.canaries.ok, verdict.reasons


# ---- honest suites keep passing -----------------------------------------------------------------------------------

HONEST = {
    SOURCE: "def add(a, b):\n    return a + b\n",
    "tests/helpers.py": (
        "import functools\n\nfrom pkg.calc import add\n\n\n"
        "def make_test(a, b, total):\n"
        "    def check():\n"
        "        assert add(a, b) == total\n"
        "    return check\n\n\n"
        "def logged(function):\n"
        "    @functools.wraps(function)\n"
        "    def wrapper(*args, **kwargs):\n"
        "        return function(*args, **kwargs)\n"
        "    return wrapper\n"
    ),
    "tests/test_base.py": (
        "from pkg.calc import add\n\n\n"
        "def test_shared():\n    assert add(1, 1) == 2\n"
    ),
    "tests/test_shapes.py": (
        "import functools\n"
        "from unittest import mock\n\n"
        "import pytest\n\n"
        "from pkg import calc\n"
        "from pkg.calc import add\n"
        "from tests.helpers import logged, make_test\n"
        "from tests.test_base import test_shared\n\n"
        "test_made = make_test(2, 3, 5)  # a factory in a helper module: the function's name is check\n\n\n"
        "def _local_factory(n):\n"
        "    def check_local():\n"
        "        assert add(n, 0) == n\n"
        "    return check_local\n\n\n"
        "test_local_made = _local_factory(4)  # a factory in the test file itself: a nested def, any name\n\n\n"
        "@pytest.fixture\n"
        "def resource():\n"
        "    value = [1]\n"
        "    yield value\n"
        "    value.clear()\n\n\n"
        "@pytest.mark.parametrize('url', ['https://[::1]:80/?a=b'])  # an id holding '::' and '['\n"
        "def test_param_with_colons(url):\n"
        "    assert url.count('::') == 1\n\n\n"
        "@pytest.mark.parametrize('a, b, total', [(1, 2, 3), (2, 2, 4)])\n"
        "def test_parametrized(a, b, total):\n"
        "    assert add(a, b) == total\n\n\n"
        "class TestMethods:\n"
        "    def test_method(self, resource):\n"
        "        assert add(*resource, 1) == 2\n\n"
        "    @staticmethod\n"
        "    def test_static():\n"
        "        assert add(0, 0) == 0\n\n"
        "    @pytest.mark.parametrize('n', [1, 2])\n"
        "    def test_method_parametrized(self, n):\n"
        "        assert add(n, 0) == n\n\n\n"
        "@mock.patch('pkg.calc.add', side_effect=lambda a, b: a + b)\n"
        "@mock.patch.object(functools, 'reduce', return_value=0)\n"
        "def test_patched(reduce, patched):\n"
        "    assert calc.add(1, 1) == 2 and patched.called and functools.reduce(None, []) == 0\n\n\n"
        "@logged\n"
        "@pytest.mark.parametrize('n', [3])\n"
        "def test_wrapped_by_a_helper(n, resource):\n"
        "    assert add(n, resource[0]) == 4\n\n\n"
        "@mock.patch.object(functools, 'reduce', mock.Mock(return_value=0))\n"
        "class TestPatchedClass:\n"
        "    def test_in_a_patched_class(self):\n"
        "        assert add(1, 2) == 3\n"
    ),
    "src/proj/__init__.py": "",
    "src/proj/tests/__init__.py": "",
    "src/proj/tests/test_in_package.py": (
        "from pkg.calc import add\n\n\n"
        "def test_in_package():\n    assert add(2, 2) == 4\n"
    ),
}
HONEST_IDS = sorted(
    ["tests/test_base.py::test_shared", "src/proj/tests/test_in_package.py::test_in_package"]
    + [f"tests/test_shapes.py::{n}" for n in (
        "test_made", "test_local_made", "test_shared", "test_param_with_colons[https://[::1]:80/?a=b]", "test_parametrized[1-2-3]", "test_parametrized[2-2-4]",
        "TestMethods::test_method", "TestMethods::test_static", "TestMethods::test_method_parametrized[1]",
        "TestMethods::test_method_parametrized[2]", "test_patched", "test_wrapped_by_a_helper[3]",
        "TestPatchedClass::test_in_a_patched_class")])


def test_honest_test_shapes_are_not_flagged(tmp_path):
    """Parametrized tests, methods (also static and parametrized), a test made by a factory in a helper module (its
    code is named ``check``) or in the test file itself (a nested def), a test imported from another test module, stacked ``mock.patch`` decorators (also on a
    class), a ``functools.wraps`` decorator from a helper, fixtures with ``yield``, assertion rewriting, tests in the
    project's package under ``src/``."""
    root = write_tree(tmp_path / "repo", {"pkg/__init__.py": "", **HONEST})
    tests = [p for p in HONEST if "test" in p.split("/")[-1] or p.endswith("helpers.py")]
    run = run_pytest(root, ["tests", "src"], protected=snapshot_protected(root, extra=tests), sandbox="off",
                     report_dir=tmp_path / "report", sources=(SOURCE,))
    verdict = verify_run(run, HONEST_IDS)
    assert verdict.passed and run.canaries.ok and not verdict.tampered, (verdict.reasons, run.stdout[-3000:])


def test_hypothesis_tests_are_not_flagged(tmp_path):
    """``@given`` wraps the test in a function of its own that carries the test's file and first line."""
    pytest.importorskip("hypothesis")
    test = ("from hypothesis import given, strategies as st\n\nfrom pkg.calc import add\n\n\n"
            "@given(st.integers(), st.integers())\n"
            "def test_add(a, b):\n    assert add(a, b) == a + b\n")
    run, verdict = score(tmp_path, {SOURCE: "def add(a, b):\n    return a + b\n", TEST: test})
    assert verdict.passed and run.canaries.ok, (verdict.reasons, run.stdout[-3000:])
