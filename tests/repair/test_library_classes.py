"""Honest library classes under the canary plugin's comparison judge (pandas, a project's metaclass), and the
attacks that the rules accepting them must still refuse (real pytest runs through ``run_pytest``).

Until session 19 a project that imported pandas during its run was ``tampered``: pandas' Cython-compiled classes
(``Infinity.__eq__``, ``NAType.__eq__`` are ``cython_function_or_method`` objects), its classes shown under the
package's name (``@set_module("pandas")``: ``Categorical.__module__ == "pandas"``, whose ``class`` statement is in
``pandas/core/arrays/categorical.py``) and its factory-made ABCs (``create_pandas_abc_type``: a classmethod of a
closure as ``__instancecheck__``) were judged like a class built by the code under test. pandas is a dependency of
Beacon, so these runs are real in CI too.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from beacon.repair.controls import snapshot_protected
from beacon.repair.pytest_runner import run_pytest, verify_run
from repotools import write_tree

pd = pytest.importorskip("pandas")  # a dependency of Beacon (pyproject.toml): present wherever the suite runs

SOURCE = "pkg/calc.py"
ADD_TEST = "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
BUGGY_TAIL = "\n\ndef add(a, b):\n    return S(a - b)\n"  # wrong; passes only if S(...) == 5 says yes

FRAME = (
    "import numpy as np\nimport pandas as pd\n\n\n"
    "def frame(n):\n"
    "    return pd.DataFrame({'a': np.arange(n), 'b': pd.Categorical(['x', 'y'] * (n // 2)),\n"
    "                         'c': pd.array([1, None] * (n // 2), dtype='Int64')})\n"
)
FRAME_TEST = (
    "import pandas as pd\nimport pytest\nfrom pandas.api.types import is_integer_dtype\n\nfrom pkg.calc import frame\n\n\n"
    "def test_frame():\n"
    "    df = frame(4)\n"
    "    assert len(df) == 4 and df.shape == (4, 3)\n"
    "    assert df['a'].sum() == 6\n"
    "    assert (df['a'] >= 0).all()\n"
    "    assert df['b'].cat.categories.tolist() == ['x', 'y']\n"
    "    assert df['b'][0] == 'x'\n"
    "    assert df['c'].isna().sum() == 2\n"
    "    assert df['c'][1] is pd.NA\n"
    "    assert isinstance(df, pd.DataFrame) and is_integer_dtype(df['c'])\n"
    "    pd.testing.assert_frame_equal(df, frame(4))\n"
    "    assert df.equals(frame(4))\n"
    "    assert pd.Timestamp('2020-01-01') < pd.Timestamp('2021-01-01')\n"
    "    assert pd.Interval(0, 1) == pd.Interval(0, 1)\n"
    "    assert pd.Period('2020-01') == pd.Period('2020-01')\n"
    "    assert pd.Timedelta('1D') > pd.Timedelta('1h')\n"
    "    assert pd.offsets.Day(1) == pd.offsets.Day(1)\n"
    "    assert pd.Series([1.0, 2.0]).tolist() == pytest.approx([1.0, 2.0])\n"
    "    assert df.index.equals(pd.RangeIndex(4))\n\n\n"
    "@pytest.mark.parametrize('n', [2, 6])\n"
    "def test_sizes(n):\n"
    "    assert frame(n)['b'].dtype == 'category'\n"
)


def score(tmp_path: Path, files: dict, expected: list[str], sources=(SOURCE,)):
    root = write_tree(tmp_path / "repo", {"pkg/__init__.py": "", **files})
    tests = [path for path in files if path.startswith("tests/")]
    run = run_pytest(root, ["tests"], protected=snapshot_protected(root, extra=tests), sandbox="off",
                     report_dir=tmp_path / "report", sources=sources)
    return run, verify_run(run, expected)


def test_a_suite_using_pandas_passes(tmp_path):
    """pandas' Cython classes, ``set_module`` classes, factory-made ABCs and ``pd.NA`` in asserts: all honest."""
    expected = ["tests/test_frame.py::test_frame", "tests/test_frame.py::test_sizes[2]",
                "tests/test_frame.py::test_sizes[6]"]
    run, verdict = score(tmp_path, {SOURCE: FRAME, "tests/test_frame.py": FRAME_TEST}, expected)
    assert verdict.passed and not verdict.tampered and run.canaries.ok, (verdict.reasons, run.canaries.reasons)


def test_a_classmethod_isinstance_hook_of_a_project_metaclass_passes(tmp_path):
    """``@classmethod def __instancecheck__`` is a ``def`` of the dunder's name (pandas' ``OffsetMeta`` has one);
    what it returns is the screen's business, like any ``def __eq__``."""
    kinds = ("class _Kinded(type):\n    @classmethod\n    def __instancecheck__(mcls, obj):\n"
             "        return hasattr(obj, 'kind')\n\n\nclass Kinded(metaclass=_Kinded):\n    pass\n")
    test = ("from pkg.calc import add\nfrom pkg.kinds import Kinded\n\n\nclass K:\n    kind = 1\n\n\n"
            "def test_kinds():\n    assert isinstance(K(), Kinded)\n    assert add(2, 3) == 5\n")
    files = {SOURCE: "def add(a, b):\n    return a + b\n", "pkg/kinds.py": kinds, "tests/test_kinds.py": test}
    run, verdict = score(tmp_path, files, ["tests/test_kinds.py::test_kinds"])
    assert verdict.passed and run.canaries.ok, (verdict.reasons, run.canaries.reasons)


# What the pandas rules accept is a library's own class; the same objects on a class of the code under test are not.
REUSED = {
    # Infinity.__ne__ is ``not isinstance(other, Infinity)``: True for 5, so S(-1) == 5 would pass
    "cython_method_under_another_name": ("import pandas._libs.algos as algos\n\n\nclass S(int):\n"
                                         "    __eq__ = algos.Infinity.__ne__\n", "the Cython function Infinity.__ne__"),
    "cython_method_as_a_classmethod": ("import pandas._libs.algos as algos\n\n\nclass S(int):\n"
                                       "    __eq__ = classmethod(algos.Infinity.__ne__)\n",
                                       "the Cython function Infinity.__ne__"),
    # the dunder's own name, another class's method (its qualname is not S.__eq__): Infinity.__gt__ would say that
    # S(-1) > 5
    "cython_method_of_another_class": ("import pandas._libs.algos as algos\n\n\nclass S(int):\n"
                                       "    __eq__ = algos.NegInfinity.__eq__\n",
                                       "the Cython function NegInfinity.__eq__"),
    # NAType's factory closure (named __eq__) on a class that is not the library's own
    "cython_factory_closure_on_a_project_class": ("from pandas.api.typing import NAType\n\n\nclass S(int):\n"
                                                  "    __eq__ = NAType.__dict__['__eq__']\n",
                                                  "the Cython function _create_binary_propagating_op.<locals>.method"),
    # a library closure under another name inside a classmethod, not an isinstance hook
    "library_closure_in_a_classmethod": ("from pandas.core.dtypes.generic import ABCSeries\n\n\nclass S(int):\n"
                                         "    __eq__ = type(ABCSeries).__dict__['__instancecheck__']\n",
                                         "a classmethod of pandas.core.dtypes.generic.create_pandas_abc_type.<locals>."
                                         "_instancecheck"),
    # red-team round 9, R9-2: a ``__code__`` named __eq__ planted on a class or a staticmethod (instance __dict__s)
    "planted_code_on_a_class": ("import fractions\n\n\nclass _Same(str):\n"
                                "    __code__ = fractions.Fraction.__eq__.__code__\n\n\nclass S(int):\n"
                                "    __eq__ = _Same\n", "a class (_Same)"),
    "planted_code_in_a_staticmethod": ("import fractions\n\n\nclass _Same(str):\n"
                                       "    __code__ = fractions.Fraction.__eq__.__code__\n\n\nclass S(int):\n"
                                       "    __eq__ = staticmethod(_Same)\n", "a staticmethod"),
    "planted_code_on_a_staticmethod": ("import fractions\n\n_inner = staticmethod(slice)\n"
                                       "_inner.__code__ = fractions.Fraction.__eq__.__code__\n\n\nclass S(int):\n"
                                       "    __eq__ = classmethod(_inner)\n", "a classmethod"),
}

# red-team round 9, R9-1: a class planted under a library's name with a decoy borrowed from the real class
PLANTED = {
    "borrowed_cython_decoy": ("import pandas\nimport pandas.core.common\nfrom pandas._libs import missing\n\n\n"
                              "class NAType(int):\n    __module__ = 'pandas'\n"
                              "    _decoy = vars(missing.NAType)['__repr__']\n"
                              "    __eq__ = pandas.core.common.not_none\n\n\npandas.NAType = NAType\n\n\n"
                              "def add(a, b):\n    return NAType(a - b)\n",
                              "comparison pandas.NAType.__eq__ is pandas.core.common.not_none, a function from outside "
                              "the checkout under another name"),
    "renamed_cython_closure": ("import pandas\nfrom pandas._libs.tslibs.nattype import NaTType\n\n"
                               "_f = vars(NaTType)['weekday']\n_f.__name__ = '__eq__'\n\n\n"
                               "class _make_nan_func(int):\n    __module__ = 'pandas'\n    __eq__ = _f\n\n\n"
                               "pandas._make_nan_func = _make_nan_func\n\n\n"
                               "def add(a, b):\n    return _make_nan_func(a - b)\n",
                               "comparison pandas._make_nan_func.__eq__ is the Cython function "
                               "_make_nan_func.<locals>.f"),
}


@pytest.mark.parametrize("shape", sorted(PLANTED))
def test_a_class_planted_under_a_library_name_is_tampering(tmp_path, shape):
    calc, finding = PLANTED[shape]
    run, verdict = score(tmp_path, {SOURCE: calc, "tests/test_calc.py": ADD_TEST}, ["tests/test_calc.py::test_add"])
    assert not verdict.passed and verdict.tampered, verdict.reasons
    assert finding in " ".join(run.canaries.reasons), run.canaries.reasons


@pytest.mark.parametrize("shape", sorted(REUSED))
def test_a_library_comparison_reused_by_the_code_under_test_is_tampering(tmp_path, shape):
    calc, finding = REUSED[shape]
    run, verdict = score(tmp_path, {SOURCE: calc + BUGGY_TAIL, "tests/test_calc.py": ADD_TEST},
                         ["tests/test_calc.py::test_add"])
    assert not verdict.passed and verdict.tampered, verdict.reasons
    assert f"comparison pkg.calc.S.__eq__ is {finding}" in " ".join(run.canaries.reasons), run.canaries.reasons


# ---- red-team round 9's false positives: importing these made an honest suite invalid ---------------------------

@pytest.mark.parametrize("module", [
    "matplotlib._image",  # pybind11 enums: an ``instancemethod`` around a C function named after the dunder
    "scipy.optimize",  # pybind11 too (HiGHS' enums)
    "flask",  # werkzeug's ``LocalProxy.__eq__ = _ProxyLookup(operator.eq)``: a library's own descriptor
    "trio",  # ``trio.Path``'s forwarded dunders, found under a module that is a ModuleType subclass
    # the session-19 false-positive sweep
    "pytz",  # a class made inside ``LazyList.__new__`` with the closures made there
    "sqlalchemy.dialects.postgresql",  # ``dataclass(slots=True)``'s replaced class, alive, with the same alias
    "django.utils.translation",  # ``lazy()``'s ``__proxy__`` class, made inside the function (gettext_lazy)
    "fontTools.varLib.varStore",  # ``ot.VarStore.__bool__ = VarStore___bool__`` (matplotlib's PDF backend)
])
def test_importing_a_library_keeps_an_honest_suite_passing(tmp_path, module):
    pytest.importorskip(module)  # all installed with Beacon's dev extras (pyproject.toml)
    use = ("from django.conf import settings\nsettings.configure()\nfrom django.utils.translation import gettext_lazy\n"
           "GREETING = gettext_lazy('hi')\n" if module.startswith("django") else "")
    test = f"import {module}\n{use}\nfrom pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    run, verdict = score(tmp_path, {SOURCE: "def add(a, b):\n    return a + b\n", "tests/test_calc.py": test},
                         ["tests/test_calc.py::test_add"])
    assert verdict.passed and run.canaries.ok, (verdict.reasons, run.canaries.reasons)


def test_a_project_comparing_through_functools_method_wrappers_passes(tmp_path):
    """``partialmethod`` and ``singledispatchmethod`` as comparison dunders in a project module: the functions they
    call are judged in their place."""
    money = ("import functools\nimport operator\n\n\nclass Money:\n    def __init__(self, cents):\n"
             "        self.cents = cents\n\n    def _compare(self, other, op):\n"
             "        return op(self.cents, other.cents)\n\n    __lt__ = functools.partialmethod(_compare, op=operator.lt)\n\n"
             "    @functools.singledispatchmethod\n    def __eq__(self, other):\n        return NotImplemented\n\n"
             "    @__eq__.register\n    def _(self, other: int):\n        return self.cents == other\n\n"
             "    __hash__ = None\n")
    test = ("from pkg.calc import add\nfrom pkg.money import Money\n\n\ndef test_money():\n"
            "    assert Money(1) < Money(2)\n    assert Money(add(2, 3)) == 5\n    assert not Money(1) == 2\n")
    files = {SOURCE: "def add(a, b):\n    return a + b\n", "pkg/money.py": money, "tests/test_money.py": test}
    run, verdict = score(tmp_path, files, ["tests/test_money.py::test_money"])
    assert verdict.passed and run.canaries.ok, (verdict.reasons, run.canaries.reasons)


WRAPPED = {
    # a registered implementation that says yes to every int, on a class of the declared file
    "singledispatch_registration": ("import functools\n\n\nclass S(int):\n    @functools.singledispatchmethod\n"
                                    "    def __eq__(self, other):\n        return NotImplemented\n\n"
                                    "    __eq__.register(int, lambda self, other: True)\n    __hash__ = int.__hash__\n",
                                    "S.__eq__ is <lambda> from pkg/calc.py"),
    "partialmethod_of_a_builtin": ("import functools\nimport operator\n\n\nclass S(int):\n"
                                   "    __eq__ = functools.partialmethod(operator.is_not, None)\n"
                                   "    __hash__ = int.__hash__\n", "S.__eq__ is the builtin is_not"),
    # pybind11's instancemethod of another class's C function
    "pybind11_method_reused": ("import matplotlib._image as image\n\n\nclass S(int):\n"
                               "    __eq__ = image._InterpolationType.__dict__['__ne__']\n",
                               "S.__eq__ is an instancemethod object"),
}


@pytest.mark.parametrize("shape", sorted(WRAPPED))
def test_a_wrapped_comparison_of_the_code_under_test_is_tampering(tmp_path, shape):
    calc, finding = WRAPPED[shape]
    run, verdict = score(tmp_path, {SOURCE: calc + BUGGY_TAIL, "tests/test_calc.py": ADD_TEST},
                         ["tests/test_calc.py::test_add"])
    assert not verdict.passed and verdict.tampered, verdict.reasons
    assert f"comparison pkg.calc.{finding}" in " ".join(run.canaries.reasons), run.canaries.reasons


def test_an_in_process_pytester_run_and_test_helpers_pass(tmp_path):
    """pytester's in-process run imports pytest's remaining modules and restores ``sys.modules`` (the wholesale watch
    now snapshots them all first); a test helper's ``staticmethod(lambda …)`` is what a plain lambda there may do."""
    test = ("pytest_plugins = ['pytester']\n\nfrom pkg.calc import add\n\n\nclass Sentinel:\n"
            "    __eq__ = staticmethod(lambda a, b=None: True)\n\n\ndef test_add(pytester):\n"
            "    pytester.makepyfile('def test_ok():\\n    pass\\n')\n"
            "    pytester.runpytest().assert_outcomes(passed=1)\n    assert Sentinel() == add(2, 3)\n")
    run, verdict = score(tmp_path, {SOURCE: "def add(a, b):\n    return a + b\n", "tests/test_calc.py": test},
                         ["tests/test_calc.py::test_add"])
    assert verdict.passed and run.canaries.ok, (verdict.reasons, run.canaries.reasons)


REBOUND = {  # a library's own descriptor rebound by the code under test (the sweep forged passes without the names)
    "descriptor_of_another_builtin": "setattr(wl.LocalProxy, '__eq__', wl._ProxyLookup(operator.is_not))\n",
    "descriptor_of_a_lambda": "setattr(wl.LocalProxy, '__eq__', wl._ProxyLookup(lambda s, o: True))\n",
}


@pytest.mark.parametrize("shape", sorted(REBOUND))
def test_a_library_descriptor_rebound_by_the_code_under_test_is_tampering(tmp_path, shape):
    pytest.importorskip("werkzeug")
    calc = ("import operator\nimport werkzeug.local as wl\n\n" + REBOUND[shape]
            + "\n\ndef add(a, b):\n    return wl.LocalProxy(lambda: a - b)\n")
    run, verdict = score(tmp_path, {SOURCE: calc, "tests/test_calc.py": ADD_TEST}, ["tests/test_calc.py::test_add"])
    assert not verdict.passed and verdict.tampered, verdict.reasons
    assert "comparison werkzeug.local.LocalProxy.__eq__ is a _ProxyLookup object" in " ".join(run.canaries.reasons)


def test_a_library_function_named_for_its_class_on_a_project_class_is_tampering(tmp_path):
    """fontTools' ``VarStore___bool__`` is accepted on fontTools' own ``VarStore`` only: on a class of the checkout
    under the same name it is a function from outside the checkout under another name."""
    pytest.importorskip("fontTools.varLib.varStore")
    calc = ("from fontTools.varLib import varStore\n\n\nclass VarStore(int):\n"
            "    __bool__ = varStore.VarStore___bool__\n\n\ndef add(a, b):\n    return VarStore(a + b)\n")
    run, verdict = score(tmp_path, {SOURCE: calc, "tests/test_calc.py": ADD_TEST}, ["tests/test_calc.py::test_add"])
    assert not verdict.passed and verdict.tampered, verdict.reasons
    assert ("comparison pkg.calc.VarStore.__bool__ is fontTools.varLib.varStore.VarStore___bool__, a function from "
            "outside the checkout under another name") in " ".join(run.canaries.reasons), run.canaries.reasons
