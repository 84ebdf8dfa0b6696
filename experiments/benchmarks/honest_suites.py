"""Honest suites through Beacon's scoring layers: which of them would Beacon wrongly call tampered (or invalid)?

    python -m experiments.benchmarks.honest_suites [--only NAME[,NAME]] [--list] [--sandbox off|auto] [--timeout S]

Beacon's canary plugin (:mod:`beacon.repair.canary_plugin`) judges the comparison dunders of every class alive, the
provenance of every collected test function and pytest's own internals, so merely importing a library, or an odd
but honest test idiom, could make an honest suite ``tampered``; at preparation that makes the task invalid. Session
19's sweep found and fixed pandas, pytz, Django, SQLAlchemy's PostgreSQL types, matplotlib, scipy, flask, trio and
pytester this way. This script keeps that sweep as a benchmark, offline (no pip at run time): a built-in list of tiny
projects (``pkg/calc.py`` the declared source, tests under ``tests/``), each written to a folder this script owns
(:func:`beacon.scratch.owned_tempdir`), run once by plain pytest with the harness's settings (plugin autoload off,
``--import-mode=importlib``, ``-o addopts=``, ``-o xfail_strict=true``, no cache provider, the harness's environment
allowlist) and once by :func:`beacon.repair.pytest_runner.run_pytest` (``sandbox="off"`` unless ``--sandbox auto``),
then :func:`~beacon.repair.pytest_runner.verify_run` against the ids that passed in the plain run.

Cases: ``lib-<name>-test`` imports a library and makes typical comparisons in the test file, ``lib-<name>-src`` the
same in the declared source; ``idiom-<name>`` is an honest test idiom (unittest, fixtures, conftest hooks, markers,
monkeypatching dunders, decorators, pytester, ...); ``repro-<name>`` is the sweep's minimal reproduction of one false
positive it found. A case whose libraries are not importable here is ``skipped (not installed)``, never a failure.

One line per case: the verdict, the plain and Beacon seconds, and for a case Beacon did not pass its first findings:

- ``pass``: Beacon passes every test that passes under plain pytest;
- ``tampered``: ``verify_run`` says tampered (a false positive: a prepared task would be invalid, an attempt scored
  tampered);
- ``invalid``: Beacon fails the run without calling it tampered (also a false positive: the task would be invalid);
- ``known``: a documented refusal (README, "Honest shapes still refused"), refused as documented; ``known, now
  passes`` when it no longer is;
- ``broken``: plain pytest itself fails, so the case says nothing about Beacon here (a library version that behaves
  differently); reported, not a false positive;
- ``skipped (not installed)``.

The last line counts the verdicts and lists the false positives; the exit status is 1 when any installed case is a
false positive (so it can gate a release), 0 otherwise.
"""
from __future__ import annotations

import argparse
import ast
import fnmatch
import importlib.util
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from beacon.repair.controls import root_config_file, snapshot_protected
from beacon.repair.pytest_runner import run_pytest, verify_run
from beacon.repair.pytest_setup import build_env, src_layout_path
from beacon.scratch import owned_tempdir

CALC = "def add(a, b):\n    return a + b\n"
H = "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
ADD = "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
T = "tests/test_calc.py"

# The documented refusals (README, "Honest shapes still refused"): reported as ``known``, not as false positives.
_WRAPT = "a wrapt-decorated test function (a FunctionWrapper, not a function)"
_MODFUNC = "a test module's own function monkeypatched as __eq__ on a declared class"
KNOWN = {
    "idiom-decorated_wrapt": _WRAPT,
    "repro-wrapt_test": _WRAPT,
    "idiom-monkeypatch_dunder_module_func": _MODFUNC,
    "repro-monkeypatch_module_function": _MODFUNC,
}

LIBS = {
"numpy": ("""import numpy as np
def test_np():
    a = np.arange(5)
    np.testing.assert_array_equal(a, [0, 1, 2, 3, 4])
    np.testing.assert_allclose(a / 3, [0, 1/3, 2/3, 1, 4/3])
    assert a.tolist() == [0, 1, 2, 3, 4]
    assert (a == np.arange(5)).all()
    assert np.float64(1.5) == 1.5
    assert isinstance(a.sum(), np.integer)
    assert a.dtype == np.int64
    m = np.ma.masked_array([1, 2], mask=[0, 1])
    assert m.sum() == 1
""", "import numpy as np\n\ndef add(a, b):\n    return int(np.add(a, b))\n"),
"pytest_approx": ("""import pytest
def test_approx():
    assert 0.1 + 0.2 == pytest.approx(0.3)
    assert [0.1 + 0.2, 1.0] == pytest.approx([0.3, 1.0])
    assert {'a': 0.1 + 0.2} == pytest.approx({'a': 0.3})
    assert 1.0001 != pytest.approx(1.1)
""", None),
"scipy": ("""import numpy as np
from scipy import sparse, stats, linalg, optimize
def test_scipy():
    m = sparse.csr_matrix(np.eye(3))
    assert (m != sparse.eye(3)).nnz == 0
    assert m.toarray().tolist() == np.eye(3).tolist()
    r = optimize.minimize_scalar(lambda x: (x - 2) ** 2)
    assert abs(r.x - 2) < 1e-6
    assert stats.norm.cdf(0) == 0.5
    np.testing.assert_allclose(linalg.inv(np.eye(2)), np.eye(2))
""", "from scipy import special\n\ndef add(a, b):\n    return int(round(special.comb(a + b, 1)))\n"),
"sympy": ("""import sympy as sp
def test_sympy():
    x, y = sp.symbols('x y')
    assert sp.expand((x + 1) ** 2) == x**2 + 2*x + 1
    assert sp.simplify(sp.sin(x)**2 + sp.cos(x)**2) == 1
    assert sp.Rational(1, 3) + sp.Rational(1, 6) == sp.Rational(1, 2)
    assert sp.Integer(3) > 2
    assert sp.Matrix([[1, 2], [3, 4]]).det() == -2
    assert sp.solve(x - 2, x) == [2]
    assert sp.S.Half < 1
""", "import sympy\n\ndef add(a, b):\n    return int(sympy.Integer(a) + b)\n"),
"networkx": ("""import networkx as nx
def test_nx():
    g = nx.path_graph(4)
    assert list(g.nodes) == [0, 1, 2, 3]
    assert nx.shortest_path(g, 0, 3) == [0, 1, 2, 3]
    assert nx.is_isomorphic(g, nx.path_graph(4))
    assert set(g.edges) == {(0, 1), (1, 2), (2, 3)}
    assert dict(g.degree) == {0: 1, 1: 2, 2: 2, 3: 1}
    d = nx.DiGraph([(1, 2)])
    assert d.in_degree(2) == 1
""", "import networkx as nx\n\ndef add(a, b):\n    g = nx.path_graph(a + b + 1)\n    return g.number_of_edges()\n"),
"yaml": ("""import yaml
def test_yaml():
    assert yaml.safe_load('a: [1, 2]') == {'a': [1, 2]}
    assert yaml.safe_dump({'b': 1}) == 'b: 1\\n'
    assert yaml.load('!!python/tuple [1, 2]', Loader=yaml.UnsafeLoader) == (1, 2)
""", "import yaml\n\ndef add(a, b):\n    return yaml.safe_load(str(a + b))\n"),
"lxml": ("""from lxml import etree, html
def test_lxml():
    root = etree.fromstring('<a><b x="1">t</b></a>')
    assert root.find('b').text == 't'
    assert root.find('b').attrib == {'x': '1'}
    assert etree.tostring(root) == b'<a><b x="1">t</b></a>'
    assert root.xpath('//b/@x') == ['1']
    doc = html.fromstring('<p>hi</p>')
    assert doc.text_content() == 'hi'
""", "from lxml import etree\n\ndef add(a, b):\n    return int(etree.fromstring(f'<v>{a + b}</v>').text)\n"),
"requests": ("""import requests
from requests.structures import CaseInsensitiveDict
def test_requests():
    h = CaseInsensitiveDict({'Content-Type': 'x'})
    assert h['content-type'] == 'x'
    assert h == {'content-type': 'x'}
    r = requests.Request('GET', 'http://example.com', params={'a': 1}).prepare()
    assert r.url == 'http://example.com/?a=1'
    assert requests.codes.ok == 200
    resp = requests.Response(); resp.status_code = 404
    assert not resp.ok
""", "import requests\n\ndef add(a, b):\n    return a + b if requests.codes.ok == 200 else 0\n"),
"responses": ("""import requests, responses
@responses.activate
def test_responses():
    responses.add(responses.GET, 'http://x.test/a', json={'v': 1})
    assert requests.get('http://x.test/a').json() == {'v': 1}
    assert len(responses.calls) == 1
""", None),
"marshmallow": ("""from marshmallow import Schema, fields, ValidationError
import pytest
class U(Schema):
    name = fields.Str(required=True)
    age = fields.Int()
def test_mm():
    assert U().load({'name': 'a', 'age': '3'}) == {'name': 'a', 'age': 3}
    with pytest.raises(ValidationError) as e:
        U().load({})
    assert e.value.messages == {'name': ['Missing data for required field.']}
    assert U().dump({'name': 'b', 'age': 1}) == {'name': 'b', 'age': 1}
""", "from marshmallow import Schema, fields\n\nclass S(Schema):\n    v = fields.Int()\n\ndef add(a, b):\n    return S().load({'v': a + b})['v']\n"),
"click": ("""import click
from click.testing import CliRunner
@click.command()
@click.option('--n', type=int, default=1)
def cli(n):
    click.echo(n * 2)
def test_click():
    r = CliRunner().invoke(cli, ['--n', '3'])
    assert r.exit_code == 0
    assert r.output == '6\\n'
    assert isinstance(cli, click.Command)
""", "import click\n\n@click.command()\ndef main():\n    click.echo('x')\n\ndef add(a, b):\n    return a + b\n"),
"jinja2": ("""import jinja2
from markupsafe import Markup, escape
def test_jinja():
    t = jinja2.Template('{{ a }}-{{ b|upper }}')
    assert t.render(a=1, b='x') == '1-X'
    assert escape('<b>') == Markup('&lt;b&gt;')
    assert str(escape('<')) == '&lt;'
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    assert env.from_string('{{ x }}').render(x=2) == '2'
    u = jinja2.Undefined()
    assert str(u) == ''
""", "import jinja2\n\ndef add(a, b):\n    return int(jinja2.Template('{{ a + b }}').render(a=a, b=b))\n"),
"werkzeug": ("""from werkzeug.datastructures import MultiDict, Headers, ImmutableMultiDict
from werkzeug.test import Client
from werkzeug.wrappers import Response
def test_wz():
    m = MultiDict([('a', 1), ('a', 2)])
    assert m.getlist('a') == [1, 2]
    assert m == MultiDict([('a', 1), ('a', 2)])
    h = Headers([('X', '1')])
    assert h['x'] == '1'
    assert ImmutableMultiDict({'k': 'v'}).to_dict() == {'k': 'v'}
    app = Response('hi')
    c = Client(app)
    r = c.get('/')
    assert r.status_code == 200 and r.data == b'hi'
""", "from werkzeug.datastructures import MultiDict\n\ndef add(a, b):\n    return sum(MultiDict([('x', a), ('x', b)]).getlist('x'))\n"),
"flask": ("""from flask import Flask, jsonify
def test_flask():
    app = Flask(__name__)
    @app.route('/')
    def idx():
        return jsonify(a=1)
    c = app.test_client()
    r = c.get('/')
    assert r.status_code == 200
    assert r.get_json() == {'a': 1}
""", None),
"sortedcontainers": ("""from sortedcontainers import SortedList, SortedDict, SortedSet
def test_sc():
    s = SortedList([3, 1, 2])
    assert s == [1, 2, 3]
    assert list(s) == [1, 2, 3]
    assert SortedSet([2, 1]) == {1, 2}
    assert SortedSet([1]) <= SortedSet([1, 2])
    d = SortedDict({'b': 1, 'a': 2})
    assert list(d) == ['a', 'b']
    assert d == {'a': 2, 'b': 1}
""", "from sortedcontainers import SortedList\n\ndef add(a, b):\n    return sum(SortedList([a, b]))\n"),
"more_itertools": ("""import more_itertools as mi
def test_mi():
    assert list(mi.chunked(range(5), 2)) == [[0, 1], [2, 3], [4]]
    assert mi.first([7, 8]) == 7
    assert list(mi.windowed([1, 2, 3], 2)) == [(1, 2), (2, 3)]
    p = mi.peekable(iter([1, 2]))
    assert p.peek() == 1
    assert mi.one([5]) == 5
""", "import more_itertools as mi\n\ndef add(a, b):\n    return mi.one([a + b])\n"),
"toolz": ("""import toolz
from toolz import curry
def test_toolz():
    assert toolz.pipe(3, lambda x: x + 1) == 4
    @curry
    def f(a, b):
        return a + b
    assert f(1)(2) == 3
    assert toolz.merge({'a': 1}, {'b': 2}) == {'a': 1, 'b': 2}
    assert toolz.frequencies('aab') == {'a': 2, 'b': 1}
""", "from toolz import curry\n\n@curry\ndef add(a, b):\n    return a + b\n"),
"freezegun": ("""import datetime
from freezegun import freeze_time
@freeze_time('2020-01-02 03:04:05')
def test_frozen():
    assert datetime.datetime.now() == datetime.datetime(2020, 1, 2, 3, 4, 5)
    assert datetime.date.today() == datetime.date(2020, 1, 2)
    assert isinstance(datetime.datetime.now(), datetime.datetime)
def test_ctx():
    with freeze_time('2021-05-05') as f:
        assert datetime.date.today() == datetime.date(2021, 5, 5)
        f.tick(datetime.timedelta(days=1))
        assert datetime.date.today() > datetime.date(2021, 5, 5)
""", "import datetime\n\ndef add(a, b):\n    return a + b\n\ndef today():\n    return datetime.date.today()\n"),
"hypothesis": ("""from hypothesis import given, strategies as st, settings, example
from pkg.calc import add as plus
@given(st.integers(), st.integers())
@settings(max_examples=30, deadline=None)
def test_comm(a, b):
    assert plus(a, b) == plus(b, a)
@given(st.lists(st.integers()))
@settings(max_examples=20, deadline=None)
@example([1])
def test_sorted(xs):
    assert sorted(sorted(xs)) == sorted(xs)
@given(st.builds(dict, a=st.integers()))
@settings(max_examples=10, deadline=None)
def test_builds(d):
    assert set(d) == {'a'}
""", None),
"unittest_mock": ("""from unittest import mock
import os
def test_mock():
    m = mock.MagicMock(return_value=3)
    assert m(1) == 3
    m.assert_called_once_with(1)
    assert m.call_args == mock.call(1)
    assert m.mock_calls == [mock.call(1)]
    with mock.patch('os.getcwd', return_value='/x'):
        assert os.getcwd() == '/x'
    assert mock.ANY == 5
    s = mock.sentinel.thing
    assert s is mock.sentinel.thing
    m2 = mock.MagicMock()
    m2.__eq__.return_value = True
    assert m2 == 1
    m3 = mock.Mock(spec=dict)
    assert isinstance(m3, dict)
    am = mock.AsyncMock()
    import asyncio
    asyncio.run(am(2))
    am.assert_awaited_once_with(2)
""", None),
"mock_patch_object": ("""from unittest import mock
import pkg.calc
def test_patch():
    with mock.patch.object(pkg.calc, 'add', return_value=9):
        assert pkg.calc.add(1, 1) == 9
    with mock.patch('pkg.calc.add', autospec=True) as m:
        m.return_value = 4
        assert pkg.calc.add(1, 2) == 4
        m.assert_called_once_with(1, 2)
""", None),
"pytest_mock": ("""def test_mocker(mocker):
    import os
    m = mocker.patch('os.getcwd', return_value='/y')
    assert os.getcwd() == '/y'
    m.assert_called_once()
    spy = mocker.spy(os.path, 'join')
    assert os.path.join('a', 'b') == 'a/b'
    assert spy.call_count == 1
    stub = mocker.stub()
    stub(1)
    stub.assert_called_with(1)
    assert mocker.ANY == 'x'
""", None, {"tests/conftest.py": "pytest_plugins = ['pytest_mock']\n"}),
"enum_dataclass": ("""import enum, dataclasses, functools
class Color(enum.Enum):
    RED = 1
class F(enum.Flag):
    A = 1; B = 2
class I(enum.IntEnum):
    X = 3
class S(enum.StrEnum):
    Y = 'y'
@dataclasses.dataclass(order=True, frozen=True)
class P:
    x: int
    y: int = 0
@functools.total_ordering
class V:
    def __init__(self, v): self.v = v
    def __eq__(self, o): return self.v == o.v
    def __lt__(self, o): return self.v < o.v
def test_enum():
    assert Color(1) == Color.RED
    assert F.A | F.B == F(3)
    assert I.X == 3 and I.X > 2
    assert S.Y == 'y'
    assert P(1) < P(2) and P(1, 2) == P(1, 2)
    assert dataclasses.replace(P(1), y=5) == P(1, 5)
    assert V(1) < V(2) and V(3) >= V(2)
""", """import enum, dataclasses, functools
class Op(enum.Enum):
    ADD = '+'
@dataclasses.dataclass(order=True)
class Num:
    v: int
@functools.total_ordering
class W:
    def __init__(self, v): self.v = v
    def __eq__(self, o): return self.v == o.v
    def __lt__(self, o): return self.v < o.v
def add(a, b):
    assert Op('+') == Op.ADD and Num(1) < Num(2) and W(1) <= W(2)
    return Num(a + b).v
"""),
"attrs": ("""import attr, attrs
@attrs.define(order=True)
class A:
    x: int
    y: list = attrs.field(factory=list, eq=False)
@attr.s(frozen=True, cmp=None, eq=True, order=False)
class B:
    v = attr.ib(eq=attr.cmp_using(eq=lambda a, b: a == b))
def test_attrs():
    assert A(1) == A(1, [2])
    assert A(1) < A(2)
    assert attrs.evolve(A(1), x=3) == A(3)
    assert attrs.asdict(A(1)) == {'x': 1, 'y': []}
    assert B(1) == B(1)
""", """import attrs
@attrs.frozen(order=True)
class N:
    v: int
    w: int = attrs.field(default=0, eq=attrs.cmp_using(eq=lambda a, b: True))
def add(a, b):
    return N(a + b).v
"""),
"pydantic": ("""from pydantic import BaseModel, Field, ValidationError, RootModel, TypeAdapter
import pytest
class M(BaseModel):
    a: int
    b: str = 'x'
    tags: list[int] = Field(default_factory=list)
def test_pyd():
    assert M(a='1') == M(a=1)
    assert M(a=1).model_dump() == {'a': 1, 'b': 'x', 'tags': []}
    with pytest.raises(ValidationError):
        M(a='z')
    assert TypeAdapter(list[int]).validate_python(['1']) == [1]
    assert RootModel[list[int]]([1]).root == [1]
    assert M.model_validate_json('{"a": 2}') == M(a=2)
""", """from pydantic import BaseModel
class Pair(BaseModel):
    a: int
    b: int
def add(a, b):
    p = Pair(a=a, b=b)
    return p.a + p.b
"""),
"sqlalchemy": ("""import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, Session
class Base(DeclarativeBase):
    pass
class User(Base):
    __tablename__ = 'u'
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str]
def test_sa():
    e = sa.create_engine('sqlite://')
    Base.metadata.create_all(e)
    with Session(e) as s:
        s.add(User(name='a'))
        s.commit()
        assert s.scalars(sa.select(User.name)).all() == ['a']
        assert s.get(User, 1).name == 'a'
    expr = User.name == 'a'
    assert str(expr) == 'u.name = :name_1'
    assert (User.id > 3).compare(User.id > 3)
    assert sa.func.count().type is not None
""", """import sqlalchemy as sa
def add(a, b):
    e = sa.create_engine('sqlite://')
    with e.connect() as c:
        return c.execute(sa.text('select :a + :b'), {'a': a, 'b': b}).scalar()
"""),
"datetime_tz": ("""import datetime as dt
import zoneinfo
import pytz
from dateutil import parser, relativedelta, tz
def test_tz():
    z = zoneinfo.ZoneInfo('Europe/Paris')
    a = dt.datetime(2020, 6, 1, 12, tzinfo=z)
    assert a.utcoffset() == dt.timedelta(hours=2)
    assert a == dt.datetime(2020, 6, 1, 10, tzinfo=dt.timezone.utc)
    p = pytz.timezone('US/Eastern').localize(dt.datetime(2020, 1, 1))
    assert p.tzname() == 'EST'
    assert pytz.utc.localize(dt.datetime(2020, 1, 1)) == dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)
    assert parser.parse('2020-01-02T03:04:05Z') == dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=tz.UTC)
    assert dt.date(2020, 1, 31) + relativedelta.relativedelta(months=1) == dt.date(2020, 2, 29)
    assert relativedelta.relativedelta(days=1) == relativedelta.relativedelta(hours=24).normalized()
    assert tz.gettz('UTC') is not None
""", """import datetime as dt
from dateutil import tz
import pytz
def add(a, b):
    d = dt.datetime(2020, 1, 1, tzinfo=tz.UTC) + dt.timedelta(days=a + b)
    assert pytz.utc.localize(dt.datetime(2020, 1, 1)) == dt.datetime(2020, 1, 1, tzinfo=tz.UTC)
    return d.day - 1
"""),
"arrow_pendulum": ("""import arrow, pendulum, datetime as dt
def test_ap():
    a = arrow.get('2020-01-01T00:00:00+00:00')
    assert a.shift(days=1) == arrow.get('2020-01-02T00:00:00+00:00')
    assert a < arrow.get('2021-01-01')
    p = pendulum.datetime(2020, 1, 1, tz='UTC')
    assert p.add(days=1) == pendulum.datetime(2020, 1, 2, tz='UTC')
    assert p == dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)
    assert pendulum.duration(days=1) == dt.timedelta(days=1)
""", None),
"decimal_fractions": ("""from decimal import Decimal, localcontext
from fractions import Fraction
import math, statistics, collections
def test_num():
    assert Decimal('0.1') + Decimal('0.2') == Decimal('0.3')
    with localcontext() as c:
        c.prec = 3
        assert Decimal(1) / Decimal(3) == Decimal('0.333')
    assert Fraction(1, 3) + Fraction(1, 6) == Fraction(1, 2)
    assert Fraction(1, 2) == 0.5
    assert math.isclose(statistics.mean([1, 2]), 1.5)
    assert collections.Counter('aab') == {'a': 2, 'b': 1}
    assert collections.OrderedDict(a=1) == {'a': 1}
    NT = collections.namedtuple('NT', 'x y')
    assert NT(1, 2) == (1, 2)
""", """from decimal import Decimal
from fractions import Fraction
import collections
NT = collections.namedtuple('NT', 'a b')
def add(a, b):
    return int(Decimal(a) + Fraction(b).numerator) if NT(a, b) == (a, b) else 0
"""),
"typing_stdlib_misc": ("""import typing, pathlib, ipaddress, uuid, re, array, types, functools, operator, string
def test_misc():
    assert pathlib.PurePosixPath('a/b') == pathlib.PurePosixPath('a') / 'b'
    assert ipaddress.ip_address('10.0.0.1') in ipaddress.ip_network('10.0.0.0/8')
    assert uuid.UUID(int=1) == uuid.UUID('00000000-0000-0000-0000-000000000001')
    assert re.match('a', 'ab').group() == 'a'
    assert array.array('i', [1]) == array.array('i', [1])
    assert types.SimpleNamespace(a=1) == types.SimpleNamespace(a=1)
    assert functools.partial(operator.add, 1)(2) == 3
    assert typing.get_args(list[int]) == (int,)
    assert string.Template('$a').substitute(a=1) == '1'
    P = typing.NamedTuple('P', [('x', int)])
    assert P(1) == (1,)
    class TD(typing.TypedDict):
        a: int
    assert TD(a=1) == {'a': 1}
""", None),
"matplotlib": ("""import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
from matplotlib import colors
def test_mpl():
    fig, ax = plt.subplots()
    line, = ax.plot([1, 2], [3, 4])
    assert list(line.get_xdata()) == [1, 2]
    assert colors.to_hex('red') == '#ff0000'
    assert ax.get_xlim()[0] < 1
    plt.close(fig)
""", "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n\ndef add(a, b):\n    return a + b\n"),
"pillow": ("""from PIL import Image, ImageChops
def test_pil():
    a = Image.new('RGB', (2, 2), 'red')
    b = Image.new('RGB', (2, 2), (255, 0, 0))
    assert a.tobytes() == b.tobytes()
    assert ImageChops.difference(a, b).getbbox() is None
    assert a == b
    assert a.size == (2, 2)
""", "from PIL import Image\n\ndef add(a, b):\n    return Image.new('L', (a + b, 1)).size[0]\n"),
"jsonschema": ("""import jsonschema, pytest
def test_js():
    s = {'type': 'object', 'properties': {'a': {'type': 'integer'}}}
    jsonschema.validate({'a': 1}, s)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({'a': 'x'}, s)
    v = jsonschema.Draft202012Validator(s)
    assert list(v.iter_errors({'a': 1})) == []
""", "import jsonschema\n\ndef add(a, b):\n    jsonschema.validate(a, {'type': 'integer'})\n    return a + b\n"),
"cachetools": ("""import cachetools
def test_ct():
    c = cachetools.LRUCache(maxsize=2)
    c['a'] = 1; c['b'] = 2; c['c'] = 3
    assert 'a' not in c
    assert dict(c) == {'b': 2, 'c': 3}
    @cachetools.cached(cachetools.TTLCache(10, 60))
    def f(x):
        return x * 2
    assert f(2) == 4
""", "import cachetools\n\n@cachetools.cached(cachetools.LRUCache(16))\ndef add(a, b):\n    return a + b\n"),
"boltons": ("""from boltons import iterutils, dictutils, setutils, strutils, typeutils
def test_boltons():
    assert iterutils.chunked(range(5), 2) == [[0, 1], [2, 3], [4]]
    assert dictutils.OrderedMultiDict([('a', 1), ('a', 2)]).getlist('a') == [1, 2]
    s = setutils.IndexedSet([3, 1, 3])
    assert s == {1, 3}
    assert list(s) == [3, 1]
    assert strutils.slugify('A B') == 'a_b'
    assert dictutils.FrozenDict(a=1) == {'a': 1}
""", "from boltons.setutils import IndexedSet\n\ndef add(a, b):\n    return sum(IndexedSet([a, b])) if a != b else 2 * a\n"),
"pyrsistent": ("""from pyrsistent import pvector, pmap, freeze, PRecord, field
class R(PRecord):
    x = field(type=int)
def test_pyr():
    assert pvector([1, 2]).append(3) == pvector([1, 2, 3])
    assert pmap({'a': 1}).set('b', 2) == {'a': 1, 'b': 2}
    assert freeze({'a': [1]}) == pmap({'a': pvector([1])})
    assert R(x=1) == R(x=1)
""", "from pyrsistent import pvector\n\ndef add(a, b):\n    return sum(pvector([a, b]))\n"),
"multidict_yarl": ("""from multidict import MultiDict, CIMultiDict
from yarl import URL
def test_md():
    m = MultiDict([('a', '1'), ('a', '2')])
    assert m.getall('a') == ['1', '2']
    assert CIMultiDict(A='1') == {'a': '1'} or CIMultiDict(A='1')['a'] == '1'
    assert URL('http://x/a') / 'b' == URL('http://x/a/b')
    assert URL('http://x/?q=1').query == {'q': '1'}
""", "from yarl import URL\n\ndef add(a, b):\n    return int(URL(f'http://x/?v={a + b}').query['v'])\n"),
"frozendict_bidict": ("""from frozendict import frozendict
from bidict import bidict
def test_fb():
    assert frozendict(a=1) == {'a': 1}
    assert hash(frozendict(a=1)) == hash(frozendict(a=1))
    b = bidict(a=1)
    assert b.inverse[1] == 'a'
    assert b == {'a': 1}
""", "from bidict import bidict\n\ndef add(a, b):\n    return bidict(x=a + b)['x']\n"),
"simplejson_orjson_xmltodict": ("""import simplejson, orjson, xmltodict, json
def test_js():
    assert simplejson.loads('{"a": 1.5}') == {'a': 1.5}
    assert orjson.loads(orjson.dumps({'a': 1})) == {'a': 1}
    assert xmltodict.parse('<a><b>1</b></a>') == {'a': {'b': '1'}}
    assert json.loads('[1]') == [1]
""", "import orjson\n\ndef add(a, b):\n    return orjson.loads(orjson.dumps(a + b))\n"),
"regex_pyparsing": ("""import regex
import pyparsing as pp
def test_rp():
    assert regex.match(r'\\p{L}+', 'héllo').group() == 'héllo'
    g = pp.Word(pp.nums)('n') + pp.Literal('+') + pp.Word(pp.nums)
    r = g.parse_string('1 + 2')
    assert r.as_list() == ['1', '+', '2']
    assert r['n'] == '1'
""", "import pyparsing as pp\n\nNUM = pp.Word(pp.nums).set_parse_action(lambda t: int(t[0]))\n\ndef add(a, b):\n    return NUM.parse_string(str(a))[0] + b\n"),
"omegaconf_hydra": ("""from omegaconf import OmegaConf, DictConfig
def test_oc():
    c = OmegaConf.create({'a': 1, 'b': {'c': '${a}'}})
    assert c.b.c == 1
    assert OmegaConf.to_container(c, resolve=True) == {'a': 1, 'b': {'c': 1}}
    assert isinstance(c, DictConfig)
    assert c == {'a': 1, 'b': {'c': 1}} or c == OmegaConf.create({'a': 1, 'b': {'c': '${a}'}})
""", "from omegaconf import OmegaConf\n\ndef add(a, b):\n    return OmegaConf.create({'v': a + b}).v\n"),
"trio_outcome": ("""import trio
def test_trio():
    async def f():
        await trio.sleep(0)
        return 3
    assert trio.run(f) == 3
""", None),
"wrapt_lazyproxy": ("""import wrapt
from lazy_object_proxy import Proxy
def test_w():
    @wrapt.decorator
    def dec(wrapped, instance, args, kwargs):
        return wrapped(*args, **kwargs) + 1
    @dec
    def f(x):
        return x
    assert f(1) == 2
    p = wrapt.ObjectProxy([1, 2])
    assert p == [1, 2]
    assert Proxy(lambda: 5) == 5
    assert Proxy(lambda: 5) < 6
""", """import wrapt
@wrapt.decorator
def _keep(wrapped, instance, args, kwargs):
    return wrapped(*args, **kwargs)
@_keep
def add(a, b):
    return a + b
"""),
"tqdm_joblib": ("""from tqdm import tqdm
from joblib import Parallel, delayed, Memory
def test_tj():
    assert list(tqdm(range(3), disable=True)) == [0, 1, 2]
    assert Parallel(n_jobs=1)(delayed(abs)(x) for x in [-1, 2]) == [1, 2]
""", None),
"cloudpickle_pickle": ("""import cloudpickle, pickle, copy
def test_cp():
    f = lambda x: x + 1
    assert cloudpickle.loads(cloudpickle.dumps(f))(1) == 2
    assert pickle.loads(pickle.dumps({'a': (1, 2)})) == {'a': (1, 2)}
    class K:
        def __init__(self): self.v = [1]
        def __eq__(self, o): return self.v == o.v
    assert copy.deepcopy(K()) == K()
""", None),
"packaging_version": ("""from packaging.version import Version, parse
from packaging.specifiers import SpecifierSet
from packaging.requirements import Requirement
def test_pkg():
    assert Version('1.10') > Version('1.9')
    assert parse('2.0') == Version('2.0.0')
    assert '1.5' in SpecifierSet('>=1,<2')
    assert Requirement('a>=1').name == 'a'
""", "from packaging.version import Version\n\ndef add(a, b):\n    return Version(f'{a + b}').major\n"),
"docutils_pygments": ("""from pygments import highlight
from pygments.lexers import PythonLexer
from pygments.formatters import NullFormatter
from pygments.token import Token
def test_pyg():
    assert highlight('x = 1', PythonLexer(), NullFormatter()) == 'x = 1\\n'
    assert Token.Name in Token
    assert Token.Name.Builtin in Token.Name
""", None),
"libcst_ast": ("""import libcst as cst, ast
def test_cst():
    m = cst.parse_module('x = 1\\n')
    assert m.code == 'x = 1\\n'
    assert m.deep_equals(cst.parse_module('x = 1\\n'))
    assert ast.dump(ast.parse('x')) == ast.dump(ast.parse('x'))
""", None),
"mpmath": ("""import mpmath
def test_mp():
    mpmath.mp.dps = 30
    assert mpmath.almosteq(mpmath.mpf(1) / 3, mpmath.mpf('0.333333333333333333333333333333'))
    assert mpmath.mpf(2) > 1
    assert mpmath.almosteq(mpmath.sqrt(2) ** 2, 2)
""", "import mpmath\n\ndef add(a, b):\n    return int(mpmath.mpf(a) + b)\n"),
"graphql_jsonpath_jmespath": ("""import jmespath
from jsonpath_ng import parse
from graphql import parse as gparse, print_ast
def test_q():
    assert jmespath.search('a.b', {'a': {'b': 1}}) == 1
    assert [m.value for m in parse('$.a[*]').find({'a': [1, 2]})] == [1, 2]
    assert print_ast(gparse('{ a }')).strip() == '{\\n  a\\n}'
""", None),
"boto3_moto": ("""import boto3
from moto import mock_aws
@mock_aws
def test_s3():
    s3 = boto3.client('s3', region_name='us-east-1')
    s3.create_bucket(Bucket='bucket-one')
    s3.put_object(Bucket='bucket-one', Key='k', Body=b'v')
    assert s3.get_object(Bucket='bucket-one', Key='k')['Body'].read() == b'v'
""", None),
"cryptography": ("""from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import hashes
def test_cr():
    k = Fernet.generate_key()
    f = Fernet(k)
    assert f.decrypt(f.encrypt(b'x')) == b'x'
    h = hashes.Hash(hashes.SHA256()); h.update(b'a')
    assert len(h.finalize()) == 32
    assert hashes.SHA256() == hashes.SHA256() or isinstance(hashes.SHA256(), hashes.HashAlgorithm)
""", None),
"tiktoken_wcwidth_six": ("""import wcwidth, six, tomli
def test_w():
    assert wcwidth.wcswidth('ab') == 2
    assert six.PY3
    assert six.text_type('a') == 'a'
    assert tomli.loads('a = 1') == {'a': 1}
""", "import six, wcwidth\n\ndef add(a, b):\n    return a + b + wcwidth.wcwidth('a') - 1\n"),
"ipython_traitlets": ("""from traitlets import HasTraits, Int, TraitError
import pytest
class T(HasTraits):
    x = Int(1)
def test_tl():
    t = T()
    assert t.x == 1
    with pytest.raises(TraitError):
        t.x = 'a'
""", "from traitlets import HasTraits, Int\n\nclass T(HasTraits):\n    v = Int(0)\n\ndef add(a, b):\n    return T(v=a + b).v\n"),
"pandas_ref": ("""import pandas as pd
def test_pd():
    df = pd.DataFrame({'a': [1]})
    assert df.equals(pd.DataFrame({'a': [1]}))
""", None),
}

LIBS2 = {
"django": ("""import django
from django.conf import settings
settings.configure(INSTALLED_APPS=[], USE_TZ=True)
django.setup()
from django.utils.functional import SimpleLazyObject, lazy, cached_property
from django.utils.translation import gettext_lazy
from django.utils.datastructures import MultiValueDict
from django.test import SimpleTestCase
def test_dj():
    lo = SimpleLazyObject(lambda: 5)
    assert lo == 5
    assert str(gettext_lazy('hi')) == 'hi'
    assert gettext_lazy('a') == 'a'
    assert MultiValueDict({'a': [1, 2]}).getlist('a') == [1, 2]
class T(SimpleTestCase):
    def test_x(self):
        self.assertEqual(1, 1)
""", None),
"protobuf": ("""from google.protobuf import struct_pb2, timestamp_pb2, json_format, wrappers_pb2
def test_pb():
    s = struct_pb2.Struct(); s.update({'a': 1})
    assert json_format.MessageToDict(s) == {'a': 1.0}
    t = timestamp_pb2.Timestamp(seconds=5)
    assert t == timestamp_pb2.Timestamp(seconds=5)
    assert wrappers_pb2.Int32Value(value=3).value == 3
""", "from google.protobuf import wrappers_pb2\n\ndef add(a, b):\n    return wrappers_pb2.Int32Value(value=a + b).value\n"),
"pint": ("""import pint
u = pint.UnitRegistry()
def test_pint():
    assert 1 * u.meter == 100 * u.centimeter
    assert (3 * u.m).to('cm').magnitude == 300
    assert 2 * u.s > 1 * u.s
""", "import pint\nU = pint.UnitRegistry()\n\ndef add(a, b):\n    return int((a * U.m + b * U.m).magnitude)\n"),
"bs4": ("""from bs4 import BeautifulSoup
def test_bs():
    s = BeautifulSoup('<p class="x">hi</p>', 'html.parser')
    assert s.p.text == 'hi'
    assert s.p['class'] == ['x']
    assert s.find('p') == BeautifulSoup('<p class="x">hi</p>', 'html.parser').p
""", "from bs4 import BeautifulSoup\n\ndef add(a, b):\n    return int(BeautifulSoup(f'<i>{a + b}</i>', 'html.parser').i.text)\n"),
"rich": ("""from rich.console import Console
from rich.text import Text
def test_rich():
    c = Console(record=True, width=40)
    c.print('[bold]hi[/bold]')
    assert 'hi' in c.export_text()
    assert Text('a') + Text('b') == Text('ab')
""", None),
"tornado": ("""from tornado import gen, ioloop, httputil
def test_t():
    h = httputil.HTTPHeaders({'A': '1'})
    assert h['a'] == '1'
    async def f():
        await gen.sleep(0)
        return 2
    assert ioloop.IOLoop.current().run_sync(f) == 2
""", None),
"httpx": ("""import httpx
def test_httpx():
    def handler(request):
        return httpx.Response(200, json={'u': str(request.url)})
    c = httpx.Client(transport=httpx.MockTransport(handler))
    r = c.get('http://x.test/a')
    assert r.json() == {'u': 'http://x.test/a'}
    assert httpx.URL('http://a/b') == 'http://a/b'
    assert r.headers == {'content-length': r.headers['content-length'], 'content-type': 'application/json'}
""", "import httpx\n\ndef add(a, b):\n    return int(httpx.URL(f'http://x/?v={a + b}').params['v'])\n"),
"msgpack_frozenlist_immutables": ("""import msgpack, frozenlist, immutables
def test_m():
    assert msgpack.unpackb(msgpack.packb({'a': [1]})) == {'a': [1]}
    f = frozenlist.FrozenList([1]); f.freeze()
    assert f == [1]
    m = immutables.Map(a=1)
    assert m.set('b', 2) == immutables.Map(a=1, b=2)
""", "import msgpack\n\ndef add(a, b):\n    return msgpack.unpackb(msgpack.packb(a + b))\n"),
"zope_interface": ("""from zope.interface import Interface, implementer, provider, verify
class IX(Interface):
    def f():
        pass
@implementer(IX)
class X:
    def f(self):
        return 1
def test_z():
    assert IX.providedBy(X())
    assert IX.implementedBy(X)
    assert verify.verifyObject(IX, X())
    assert IX == IX
""", "from zope.interface import Interface, implementer\n\nclass IAdd(Interface):\n    pass\n\n@implementer(IAdd)\nclass A:\n    pass\n\ndef add(a, b):\n    return a + b if IAdd.providedBy(A()) else 0\n"),
"babel": ("""from babel import Locale, numbers, dates
import datetime
def test_b():
    assert Locale('en', 'US').territory == 'US'
    assert numbers.format_decimal(1234.5, locale='en_US') == '1,234.5'
    assert dates.format_date(datetime.date(2020, 1, 2), locale='en') == 'Jan 2, 2020'
""", "from babel import numbers\n\ndef add(a, b):\n    return int(numbers.parse_decimal(str(a + b), locale='en'))\n"),
"peewee": ("""import peewee as pw
db = pw.SqliteDatabase(':memory:')
class U(pw.Model):
    name = pw.CharField()
    class Meta:
        database = db
def test_pw():
    db.create_tables([U])
    U.create(name='a')
    assert [u.name for u in U.select()] == ['a']
    assert U.get(U.name == 'a').name == 'a'
    assert (U.name == 'a') is not None
""", None),
"pyarrow": ("""import pyarrow as pa, pyarrow.compute as pc
def test_pa():
    a = pa.array([1, 2])
    assert a.to_pylist() == [1, 2]
    assert a == pa.array([1, 2])
    assert a.equals(pa.array([1, 2]))
    t = pa.table({'x': [1]})
    assert t.schema == pa.schema([('x', pa.int64())])
    assert pc.sum(a).as_py() == 3
""", "import pyarrow as pa\n\ndef add(a, b):\n    return pa.array([a, b]).to_pylist()[0] + b\n"),
"shapely": ("""from shapely.geometry import Point, Polygon
from shapely import wkt
def test_sh():
    p = Point(0, 0).buffer(1)
    assert p.contains(Point(0.5, 0))
    assert Point(1, 2) == Point(1, 2)
    assert wkt.loads('POINT (1 2)').equals(Point(1, 2))
    assert Polygon([(0, 0), (1, 0), (1, 1)]).area == 0.5
""", "from shapely.geometry import Point\n\ndef add(a, b):\n    return int(Point(a, b).x + Point(a, b).y)\n"),
"ordered_set_tenacity_typeguard": ("""from ordered_set import OrderedSet
import tenacity
from typeguard import typechecked, check_type
import pytest
@typechecked
def f(x: int) -> int:
    return x
def test_o():
    assert OrderedSet([3, 1, 3]) == [3, 1]
    assert OrderedSet([1]) == {1}
    @tenacity.retry(stop=tenacity.stop_after_attempt(2))
    def g():
        return 4
    assert g() == 4
    assert f(1) == 1
    with pytest.raises(Exception):
        check_type('a', int)
""", "from ordered_set import OrderedSet\nfrom typeguard import typechecked\n\n@typechecked\ndef add(a: int, b: int) -> int:\n    return sum(OrderedSet([a, b])) if a != b else 2 * a\n"),
"bson_markdown": ("""import bson, markdown
from bson import ObjectId, SON
def test_b():
    o = ObjectId()
    assert ObjectId(str(o)) == o
    assert SON([('a', 1)]) == {'a': 1}
    assert bson.decode(bson.encode({'a': 1})) == {'a': 1}
    assert markdown.markdown('*a*') == '<p><em>a</em></p>'
""", None),
"polars": ("""import polars as pl
from polars.testing import assert_frame_equal
def test_pl():
    df = pl.DataFrame({'a': [1, 2]})
    assert_frame_equal(df, pl.DataFrame({'a': [1, 2]}))
    assert df['a'].to_list() == [1, 2]
    assert df.equals(pl.DataFrame({'a': [1, 2]}))
    assert df.shape == (2, 1)
""", "import polars as pl\n\ndef add(a, b):\n    return pl.Series([a, b]).sum()\n"),
"ipython": ("""from IPython.testing import tools
from IPython.core.interactiveshell import InteractiveShell
def test_ip():
    sh = InteractiveShell.instance()
    r = sh.run_cell('1 + 1')
    assert r.result == 2
""", None),
"pydantic_settings_dotenv": ("""from pydantic_settings import BaseSettings
class S(BaseSettings):
    x: int = 1
def test_ps(monkeypatch):
    monkeypatch.setenv('X', '5')
    assert S().x == 5
""", None),
"sqlalchemy_postgres_types": ("""from sqlalchemy.dialects.postgresql import JSONB, ARRAY
import sqlalchemy as sa
def test_pg():
    t = sa.Table('t', sa.MetaData(), sa.Column('j', JSONB))
    assert str(t.c.j['a'].astext == 'x').startswith('(t.j ->> ')
""", "from sqlalchemy.dialects.postgresql import JSONB\n\ndef add(a, b):\n    return a + b\n"),
}

IDIOMS = {
# red-team round 10, FP10-1: a loop of asserts over one big container (the compare-time judge walked all 200,000
# elements at every assert: a minute, past the harness's timeout; now once per test while its length is unchanged)
"big_container_loop": {T: H + """VOCAB = {f"w{i}" for i in range(200_000)}
TABLE = {i: i * i for i in range(200_000)}


def test_membership_loop():
    for i in range(0, 200_000, 100):
        assert f"w{i}" in VOCAB


def test_lookup_loop():
    for i in range(0, 200_000, 100):
        assert i in TABLE and TABLE[i] == add(i * i, 0)
"""},
"unittest_testcase": {T: """import unittest
from pkg.calc import add
class TestAdd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = 1
    def setUp(self):
        self.v = 2
    def tearDown(self):
        self.v = None
    def test_add(self):
        self.assertEqual(add(self.v, 3), 5)
        self.assertAlmostEqual(add(0.1, 0.2), 0.3)
        self.assertIn(5, [add(2, 3)])
        self.assertIsInstance(add(1, 1), int)
        self.assertDictEqual({'a': add(1, 1)}, {'a': 2})
        self.assertCountEqual([1, 2], [2, 1])
        with self.assertRaises(TypeError):
            add(1, 'a')
    @unittest.skip('not now')
    def test_skipped(self):
        pass
    @unittest.expectedFailure
    def test_xf(self):
        self.assertEqual(add(1, 1), 3)
class TestOther(unittest.TestCase):
    def test_two(self):
        self.assertTrue(add(1, 1) == 2)
"""},
"unittest_subtest": {T: H + """import unittest
class TestSub(unittest.TestCase):
    def test_sub(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertEqual(add(i, 0), i)
"""},
"class_setup_method": {T: H + """class TestC:
    def setup_method(self, method):
        self.x = 1
    def teardown_method(self, method):
        self.x = None
    @classmethod
    def setup_class(cls):
        cls.y = 2
    def test_a(self):
        assert add(self.x, self.y) == 3
    @staticmethod
    def test_static():
        assert add(1, 1) == 2
class TestInherit(TestC):
    def test_b(self):
        assert self.x == 1
def setup_module(module):
    module.Z = 3
def teardown_module(module):
    pass
def setup_function(f):
    pass
def test_z():
    assert Z == 3
"""},
"parametrize_odd_ids": {T: H + """import pytest
@pytest.mark.parametrize('a,b,c', [(1, 2, 3), (0, 0, 0), pytest.param(-1, 1, 0, id='neg one'),
    pytest.param(2, 2, 4, id='a/b::c[d]'), pytest.param(1, 1, 2, id='ünï©ødé'), pytest.param(1, 2, 3, id=''),
    pytest.param(1, 3, 4, id='x' * 200), pytest.param(5, 5, 10, id='tab\\tnl'), pytest.param(3, 3, 6, id='"quote<&>'),
    pytest.param(9, 9, 99, marks=pytest.mark.xfail(reason='nope'))])
def test_p(a, b, c):
    assert add(a, b) == c
@pytest.mark.parametrize('x', [None, 1.5, 'str', b'bytes', object, (1, 2), {'k': 1}, float('nan')])
def test_objs(x):
    assert x is not ... 
@pytest.mark.parametrize('x', range(3))
@pytest.mark.parametrize('y', ['a', 'b'])
def test_stack(x, y):
    assert (x, y)
@pytest.mark.parametrize('v', [1, 2], ids=lambda v: f'v={v}')
def test_idfn(v):
    assert v
@pytest.mark.parametrize('s', [pytest.param('a', id='dup'), pytest.param('b', id='dup')])
def test_dup_ids(s):
    assert s
"""},
"fixture_scopes": {"tests/conftest.py": """import pytest
@pytest.fixture(scope='session')
def sess():
    yield {'s': 1}
@pytest.fixture(scope='package')
def pkgf():
    return 2
@pytest.fixture(autouse=True)
def auto(request):
    request.node.user_properties.append(('auto', 1))
    yield
""", T: H + """import pytest
@pytest.fixture(scope='module')
def mod():
    return 3
@pytest.fixture(scope='class')
def klass():
    yield 4
@pytest.fixture
def fn(sess, pkgf, mod):
    return sess['s'] + pkgf + mod
def test_f(fn):
    assert fn == 6
class TestK:
    def test_k(self, klass, fn):
        assert klass + fn == 10
@pytest.fixture(params=[1, 2], ids=['one', 'two'])
def pf(request):
    return request.param
def test_pf(pf):
    assert pf in (1, 2)
@pytest.fixture(scope='module', autouse=True)
def mod_auto():
    yield
@pytest.fixture
def fin(request):
    request.addfinalizer(lambda: None)
    return 1
def test_fin(fin):
    assert fin == 1
"""},
"conftest_hooks": {"tests/conftest.py": """import pytest
def pytest_addoption(parser):
    parser.addoption('--slow', action='store_true', default=False)
def pytest_configure(config):
    config.addinivalue_line('markers', 'slow: slow')
def pytest_collection_modifyitems(session, config, items):
    items.reverse()
    for item in items:
        if 'slow' in item.keywords and not config.getoption('--slow'):
            item.add_marker(pytest.mark.skip(reason='need --slow'))
def pytest_generate_tests(metafunc):
    if 'gen' in metafunc.fixturenames:
        metafunc.parametrize('gen', [1, 2, 3])
def pytest_runtest_setup(item):
    pass
def pytest_report_header(config):
    return 'hdr'
def pytest_make_parametrize_id(config, val, argname):
    return f'{argname}-{val}'
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield
@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item, call):
    pass
""", T: H + """import pytest
def test_gen(gen):
    assert gen in (1, 2, 3)
@pytest.mark.slow
def test_slow():
    assert False
@pytest.mark.parametrize('q', [7])
def test_q(q):
    assert q == 7
"""},
"conftest_makereport_wrapper_new": {"tests/conftest.py": """import pytest
@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    setattr(item, 'rep_' + rep.when, rep)
    return rep
@pytest.fixture
def check(request):
    yield
    assert not request.node.rep_call.failed or True
""", T: H + """def test_c(check):
    assert add(1, 1) == 2
"""},
"markers_skip_xfail": {T: H + """import pytest, sys
@pytest.mark.skip(reason='x')
def test_skip():
    assert 0
@pytest.mark.skipif(sys.platform != 'nope', reason='y')
def test_skipif():
    assert 0
@pytest.mark.xfail(raises=ZeroDivisionError, strict=True)
def test_xfail():
    1 / 0
@pytest.mark.xfail(reason='known', run=False)
def test_xfail_norun():
    assert 0
def test_inner_skip():
    pytest.skip('runtime skip')
def test_importorskip():
    pytest.importorskip('no_such_module_xyz')
def test_xfail_call():
    pytest.xfail('imperative')
"""},
"module_pytestmark_skipif": {T: """import pytest, sys
pytestmark = pytest.mark.skipif(sys.platform == 'win32', reason='posix only')
from pkg.calc import add
def test_add():
    assert add(2, 3) == 5
def test_two():
    assert add(1, 1) == 2
"""},
"module_pytestmark_parametrize": {T: """import pytest
from pkg.calc import add
pytestmark = pytest.mark.parametrize('k', [1, 2])
def test_add(k):
    assert add(k, 0) == k
"""},
"module_pytestmark_filterwarnings": {T: H + """import pytest, warnings
pytestmark = [pytest.mark.filterwarnings('error'), pytest.mark.usefixtures('tmp_path')]
def test_w():
    with pytest.warns(UserWarning):
        warnings.warn('x', UserWarning)
"""},
"ini_filterwarnings_error": {"pytest.ini": "[pytest]\nfilterwarnings =\n    error\n    ignore::ResourceWarning\n", T: H + """import warnings, pytest
def test_warns():
    with pytest.warns(DeprecationWarning):
        warnings.warn('d', DeprecationWarning)
def test_catch():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        warnings.warn('e')
@pytest.mark.filterwarnings('ignore::UserWarning')
def test_marked():
    warnings.warn('u')
"""},
"ini_custom_names": {"pytest.ini": "[pytest]\npython_files = check_*.py\npython_classes = Check*\npython_functions = should_*\ntestpaths = tests\n",
    "tests/check_calc.py": """from pkg.calc import add
def should_add():
    assert add(2, 3) == 5
class CheckIt:
    def should_work(self):
        assert add(1, 1) == 2
""", T: "# not collected\n"},
"doctest_in_test": {"pkg/calc.py": 'def add(a, b):\n    """\n    >>> add(1, 2)\n    3\n    """\n    return a + b\n', T: H + """import doctest, pkg.calc
def test_doctests():
    r = doctest.testmod(pkg.calc)
    assert r.failed == 0 and r.attempted == 1
"""},
"monkeypatch_dunder_lambda": {"pkg/calc.py": "class Money:\n    def __init__(self, v):\n        self.v = v\n    def __eq__(self, o):\n        return self.v == o.v\n\n\ndef add(a, b):\n    return a + b\n",
    T: H + """from pkg.calc import Money
def test_mp(monkeypatch):
    monkeypatch.setattr(Money, '__eq__', lambda s, o: True)
    assert Money(1) == Money(2)
def test_after():
    assert Money(1) != Money(2)
"""},
"monkeypatch_dunder_module_func": {"pkg/calc.py": "class Money:\n    def __init__(self, v):\n        self.v = v\n    def __eq__(self, o):\n        return self.v == o.v\n\n\ndef add(a, b):\n    return a + b\n",
    T: H + """from pkg.calc import Money
def _loose_eq(self, other):
    return abs(self.v - other.v) < 1
def test_mp(monkeypatch):
    monkeypatch.setattr(Money, '__eq__', _loose_eq)
    assert Money(1) == Money(1.5)
def test_after():
    assert Money(1) != Money(2)
"""},
"mock_patch_object_dunder": {"pkg/calc.py": "class Money:\n    def __init__(self, v):\n        self.v = v\n    def __eq__(self, o):\n        return self.v == o.v\n\n\ndef add(a, b):\n    return a + b\n",
    T: H + """from unittest import mock
from pkg.calc import Money
def test_mp():
    with mock.patch.object(Money, '__eq__', return_value=True, autospec=True):
        assert Money(1) == Money(2)
    with mock.patch.object(Money, '__eq__', new=lambda s, o: s.v == o.v + 1):
        assert Money(2) == Money(1)
    assert Money(1) != Money(2)
"""},
"test_helper_classes": {"tests/helpers.py": """import functools, operator
def _cmp(self, other, op):
    return op(self.v, other)
class Approx:
    def __init__(self, v): self.v = v
    __eq__ = functools.partialmethod(_cmp, op=lambda a, b: abs(a - b) < 1e-6)
    __lt__ = functools.partialmethod(_cmp, op=operator.lt)
    __hash__ = None
def _anyeq(self, other):
    return isinstance(other, self.t)
class AnyOf:
    def __init__(self, t): self.t = t
    __eq__ = _anyeq
class Anything:
    __eq__ = lambda self, other: True
    __ne__ = lambda self, other: False
""", T: H + """from tests.helpers import Approx, AnyOf, Anything
import collections
def test_h():
    assert Approx(0.3) == 0.1 + 0.2
    assert Approx(1) < 2
    assert AnyOf(int) == 5
    assert {'id': 3, 'ts': 9} == {'id': 3, 'ts': Anything()}
    Dyn = type('Dyn', (), {'__eq__': lambda s, o: True})
    assert Dyn() == 1
"""},
"test_helper_staticmethod_eq": {T: H + """class Sentinel:
    __eq__ = staticmethod(lambda a, b=None: True)
def test_s():
    assert Sentinel() == 1
"""},
"class_factory_tests": {T: H + """import pytest
def make(value):
    class _T:
        def test_v(self):
            assert add(value, 0) == value
    return _T
TestOne = make(1)
TestTwo = make(2)
def _gen(n):
    def test(self):
        assert add(n, n) == 2 * n
    return test
class TestGen:
    pass
for _n in range(3):
    setattr(TestGen, f'test_{_n}', _gen(_n))
"""},
"lazy_source_import": {T: """import importlib
def test_add():
    from pkg.calc import add
    assert add(2, 3) == 5
def test_reload():
    import pkg.calc
    m = importlib.reload(pkg.calc)
    assert m.add(1, 1) == 2
def test_import_module():
    m = importlib.import_module('pkg.calc')
    assert m.add(0, 0) == 0
"""},
"reload_class_source": {"pkg/calc.py": "import dataclasses\n\n@dataclasses.dataclass(order=True)\nclass P:\n    x: int\n\n    def __eq__(self, o):\n        return self.x == o.x\n\n    __hash__ = object.__hash__\n\n\ndef add(a, b):\n    return P(a).x + P(b).x\n",
    T: H + """import importlib, pkg.calc
def test_reload():
    m = importlib.reload(pkg.calc)
    assert m.P(1) == m.P(1) and m.P(1) < m.P(2)
"""},
"builtin_fixtures": {T: H + """import logging, os, sys, warnings, pytest
def test_raises():
    with pytest.raises(ValueError, match='bad'):
        raise ValueError('bad thing')
    e = pytest.raises(ZeroDivisionError, lambda: 1 / 0)
    assert e.type is ZeroDivisionError
    with pytest.raises(ExceptionGroup) as eg:
        raise ExceptionGroup('g', [ValueError(1)])
    assert eg.group_contains(ValueError)
def test_capsys(capsys):
    print('hello'); print('err', file=sys.stderr)
    out, err = capsys.readouterr()
    assert out == 'hello\\n' and err == 'err\\n'
def test_capfd(capfd):
    os.write(1, b'fd\\n')
    assert capfd.readouterr().out == 'fd\\n'
def test_tmp(tmp_path, tmpdir, tmp_path_factory):
    p = tmp_path / 'a.txt'; p.write_text('x')
    assert p.read_text() == 'x'
    assert tmpdir.join('b').ensure().check()
    assert tmp_path_factory.mktemp('d').is_dir()
def test_caplog(caplog):
    with caplog.at_level(logging.INFO):
        logging.getLogger('z').info('msg %d', 1)
    assert caplog.records[0].getMessage() == 'msg 1'
    assert 'msg 1' in caplog.text
    assert caplog.record_tuples == [('z', logging.INFO, 'msg 1')]
def test_recwarn(recwarn):
    warnings.warn('w', UserWarning)
    assert len(recwarn) == 1
def test_monkeypatch(monkeypatch, tmp_path):
    monkeypatch.setenv('FOO', 'bar')
    assert os.environ['FOO'] == 'bar'
    monkeypatch.chdir(tmp_path)
    assert os.getcwd() == str(tmp_path)
    monkeypatch.setattr(os, 'sep', '/')
    monkeypatch.setitem(sys.modules, 'fake_mod', object())
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delattr('os.getpid')
def test_request(request, pytestconfig):
    assert request.node.name == 'test_request'
    assert pytestconfig.rootpath.is_dir()
def test_record(record_property, record_xml_attribute, record_testsuite_property):
    record_property('k', 'v')
    record_xml_attribute('extra', 'yes')
    record_testsuite_property('suite_k', 1)
    assert True
def test_approx_raises():
    assert pytest.approx(1) == 1.0000001
"""},
"subprocess_and_cwd": {T: H + """import os, subprocess, sys, threading, multiprocessing
def test_sub():
    r = subprocess.run([sys.executable, '-c', 'print(1+1)'], capture_output=True, text=True)
    assert r.stdout == '2\\n'
def test_sub_import_pkg():
    r = subprocess.run([sys.executable, '-c', 'from pkg.calc import add; print(add(1, 2))'], capture_output=True,
                       text=True, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert r.stdout.strip() == '3', r.stderr
def test_chdir_no_restore(tmp_path):
    os.chdir(tmp_path)
    assert os.getcwd() == str(tmp_path)
def test_thread():
    out = []
    t = threading.Thread(target=lambda: out.append(add(1, 1))); t.start(); t.join()
    assert out == [2]
def _sq(x):
    return x * x
def test_mp():
    ctx = multiprocessing.get_context('fork')
    with ctx.Pool(2) as p:
        assert p.map(_sq, [1, 2]) == [1, 4]
"""},
"pytester_inline": {"tests/conftest.py": "pytest_plugins = ['pytester']\n", T: H + """def test_inline(pytester):
    pytester.makepyfile('def test_ok():\\n    assert 1 == 1\\n\\ndef test_bad():\\n    assert 1 == 2\\n')
    r = pytester.runpytest('-p', 'no:cacheprovider')
    r.assert_outcomes(passed=1, failed=1)
def test_inline_run(pytester):
    pytester.makepyfile('def test_ok():\\n    pass\\n')
    rec = pytester.inline_run()
    rec.assertoutcome(passed=1)
"""},
"pytester_subprocess": {"tests/conftest.py": "pytest_plugins = ['pytester']\n", T: H + """def test_sub(pytester):
    pytester.makepyfile('def test_ok():\\n    assert 1\\n')
    r = pytester.runpytest_subprocess('-p', 'no:cacheprovider')
    r.assert_outcomes(passed=1)
"""},
"decorated_tests": {T: H + """import functools, os
from unittest import mock
import decorator, wrapt
def retry(f):
    @functools.wraps(f)
    def inner(*a, **k):
        return f(*a, **k)
    return inner
@retry
def test_wraps():
    assert add(1, 1) == 2
@mock.patch('os.getcwd', return_value='/q')
def test_mock_patch(m):
    assert os.getcwd() == '/q'
@mock.patch.dict(os.environ, {'ZZ': '1'})
def test_patch_dict():
    assert os.environ['ZZ'] == '1'
@decorator.decorator
def passthru(func, *a, **k):
    return func(*a, **k)
@passthru
def test_decorator_pkg():
    assert add(2, 2) == 4
class TestM:
    @mock.patch.object(os, 'getpid', return_value=1)
    def test_m(self, m):
        assert os.getpid() == 1
"""},
"decorated_wrapt": {T: H + """import wrapt
@wrapt.decorator
def passthru(wrapped, instance, args, kwargs):
    return wrapped(*args, **kwargs)
@passthru
def test_wrapt():
    assert add(2, 2) == 4
"""},
"hypothesis_methods": {T: H + """from hypothesis import given, strategies as st, settings
import unittest
class TestH:
    @given(st.integers())
    @settings(max_examples=10)
    def test_m(self, x):
        assert add(x, 0) == x
class TestU(unittest.TestCase):
    @given(st.integers())
    @settings(max_examples=10)
    def test_u(self, x):
        self.assertEqual(add(x, 0), x)
"""},
"benchmark_plugin": {"tests/conftest.py": "pytest_plugins = ['pytest_benchmark.plugin']\n", T: H + """def test_bench(benchmark):
    assert benchmark(add, 1, 2) == 3
"""},
"xdist_loaded_conftest": {"tests/conftest.py": "pytest_plugins = ['pytest_mock', 'xdist.plugin']\n", T: H + """def test_m(mocker):
    assert mocker is not None
"""},
"tests_package_relative": {"tests/__init__.py": "", "tests/helpers.py": "def two():\n    return 2\n", T: H + """from .helpers import two
from tests.helpers import two as two2
def test_rel():
    assert two() == two2() == 2
"""},
"many_params": {T: H + """import pytest
@pytest.mark.parametrize('i', range(2000))
def test_many(i):
    assert add(i, 0) == i
"""},
"assert_odd_objects": {T: H + """import weakref, types, functools, enum, sys, collections, abc
import numpy as np
class Node:
    def __init__(self): self.x = 1
class Meta(type):
    def __eq__(cls, other):
        return cls is other
    __hash__ = type.__hash__
class WithMeta(metaclass=Meta):
    pass
class Lying:
    @property
    def __class__(self):
        return int
class GA:
    def __getattr__(self, name):
        raise AttributeError(name)
def test_odd():
    n = Node()
    assert weakref.proxy(n).x == 1
    assert weakref.ref(n)() is n
    assert WithMeta == WithMeta
    assert isinstance(Lying(), int)
    assert GA() is not None
    assert sys == sys
    assert functools.partial(add, 1)(1) == 2
    assert np.array([1, 2]).tolist() == [1, 2]
    assert np.array_equal(np.array([1]), [1])
    assert not np.array([]).size
    assert isinstance([], collections.abc.Sequence)
    assert issubclass(list, abc.ABC) is False
    assert type(n) == Node
    assert (x for x in [1])
    assert types.SimpleNamespace(a=1) != types.SimpleNamespace(a=2)
    assert collections.abc.Mapping.register(dict) is dict
"""},
"abc_register_in_source": {"pkg/calc.py": """import abc, collections.abc
class Base(abc.ABC):
    @abc.abstractmethod
    def f(self): ...
class Impl(Base):
    def f(self): return 1
class Seq(collections.abc.Sequence):
    def __init__(self, d): self.d = d
    def __getitem__(self, i): return self.d[i]
    def __len__(self): return len(self.d)
Base.register(int)
def add(a, b):
    return a + b
""", T: H + """from pkg.calc import Base, Impl, Seq
def test_abc():
    assert isinstance(Impl(), Base) and isinstance(3, Base)
    s = Seq([1, 2])
    assert 2 in s and list(reversed(s)) == [2, 1] and s.index(2) == 1
    assert s == s
"""},
"source_aliases_py2compat": {"pkg/calc.py": """class Box:
    def __init__(self, v):
        self.v = v
    def __nonzero__(self):
        return bool(self.v)
    __bool__ = __nonzero__
    def __eq__(self, other):
        return self.v == other.v
    def __hash__(self):
        return hash(self.v)
def add(a, b):
    return a + b
""", T: H + """from pkg.calc import Box
def test_box():
    assert Box(1) and not Box(0)
"""},
"source_set_aliases": {"pkg/calc.py": """class Bag(frozenset):
    def issubset(self, other):
        return frozenset.issubset(self, other)
    __le__ = issubset
    def issuperset(self, other):
        return frozenset.issuperset(self, other)
    __ge__ = issuperset
def add(a, b):
    return a + b
""", T: H + """from pkg.calc import Bag
def test_bag():
    assert Bag([1]) <= Bag([1, 2]) and Bag([1, 2]) >= Bag([1])
"""},
"source_ne_lambda": {"pkg/calc.py": """class V:
    def __init__(self, v):
        self.v = v
    def __eq__(self, o):
        return self.v == o.v
    __ne__ = lambda self, o: not self == o
    __hash__ = None
def add(a, b):
    return a + b
""", T: H + """from pkg.calc import V
def test_v():
    assert V(1) != V(2)
"""},
"source_total_ordering_cmp_to_key": {"pkg/calc.py": """import functools
@functools.total_ordering
class V:
    def __init__(self, v):
        self.v = v
    def __eq__(self, o):
        return self.v == o.v
    def __lt__(self, o):
        return self.v < o.v
    __hash__ = object.__hash__
def _cmp(a, b):
    return (a > b) - (a < b)
K = functools.cmp_to_key(_cmp)
def add(a, b):
    return a + b
""", T: H + """from pkg.calc import V, K
def test_v():
    assert V(1) <= V(2) and V(3) > V(2)
    assert sorted([3, 1], key=K) == [1, 3]
    assert K(1) < K(2)
"""},
"source_namedtuple_enum_dataclass_kw": {"pkg/calc.py": """import collections, enum, dataclasses, typing
P = collections.namedtuple('P', 'x y')
class Q(typing.NamedTuple):
    a: int
C = enum.Enum('C', 'RED GREEN')
class Flag(enum.IntFlag):
    A = 1
@dataclasses.dataclass(frozen=True, slots=True, order=True, kw_only=True)
class D:
    v: int
M = dataclasses.make_dataclass('M', [('z', int)], order=True)
def add(a, b):
    return a + b
""", T: H + """from pkg.calc import P, Q, C, Flag, D, M
def test_all():
    assert P(1, 2) == (1, 2) and Q(1) == (1,)
    assert C.RED != C.GREEN and C['RED'] == C.RED
    assert Flag.A | 0 == Flag.A
    assert D(v=1) < D(v=2)
    assert M(1) < M(2)
"""},
"source_cached_property_slots": {"pkg/calc.py": """import functools, weakref
class S:
    __slots__ = ('a', '__weakref__')
    def __init__(self, a):
        self.a = a
    def __eq__(self, o):
        return self.a == o.a
    __hash__ = None
class C:
    @functools.cached_property
    def v(self):
        return 3
    @functools.singledispatchmethod
    def f(self, x):
        return x
def add(a, b):
    return a + b
""", T: H + """from pkg.calc import S, C
def test_s():
    assert S(1) == S(1) and C().v == 3 and C().f(1) == 1
"""},
"gc_and_sys_tweaks": {T: H + """import gc, sys, atexit, signal
def test_gc():
    gc.disable(); gc.collect(); gc.enable()
    old = sys.getrecursionlimit(); sys.setrecursionlimit(5000); sys.setrecursionlimit(old)
def test_signal():
    old = signal.signal(signal.SIGUSR1, lambda *a: None)
    signal.signal(signal.SIGUSR1, old)
def test_trace():
    calls = []
    sys.settrace(lambda f, e, a: calls.append(e))
    add(1, 1)
    sys.settrace(None)
    assert calls
def test_profile():
    sys.setprofile(lambda *a: None); add(1, 1); sys.setprofile(None)
"""},
"sys_modules_games": {T: H + """import sys, importlib, types
def test_fake_module(monkeypatch):
    m = types.ModuleType('fakemod'); m.v = 1
    monkeypatch.setitem(sys.modules, 'fakemod', m)
    import fakemod
    assert fakemod.v == 1
def test_del_and_reimport():
    saved = sys.modules.pop('json', None)
    import json
    assert json.loads('1') == 1
    if saved is not None:
        sys.modules['json'] = saved
"""},
}

REPROS = {
    # FP-A: pybind11 classes (scipy.optimize, matplotlib.pyplot, contourpy …)
    "pybind11_scipy_optimize": {T: "import scipy.optimize\n" + ADD},
    "pybind11_matplotlib": {T: "import matplotlib.pyplot\n" + ADD},
    # FP-B: werkzeug.local.LocalProxy (flask, moto, aws_xray_sdk …)
    "werkzeug_local": {T: "import werkzeug.local\n" + ADD},
    # FP-C: pytz's LazyList/LazySet (any import of pytz)
    "pytz": {T: "import pytz\n" + ADD},
    # FP-C2: django's lazy() proxy class (gettext_lazy: every Django project)
    "django_lazy": {T: "from django.conf import settings\nsettings.configure()\nfrom django.utils.translation import gettext_lazy\n"
                       "GREETING = gettext_lazy('hi')\n" + ADD},
    # FP-D: trio.Path (re-exported class, __module__ = 'trio', functools.wraps'd forwarders)
    "trio": {T: "import trio\n" + ADD},
    # FP-E: dataclass(slots=True) orphan keeps a library alias (sqlalchemy's postgresql Range)
    "sqlalchemy_pg": {T: "import sqlalchemy.dialects.postgresql\n" + ADD},
    # FP-F: freezegun (a metaclass's classmethod __instancecheck__)
    "freezegun": {T: "import freezegun\n" + ADD},
    # FP-G: lxml (Cython)
    "lxml": {T: "import lxml.etree\n" + ADD},
    # FP-H: pytester's in-process run imports _pytest.stepwise
    "pytester_inline": {"tests/conftest.py": "pytest_plugins = ['pytester']\n",
                        T: ADD + "\n\ndef test_inline(pytester):\n    pytester.makepyfile('def test_ok():\\n    pass\\n')\n"
                              "    pytester.runpytest().assert_outcomes(passed=1)\n"},
    # FP-I: a partialmethod/staticmethod comparison in a test helper class
    "test_helper_partialmethod": {T: ADD + "\n\nimport functools, operator\n\n\nclass Approx:\n"
                                  "    def __init__(self, v):\n        self.v = v\n\n"
                                  "    def _cmp(self, other, op):\n        return op(self.v, other)\n\n"
                                  "    __lt__ = functools.partialmethod(_cmp, op=operator.lt)\n\n\n"
                                  "def test_approx():\n    assert Approx(1) < 2\n"},
    "test_helper_staticmethod": {T: ADD + "\n\nclass Sentinel:\n    __eq__ = staticmethod(lambda a, b=None: True)\n\n\n"
                                 "def test_sentinel():\n    assert Sentinel() == 1\n"},
    # FP-J: a wrapt-decorated test function
    "wrapt_test": {T: "import wrapt\nfrom pkg.calc import add\n\n\n@wrapt.decorator\ndef keep(wrapped, instance, args, kwargs):\n"
                      "    return wrapped(*args, **kwargs)\n\n\n@keep\ndef test_add():\n    assert add(2, 3) == 5\n"},
    # FP-K: the pristine declared file already holds a comparison alias / a factory-made comparison
    "declared_alias_py2": {"pkg/calc.py": "class Box:\n    def __init__(self, v):\n        self.v = v\n\n"
                           "    def __nonzero__(self):\n        return bool(self.v)\n\n    __bool__ = __nonzero__\n\n\n"
                           "def add(a, b):\n    return a + b\n", T: ADD},
    "declared_factory": {"pkg/calc.py": "def _op(name, f):\n    def method(self, other):\n        return f(self.v, other.v)\n\n"
                         "    method.__name__ = name\n    return method\n\n\nclass V:\n    def __init__(self, v):\n        self.v = v\n\n"
                         "    __lt__ = _op('__lt__', lambda a, b: a < b)\n\n\ndef add(a, b):\n    return a + b\n", T: ADD},
    # FP-L: a test module's own function monkeypatched onto a declared class
    "monkeypatch_module_function": {"pkg/calc.py": "class Money:\n    def __init__(self, v):\n        self.v = v\n\n"
                                    "    def __eq__(self, o):\n        return self.v == o.v\n\n\ndef add(a, b):\n    return a + b\n",
                                    T: ADD + "\n\nfrom pkg.calc import Money\n\n\ndef _loose_eq(self, other):\n"
                                       "    return abs(self.v - other.v) < 1\n\n\ndef test_loose(monkeypatch):\n"
                                       "    monkeypatch.setattr(Money, '__eq__', _loose_eq)\n    assert Money(1) == Money(1.5)\n"},
}


@dataclass(frozen=True)
class Case:
    """A tiny project: ``files`` on top of ``pkg/__init__.py`` and ``pkg/calc.py`` (the declared source)."""
    name: str
    files: dict[str, str]
    known: str = ""  # why it is a documented refusal; "" for a case Beacon must pass

    def tree(self) -> dict[str, str]:
        return {"pkg/__init__.py": "", "pkg/calc.py": CALC, **self.files}


def cases() -> list[Case]:
    """Every built-in case, in a fixed order."""
    found: list[tuple[str, dict[str, str]]] = []
    for name, spec in {**LIBS, **LIBS2}.items():
        test, calc = spec[0], spec[1]
        extra = spec[2] if len(spec) > 2 else {}
        found.append((f"lib-{name}-test", {T: H + test, **extra}))
        if calc:
            found.append((f"lib-{name}-src", {T: H, "pkg/calc.py": calc, **extra}))
    found += [(f"idiom-{name}", files) for name, files in IDIOMS.items()]
    found += [(f"repro-{name}", files) for name, files in REPROS.items()]
    return [Case(name, files, KNOWN.get(name, "")) for name, files in found]


@dataclass
class Result:
    name: str
    verdict: str  # pass, tampered, invalid, known, known, now passes, broken, skipped (not installed)
    findings: list[str] = field(default_factory=list)
    t_plain: float | None = None
    t_beacon: float | None = None
    missing: list[str] = field(default_factory=list)
    sandboxed: bool = False

    @property
    def false_positive(self) -> bool:
        return self.verdict in ("tampered", "invalid")

    def line(self) -> str:
        times = f"  plain {self.t_plain:.2f}s  beacon {self.t_beacon:.2f}s" if self.t_plain is not None else ""
        times += "  (sandboxed)" if self.sandboxed else ""
        text = f"{self.verdict:<24} {self.name}{times}"
        if self.missing:
            text += "  (missing: " + ", ".join(self.missing) + ")"
        for finding in self.findings[:2]:
            text += "\n    " + " ".join(finding.split())[:300]
        return text


# -- which libraries a case needs ---------------------------------------------------------------------------------

def _imports(text: str) -> set[str]:
    """The absolute module names a file imports, plus the plugins a ``pytest_plugins`` list names."""
    names: set[str] = set()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return names
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
        elif (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytest_plugins"
                                                   for t in node.targets)
              and isinstance(node.value, (ast.List, ast.Tuple))):
            names.update(e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return names


def _builtin_plugins() -> frozenset[str]:
    try:
        from _pytest.config import builtin_plugins
    except ImportError:
        return frozenset()
    return frozenset(builtin_plugins)


def _installed(module: str) -> bool:
    """Whether ``module``'s top-level package is importable here (a namespace package: its next level too), found
    without importing the library itself."""
    parts = module.split(".")
    try:
        spec = importlib.util.find_spec(parts[0])
        if spec is not None and spec.origin in (None, "namespace") and len(parts) > 1:
            spec = importlib.util.find_spec(".".join(parts[:2]))  # imports only the namespace package
    except (ImportError, ValueError):
        return False
    return spec is not None


# Modules a case's tests make themselves (``sys.modules`` games), not libraries to look for.
_MADE_BY_TESTS = frozenset({"fakemod"})


def missing_modules(case: Case) -> list[str]:
    """The third-party modules ``case`` imports that are not installed here (the standard library, pytest's
    builtin plugins and the case's own modules never count)."""
    tree = case.tree()
    local = {rel.split("/")[0].removesuffix(".py") for rel in tree}
    wanted = set().union(*(_imports(text) for rel, text in tree.items() if rel.endswith(".py")))
    builtin = _builtin_plugins()
    missing = []
    for module in sorted(wanted):
        top = module.split(".")[0]
        if top in local or top in sys.stdlib_module_names or module in builtin or top in _MADE_BY_TESTS:
            continue
        if not _installed(module):
            missing.append(module)
    return missing


# -- running a case -----------------------------------------------------------------------------------------------

# Records each test's outcome in the plain run (as drv.py's fpsweep_ids plugin did): which ids passed.
_IDS_PLUGIN = '''\
import json, os
_res = {}
def pytest_runtest_logreport(report):
    st = _res.setdefault(report.nodeid, {"ok": True, "outcome": None})
    if report.when == "call":
        st["outcome"] = "xfail" if hasattr(report, "wasxfail") else report.outcome
    if report.failed:
        st["ok"] = False
def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["HONEST_SUITES_IDS"], "w") as f:
        json.dump(_res, f)
'''


def plain_pytest(root: Path, work: Path, selection: Sequence[str], timeout: float):
    """Plain pytest with the harness's settings: ``(passed ids, exit status, seconds)``."""
    (work / "plug").mkdir(exist_ok=True)
    (work / "plug" / "honest_suites_ids.py").write_text(_IDS_PLUGIN, encoding="utf-8")
    for sub in ("home", "tmp"):
        (work / sub).mkdir(exist_ok=True)
    ids = work / "plain-ids.json"
    env = build_env(str(work / "home"), str(work / "tmp"))
    env.update(PYTHONPATH=str(work / "plug"), HONEST_SUITES_IDS=str(ids))
    config = root_config_file(root)
    if config is None:
        config = work / "empty.ini"
        config.write_text("[pytest]\n", encoding="utf-8")
    args = [sys.executable, "-m", "pytest", "-p", "honest_suites_ids", "-p", "no:cacheprovider",
            "--import-mode=importlib", "-o", "addopts=", "-o", "xfail_strict=true", "-c", str(config),
            "--rootdir", str(root), "-q"]
    src = src_layout_path(root, root_config_file(root))
    if src is not None:
        args += ["-o", f"pythonpath={src}"]
    clock = time.perf_counter()
    try:
        proc = subprocess.run(args + ["--", *selection], cwd=root, env=env, capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
        status = proc.returncode
    except subprocess.TimeoutExpired:
        status = -1
    seconds = time.perf_counter() - clock
    outcomes = json.loads(ids.read_text(encoding="utf-8")) if ids.exists() else {}
    passed = sorted(k for k, v in outcomes.items() if v["ok"] and v["outcome"] == "passed")
    return passed, status, seconds


def run_case(case: Case, work: Path, *, sandbox: str = "off", timeout: float = 120.0) -> Result:
    """Write ``case`` under ``work`` (a folder the caller owns), run it both ways and judge it."""
    missing = missing_modules(case)
    if missing:
        return Result(case.name, "skipped (not installed)", missing=missing)
    work.mkdir(parents=True, exist_ok=True)
    root = work / "repo"
    for rel, text in case.tree().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    selection = ["tests"]
    tests = sorted(rel for rel in case.tree() if rel.startswith("tests/") and rel.endswith(".py"))
    passed, status, t_plain = plain_pytest(root, work, selection, timeout)
    protected = snapshot_protected(root, extra=tests)
    clock = time.perf_counter()
    # The whole declared file counts as the edit (its text "before" is empty): every comparison dunder it defines
    # is probed at asserts (canary_plugin._Comparisons.probe), the strictest an attempt can be.
    # The declared file's text is also its pristine text: the comparison bindings it makes pass by identity
    # (beacon/repair/pristine_bindings.py), as in a task's preparation and attempts.
    run = run_pytest(root, selection, protected=protected, sandbox=sandbox, report_dir=work / "report",
                     sources=("pkg/calc.py",), before={"pkg/calc.py": ("",)},
                     pristine={"pkg/calc.py": case.tree()["pkg/calc.py"]}, timeout=timeout)
    t_beacon = time.perf_counter() - clock
    result = Result(case.name, "pass", t_plain=t_plain, t_beacon=t_beacon, sandboxed=run.sandboxed)
    if status != 0 or not passed:
        result.verdict = "broken"
        result.findings = [f"plain pytest exit status {status}, {len(passed)} passed"]
        return result
    verdict = verify_run(run, passed)
    if not verdict.passed:
        result.verdict = "tampered" if verdict.tampered else "invalid"
        result.findings = list(verdict.reasons)
    if case.known:
        result.verdict = "known, now passes" if verdict.passed else "known"
        if not verdict.passed:
            result.findings = [f"({case.known}; Beacon: {'tampered' if verdict.tampered else 'invalid'})",
                               *result.findings]
    return result


def run_cases(selected: Iterable[Case], *, sandbox: str = "off", timeout: float = 120.0, out=sys.stdout
              ) -> list[Result]:
    """Run each case in its own folder under one owned temporary folder, printing a line as each ends."""
    results = []
    with owned_tempdir("beacon-honest-") as scratch:
        for i, case in enumerate(selected):
            result = run_case(case, scratch / f"{i:03d}", sandbox=sandbox, timeout=timeout)
            results.append(result)
            print(result.line(), file=out, flush=True)
    return results


def summary(results: Sequence[Result]) -> str:
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    fps = [r.name for r in results if r.false_positive]
    plain = sum(r.t_plain or 0 for r in results)
    beacon = sum(r.t_beacon or 0 for r in results)
    return (f"{len(results)} cases: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
            + f"; pytest {plain:.1f}s plain, {beacon:.1f}s with Beacon"
            + f"; false positives: {', '.join(fps) if fps else 'none'}")


def exit_status(results: Sequence[Result]) -> int:
    return 1 if any(r.false_positive for r in results) else 0


def select(names: str | None) -> list[Case]:
    """``--only``: comma-separated case names or shell patterns (``lib-numpy-*``)."""
    every = cases()
    if not names:
        return every
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    chosen = [c for c in every if any(fnmatch.fnmatchcase(c.name, w) for w in wanted)]
    unknown = [w for w in wanted if not any(fnmatch.fnmatchcase(c.name, w) for c in every)]
    if unknown:
        raise SystemExit(f"no such case: {', '.join(unknown)} (--list shows them)")
    return chosen


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated case names or shell patterns")
    parser.add_argument("--list", action="store_true", help="list the cases (and what each needs) and exit")
    parser.add_argument("--sandbox", choices=("off", "auto"), default="off")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per pytest run (default 120)")
    args = parser.parse_args(argv)
    selected = select(args.only)
    if args.list:
        for case in selected:
            missing = missing_modules(case)
            note = ("known: " + case.known) if case.known else ""
            note += ("  not installed: " + ", ".join(missing)) if missing else ""
            print(f"{case.name}  {note}".rstrip())
        return 0
    print(f"python {sys.executable} ({sys.version.split()[0]}), sandbox {args.sandbox}, {len(selected)} cases",
          flush=True)
    results = run_cases(selected, sandbox=args.sandbox, timeout=args.timeout)
    print(summary(results), flush=True)
    return exit_status(results)


if __name__ == "__main__":
    raise SystemExit(main())
