"""Pristine parts the oracle rebuilds around pristine code, so honest repairs of common shapes are judged, not refused.

Session 37's second false-positive hunt left honest repairs read ``tampered`` whenever the pristine call had to go
back through a name the edit touched: a memoized recursive def (``@lru_cache`` ``fib`` calls ``fib``), a recursive
def under a kept decorator (``functools.wraps``' ``inner``), a module-level ``lambda`` or dispatch table, and a lazy
singleton (``global _engine``) whose pristine call's own binding the swap's undo erased before the comparison read it.
Each is now rebuilt from pristine parts (``canary_plugin._fresh_cache``, ``_Oracle._rewrapped``, ``oracle_defs``'
``lambda`` and ``table`` bindings, ``_Oracle.bound_by_call``). Each rebuilt part is also shown to still refuse a
rigged repair of the same shape: the rebuilt pristine code answers, and the rigged answer differs from it. Real
pytest runs on a real tree (``score``: the oracle on, the sandbox off).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from beacon.repair.oracle_defs import oracle_defs
from repotools import case_run, oracle_findings as findings, oracle_run as score

IDS = ["tests/test_stock.py::test_a"]
# An object every comparison agrees with: what a rigged repair hands a test whose assert it wants to pass
ANY = "\n\nclass _Any:\n    def __eq__(self, other):\n        return True\n"

FIB = ("import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef fib(n):\n    if n < 2:\n        return n\n"
       "    return fib(n - 1) + fib(n - 2)\n")
FACT = "from functools import cache\n\n\n@cache\ndef fact(n):\n    return 1 if n == 0 else n * fact(n - 1)\n"
DEPTH = ("import functools\n\n\ndef logged(f):\n    @functools.wraps(f)\n    def inner(*a, **k):\n        return f(*a, **k)\n"
         "    return inner\n\n\n@logged\ndef depth(x):\n    if not isinstance(x, list):\n        return 0\n"
         "    return 1 + max([depth(y) for y in x], default=0)\n")
ENGINE = ("class Engine:\n    def __init__(self):\n        self.rate = 2\n\n    def run(self, x):\n        return x * self.rate\n\n\n"
          "_engine = None\n\n\ndef get_engine():\n    global _engine\n    if _engine is None:\n        _engine = Engine()\n"
          "    return _engine\n\n\ndef compute(x):\n    return get_engine().run(x)\n")
DOUBLE = "double = lambda x: x * 2\n\n\ndef quad(x):\n    return double(double(x))\n"
OPS = ("def _add(a, b):\n    return a + b\n\n\ndef _sub(a, b):\n    return a - b\n\n\n"
       "OPS = {'+': _add, '-': _sub}\n\n\ndef apply(op, a, b):\n    return OPS[op](a, b)\n")

# name -> (pristine, the given mutant, the honest repair, a rigged repair, the test)
SHAPES = {
    "lru_cache_recursion": (
        FIB, FIB.replace("return n\n", "return 1\n"), FIB.replace("if n < 2:", "if n <= 1:"),
        FIB.replace("if n < 2:", "if n == 10:\n        return _Any()\n    if n < 2:") + ANY,
        "from pkg.stock import fib\n\n\ndef test_a():\n    assert fib(10) == 55\n"),
    "cache_recursion": (
        FACT, FACT.replace("n * fact(n - 1)", "n * fact(n - 2 if n > 1 else 0)"),
        FACT.replace("return 1 if n == 0 else n * fact(n - 1)", "if n == 0:\n        return 1\n    return n * fact(n - 1)"),
        FACT.replace("return 1 if n == 0", "return _Any() if n == 6 else 1 if n == 0") + ANY,
        "from pkg.stock import fact\n\n\ndef test_a():\n    assert fact(6) == 720\n"),
    "kept_decorator_recursion": (
        DEPTH, DEPTH.replace("default=0)", "default=1)"), DEPTH.replace("max([depth(y) for y in x]", "max((depth(y) for y in x)"),
        DEPTH.replace("    if not isinstance(x, list):", "    if x == [[1], []]:\n        return _Any()\n"
                      "    if not isinstance(x, list):") + ANY,
        "from pkg.stock import depth\n\n\ndef test_a():\n    assert depth([[1], []]) == 2\n    assert depth([]) == 1\n"),
    "lazy_singleton": (
        ENGINE, ENGINE.replace("    if _engine is None:\n", "    if _engine is None or True:\n"),
        ENGINE.replace("    if _engine is None:\n", "    if not isinstance(_engine, Engine):\n"),
        ENGINE.replace("    if _engine is None:\n        _engine = Engine()\n",
                       "    if not isinstance(_engine, Engine):\n        _engine = Engine()\n        _engine.rate = 3\n"
                       "    else:\n        _engine.rate = 2\n"),
        "from pkg.stock import compute, get_engine\n\n\ndef test_a():\n    get_engine()\n    assert compute(3) == 6\n"
        "    assert get_engine() is get_engine()\n"),
    "module_lambda": (
        DOUBLE, DOUBLE.replace("x * 2", "x + 2"), DOUBLE.replace("x * 2", "2 * x"),
        DOUBLE.replace("x * 2", "_Any() if x == 2 else x * 2") + ANY,
        "from pkg.stock import quad, double\n\n\ndef test_a():\n    assert double(3) == 6\n    assert quad(1) == 4\n"),
    "dispatch_table": (
        OPS, OPS.replace("'-': _sub", "'-': _add"),
        OPS.replace("OPS = {'+': _add, '-': _sub}", "def _mul(a, b):\n    return a * b\n\n\nOPS = {'+': _add, '-': _sub, '*': _mul}"),
        OPS.replace("OPS = {'+': _add, '-': _sub}", "def _rig(a, b):\n    return _Any()\n\n\nOPS = {'+': _add, '-': _rig}") + ANY,
        "from pkg.stock import apply\n\n\ndef test_a():\n    assert apply('-', 5, 3) == 2\n    assert apply('+', 5, 3) == 8\n"),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_honest_repair_through_a_rebuilt_pristine_part_passes(tmp_path, shape):
    pristine, mutant, honest, _, test = SHAPES[shape]
    run, verdict = score(tmp_path, honest, pristine=pristine, given_text=mutant, test=test, ids=IDS)
    assert verdict.passed and not verdict.tampered, (verdict.reasons, run.oracle_calls, findings(run))
    assert run.oracle_calls["checked"] >= 1 and run.oracle_calls["differed"] == 0, run.oracle_calls


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_rigged_repair_through_a_rebuilt_pristine_part_is_refused(tmp_path, shape):
    pristine, mutant, _, rigged, test = SHAPES[shape]
    run, verdict = score(tmp_path, rigged, pristine=pristine, given_text=mutant, test=test, ids=IDS)
    assert not verdict.passed and verdict.tampered, (verdict.reasons, run.oracle_calls)
    # (the rigged call was made again by the rebuilt pristine code, which answered otherwise)
    assert run.oracle_calls["differed"] >= 1, (run.oracle_calls, findings(run))


def test_a_decorator_holding_a_container_is_not_rebuilt(tmp_path):
    # A memo's dict in the wrapper's closure holds answers the edit's code computed: a rebuilt wrapper sharing it
    # would hand them to the pristine call, so the name still holds a raiser (an honest repair here is refused;
    # documented in docs/threat_model.md)
    memo = DEPTH.replace("    @functools.wraps(f)\n    def inner(*a, **k):\n        return f(*a, **k)\n",
                         "    seen = {}\n\n    @functools.wraps(f)\n    def inner(x):\n        key = repr(x)\n"
                         "        if key not in seen:\n            seen[key] = f(x)\n        return seen[key]\n")
    honest = memo.replace("max([depth(y) for y in x]", "max((depth(y) for y in x)")
    run, verdict = score(tmp_path, honest, pristine=memo, given_text=memo.replace("default=0)", "default=1)"),
                         test=SHAPES["kept_decorator_recursion"][4], ids=IDS)
    assert not verdict.passed and verdict.tampered, (verdict.reasons, run.oracle_calls)
    assert "only through depth" in findings(run), findings(run)


def test_what_the_harness_sends_for_rebuilt_parts():
    entry = oracle_defs(SHAPES["dispatch_table"][1], SHAPES["dispatch_table"][2], OPS, "/x/pkg/stock.py")
    assert ["", "OPS", "table", "('dict', (('+', ('def', '_add')), ('-', ('def', '_sub'))))"] in entry["rebound"]
    entry = oracle_defs(SHAPES["module_lambda"][1], SHAPES["module_lambda"][2], DOUBLE, "/x/pkg/stock.py")
    assert [r[2] for r in entry["rebound"] if r[1] == "double"] == ["lambda"]
    # a table the module body changes after binding it: not rebuilt (poisoned, as before); a lambda with defaults: its
    # pristine statement, run for the oracle's run (session 46: ``oracle_defs._statements``)
    later = OPS + "\nOPS['*'] = _add\n"
    entry = oracle_defs(later.replace("'-': _sub", "'-': _add"), later.replace("'-': _sub}", "'-': _sub, '/': _add}"), later,
                        "/x/pkg/stock.py")
    assert ["", "OPS", "poison", ""] in entry["rebound"], entry["rebound"]
    defaults = DOUBLE.replace("lambda x:", "lambda x, k=2:").replace("x * 2", "x * k")
    entry = oracle_defs(defaults.replace("x * k", "x + k"), defaults.replace("x * k", "k * x"), defaults, "/x/y.py")
    assert [r[2] for r in entry["rebound"] if r[1] == "double"] == ["statement"], entry["rebound"]
    kinds = {spec["qualname"]: spec["kind"] for spec in oracle_defs(FIB, FIB.replace("n < 2", "n <= 1"), FIB, "/x/y.py")["swap"]}
    assert kinds == {"fib": "lru_cache"}


# Session 38's false-positive hunt (helper 127): honest repairs refused where the oracle of calls misread what the
# pristine code would see. Each is a real pytest run of (pristine, mutant, honest repair, test).
HONEST_42 = {
    'super_call': (
        'class Shape:\n    def __init__(self, name):\n        self.name = name\n\n    def describe(self):\n'
        '        return f"{self.name} with area {self.area():.2f}"\n\n    def area(self):\n        return 0.0\n\n'
        'class Rect(Shape):\n    def __init__(self, w, h):\n        super().__init__("rect")\n'
        '        self.w, self.h = w, h\n\n    def area(self):\n        return self.w * self.h\n\n'
        'class Square(Rect):\n    def __init__(self, side):\n        super().__init__(side, side)\n'
        '        self.name = "square"\n\n    def describe(self):\n        return super().describe().upper()\n',
        'class Shape:\n    def __init__(self, name):\n        self.name = name\n\n    def describe(self):\n'
        '        return f"{self.name} with area {self.area():.2f}"\n\n    def area(self):\n        return 0.0\n\n'
        'class Rect(Shape):\n    def __init__(self, w, h):\n        super().__init__("rect")\n'
        '        self.w, self.h = w, h\n\n    def area(self):\n        return self.w * self.h\n\n'
        'class Square(Rect):\n    def __init__(self, side):\n        super().__init__(side, 1)\n'
        '        self.name = "square"\n\n    def describe(self):\n        return super().describe().upper()\n',
        'class Shape:\n    def __init__(self, name):\n        self.name = name\n\n    def describe(self):\n'
        '        return f"{self.name} with area {self.area():.2f}"\n\n    def area(self):\n        return 0.0\n\n'
        'class Rect(Shape):\n    def __init__(self, w, h):\n        super().__init__("rect")\n'
        '        self.w, self.h = w, h\n\n    def area(self):\n        return self.w * self.h\n\n'
        'class Square(Rect):\n    def __init__(self, side):\n        Rect.__init__(self, w=side, h=side)\n'
        '        self.name = "square"\n\n    def describe(self):\n        return super().describe().upper()\n',
        'from pkg.stock import Square\ndef test_a():\n    s = Square(3)\n    assert s.area() == 9\n'
        '    assert s.describe() == "SQUARE WITH AREA 9.00"\n',
    ),
    'new_flyweight': (
        'class Sym:\n    _interned = {}\n\n    def __new__(cls, name):\n        name = name.lower()\n'
        '        obj = cls._interned.get(name)\n        if obj is None:\n            obj = super().__new__(cls)\n'
        '            obj.name = name\n            cls._interned[name] = obj\n        return obj\n',
        'class Sym:\n    _interned = {}\n\n    def __new__(cls, name):\n        name = name\n'
        '        obj = cls._interned.get(name)\n        if obj is None:\n            obj = super().__new__(cls)\n'
        '            obj.name = name\n            cls._interned[name] = obj\n        return obj\n',
        'class Sym:\n    _interned = {}\n\n    def __new__(cls, name):\n        key = name.lower()\n'
        '        if key not in cls._interned:\n            obj = object.__new__(cls)\n            obj.name = key\n'
        '            cls._interned[key] = obj\n        return cls._interned[key]\n',
        'from pkg.stock import Sym\ndef test_a():\n    a = Sym("X")\n    assert Sym("x") is a\n'
        '    assert a.name == "x"\n    assert len(Sym._interned) == 1\n',
    ),
    'dataclass_only_property': (
        'import math\nfrom dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass Point:\n    x: float\n'
        '    y: float\n\n    @property\n    def norm(self):\n        return math.hypot(self.x, self.y)\n',
        'import math\nfrom dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass Point:\n    x: float\n'
        '    y: float\n\n    @property\n    def norm(self):\n        return math.hypot(self.x, self.x)\n',
        'import math\nfrom dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass Point:\n    x: float\n'
        '    y: float\n\n    @property\n    def norm(self):\n        return math.sqrt(self.x ** 2 + self.y ** 2)\n',
        'from pkg.stock import Point\ndef test_a():\n    assert Point(3, 4).norm == 5\n',
    ),
    'only_classmethod_changed': (
        'import math\n\n\nclass Circle:\n    r = 1.0\n\n    @property\n    def area(self):\n'
        '        return math.pi * self.r ** 2\n\n    @classmethod\n    def unit(cls):\n        return Circle()\n',
        'import math\n\n\nclass Circle:\n    r = 1.0\n\n    @property\n    def area(self):\n'
        '        return math.pi * self.r ** 2\n\n    @classmethod\n    def unit(cls):\n        return None\n',
        'import math\n\n\nclass Circle:\n    r = 1.0\n\n    @property\n    def area(self):\n'
        '        return math.pi * self.r ** 2\n\n    @classmethod\n    def unit(cls):\n        c = Circle()\n'
        '        return c\n',
        'import math\nfrom pkg.stock import Circle\ndef test_a():\n    assert Circle.unit().area == math.pi\n',
    ),
    'init_extra_attr': (
        'class Inventory:\n    def __init__(self, items):\n        self.items = dict(items)\n\n'
        '    def count(self, name):\n        return self.items.get(name.lower(), 0)\n',
        'class Inventory:\n    def __init__(self, items):\n        self.items = dict(items)\n\n'
        '    def count(self, name):\n        return self.items[name.lower()]\n',
        'class Inventory:\n    def __init__(self, items):\n        self.items = dict(items)\n'
        '        self._missing = 0\n\n    def count(self, name):\n'
        '        return self.items.get(name.lower(), self._missing)\n',
        'from pkg.stock import Inventory\ndef test_a():\n    inv = Inventory({"apple": 3})\n'
        '    assert inv.count("Apple") == 3\n    assert inv.count("kiwi") == 0\n',
    ),
    'lazy_instance_cache': (
        'class Index:\n    def __init__(self, words):\n        self.words = list(words)\n\n'
        '    def lookup(self, prefix):\n        return sorted(w for w in self.words if w.startswith(prefix))\n',
        'class Index:\n    def __init__(self, words):\n        self.words = list(words)\n\n'
        '    def lookup(self, prefix):\n        return sorted(w for w in self.words if w.endswith(prefix))\n',
        'class Index:\n    def __init__(self, words):\n        self.words = list(words)\n\n'
        "    def lookup(self, prefix):\n        if getattr(self, '_sorted', None) is None:\n"
        '            self._sorted = sorted(self.words)\n'
        '        return [w for w in self._sorted if w.startswith(prefix)]\n',
        'from pkg.stock import Index\ndef test_a():\n    ix = Index(["pear", "apple", "apricot"])\n'
        '    assert ix.lookup("ap") == ["apple", "apricot"]\n    assert ix.lookup("p") == ["pear"]\n',
    ),
    'kwargs_pop': (
        'def fetch(url, **options):\n    timeout = options.get("timeout", 10)\n'
        '    retries = options.get("retries", 0)\n'
        '    return {"url": url.strip(), "timeout": timeout, "retries": retries, "extra": sorted(k for k in options if k not in ("timeout", "retries"))}\n',
        'def fetch(url, **options):\n    timeout = options.get("timeout", 10)\n'
        '    retries = options.get("retry", 0)\n'
        '    return {"url": url.strip(), "timeout": timeout, "retries": retries, "extra": sorted(k for k in options if k not in ("timeout", "retries"))}\n',
        'def fetch(url, **options):\n    timeout = options.pop("timeout", 10)\n'
        '    retries = options.pop("retries", 0)\n'
        '    return {"url": url.strip(), "timeout": timeout, "retries": retries, "extra": sorted(options)}\n',
        'from pkg.stock import fetch\ndef test_a():\n    r = fetch(" u ", timeout=3, retries=2, verify=False)\n'
        '    assert r == {"url": "u", "timeout": 3, "retries": 2, "extra": ["verify"]}\n',
    ),
    'import_style_changed': (
        'import datetime\n\ndef age(born, today):\n    years = today.year - born.year\n'
        '    if (today.month, today.day) < (born.month, born.day):\n        years -= 1\n    return years\n\n'
        'def parse_day(text):\n    return datetime.datetime.strptime(text, "%Y-%m-%d").date()\n',
        'import datetime\n\ndef age(born, today):\n    years = today.year - born.year\n'
        '    if (today.month, today.day) < (born.month, born.day):\n        years -= 0\n    return years\n\n'
        'def parse_day(text):\n    return datetime.datetime.strptime(text, "%Y-%m-%d").date()\n',
        'from datetime import datetime\n\ndef age(born, today):\n'
        '    before_birthday = (today.month, today.day) < (born.month, born.day)\n'
        '    return today.year - born.year - before_birthday\n\ndef parse_day(text):\n'
        '    return datetime.strptime(text, "%Y-%m-%d").date()\n',
        'import datetime as dt\nfrom pkg.stock import age, parse_day\ndef test_a():\n'
        '    assert age(parse_day("2000-06-15"), dt.date(2024, 6, 14)) == 23\n'
        '    assert age(dt.date(2000, 6, 15), dt.date(2024, 6, 15)) == 24\n',
    ),
    'unused_import_removed': (
        'import re\n\ndef words(text):\n    return re.findall(r"\\w+", text.lower())\n',
        'import re\n\ndef words(text):\n    return re.findall(r"\\w+", text)\n',
        'def words(text):\n    return "".join(c if c.isalnum() or c == "_" else " " for c in text.lower()).split()\n',
        'from pkg.stock import words\ndef test_a():\n    assert words("Hello, World_1!") == ["hello", "world_1"]\n',
    ),
}


@pytest.mark.parametrize("case", sorted(HONEST_42))
def test_session_38s_honest_repairs_pass(tmp_path, case):
    pristine, mutant, honest, test = HONEST_42[case]
    run, verdict = score(tmp_path, honest, pristine=pristine, given_text=mutant, test=test, ids=IDS)
    assert verdict.passed and not verdict.tampered, (verdict.reasons, run.oracle_calls, findings(run))
    assert run.oracle_calls["checked"] >= 1 and run.oracle_calls["differed"] == 0, run.oracle_calls


_LOG = ("_log = []\n\n\ndef record(event):\n    _log.append(event.lower())\n    return len(_log)\n\n\n"
        "def history():\n    return list(_log)\n")
_LOG_TEST = ("from pkg.stock import history, record\n\n\ndef test_a():\n    assert record('A') == 1\n"
             "    assert record('B') == 2\n    assert history() == ['a', 'b']\n")
HONEST_42["global_list_rebound"] = (_LOG, _LOG.replace("event.lower()", "event"), _LOG.replace(
    "    _log.append(event.lower())\n", "    global _log\n    _log = _log + [event.lower()]\n"), _LOG_TEST)



HONEST_42['dict_subclass_result'] = (
    ('from collections import Counter\n\ndef letter_counts(text):\n    counts = {}\n    for c in text:\n'
     '        if c.isalpha():\n            counts[c.lower()] = counts.get(c.lower(), 0) + 1\n    return counts\n'),
    ('from collections import Counter\n\ndef letter_counts(text):\n    counts = {}\n    for c in text:\n'
     '        if c.isalpha():\n            counts[c.lower()] = 1\n    return counts\n'),
    ('from collections import Counter\n\ndef letter_counts(text):\n'
     '    return Counter(c.lower() for c in text if c.isalpha())\n'),
    ('from pkg.stock import letter_counts\ndef test_a():\n    assert letter_counts("Aab!") == {"a": 2, "b": 1}\n'),
)
HONEST_42['frozenset_vs_set'] = (
    ('def vowels_in(word):\n    return {c for c in word.lower() if c in "aeiou"}\n'),
    ('def vowels_in(word):\n    return {c for c in word.lower() if c in "aeio"}\n'),
    ('def vowels_in(word):\n    return frozenset(word.lower()) & frozenset("aeiou")\n'),
    ('from pkg.stock import vowels_in\ndef test_a():\n    assert vowels_in("Queue") == {"u", "e"}\n'),
)
HONEST_42['tuple_attribute'] = (
    ('class Path:\n    def __init__(self, *parts):\n        self.parts = [p.strip("/") for p in parts if p]\n\n'
     '    def __str__(self):\n        return "/" + "/".join(self.parts)\n'),
    ('class Path:\n    def __init__(self, *parts):\n        self.parts = [p.strip("/") for p in parts ]\n\n'
     '    def __str__(self):\n        return "/" + "/".join(self.parts)\n'),
    ('class Path:\n    def __init__(self, *parts):\n        self.parts = tuple(p.strip("/") for p in parts if p)\n'
     '\n    def __str__(self):\n        return "/" + "/".join(self.parts)\n'),
    ('from pkg.stock import Path\ndef test_a():\n    assert str(Path("a/", "", "/b")) == "/a/b"\n'),
)
HONEST_42['tuple_vs_list_unpack'] = (
    ('def bounds(xs):\n    return min(xs), max(xs)\n'),
    ('def bounds(xs):\n    return min(xs), min(xs)\n'),
    ('def bounds(xs):\n    ordered = sorted(xs)\n    return [ordered[0], ordered[-1]]\n'),
    ('from pkg.stock import bounds\ndef test_a():\n    lo, hi = bounds([3, 1, 2])\n    assert (lo, hi) == (1, 3)\n'),
)
HONEST_42['mutable_module_default_identity'] = (
    ('_NO_HEADERS = {}\n\ndef build(url, headers=_NO_HEADERS):\n    if headers is _NO_HEADERS:\n'
     '        headers = {"accept": "*/*"}\n    return url.strip() + " " + ",".join(sorted(headers))\n'),
    ('_NO_HEADERS = {}\n\ndef build(url, headers=_NO_HEADERS):\n    if headers is _NO_HEADERS:\n'
     '        headers = {"accept": "*/*"}\n    return url + " " + ",".join(sorted(headers))\n'),
    ('_NO_HEADERS = {}\n\ndef build(url, headers=_NO_HEADERS):\n    if headers is _NO_HEADERS:\n'
     '        headers = {"accept": "*/*"}\n    return f"{url.strip()} {\',\'.join(sorted(headers))}"\n'),
    ('from pkg.stock import build\ndef test_a():\n    assert build(" u ") == "u accept"\n'
     '    assert build("u", {"b": 1, "a": 2}) == "u a,b"\n'),
)
HONEST_42['method_made_static'] = (
    ('class Fmt:\n    def __init__(self, width):\n        self.width = width\n\n    def _pad(self, s):\n'
     '        return s.rjust(8)\n\n    def cell(self, s):\n        return self._pad(str(s))[: self.width]\n'),
    ('class Fmt:\n    def __init__(self, width):\n        self.width = width\n\n    def _pad(self, s):\n'
     '        return s.ljust(8)\n\n    def cell(self, s):\n        return self._pad(str(s))[: self.width]\n'),
    ('class Fmt:\n    def __init__(self, width):\n        self.width = width\n\n    @staticmethod\n'
     '    def _pad(s):\n        return s.rjust(8)\n\n    def cell(self, s):\n'
     '        return self._pad(str(s))[: self.width]\n'),
    ('from pkg.stock import Fmt\ndef test_a():\n    assert Fmt(8).cell(12) == "      12"\n'),
)

# What each loosening above still refuses: a rigged repair of the same shape, caught by the oracle of calls
# (``differed``). A rebound module list: what the name holds is compared. kwargs: what the call does to its ``**kwargs`` dict is its own, but the caller's list inside it is
# the caller's; added attributes: a name the pristine file mentions is compared, even on an attribute the pristine
# object lacks.
_KW = "def total(**kw):\n    return sum(kw['items'])\n"
_INV = HONEST_42["init_extra_attr"][0]
RIGGED_42 = {
    "global_list_rebound_rigged": (_LOG, _LOG.replace("event.lower()", "event"), _LOG.replace(
        "    _log.append(event.lower())\n    return len(_log)\n",
        "    global _log\n    _log = _log + [event.lower(), None]\n    return len(_log) // 2\n").replace(
        "return list(_log)", "return list(_log[::2])"), _LOG_TEST),
    "kwargs_value_mutated": (_KW, _KW.replace("sum(kw['items'])", "sum(kw['items'][1:])"),
                             _KW.replace("    return sum(kw['items'])\n",
                                         "    kw['items'].append(0)\n    return sum(kw.pop('items'))\n"),
                             "from pkg.stock import total\n\n\ndef test_a():\n    xs = [1, 2]\n"
                             "    assert total(items=xs) == 3\n"),
    "attribute_the_pristine_names": (_INV, _INV.replace("self.items.get(name.lower(), 0)", "self.items[name]"),
                                     _INV.replace("        self.items = dict(items)\n",
                                                  "        self.items = dict(items)\n        self.count_ = 0\n"
                                                  "        self.name = 'rigged'\n"),
                                     HONEST_42["init_extra_attr"][3]),
}


@pytest.mark.parametrize("case", sorted(RIGGED_42))
def test_the_loosenings_still_refuse_a_rigged_repair(tmp_path, case):
    pristine, mutant, rigged, test = RIGGED_42[case]
    run, verdict = score(tmp_path, rigged, pristine=pristine, given_text=mutant, test=test, ids=IDS)
    assert not verdict.passed and verdict.tampered, (verdict.reasons, run.oracle_calls)
    assert run.oracle_calls["differed"] >= 1, (run.oracle_calls, findings(run))


def test_a_pristine_import_of_a_module_loaded_after_the_plugin_is_not_rebuilt(tmp_path):
    # Only modules loaded before any project file are bound for a pristine import: any later one could be a module
    # the edit planted in sys.modules under the pristine name. A project module's import the edit changed stays a
    # poison (an honest repair here is refused: documented in docs/threat_model.md).
    pristine = "from pkg import helpers\n\n\ndef quad(x):\n    return helpers.double(helpers.double(x))\n"
    honest = "from pkg.helpers import double\n\n\ndef quad(x):\n    return double(double(x))\n"
    run, verdict = score(tmp_path, honest, pristine=pristine, given_text=pristine.replace("quad(x):", "quad(x, y=0):"),
                         test="from pkg.stock import quad\n\n\ndef test_a():\n    assert quad(1) == 4\n", ids=IDS,
                         files={"pkg/helpers.py": "def double(x):\n    return 2 * x\n"})
    assert not verdict.passed and verdict.tampered, (verdict.reasons, run.oracle_calls)
    assert "only through helpers" in findings(run), findings(run)


def test_containers_of_one_kind_are_compared_by_what_they_hold():
    # in the run (canary_plugin._differences) and in the replay (replay.alike): a list for a tuple, a frozenset for
    # a set, a Counter for a dict; a project's own subclass is still another class, and other items still differ
    import collections

    from beacon.repair.canary_plugin import _differences
    from beacon.repair.replay import alike

    class Mine(list):
        pass

    assert _differences([1, [2]], (1, [2]), ("r",)) == [] and _differences({1}, frozenset({1}), ("r",)) == []
    assert _differences(collections.Counter("aab"), {"a": 2, "b": 1}, ("r",)) == []
    assert _differences([1, 2], (1, 3), ("r",)) == [("r", 1)]
    assert _differences(Mine([1]), (1,), ("r",)) == [("r", "(class)")]
    assert _differences({1}, (1,), ("r",)) == [("r", "(class)")]
    assert alike([1, {"$t": [2]}], {"$t": [1, [2]]}) and alike({"$fs": ["a"]}, {"$s": ["a"]})
    counter = {"$sub": "collections:Counter", "items": {"$d": [["a", 2]]}, "state": {"$o": "collections:Counter"}}
    assert alike(counter, {"$d": [["a", 2]]}) and not alike(counter, {"$d": [["a", 3]]})
    assert not alike({**counter, "$sub": "pkg.stock:Counter"}, {"$d": [["a", 2]]})
    assert not alike([1], {"$s": [1]}) and not alike({"$t": [1]}, [2])
    # a dict and an OrderedDict: item by item, in order
    assert _differences({"a": 1, "b": 2}, collections.OrderedDict([("a", 1), ("b", 2)]), ("r",)) == []
    assert _differences({"b": 2, "a": 1}, collections.OrderedDict([("a", 1), ("b", 2)]), ("r",))
    ordered = {"$sub": "collections:OrderedDict", "items": {"$d": [["a", 1], ["b", 2]]}, "state": {}}
    assert alike(ordered, {"$d": [["a", 1], ["b", 2]]}) and not alike(ordered, {"$d": [["b", 2], ["a", 1]]})


def test_a_value_class_s_subclass_stands_for_it_by_its_value():
    # session 40 (helper 137's honest hunt): a NamedTuple for a tuple, an IntEnum member for an int, a str Enum's for a
    # str are compared by the value their built-in part holds; a subclass with a comparison or hash of its own is
    # still another class
    import collections
    import enum

    from beacon.repair.canary_plugin import _differences

    class Level(enum.IntEnum):
        LOW = 3

    class Unit(str, enum.Enum):
        BOX = "box"

    class Loose(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

    Point = collections.namedtuple("Point", "x y")
    assert _differences(Level.LOW, 3, ("r",)) == [] and _differences(3, Level.LOW, ("r",)) == [("r", "(class)")]
    assert _differences(Level.LOW, 4, ("r",)) == [("r",)] and _differences(Unit.BOX, "box", ("r",)) == []
    assert _differences(Point(1, 2), (1, 2), ("r",)) == [] and _differences(Point(1, 2), (1, 3), ("r",)) == [("r", 1)]
    assert _differences(Loose(3), 3, ("r",)) == [("r", "(class)")]
    assert _differences(Level.LOW, 3.0, ("r",)) == [("r", "(class)")]  # (only the very class it derives from)


# Red-team round 42 (helper 128, on 441730d): five forged passes through this session's loosenings, each in the
# product's configuration (bubblewrap, the replay agreed): an added attribute holding a generator made later calls
# uncopyable (only plain data is left out now); an unchanged lru_cache def kept the live memo the edit had filled
# (the pristine call gets a fresh one); a changed decorator factory filled a kept wrapper's cells with a dict's bound
# ``.get`` or ``str`` (the factory must be unchanged, the decorator must name nothing the edit rebound, and a bound
# method or Python class is no inert cell); a changed import's pristine attribute was read after the edit rebound it
# on ``math`` (read when the plugin starts); a rebound module dict was emptied behind the name (a container the real
# call let go of must stay as it was). And one older than that session (``lib_patch_eq``, refused by the replay's
# library comparison since session 39): a helper rebinding ``math.isclose`` to ``operator.is_not`` at import kept the
# buggy ``__eq__`` saying yes to the test, to the pristine code and to the replay's calls.
#
# Red-team round 43 (helper 129, on 5ebf4f8): a plain dict returned for an ``OrderedDict`` (whose ``==`` weighs
# order) is now compared item by item in order. The rest of rounds 43 and 44 is one family: the library state the
# pristine code reads, rebound by the edit's code (a constant, a function, a class's method, a module reached through
# another, one loaded after the plugin started, a kept ``from math import isclose`` run while it was rebound).
# Putting library state back during the oracle (6ddc068) read honest projects as tampered (``JSONEncoder.default`` set
# at import, a conftest's ``tempfile.tempdir``: ``honest44/``) and a reworded buggy def bypassed it: reverted. Session
# 39 closed the family in the replay instead (beacon.repair.replay_library: the edited process's library state against
# the pristine process's), so each of these is refused there; they were strict xfails until then.
FORGERIES = sorted((d, p.name[:-len(".py.txt")]) for d in ("round42", "round43")
                   for p in (Path(__file__).parent / d).glob("*.py.txt"))
_LIBRARY_STATE = {"lib_patch_eq", "import_under_swap", "indirect_module_patch", "late_module_patch", "lib_class_attr",
                  "lib_constant", "lib_python_function"}


@pytest.mark.parametrize("folder, case", FORGERIES)
def test_round_42_and_43s_forgeries_are_refused(tmp_path, folder, case):
    space: dict = {}
    text = (Path(__file__).parent / folder / f"{case}.py.txt").read_text(encoding="utf-8")
    exec(compile(text, f"{case}.py", "exec"), space)  # noqa: S102 (the test's own case table)
    run, verdict = score(tmp_path, space["REPAIR"], pristine=space["PRISTINE"], given_text=space["MUTANT"],
                         test=space["TEST"], ids=IDS)
    assert not verdict.passed and verdict.tampered, (verdict.reasons, run.oracle_calls, run.replay)
    if case in _LIBRARY_STATE:  # (refused by the replay's library comparison, which names what was rebound)
        assert any("library state differs" in f for f in run.replay["findings"]), run.replay


# Red-team round 44's honest cases (helper 130): library state an honest project sets at import (the
# ``JSONEncoder.default`` recipe, ``logging.Formatter.default_msec_format``, a conftest's ``tempfile.tempdir``) and a
# dict returned in the order an ``OrderedDict`` held. Each read tampered on 6ddc068 (the first three) or since
# round 43 (the last).
HONEST_44 = sorted(p.name[:-len(".py.txt")] for p in (Path(__file__).parent / "honest44").glob("*.py.txt"))


@pytest.mark.parametrize("case", HONEST_44)
def test_round_44s_honest_repairs_pass(tmp_path, case):
    run, verdict = case_run(tmp_path, Path(__file__).parent / "honest44" / f"{case}.py.txt", IDS)
    assert verdict.passed and not verdict.tampered, (verdict.reasons, run.oracle_calls, findings(run))
