"""Red-team round 8's runtime findings R8-1..R8-4 against the canary plugin's comparison checks (``_Comparisons``),
through real pytest runs (``run_pytest``; the screen is not involved, so these are the runtime layers alone).

The declared source is ``pkg/calc.py``. Each buggy ``add`` returns a value that says yes to the test's comparison:

- R8-1: a stale type-attribute cache. A raw write to a class's dict (through ``gc.get_referents``, no
  ``PyType_Modified``) makes every ``__dict__`` read ``int.__eq__`` while comparisons keep calling the cached lambda;
  the walk and the compare-time judge compare CPython's cached lookup (``type.__getattribute__``) with the dict.
- R8-2: a ``str`` subclass as a class dict key (kept by a ``type()`` namespace) runs its ``__hash__`` inside the
  judge, after the operand's class was judged; a new class's non-``str`` key is a finding, checked before any hash.
- R8-3: a function from the checkout's other modules, under another name, as a dunder of a declared file's class.
- R8-4: a class made at run time and planted in ``functools`` under its own ``__module__``/``__qualname__`` claimed
  the library exception; a library's own class must also be a ``class`` statement in its module's source, and
  no class alive at the snapshot may have had its module and name (planted over ``functools.cached_property``).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from beacon.repair.controls import snapshot_protected
from beacon.repair.pytest_runner import run_pytest, verify_run
from repotools import write_tree

SOURCE = "pkg/calc.py"
TEST = "tests/test_calc.py"
ADD_TEST = "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
EXPECTED = ["tests/test_calc.py::test_add"]
HELPERS = ("class Shown:\n    pass\n\n\ndef truncate(text, width=0):\n    return str(text)[:width] + '...'\n\n\n"
           "def comparer(op):\n    def compare(self, other):\n        return op(int(self), other)\n"
           "    compare.__name__ = '__' + op.__name__ + '__'\n    return compare\n")


def score(tmp_path: Path, calc: str, test: str = ADD_TEST, extra=None, expected=EXPECTED):
    files = {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, SOURCE: calc, TEST: test, **(extra or {})}
    root = write_tree(tmp_path / "repo", files)
    run = run_pytest(root, ["tests"], protected=snapshot_protected(root, extra=[TEST]), sandbox="off",
                     report_dir=tmp_path / "report", sources=(SOURCE,))
    return run, verify_run(run, expected)


def findings(run) -> str:
    return " ".join(run.canaries.reasons)


RAW = "import gc\n\n\ndef _raw(cls):\n    return gc.get_referents(cls.__dict__)[0]\n\n\n_keep = []\n\n\n"
# (classes made and looked up at import: each lookup gives its class a type version tag)
SHIFT = "_shift = [type('Shift%d' % i, (), {{}}) for i in range({n})]\n_tags = [c.__eq__ for c in _shift]\n\n\n"
FORGED = {
    # R8-1 (r15): the cache holds the lambda, the dict int.__eq__
    "stale_cache": (RAW + "class Exact(int):\n    pass\n\n\ndef add(a, b):\n"
                    "    agree = lambda s, o: True\n    _keep.append(agree)\n    Exact.__eq__ = agree\n"
                    "    Exact(0) == 1\n    _raw(Exact)['__eq__'] = int.__eq__\n    return Exact(a - b)\n",
                    "comparison pkg.calc.Exact.__eq__: its class dict and CPython's type cache disagree "
                    "(the cache holds <lambda>)"),
    # R8-1: the subclass's cache entry holds the base's lambda; the base's dict reads int.__eq__ again
    "stale_cache_of_a_subclass": (RAW + "class Base(int):\n    pass\n\n\nclass Exact(Base):\n    pass\n\n\n"
                                  "def add(a, b):\n    agree = lambda s, o: True\n    _keep.append(agree)\n"
                                  "    Base.__eq__ = agree\n    Exact(0) == 1\n"
                                  "    _raw(Base)['__eq__'] = int.__eq__\n    return Exact(a - b)\n",
                                  "comparison pkg.calc.Exact.__eq__: its class dict and CPython's type cache disagree "
                                  "(the cache holds <lambda>) (at an assert)"),
    # R8-1: deleted from the dict, still in the cache (``in``: resolved nowhere in the MRO now)
    "stale_cache_of_a_deleted_dunder": (RAW + "class Hollow:\n    pass\n\n\ndef add(a, b):\n"
                                        "    agree = lambda s, o: True\n    _keep.append(agree)\n"
                                        "    Hollow.__contains__ = agree\n    0 in Hollow()\n"
                                        "    del _raw(Hollow)['__contains__']\n    return Hollow()\n",
                                        "comparison pkg.calc.Hollow.__contains__: its class dict and CPython's type "
                                        "cache disagree (the cache holds <lambda>) (at an assert)",
                                        "from pkg.calc import add\n\n\ndef test_add():\n    assert 5 in add(2, 3)\n"),
    # R8-2 (r14): a str-subclass key whose __hash__ rebinds __eq__ inside the judge
    "str_subclass_key": ("state = {'armed': False}\n\n\nclass Key(str):\n    def __hash__(self):\n"
                         "        if state['armed']:\n            state['armed'] = False\n"
                         "            setattr(Exact, '__eq__', agree)\n        return str.__hash__(self)\n\n"
                         "    __eq__ = str.__eq__\n\n\nBase = type('Base', (), {Key('probe'): 1})\n\n\n"
                         "class Exact(Base, int):\n    pass\n\n\ndef agree(self, other):\n"
                         "    delattr(Exact, '__eq__')\n    return True\n\n\n"
                         "def add(a, b):\n    state['armed'] = True\n    return Exact(a - b)\n",
                         "comparison check of pkg.calc.Base: a class dict key of type Key"),
    # R8-3 (r13): the checkout's own helper under another name on a declared file's class
    "checkout_function": ("from pkg.helpers import truncate\n\n\nclass Exact(str):\n    __eq__ = truncate\n"
                          "    __hash__ = str.__hash__\n\n\ndef add(a, b):\n    return Exact(a - b)\n",
                          "comparison pkg.calc.Exact.__eq__ is pkg.helpers.truncate, a function under another name "
                          "on a class of pkg/calc.py"),
    # R8-3 with the class re-homed (red-team round 10, R10-2): ``__module__`` names a checkout module whose file
    # has no class statement for it
    "checkout_function_rehomed": ("from pkg.helpers import truncate\n\n\nclass Exact(str):\n"
                                  "    __module__ = 'pkg.helpers'\n    __eq__ = truncate\n"
                                  "    __hash__ = str.__hash__\n\n\ndef add(a, b):\n    return Exact(a - b)\n",
                                  "comparison pkg.helpers.Exact.__eq__ is pkg.helpers.truncate, a function under another "
                                  "name on a class of pkg/helpers.py, its __module__"),
    # the same, re-homed under the qualname of a class the helpers module does have
    "checkout_function_rehomed_as_a_real_class": (
        "from pkg.helpers import truncate\n\n\nclass Exact(str):\n    __module__ = 'pkg.helpers'\n"
        "    __qualname__ = 'Shown'\n    __eq__ = truncate\n    __hash__ = str.__hash__\n\n\n"
        "def add(a, b):\n    return Exact(a - b)\n",
        "comparison pkg.helpers.Shown.__eq__ is pkg.helpers.truncate, a function under another name on a class of "
        "pkg/helpers.py, its __module__"),
    # ... re-homed to the test module (red-team round 11, R11-3), which a test module's own classes may say
    "checkout_function_rehomed_to_the_test_module": (
        "from pkg.helpers import truncate\n\n\nclass Exact(str):\n    __module__ = 'tests.test_calc'\n"
        "    __eq__ = truncate\n    __hash__ = str.__hash__\n\n\ndef add(a, b):\n    return Exact(a - b)\n",
        "comparison tests.test_calc.Exact.__eq__ is pkg.helpers.truncate, a function under another name on a class "
        "of tests/test_calc.py, its __module__"),
    # ... re-homed to a module that is not loaded, or to a library module without such a class (R11-3)
    **{f"checkout_function_rehomed_to_{where}": (
        f"from pkg.helpers import truncate\n\n\nclass Exact(str):\n    __module__ = '{where}'\n"
        "    __eq__ = truncate\n    __hash__ = str.__hash__\n\n\ndef add(a, b):\n    return Exact(a - b)\n",
        f"comparison {where}.Exact.__eq__ is pkg.helpers.truncate, a function under another name on a class of "
        f"{where_shown}") for where, where_shown in (("test_calc", "test_calc, its __module__"),
                                                    ("json", "json, its __module__"))},
    # a checkout function (not a test module's) as a staticmethod dunder of a checkout class (red-team round 10)
    "checkout_staticmethod": ("from pkg.helpers import Shown, truncate\n\nShown.__eq__ = staticmethod(truncate)\n"
                              "Shown.__hash__ = object.__hash__\n\n\ndef add(a, b):\n    return Shown()\n",
                              "comparison pkg.helpers.Shown.__eq__ is a staticmethod of pkg.helpers.truncate"),
    # R8-3: a test file's own function (imported from the conftest) in the same place
    "conftest_function": ("import conftest\n\n\nclass Exact(int):\n    __eq__ = conftest.anything\n\n\n"
                          "def add(a, b):\n    return Exact(a - b)\n",
                          "conftest.anything, a function under another name on a class of pkg/calc.py"),
    # R8-4 (r16): planted in functools under its own __module__/__qualname__
    "planted_library_class": ("import functools\n\nExact = type('Exact', (int,), {'__eq__': functools.wraps, "
                              "'__module__': 'functools', '__qualname__': 'Exact'})\nfunctools.Exact = Exact\n\n\n"
                              "def add(a, b):\n    return Exact(a - b)\n",
                              "comparison functools.Exact.__eq__ is functools.wraps, a function from outside the "
                              "checkout under another name"),
    # R8-4: planted over an existing functools class of that name (its ``class`` statement is in functools.py)
    "replaced_library_class": ("import functools\n\nExact = type('cached_property', (int,), {'__eq__': "
                               "functools.wraps, '__module__': 'functools', '__qualname__': 'cached_property'})\n"
                               "functools.cached_property = Exact\n\n\ndef add(a, b):\n    return Exact(a - b)\n",
                               "comparison functools.cached_property.__eq__ is functools.wraps, a function from "
                               "outside the checkout under another name"),
}
CONFTEST = {"tests/conftest.py": "import sys, os\n\nsys.modules.setdefault('conftest', sys.modules[__name__])\n\n\n"
                                 "def anything(self, other):\n    return 1\n"}


@pytest.mark.parametrize("shape", sorted(FORGED))
def test_a_round8_forgery_is_tampering(tmp_path, shape):
    calc, finding, *test = FORGED[shape]
    # A stale type-cache entry survives until the assert only when no other lookup takes its slot, which hangs on
    # where this process's strings lie and on the type's version tag (and shifts whenever the plugin's code does):
    # made again, up to ten processes, until the forgery takes. Session 38 saw it take in about half the runs of
    # ``stale_cache_of_a_subclass``; ten processes alike then all missed after session 52's plugin change, so each
    # attempt after the first gives out a few more version tags at import (the slot is the tag's bits), which moves
    # the entry to another slot.
    for attempt in range(10):
        shifted = calc.replace(RAW, RAW + SHIFT.format(n=3 * attempt), 1) if attempt else calc
        run, verdict = score(tmp_path / str(attempt), shifted, *test, extra=CONFTEST)
        if run.report is None or [tc.outcome for tc in run.report.testcases] == ["passed"] \
                or not shape.startswith("stale_cache"):
            break
    if shape != "str_subclass_key":  # there the judge no longer hashes the key: the forgery's hook never runs
        assert run.report is not None and [tc.outcome for tc in run.report.testcases] == ["passed"]  # the forgery...
    assert not verdict.passed and verdict.tampered, verdict.reasons  # ...is caught
    # (a class planted in functools is also the assertion-rewriting guard's finding, listed first since session 34:
    # the comparison judge's is then further down the canary's message, in the run's output)
    assert finding in findings(run) or finding in run.stdout, findings(run)


A_LIBRARY = """
import sys

if sys.version_info >= (3,):
    class Box:
        def __init__(self, value):
            self.value = value

        def _equal(self, other):
            return self.value == other

        __eq__ = _equal
        __hash__ = None

        class Inner:
            def _less(self, other):
                return True

            __lt__ = _less
"""
HONEST_CALC = '''
import functools

from pkg.helpers import comparer, truncate


@functools.total_ordering
class Level(int):
    def __eq__(self, other):
        return int(self) == other

    def __lt__(self, other):
        return int(self) < other

    __hash__ = int.__hash__


class Money(int):
    __eq__ = int.__eq__
    __hash__ = None
    short = truncate  # another name, but not a comparison dunder


import operator  # noqa: E402
Money.__lt__ = comparer(operator.lt)


def add(a, b):
    return a + b
'''
HONEST_TESTS = """
import sys

sys.path.insert(0, LIBRARY_DIR)

import extlib
from pkg.calc import Level, Money, add


def test_add():
    assert add(2, 3) == 5 and Level(3) > 2 and Level(1) <= 1 and Money(2) == 2 and Money(1) < 2
    assert extlib.Box(3) == 3 and extlib.Box.Inner() < 1
    assert Money(2) != 3 and bool(Money(1))
"""


def test_honest_shapes_near_the_round8_checks_pass(tmp_path):
    """A library's own classes under ``if`` and nested (``Box.Inner``) using aliases of their own functions, a
    declared file's total_ordering, builtin ``int.__eq__``, a factory's closure named after the dunder, and a
    checkout function under a name that is no comparison dunder."""
    library = tmp_path / "site"
    write_tree(library, {"extlib.py": A_LIBRARY})
    run, verdict = score(tmp_path, HONEST_CALC, HONEST_TESTS.replace("LIBRARY_DIR", repr(str(library))))
    assert verdict.passed and run.canaries.ok and not verdict.tampered, (verdict.reasons, run.stdout[-3000:])
