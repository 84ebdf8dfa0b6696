"""Runs *inside* the test process: starts pytest with two canary tests the code under test cannot predict.

This file is copied next to the run (outside the checkout) and imported by a
short bootstrap given to ``python -P -c`` (see
:func:`beacon.repair.canary.bootstrap_code`); it imports nothing from Beacon.

1. :func:`main` reads the run's secret from an inherited pipe (its number is
   the bootstrap's first argument) and closes the pipe before pytest is
   imported and before the checkout goes on ``sys.path`` (``-P`` keeps it off
   until then), so no project code runs while the pipe is open. The secret is
   never on the command line or in the environment. A re-executed process
   (``os.execv`` with the same arguments) finds the pipe closed and exits
   without running pytest.
2. :class:`CanaryPlugin` is handed to ``pytest.main(plugins=…)``. After the
   project's tests are collected (so after project code has been imported and
   had every chance to patch pytest), it writes a test module into a fresh
   private temporary folder (mode 0600, deleted right after import: the only
   moment the secret is in a file), named to match the project's
   ``python_files`` so pytest's assertion rewriting treats it like any test
   module, and imports it through pytest's own ``Module`` collector. Two
   ordinary ``Function`` items join the project's own test modules (same
   conftest hooks, same node-id prefix), each right after its module's last
   test so no class or module setup is split: ``must_fail`` (``assert A ==
   B``, A ≠ B, whose rewritten failure message names both numbers) in a random
   module; ``must_pass`` (``assert N == N``) last. must_pass also asserts that
   nothing pytest uses to run and report tests changed (:class:`_Watch`:
   ``Function.runtest``, ``SetupState``, report creation, JUnit writing,
   assertion rewriting, the runtest hook implementations, each item's class,
   own attributes and test function), which is also checked around every test
   call. Two checks need no list: a phase that raised but is reported passed,
   and a ``Function``'s call phase reported passed although
   ``pytest_pyfunc_call`` never ran for it with its collected function. The
   plugin's report hook fails must_pass itself when anything was found, so a
   run that never calls must_pass's body cannot pass it vacuously. Patched
   ``runtest``, forced report outcomes, disabled rewriting, deselection, a
   re-exec with a forcing plugin, selective tampering and a hand-written report
   all break at least one of: must_fail failed with ``A == B`` in its message,
   must_pass passed, both present exactly once. Also list-free
   (:class:`_Comparisons`, red-team round 6): every class's comparison
   dunders, judged after collection, after each test call and in must_pass's
   final check, against always-equal values built where the static screen
   cannot see them (a lambda or renamed function from the task's declared
   sources, or a class, partial or other callable as ``__eq__`` on a class
   made during the run); and at the moment of each comparison in a rewritten
   assert (red-team round 7: pytest's assertion rewriting, patched before any
   test module loads, passes each operand, and a plain ``assert x``'s value,
   through ``_pytest.assertion.rewrite._beacon_judge``), which sees a class
   freed or a dunder restored before the next sampled check.
   And list-free (:class:`_Provenance`): collection runs after project code
   loaded, so the edit could rewire it (``PyCollector.collect``, a
   ``pytest_pycollect_makeitem`` hook, a module swapped in ``sys.modules``, a
   ``__code__`` swapped at import); at the same three moments, each
   ``Function`` item's collected test function (through a bound method and
   ``__wrapped__``) must be a ``def`` at its own first line in a pristine file
   inside the checkout that is not a declared source (the canaries, written
   outside it, are exempt by identity).
   And, for a repair task (the harness sends the pristine code of what the edit changed), two oracles:
   :class:`_Oracle` re-makes each comparison that gave a test its answer with the changed code swapped for the
   pristine code, and :class:`_Shadow` re-makes each call of changed code from unchanged code with the pristine
   version on deep copies of its arguments (session 22: the values the comparisons read were built by the edit).
   And, for the replay outside the run (:mod:`beacon.repair.replay`, red-team round 25's R25-0), :class:`_Recorder`
   keeps the calls the tests make into the declared files whose arguments are data, sent as the must-pass canary's
   ``beacon_replay_calls`` property.
   And wholesale (:class:`_Internals`, red-team round 7): everything pytest
   and pluggy are made of — their modules' globals, their classes' whole
   ``__dict__``, their functions' code — snapshotted when the plugin is
   created, and pluggy's hook callers at ``pytest_configure``, compared after
   collection, after each test call and in must_pass's final check.
3. Because the must_fail canary always fails, pytest would exit 1 on an honest
   run; when it and nothing else failed, the exit status is set back to 0 so
   exit codes keep pytest's meaning for the project's own tests. The other way
   round, a run in which any other report failed never exits 0: :func:`main`
   ends it through ``os._exit`` with pytest's own non-zero status (or 1),
   whatever ``pytest.main`` returned (red-team round 6 replaced
   ``_pytest.config.ExitCode``), and must_pass fails with the plugin's failure
   ledger, which the harness accepts only beside a report that shows a failure
   too (a report writer rewritten to say "passed" is ``tampered``). The ledger
   reads each report's own ``outcome`` (``BaseReport``'s instance ``__dict__``
   descriptor), never ``report.failed``, which a class can redefine.

The verdict is never taken here: the harness reads the JUnit report from its
own pipe and checks the canaries with the secret it kept
(:func:`beacon.repair.canary.check_canaries`).
"""
from __future__ import annotations

import ast
import atexit
import _queue
import _thread
import builtins
import binascii
import codecs
import collections
import contextvars
import copy
import ctypes
import decimal
import dis
import enum
import fnmatch
import fractions
import functools
import gc
import hashlib
import importlib
import importlib.machinery
import io
import itertools
import json
import marshal
import math
import operator
import opcode
import os
import shutil
import _random
import stat
import sys
import sysconfig
import tempfile
import threading
import time
import types
import weakref
import zlib
from pathlib import Path, PurePath


# ---- What the plugin calls, as it was when the plugin was imported (session 35, red-team round 33) -------------------
# This module's functions looked up builtins and the attributes of the modules above when they ran, and the edit's code
# runs in the same process: rebinding ``itertools.chain`` handed the rewriting guard its own snapshot back (a forged
# pass), and ``posixpath.abspath`` ran inside a dozen checks (``os.path.realpath`` is Python code that looks up its
# helpers in posixpath's namespace). The plugin is imported before any project code, so from here on:
# - its functions get a private copy of the builtins (a function takes its builtins from the module's
#   ``__builtins__`` when it is made: name lookups, ``class`` and ``import`` statements in it use the copy);
# - its module names (os, itertools, types, ...) are snapshots of those modules (:func:`_pinned`): an attribute
#   rebound later is not seen. For the modules whose Python functions the checks call to resolve paths and copy or
#   read code (os, posixpath, genericpath, stat, shutil, tempfile, copy, dis, fnmatch), those functions are made
#   again over a private copy of their module's namespace, in which these modules are the snapshots too (sys a
#   snapshot, the builtins the copy): ``os.path.realpath`` then calls the snapshot's ``_joinrealpath`` and ``os.lstat``.
# What stays live: classes' methods (their own namespaces: ``pathlib.Path``, ``json.JSONEncoder``, hence _dumps),
# ``re`` (through fnmatch's patterns), and ``sys``, ``threading``, ``_thread`` in this module (it sets attributes on
# them; the functions it calls there are bound below).
__builtins__ = dict(vars(sys.modules["builtins"]))

_PINNED_DEEP = ("os", "posixpath", "genericpath", "stat", "shutil", "tempfile", "copy", "dis", "fnmatch")


def _pinned(modules) -> dict:
    """``{name: a snapshot namespace}`` for ``modules``; those named in :data:`_PINNED_DEEP` with their Python functions
    made again over a private copy of their namespace (dict globals copied too: ``copy``'s dispatch table)."""
    deep = {name: sys.modules[name] for name in _PINNED_DEEP if name in sys.modules}
    spaces = {id(vars(m)): dict(vars(m)) for m in deep.values()}
    frozen_sys = types.SimpleNamespace(**{k: v for k, v in vars(sys).items() if type(k) is str})
    out = {name: types.SimpleNamespace() for name in {**deep, **{m.__name__: m for m in modules}}}
    clones: dict = {}

    def clone(function):
        made = clones.get(id(function))
        if made is None:
            made = clones[id(function)] = types.FunctionType(function.__code__, spaces[id(function.__globals__)],
                                                             function.__name__, function.__defaults__,
                                                             function.__closure__)
            made.__kwdefaults__, made.__qualname__ = function.__kwdefaults__, function.__qualname__
            made.__dict__.update(function.__dict__)
        return made

    for space in spaces.values():
        space["__builtins__"] = __builtins__  # (the private copy above)
        for key, value in list(space.items()):
            if type(value) is types.ModuleType and value.__name__ in deep:
                space[key] = out[value.__name__]
            elif value is sys:
                space[key] = frozen_sys
            elif type(value) is types.FunctionType and id(value.__globals__) in spaces:
                space[key] = clone(value)
            elif type(value) is dict and key.startswith("_") and not key.startswith("__"):
                space[key] = dict(value)
            elif type(value) is functools._lru_cache_wrapper and id(value.__wrapped__.__globals__) in spaces:
                space[key] = functools.lru_cache(maxsize=value.cache_parameters()["maxsize"])(clone(value.__wrapped__))
    for name, namespace in out.items():
        module = deep.get(name) or sys.modules[name]
        source = spaces.get(id(vars(module))) or vars(module)
        namespace.__dict__.update({k: v for k, v in source.items() if type(k) is str})
        if name not in deep:  # (a shallow snapshot: a submodule bound on it is the snapshot when there is one)
            namespace.__dict__.update({k: out[v.__name__] for k, v in source.items()
                                       if type(v) is types.ModuleType and v.__name__ in out and type(k) is str})
    return out


_PINNED = _pinned([ast, binascii, copy, ctypes, dis, enum, fnmatch, functools, gc, importlib, io, itertools, json,
                   marshal, math, operator, os, shutil, stat, sysconfig, tempfile, time, types, weakref, zlib])
(ast, binascii, copy, ctypes, dis, enum, fnmatch, functools, gc, importlib, io, itertools, json, marshal, math, operator,
 os, shutil, stat, sysconfig, tempfile, time, types, weakref, zlib) = (
    _PINNED[name] for name in ("ast", "binascii", "copy", "ctypes", "dis", "enum", "fnmatch", "functools", "gc",
                               "importlib", "io", "itertools", "json", "marshal", "math", "operator", "os",
                               "shutil", "stat", "sysconfig", "tempfile", "time", "types", "weakref", "zlib"))
_json_encoder = sys.modules["json.encoder"]
_JSON_MAKE, _JSON_STRING = _json_encoder.c_make_encoder, _json_encoder.c_encode_basestring_ascii


def _json_default(value):
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _dumps(value) -> str:
    """``json.dumps(value, sort_keys=True)`` through the C encoder bound above (``json.dumps`` runs ``JSONEncoder``'s
    methods, which look up their helpers in ``json.encoder`` when called)."""
    if _JSON_MAKE is None:  # (a Python without the _json accelerator)
        return json.dumps(value, sort_keys=True)
    return "".join(_JSON_MAKE({}, _json_default, _JSON_STRING, None, ": ", ", ", True, False, True)(value, 0))


# pytest is imported only after the secret has been read (see main): importing it runs no project code
# under `python -P`, but nothing is imported from where the checkout could shadow it before then.
pytest = None  # type: ignore[assignment]


def _hookimpl(**opts):
    """``pytest.hookimpl(**opts)`` without importing pytest: pluggy reads these options from the attribute."""
    def mark(function):
        function.pytest_impl = {"wrapper": False, "hookwrapper": False, "optionalhook": False, "tryfirst": False,
                                "trylast": False, "specname": None, **opts}
        return function
    return mark

_MODULE_TEMPLATE = '''"""Beacon canary tests (added by the harness, not part of the project)."""


def {must_pass}():
    value = {left}
    assert value == {left}
    changes = _beacon_watch()
    assert not changes, repr(changes)  # a str: not shortened by the assertion message


def {must_fail}():
    left = {left}
    assert left == {right}
'''


# How must_pass's failure starts when its only complaint is the failure ledger (see
# beacon.repair.canary.LEDGER, which must be the same string).
LEDGER = "beacon ledger:"
# The must-pass canary's JUnit property with the number of subtest reports logged (beacon.repair.pytest_runner reads
# it): pytest's JUnit writer counts each in ``tests=`` without a testcase of its own.
SUBTESTS = "beacon_subtests"
# Its property with the counts of changed code's calls the pristine code re-made (_Shadow.evidence; read by
# beacon.repair.pytest_runner under the same name).
ORACLE_CALLS = "beacon_oracle_calls"
# Its property with the calls the tests made into the declared files, for the replay outside the run (_Recorder; read
# by beacon.repair.replay, the same string).
REPLAY_CALLS = "beacon_replay_calls"

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


# pytest internals that decide whether a test ran and what its report says, as (module, class or None, name).
_WATCHED = (
    ("_pytest.python", "Function", "runtest"), ("_pytest.python", "Function", "setup"),
    ("_pytest.python", None, "pytest_pyfunc_call"), ("_pytest.runner", None, "runtestprotocol"),
    ("_pytest.runner", None, "call_and_report"), ("_pytest.runner", None, "call_runtest_hook"),
    ("_pytest.runner", "CallInfo", "from_call"), ("_pytest.runner", None, "pytest_runtest_makereport"),
    ("_pytest.reports", "TestReport", "from_item_and_call"), ("_pytest.reports", "BaseReport", "passed"),
    ("_pytest.reports", "TestReport", "__init__"), ("_pytest.runner", None, "TestReport"),  # red-team round 4
    ("_pytest.reports", "BaseReport", "failed"), ("_pytest.junitxml", "LogXML", "pytest_runtest_logreport"),
    ("_pytest.junitxml", "LogXML", "pytest_sessionfinish"), ("_pytest.junitxml", "_NodeReporter", "append_failure"),
    ("_pytest.junitxml", "_NodeReporter", "append_pass"), ("_pytest.junitxml", "_NodeReporter", "to_xml"),
    ("_pytest.assertion.rewrite", None, "rewrite_asserts"),
    ("_pytest.assertion.rewrite", "AssertionRewritingHook", "exec_module"),
    ("_pytest.assertion.rewrite", "AssertionRewriter", "visit_Assert"),
    # red-team round 5: how an item is set up, finds its function and reaches its hooks
    ("_pytest.runner", "SetupState", "setup"), ("_pytest.runner", "SetupState", "teardown_exact"),
    ("_pytest.python", "PyobjMixin", "obj"), ("_pytest.python", "Function", "_getobj"),
    ("_pytest.python", "Function", "_initrequest"), ("_pytest.nodes", "Node", "ihook"),
    # red-team round 7: the compare-time judge (_Comparisons.install_judge) and what reaches it
    ("_pytest.assertion.rewrite", None, "_beacon_judge"), ("_pytest.assertion.rewrite", None, "PYC_TAIL"),
    ("_pytest.assertion.rewrite", None, "_beacon_link"),
    ("_pytest.assertion.rewrite", "AssertionRewriter", "visit_Compare"),
    ("_pytest.assertion.rewrite", "AssertionRewriter", "helper"),
    ("_pytest.assertion.rewrite", "AssertionRewriter", "visit_UnaryOp"),
    ("_pytest.assertion.rewrite", "AssertionRewriter", "visit_BoolOp"),
)
# unittest's assertion methods the compare-time judge wraps (_Comparisons.install_unittest_judge): what a
# ``unittest.TestCase`` compares with (3.11's deprecated aliases call the unwrapped originals, so they are wrapped too).
_UNITTEST_JUDGED = (
    "assertEqual", "assertNotEqual", "assertTrue", "assertFalse", "assertIn", "assertNotIn", "assertLess",
    "assertLessEqual", "assertGreater", "assertGreaterEqual", "assertAlmostEqual", "assertNotAlmostEqual",
    "assertIsInstance", "assertNotIsInstance", "assertCountEqual", "assertSequenceEqual", "assertListEqual",
    "assertTupleEqual", "assertSetEqual", "assertDictEqual", "assertMultiLineEqual", "assertDictContainsSubset",
    "_baseAssertEqual", "assertEquals", "assertNotEquals", "assertAlmostEquals", "assertNotAlmostEquals", "assert_",
    "failUnless", "failIf", "failUnlessEqual", "failIfEqual", "failUnlessAlmostEqual", "failIfAlmostEqual",
)
_WATCHED += tuple(("unittest.case", "TestCase", name) for name in _UNITTEST_JUDGED)
# Red-team round 38: every function of unittest's own classes (``TestCase._callTestMethod = staticmethod(bool)`` ran no
# test method, ``_getAssertEqualityFunc`` replaced answered for ints), not only the assertion methods.
import unittest.case as _unittest_case  # noqa: E402 (pytest imports it anyway; the standard library's)
_WATCHED += tuple(dict.fromkeys(
    ("unittest.case", _cls_name, _name) for _cls_name, _cls in vars(_unittest_case).items()
    if type(_cls) is type and _cls.__module__ == "unittest.case"
    for _name, _value in vars(_cls).items() if type(_value) is types.FunctionType
    and ("unittest.case", _cls_name, _name) not in _WATCHED))
# _WATCHED grouped for reading each module and class once: module -> {class or None -> [(name, label)]}.
_WATCHED_PLAN: dict = {}
for _module, _cls, _name in _WATCHED:
    _WATCHED_PLAN.setdefault(_module, {}).setdefault(_cls, []).append(
        (_name, f"{_module}.{_cls + '.' if _cls else ''}{_name}"))
del _module, _cls, _name
# The wrapper's globals hold ``__unittest``: unittest and pytest leave such frames out of a failure's traceback.
_UNITTEST_WRAPPER = """
def wrap(original, judge, again, op):
    def judged(*args, **kwargs):
        for value in args[1:]:
            judge(value)
        for value in kwargs.values():
            judge(value)
        result = original(*args, **kwargs)
        again(original, args, kwargs, op)
        return result
    return judged
"""
# The link a passed assertion method made (its first two arguments), for the probe (judge_method; the oracle runs
# the whole method again).
_UNITTEST_LINKS = {
    **dict.fromkeys(("assertEqual", "assertEquals", "failUnlessEqual", "_baseAssertEqual", "assertListEqual",
                     "assertTupleEqual", "assertSetEqual", "assertDictEqual", "assertSequenceEqual",
                     "assertMultiLineEqual"), "__eq__"),
    **dict.fromkeys(("assertNotEqual", "assertNotEquals", "failIfEqual"), "__ne__"),
    "assertIn": "__contains__", "assertNotIn": "!__contains__", "assertLess": "__lt__", "assertLessEqual": "__le__",
    "assertGreater": "__gt__", "assertGreaterEqual": "__ge__",
}
# Attributes an item's own ``__dict__`` must not gain or rebind between collection and its call: an instance
# attribute shadows the class's method (``item.runtest = lambda: None`` runs nothing and raises nothing).
# ``_obj`` is what pytest calls; collection stores it on the instance, so only its identity is compared.
# (``funcargs``: the fixture values pytest hands the test function, by name: a dict subclass put there answered for
# them, red-team round 37; pytest sets it to None itself after an item's teardown)
_ITEM_ATTRS = ("runtest", "setup", "teardown", "obj", "_obj", "ihook", "funcargs")
# An item's identity, held in ``Node``'s slots (not in ``vars``): rebinding one renames or re-parents the item, and a
# passing item renamed into a failing test's id would report that id as passed (red-team round 6's untried route).
# (``_nodeid`` up to pytest 9.1, ``_id`` from 9.2; the ``nodeid`` property builds a new string per call there.)
_ITEM_IDENTITY = ("_nodeid", "_id", "name", "parent", "session", "config", "path")
_ABSENT = object()
# Hooks whose implementations decide how a test runs and is reported: none may appear or vanish mid-run.
_WATCHED_HOOKS = ("pytest_runtest_protocol", "pytest_runtest_setup", "pytest_runtest_call", "pytest_runtest_teardown",
                  "pytest_runtest_makereport", "pytest_runtest_logreport", "pytest_pyfunc_call",
                  "pytest_report_teststatus", "pytest_runtestloop", "pytest_sessionfinish")


def _cached_result(definition):
    """A fixture definition's own ``cached_result`` (its instance dict, read through CPython's descriptor), or None."""
    getter = _instance_dict_getter(_type(definition))
    space = getter(definition) if getter is not None else None
    return dict.get(space, "cached_result") if _type(space) is dict and _str_keys(space) else None


def _same_part(a, b) -> bool:
    """``a is b``, element by element for tuples (the item state's parts)."""
    if _type(a) is tuple and _type(b) is tuple:
        return _len(a) == _len(b) and _all(_map(_is, a, b))
    return a is b


def _item_label(state) -> str:
    """An item's node id as collection recorded it (``_Watch._item_state``), for a message; asks the item nothing."""
    if state is None:
        return "a test item"
    identity = state["identity"]
    for name in ("_nodeid", "_id"):
        value = identity.get(name, _ABSENT)
        if _type(value) is str:
            return value
        if value is not _ABSENT and value is not None:
            return str(value)
    return "a test item"


class _Watch:
    """Snapshots of everything that decides a test's outcome; ``changes()`` diffs against them.

    pytest's internals are recorded when the plugin is created, before pytest has loaded any project
    file (modules pytest imports later, such as ``_pytest.junitxml``, when the session is configured);
    hook implementations after collection, when every conftest has registered (each must be pytest's,
    pluggy's, the plugin's or a def of a file that is not a declared source; any change later is a finding);
    test functions after collection.
    Catches tampering that spares the canaries (a ``runtest`` patched only for the project's tests, a
    hook registered mid-run, a test function whose ``__code__`` is swapped by an earlier test), whatever
    syntax the edit used to reach it.
    """

    def __init__(self):
        self.canaries_module = None  # (the plugin's own: its file is gone once imported)
        self.internals = self._internals()
        self.hooks: dict | None = None
        self.items: dict = {}
        self.item_types: dict = {}
        self.config = None
        python = sys.modules["_pytest.python"]
        self.hookimpl_cls = getattr(sys.modules.get("pluggy._hooks"), "HookImpl", None)
        self.function_cls = python.Function  # pytest's own classes, as they were before any project file loaded
        self.definition_cls = getattr(python, "FunctionDefinition", None)
        self.unittest_cls = None
        self.torn_down: set[int] = set()  # ids of items whose teardown phase was reported
        self.modules: dict = {}  # id(test module) -> (it, its namespace, a copy of the namespace after collection)
        self.descriptors = None  # _Internals.descriptors (set by the plugin once it made its _Internals)
        self.hook_impls = None  # _Internals.hook_impls (likewise)
        self._impl_slots = None  # HookImpl's slot getters: plugin_name, function, plugin
        self._readers: dict = {}  # id(item class) -> (the class, its __dict__ getter, {identity name: slot getter})
        self.module_names: dict = {}  # id(test module) -> its __name__ at collection (for messages)

    def configure(self, config) -> None:
        self.config = config
        for name, value in self._internals().items():
            self.internals.setdefault(name, value)  # modules imported since the plugin was created
        unittest = sys.modules.get("_pytest.unittest")  # a builtin plugin: imported by now, before any project file
        self.unittest_cls = getattr(unittest, "TestCaseFunction", None)

    observers: "_IdentitySet" = ()  # (set by arm)

    def needs_pyfunc_call(self, item) -> bool:
        """A test whose call phase must go through ``pytest_pyfunc_call``: a ``Function`` (by its class at
        collection), but not unittest's (its ``runtest`` runs the TestCase) nor a never-run definition."""
        cls = self.items[id(item)]["type"] if id(item) in self.items else type(item)
        return (issubclass(cls, self.function_cls)
                and not any(c is not None and issubclass(cls, c) for c in (self.unittest_cls, self.definition_cls)))

    def arm(self, items, hook_origin=None) -> list[str]:
        """After collection: record hooks and test functions; returns changes made during collection.
        ``hook_origin(plugin, function)``: why a watched hook's implementation is not pytest's, pluggy's, the
        plugin's or a def of a file that is not a declared source (None when it is; ``CanaryPlugin._hook_origin``):
        every implementation is judged, not only those registered during collection (the edit's import-time code
        runs while a conftest imports it, before collection starts)."""
        changes = self.changes()
        hooks = self._hooks()
        for name, impls in hooks.items():
            for plugin_name, function, plugin in impls:
                why = hook_origin(plugin, function) if hook_origin is not None else "not judged"
                if why is not None:
                    changes.append(f"hook {name}: {plugin_name}'s implementation is {why}")
        self.hooks = hooks
        # pytest's own log-capturing plugin, by identity: a suite may unregister it around its tests (flask's
        # test_logging.py does, with an autouse fixture; the real-suites sweep of session 20). Without it no log is
        # captured, and no outcome changes, so its hooks may be missing (never replaced or added to).
        logging_cls = getattr(sys.modules.get("_pytest.logging"), "LoggingPlugin", None)
        self.observers = _IdentitySet(plugin for impls in hooks.values() for _, _, plugin in impls
                                      if logging_cls is not None and _type(plugin) is logging_cls)
        self.items = {id(item): self._item_state(item) for item in items}
        # id(item class) -> (the class, its own runtest): by id and through type's descriptors (a metaclass could
        # answer hashing and attribute lookups with code of the edit)
        self.item_types = {}
        for cls in _map(_type, items):
            if _id(cls) not in self.item_types:
                own = _class_dict(cls)
                self.item_types[_id(cls)] = (cls, types.MappingProxyType.get(own, "runtest") if _str_keys(own)
                                             else _ABSENT)
        for item in items:
            module = getattr(item, "module", None)
            if _is_module(module) and _type(module) is not types.ModuleType:
                # (red-team round 36: a test module's class whose property answered test_add with a function of the
                # served code over other globals; pytest makes every test module a plain module)
                changes.append(f"the test module of {item.nodeid} is of a subclass of ModuleType "
                               f"({_class_name(_type(module))}), not a plain module")
                continue
            if _type(module) is types.ModuleType and _id(module) not in self.modules:
                space = _namespace(module)
                if not _str_keys(space):
                    changes.append(f"the test module of {item.nodeid}: a global whose name is not a string")
                    continue
                imported = _imported_names(module, getattr(item, "path", None))
                if imported is None:  # (the canaries' file, deleted once imported: their module's own file)
                    imported = _imported_names(module) if module is not self.canaries_module else []
                if imported is None:  # (round 36: a module whose __file__ pointed nowhere skipped this check)
                    changes.append(f"the test module of {item.nodeid}: its file cannot be read")
                    imported = []
                self.module_names[_id(module)] = dict.get(space, "__name__", "?")
                self.modules[_id(module)] = (module, space, dict.copy(space), [
                    (name, source, attribute, _source_value(source, attribute, scan=True))
                    for name, source, attribute in imported])
        return changes

    def module_changes(self) -> list[str]:
        """The test modules' names rebound or deleted since collection, other than by a test's ``monkeypatch`` or
        ``mock.patch`` (red-team rounds 20 and 21: code freed by a garbage collection later in the run rebound
        ``tests.test_numbers.clamp`` to a right answer, so every assert of the test read the test module's name,
        not the project's function). A test that assigns its own module's globals (``global X; X = …``) is
        refused too: the price."""
        out = []
        for module, space, before, imported in self.modules.values():
            for name, value in before.items():
                now = dict.get(space, name, _ABSENT)
                if now is not value and (_id(space), name) not in _PATCHED_ANY:
                    out.append(f"{self.module_names.get(_id(module), '?')}: the test module's name {name!r} was "
                               f"{'deleted' if now is _ABSENT else 'rebound'} after collection")
            # A name rebound before collection ended (a collection's garbage collection frees the edit's code while
            # the test modules load: red-team round 22) is told by its source: ``from pkg.calc import add`` must
            # hold ``pkg.calc``'s ``add`` while that is what it was at collection (a test's
            # ``importlib.reload(pkg.calc)`` makes a new one: then only the check above holds).
            for name, source, attribute, then in imported:
                if then is _ABSENT or (_id(space), name) in _PATCHED_ANY:
                    continue
                if _source_value(source, attribute) is then and dict.get(space, name, _ABSENT) is not then:
                    out.append(f"{self.module_names.get(_id(module), '?')}: the test module's name {name!r} is not "
                               f"{source}.{attribute}, which it imported")
        return out

    def odd_keys(self, items, internal: bool = True) -> list[str]:
        """The dicts this watch reads by key that hold a key which is not an exact ``str`` (:func:`_str_keys`): the
        watched modules' namespaces and classes' own dicts (:data:`_WATCHED`), each item's own attributes (read only
        while its class is the one collection gave it: ``vars`` asks the class), the test modules' namespaces and
        those of the modules their names were imported from. Asked before the watch's checks, which are skipped when
        one is found: reading such a dict by key would run the edit's code inside the check. ``internal=False``:
        not pytest's own modules and classes, which ``_Internals.findings`` has just proven hold only the snapshot's
        own keys (or reported them)."""
        out = [f"{label}: a key that is not a string" for label, space in self._watched_spaces(internal)
               if not _str_keys(space)]
        for item in items:
            before = self.items.get(_id(item))
            if before is not None and _type(item) is not before["type"]:
                out.append(f"{_item_label(before)}: the item's class was replaced")
            else:
                own, _slots = self._read_item(item)
                if own is None:
                    out.append(f"{_item_label(before)}: the item's attributes cannot be read through Python's own "
                               "descriptor")
                elif not _str_keys(own):
                    out.append(f"{_item_label(before)}: an attribute of the item whose name is not a string")
        sources: dict = {}
        for module, space, _before, imported in self.modules.values():
            if not _str_keys(space):
                out.append(f"{self.module_names.get(_id(module), '?')}: a global whose name is not a string")
            for _name, source, _attribute, _then in imported:
                sources[source] = None
        for source in sources:
            origin = _sys_modules.get(source)
            held = _namespace(origin) if _type(origin) is types.ModuleType else None
            if held is not None and not _str_keys(held):
                out.append(f"{source}: a global whose name is not a string")
        return out

    @staticmethod
    def _watched_spaces(internal: bool = True):
        """``(label, dict)`` for each module namespace and class dict :data:`_WATCHED` reads (read through
        ``ModuleType``'s and ``type``'s own descriptors), each once; a class only while its module's keys are all
        strings (else the module is reported)."""
        for module, plan in _WATCHED_PLAN.items():
            if not internal and _internal(module):
                continue
            space = _namespace(_sys_modules.get(module))
            if space is None:
                continue
            yield module, space
            if not _str_keys(space):
                continue
            for cls in plan:
                if cls is None:
                    continue
                owner = dict.get(space, cls)
                if _is_class(owner):
                    yield f"{module}.{cls}", _class_dict(owner)

    @staticmethod
    def _internals() -> dict:
        """The values :data:`_WATCHED` names, read from each module's namespace and class's own dict (through
        ``ModuleType``'s and ``type``'s descriptors); a module or class that is missing has no entries."""
        out = {}
        get, class_get = dict.get, types.MappingProxyType.get
        for module, plan in _WATCHED_PLAN.items():
            space = _namespace(_sys_modules.get(module))
            if space is None:
                continue
            for cls, names in plan.items():
                if cls is None:
                    for name, label in names:
                        out[label] = get(space, name)
                    continue
                owner = get(space, cls)
                if owner is None or not _is_class(owner):
                    continue
                own = _class_dict(owner)
                for name, label in names:
                    out[label] = class_get(own, name)
        return out

    def _hooks(self) -> dict:
        """``name -> ((plugin name, function, plugin), ...)`` for each watched hook, read from pluggy's ``HookImpl``
        slots. Compared by identity (a function of the edit could say it equals another); a name that is not an
        exact ``str``, or an implementation that is no ``HookImpl``, is recorded so that it equals nothing else."""
        out = {}
        if self.hook_impls is None or self.hookimpl_cls is None:
            return out
        if self._impl_slots is None:
            self._impl_slots = self.descriptors(self.hookimpl_cls, ("plugin_name", "function", "plugin"))[1]
        slots = self._impl_slots
        for name in _WATCHED_HOOKS:
            impls = []
            for impl in self.hook_impls(name) or ():
                if _type(impl) is not self.hookimpl_cls or len(slots) != 3:
                    impls.append((f"<a {_class_name(_type(impl))} {_id(impl)}>", impl, impl))
                    continue
                plugin_name = _read(slots["plugin_name"], impl)
                if _type(plugin_name) is not str:
                    plugin_name = f"<a name that is not a string {_id(plugin_name)}>"
                impls.append((plugin_name, _read(slots["function"], impl), _read(slots["plugin"], impl)))
            out[name] = tuple(impls)
        return out

    def _read_item(self, item) -> tuple:
        """``(its own dict or None, {identity name: slot getter})`` for ``item``, through the descriptors its class
        had (``_Internals.descriptors``: pytest's ``Node`` as the snapshot recorded it), never ``vars``/``getattr``."""
        cls = _type(item)
        entry = self._readers.get(_id(cls))
        if entry is None or entry[0] is not cls:
            found = self.descriptors(cls, _ITEM_IDENTITY) if self.descriptors is not None else (None, {})
            entry = self._readers[_id(cls)] = (cls, *found)
        _cls, getter, slots = entry
        try:
            own = getter(item) if getter is not None else None
        except TypeError:
            own = None
        return (own if _type(own) is dict else None), slots

    def _item_state(self, item) -> dict:
        own, slots = self._read_item(item)
        if own is None or not _str_keys(own):  # (odd_keys reports it; then no other check runs)
            own = {}
        obj = own.get("_obj")
        # The test function's code and defaults through the function type's own descriptors (a bound method's
        # function): an object of another class could answer ``__code__`` with a property, inside the check.
        function = obj.__func__ if _type(obj) is types.MethodType else obj
        plain = _type(function) is types.FunctionType
        return {"type": type(item), "attrs": {name: own.get(name, _ABSENT) for name in _ITEM_ATTRS},
                "identity": {name: _read(slots[name], item) if name in slots else own.get(name, _ABSENT)
                             for name in _ITEM_IDENTITY},
                "code": _func_code(function) if plain else None,
                "defaults": _func_defaults(function) if plain else None,
                "fixtures": self._fixture_functions(own), "params": self._params(own)}

    @staticmethod
    def _fixture_functions(own) -> tuple:
        """``(fixture definition, its function)`` for each fixture the item uses (red-team round 38: a fixture
        definition's ``func`` swapped for ``functools.partial(int, 5)`` after collection handed the test 5)."""
        try:
            names = getattr(own.get("_fixtureinfo"), "name2fixturedefs", None)
            if _type(names) is not dict:
                return ()
            out = []
            for definitions in tuple(dict.values(names)):
                for definition in tuple(definitions):
                    getter = _instance_dict_getter(_type(definition))
                    space = getter(definition) if getter is not None else None
                    if _type(space) is dict and _str_keys(space):
                        out.append((definition, dict.get(space, "func", _ABSENT)))
            return tuple(out)
        except Exception:  # noqa: BLE001 (a hostile object: compared as it is)
            return ()

    @staticmethod
    def _params(own) -> tuple:
        """The item's parameters as collection made them (``callspec.params``: round 38 rewrote an expected value
        there from a thread before the test's setup read it), by key and value identity."""
        spec = own.get("callspec", None)
        try:
            params = getattr(spec, "params", None) if spec is not None else None
            if _type(params) is not dict:
                return (spec, params)
            return (spec, params, tuple(params), tuple(dict.values(params)))
        except Exception:  # noqa: BLE001
            return (spec, None)

    def fixture_values(self, item):
        """The item's fixture values as its call starts (``funcargs``, pytest's dict: its keys and values), or None."""
        own, _slots = self._read_item(item)
        given = own.get("funcargs") if own is not None and _str_keys(own) else None
        if given is None:
            return None
        if _type(given) is not dict:
            return given, None, None
        return given, tuple(given), tuple(dict.values(given))

    def fixture_changes(self, item, given) -> list[str]:
        """The item's fixture values held by something else than pytest's own dict (red-team round 37: a dict subclass
        answered ``funcargs[arg]``). Its values are not compared: a conftest's wrapper may resolve them in place
        (round 38's false positive: awaitable fixture values replaced by their results)."""
        if given is None or given[1] is not None:
            return []
        return [f"{item.nodeid}: its fixture values are held by a {_class_name(_type(given[0]))!r}, not pytest's dict"]

    def item_changes(self, item) -> list[str]:
        """What changed on ``item`` since collection: its class, its own attributes, its function's code."""
        before = self.items.get(id(item))
        if before is None:
            return []
        now = self._item_state(item)
        out = []
        if now["type"] is not before["type"]:
            out.append(f"{item.nodeid}: the item's class was replaced")
        attrs = dict(now["attrs"])
        if (id(item) in self.torn_down and attrs["_obj"] is None and self.unittest_cls is not None
                and issubclass(before["type"], self.unittest_cls)):
            attrs["_obj"] = before["attrs"]["_obj"]  # unittest's teardown drops the bound method: pytest's own doing
            now["code"], now["defaults"] = before["code"], before["defaults"]
        if id(item) in self.torn_down and attrs["funcargs"] is None:
            attrs["funcargs"] = before["attrs"]["funcargs"]  # (runtestprotocol lets go of the fixture values)
        changed = [name for name in _ITEM_ATTRS if attrs[name] is not before["attrs"][name]]
        if "_obj" in changed:
            out.append(f"the test function of {item.nodeid} was replaced")
        if [n for n in changed if n != "_obj"]:
            out.append(f"{item.nodeid}: instance attribute(s) {', '.join(n for n in changed if n != '_obj')} "
                       "set on the item")
        moved = [name for name in _ITEM_IDENTITY if now["identity"][name] is not before["identity"][name]]
        if moved:
            out.append(f"{item.nodeid}: the item's {', '.join(moved)} rebound (renamed or moved)")
        if now["code"] is not before["code"] or now["defaults"] is not before["defaults"]:
            out.append(f"the test function of {item.nodeid} was replaced or its code changed")
        if _len(now["fixtures"]) != _len(before["fixtures"]) or not _all(
                a[0] is b[0] and a[1] is b[1] for a, b in zip(now["fixtures"], before["fixtures"])):
            out.append(f"{item.nodeid}: a fixture it uses was given another function")
        if _len(now["params"]) != _len(before["params"]) or not _all(
                _map(_same_part, now["params"], before["params"])):
            out.append(f"{item.nodeid}: its parameters were changed after collection")
        return out

    def changes(self, items=None) -> list[str]:
        now = self._internals()
        out = [f"{name} was replaced" for name, value in self.internals.items() if now.get(name) is not value]
        if self.hooks is not None:
            # (name, id) pairs: exact strs and ints, compared without running any code of the edit
            out += [f"hook {name}: implementations changed" for name, impls in self._hooks().items()
                    if [(i[0], _id(i[1])) for i in impls] != [(i[0], _id(i[1])) for i in self.hooks.get(name, ())]
                    and [(i[0], _id(i[1])) for i in impls] != [(i[0], _id(i[1])) for i in self.hooks.get(name, ())
                                                               if i[2] not in self.observers]]
        for cls, fn in self.item_types.values():
            own = _class_dict(cls)
            if not _str_keys(own) or types.MappingProxyType.get(own, "runtest") is not fn:
                out.append(f"{_class_name(cls)}.runtest was replaced")
        for item in items or ():
            out += self.item_changes(item)
        if items:
            out += self.module_changes()
        return out


# The wholesale watch (red-team round 7, after every round found an internal that _WATCHED missed). Bound when this
# module is imported, before any project file: pytest's own modules are read through these.
_sys_modules = sys.modules
_sys_getframe = sys._getframe
_module_dict = types.ModuleType.__dict__["__dict__"].__get__
_func_code = types.FunctionType.__dict__["__code__"].__get__
_func_closure = types.FunctionType.__dict__["__closure__"].__get__
_func_defaults = types.FunctionType.__dict__["__defaults__"].__get__

_func_dict = types.FunctionType.__dict__["__dict__"].__get__
_func_kwdefaults = types.FunctionType.__dict__["__kwdefaults__"].__get__
_func_annotations = types.FunctionType.__dict__["__annotations__"].__get__
_func_globals = types.FunctionType.__dict__["__globals__"].__get__
_proxy_values = types.MappingProxyType.values
_dict_get, _type, _id, _map, _len, _property, _all, _is = dict.get, type, id, map, len, property, all, operator.is_
_any = any
_clock = time.perf_counter  # bound before any project file loads
# The work the oracle's checks and the replay's recording have done (session 51): their limits count it, not seconds.
# The walkers count what they visit, each step weighed by what it cost on the Xeon of sessions 38-51 (one unit about
# 0.1 microsecond there: ``python -m experiments.benchmarks.oracle_work`` fits seconds to these counts): a value
# ``_small`` walks before a call is copied 10 (the walk, two or three deep copies), a pair ``_differences`` compares
# 20, an entry of saved state put back 80 and each item it holds 1, a value the replay's encoder writes 10, a pristine
# run 3,000 (the swap, the streams and warnings set aside; its own body's work is not counted). One run spends the
# same work on any machine under any load, so which calls are checked, recorded and followed, and with them the
# verdict and the row, never depend on the machine's speed (honest hunt 19's d03 was refused only under load: its
# sixth second of checking came earlier). Seconds are still measured, as evidence only.
_WORK = [0]


def _now() -> tuple:
    """(work, seconds, the thread's CPU seconds) now: where a limited step starts (``_spent``)."""
    return _WORK[0], _clock(), _cpu()


_cpu = time.thread_time  # (the CPU time of the checking thread: the backstop of _SHADOW_CPU_SECONDS)
# What a function holds, read in C with one audit event per call. Reading ``__code__``, ``__defaults__`` or
# ``__kwdefaults__`` raises an ``object.__getattr__`` audit event each, and every event runs the memory guard's Python
# hook: three reads of each of pytest's ~2,100 functions cost ~6 ms, the bulk of a full check of pytest's internals.
_referents = gc.get_referents
_FUNCTION_END = (object(),)  # ends each function's referents in _Internals' fast check
_PARTS = frozenset({"modules", "classes", "functions", "hooks"})  # what _Internals' fast check tells apart
# Plain data: a module global holding one is never compared (pytest sets ``_pytest.assertion.util._reprcompare``,
# ``_assertion_pass`` and ``_config`` from None to its own objects around each test, and keeps counters and caches).
_PLAIN = frozenset({type(None), bool, int, float, complex, str, bytes, tuple, frozenset, list, dict, set, bytearray})
_PLAIN_IDS = frozenset(map(id, _PLAIN))
_SCALAR_IDS = frozenset(map(id, (type(None), bool, int, float, complex, str, bytes)))


def _plain_data(value) -> bool:
    """Whether ``value``'s class is one of :data:`_PLAIN`, by identity: ``type(value) in _PLAIN`` hashes the class,
    which runs its metaclass's ``__hash__``."""
    return _id(_type(value)) in _PLAIN_IDS


def _internal(name) -> bool:
    """A module of pytest or pluggy: ``pytest``, ``_pytest``, ``_pytest.*``, ``pluggy``, ``pluggy.*``."""
    return _type(name) is str and (name in ("pytest", "_pytest", "pluggy")
                                   or name.startswith(("pytest.", "_pytest.", "pluggy.")))


def _slot_getters(cls) -> tuple:
    """``(name, getter)`` for every ``__slots__`` member of ``cls`` and its bases (pluggy's ``HookCaller`` has no
    ``__dict__``), read through the member descriptors themselves."""
    return tuple((name, value.__get__) for klass in _class_mro(cls) for name, value in _class_dict(klass).items()
                 if _type(value) is types.MemberDescriptorType)


def _defined_in(cls, module: str) -> bool:
    """Whether the class's ``__module__`` is the exact string ``module`` (a value of another class would be asked its
    own ``__eq__``)."""
    value = _class_module(cls)
    return _type(value) is str and value == module


def _is_class(value) -> bool:
    """``isinstance(value, type)`` read from the real class's MRO: ``isinstance`` also asks a ``__class__`` property."""
    return _any(_map(_is, _class_mro(_type(value)), _repeat(type)))


def _pluggy_call_codes() -> tuple:
    """``({id: code} of pluggy's ``_multicall``, {id: code} of its old-style hookwrapper adapter})``, read from pluggy's
    loaded modules when the plugin is made (before any project file); ``(None, {})`` when not found."""
    multicall, old_style = {}, {}
    for name, module in list(_sys_modules.items()):
        space = _namespace(module) if _type(name) is str and name.startswith("pluggy.") else None
        for value in (dict.values(space) if space is not None else ()):
            if _type(value) is types.FunctionType and _type(_func_dict(value)) is dict:
                code = _func_code(value)
                if code.co_name == "_multicall" and "teardowns" in code.co_varnames:
                    multicall[_id(code)] = code
                elif code.co_name == "run_old_style_hookwrapper":
                    old_style[_id(code)] = code
    return (multicall or None), old_style


class _Traced:
    """How a test function's call ended when a trace function that is not allowed was active (``_record_test_calls``)."""

    __slots__ = ("why",)

    def __init__(self, why: str):
        self.why = why


def _record_test_calls(python, plugin):
    """Put a recording function in place of pytest's own ``pytest_pyfunc_call`` implementation in ``_pytest.python``
    (before pytest registers that module as a plugin, and before the watches' snapshots: they hold it as pytest's
    own): the innermost place a test function is called from, so the plugin learns how that call ended before any
    hook wrapper sees it (red-team rounds 29 and 30: generators appended to pluggy's wrapper lists, a hook wrapper
    registered by the edit's import-time code, a hook caller re-driven with a fake implementation, each turned the
    test function's exception into a return before the plugin's own outermost wrapper). Returns the function."""
    original = _module_dict(python).get("pytest_pyfunc_call")
    if _type(original) is not types.FunctionType:
        return None

    # What it calls and where it records are defaults, not closure cells (red-team round 31 swapped the cell holding
    # pytest's function for a swallower, ``cell_contents`` being writable with no audit event); assigning
    # ``__defaults__`` is an audit event the plugin refuses for this function (``_SourceCode.guarded``). pluggy
    # passes only the hook's own argument.
    def pytest_pyfunc_call(pyfuncitem, _original=original, _calls=plugin._calls, _tracer=plugin._tracer_why):
        try:
            result = _original(pyfuncitem)
        except BaseException as exc:
            _calls[_id(pyfuncitem)] = (pyfuncitem, exc)
            raise
        # A trace or profile function active as the test function returns, not the oracle's own nor a file's def
        # that is not a declared source (round 31 installed one through weakref.finalize and bdb, whose frames
        # call sys.settrace): it could have rewritten the test frame's locals.
        why = _tracer()
        _calls.setdefault(_id(pyfuncitem), (pyfuncitem, "returned" if why is None else _Traced(why)))
        return result

    _func_dict(pytest_pyfunc_call).update(_func_dict(original))  # pluggy's options (trylast) and pytest's marker
    pytest_pyfunc_call.__module__, pytest_pyfunc_call.__qualname__ = original.__module__, original.__qualname__
    python.pytest_pyfunc_call = pytest_pyfunc_call
    return pytest_pyfunc_call


_CODE_CONSTANTS = frozenset(map(id, (type(None), bool, int, float, complex, str, bytes, type(...))))


def _plain_code(code, depth: int = 0) -> bool:
    """Whether ``code``'s names and constants are Python's own kinds by exact class (what the compiler makes), at any
    depth of nested code: comparing such a code object with another (``==``) or using its names as keys runs nothing
    of the edit's (``code.replace`` accepts a ``str`` subclass for ``co_name`` and any object among constants)."""
    if _type(code) is not types.CodeType or depth > 50:
        return False
    names = (code.co_name, code.co_qualname, code.co_filename, *code.co_names, *code.co_varnames, *code.co_freevars,
             *code.co_cellvars)
    if not _all(_map(_is, _map(_type, names), _repeat(str))):
        return False
    todo = list(code.co_consts)
    while todo:
        value = todo.pop()
        kind = _type(value)
        if kind is tuple or kind is frozenset:
            todo.extend(value)
        elif kind is types.CodeType:
            if not _plain_code(value, depth + 1):
                return False
        elif _id(kind) not in _CODE_CONSTANTS:
            return False
    return True


def _plain_keys(space) -> bool:
    """A dict (not None) whose keys are all exact strings (:func:`_str_keys`)."""
    return _type(space) is dict and _str_keys(space)


def _str_keys(mapping) -> bool:
    """Whether every key of ``mapping`` (a dict, or a class's ``__dict__`` proxy) is an exact ``str``. Only then can
    reading it by key run no code: a lookup compares the name asked with each stored key of equal hash, and a key of
    another class (a ``str`` subclass included) answers with its own ``__eq__`` (review of session 32: a key planted by
    the edit with ``hash(name)`` ran the edit's code at each of the watch's ``dict.get``, between its checks). The scan
    reads each key's class, which runs nothing."""
    return _all(_map(_is, _map(_type, mapping), _repeat(str)))


class _IdentitySet:
    """Objects compared by identity (``in`` never calls their ``__eq__``)."""

    def __init__(self, objects=()):
        self._ids = {id(o): o for o in objects}

    def __contains__(self, obj) -> bool:
        return self._ids.get(id(obj)) is obj


def _read(getter, obj):
    try:
        return getter(obj)
    except AttributeError:
        return _ABSENT


class _Internals:
    """A list-free watch over everything pytest and pluggy are made of (red-team round 7: every round found an
    internal that ``_Watch``'s curated list missed).

    Snapshotted when the plugin is created, before any project code: every module in ``sys.modules`` named
    ``pytest``, ``_pytest``, ``_pytest.*``, ``pluggy`` or ``pluggy.*`` (the module object there and its class), its
    globals that are not plain data (identity), each class it defines (``__module__`` its name, nested classes too)
    with its whole own ``__dict__`` (keys and value identity), its MRO and metaclass, and every Python function among
    those (its ``__code__``, ``__defaults__``, ``__kwdefaults__``). A module first seen later gets its baseline when
    first seen. At ``pytest_configure``, pluggy's per-hook state: the plugin manager's own attributes, the hook
    relay's callers, and each caller's class and slots (``_hookexec``: a caller whose call path is replaced by one
    that flips the returned report sees the real outcome in every hook implementation, the plugin's included);
    there each caller's ``_hookexec`` must be the plugin manager's own ``_hookexec`` method and ``_inner_hookexec``
    a function of pluggy's own files, since conftests (which may import project code) load before it.

    A check compares identities with C-level loops (``all(map(operator.is_, now, then))``, every value held, so none
    can be confused with a new object); only when something differs is the difference spelled out and judged. After
    each test call it covers modules, classes and hook state (about 0.26 ms); the functions' code and defaults are
    compared after collection and in must_pass's final check (a full check is about 0.6 ms). pytest's own changes
    are allowed without a list where it can: what ``_pytest.legacypath``'s ``pytest_load_initial_conftests`` sets on
    pytest's classes (before conftests load) is accepted when the value is, or is a property over, the very function
    of ``_pytest.legacypath`` (as it was at the snapshot, code unchanged) named ``<Class>_<attr>`` (a setter
    ``<Class>_<attr>_set``). The rest, found by running honest suites (this repository's tests, Boltons; pytest 9.0
    and 9.2), each justified where it is allowed: a submodule bound on its package by the import system
    (:meth:`_differences`), two class attributes pytest sets itself (:meth:`_pytest_sets`), a hook's spec and
    history set when pluggy learns them, and the callers pytest's path-aware hook proxy caches
    (:meth:`_proxy_changes`). Allowed values join the baseline.
    """

    def __init__(self):
        self.modules: dict = {}  # name -> (module, its class, its dict, {global: value} not plain data)
        # id(class) -> (class, label, mro, metaclass, copy of its own dict); keyed by id, as the hook callers' classes
        # below: hashing a class runs its metaclass's __hash__
        self.classes: dict = {}
        self.functions: dict = {}  # id(function) -> (function, label, code, defaults, kwdefaults)
        self.reported: set = set()
        self.hooks = None  # pluggy's per-hook state, from pytest_configure
        self.pending: list = []  # findings made at pytest_configure, reported by the next check
        self.odd: list = []  # what the last check's odd_keys found (the plugin's other checks are skipped then)
        self._descriptors: dict = {}  # (id(class), names) -> (the class, descriptors()'s answer)
        self._seen_modules = 0
        # pytester's in-process runs import pytest's remaining modules and then restore ``sys.modules``, leaving the
        # submodule bound on ``_pytest`` without its ``sys.modules`` entry: import them all before the snapshot (about
        # 12 ms; a builtin plugin would import most of them anyway).
        import pkgutil  # noqa: PLC0415 (standard library; only here)
        package = _sys_modules.get("_pytest")
        for found in pkgutil.iter_modules(getattr(package, "__path__", ()), "_pytest."):
            try:
                importlib.import_module(found.name)
            except Exception:  # noqa: BLE001 (an optional dependency missing: that module stays unimported)
                pass
        self._new_modules()
        legacy = self.modules.get("_pytest.legacypath")
        legacy_file = getattr(legacy[0], "__file__", None) if legacy else None
        self.legacy = {name: value for name, value in (legacy[3].items() if legacy else ())
                       if _type(value) is types.FunctionType and _func_code(value).co_filename == legacy_file}
        pluggy = self.modules.get("pluggy")
        self.pluggy_dir = os.path.dirname(pluggy[0].__file__) + os.sep if pluggy else None
        self._rebase()

    # ---- the snapshot ------------------------------------------------------------------------------------------
    def _new_modules(self, force: bool = False) -> bool:
        if _len(_sys_modules) == self._seen_modules and not force:
            return False
        self._seen_modules = _len(_sys_modules)
        added = False
        for name, module in list(_sys_modules.items()):
            if not _internal(name) or name in self.modules:  # (a name is an exact str before it is hashed)
                continue
            own = _namespace(module)
            if own is None:
                continue
            if not _str_keys(own):
                self.pending.append(f"module {name}: a global whose name is not a string")
                continue  # never baselined: reported at each check until the run ends
            watched = {key: value for key, value in list(own.items()) if not _plain_data(value)}
            self.modules[name] = (module, _type(module), own, watched, set(own))
            for key, value in watched.items():
                self._function(value, f"{name}.{key}")
                if _is_class(value) and _defined_in(value, name):
                    self._class(value, name)
            added = True
        return added

    def _class(self, cls, module: str) -> None:
        if _id(cls) in self.classes:
            return
        label = f"{module}.{_class_name(cls)}"
        if not _str_keys(_class_dict(cls)):
            self.pending.append(f"{label}: a key that is not a string")
            return
        own = dict(_class_dict(cls))
        self.classes[_id(cls)] = (cls, label, _class_mro(cls), _type(cls), own)
        for key, value in own.items():
            self._function(value, f"{label}.{key}")
            if _is_class(value) and _defined_in(value, module):
                self._class(value, module)  # a nested class

    def _function(self, value, label: str) -> None:
        kind = _type(value)
        if kind is staticmethod or kind is classmethod:  # (not `in (…)`: that asks a metaclass's __eq__)
            value = value.__func__
        if _type(value) is _property:
            for part in (value.fget, value.fset, value.fdel):
                self._function(part, label)
        elif _type(value) is types.FunctionType and _id(value) not in self.functions:
            self.functions[_id(value)] = (value, label, _func_code(value), _func_defaults(value),
                                          _func_kwdefaults(value))
            # Made now, as pytest would make them when it first reads them (a dict when asked for, annotations turned
            # from their compact tuple into a dict): otherwise the fast check sees an honest change of the referents.
            _func_dict(value)
            _func_annotations(value)

    def more_modules(self) -> None:
        """Baselines for pytest's and pluggy's modules imported since the snapshot (compared first)."""
        self.pending += self.findings()

    def descriptors(self, cls, names=()) -> tuple:
        """``(dict getter, {name: slot getter})`` for instances of ``cls``: the C getters of the ``__dict__``
        descriptor and of the ``__slots__`` members ``names`` that come first on its MRO, each class's entries as
        the snapshot recorded them (pytest's and pluggy's classes) or as they are. Reading through them runs no
        ``__getattribute__``, property or ``__dict__`` the edit sets on a class, as ``vars`` and ``getattr`` would
        (red-team round 29). A getter is None (a name left out) where the first entry is another kind of thing."""
        key = (_id(cls), names)
        cached = self._descriptors.get(key)
        if cached is not None and cached[0] is cls:
            return cached[1]
        found = self._descriptors_of(cls, names)
        if found[0] is not None or found[1]:
            self._descriptors[key] = (cls, found)  # (kept only when found: a class in the making may gain them)
        return found

    def _descriptors_of(self, cls, names) -> tuple:
        getter, slots, pending = None, {}, set(names)
        dict_seen = False
        for klass in _class_mro(cls):
            entry = self.classes.get(_id(klass))
            own = entry[4] if entry is not None and entry[0] is klass else _class_dict(klass)
            if not _str_keys(own):
                return None, {}
            look = dict.get if _type(own) is dict else types.MappingProxyType.get
            if not dict_seen:
                found = look(own, "__dict__", _ABSENT)
                if found is not _ABSENT:
                    dict_seen = True
                    getter = found.__get__ if _type(found) is types.GetSetDescriptorType else None
            for name in list(pending):
                found = look(own, name, _ABSENT)
                if found is not _ABSENT:
                    pending.discard(name)
                    if _type(found) is types.MemberDescriptorType:
                        slots[name] = found.__get__
        return getter, slots

    def is_own(self, function) -> bool:
        """Whether ``function`` is one of pytest's or pluggy's own, as the snapshot recorded it (code unchanged)."""
        entry = self.functions.get(_id(function))
        return entry is not None and entry[0] is function and _func_code(function) is entry[2]

    def hook_impls(self, name: str):
        """A copy of the hook relay's caller ``name``'s implementations (pluggy's ``HookImpl`` objects), read through
        the relay's own dict and the caller's ``_hookimpls`` slot as the snapshot's descriptors give them (no
        attribute lookup: red-team round 30 ran a property the edit set on ``HookImpl`` inside this check), or
        None before ``pytest_configure``."""
        hooks = self.hooks
        if hooks is None:
            return None
        caller = _dict_get(hooks["dicts"]["relay"][1], name)
        if caller is None:
            return ()
        getter = self.descriptors(_type(caller), ("_hookimpls",))[1].get("_hookimpls")
        impls = _read(getter, caller) if getter is not None else _ABSENT
        return list.copy(impls) if _type(impls) is list else [impls]

    def _own_dict(self, obj) -> tuple:
        """``(getter, dict)``: ``obj``'s own attributes through :meth:`descriptors`, or ``(None, None)``."""
        getter = self.descriptors(_type(obj))[0]
        if getter is None:
            return None, None
        try:
            space = getter(obj)
        except TypeError:
            return None, None
        return (getter, space) if _type(space) is dict else (None, None)

    def configure(self, config) -> None:
        """pluggy's per-hook state, when pytest configures (after conftests load, before collection)."""
        self.more_modules()
        dicts = {"config": self._own_dict(config)}
        pm = _dict_get(dicts["config"][1], "pluginmanager") if _plain_keys(dicts["config"][1]) else None
        dicts["pm"] = self._own_dict(pm)
        # pluggy's HookRelay (config.hook is it, or up to pytest 9.1 a path-aware proxy)
        relay = _dict_get(dicts["pm"][1], "hook") if _plain_keys(dicts["pm"][1]) else None
        dicts["relay"] = self._own_dict(relay)
        proxy = _dict_get(dicts["config"][1], "hook") if _plain_keys(dicts["config"][1]) else None
        dicts["proxy"] = self._own_dict(proxy)
        broken = [what for what, (_getter, space) in dicts.items() if not _plain_keys(space)]
        if broken:  # (conftests, and what they import, ran before this)
            self.pending.append(f"pluggy's state cannot be read without running other code ({', '.join(broken)})")
            return  # no baseline: the run is tampered already
        slots = {}
        callers = {}
        for name, caller in list(dicts["relay"][1].items()):
            cls = _type(caller)
            if _id(cls) not in slots:
                slots[_id(cls)] = _slot_getters(cls)
            callers[name] = (caller, cls, {slot: _read(get, caller) for slot, get in slots[_id(cls)]})
        self.hooks = {"config": config, "config_type": _type(config), "pm": pm, "pm_type": _type(pm), "relay": relay,
                      "relay_type": _type(relay),
                      "pm_vars": {k: v for k, v in dicts["pm"][1].items() if not _plain_data(v)},
                      "callers": callers, "slots": slots, "proxy": proxy, "proxy_type": _type(proxy), "cached": {},
                      "dicts": dicts}
        self.pending += self._judge_hooks(callers.items()) + self._proxy_changes()  # reported after collection
        self._rebase()

    def _judge_hooks(self, callers) -> list[str]:
        """Callers whose call path is not pluggy's own (conftests load, and may import project code, before
        pytest_configure takes the baseline)."""
        out = []
        pm = self.hooks["pm"]
        manager = self._pluggy_class("PluginManager")
        own_exec = self.classes[_id(manager)][4].get("_hookexec") if manager is not None else None
        for name, (caller, cls, values) in callers:
            hookexec = values.get("_hookexec", _ABSENT)
            if not (_type(hookexec) is types.MethodType and hookexec.__self__ is pm and hookexec.__func__ is own_exec):
                out.append(f"hook {name}: its caller's _hookexec is not the plugin manager's own")
            if not self._labelled(cls, "pluggy."):
                out.append(f"hook {name}: its caller is a {_class_name(cls)}, not pluggy's")
        inner = self.hooks["pm_vars"].get("_inner_hookexec", _ABSENT)
        if not (_type(inner) is types.FunctionType and self.pluggy_dir
                and _func_code(inner).co_filename.startswith(self.pluggy_dir)):
            out.append("the plugin manager's _inner_hookexec is not pluggy's own")
        return out

    def _proxy_changes(self) -> list[str]:
        """pytest up to 9.1 hands out ``config.hook`` as ``_pytest.config.compat.PathAwareHookProxy``, which caches
        each hook caller in its own ``__dict__`` when first asked (``item.ihook`` is that proxy): every cached
        entry must be the relay's own caller of that name, or the proxy's ``fixed_hook`` wrapper (its code from
        the proxy's file, wrapping and closing over that caller)."""
        hooks = self.hooks
        proxy, relay = hooks["proxy"], hooks["relay"]
        if proxy is relay:
            return []
        cls = hooks["proxy_type"]
        if not self._labelled(cls, "_pytest."):
            return [f"config.hook is a {_class_name(cls)}, not pytest's"]
        getattr_code = self.classes[_id(cls)][4].get("__getattr__")
        home = _func_code(getattr_code).co_filename if _type(getattr_code) is types.FunctionType else None
        out, cached, callers = [], hooks["cached"], hooks["dicts"]["relay"][1]
        for name, value in list(hooks["dicts"]["proxy"][1].items()):
            if cached.get(name, _ABSENT) is value:
                continue
            caller = _dict_get(callers, name, _ABSENT)
            if name == "_hook_relay":
                ok = value is relay
            elif _type(value) is types.FunctionType:
                code = _func_code(value)
                cells = dict(zip(code.co_freevars, (c.cell_contents for c in value.__closure__ or ())))
                own = _func_dict(value)  # (its keys scanned first: red-team round 29 re-keyed "__wrapped__" there)
                ok = (code.co_filename == home and code.co_name == "fixed_hook" and cells.get("hook") is caller
                      and _plain_keys(own) and _dict_get(own, "__wrapped__") is caller)
            else:
                ok = value is caller
            if ok:
                cached[name] = value
            else:
                out.append(f"config.hook's {name} is not the hook relay's own")
        return out

    def _pluggy_class(self, name: str):
        for cls, label, *_rest in self.classes.values():
            if label.startswith("pluggy.") and label.endswith("." + name):
                return cls
        return None

    def _labelled(self, cls, prefix: str) -> bool:
        """Whether ``cls`` is one of the snapshot's classes (by identity) and its label starts with ``prefix``."""
        entry = self.classes.get(_id(cls))
        return entry is not None and entry[0] is cls and entry[1].startswith(prefix)

    # ---- the check ---------------------------------------------------------------------------------------------
    def odd_keys(self, modules: bool = True) -> list[str]:
        """The dicts this watch reads by key that hold a key which is not an exact ``str`` (:func:`_str_keys`): pytest's
        and pluggy's module globals (unless ``modules`` is false: before a test call, whose check reads only the
        modules ``_Watch.odd_keys`` scans), ``sys.modules``, and the config's, plugin manager's, hook relay's and
        ``config.hook``'s own attributes (read only while their class is the one at the snapshot: ``vars`` asks the
        class). Asked before every check; the plugin runs no check that reads them by key when one is found."""
        out = [f"module {name}: a global whose name is not a string"
               for name, (_module, _cls, own, _watched, _keys) in (self.modules.items() if modules else ())
               if not _str_keys(own)]
        if not _str_keys(_sys_modules):
            out.append("sys.modules: a key that is not a string")
        hooks = self.hooks
        if hooks is None:
            return out
        dicts = hooks["dicts"]
        for what, key, obj, cls in (("config", "config", hooks["config"], hooks["config_type"]),
                                    ("the plugin manager", "pm", hooks["pm"], hooks["pm_type"]),
                                    ("the hook relay", "relay", hooks["relay"], hooks["relay_type"]),
                                    ("config.hook", "proxy", hooks["proxy"], hooks["proxy_type"])):
            getter, space = dicts[key]
            if _type(obj) is not cls:
                out.append(f"the {what}'s class was replaced")
            elif what == "config.hook" and obj is hooks["relay"]:
                continue  # pytest 9.1 and later: the relay itself
            elif getter(obj) is not space:
                out.append(f"the {what}'s __dict__ was replaced")
            elif not _str_keys(space):
                out.append(f"{what}: an attribute whose name is not a string")
        return out

    def _rebase(self, parts=_PARTS) -> None:
        """What the fast check compares against, for ``parts``: the current state, once it has been judged (so it
        holds the snapshot plus the changes allowed, or already reported), every value held."""
        repeat, compress = itertools.repeat, itertools.compress
        if "modules" in parts:
            fast = []
            for name, (module, cls, own, watched, _keys) in self.modules.items():
                # By position, never by key: while a module's keys are these very objects in this order (exact strs,
                # scanned before any rebase), its watched globals are at these positions.
                keys = tuple(own)
                mask = tuple(_map(watched.__contains__, keys))
                fast.append((name, module, cls, own, _len(own), keys, mask, tuple(compress(dict.values(own), mask))))
            self._fast_modules = tuple(fast)
        if "classes" in parts:
            classes = tuple(entry[0] for entry in self.classes.values())
            proxies = tuple(_map(_class_dict, classes))
            # keys too, by identity (red-team round 29: a key re-made in place, order and values kept, went unseen)
            self._fast_classes = (classes, proxies, tuple(_map(_class_mro, classes)), tuple(_map(_type, classes)),
                                  tuple(_map(_len, proxies)),
                                  tuple(itertools.chain.from_iterable(_map(_proxy_values, proxies))),
                                  tuple(itertools.chain.from_iterable(proxies)))
        if "functions" in parts:
            # Every function's referents in one C call (gc.get_referents: its code, globals, builtins, module name,
            # defaults, keyword defaults, doc, name, dict, closure, annotations, qualname, in that order, those
            # that are not NULL), each function's followed by _FUNCTION_END's one referent. The code comes first and
            # is never NULL, so a list identical object for object has every code unchanged; the defaults (a tuple)
            # and keyword defaults (a dict) can only be taken out and the list kept if another slot took their
            # object at that place and the rest moved up one, and what follows them (the doc, then the name and
            # qualname, which must be strs, the dict and annotations, which must be dicts) cannot fill in behind:
            # the end marker pins each function's count. Any other difference (a dict made when first read) only
            # sends the check to the per-function comparison of _differences.
            functions = tuple(entry[0] for entry in self.functions.values())
            args = tuple(itertools.chain.from_iterable(zip(functions, repeat(_FUNCTION_END))))
            self._fast_functions = (args, tuple(_referents(*args)))
        hooks = self.hooks
        if hooks is not None and "hooks" in parts:
            config, pm, relay, proxy = hooks["config"], hooks["pm"], hooks["relay"], hooks["proxy"]
            dicts = hooks["dicts"]
            config_vars, pm_vars, relay_vars, proxy_vars = (dicts[k][1] for k in ("config", "pm", "relay", "proxy"))
            by_class: dict = {}
            for caller, cls, _values in hooks["callers"].values():
                by_class.setdefault(_id(cls), []).append(caller)
            self._fast_hooks = (
                (_type(config), _type(pm), _type(relay), _dict_get(config_vars, "hook"),
                 _dict_get(config_vars, "pluginmanager"), _dict_get(pm_vars, "hook"), _type(proxy)),
                _len(proxy_vars) if proxy is not relay else None, tuple(hooks["cached"]),
                tuple(hooks["cached"].values()), tuple(hooks["pm_vars"]),
                tuple(_map(pm_vars.get, hooks["pm_vars"], repeat(_ABSENT))), _len(relay_vars),
                tuple(hooks["callers"]), tuple(entry[0] for entry in hooks["callers"].values()),
                tuple((tuple(callers), get, tuple(_read(get, c) for c in callers))
                      for cls_id, callers in by_class.items() for _slot, get in hooks["slots"][cls_id]))

    def _changed_parts(self, full: bool) -> frozenset:
        """Which parts (:data:`_PARTS`) differ from the last judgement: identity only, C-level loops
        (``all(map(is_, …))``). Functions only when ``full`` (at arm and in must_pass) or when another part changed
        (their per-function comparison then ran too, before the parts were told apart)."""
        changed = set()
        if not self._same_modules():
            changed.add("modules")
        if not self._same_classes():
            changed.add("classes")
        if not self._same_hooks():
            changed.add("hooks")
        if (full or changed) and not self._same_functions():
            changed.add("functions")
        return frozenset(changed)

    def _same_modules(self) -> bool:
        every, same, compress = _all, _is, itertools.compress
        for name, module, cls, own, size, keys, mask, values in self._fast_modules:
            if (_sys_modules.get(name) is not module or _type(module) is not cls or _len(own) != size
                    or not every(_map(same, own, keys))
                    or not every(_map(same, compress(dict.values(own), mask), values))):
                return False
        return True

    def _same_classes(self) -> bool:
        every, same = _all, _is
        classes, proxies, mros, metas, sizes, values, keys = self._fast_classes
        return (tuple(_map(_len, proxies)) == sizes and every(_map(same, _map(_class_mro, classes), mros))
                and every(_map(same, _map(_type, classes), metas))
                and every(_map(same, itertools.chain.from_iterable(_map(_proxy_values, proxies)), values))
                and every(_map(same, itertools.chain.from_iterable(proxies), keys)))

    def _same_functions(self) -> bool:
        args, then = self._fast_functions
        now = _referents(*args)
        return _len(now) == _len(then) and _all(_map(_is, now, then))

    def _same_hooks(self) -> bool:
        every, same, repeat = _all, _is, itertools.repeat
        if self.hooks is None:
            return True
        (roots, cached_size, cached_names, cached_values, pm_names, pm_values, relay_size, caller_names,
         callers, slots) = self._fast_hooks
        hooks = self.hooks
        config, pm, relay, proxy = hooks["config"], hooks["pm"], hooks["relay"], hooks["proxy"]
        dicts = hooks["dicts"]  # (odd_keys checked, before this, that each is still its object's own dict)
        config_vars, pm_vars, own, proxy_vars = (dicts[k][1] for k in ("config", "pm", "relay", "proxy"))
        if not every(_map(same, (_type(config), _type(pm), _type(relay), _dict_get(config_vars, "hook"),
                                 _dict_get(config_vars, "pluginmanager"), _dict_get(pm_vars, "hook"),
                                 _type(proxy)), roots)):
            return False
        if cached_size is not None and (_len(proxy_vars) != cached_size or not every(
                _map(same, _map(proxy_vars.get, cached_names, repeat(_ABSENT)), cached_values))):
            return False
        if (_len(own) != relay_size or not every(_map(same, _map(pm_vars.get, pm_names, repeat(_ABSENT)), pm_values))
                or not every(_map(same, _map(own.get, caller_names, repeat(_ABSENT)), callers))):
            return False
        try:
            return every(every(_map(same, _map(get, group), values)) for group, get, values in slots)
        except AttributeError:  # a slot deleted
            return False

    def findings(self, full: bool = True) -> list[str]:
        """What changed since the snapshot and was not reported before (``full=False``: after a test call)."""
        # The keys first (odd_keys): sys.modules and pluggy's dicts always; pytest's module globals only when the fast
        # check saw a change (it reads them by position, and finds any key that is not the snapshot's own object).
        odd = self.odd_keys(modules=False)
        changed = _PARTS
        if not odd:
            try:
                changed = self._changed_parts(full)
            except Exception:  # a hostile value: spelled out below
                changed = _PARTS
            if changed:
                odd = self.odd_keys()
        self.odd = odd
        if odd:  # nothing below may read those dicts by key: the run is tampered already
            pending, self.pending = self.pending, []
            new = [f for f in pending + odd if f not in self.reported]
            self.reported.update(new)
            return new
        pending, self.pending = self.pending, []  # found at registration or configure, not yet returned
        out: list = []
        if changed:
            try:
                out += self._differences(changed)  # against the snapshot (allowed changes join it)
            except Exception as exc:  # a hostile value: a finding, never a crash of the check
                out.append(f"the check of pytest's internals raised {_class_name(_type(exc))}")
        hooks = self.hooks
        if self._new_modules(full):  # baselines for what appeared since (after the comparison above)
            changed = changed | {"modules", "classes", "functions"}
        if hooks is not None and _len(hooks["dicts"]["relay"][1]) != _len(hooks["callers"]):
            out += self._new_callers()
            changed = changed | {"hooks"}
        if changed:
            self._rebase(changed)
        pending, self.pending = pending + self.pending, []  # a new module not baselined (_new_modules)
        new = [f for f in out if f not in self.reported]
        self.reported.update(new)
        self.reported.update(pending)
        return [f for f in pending if f not in new] + new

    def _new_callers(self) -> list[str]:
        hooks = self.hooks
        if hooks is None:
            return []
        fresh = []
        for name, caller in list(hooks["dicts"]["relay"][1].items()):
            if name in hooks["callers"]:
                continue
            cls = _type(caller)
            if _id(cls) not in hooks["slots"]:
                hooks["slots"][_id(cls)] = _slot_getters(cls)
            entry = hooks["callers"][name] = (caller, cls, {s: _read(g, caller) for s, g in hooks["slots"][_id(cls)]})
            fresh.append((name, entry))
        return self._judge_hooks(fresh)

    def _differences(self, parts=_PARTS) -> list[str]:
        """The differences from the snapshot in ``parts`` (those the fast check saw change), spelled out."""
        out = []
        if "modules" in parts:
            out += self._module_differences()
        if "classes" in parts:
            out += self._class_differences()
        if "functions" in parts:
            out += [f"{label}: its code or defaults were replaced"
                    for function, label, code, defaults, kwdefaults in self.functions.values()
                    if (_func_code(function) is not code or _func_defaults(function) is not defaults
                        or _func_kwdefaults(function) is not kwdefaults)]
        if "hooks" in parts:
            out += self._hook_differences()
        return out

    def _module_differences(self) -> list[str]:
        out = []
        for name, (module, cls, own, watched, keys) in self.modules.items():
            now = _sys_modules.get(name)
            if now is not module:
                out.append(f"module {name} {'removed from' if now is None else 'replaced in'} sys.modules")
            if _type(module) is not cls:
                out.append(f"module {name}: its class was replaced")
            for key, value in watched.items():
                current = _dict_get(own, key, _ABSENT)
                if current is not value:
                    out.append(f"{name}.{key} was {'deleted' if current is _ABSENT else 'replaced'}")
            for key, value in list(own.items()):
                if key in keys or _plain_data(value):
                    continue  # a global that held plain data at the snapshot is never compared
                if _namespace(value) is not None and _sys_modules.get(f"{name}.{key}") is value:
                    keys.add(key)  # the import system binds a submodule on its package when it is first imported
                    continue
                out.append(f"{name}.{key} was added")
        return out

    def _class_differences(self) -> list[str]:
        out = []
        for cls, label, mro, meta, own in self.classes.values():
            now = _class_dict(cls)
            if not _str_keys(now):
                out.append(f"{label}: a key that is not a string")
                continue
            if _class_mro(cls) is not mro:
                out.append(f"{label}: its bases were replaced")
            if _type(cls) is not meta:
                out.append(f"{label}: its metaclass was replaced")
            for key in [k for k in own if k not in now]:
                out.append(f"{label}.{key} was deleted")
            for key, value in list(now.items()):
                before = _dict_get(own, key, _ABSENT)
                if value is before:
                    continue
                if self._legacy(cls, key, value) or self._pytest_sets(key, before, value) or (
                        key == "__slotnames__" and before is _ABSENT and _copyreg_slotnames(cls, value)):
                    own[key] = value  # pytest's own doing (or copyreg's cache): joins the snapshot
                    continue
                out.append(f"{label}.{key} was {'added' if before is _ABSENT else 'replaced'}")
        return out

    def _pytest_sets(self, key: str, before, value) -> bool:
        """Class attributes pytest itself sets during a run (found by running honest suites, pytest 9.0 and 9.2):
        ``Node._check_item_and_collector_diamond_inheritance`` sets ``_pytest_diamond_inheritance_warning_shown =
        True`` on each item class it first sees (``Function``, ``DoctestItem``, ...); ``_pytest.debugging``'s
        ``pytest_configure`` points ``pytestPDB._config``/``_pluginmanager`` (None at import) at the run's own
        config and plugin manager."""
        if key == "_pytest_diamond_inheritance_warning_shown":
            return value is True and before is _ABSENT
        hooks = self.hooks
        return before is None and hooks is not None and (value is hooks["config"] or value is hooks["pm"])

    def _legacy(self, cls, key: str, value) -> bool:
        """``_pytest.legacypath``'s own function (unchanged since the snapshot) named ``<Class>_<key>``, or a
        property over it (setter ``<Class>_<key>_set``): what its ``pytest_load_initial_conftests`` sets."""
        name = f"{_class_name(cls)}_{key}"

        def own(function, expected: str) -> bool:
            entry = self.functions.get(_id(function))
            return (self.legacy.get(expected) is function and entry is not None
                    and _func_code(function) is entry[2])

        if _type(value) is _property:
            return (own(value.fget, name) and value.fdel is None
                    and (value.fset is None or own(value.fset, name + "_set")))
        return own(value, name)

    def _hook_differences(self) -> list[str]:
        hooks = self.hooks
        if hooks is None:
            return []
        out = []
        config, pm, relay = hooks["config"], hooks["pm"], hooks["relay"]
        for what, obj, cls in (("config", config, None), ("plugin manager", pm, hooks["pm_type"]),
                               ("hook relay", relay, hooks["relay_type"])):
            if cls is not None and _type(obj) is not cls:
                out.append(f"the {what}'s class was replaced")
        config_vars, pm_vars = hooks["dicts"]["config"][1], hooks["dicts"]["pm"][1]
        if _dict_get(config_vars, "hook") is not hooks["proxy"] or _dict_get(pm_vars, "hook") is not relay:
            out.append("the hook relay was replaced")
        out += self._proxy_changes()
        if _dict_get(config_vars, "pluginmanager") is not pm:
            out.append("config.pluginmanager was replaced")
        for key, value in hooks["pm_vars"].items():
            if _dict_get(pm_vars, key, _ABSENT) is not value:
                out.append(f"the plugin manager's {key} was replaced")
        callers = hooks["dicts"]["relay"][1]
        for name, (caller, cls, values) in hooks["callers"].items():
            if _dict_get(callers, name, _ABSENT) is not caller:
                out.append(f"hook {name}: its caller was replaced")
            if _type(caller) is not cls:
                out.append(f"hook {name}: its caller's class was replaced")
                continue
            for slot, get in hooks["slots"][_id(cls)]:
                now, before = _read(get, caller), values[slot]
                if now is before:
                    continue
                if slot in ("spec", "_call_history") and before is None:
                    values[slot] = now  # pluggy sets a hook's spec (and a historic hook's history) when it learns it
                    continue
                out.append(f"hook {name}: its caller's {slot} was replaced")
        return out


# Comparison dunders: what ``assert f(x) == y`` (and ``in``, ``bool``, ``isinstance``) asks of the returned value.
_COMPARISONS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__hash__", "__contains__",
                "__instancecheck__", "__subclasscheck__")
_COMPARISON_SET = frozenset(_COMPARISONS)
# Read through ``type``'s own descriptors: a metaclass can define ``__dict__``, ``__mro__``, ``__qualname__`` …
# (a property on the metaclass) to show ordinary attribute lookups on its classes something else.
_class_dict = type.__dict__["__dict__"].__get__
_class_mro = type.__dict__["__mro__"].__get__
_class_name = type.__dict__["__qualname__"].__get__
_class_module = type.__dict__["__module__"].__get__
_class_flags = type.__dict__["__flags__"].__get__
_subclasses = type.__dict__["__subclasses__"]
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by Python code (a class statement, type(), …)
_TYPE_SUBCLASS = 1 << 31  # Py_TPFLAGS_TYPE_SUBCLASS, on a metaclass: its instances are classes
_BUILTINS = frozenset({types.BuiltinFunctionType, types.WrapperDescriptorType, types.MethodWrapperType,
                       types.MethodDescriptorType, types.ClassMethodDescriptorType})
_STATIC = (staticmethod, classmethod)
_TYPE_CHECKS = frozenset({"__instancecheck__", "__subclasscheck__"})  # asked by isinstance/issubclass only
# Containers that compare their elements with the elements' own dunders, by id (a class's hash may run Python code).
_CONTAINERS = {id(t): t for t in (list, tuple, dict, set, frozenset)}


def _alike_kinds() -> dict:
    """id(class) -> its kind, for Python's own container classes whose instances stand for one another where a
    call's outcome is compared: a list for a tuple, a ``frozenset`` for a ``set``, a ``Counter`` for a ``dict``
    (session 38's FP42-F). No project code runs in them; what they hold is compared, and the test's own asserts
    decide whether the class matters."""
    import collections
    # (not an OrderedDict: its ``==`` weighs order, a dict's does not, so a dict returned for one loosens the
    # test's own comparison; red-team round 43)
    kinds = {list: "sequence", tuple: "sequence", set: "set", frozenset: "set", dict: "mapping",
             collections.Counter: "mapping", collections.defaultdict: "mapping"}
    out = {id(cls): kind for cls, kind in kinds.items()}
    out[id(collections.OrderedDict)] = "ordered"  # alike a dict only item by item in order (round 44)
    return out


_ALIKE = _alike_kinds()
# Python's own value classes a subclass may stand for (and back), compared by the value C holds (helper 137's honest
# hunt: a NamedTuple for a tuple, an IntEnum member for an int, a str Enum's for a str)
_PLAIN_VALUE = {int: int.__int__, float: float.__float__, str: str.__str__, bytes: bytes.__bytes__, tuple: None}
_STANDS_FOR = {id(t): t for t in _PLAIN_VALUE}


def _library_paths() -> tuple:
    import sysconfig
    paths = sysconfig.get_paths()
    keys = ("stdlib", "platstdlib", "purelib", "platlib")
    return tuple(os.path.join(os.path.realpath(paths[key]), "") for key in keys if key in paths)


_LIBRARY_PATHS = _library_paths()
_LIBRARY_EQ: dict = {}  # id(class) -> (class, whether it is a library's class that defines equality in a library's)


def _library_file(module_name) -> bool:
    module = sys.modules.get(module_name) if _type(module_name) is str else None
    if not isinstance(module, types.ModuleType):
        return False
    where = _module_dict(module).get("__file__")
    return _type(where) is str and os.path.realpath(where).startswith(_LIBRARY_PATHS)


def _library_code(value) -> bool:
    """Whether a class member's functions (a function, a static or class method's, a property's accessors) are all
    code of an installed library's files (True for any other member: data, C's descriptors)."""
    kind = _type(value)
    if kind in _STATIC or kind is types.MethodType:
        value, kind = value.__func__, _type(value.__func__)
    if kind is property:
        return all(_library_code(f) for f in (value.fget, value.fset, value.fdel) if f is not None)
    if kind is types.FunctionType:
        filename = _func_code(value).co_filename
        return _type(filename) is str and os.path.realpath(filename).startswith(_LIBRARY_PATHS)
    return True


def _library_equality(cls) -> bool:
    """Whether ``cls`` is a class of an installed library's module (the standard library's or site-packages'), every
    function its classes hold is code of such a library's files (a class of the edit's that names ``pathlib`` as its
    module, or a project's subclass, is not), and one of them defines ``__eq__``."""
    known = _LIBRARY_EQ.get(_id(cls))
    if known is not None and known[0] is cls:
        return known[1]
    answer = False
    if _library_file(_class_dict(cls).get("__module__")):
        bases = [base for base in _class_mro(cls) if base is not object and _class_flags(base) & _HEAPTYPE]
        answer = any("__eq__" in _class_dict(base) for base in bases) and all(
            _library_code(member) for base in bases for member in list(_class_dict(base).values()))
    _LIBRARY_EQ[_id(cls)] = (cls, answer)
    return answer


def _plain_stand_in(ta, tb):
    """The built-in value class the pristine side's ``tb`` is exactly and the edited side's ``ta`` derives from with
    no comparison or hash of its own (no ``__eq__``, ``__ne__`` or ``__hash__`` in a class before it in its MRO), or
    None: the edited instance is then compared by the value its built-in part holds (read through the built-in's own
    methods), as ``==`` compares it; a subclass that compares its own way is a class difference as before, and so is
    a plain value where the pristine code gave a subclass's instance (red-team round 50: its class says something)."""
    for exact, other in ((tb, ta),):
        if _STANDS_FOR.get(_id(exact)) is not exact:
            continue
        before = []
        for cls in _class_mro(other):
            if cls is exact:
                if all(not any(name in _class_dict(c) for name in ("__eq__", "__ne__", "__hash__")) for c in before):
                    return exact
                return None
            before.append(cls)
    return None


# the methods of an exact list, dict or set that change nothing (``_Shadow._stand_in``: called a second time by the
# pristine call, they change nothing the test sees)
_READ_ONLY_METHODS = {
    list: frozenset({"__getitem__", "__contains__", "__len__", "__iter__", "__reversed__", "count", "index", "copy",
                     "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__repr__", "__sizeof__"}),
    dict: frozenset({"get", "__getitem__", "__contains__", "__len__", "__iter__", "__reversed__", "keys", "values",
                     "items", "copy", "__eq__", "__ne__", "__repr__", "__sizeof__", "__or__"}),
    set: frozenset({"__contains__", "__len__", "__iter__", "copy", "issubset", "issuperset", "isdisjoint", "union",
                    "intersection", "difference", "symmetric_difference", "__eq__", "__ne__", "__lt__", "__le__",
                    "__gt__", "__ge__", "__repr__", "__sizeof__", "__or__", "__and__", "__sub__", "__xor__"}),
}


def _fixed_member(value) -> bool:
    """Whether what ``_Shadow._stand_in`` and ``_Shadow._parts`` find in ``value`` depends only on which object it
    is (and its class): a function (its code), a class, a tuple or frozenset of scalars, a C method of no list, dict
    or set (a C class's ``__new__``), or any other object that is no container, no bound method and, of a class
    with a ``__dict__`` for its instances, has none (a descriptor, a scalar, ``_abc_data``). Read by identity and C slots: no code of it runs."""
    kind = _type(value)
    if kind is types.FunctionType or _class_flags(kind) & _TYPE_SUBCLASS:
        return True
    if kind is tuple or kind is frozenset:
        return _len(value) <= 64 and _all(_id(_type(item)) in _SCALAR_IDS for item in value)
    if kind is types.BuiltinMethodType:
        return _container_base(_type(value.__self__)) not in (list, dict, set)
    return kind is not types.MethodType and _container_base(kind) is None and (
        not _class_flags(kind) & _HEAPTYPE or _type(_attrs_dict(value)) is not dict)


def _container_base(cls):
    """The built-in container (list, tuple, dict, set, frozenset) that ``cls`` is or derives from, or None: read from
    the MRO by identity, so no metaclass code runs."""
    for base in _class_mro(cls):
        found = _CONTAINERS.get(id(base))
        if found is not None:
            return found
    return None


def _container_parts(value, base) -> tuple:
    """A container's elements, through its base type's own iteration (a subclass's ``__iter__`` is not asked):
    a dict's keys and values, anything else's items (each as a list)."""
    if base is dict:
        return list(dict.keys(value)), list(dict.values(value))
    return (list(base.__iter__(value)),)


def _namespace(module) -> dict | None:
    """A module's own namespace, read through ``ModuleType``'s descriptor (also for a ``ModuleType`` subclass, trio's:
    no ``__dict__`` property or ``__getattr__`` of the subclass is asked), or None for anything that is not a module."""
    if not _any(_map(_is, _class_mro(_type(module)), _repeat(types.ModuleType))):
        return None
    return _module_dict(module)


def _set_trace_now(function, must: bool = False) -> bool:
    """``sys.settrace(function)`` for this thread; False when CPython refused it because another thread was
    installing its own at that moment (a thread starting under ``threading.settrace``: "Cannot install a trace
    function while another trace function is being installed"). With ``must``, tried again until it is taken (the
    other installation is a moment long)."""
    for attempt in range(100000 if must else 1):
        try:
            _settrace(function)
            return True
        except RuntimeError:
            if attempt % 64 == 63:
                time.sleep(0.0005)  # (let the installing thread finish)
    return False


_partial_func = functools.partial.__dict__["func"].__get__
_partial_args = functools.partial.__dict__["args"].__get__
_partial_keywords = functools.partial.__dict__["keywords"].__get__
_static_func = staticmethod.__dict__["__func__"].__get__
_class_method_func = classmethod.__dict__["__func__"].__get__
_property_parts = tuple(property.__dict__[part].__get__ for part in ("fget", "fset", "fdel"))
_C_DESCRIPTORS = frozenset(map(id, (types.GetSetDescriptorType, types.MemberDescriptorType,
                                    types.WrapperDescriptorType, types.MethodDescriptorType,
                                    types.ClassMethodDescriptorType, types.BuiltinFunctionType)))
_TRACE_SCALARS = frozenset(map(id, (type(None), bool, int, float, complex, str, bytes, type(...),
                                     type(NotImplemented))))
_PLAIN_CONTAINERS = frozenset(map(id, (tuple, frozenset, list, dict, set)))


def _trace_runs(function):
    """The Python function CPython runs when it calls the trace or profile callable ``function`` (read through C
    descriptors: nothing of the callable's own runs): itself, a bound method's function, a ``functools.partial``'s or
    a ``staticmethod``'s (and their subclasses'), or the ``__call__`` def of its class. None for a callable that runs
    no Python code of its own (a C-level tracer, coverage's ``CTracer``; a profiler object ``sys.getprofile`` returns,
    never called), which the code under test cannot make. An ``lru_cache`` wrapper answers for the function it holds
    for the garbage collector (its ``__wrapped__`` is only a name). ``_ABSENT`` for one whose call runs Python code
    the plugin cannot name: a class (its ``__init__``), a weak proxy, an instance of a Python class whose ``__call__``
    is some other C wrapper."""
    return _trace_parts(function)[0]


def _trace_parts(function) -> tuple:
    """(what :func:`_trace_runs` answers, the objects that function runs on): a bound method's ``self``, a partial's
    arguments, the instance whose class's ``__call__`` runs. A library def runs what they hold (red-team round 40:
    ``bdb.Bdb.trace_dispatch`` bound to the edit's subclass ran its ``dispatch_call``)."""
    owners: list = []
    for _ in range(8):
        kind = _type(function)
        if kind is types.FunctionType:
            return function, owners
        if kind is types.MethodType:
            owners.append(function.__self__)
            function = function.__func__
            continue
        mro = _class_mro(kind)
        if _any(_map(_is, mro, _repeat(functools.partial))):
            owners.extend(_partial_args(function))
            owners.extend(dict.values(_partial_keywords(function)))
            function = _partial_func(function)
            continue
        if _any(_map(_is, mro, _repeat(staticmethod))):
            function = _static_func(function)
            continue
        if kind is functools._lru_cache_wrapper:
            # its __wrapped__ is only a name; the function it calls is among what it holds for the collector
            called = [r for r in _referents(function) if _type(r) is not dict
                      and not _class_flags(_type(r)) & _TYPE_SUBCLASS and _trace_parts(r)[0] is not None]
            if _len(called) != 1:
                return _ABSENT, owners
            function = called[0]
            continue
        if kind is weakref.CallableProxyType or _class_flags(kind) & _TYPE_SUBCLASS:
            return _ABSENT, owners  # (a class: the metaclass's __call__ runs its __new__ and __init__)
        for klass in mro:
            call = types.MappingProxyType.get(_class_dict(klass), "__call__", _ABSENT)
            if call is not _ABSENT:
                break
        else:
            return None, owners  # not callable from Python: a C-level registration
        if _type(call) is types.FunctionType:
            owners.append(function)
            return call, owners
        return (_ABSENT if _class_flags(kind) & _HEAPTYPE else None), owners
    return _ABSENT, owners


def _trace_why(function, judge, depth: int = 0) -> str | None:
    """Why calling the trace or profile callable ``function`` could run code that ``judge`` (a Python function ->
    why, or None when it is allowed) does not allow; None when it runs none. Judged: the function it runs, and
    what that function runs on (:func:`_owner_why`): the classes of a bound ``self`` and of the instance whose
    ``__call__`` runs, their defs and descriptors, and the callables the instance holds. Deeper attribute chains
    (``self.x.y()``) are not followed. (The callable is its own first owner: a bound method's function and
    ``self``, a ``partial``'s function and arguments, an instance's ``__call__`` def and class.)"""
    return _owner_why(function, judge, depth)


def _owner_why(owner, judge, depth: int) -> str | None:
    """Why the object a trace function runs on (see :func:`_trace_why`) could make it run code ``judge`` does not
    allow: a def, a descriptor's function or a callable that is not a plain datum in the own dict of a Python class
    in its class's MRO, or a callable in its instance dict (which shadows the class's defs). C classes' entries are
    C. None when there is none."""
    if depth > 3:
        return None
    kind = _type(owner)
    if _id(kind) in _TRACE_SCALARS or kind is types.ModuleType:
        return None
    if kind is types.FunctionType:
        return judge(owner)
    is_class = _class_flags(kind) & _TYPE_SUBCLASS
    if not is_class:  # what calling it runs (a partial's argument that is itself called, a bound method)
        runs, inner = _trace_parts(owner)
        if runs is _ABSENT:
            return f"a {_class_name(kind)} whose call runs code the plugin cannot name"
        if runs is not None:
            why = judge(runs)
            if why is not None:
                return why
            for other in inner:
                why = _owner_why(other, judge, depth + 1) if other is not owner else None
                if why is not None:
                    return why
    classes = _class_mro(owner) if is_class else _class_mro(kind)
    space = None
    for klass in classes:
        if not _class_flags(klass) & _HEAPTYPE:
            continue
        for name, value in list(_class_dict(klass).items()):
            if name == "__dict__" and _type(value) is not types.GetSetDescriptorType:
                return f"{_class_name(klass)}.__dict__ is a {_class_name(_type(value))}, not the instance dict"
            if name == "__dict__" and space is None and not is_class:
                space = value.__get__(owner)  # (C: the instance's own dict)
            why = _member_why(value, judge, depth)
            if why is not None:  # (a def's answer names its qualname already)
                return why if _type(value) is types.FunctionType else f"{_class_name(klass)}.{name}: {why}"
    if _type(space) is dict:
        for name, value in list(dict.items(space)):
            if _id(_type(value)) in _TRACE_SCALARS or _type(value) is types.ModuleType:
                continue
            if _type(value) is types.FunctionType or _trace_parts(value)[0] is not None:
                why = _trace_why(value, judge, depth)
            else:
                why = _container_why(value, judge, depth)
            if why is not None:
                return f"its attribute {name}: {why}"
    return None


def _container_why(value, judge, depth: int) -> str | None:
    """Why a list, tuple, dict, set or frozenset (or a subclass's items) that a trace function's object holds could
    make it run code ``judge`` does not allow: a callable among its items or its dicts' values, nested containers
    followed (red-team round 41: ``profile.Profile``'s ``dispatch`` table, a dict, held the edit's functions).
    Past 10,000 items, a finding: too large to judge."""
    base = _container_base(_type(value))
    if base is None or depth > 6:
        return None
    parts = _container_parts(value, base)
    items = [item for part in parts for item in part]
    if _len(items) > 10000:
        return f"a {_class_name(_type(value))} of more than 10,000 items, too large to judge"
    for item in items:
        kind = _type(item)
        if _id(kind) in _TRACE_SCALARS or kind is types.ModuleType:
            continue
        if kind is types.FunctionType or _trace_parts(item)[0] is not None:
            why = _trace_why(item, judge, depth)
        else:
            why = _container_why(item, judge, depth + 1)
        if why is not None:
            return f"an item: {why}"
    return None


def _member_why(value, judge, depth: int) -> str | None:
    """Why one entry of a Python class's own dict could run code ``judge`` does not allow (see :func:`_owner_why`)."""
    kind = _type(value)
    if kind is types.FunctionType:
        return judge(value)
    if _id(kind) in _TRACE_SCALARS or _id(kind) in _C_DESCRIPTORS or kind is types.ModuleType:
        return None
    if kind is staticmethod:
        return _member_why(_static_func(value), judge, depth)
    if kind is classmethod:
        return _member_why(_class_method_func(value), judge, depth)
    if kind is property:
        for part in _property_parts:
            function = part(value)
            if function is not None:
                why = _member_why(function, judge, depth)
                if why is not None:
                    return why
        return None
    if _id(kind) in _PLAIN_CONTAINERS:
        return _container_why(value, judge, depth)  # (class-level data: a dispatch table's callables)
    if _class_flags(kind) & _TYPE_SUBCLASS:  # a class held by the class (a nested class, a base's reference)
        return _owner_why(value, judge, depth + 1) if _class_flags(value) & _HEAPTYPE else None
    # a callable, or an instance of a Python class (a descriptor runs its __get__; a sentinel has no defs)
    return _owner_why(value, judge, depth + 1)


class _RewriteGuard:
    """What pytest's assertion rewriting calls outside pytest's watched state, as it was when the plugin started:
    checked as each module's rewriting starts (session 34). Code of the edit that runs inside the rewriting can
    reach the module's syntax tree (through frames) and take the asserts out of a test: a patched
    ``ast.iter_fields`` or ``builtins.isinstance`` did so for one test module with no other layer noticing, since
    the provenance check compiles the test file through the same rewriting (a forged pass with the runtime layers
    alone). The rewriting calls functions of ``ast`` (the node visitor, ``iter_fields``, ``copy_location``),
    ``pathlib`` (the module's path), ``tokenize`` (an assert's source text), builtins, ``os.fspath`` and
    ``sys.intern``; it builds nodes of ``ast``'s classes. Watched: those modules' namespaces and their classes'
    own dicts (keys and values by position and identity), pytest's rewriting module and ``AssertionRewriter``,
    and of ``builtins`` every name but those tests commonly patch (the patch ends with the test; the rewriting
    calls none of them), found by the key's identity. Nothing is hashed or compared: no code of the edit runs in
    the check. No code of the edit can run inside a rewriting unless something it calls was changed before it
    started, so a check at the start sees it; the provenance check then compiles from the file with what was
    there at the start (a change made and undone inside one rewriting is its finding)."""

    _WHOLE = ("ast", "pathlib", "tokenize")  # and every module their namespaces and the rewriting module's hold
    _ONLY = {"os": ("fspath",), "sys": ("intern",)}
    # Reached from those namespaces but changed by honest code at run time (pytest's capture sets sys.stdout,
    # catch_warnings sets warnings.showwarning, tests patch os.path) or watched as pytest's own: names only, or not.
    _NOT_WHOLE = frozenset({"os", "sys", "warnings", "posixpath", "ntpath", "builtins", "_pytest.assertion.util"})
    _BUILTINS_LEFT = frozenset({"open", "print", "input", "__import__", "help", "exit", "quit", "breakpoint", "_",
                                "copyright", "credits", "license"})

    def __init__(self, rewrite_module):
        self._parts: list = []  # (label, a module dict or class dict proxy, its keys, its values)
        seen: set = set()
        roots = [_sys_modules.get(name) for name in self._WHOLE] + [rewrite_module]
        modules: dict = {}
        for module in roots:  # (red-team round 32: rewrite.py's ``itertools.count()``, unwatched, ran the edit's code)
            space = _namespace(module)
            for value in [module] + (list(dict.values(space)) if space is not None else []):
                name = _namespace(value).get("__name__") if _namespace(value) is not None else None
                if _type(name) is str and name not in self._NOT_WHOLE and _sys_modules.get(name) is value:
                    modules.setdefault(name, value)
        for name, module in modules.items():
            space = _namespace(module)
            if space is None:
                continue
            self._add(name, space, space)
            for value in list(dict.values(space)):
                if _type(value) is type and _id(value) not in seen and _class_module(value) in (name, "_ast"):
                    seen.add(_id(value))
                    self._add(f"{name}.{_class_name(value)}", _class_dict(value), value)
        # Live views: a module's and a class's dict are never replaced, so these follow them.
        self._keys = [part[1] for part in self._parts]
        self._values = [_proxy_values(m) if _type(m) is types.MappingProxyType else dict.values(m)
                        for m in self._keys]
        self._spots: list = []  # (label, namespace, [(its key object, the value)])
        builtins_space = _namespace(_sys_modules.get("builtins"))
        picks = [("builtins", builtins_space, [k for k in builtins_space if _type(k) is str
                                               and k not in self._BUILTINS_LEFT])]
        picks += [(label, _namespace(_sys_modules.get(label)), names) for label, names in self._ONLY.items()]
        for label, space, names in picks:
            keys = {k: k for k in space if _type(k) is str}  # (no code of the edit has run yet)
            self._spots.append((label, space, [(keys[n], dict.get(space, n)) for n in names if n in keys]))
        self._builtin_names = frozenset(k for k in builtins_space if _type(k) is str)
        self._start = self._flat()
        # The contents of the dicts, lists and sets the rewriting's own modules and their classes hold (red-team
        # rounds 34 and 37: the edit's entries in ``ast._const_node_type_names`` made ``visit_Constant`` run its code
        # in the middle of a rewriting outside the test folders), item by item by identity. Only these four
        # modules': the modules they hold keep caches that change honestly (``re._cache``).
        self._containers: list = []  # (label, the container, its items then)
        roots = set(self._WHOLE) | {_namespace(rewrite_module).get("__name__")}
        for label, _mapping, keys, values, _holder, _module in self._parts:
            if label in roots or label.rpartition(".")[0] in roots:  # (a root module, or a class of one)
                self._containers += [(f"{label}.{key}", value, self._items(value)) for key, value in zip(keys, values)
                                     if _type(value) in (dict, list, set) and key != "__builtins__"]
        # The Python functions those namespaces and class dicts hold, by what they hold (code, defaults, ...: red-team
        # round 34 swapped AssertionRewriter.visit_Call's __code__ for a stub that put it back after the rewriting)
        functions: dict = {}
        for _label, _mapping, _keys, values, _holder, _module in self._parts:
            for value in values:
                kind = _type(value)
                if kind is staticmethod or kind is classmethod:
                    value = value.__func__
                parts = (value.fget, value.fset, value.fdel) if _type(value) is property else (value,)
                for part in parts:
                    if _type(part) is types.FunctionType:
                        functions.setdefault(_id(part), part)
                        _func_dict(part)  # (made now, as _Internals does: a first read would change the referents)
                        _func_annotations(part)
        self._functions = tuple(functions.values())
        self._function_args = tuple(itertools.chain.from_iterable(zip(self._functions,
                                                                      itertools.repeat(_FUNCTION_END))))
        self._function_referents = tuple(_referents(*self._function_args))
        # what is compared when the referents differ (a name set anew, as functools.total_ordering sets its shared
        # functions' __name__, changes them too)
        self._function_state = tuple((_func_code(f), _func_defaults(f), _func_kwdefaults(f)) for f in self._functions)

    @staticmethod
    def _items(container) -> tuple:
        """A dict's keys and values, a list's or set's items (iterating hashes nothing)."""
        return (tuple(container), tuple(dict.values(container))) if _type(container) is dict else (tuple(container),)

    def _add(self, label: str, mapping, holder) -> None:
        """``holder``: the module's namespace dict (a module: ``mapping`` is it) or the class."""
        values = _proxy_values(mapping) if _type(mapping) is types.MappingProxyType else dict.values(mapping)
        self._parts.append((label, mapping, tuple(mapping), tuple(values), _id(holder), mapping is holder))

    @staticmethod
    def _patched(holder_id: int, key, value) -> bool:
        """Whether ``value`` is what a test's own monkeypatch or mock.patch last put at ``key`` (red-team round 33's
        FP: a test patched ``pathlib.Path.exists`` and imported a helper module inside the test)."""
        return _type(key) is str and dict.get(_PATCHED_VALUES, (holder_id, key), _ABSENT) is value

    def _added_ok(self, key) -> bool:
        """A name added to a module's namespace that no code of the rewriting can be looking up: every name it looks
        up existed at the start (or it would fail), so only a dunder (``__getattr__``) or a builtin's name, which a
        module's global shadows, could change what it does (red-team round 33's FP: ``collections.Mapping =
        collections.abc.Mapping``, a legacy compatibility line, at a declared source's import)."""
        return (_type(key) is str and key not in self._builtin_names
                and not (key[:2] == "__" and key[-2:] == "__"))

    def _flat(self) -> tuple:
        chain = itertools.chain.from_iterable
        return tuple(chain(self._keys)), tuple(chain(self._values))

    def changed(self) -> str | None:
        """What differs from the start, or None: one identity pass (C-level), the details only on a change."""
        for label, space, spots in self._spots:
            keys = tuple(space)  # (iterating hashes nothing; positions found by the key objects' ids)
            values = tuple(dict.values(space))
            at = dict(zip(_map(_id, keys), range(_len(keys))))
            for key, before in spots:
                i = at.get(_id(key))
                if i is None or (values[i] is not before and not self._patched(_id(space), key, values[i])):
                    return f"{label}.{key} was replaced"
        for label, container, items in self._containers:
            now = self._items(container)
            if not _all(_len(a) == _len(b) and _all(_map(_is, a, b)) for a, b in zip(now, items)):
                return f"{label}: its contents were changed"
        now_functions = _referents(*self._function_args)
        if _len(now_functions) != _len(self._function_referents) or not _all(
                _map(_is, now_functions, self._function_referents)):
            for function, (code, defaults, kwdefaults) in zip(self._functions, self._function_state):
                if (_func_code(function) is not code or _func_defaults(function) is not defaults
                        or _func_kwdefaults(function) is not kwdefaults):
                    return f"{code.co_qualname} (of {code.co_filename}) was given other code or defaults"
            self._function_referents = tuple(now_functions)  # (nothing compared changed: this is the new baseline)
        now = self._flat()
        if _all(_len(a) == _len(b) and _all(_map(_is, a, b)) for a, b in zip(now, self._start)):
            return None
        for label, mapping, keys, values, holder, module in self._parts:
            now_keys = tuple(mapping)
            count = _len(keys)  # (a name added goes after the others; one removed or re-made moves them)
            if _len(now_keys) < count or not _all(_map(_is, now_keys[:count], keys)):
                return f"{label}: a name was removed or re-made"
            now_values = tuple(_proxy_values(mapping) if _type(mapping) is types.MappingProxyType
                               else dict.values(mapping))
            for key, before, after in zip(keys, values, now_values):
                if before is not after and not self._patched(holder, key, after) and not (
                        module and _id(_type(before)) in _SCALAR_IDS and _id(_type(after)) in _SCALAR_IDS):
                    # (a module's number or string set anew: ``re._MAXCACHE = 1024``, red-team round 34's FP)
                    return f"{label}.{key if _type(key) is str else '?'} was replaced"
            for key in now_keys[count:]:
                if not (module and self._added_ok(key)):
                    return f"{label}: a name was added ({key if _type(key) is str else '?'})"
        return None


# functools' method wrappers that hold the function they call as ``func`` (judged in its place).
_WRAPPING_DESCRIPTORS = (functools.partialmethod, functools.singledispatchmethod)


def _instancemethod_function(value):
    """The function inside CPython's C ``instancemethod`` (``PyInstanceMethod_New``: pybind11's methods), read through
    that static type's own member descriptor, or None for anything else."""
    cls = _type(value)
    if _class_flags(cls) & _HEAPTYPE or _class_name(cls) != "instancemethod":
        return None
    getter = _class_dict(cls).get("__func__")
    if type(getter) is not types.MemberDescriptorType or getter.__objclass__ is not cls:
        return None
    return getter.__get__(value, cls)


def _found_at(space: dict, qualname: str):
    """The class at ``qualname`` (``Outer.Inner``) in a module namespace, read from the dictionaries directly (no
    ``__getattr__`` runs), or None."""
    owner = None
    for part in qualname.split("."):
        owner = dict.get(space, part) if type(space) is dict else types.MappingProxyType.get(space, part)
        if not isinstance(owner, type):
            return None
        space = _class_dict(owner)
    return owner


_SCALARS = frozenset({type(None), bool, int, float, complex, str, bytes})
# their identity hashes (object.__hash__: asking a class itself could run its metaclass's __hash__)
_SCALAR_CLASSES = frozenset(map(object.__hash__, _SCALARS))
_PRISTINE_KINDS = frozenset({"name", "lambda", "call"})


def _pristine_table(raw, sources: dict) -> dict:
    """The harness's pristine binding sites (``beacon.repair.pristine_bindings``), validated: (class qualname, dunder)
    -> the sites there. A site of any other shape, or in a file that is not a declared source, is dropped (which only
    makes the check stricter)."""
    table: dict = {}
    if type(raw) is not list:
        return table
    for site in raw[:128]:
        checked = _pristine_checked(site, sources)
        if checked is not None:
            table.setdefault((checked["cls"], checked["dunder"]), []).append(checked)
    return table


def _pristine_checked(site, sources: dict) -> dict | None:
    if type(site) is not dict:
        return None

    def text(key):
        value = dict.get(site, key)
        return value if type(value) is str and 0 < len(value) <= 200 else None

    def numbers(value, size):
        return type(value) is list and 0 < len(value) <= size and all(type(n) is int and n >= 0 for n in value)

    out = {key: text(key) for key in ("file", "cls", "dunder", "kind", "scope")}
    if (None in out.values() or out["dunder"] not in _COMPARISON_SET | {"__len__"} or out["kind"] not in _PRISTINE_KINDS
            or out["scope"] not in ("class", "module")):
        return None
    out["file"] = os.path.realpath(out["file"])
    if out["file"] not in sources:
        return None
    if out["kind"] == "name":
        out["target"], out["qualname"], lines = text("target"), text("qualname"), dict.get(site, "lines")
        if out["target"] is None or out["qualname"] is None or not numbers(lines, 16):
            return None
        out["lines"] = frozenset(lines)
        return out
    lambdas = dict.get(site, "lambdas")
    if type(lambdas) is not list or len(lambdas) > 16 or not all(numbers(span, 4) and len(span) == 4
                                                                 for span in lambdas):
        return None
    out["lambdas"] = [tuple(span) for span in lambdas]
    if out["kind"] == "lambda":
        return out if len(lambdas) == 1 else None
    names, out["callee"], out["callee_class"] = dict.get(site, "names"), text("callee"), dict.get(site, "callee_class")
    if (out["callee"] is None or type(out["callee_class"]) is not bool or type(names) is not list or len(names) > 16
            or not all(type(parts) is list and 0 < len(parts) <= 16
                       and all(type(p) is str and 0 < len(p) <= 200 for p in parts) for parts in names)):
        return None
    out["names"] = [tuple(parts) for parts in names]
    return out


def _in_span(code, span) -> bool:
    """Whether every instruction of ``code`` with a column lies in ``span`` (a lambda body's start and end line and
    column; the entry's ``RESUME`` reads column 0 to 0) and at least one does: the lambda written there."""
    first_line, first_col, last_line, last_col = span
    inside = False
    for line, end_line, col, end_col in code.co_positions():
        if line is None or end_line is None or col is None or end_col is None or (col, end_col) == (0, 0):
            continue
        if (line, col) < (first_line, first_col) or (end_line, end_col) > (last_line, last_col):
            return False
        inside = True
    return inside and code.co_firstlineno <= first_line


def _nested(outer, code, depth: int) -> bool:
    """Whether ``code`` is a code object among ``outer``'s constants (nested ``depth`` deep at most), by identity."""
    for const in outer.co_consts:
        if const is code or (depth > 1 and _type(const) is types.CodeType and _nested(const, code, depth - 1)):
            return True
    return False


def _cells(function) -> list:
    """The contents of a Python function's closure cells (empty cells skipped)."""
    out = []
    for cell in function.__closure__ or ():
        try:
            out.append(cell.cell_contents)
        except ValueError:  # an empty cell
            pass
    return out


def _captured(function) -> list:
    """What a Python function holds besides its code: its closure's contents and its defaults."""
    out = _cells(function)
    out += list(function.__defaults__ or ())
    kwdefaults = function.__kwdefaults__
    if _type(kwdefaults) is dict:
        out += list(dict.values(kwdefaults))
    return out


def _held_now(value, memo: dict, depth: int = 3) -> tuple:
    """What a pristine call's judgement rests on, as the objects themselves (kept alive with the judgement, so no id
    is reused): for an object, its class, every class of its MRO but ``object`` with its own ``__dict__``'s keys and
    values and its functions' code, and what the object holds (its slots' and instance ``__dict__``'s values); for a
    function, its code, closure contents and defaults; and the same for each Python function held, ``depth`` levels
    deep. ``memo`` keeps each class's part while one class's dunders are judged (werkzeug's ``LocalProxy`` holds 12
    ``_ProxyLookup`` objects; cleared before each class): a class changed by code running inside that loop is seen
    at the next check."""
    kind = _type(value)
    if kind is types.FunctionType:
        out, held = (_func_code(value),), _captured(value)
    else:
        entry = memo.get(id(kind))
        if entry is None or entry[0] is not kind:
            entry = memo[id(kind)] = (kind, *_class_part(kind))
        out, held = entry[1], []
        for getter in entry[2]:
            own_dict = _read(getter, value)
            if _type(own_dict) is dict:  # ``__dict__`` (``__weakref__``: a ref or None)
                held += [*dict.keys(own_dict), *dict.values(own_dict)]
            else:
                held.append(own_dict)
    out += tuple(held)
    if depth > 1:
        for item in held:
            if _type(item) is types.FunctionType:
                out += _held_now(item, memo, depth - 1)
    return out


def _class_part(kind) -> tuple:
    """``_held_now``'s part for a class: ``(the objects, the getters of what an instance holds)``."""
    parts, getters = [kind], []
    for klass in _class_mro(kind)[:-1]:
        own = _class_dict(klass)
        values = list(types.MappingProxyType.values(own))
        parts += [klass, *types.MappingProxyType.keys(own), *values]
        for item in values:
            item_kind = _type(item)
            if item_kind is types.FunctionType:
                parts.append(_func_code(item))
            elif item_kind in _STATIC and _type(item.__func__) is types.FunctionType:
                parts.append(_func_code(item.__func__))
            elif item_kind is types.MemberDescriptorType or (item_kind is types.GetSetDescriptorType
                                                             and item.__objclass__ is klass):
                getters.append(item.__get__)
    return tuple(parts), tuple(getters)


def _same(before: tuple, now: tuple) -> bool:
    return _len(before) == _len(now) and _all(_map(_is, before, now))


def _resolved(parts: tuple, space: dict):
    """The C function or builtin class a dotted name of a pristine call (``operator.eq``, ``bool``) is in the module
    namespace ``space`` (or builtins), read from the dictionaries directly, with the name's last part as its own
    (C) ``__name__``; ``_ABSENT`` for anything else (a Python function or class a name could be rebound to)."""
    item = dict.get(space, parts[0], _ABSENT)
    if item is _ABSENT:
        item = dict.get(_namespace(_sys_modules.get("builtins")) or {}, parts[0], _ABSENT)
    for part in parts[1:]:
        inner = _namespace(item)
        if inner is not None:
            item = dict.get(inner, part, _ABSENT)
        elif issubclass(_type(item), type):
            item = types.MappingProxyType.get(_class_dict(item), part, _ABSENT)
        else:
            return _ABSENT
    if _type(item) in _BUILTINS or (issubclass(_type(item), type) and not _class_flags(item) & _HEAPTYPE):
        return item if getattr(item, "__name__", None) == parts[-1] else _ABSENT
    return _ABSENT


def _held_elsewhere(cls, value) -> bool:
    """Whether a class alive other than ``cls`` holds ``value`` in its own ``__dict__`` (by identity, no key hashed:
    red-team round 8's R8-2): a method borrowed from the class it belongs to."""
    for other in _all_classes():
        if other is not cls and _any(_map(_is, _class_dict(other).values(), _repeat(value))):
            return True
    return False


def _cython_code(value):
    """The code of a Cython-compiled function (Cython 3's ``cython_function_or_method``, e.g. pandas'
    ``Infinity.__eq__``), or None. Its class is a heap type, yet made by C (``PyType_FromSpec``), not by Python code:
    no class of its MRO holds a Python function, and its own ``__dict__`` holds the ``__call__`` slot wrapper made
    for it (a Python class, or a subclass, cannot make one whose ``__objclass__`` is itself). ``__code__`` is read
    through the type's own descriptor and is read-only on these objects."""
    cls = _type(value)
    mro = _class_mro(cls)
    if _class_name(cls) not in ("cython_function_or_method", "fused_cython_function"):
        return None  # (its ``__module__`` reads as the member descriptor of its instances' ``__module__``)
    own = _class_dict(cls)
    call, getter = own.get("__call__"), own.get("__code__")
    if (type(call) is not types.WrapperDescriptorType or call.__objclass__ is not cls
            or type(getter) is not types.GetSetDescriptorType or getter.__objclass__ is not cls):
        return None
    if any(type(v) is types.FunctionType for k in mro[:-1] for v in _class_dict(k).values()):
        return None
    code = getter.__get__(value, cls)
    return code if type(code) is types.CodeType else None


class _Strong:
    """A strong reference with weakref.ref's call: for values that take no weak reference (None, builtins)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __call__(self):
        return self.value


def _hold(value):
    try:
        return weakref.ref(value)  # no strong reference: a judged value (a mock's proxy) may die with its class
    except TypeError:
        return _Strong(value)


def _state(value) -> tuple:
    """What a judged dunder value is: the value, and a function's code (``__code__`` is writable)."""
    return _hold(value), _hold(value.__code__) if type(value) is types.FunctionType else None


def _all_classes() -> list:
    """Every class alive now: ``type.__subclasses__`` from ``object`` (weak references: only live classes)."""
    out, seen, stack = [object], {id(object)}, [object]
    while stack:
        for sub in _subclasses(stack.pop()):
            if id(sub) not in seen:
                seen.add(id(sub))
                out.append(sub)
                stack.append(sub)
    return out


# CPython's cached attribute lookup on a class (``_PyType_Lookup``, what a heap class's comparison slots and
# ``isinstance`` call), read through ``type``'s own descriptor: a metaclass's ``__getattribute__`` is not asked.
_type_lookup = type.__dict__["__getattribute__"]
_repeat, _getattr = itertools.repeat, getattr


def _odd_key(own) -> str:
    key = next(k for k in own if _type(k) is not str)  # iterating a dict's keys hashes none
    return f"a class dict key of type {_class_name(_type(key))}"


# Values whose cached lookup on the class is the value itself (a classmethod descriptor's would be bound: left out).
_CACHE_CHECKED = (_BUILTINS - {types.ClassMethodDescriptorType}) | {types.FunctionType}
_TYPE_OWN = frozenset(name for name in _COMPARISONS + ("__len__",) if name in type.__dict__ or name in object.__dict__)


def _data_descriptor(value) -> bool:
    return any("__set__" in _class_dict(k) or "__delete__" in _class_dict(k) for k in _class_mro(_type(value)))


def _stale(cls, name: str, expected) -> str | None:
    """Why CPython's cached lookup of ``name`` on ``cls`` is not ``expected`` (the value in the own ``__dict__`` of the
    class that the MRO resolves it to, or ``_ABSENT`` for none), or None (red-team round 8, R8-1: a raw write to a
    class's dict, without ``PyType_Modified``, leaves the type-attribute cache holding the old dunder, which
    comparisons keep calling while every ``__dict__`` reads the new one)."""
    meta = _type(cls)
    for owner in (_class_mro(meta) if meta is not type or expected is _ABSENT else ()):
        own = _class_dict(owner)  # what type.__getattribute__ asks of the metaclass first (type's own: no data)
        if name in own:
            if _data_descriptor(own[name]):
                return f"shadowed by the data descriptor {_class_name(meta)}.{name} (its metaclass's)"
            if expected is _ABSENT:
                return None  # the metaclass's own method answers: the cached lookup cannot be told apart
            break
    try:
        effective = _type_lookup(cls, name)
    except AttributeError:
        effective = _ABSENT
    if effective is expected:
        return None
    shown = ("nothing" if effective is _ABSENT else effective.__code__.co_name
             if _type(effective) is types.FunctionType else f"a {_class_name(_type(effective))}")
    return f"its class dict and CPython's type cache disagree (the cache holds {shown})"


# The comparisons the edited-dunder probe asks (``!=``, ``bool`` and ``hash`` have no honest answer to tell apart).
_PROBED = ("__eq__", "__lt__", "__le__", "__gt__", "__ge__", "__contains__")
_RAISED = object()


class _Stranger:
    """The probe's operand: an object of a class no project code knows, with nothing to read."""

    __slots__ = ()


class _Attributed:
    """A stranger whose every attribute, and the result of calling it, is a falsy stranger: for code that reads
    ``other.x`` before saying yes regardless (``self.x == other.x or True``)."""

    __slots__ = ()

    def __getattr__(self, name):
        return _Attributed()

    def __call__(self, *args, **kwargs):
        return _Attributed()

    def __bool__(self):
        return False


_PROBING = [0]  # the probe's questions running: the oracle of calls does not check them (no test asked them)


def _ask(function, value, stranger):
    """``function(value, stranger)``, or ``_RAISED`` when it raised anything but a ``KeyboardInterrupt`` (the probe
    is the harness's question, not the test's: whatever it raises stays out of the test's outcome, and the oracle of
    calls does not compare it with the pristine code's answer: an honest ``__eq__`` may say ``False`` where the
    pristine one says ``NotImplemented`` to an object no test gives it; session 23's alternative fixes)."""
    _PROBING[0] += 1
    try:
        return function(value, stranger)
    except KeyboardInterrupt:
        raise
    except BaseException:
        return _RAISED
    finally:
        _PROBING[0] -= 1


def _yes(said) -> bool:
    """Whether a probed comparison said yes: its answer is truthy (``True``, ``1``, ``numpy.True_``, an object without
    ``__bool__``/``__len__``); ``NotImplemented``, an exception or an answer whose truth raises is no."""
    if said is _RAISED or said is NotImplemented:
        return False
    if said is True:
        return True
    try:  # an object of a Python class too (red-team round 11, R11-1: ``return self``, truthy without __bool__)
        return bool(said)
    except Exception:
        return False


# The links judge_link asks about, by the rewritten ``Compare``'s operator; the dunder each side answers with.
_LINK_OPS = {ast.Eq: "__eq__", ast.Lt: "__lt__", ast.LtE: "__le__", ast.Gt: "__gt__", ast.GtE: "__ge__"}
# The oracle (_Oracle) also asks ``!=``, ``in`` and ``not in`` again.
_ORACLE_LINK_OPS = {**_LINK_OPS, ast.NotEq: "__ne__", ast.In: "__contains__", ast.NotIn: "!__contains__"}
_REFLECTED = {"__eq__": "__eq__", "__lt__": "__gt__", "__le__": "__ge__", "__gt__": "__lt__", "__ge__": "__le__"}
_FAR = 10 ** 18
_SALT = 1 + int.from_bytes(os.urandom(3), "big")  # per run: the probe's changed values are not known in advance


def _unlike(other, name: str) -> list:
    """Values an honest comparison ``name`` of something with ``other`` says no to, when it said yes to ``other``
    (all must be said yes to for a finding): for ``==``, ``other`` changed (an exact int, float, str, bytes, tuple
    or list, or copies of an object with its attributes replaced in turn, see :func:`_perturbed`); for an ordering, a number
    or string far on the wrong side. Empty when nothing is known to be unlike it (the check then asks nothing)."""
    kind = _type(other)
    if name == "__eq__":
        if kind is bool:
            return [not other]
        if kind is int:
            return [other + 1_000_003 + _SALT]
        if kind is float:
            changed = other + 1e6 + _SALT + abs(other)
            return [changed] if changed == changed and changed != other else []
        if kind is str:  # letters and digits: a comparison that normalizes (drops punctuation, parses digits) sees them
            return [other + f"x{_SALT}Q"]
        if kind is bytes:
            return [other + b"x%dQ" % _SALT]
        if kind is tuple:
            return [other + (_Stranger(),)]
        if kind is list:
            return [list.__add__(other, [_Stranger()])]
        if _class_flags(kind) & _HEAPTYPE:
            return _perturbed(kind, other)
        return []
    if kind in (int, float):
        return [-_FAR] if name in ("__lt__", "__le__") else [_FAR]
    if kind is str:
        return [""] if name == "__lt__" else []
    return []


_STDLIB = os.path.dirname(os.__file__) + os.sep


def _in_mro(cls, name: str) -> tuple:
    """``(value, owner)``: what ``name`` resolves to on ``cls`` through its MRO (the first class whose own ``__dict__``
    holds it, read through ``type``'s descriptors: no metaclass code runs), or ``(_ABSENT, None)``."""
    for base in _class_mro(cls):
        own = _class_dict(base)
        if name in own:
            return own[name], base
    return _ABSENT, None


def _test_file(filename) -> bool:
    """A test module or conftest by pytest's default file names."""
    base = os.path.basename(filename) if type(filename) is str else ""
    return base == "conftest.py" or (base.startswith("test_") or base.endswith("_test.py")) and base.endswith(".py")


def _shown_file(code) -> str:
    """A code object's file, shortened to the part after ``site-packages/`` or the standard library's folder."""
    filename = code.co_filename if type(code.co_filename) is str else "?"
    for marker in ("site-packages" + os.sep, "dist-packages" + os.sep):
        if marker in filename:
            return filename.split(marker, 1)[1]
    return filename[len(_STDLIB):] if filename.startswith(_STDLIB) else os.path.basename(filename)


def _instance_dict_getter(cls):
    """The C getter of the instances' ``__dict__`` that ``cls`` resolves to, or None (slots only, or a ``__dict__``
    that is not CPython's own descriptor: a property of the class would run its code)."""
    for base in _class_mro(cls):
        found = _class_dict(base).get("__dict__")
        if found is not None:
            return found.__get__ if type(found) is types.GetSetDescriptorType else None
    return None


def _perturbed(cls, value, most: int = 8) -> list:
    """At most ``most`` copies of ``value`` (made by ``object.__new__``, no project code runs) that together replace
    every instance attribute by a stranger, each attribute in one copy (attribute ``i`` in copy ``i % most``): an
    honest ``==`` that compares an attribute says no to at least one. (Only the first ``most`` attributes, one per
    copy, left an ``==`` of a later one saying yes to all: werkzeug's ``Rule.__eq__`` reads its 19th, ``_trace``.)
    Empty when the instances have no ``__dict__`` attributes, or when a copy could misbehave (a class with
    ``__del__`` would clean up state the copy shares, such as a file the value holds)."""
    getter = _instance_dict_getter(cls)
    if getter is None or _any("__del__" in _class_dict(base) for base in _class_mro(cls)[:-1]):
        return []
    try:
        own = getter(value, cls)
        keys = [key for key in dict.keys(own) if _type(key) is str] if _type(own) is dict else []
        copies = []
        for first in range(min(most, len(keys))):
            copy = object.__new__(cls)
            space = getter(copy, cls)
            dict.update(space, own)
            for key in keys[first::most]:
                dict.__setitem__(space, key, _Stranger())
            copies.append(copy)
        return copies
    except Exception:  # a class object.__new__ cannot make (a builtin base)
        return []


def _code_lines(code) -> set:
    """The lines a function's code (and the code nested in it) was compiled from, its ``def`` line included."""
    lines, todo = set(), [code]
    while todo:
        current = todo.pop()
        lines.add(current.co_firstlineno)
        lines.update(line for _, _, line in current.co_lines() if line is not None)
        todo.extend(const for const in current.co_consts if type(const) is types.CodeType)
    return lines


def _edited_entries(edited) -> list:
    """The secret's ``edited`` as ``[(path, lines)]``, malformed entries dropped (the harness writes it)."""
    out = []
    for entry in edited if type(edited) is list else ():
        if (type(entry) is list and len(entry) == 2 and type(entry[0]) is str and type(entry[1]) is list
                and all(type(line) is int for line in entry[1])):
            out.append((entry[0], entry[1]))
    return out


class _OracleNeeded(Exception):
    """Raised by a function the edit added when the oracle's comparison calls it (see :class:`_Oracle`)."""


# What a link's comparison is asked again as, by the dunder judge_link names (``in`` as the container's).
_ORACLE_CALLS = {"__eq__": operator.eq, "__ne__": operator.ne, "__lt__": operator.lt, "__le__": operator.le,
                 "__gt__": operator.gt, "__ge__": operator.ge,
                 "__contains__": lambda left, right: operator.contains(right, left),
                 "!__contains__": lambda left, right: not operator.contains(right, left),
                 "__bool__": lambda left, right: bool(left)}
_SHOWN_OPS = {"__eq__": "==", "__ne__": "!=", "__lt__": "<", "__le__": "<=", "__gt__": ">", "__ge__": ">=",
              "__contains__": "in", "!__contains__": "not in", "__bool__": "truth of"}
_marshal_loads, _b64decode, _cell, _partial = marshal.loads, binascii.a2b_base64, types.CellType, functools.partial
_marshal_dumps = marshal.dumps
_literal_eval, _decompress = ast.literal_eval, zlib.decompress
_LRU_TYPE = functools._lru_cache_wrapper  # (a global: read in hot paths with no attribute lookup)
_DECORATED = object()  # a def under another decorator: its pristine code is for the oracle of calls only
# A def under ``@lru_cache``/``@cache``: its pristine code is swapped in under a cache of the oracle's own (session
# 38: a memoized ``fib`` calls itself through its wrapper, which had held the edit's code or nothing)
_LRU = object()
# A def under a decorator the edit kept as the pristine file writes it: where its name holds a closure around the
# live def (``functools.wraps``' ``inner``), the closure is rebuilt around the pristine code (``_rewrapped``)
_KEPT_DECORATOR = object()
_WRAPS = {"function": None, "property": property, "staticmethod": staticmethod, "classmethod": classmethod,
          "decorated": _DECORATED, "lru_cache": _LRU, "decorated_kept": _KEPT_DECORATOR}
_WRAP_OF = {types.FunctionType: None, property: property, staticmethod: staticmethod, classmethod: classmethod,
            _LRU_TYPE: _LRU}
_CacheInfo = functools._CacheInfo
_CALLED_ALIKE = (None, _LRU)  # bound alike (both are descriptors that bind as methods): one may stand for the other


class _Oracle:
    """The task's pristine code asked the question an assert's comparison answered (red-team rounds 12 and 13).

    The probe (:meth:`_Comparisons.probe`) calls edited code, which can tell the probe's calls from the test's own
    (``logging``'s ``findCaller``, ``warnings.warn(stacklevel=2)``, a registry of the ids its ``__init__`` made), or
    keep its rigged answer for the test's values only (a dropped field, objects inside a list, a base reached through
    ``super()``). The oracle calls no code the edit changed: when ``left op right`` gave an assert its answer, the
    comparison is made again with every function of a declared file that the edit changed or added (the harness's
    ``changed``: its qualname and first line, :mod:`beacon.repair.oracle_defs`) replaced, wherever it is found — in
    the declared module's namespace, its classes, and the classes of the compared values and their elements, so a
    class rebound under another name is found by its functions, not its name — by its pristine version (code the
    harness compiled from the task's pristine file) when there is one, and otherwise by a function that raises
    :class:`_OracleNeeded`; then everything is put back. A different answer, a comparison that needed changed code
    with no pristine version, or pristine code that raised on the values (the edit built them so the right code
    cannot read them: an attribute renamed) is a finding: the answer the test got cannot be vouched for. The pristine
    code gives the task's own answers when the repair is right, so an honest repair is not flagged unless it reshapes
    what the compared values hold. Functions held elsewhere (an instance's ``__dict__``, another module's ``from …
    import``) and edited data are not replaced."""

    def __init__(self, entries=()):
        # a declared file's real path -> ({qualname: pristine version}, (changed first lines, cut qualnames),
        # rebound names, the pristine defs' names)
        self.files: dict = {}
        self.data: dict = {}  # a declared file's real path -> the pristine file's (scope, name) data bindings
        self.names: dict = {}  # a declared file's real path -> the names the pristine file binds at module level
        # qualnames of changed defs whose pristine counterpart cannot be swapped in (oracle_defs: "unmodeled")
        self.unmodeled: frozenset = frozenset()
        self.added: frozenset = frozenset()  # attribute names only the edit's code sets (oracle_defs: "added")
        self.overflow: list = []  # declared files whose changed code did not fit the secret: every ask fails closed
        # file paths whose state pristine runs saved and put back, and runs cut short at a change that could not be
        # (_Files): the evidence of the file guard
        self.files_put_back = self.files_refused = 0
        self.kept = False  # whether the edit kept a def as the given file has it where the pristine file's differs
        for entry in entries if type(entries) in (list, tuple) else ():
            try:
                if entry.get("overflow"):  # more changed code than the harness could describe: fail closed
                    self.overflow.append(os.path.realpath(entry["file"]))
                    continue
                swaps = {spec["qualname"]: (_marshal_loads(_decompress(_b64decode(spec["code"]))), _WRAPS[spec["kind"]],
                                            int(spec["defaults"]), tuple(spec["kwdefaults"]),
                                            _defaults_of(spec), bool(spec.get("same_defaults")))
                         for spec in entry["swap"]}
                cut = frozenset(str(q) for q in entry.get("cut", ()))  # left out for size: undecided, not added
                # (the first lines of defs the edit kept as the given file has them, swapped for their pristine
                # versions in the oracle's runs but never checked: oracle_defs' ``kept``)
                kept = frozenset(int(spec["kept"]) for spec in entry["swap"] if "kept" in spec)
                changed = (frozenset(int(line) for line in entry["changed"]), cut, kept)
                self.kept = self.kept or bool(kept)
                rebound = tuple((str(scope), str(name), how, _literal_eval(value) if how in ("literal", "kept", "table", "import")
                                 else _marshal_loads(_decompress(_b64decode(value))) if how in ("lambda", "statement")
                                 else value)
                                for scope, name, how, value in entry.get("rebound", ()))
                defnames = tuple((str(scope), str(name), str(q)) for scope, name, q in entry.get("defnames", ()))
                self.files[os.path.realpath(entry["file"])] = (swaps, changed, rebound, defnames)
                self.unmodeled |= frozenset(str(q) for q in entry.get("unmodeled", ()))
                self.added |= frozenset(str(n) for n in entry.get("added", ()))
                self.data[os.path.realpath(entry["file"])] = tuple((str(scope), str(name))
                                                                   for scope, name in entry.get("data", ()))
                if type(entry.get("names")) is list:
                    self.names[os.path.realpath(entry["file"])] = frozenset(str(n) for n in entry["names"])
            except (KeyError, TypeError, ValueError, EOFError, SyntaxError, binascii.Error):
                continue  # the harness's own data: malformed only by a bug; that file's oracle is off
        self._spaces: dict = {}  # real path -> the declared module's namespace (found by its functions' globals)
        self._modules_seen = -1
        _preload(r[3] for entry in self.files.values() for r in entry[2] if r[2] == "import")
        # The modules loaded before any project file (the plugin is made under ``-P``, after pytest's import): none is
        # a declared module, so ``_find_spaces`` passes them by (most of a small run's modules; it was ~15% of an
        # oracle run's time, asked each time sys.modules grows). One replaced in sys.modules is a new object: looked at.
        self._early: dict = {_id(m): m for m in list(dict.values(_sys_modules))} if self.files else {}
        # (the same by name: what a pristine import binds when the edit changed the import, ``_imported``; and what
        # such an import's attribute holds now, before any project code: red-team round 42's F4 rebound
        # ``math.isclose`` from the edit's module body, and the pristine ``from math import isclose`` read it)
        self._early_by_name: dict = dict(dict.items(_sys_modules)) if self.files else {}
        self._early_values: dict = {}
        for _, _, how, target in [r for entry in self.files.values() for r in entry[2]]:
            if how == "import" and _type(target) is tuple and _len(target) == 3 and not target[2] and target[1]:
                module = self._early_by_name.get(target[0])
                namespace = _namespace(module) if module is not None else None
                if _type(namespace) is dict and target[1] in namespace:
                    self._early_values[(target[0], target[1])] = dict.__getitem__(namespace, target[1])
        self._entries: dict = {}  # id(class or namespace) -> (it, its size, [(key, value, function, real)])
        self._reached: dict = {}  # id(container) -> (it, its length, whether it reaches a heap class): one test's
        self.active = False
        self.needed: list = []
        self.bound_by_call: dict = {}  # (id(holder), name) -> what the last run's call bound there (see ``run``)
        self.context = None  # the copied context the last run's call ran in (see ``_Shadow._run``)
        self.imported: dict = {}  # (id(holder), name) -> (holder, what the name held once the tests were collected)
        self.patched: set = _PATCHED_ANY  # (id(holder), name) a test's monkeypatch or mock.patch set
        self.early_threads: set = set()  # threads alive once the tests were collected (started at import)
        self.thread_starts: dict = {}  # ident -> (the starter thread's ident, declared files' code on its stack)
        if self.files:  # (before the plugin's watch of pytest's internals notes them: the wrappers are the originals)
            _record_threads(self.thread_starts, self.files)
        self._moved: set = set()  # those keys whose names hold something else when a run starts

    def settle(self) -> None:
        """Note what each rebound name and each pristine def's name holds once the tests are collected (the declared
        modules imported): a name that holds something else when the oracle asks, and that a test set through
        pytest's ``monkeypatch`` or ``unittest.mock.patch`` (a test's ``monkeypatch.setattr(numbers, "_TOL", 0.5)``
        or a stub for ``_close``; red-team round 17's FP17-1), is left as the test set it. Only those: a name the
        edited code rebinds at run time, where no check saw it (the probe's question, a ``__del__``: round 18's
        R18-1, R18-2), still gets its pristine value. A checked call's own rebinding is compared by the oracle of
        calls. The threads alive then were started as the modules loaded: they do not turn the oracle of calls off
        (:meth:`_Shadow._others_busy`; round 18's R18-6, a pool worker kept busy in the edited module)."""
        self.early_threads = set(_current_frames()) - {_get_ident()}
        for real, space in self._find_spaces().items():
            _, _, rebound, defnames = self.files[real]
            for scope, name in [(r[0], r[1]) for r in rebound] + [(d[0], d[1]) for d in defnames]:
                holder = space if not scope else _found_at(space, scope)
                if holder is not None:
                    own = holder if _type(holder) is dict else _class_dict(holder)
                    self.imported[(_id(holder), name)] = (holder, own.get(name, _ABSENT))

    def _set_at_run_time(self, holder, name: str) -> bool:
        return (_id(holder), name) in self._moved

    def _runtime_moves(self) -> set:
        """The noted names that hold something else now (taken before a run's swaps, which set names too)."""
        out = set()
        for key, (holder, value) in self.imported.items():
            if key not in self.patched:
                continue
            own = holder if _type(holder) is dict else _class_dict(holder)
            if own.get(key[1], _ABSENT) is not value:
                out.add(key)
        return out

    def ask(self, left, right, op: str, seen: bool = True):
        """``None`` when the pristine code gives the answer the test saw (``seen``; a link is asked after a yes),
        else the finding's wording. Values of built-in classes only (ints, strs, lists of them) involve no code the
        edit can change: not asked."""
        if self.active or not (self.files or self.overflow) or op not in _ORACLE_CALLS \
                or not (self.reaches(left) or self.reaches(right)):
            return None
        status, verdict = self.run(lambda: _yes(_ORACLE_CALLS[op](left, right)), left, right)
        shown = (f"the truth of a {_class_name(_type(left))}" if op == "__bool__" else
                 f"`{_class_name(_type(left))} {_SHOWN_OPS[op]} {_class_name(_type(right))}`")
        said = "yes" if seen else "no"
        if status is None or status is _UNMODELED:
            return None  # no changed code where the compared values can reach it (or none that can be swapped in)
        if status:
            return f"oracle: {shown} said {said} at an assert; {status}"
        if verdict is not seen:
            return (f"oracle: {shown} said {said} at an assert; the task's pristine code says "
                    f"{'yes' if verdict else 'no'} about the same values")
        return None

    def run(self, call, left, right=None, files_before=None, kept=False) -> tuple:
        """``call()`` with the changed code that ``left``, ``right`` and the declared modules reach replaced (see the
        class docstring), then put back: ``(None, None)`` when nothing was replaced (``call`` did not run), ``("",
        result)``, or ``(why, None)`` when it needed changed code with no pristine version or raised.

        ``kept``: the defs the edit kept as the given file has them, where the pristine file's differ, swapped for
        their pristine versions too: the whole pristine file's answer, asked only when a checked call differed from
        the pristine code run with the kept defs as they are (``_Shadow._judge``). Never at an assert's comparison:
        there the kept def is part of the code the test's answer came from (red-team round 42's
        ``lru_live_cache_plain``: the kept converter's wrong values met a planted memo, and only the pristine
        comparison run with the kept converter showed it)."""
        if self.active:
            return None, None
        if self.overflow:
            return "the edit changed more code than the oracle can be told about (fails closed)", None
        spaces = self._find_spaces()
        holders = self._classes_of(left) + self._classes_of(right)
        for space in spaces.values():
            holders.append(space)
            holders += [v for v in list(dict.values(space))[:2000] if _class_flags(_type(v)) & _TYPE_SUBCLASS]
        undo: list = []
        self._moved = self._runtime_moves() if self.imported else set()
        self.active, self.needed = True, []
        result, raised, replaced, unsaved = None, None, 0, None
        # (what the pristine code, and the pristine statements ``_rebind`` runs, change in the file system is put back
        # when the run ends: _Files)
        files = _file_guard()
        files.spaces = list(spaces.values())  # (their names bound to a guarded function are swapped too)
        files.begin(files_before)
        try:
            done: set = set()
            for holder in holders:
                if id(holder) in done:
                    continue
                done.add(id(holder))
                for key, value, function, real, given in self._changed(holder):
                    if given and not kept:
                        continue
                    swaps = self.files[real][0]
                    code = _func_code(function)
                    new = self._pristine(swaps.get(code.co_qualname), holder, value, function)
                    if given:  # (a kept def: its pristine version when it can be built, else left as it is; alone it
                        # is no reason to run: the run is for changed code)
                        if new is not None:
                            self._set(holder, key, new, undo)
                        continue
                    self._set(holder, key, new if new is not None else self._raiser(value, code.co_qualname), undo)
                    replaced += 1
            replaced += self._rebind(spaces, holders, undo)
            if replaced:
                try:
                    # (in a copy of the current context: a ``ContextVar`` it sets is not set for the real call;
                    # red-team round 62's forged tenant)
                    self.context = _copy_context()
                    result = self.context.run(call)
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # noqa: BLE001 (whatever the pristine code raised is the finding)
                    raised = exc.with_traceback(None)  # no cycle through this frame: what the values held is
                    # freed when the caller lets go of it (boltons' MinIDMap test counts on prompt freeing)
        finally:
            unsaved = files.end()
            self.files_put_back += len(files.order)
            # What the call itself bound under a name the swap had set (a pristine lazy singleton's ``global
            # _engine; _engine = Engine()``; session 38): the call's effect, read by ``_Shadow._run`` before the
            # undo below puts the live value back
            self.bound_by_call = {}
            for holder, key, _, new in undo:
                now = (dict.get(holder, key, _ABSENT) if _type(holder) is dict
                       else _class_dict(holder).get(key, _ABSENT))
                if now is not new:
                    self.bound_by_call[(_id(holder), key)] = now
            for holder, key, old, _ in reversed(undo):
                try:
                    if _type(holder) is dict:
                        if old is _ABSENT:
                            dict.pop(holder, key, None)
                        else:
                            dict.__setitem__(holder, key, old)
                    elif old is _ABSENT:
                        type.__delattr__(holder, key)
                    else:
                        type.__setattr__(holder, key, old)
                except Exception:  # noqa: S112 (a class that refuses its own attribute back: nothing else to do)
                    continue
            self.active = False
        if not replaced:
            return None, None
        if unsaved:  # (the run was cut short before a change of the file system it could not put back: no evidence)
            self.files_refused += 1
            return _UNMODELED, None
        if self.needed:
            if _all(name in self.unmodeled for name in self.needed):
                return _UNMODELED, None  # (a pristine counterpart the oracle cannot swap in: no evidence, counted)
            return f"only through {self.needed[0]}, code the edit changed or added with no pristine version", None
        if raised is not None:
            return (f"the task's pristine code raised {_class_name(_type(raised))} on the same values (the edit built "
                    f"them so the right code cannot compare them)"), raised
        return "", result

    def reaches(self, value, depth: int = 2) -> bool:
        """Whether ``value`` is, or a built-in container holds (to a depth of 2, every element), an object of a class
        made by Python code: only those can reach code the edit changed. A container's answer is kept while it is
        the same object at the same length (cleared per test with the compare-time judge's memo)."""
        cls = _type(value)
        if _class_flags(cls) & _HEAPTYPE:
            return True
        base = _container_base(cls)
        if base is None:
            return False
        length = base.__len__(value)
        seen = self._reached.get(id(value))
        if seen is not None and seen[0] is value and seen[1] == length:
            return seen[2]
        found = False
        for elements in _container_parts(value, base):
            kinds = set(_map(_type, elements))
            if _any(_class_flags(k) & _HEAPTYPE for k in kinds):
                found = True
            elif depth > 0 and _any(_container_base(k) is not None for k in kinds):
                found = _any(self.reaches(e, depth - 1) for e in elements if _container_base(_type(e)) is not None)
            if found:
                break
        self._reached[id(value)] = (value, length, found)
        return found

    def _rebind(self, spaces: dict, holders: list, undo: list) -> int:
        """Give each name whose module- or class-level assignments the edit changed its pristine value (a literal,
        its pristine def) or a value that raises when used (red-team round 14: ``_TOL = 1e9``, ``_close = slice``,
        ``value = property(bool)``, ``value = 0`` in a class). A class is found among the declared module's classes
        and the compared values' by its qualname. Returns how many names were set."""
        count = 0
        classes = [h for h in holders if _type(h) is not dict]
        tables, statements = [], []
        for real, space in spaces.items():
            swaps, _, rebound, _ = self.files[real]
            for scope, name, how, value in rebound:
                targets = [space] if not scope else [c for c in classes if _class_name(c) == scope]
                for holder in dict(zip(_map(_id, targets), targets)).values():
                    qualname = f"{scope}.{name}" if scope else name
                    if self._set_at_run_time(holder, name):
                        continue
                    if how in ("literal", "kept"):
                        # A pristine ``{}``/``[]``/``set()`` name whose binding the edit kept keeps its live container
                        # of that kind: a cache or registry the real calls or the module body filled, which the
                        # pristine code reads too (round 16's interning ``__new__``; round 17's FP17-2, a registry
                        # the module fills at import). One the edit rebound (``_CACHE = {"k": v}``) gets a fresh
                        # pristine value.
                        live = _type(dict.get(holder, name) if _type(holder) is dict else _class_dict(holder).get(name))
                        if how == "kept" and _type(value) in (list, dict, set) and (
                                live is _type(value) or (live is _ORDERED_DICT and _type(value) is dict)):
                            continue  # (an ``OrderedDict`` for ``{}``: oracle_defs' ``_same_empty``)
                        new = value
                    elif how == "def" and qualname in swaps:
                        new = self._standalone(swaps[qualname], holder, space, qualname)
                    elif how == "lambda" and _type(value) is types.CodeType and not value.co_freevars:
                        new = types.FunctionType(value, space, value.co_name)  # (pristine code: session 38)
                    elif how == "import" and _type(holder) is dict:
                        new = self._imported(value, space)
                        if new is _ABSENT:
                            new = _Poison(self.needed, qualname)
                    elif how == "table" and _type(holder) is dict:
                        tables.append((holder, name, value))  # built once the defs it names hold their pristine code
                        continue
                    elif how == "statement" and _type(holder) is dict and _type(value) is types.CodeType:
                        statements.append((holder, name, value))  # run once every other name holds its pristine value
                        continue
                    elif _type(holder) is dict:
                        new = _Poison(self.needed, qualname)
                    else:
                        new = _PoisonAttribute(self.needed, qualname)
                    self._set(holder, name, new, undo)
                    count += 1
            for scope, name, qualname in self.files[real][3]:
                # a pristine def's name must still hold that def (red-team round 15: ``for _close in (slice,)``,
                # ``@_memo`` returning another object): if not, its pristine version or a poison
                targets = [space] if not scope else [c for c in classes if _class_name(c) == scope]
                for holder in dict(zip(_map(_id, targets), targets)).values():
                    own = holder if _type(holder) is dict else _class_dict(holder)
                    if self._set_at_run_time(holder, name):
                        continue
                    value = own.get(name, _ABSENT)
                    function = _unwrapped(value)
                    if _type(value) is _CACHED_PROPERTY:
                        # (its getter, read from the descriptor's own dict: an unchanged ``@cached_property`` def was
                        # poisoned here, and a pristine call made before any real one filled its cache needed it;
                        # honest hunt 18's ``z04``)
                        held = _object_dict(value)
                        function = dict.get(held, "func") if _type(held) is dict else None
                    if type(function) is types.FunctionType and _func_code(function).co_qualname == qualname \
                            and self._real(function) == real:
                        if _type(value) is _LRU_TYPE:
                            # the def under a memo of the oracle's own: the live one holds answers the edit's code
                            # computed (red-team round 42's F2 filled it with ``_TOL`` set to 1e300 for a moment)
                            self._set(holder, name, _fresh_cache(function), undo)
                            count += 1
                        continue
                    new = self._standalone(swaps[qualname], holder, space, qualname, own.get(name), real) \
                        if qualname in swaps else (_Poison(self.needed, qualname) if _type(holder) is dict
                                                   else _PoisonAttribute(self.needed, qualname))
                    self._set(holder, name, new, undo)
                    count += 1
        for holder, name, (kind, items) in tables:
            # a pristine dispatch table: its literals, and what each pristine def's name holds now (the def, its
            # pristine version, or a raiser)
            made = [(key, dict.get(holder, what, _ABSENT) if how == "def" else what) for key, (how, what) in items]
            if _any(value is _ABSENT for _, value in made):
                new = _Poison(self.needed, name)
            else:
                new = dict(made) if kind == "dict" else [v for _, v in made] if kind == "list" else \
                    tuple(v for _, v in made)
            self._set(holder, name, new, undo)
            count += 1
        for holder, name, code in statements:
            # a pristine module-level class or assignment the edit removed or renamed (oracle_defs): the pristine
            # statement run in the module's namespace, where the names it reads hold their pristine values now; what
            # it binds is the name's value for this run (put back with the rest), a poison if it raised
            had = dict.get(holder, name, _ABSENT)
            try:
                exec(code, holder)  # noqa: S102 (the task's pristine statement, compiled by the harness)
                new = dict.get(holder, name, _ABSENT)
            except (Exception, _NotPutBack):  # noqa: BLE001 (and a file change not put back: the run's check drops)
                new = _ABSENT
            if had is _ABSENT:
                dict.pop(holder, name, None)
            else:
                dict.__setitem__(holder, name, had)
            self._set(holder, name, new if new is not _ABSENT else _Poison(self.needed, name), undo)
            count += 1
        return count

    def _imported(self, target, space: dict):
        """What a pristine module-level import binds (``target``: the module's name, the attribute or None, the
        relative level), taken from the modules loaded before any project file (``_early_by_name``: objects the
        edit did not make) and read from the module's namespace (no module ``__getattr__`` runs); _ABSENT for a
        relative import or a module loaded later (``sys.modules`` is the edit's to fill: a module it planted under
        the pristine name would answer for the pristine code). An attribute is the one the module held when the
        plugin started (``_early_values``)."""
        if _type(target) is not tuple or _len(target) != 3 or target[2]:
            return _ABSENT
        module, attribute, _ = target
        found = self._early_by_name.get(module)
        if found is None or attribute is None:
            return _ABSENT if found is None else found
        value = self._early_values.get((module, attribute), _ABSENT)  # (as it was before any project code ran)
        return self._early_by_name.get(f"{module}.{attribute}", _ABSENT) if value is _ABSENT else value

    def _standalone(self, spec, holder, space: dict, qualname: str, live=None, real=None):
        """A pristine def built for a name that holds something else (no live function to take defaults from)."""
        code, wrap, defaults, kwdefaults, literal, _ = spec
        if wrap is _KEPT_DECORATOR:
            rebuilt = self._rewrapped(spec, holder, live, qualname, real)
            return rebuilt if rebuilt is not None else self._raiser(None, qualname)
        if wrap is _DECORATED:
            return self._raiser(None, qualname)
        closure = (_cell(holder),) if code.co_freevars == ("__class__",) and _type(holder) is not dict else None
        if (code.co_freevars and closure is None) or ((defaults or kwdefaults) and literal is None):
            return self._raiser(None, qualname)
        function = types.FunctionType(code, space, code.co_name, None, closure)
        if literal is not None:
            function.__defaults__, function.__kwdefaults__ = literal
        return function if wrap is None else _fresh_cache(function) if wrap is _LRU else wrap(function)

    def _rewrapped(self, spec, holder, live, qualname: str, real):
        """``live``, a decorator's closure around the def ``qualname`` (``functools.wraps``' ``inner``), rebuilt with
        the pristine def in that def's cell, or None. Only where the edit kept the decorator's text
        (:data:`_KEPT_DECORATOR`), the closure's code is not code the edit changed or added, and its other cells hold
        inert values (numbers, strings, classes, modules, functions of files that are not declared): a cell with a
        container (a memo's dict) would hand the pristine call the answers the edit's code stored there (session
        38: a recursive def under a logging decorator had reached the edit's code through its own name)."""
        if type(live) is not types.FunctionType or live.__closure__ is None:
            return None
        wrapper = _func_code(live)
        where = self._real(live)
        entry = self.files.get(where) if where is not None else None
        if entry is not None and not self._made_by_kept_code(wrapper, where, entry):
            return None
        cells, target = [], None
        for cell in live.__closure__:
            try:
                held = cell.cell_contents
            except ValueError:
                return None
            if type(held) is types.FunctionType and _func_code(held).co_qualname == qualname \
                    and self._real(held) == real:
                if target is not None:
                    return None
                target = held
                cells.append(None)
            elif _inert(held, self.files):
                cells.append(cell)
            else:
                return None
        if target is None:
            return None
        pristine = self._pristine((spec[0], None, *spec[2:]), holder, target, target)
        if pristine is None:
            return None
        made = types.FunctionType(wrapper, live.__globals__, live.__name__, live.__defaults__,
                                  tuple(_cell(pristine) if c is None else c for c in cells))
        made.__kwdefaults__ = live.__kwdefaults__
        return made

    def _made_by_kept_code(self, wrapper, where: str, entry) -> bool:
        """Whether a closure's code of a declared file was made by code the edit left as it was: the outermost def
        its qualname names is what that name holds in the module (or its class), compiled from the file, holds the
        closure's code among its own, and starts on no line the harness marked changed (a def's text holds the defs
        nested in it). Red-team round 42's F3 changed only the factory, which filled the cells."""
        outer = wrapper.co_qualname.split(".<locals>.")[0]
        space = self._find_spaces().get(where)
        if space is None or outer == wrapper.co_qualname:
            return False
        scope, _, name = outer.rpartition(".")
        holder = space if not scope else _found_at(space, scope)
        if holder is None:
            return False
        own = holder if _type(holder) is dict else _class_dict(holder)
        factory = _unwrapped(own.get(name))
        if type(factory) is not types.FunctionType or self._real(factory) != where:
            return False
        code = _func_code(factory)
        return code.co_qualname == outer and code.co_firstlineno not in entry[1][0] \
            and _any(_map(_is, _codes_within(code), _repeat(wrapper)))

    def covers(self, function) -> bool:
        """Whether ``function`` is changed code with a pristine version: at a link, the oracle decides about it (or
        fails closed), so the probe's copies with attributes replaced would add only their false alarms."""
        code = _func_code(function)
        filename = code.co_filename
        if type(filename) is not str or not self.files:
            return False
        real = os.path.realpath(filename)
        entry = self.files.get(real)
        return (entry is not None and code.co_firstlineno in entry[1][0] and code.co_qualname not in entry[1][1]
                and code.co_qualname in entry[0] and entry[0][code.co_qualname][1] not in (_DECORATED, _KEPT_DECORATOR)
                and real in self._find_spaces())

    def _find_spaces(self) -> dict:
        """The declared modules' namespaces, each found as the ``__globals__`` of a function compiled from its file
        (a module's ``__file__`` or name can be rewritten; a function's globals cannot)."""
        if len(self._spaces) == len(self.files) or _len(_sys_modules) == self._modules_seen:
            return self._spaces
        self._modules_seen = _len(_sys_modules)
        early, files, function_type, real_of = self._early, self.files, types.FunctionType, self._real
        for module in list(dict.values(_sys_modules)):
            if early.get(_id(module)) is module:
                continue
            space = _namespace(module)
            if _type(space) is not dict:
                continue
            for value in list(dict.values(space))[:2000]:
                if type(value) is function_type:
                    # (and the def a library's decorator wrapped, read from the wrapper's own dict: a module whose
                    # only def is a ``contextlib.contextmanager``'s; red-team round 51)
                    inner = _func_dict(value).get("__wrapped__")
                    functions = (value, inner) if type(inner) is function_type else (value,)
                elif type(value) is _LRU_TYPE:
                    functions = (_lru_held(value),)
                elif _class_flags(_type(value)) & _TYPE_SUBCLASS:
                    # (a class's static and class methods, properties and memos too: a module whose only defs are
                    # those, a dataclass with a property, had no namespace, and its pristine calls no globals;
                    # session 38's FP42-B)
                    functions = [f for f in _map(_unwrapped, _proxy_values(_class_dict(value)))
                                 if type(f) is function_type]
                    # (and a nested class's: a module whose class holds only a class, round 49's ``Shop.Till``)
                    functions += [f for inner in list(_proxy_values(_class_dict(value)))[:64]
                                  if _class_flags(_type(inner)) & _TYPE_SUBCLASS
                                  for f in _map(_unwrapped, _proxy_values(_class_dict(inner)))
                                  if type(f) is function_type]
                else:
                    continue
                # A dataclass's generated ``__init__`` has the module's globals and the file ``<string>``: keep
                # looking (red-team round 13, R13-3: a dataclass first in the module hid the module).
                real = None
                for function in functions:
                    if function.__globals__ is space:
                        real = real_of(function)
                        if real in files:
                            break
                        real = None
                if real is not None:
                    self._spaces[real] = space
                    break
        return self._spaces

    @staticmethod
    def _real(function) -> str | None:
        # Remembered per file name (``_realpath_cached``, as the trace function does): ``_find_spaces`` asks this of
        # every function of every loaded module, and each ``os.path.realpath`` costs an lstat per path component
        # (~1.5 s of a 3 s run with the oracle on: 8,000 calls, 64,000 lstats).
        filename = _func_code(function).co_filename
        return _realpath_cached(filename) if type(filename) is str and filename[:1] != "<" else None

    def _pristine(self, spec, holder, live, now):
        """The pristine function for ``spec`` in place of ``live`` (``now`` the function it calls), bound as the
        spec says, or None when it cannot be built the same way (another binding, freevars, defaults)."""
        if spec is None:
            return None
        code, wrap, defaults, kwdefaults, literal, same = spec
        have = _WRAP_OF.get(_type(live))
        if have is not wrap and not (have in _CALLED_ALIKE and wrap in _CALLED_ALIKE):
            return None
        closure = None
        if code.co_freevars:
            if code.co_freevars != ("__class__",) or _type(holder) is dict:
                return None
            closure = (_cell(holder),)
        function = types.FunctionType(code, now.__globals__, code.co_name, None, closure)
        if literal is not None:  # the pristine literal defaults (red-team round 15: not the edited ones)
            function.__defaults__, function.__kwdefaults__ = literal
        elif defaults or kwdefaults:
            have, have_kw = _func_defaults(now), _func_kwdefaults(now)
            if not same or len(have or ()) != defaults or tuple(sorted(have_kw or ())) != kwdefaults:
                return None  # edited or reshaped defaults that are not literals: changed code with no pristine version
            function.__defaults__, function.__kwdefaults__ = have, have_kw
        function.__qualname__ = code.co_qualname
        if wrap is property:
            return property(function, live.fset, live.fdel)
        return function if wrap is None else _fresh_cache(function) if wrap is _LRU else wrap(function)

    @staticmethod
    def _set(holder, key, value, undo: list) -> None:
        if _type(holder) is dict:
            old = dict.get(holder, key, _ABSENT)
            dict.__setitem__(holder, key, value)
        else:
            old = _class_dict(holder).get(key, _ABSENT)
            type.__setattr__(holder, key, value)
        undo.append((holder, key, old, value))

    def _changed(self, holder) -> list:
        """``[(key, value, function, real path, kept)]``: the entries of a namespace or class dict that are (or wrap)
        a function of a declared file that the edit changed or added (by its qualname and first line), or kept as the
        given file has it where the pristine file's differs (``kept``)."""
        own = holder if _type(holder) is dict else _class_dict(holder)
        size = _len(own)
        seen = self._entries.get(id(holder))
        if seen is not None and seen[0] is holder and seen[1] == size:
            return seen[2]
        out = []
        for key, value in list(own.items()):
            function = _unwrapped(value)
            if type(function) is not types.FunctionType:
                continue
            real = self._real(function)
            entry = self.files.get(real) if real is not None else None
            code = _func_code(function)
            if entry is not None and code.co_firstlineno in entry[1][0] and code.co_qualname not in entry[1][1]:
                out.append((key, value, function, real, False))
            elif entry is not None and code.co_firstlineno in entry[1][2] and code.co_qualname in entry[0]:
                out.append((key, value, function, real, True))
        self._entries[id(holder)] = (holder, size, out)
        return out

    def _raiser(self, value, qualname: str):
        needed = self.needed

        def changed(*args, **kwargs):
            needed.append(qualname)
            raise _OracleNeeded(qualname)

        kind = _type(value)
        if kind is property:
            return property(changed)
        if kind in _STATIC:
            return kind(changed)
        return changed


    @staticmethod
    def _classes_of(value, depth: int = 2) -> list:
        """The heap classes of ``value`` (its MRO) and, for a built-in container, of its first elements."""
        cls = _type(value)
        out = [c for c in _class_mro(cls) if _class_flags(c) & _HEAPTYPE]
        base = _container_base(cls)
        if base is not None and depth > 0:
            for elements in _container_parts(value, base):
                for element in elements[:64]:
                    out += _Oracle._classes_of(element, depth - 1)
        return out


class _Poison:
    """What a module-level name the edit rebound holds during the oracle when it has no pristine value: any use
    records the name and raises :class:`_OracleNeeded` (the comparison needed edited data)."""

    __slots__ = ("_needed", "_name")

    def __init__(self, needed: list, name: str):
        object.__setattr__(self, "_needed", needed)
        object.__setattr__(self, "_name", name)


def _poisoned(self, *args, **kwargs):
    object.__getattribute__(self, "_needed").append(object.__getattribute__(self, "_name"))
    raise _OracleNeeded(object.__getattribute__(self, "_name"))


for _dunder in ("__getattribute__", "__call__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__",
                "__len__", "__iter__", "__contains__", "__hash__", "__getitem__", "__index__", "__int__", "__float__",
                "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
                "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__neg__", "__pos__",
                "__abs__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__round__"):
    setattr(_Poison, _dunder, _poisoned)


class _PoisonAttribute:
    """The same for a class-level name: a non-data descriptor, so an instance's own attribute of that name still
    wins and only a read that reaches the class raises."""

    def __init__(self, needed: list, name: str):
        self.needed, self.name = needed, name

    def __get__(self, instance, owner=None):
        self.needed.append(self.name)
        raise _OracleNeeded(self.name)


def _defaults_of(spec: dict):
    """``(__defaults__, __kwdefaults__)`` from a spec's pristine literal defaults, or None when they are not all
    literals."""
    positional, keywords = spec.get("literal_defaults"), spec.get("literal_kwdefaults")
    if positional is None or keywords is None:
        return None
    return (tuple(_literal_eval(v) for v in positional) or None,
            {k: _literal_eval(v) for k, v in keywords.items()} or None)


_COMPREHENSIONS = frozenset({"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"})


def _a_call_of(held, function, code, frame) -> bool:
    """Whether the running ``frame`` of ``code`` is a call through ``held`` (a namespace's entry whose function is
    ``function``): its free variables hold the very objects ``function``'s closure cells do (two closures of one code:
    a decorator's ``wrapper`` of two defs), or its parameters the very objects a ``functools.partial`` binds (two
    partials of one helper: ``double = partial(_scale, factor=2)``, helper 137's honest cases)."""
    local = frame.f_locals
    if _type(held) is _partial:
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        bound = list(zip(names, held.args)) + list((held.keywords or {}).items())
        return bool(bound) and all(local.get(name, _ABSENT) is value for name, value in bound)
    cells = function.__closure__ or ()
    if len(cells) != len(code.co_freevars) or not cells:
        return False
    for name, cell in zip(code.co_freevars, cells):
        try:
            if local.get(name, _ABSENT) is not cell.cell_contents:
                return False
        except ValueError:  # (an empty cell)
            return False
    return True


_CO_COROUTINE = 0x80
_RESUMED_FLAGS = 0x20 | _CO_COROUTINE  # CO_GENERATOR, CO_COROUTINE: recorded at their first resume
_UNREPLAYED_FLAGS = 0x100 | 0x200  # CO_ITERABLE_COROUTINE, CO_ASYNC_GENERATOR: not recorded
def _generated_init(code) -> bool:
    """Whether ``code`` was made from text at run time for a class: a dataclass's ``__init__``, a named tuple's
    ``__new__`` (a lambda whose first parameter is ``_cls``; red-team round 51). Such code has no file of its own."""
    return code.co_filename[:1] == "<" and (code.co_name == "__init__" or code.co_name == "<lambda>" and (
        code.co_argcount and code.co_varnames[0] == "_cls"))


def _loop_running() -> bool:
    """Whether an ``asyncio`` event loop runs in this thread (read through ``_asyncio``'s C function, only when
    ``asyncio`` is loaded: the plugin imports neither)."""
    module = _sys_modules.get("_asyncio")
    space = _namespace(module) if module is not None else None
    get = space.get("_get_running_loop") if _type(space) is dict else None
    return _type(get) is types.BuiltinFunctionType and get() is not None


_TYPE_NAME = type.__dict__["__name__"].__get__  # (a class's own name, which private slot names are mangled with)


def _copyreg_slotnames(cls, value) -> bool:
    """Whether ``value`` is what ``copyreg._slotnames`` caches on ``cls`` when one of its instances is copied or
    pickled (the oracle of calls copies arguments: a ``cmd.Cmd`` holding pytest's capture streams made pytest's
    classes gain ``__slotnames__``, blamed on the edit; honest hunt 10): a list of the ``__slots__`` names of the
    classes in its MRO, private ones mangled, read through the classes' own dicts."""
    if _type(value) is not list or not _all(_type(v) is str for v in value):
        return False  # (exact strs only: a project object's ``__eq__`` must not run in the watch)
    names = []
    for klass in _class_mro(cls):
        slots = types.MappingProxyType.get(_class_dict(klass), "__slots__", _ABSENT)
        if slots is _ABSENT:
            continue
        for name in ((slots,) if _type(slots) is str else slots if _type(slots) in (tuple, list) else ()):
            if _type(name) is not str or name in ("__dict__", "__weakref__"):
                continue
            stripped = _TYPE_NAME(klass).lstrip("_")
            names.append(f"_{stripped}{name}" if name.startswith("__") and not name.endswith("__") and stripped
                         else name)
    return value == names


class _ClassBound:
    """A recorded def whose first parameter is a class: a class method (``member``: its name) or ``__new__``
    (``member`` empty: the call is made again as the class's). ``holder``: the class whose dict holds it."""

    __slots__ = ("holder", "member")

    def __init__(self, holder, member: str):
        self.holder, self.member = holder, member

    def __bool__(self) -> bool:
        return True

    def name(self, local, code, where, real: str):
        """The name the replay calls: through the class the call's first argument is (the holder, or a subclass
        of it defined in a declared file: ``where`` finds it); None when it is no such class."""
        first = local.get(code.co_varnames[0]) if code.co_argcount else None
        if first is None or not _class_flags(_type(first)) & _TYPE_SUBCLASS:
            return None
        if first is not self.holder and not _any(c is self.holder for c in _class_mro(first)):
            return None
        place = where(first)
        if place is None or place[0] != real:
            return None
        return place[1] + ("." + self.member if self.member else "")


def _unwrapped(value):
    """The function a class-dict or namespace entry calls: itself, a static/class method's, a property's getter,
    a bound method's or a ``functools.partial``'s (any other object: itself)."""
    kind = _type(value)
    if kind in _STATIC or kind is types.MethodType:
        return value.__func__
    if kind is property:
        return value.fget
    if kind is _partial:
        return value.func
    if kind is _LRU_TYPE:
        return _lru_held(value)
    return value


def _defining_class(code, first):
    """The class in ``first``'s MRO (``first``'s class's, when it is no class) whose own dict holds a function of
    ``code`` under its name, or None. Read through the classes' own dicts: no descriptor runs."""
    kind = _type(first)
    mro = _class_mro(first) if _class_flags(kind) & _TYPE_SUBCLASS else _class_mro(kind)
    for klass in mro:
        function = _unwrapped(types.MappingProxyType.get(_class_dict(klass), code.co_name, None))
        if type(function) is types.FunctionType and _func_code(function) is code:
            return klass
    return None


def _plain_values(value, budget: int = 256) -> bool:
    """Whether ``value`` is built-in scalars in exact lists, tuples, dicts, sets and frozensets, at most ``budget``
    values in all (read through the built-in types' own iteration: no project code runs)."""
    todo = [value]
    while todo:
        budget -= 1
        if budget < 0:
            return False
        item = todo.pop()
        kind = _type(item)
        if _ohash(kind) in _SCALAR_CLASSES:
            continue
        if kind is list or kind is tuple or kind is set or kind is frozenset:
            todo += list(kind.__iter__(item))
        elif kind is dict:
            todo += list(dict.keys(item)) + list(dict.values(item))
        else:
            return False
    return True


def _inert(value, files: dict) -> bool:
    """A value a rebuilt closure may share with the live one: one of a built-in scalar class, a built-in class, a
    module, a module's built-in function, or a function compiled from a file that is not declared (``files``: real
    path -> entry)."""
    kind = _type(value)
    if value is None or _ohash(kind) in _SCALAR_CLASSES or kind is types.ModuleType:
        return True
    if kind is types.BuiltinFunctionType:  # a module's function, not a method bound to an object (a dict's .get:
        return _type(value.__self__) is types.ModuleType  # red-team round 42's F3)
    if kind is type:  # a built-in class (a Python class says where it is from in words it chose: not trusted)
        return not _class_flags(value) & _HEAPTYPE
    if kind is types.FunctionType:
        filename = _func_code(value).co_filename
        return type(filename) is str and filename[:1] != "<" and _realpath_cached(filename) not in files
    return False


def _lru_held(wrapper):
    """The Python function an ``lru_cache`` wrapper calls, read from what it holds for the collector (its
    ``__wrapped__`` is only a name in its dict), or the wrapper itself when that is not one function."""
    held = [r for r in _referents(wrapper) if type(r) is types.FunctionType]
    return held[0] if _len(held) == 1 else wrapper


def _fresh_cache(function):
    """``function`` under an ``lru_cache`` of its own: unbounded and typed, so each argument is answered by the code
    as if uncached (the pristine def's memo, rebuilt without ``functools``' Python code or the live wrapper's
    entries, which the edit's code computed)."""
    return _LRU_TYPE(function, None, True, _CacheInfo)


# Code flags of a call that returns an awaitable (its body runs later, at each resume): not shadowed. A generator's
# resumes are checked one by one, in step with a pristine generator (``_Shadow._resume``).
_LAZY_FLAGS = 0x80 | 0x100 | 0x200  # CO_COROUTINE, CO_ITERABLE_COROUTINE, CO_ASYNC_GENERATOR
_CO_GENERATOR = 0x20
_RETURN_VALUE = dis.opmap["RETURN_VALUE"]
_YIELD_VALUE, _RESUME = dis.opmap["YIELD_VALUE"], dis.opmap["RESUME"]
_get_instructions = dis.get_instructions  # bound before any project file loads
_NUMBERS = frozenset({bool, int, float})
_deepcopy, _settrace, _gettrace, _isclose, _isnan = copy.deepcopy, sys.settrace, sys.gettrace, math.isclose, math.isnan
_getprofile = sys.getprofile
_get_ident, _active_count, _current_frames = threading.get_ident, threading.active_count, sys._current_frames
# Where the interpreter's own code lives (the standard library, installed packages): a thread whose every frame is
# there is parked (an idle pool worker), not running the project's or a test's code.
_INSTALLED = tuple({os.path.realpath(p) + os.sep for key, p in sysconfig.get_paths().items()
                    if key in ("stdlib", "platstdlib", "purelib", "platlib")})
# ... and every folder the site module put on sys.path for packages (user site, a venv's base): the only places outside
# the checkout whose files the run cannot have written (red-team round 33: a trace function and a hook defined in a file
# the edit wrote to /tmp passed as "outside the checkout, as installed libraries are")
_LIBRARIES = tuple(sorted(set(_INSTALLED) | {os.path.realpath(p) + os.sep for p in sys.path
                                             if type(p) is str and p.endswith(("site-packages", "dist-packages"))}))


_STARTED_NS = time.time_ns()  # (the plugin is imported before any project code: a file changed since was the run's)


def _preload(targets) -> None:
    """Imports, before any project code runs, the installed modules that pristine module-level imports the edit
    changed or removed name (``targets``: oracle_defs' ``import`` bindings, absolute ones), so that ``_imported`` finds
    them among the modules the edit did not make. Session 39's honest hunt: a repair that replaced a hand-written
    helper by ``uuid.uuid5`` and dropped ``import hashlib`` read tampered, the pristine code the oracle swaps in
    reading ``hashlib``, which no code had loaded. Only a module of the interpreter's own install is imported (the
    standard library, site-packages, built-in or frozen: ``_LIBRARIES``), never one of the checkout's."""
    import importlib.util  # noqa: PLC0415 (standard library; only here)
    for target in targets:
        if _type(target) is not tuple or _len(target) != 3 or target[2] or _type(target[0]) is not str \
                or not target[0] or target[0] in _sys_modules:
            continue
        try:
            spec = importlib.util.find_spec(target[0])
            origin = getattr(spec, "origin", None)
            if origin in ("built-in", "frozen") or _type(origin) is str and _in_libraries(os.path.realpath(origin)):
                importlib.import_module(target[0])
        except Exception:  # noqa: BLE001 (not importable here: the pristine code that reads it stays unchecked)
            continue


def _in_libraries(real: str) -> bool:
    """Whether the (real) path ``real`` is a file of the interpreter's standard library or site-packages folders that
    was there, unchanged, before the run started (its inode's change time is older: red-team round 34 wrote a trace
    function's file into site-packages, which a run without the sandbox, as root, can)."""
    if _type(real) is not str or not real.startswith(_LIBRARIES):
        return False
    try:
        return os.stat(real).st_ctime_ns < _STARTED_NS
    except OSError:
        return False
_locals_to_fast = ctypes.pythonapi.PyFrame_LocalsToFast  # (a frame's locals dict written back, missing ones dropped)
_locals_to_fast.argtypes, _locals_to_fast.restype = (ctypes.py_object, ctypes.c_int), None
_Enum = enum.Enum  # members are shared by their deep copies by design
_UNMODELED = "unmodeled"  # _Oracle.run's answer when the pristine call reached only unmodeled changed defs
_NESTED = object()  # a changed function defined inside another (a closure, a lambda): asked only by a pristine name
_DISPLACED = object()  # held by a pristine def's name whose pristine code was not sent (the def's text unchanged)
_SHADOW_CALLS_PER_CODE = 2000  # checked calls per changed function; more are counted as unchecked (evidence)
_FIRST_TRIES = 16  # a changed def's calls checked past every limit until one of them is judged (``_counted``)
# The run's check work in test phases (``_WORK``): past it one call in 8 is checked, past twice it none. It stands for
# the 5 s of checking it replaced in session 51: on the Xeon of sessions 38-51, ``python -m
# experiments.benchmarks.oracle_work``'s four calibration cases (1,900 small calls; 200 calls with 4,000-value
# arguments; 250 calls saving a module list of 200 objects and a dict of 200 keys; 200 calls of a costly body) spent
# 0.55-4.2 s on 3.7-44 million units, fitted as 10.1 million units a second: 5 s is 50.4 million.
_SHADOW_WORK = 50_000_000
_PRISTINE_RUN_WORK = 3_000  # a pristine run's own share (see _WORK; about 0.3 ms on that machine)
# The one limit read from a clock: what a pristine body computes is not counted as work (a loop of arithmetic visits
# nothing), so a suite of costly calls would be checked in full, each call made twice (red-team round 71's h02: 3,000
# checksums of 12 ms timed out at 60 s). Past this many CPU seconds of checking in the checking thread (twice what
# twice _SHADOW_WORK costs on the project's machine: the work limits decide first on any machine up to twice as
# slow), no call is checked; the calls it left unchecked are counted apart (``stopped_by_clock``, in the row only when
# it decided any: the one case where a row depends on the machine, and says so).
_SHADOW_CPU_SECONDS = 20.0
_DIFF_NODES = 20000  # values walked per comparison of a call's effects
_SIZED = frozenset({list, dict, set, tuple})  # what saved contents are counted by (their length: _restore's work)
_COPY_NODES = 5000  # values a call's arguments may reach for it to be copied and checked
_HELD = 256  # objects from checked calls whose later changes are compared (the most recent)
_REAL_PATHS: dict = {}
_islice, _getframe, _getrefcount = itertools.islice, sys._getframe, sys.getrefcount
_keys_equal = type({}.keys()).__eq__  # two dicts' keys views: the same keys
_LOCALS_ITEMS = 512  # items a test frame's locals are followed into, per checked call (``_test_locals``)


def _realpath_cached(filename) -> str | None:
    """``os.path.realpath`` of a code object's file name, remembered (None for a name that is not a str)."""
    if _type(filename) is not str:
        return None
    found = _REAL_PATHS.get(filename)
    if found is None:
        found = _REAL_PATHS[filename] = os.path.realpath(filename) if filename[:1] != "<" else filename
    return found
_weakref = weakref.ref
_ohash = object.__hash__  # an object's identity hash (its address, rotated: one to one), read with no audit event
_MADE_MOST = 4096  # what checked calls returned, held as the module's until the test ends (it had been the last 64)
_PLACES = 256  # differences listed per comparison of a call's effects; a full list is never excused as self-disagreed


class _Quiet:
    """Made, the warnings shown and the log records emitted go nowhere until :meth:`end`: the ``warnings`` module's
    ``_showwarnmsg`` (what every shown warning goes through, after the filters: an "error" filter still raises) is a
    no-op, and ``logging`` is disabled at every level (its loggers' caches cleared both ways, as ``logging.disable``
    does). Only modules already loaded are touched."""

    def __init__(self):
        self._warnings = _namespace(_sys_modules.get("warnings"))
        self._shown = dict.get(self._warnings, "_showwarnmsg", _ABSENT) if self._warnings is not None else _ABSENT
        if self._shown is not _ABSENT:
            self._warnings["_showwarnmsg"] = _ignore_warning
        logging = _sys_modules.get("logging")
        self._manager = getattr(getattr(logging, "root", None), "manager", None) if logging is not None else None
        self._disabled = None
        if self._manager is not None and _type(self._manager.disable) is int:
            self._disabled = self._manager.disable
            self._manager.disable = 50  # logging.CRITICAL
            self._manager._clear_cache()

    def end(self) -> None:
        if self._shown is not _ABSENT:
            self._warnings["_showwarnmsg"] = self._shown
        if self._disabled is not None:
            self._manager.disable = self._disabled
            self._manager._clear_cache()


def _ignore_warning(message) -> None:
    return None


class _Shadow:
    """Every call the tests' code makes to changed code is made again by the task's pristine code (red-team rounds
    12-15's state family: an edited ``__init__`` that stores ``self.value = 0``, a ``cached_property`` edited to
    return ``(self.unit,)``, a no-op ``add`` — an unchanged comparison then reads what the edit built, and the oracle
    at the assert has nothing to swap).

    A repair task's right code is its pristine file, so a right repair's changed functions do what their pristine
    versions do on whatever the tests give them. A trace function (``sys.settrace``, installed before any project
    file loads, only when the harness sent the oracle's data) sees each call of a function of a declared file that
    the edit changed (:class:`_Oracle`'s ``changed``: qualname and first line; module- and class-level defs, not
    coroutines; a generator's resumes are checked in step with the pristine generator, :meth:`_resume`) made from
    outside changed code (calls between changed functions are inside the outer
    call, which is checked as a whole). Before the call runs, its arguments are deep-copied twice with the changed
    code swapped for pristine (an edited ``__deepcopy__`` does not make the copies); when it returns, the pristine
    function is called on the first copy with every changed function swapped too (:meth:`_Oracle.run`), and the
    outcomes are compared: the same exception class, or a return value and arguments (``self`` included) that are
    alike value by value (:func:`_differences`: numbers within 1e-9, attributes, slots and container items, classes
    and functions by qualname). Where they differ the pristine function runs again on the second copy: a place where
    the pristine code does not agree with itself (a counter, a time, an id) is no evidence; any other difference is a
    finding, and so is a call that needed changed code with no pristine version (an added ``__getattr__``), a
    pristine version that raised where the edit's returned, or parameters the pristine function cannot be given.

    No edited code runs while the pristine answer is made, so it cannot tell the check from the test. Costs and
    limits: the pristine call's side effects outside its copied arguments happen twice (a module-level counter, a
    file; the declared modules' lists, dicts and sets get their contents back); functions made at run time (lambdas,
    closures, nested defs) are checked only when a pristine def's name holds them; calls while another changed call
    is running in another thread, arguments that cannot be deep-copied, or not faithfully (a lock, a generator,
    boltons' ``OrderedMultiDict``, whose deep copy keeps one value per key: the copy is compared with the original
    before the call) or that reach more than 5,000 values (a copy per call of a large structure makes a run quadratic:
    boltons' ``BarrelList`` tests timed out), and, past 2,000 calls of a function or 5 s of checking in the main
    thread's test phases, seven calls in eight (chosen at random; past 10 s, all) are not checked; they are counted
    in :meth:`evidence`."""

    def __init__(self, oracle):
        self.oracle = oracle
        self.found: list[str] = []  # findings, each once (the run's verdict takes them only if every test passed)
        self._kinds: dict = {}  # _ohash(code) -> (code, its spec, the set of its RETURN_VALUE offsets) or (code, None)
        # id(code) -> code, for code whose file is not a declared source: the trace function's first question. None
        # of its branches acts on such a call (the recorder and the counts look at declared files only), and the
        # run's calls are mostly pytest's, the libraries' and the tests' (~2 lookups and a call per event saved).
        self._foreign: dict = {}
        self._calls: dict = {}  # _ohash(code) -> checked calls
        self._functions: dict = {}  # id(code) -> the live function (for its defaults)
        self._large: dict = {}  # _ohash(code) -> its calls in a row whose arguments were too large to copy
        self.running = 0
        self.owner = None  # the thread whose call is being checked
        self.inside: dict = {}  # thread id -> calls of changed code running there unchecked (their calls are theirs)
        self.main = _get_ident()
        self.in_test = False  # a test's setup, call or teardown is running (the limits count only those calls)
        self.collecting = False  # a test module is being collected (imported): its own calls are recorded too
        self.test_root = None  # the checkout's real path and a separator while a test runs (its frames' locals)
        # Which calls past the limits are checked: drawn from the harness's sampling key (a digest of the pristine
        # files, which the edit lacks), so the edit cannot tell, and every run of one repair draws the same (the
        # row's counts regenerate; session 51: it was os.urandom). (C: no class attribute to rebind.)
        self._rng = _random.Random(int.from_bytes(_sha256(b"beacon oracle sampling\0" + _SAMPLE_KEY[0]).digest(), "big"))
        self.spent = 0  # the work of checks counted against the limits (``_WORK``)
        self.seconds = 0.0  # and their seconds (evidence only)
        self.cpu = 0.0  # and the CPU seconds of the thread that made them (the backstop)
        self.stopped_by_clock = 0  # calls left unchecked because the backstop, not the work, said so
        self._judged_codes: set = set()  # _ohash of the changed codes a checked call of which was judged
        self._first_tries: dict = {}  # _ohash(code) -> its calls checked as first past the limits (``_counted``)
        self.kept_mode = None  # "first" or "whole": how calls that told the two pristine runs apart answered
        self.counts = {"checked": 0, "differed": 0, "self_disagreed": 0, "given_kept": 0, "uncopyable": 0,
                       "unchecked": 0, "first_past_limits": 0}
        self.installed = False
        self._steps: dict = {}  # id(frame) -> _Steps of a changed generator checked in step with a pristine one
        # weak references to the project objects that checked calls were given or returned (what the tests hold):
        # a later call may change them only as the pristine code would (round 17's R17-1, R17-8)
        self._held: list = []
        self.recorder = None  # the calls kept for the replay outside the run (_Recorder), once installed
        self.genuine = None  # _Comparisons.genuine (set by the plugin): is a caller's code a checkout file's own
        self._test_classes: dict = {}  # id(class) -> (class, whether it is a test's or a mock's): ``_stand_in``
        self._classes_clear: dict = {}  # id(class) -> (class, its members' ids) with no stand-in: ``_class_stand_in``
        self._made: dict = {}  # id -> a list, dict or set a checked call of changed code returned: ``_note_made``
        self._reach_key, self._reach = None, []  # the library modules the declared ones reach (``_library_reach``)
        self._names_read = None  # (ids of the codes, the names they read): ``_read_names``
        self._seeds = None  # (the declared modules' namespaces' sizes, their sentinels): _sentinels

    def report(self, finding: str) -> None:
        if finding not in self.found:
            self.found.append(finding)

    def install(self) -> None:
        if not self.oracle.files:
            return  # no oracle data (not a scored repair): nothing to check, and no trace function's cost
        # Installed even when the edit changed no def (red-team round 37: an edit of module-level statements only,
        # its functions made by exec, left the recorder off, so the replay outside the run had nothing to replay)
        # (with the names each declared file's pristine text binds: a recorded call's names keep those past the cut)
        bound = {real: frozenset(f"{scope}.{name}" if scope else name for scope, name, *_ in
                                 (*entry[3], *self.oracle.data.get(real, ())))
                 for real, entry in self.oracle.files.items()}
        self.recorder = _Recorder(frozenset(self.oracle.files), self.genuine, bound)
        _settrace(self.trace)
        threading.settrace(self.trace)
        self._threading = _func_globals(_class_dict(threading.Thread)["_bootstrap_inner"])  # (what threads read)
        # a collection lets go of the slotted objects only the ring holds (a test that counts live instances after
        # gc.collect(): round 19's FP19-5)
        gc.callbacks.append(self._collecting)
        self.installed = True

    def may_pause(self) -> bool:
        """Whether pytest's assertion rewriting of a module may run with this thread's trace function off (when it is
        this one's). Rewriting is pure syntax-tree work that calls a Python function per node: under the trace
        function it was ~40% of a run of boltons' ``strutils`` tests (one big test module). No code of the edit can
        run there unseen: what the rewriting calls outside pytest's own objects is checked unchanged as it starts
        (:class:`_RewriteGuard`), and pytest's result is compared with the plugin's own rewriting of the file
        (:meth:`_Comparisons.rewritten_elsewhere`) before the window ends, with nothing but the plugin's code and
        C functions after the comparison. (The rewriter's ``__init__``, which asks the config, runs before it:
        traced.)"""
        if not self.installed:
            return False
        tracer = _gettrace()
        return _type(tracer) is types.MethodType and tracer.__self__ is self and tracer.__func__ is _Shadow.trace

    def _collecting(self, phase, info) -> None:
        if phase == "start" and self._held:
            # (a new list, bound at once: a collection can start inside a loop over the old one; the references to
            # a strongly held object counted here: the _Strong's and the count's argument)
            self._held = [ref for ref in self._held if _type(ref) is not _Strong or _getrefcount(ref.value) > 2]

    def intact(self) -> list[str]:
        """A finding when this thread's trace function, or the one threading gives each new thread, is no longer this
        one (the code under test replaced or removed it). By identity: red-team round 40's replacement answered
        ``!=`` with False."""
        if not self.installed:
            return []
        found = []
        tracer = _gettrace()
        if not (_type(tracer) is types.MethodType and tracer.__self__ is self and tracer.__func__ is _Shadow.trace):
            found.append("oracle: the trace function that checks changed code's calls was replaced or removed")
        hook = dict.get(self._threading, "_trace_hook")
        if not (_type(hook) is types.MethodType and hook.__self__ is self and hook.__func__ is _Shadow.trace):
            found.append("oracle: threading's trace hook, which gives each new thread the trace function that checks "
                         "changed code's calls, was replaced or removed")
        return found

    def evidence(self) -> dict:
        return dict(self.counts, files_put_back=self.oracle.files_put_back, files_refused=self.oracle.files_refused,
                    seconds=round(self.seconds, 3), work=self.spent, stopped_by_clock=self.stopped_by_clock)

    def _spent(self, start: tuple) -> None:
        """Count the work (and the seconds, and the CPU seconds) since ``start`` (:func:`_now`) against the limits."""
        self.spent += _WORK[0] - start[0]
        self.seconds += _clock() - start[1]
        self.cpu += _cpu() - start[2]

    def _past(self) -> bool:
        """Past the limits where no call is checked any more: twice the work, or the CPU-time backstop."""
        return self.spent >= 2 * _SHADOW_WORK or self.cpu >= _SHADOW_CPU_SECONDS

    def trace(self, frame, event, arg):
        if self._steps and _id(frame) in self._steps and (self.running or self.oracle.active or _PROBING[0] or (
                self.inside and self.inside.get(_get_ident()))):
            self._lose(frame)  # a checked generator resumed by changed code: the pristine one would fall out of step
        code = frame.f_code
        if self._foreign.get(_ohash(code)) is code:  # (object.__hash__: the id's bits, with no audit event)
            return None  # code of a file that is not declared: nothing below looks at it (most calls, every time)
        if _PROBING[0]:
            return None  # the probe's question (``_ask``), not the tests'
        if self.inside and self.inside.get(_get_ident()):
            return None  # inside a call of changed code that was not checked: its calls are part of it
        if self.running:
            if _get_ident() != self.owner and self._classify_cached(frame.f_code)[1] is not None:
                self.counts["unchecked"] += 1  # another thread's call while one is being checked
            return None
        if self.oracle.active:
            return None
        if self.recorder is not None and (self.in_test or self.collecting) and self.test_root is not None \
                and (_realpath_cached(code.co_filename) in self.recorder.files or _generated_init(code)):
            try:
                spaces = self.oracle._find_spaces()
                if _realpath_cached(code.co_filename) not in spaces:
                    self.oracle._modules_seen = -1  # (a declared module not found yet: look again, R27-4)
                    spaces = self.oracle._find_spaces()
                catch = self.recorder.note(frame, spaces, self.test_root, code)
            except Exception:  # noqa: BLE001 (the recorder's own failure: never the test's)
                self.recorder.counts["failed"] += 1
                catch = None
            if catch is not None:  # (a followed generator's resume: the recorder takes the exception a
                # ``throw()``/``close()`` brought in and what it yields, from the frame's events)
                inner = self._judged(frame, code)
                if inner is None:
                    frame.f_trace_lines = False
                return _watching(catch, inner)
        return self._judged(frame, code)

    def _judged(self, frame, code):
        """The rest of :meth:`trace` for a call of a declared file's code: its check against the pristine code."""
        known = self._kinds.get(_ohash(code))
        if known is None or known[0] is not code:
            known = self._kinds[_ohash(code)] = (code, *self._classify(code))
        if known[1] is None:
            if _realpath_cached(code.co_filename) not in self.oracle.files and not _generated_init(code):
                self._foreign[_ohash(code)] = code  # (held: its id is never reused)
            return None
        if code.co_flags & _CO_GENERATOR:
            try:
                return self._resume(frame, code, known[1], known[2])
            except Exception as exc:  # noqa: BLE001 (the check's own failure: never the test's)
                self._lose(frame)
                self.report(f"oracle: the check of a resume of {code.co_qualname} raised {_class_name(_type(exc))}")
                return self._unchecked(frame)
        nested = self._nested(code) if known[1] is _NESTED else None
        if nested is _ABSENT:
            if self._from_module_body(frame):
                self.counts["unchecked"] += 1
                return self._unchecked(frame)
            self.report(f"oracle: {code.co_qualname} was called from code the edit did not change; the pristine code "
                        f"of the factory that made it has no counterpart it can be asked of")
            return None
        if nested is not None:
            # a closure or nested def called later by unchanged code (a factory's product, a decorator's wrapper;
            # round 17's R17-9 and FP17-8): asked of the pristine code nested in its factory's, when the factory's
            # pristine code was sent
            known = self._kinds[_ohash(code)] = (code, nested, known[2])
        elif known[1] is _ABSENT or known[1] is _NESTED:
            # no pristine version of its own: one by a pristine def's name that holds it now (``_close = _near``;
            # ``Reading.__init__ = _make()``, a closure or lambda, round 16), else a finding (a nested function
            # called later, a factory's product or a decorator's wrapper: not checked)
            alias, lasting = self._alias(code, frame)
            if alias is not None and alias[0] is _DISPLACED:
                self.report(f"oracle: {code.co_qualname} was called from code the edit did not change; it holds the "
                            f"place of the pristine {alias[1]}, whose pristine code the harness did not send")
                return None
            if alias is not None:
                if lasting:
                    known = self._kinds[_ohash(code)] = (code, alias, known[2])
                else:  # (this call's name only: the next call of the code may be another's)
                    known = (code, alias, known[2])
            elif known[1] is _NESTED:
                return None
        try:
            checked = self._enter(frame, code, known[1], known[2])
        except Exception as exc:  # noqa: BLE001 (the check's own failure: never the test's)
            self.report(f"oracle: the check of a call of {code.co_qualname} raised {_class_name(_type(exc))}")
            checked = None
        # (past the limits too, what an unchecked call makes is inside it: the first call of a changed def is checked
        # past them, but never one inside another changed call, where an honest repair may have moved the work)
        return checked if checked is not None else self._unchecked(frame)

    def _unchecked(self, frame):
        """A local trace for a call of changed code that is not checked: calls it makes are inside it, as in a checked
        call (round 16's thread pool: an honest extracted helper is not "called from unchanged code")."""
        ident = _get_ident()
        self.inside[ident] = self.inside.get(ident, 0) + 1
        frame.f_trace_lines = False
        inside, armed = self.inside, [True]

        def local_trace(frame, event, arg):
            # (once: a generator's frame keeps this function at its later resumes when the trace function returns
            # None for them, which were not counted; honest hunt 13's ``throw()`` handled inside a ``yield from``
            # made the count go below zero, the trace function raise, and CPython turn tracing off)
            if event == "return" and armed[0]:
                armed[0] = False
                left = inside.get(ident, 0) - 1
                if left > 0:
                    inside[ident] = left
                else:
                    inside.pop(ident, None)
            return local_trace

        return local_trace

    def _others_busy(self) -> bool:
        """Whether another thread is running code outside the interpreter's installation, or a declared file's: the
        swap is process-wide, so it could run pristine code or a raiser (round 16's thread pool). A thread parked
        in the standard library or an installed package (an idle pool worker the edit started at import, so that
        no call would be checked: red-team round 17's R17-6) is not, nor is one started as the modules loaded
        (:meth:`_origin`). A busy thread that the edited code started is a finding: it would keep every later call
        from being checked (red-team rounds 18 and 19: R18-6, R19-1)."""
        if _active_count() <= 1:
            return False
        me = _get_ident()
        for ident, frame in _current_frames().items():
            if ident == me:
                continue
            origin = self._origin(ident)
            if origin == "import":
                continue
            while frame is not None:
                name = frame.f_code.co_filename
                # (remembered real paths: a stat here lets go of the interpreter lock at every checked call, and a
                # thread that spins in Python then holds it for a switch interval each time: a test of a thread pool
                # beside a busy thread ran 7x slower under the oracle)
                real = _realpath_cached(name)
                if type(name) is not str or (name[:1] != "<" and (not real.startswith(_INSTALLED)
                                                                  or real in self.oracle.files)):
                    if origin == "edit":
                        self.report("oracle: a thread that code the edit changed or added started was running the "
                                    "project's code when a call was to be checked; no call can be checked beside it "
                                    "(the swap to pristine code is process-wide), so it would keep every later call "
                                    "unchecked")
                    return True
                frame = frame.f_back
        return False

    def _origin(self, ident, depth: int = 0) -> str | None:
        """``"import"`` for a thread alive once the tests were collected (or started by one), ``"edit"`` for one
        started while code the edit changed or added was on the starter's stack (or started by one: a thread handed
        on through an executor), None for any other (a test's, the pristine code's)."""
        if ident in self.oracle.early_threads:
            return "import"
        record = self.oracle.thread_starts.get(ident)
        if record is None or depth > 16:
            return None
        if _any(self._classify_cached(code)[1] is not None for code in record[1]):
            return "edit"
        return self._origin(record[0], depth + 1)

    def _from_module_body(self, frame) -> bool:
        """Whether a declared file's module or class body made the call (no ``CO_OPTIMIZED``: not a function), also
        through a comprehension it runs (3.11 runs one as a function of its own: helper 137's honest table built at
        import by ``{name: _per_box(name) for name in …}``)."""
        caller = frame.f_back
        while caller is not None and caller.f_code.co_name in _COMPREHENSIONS \
                and os.path.realpath(caller.f_code.co_filename) in self.oracle.files:
            caller = caller.f_back
        return (caller is not None and not caller.f_code.co_flags & 0x1
                and os.path.realpath(caller.f_code.co_filename) in self.oracle.files)

    def _from_changed_lazy(self, frame) -> bool:
        """Whether the caller (past comprehensions) is a coroutine, an async generator's or an ``async with``'s
        frame of a declared file's code that the edit changed or added (:meth:`_classify`'s test without its
        exclusion of such code)."""
        caller = frame.f_back
        while caller is not None and caller.f_code.co_name in _COMPREHENSIONS:
            caller = caller.f_back
        code = caller.f_code if caller is not None else None
        if code is None or not code.co_flags & _LAZY_FLAGS or _type(code.co_filename) is not str:
            return False
        entry = self.oracle.files.get(_realpath_cached(code.co_filename))
        return entry is not None and code.co_firstlineno in entry[1][0] and code.co_qualname not in entry[1][1]

    def _classify_cached(self, code) -> tuple:
        known = self._kinds.get(_ohash(code))
        if known is None or known[0] is not code:
            known = self._kinds[_ohash(code)] = (code, *self._classify(code))
        return known

    def _classify(self, code) -> tuple:
        filename = code.co_filename
        if type(filename) is not str or filename[:1] == "<" or code.co_flags & _LAZY_FLAGS:
            return None, None
        entry = self.oracle.files.get(_realpath_cached(filename))
        qualname = code.co_qualname
        if entry is None or code.co_firstlineno not in entry[1][0] or qualname in entry[1][1] \
                or code.co_name == "__del__":
            return None, None
        returns = frozenset(offset for offset, op in enumerate(code.co_code) if op == _RETURN_VALUE and offset % 2 == 0)
        # A lambda a class holds (``__new__ = lambda cls: …``, round 17's R17-3) is code with no pristine version,
        # asked by a pristine def's name when one holds it; one elsewhere (a default, ``key=lambda x: …``: boltons'
        # iterutils rewritten by ``ast.unparse``), functions made inside functions, and comprehensions are not.
        nested = "<locals>" in qualname or ("<" in qualname and "<lambda>" not in qualname) or (
            "<lambda>" in qualname and not self._held_by_class(code, entry))
        return (_NESTED if nested else entry[0].get(qualname, _ABSENT)), returns

    def _held_by_class(self, code, entry) -> bool:
        """Whether a class of the declared module holds a function of ``code`` in its own ``__dict__``."""
        space = self.oracle._find_spaces().get(os.path.realpath(code.co_filename))
        if space is None:
            return True  # (not found: judged as held, no pristine version)
        for value in list(dict.values(space))[:2000]:
            if _class_flags(_type(value)) & _TYPE_SUBCLASS and _any(
                    type(f) is types.FunctionType and _func_code(f) is code
                    for f in map(_unwrapped, _proxy_values(_class_dict(value)))):
                return True
        return False

    def _enter(self, frame, code, spec, returns):
        qualname = code.co_qualname
        if spec is _ABSENT and self._from_module_body(frame):
            # a helper the edit added, called as its module loads (``_EMPTY = _message(…)``, a decorator; round 17's
            # FP17-3): what the module's statements do is the screen's and the rebound names' business
            self.counts["unchecked"] += 1
            return None
        if spec is _ABSENT and qualname in self.oracle.unmodeled:
            self.counts["unchecked"] += 1  # (a pristine counterpart the oracle cannot swap in: oracle_defs)
            return None
        if spec is _ABSENT and self._from_changed_lazy(frame):
            # (a helper the edit added, called by a coroutine or an async generator the edit changed: the oracle
            # checks no coroutine, so its calls are inside unchecked changed code, as a sync one's are; honest hunt
            # 15's ``_size`` summed inside an ``async def``)
            self.counts["unchecked"] += 1
            return None
        if spec is _ABSENT:
            self.report(f"oracle: {qualname} was called from code the edit did not change; it is code the edit "
                        f"changed or added with no pristine version")
            return None
        if spec is not _NESTED and _reads_frames(spec[0]):
            # The pristine code reads its callers' frames (``sys._getframe(1)``, ``inspect.stack()``): made again by
            # the check, it would read the check's own frames (session 37's FP40-3: an honest ``who()`` read
            # tampered). Not checked, counted. (The pristine file is the task's: the edit cannot make a def so.)
            self.counts["unchecked"] += 1
            return None
        counted = self._counted(code)
        if counted is None:
            return None
        large = self._large.get(_ohash(code), 0)
        if large >= 16 and self._rng.random() >= 1 / 16:
            self.counts["uncopyable"] += 1
            return None
        if self._others_busy():  # the swap is process-wide: another thread would run pristine code or a raiser
            self.counts["unchecked"] += 1  # (round 16's FP16-6, a ThreadPoolExecutor test)
            return None
        start = _now()
        asked = self._asked(frame, code, spec, "called from")
        if asked is None:
            return None
        values, call, mask = asked
        # A copy per call of a large structure would make the run quadratic (boltons' BarrelList tests timed out):
        # not checked, counted. After 16 large calls in a row of one function, one call in 16 is weighed. (Weighed
        # first: the walks below are as long as the arguments, and a large call is not checked anyway.)
        if not _small(values, _COPY_NODES):
            if counted:  # (calls at import cannot fill it: red-team round 17's R17-7)
                self._large[_ohash(code)] = large + 1
            self.counts["uncopyable"] += 1
            if counted:
                self._spent(start)  # the walk that found it large counts against the time limit
            return None
        # (the pristine call would call the test's own stand-ins again: unchecked; ``_doubled`` in two parts, the
        # scan of the modules after the copies, which most calls that are not checked fail: boltons' IndexedSet)
        reached = _mutables(values, self.oracle.files)  # (read once for the stand-ins and the held objects)
        if self._reaches_stand_in(reached):
            self.counts["unchecked"] += 1
            if counted:
                self._spent(start)
            return None
        self._large[_ohash(code)] = 0
        tracked = self._tracked(values, frame, reached)  # held objects outside the arguments, as they are before it
        # (a class among the arguments, the test's own, which a pristine decorator or registry sets attributes on:
        # its names put back, never compared; honest hunt 21's ``Item.instances`` counted twice)
        classes = [v for v in values[:16] if _class_flags(_type(v)) & _TYPE_SUBCLASS and _class_flags(v) & _HEAPTYPE]
        saved = self._containers() + tracked + [(v, _ClassNames, _ClassNames.copy(v)) for v in classes] + [
            state for v in classes for state in _class_containers(v)]  # (and its lists, dicts and sets: hunt 22)
        # (and the library classes of the arguments: a class attribute a pristine call set on ``type(argument)``,
        # ``JSONEncoder.item_separator``; red-team round 65's ``arg_class_attr``)
        kinds = {_id(k): k for k in map(_type, values[:16])
                 if _class_flags(k) & _HEAPTYPE and not _class_flags(k) & _TYPE_SUBCLASS and not self._project_class(k)}
        saved += [(k, _ClassNames, _ClassNames.copy(k)) for k in kinds.values()]
        # (and the test's own classes of the arguments, with their lists, dicts and sets: a roster reached as
        # ``type(item)``, red-team round 67's ``argument_class_container``; not a declared module's class, whose
        # class-level data is compared)
        if self.test_root is not None:
            # (and their test-made bases: round 68's ``test_base_class_container``)
            tests = {_id(k): k for k in [b for v in values[:16] for b in _class_mro(_type(v))[:8]]
                     if _id(k) not in kinds and self._test_class(k)}
            saved += [(k, _ClassNames, _ClassNames.copy(k)) for k in tests.values()]
            kinds.update(tests)
        saved += [state for k in kinds.values() for state in _class_containers(k)]
        copies = self._copies(values, saved, f"a call of {qualname}")
        doubled = copies is not None and self._holds_stand_in(frame)
        if counted:
            self._spent(start)
        if copies is None:
            return None
        if doubled:
            self.counts["unchecked"] += 1
            return None
        # the pristine data (and shared sentinels' attributes, held objects) before the call: the pristine call
        # starts from them too
        before = saved + copies[2]
        # The pristine call is made FIRST, before the real call's body runs, and the saved state is put back for the
        # real call: what the pristine call writes where nothing saves it (a file, a logger's level, another
        # module's rows, an object past the saved depth) is then written over by the real call, as the tests would
        # see it without the check. Made after the real call (until session 45), it wrote the right answer over the
        # kept bug's wrong one where the test read it: red-team round 60's eighteen forged passes were the mutant
        # with a new docstring (any edit of the def turned the check on, and the check repaired the state).
        begun = _now()
        _file_guard().last = ()  # (not an earlier check's: a run that never began leaves it empty)
        first = self._run(call, copies[0], before, before)
        # (the files as the first pristine run found them, given back to a second one: _Files.begin)
        files_before = _file_guard().last
        if counted:
            self._spent(begun)
        if first is _UNMODELED:
            self.counts["unchecked"] += 1
            return None
        if type(first) is str:
            self.report(f"oracle: {qualname} was called from code the edit did not change; {first}")
            return None
        # The whole pristine file's run, where the edit kept a def of the given file that the pristine file has
        # otherwise (the given file's bug; its pristine version swapped in too): made before the real call, as the
        # first; asked only if the real call differs from the first (``_judge``)
        whole = None
        if copies[4] is not None:
            begun = _now()
            whole = self._run(call, copies[4], before, before, kept=True)
            if counted:
                self._spent(begun)
        frame.f_trace_lines = False
        self.running += 1
        self.owner = _get_ident()
        raised = [None]

        # emptied at the return: nothing of the call kept alive
        held = [values, copies, call, mask, before, tracked, first, files_before, whole]

        def local_trace(frame, event, arg):
            if event == "exception":
                raised[0] = arg[0]
            elif event == "return" and held:
                self.running -= 1
                outcome = ("return", arg) if frame.f_lasti in returns else ("raise", raised[0] or BaseException)
                begun = _now()
                try:
                    # The call's own locals are let go of first, so what their ends do (a generator's ``finally``,
                    # a ``weakref.finalize``) happens before the judgment (round 16's R16-6).
                    _release_locals(frame, arg)
                    self._judge(code, *held, outcome)
                except Exception as exc:  # noqa: BLE001
                    self.report(f"oracle: the check of a call of {qualname} raised {_class_name(_type(exc))}")
                held.clear()
                if counted:
                    self._spent(begun)
            return local_trace

        del values, copies, call, before, saved, tracked, first, whole

        return local_trace

    def _pair(self, outcome, first, values, copies, call, mask) -> None:
        """A checked call that returned a generator not yet started, as the pristine call did: the two are paired, so
        the returned generator's resumes are checked in step with the pristine one (round 18's R18-8: a function
        returning a nested or added generator; generator objects are alike by class alone)."""
        made = outcome[1] if outcome[0] == "return" else None
        theirs = _type(first[1])
        if _type(made) is not types.GeneratorType or first[0] != "return" or not (
                theirs is types.GeneratorType or (not _class_flags(theirs) & _HEAPTYPE
                                                  and _getattr(theirs, "__next__", None) is not None)):
            return  # (the pristine one may be a built-in iterator, ``zip(*tees)``: advanced by ``next`` alike)
        frame = made.gi_frame
        if frame is None or frame.f_lasti >= _first_resume(frame.f_code) or _id(frame) in self._steps:
            return
        steps = _Steps(frame, values, copies, call, mask, self.in_test and _get_ident() == self.main)
        steps.generator = first[1]
        self._steps[_id(frame)] = steps

    def _doubled(self, values, frame, reached=_ABSENT) -> bool:
        """Whether the pristine call could reach a test's own stand-in, which it would call a second time (honest
        hunt 17's family A, 16 honest repairs whose own tests failed: a spy ``monkeypatch.setattr`` put on a module
        function counted two uploads, ``mock.patch.object``'s ``assert_called_once_with`` saw two calls, a patched
        ``input`` or clock gave the next answer to the pristine call, a registry of test callbacks ran them twice): a
        function of the test's files (genuine: compiled from them, not only named so) or an instance of a class with
        one, or a ``unittest.mock`` object, that the arguments reach, that the declared modules hold (at module or
        class level, in a list, dict or set there, or in a module-level object's attributes), that a module they
        hold or the builtins hold under a name their code reads, or an in-memory ``sys.stdin``. The replay outside
        the run, where no stand-in is, still makes the call again. ``reached``: ``_mutables`` of ``values`` when the
        caller has read it."""
        if reached is _ABSENT:
            reached = _mutables(values, self.oracle.files)
        return self._reaches_stand_in(reached) or self._holds_stand_in(frame)

    def _reaches_stand_in(self, reached) -> bool:
        """The arguments' part of :meth:`_doubled` (``reached``: their ``_mutables``), asked before they are copied:
        a copy of a ``Mock`` would be a call the test counts."""
        # (None: a test's callback among the arguments, not copied either)
        return reached is None or _any(self._stand_in(v) for v in list(reached.values())[:_COPY_NODES])

    def _holds_stand_in(self, frame) -> bool:
        """The rest of :meth:`_doubled`: an in-memory ``sys.stdin``, or a stand-in the declared modules, the modules
        they hold or the builtins hold."""
        stdin = dict.get(_namespace(sys), "stdin")
        if _type(stdin) is io.StringIO or _type(stdin) is io.BytesIO or self._stand_in(stdin):
            return True
        spaces = list(self.oracle._find_spaces().values())
        names = self._read_names(spaces)
        # (a C method is a stand-in only when its list, dict or set is a running test's local: ``got.append``; one
        # the edit binds, ``_UNIT = {...}.get``, is the module's own, red-team round 59)
        # (what the declared modules hold at module or class level is theirs, even where the test holds it too:
        # red-team round 60 bound ``_push = _PENDING.append`` and had the test keep ``stock.pending()``, the list)
        held = self._test_held(frame) - self._module_held(spaces, self.test_root)
        built = _namespace(builtins)
        for real, space in self.oracle._find_spaces().items():
            entries = list(dict.items(space))[:2000]
            bound = self.oracle.names.get(real)
            for name, value in entries:
                if value is built:
                    continue  # (a module's ``__builtins__``: the builtins are read by the names below)
                if bound is not None and name not in bound and not (_type(name) is str and name in built) \
                        and dict.get(_PATCHED_VALUES, (_id(space), name), _ABSENT) is not value:
                    # (a name only the edit binds: no pristine code reads it, so no stand-in it holds is called
                    # twice; red-team round 62 kept the test's ``rows.append`` in an added global, and every check
                    # was off. A builtin's name the test patched onto the module, ``print``, is read by the pristine
                    # code as a global: the review of session 46)
                    continue
                if self._stand_in(value, held):
                    return True
                if _type(name) is str and dict.get(_PATCHED_VALUES, (_id(space), name), _ABSENT) is value \
                        and callable(value):
                    # (what the test's own monkeypatch put there: a clock as ``iter([3, 2]).__next__`` or
                    # ``[3, 2, 1].pop``, which the pristine call, made first, advanced; red-team round 61's controls)
                    return True
                if _class_flags(_type(value)) & _TYPE_SUBCLASS:  # (a class's members: a test's function set on it)
                    if self._class_stand_in(value, held):
                        return True
                    continue
                if _type(value) is types.ModuleType:
                    # (its own name: ``held``, the test's ids, is read for the values after it; a module once
                    # rebound it, so a test's ``got.append`` after a module in the namespace went unseen)
                    inner = _namespace(value)
                    if inner is None:
                        continue
                    where = dict.get(inner, "__file__")
                    if _type(where) is str and self.test_root is not None \
                            and _realpath_cached(where).startswith(self.test_root):
                        # (a module of the project's: every value, the test may have patched any function the
                        # pristine code reaches through it; honest hunt 18's fake ``store.fetch``)
                        if _any(self._stand_in(v, held) for v in list(dict.values(inner))[:2000]):
                            return True
                    elif _any(self._stand_in(dict.get(inner, n)) for n in names if n in inner):
                        return True
                    continue
                for part in self._parts(value):
                    if self._stand_in(part, held):
                        return True
        return _any(self._stand_in(dict.get(built, n)) for n in names if n in built)

    def _module_held(self, spaces, root) -> set:
        """The ids of the values the declared modules hold at module level, their classes at class level, and two
        levels into them (``_STATE["pending"]``), the values of the project's modules they hold (``db.PENDING``: red-team
        round 61), and what calls of changed code returned (``_made``: a dict a changed def returned, whose ``setdefault``
        an added global kept)."""
        out = set(self._made)
        for space in spaces:
            entries = list(dict.values(space))[:2000]
            out.update(_map(_id, entries))
            for value in entries:
                if _class_flags(_type(value)) & _TYPE_SUBCLASS:
                    out.update(_map(_id, list(_class_dict(value).values())[:2000]))
                elif _type(value) is types.ModuleType:
                    inner = _namespace(value)
                    where = dict.get(inner, "__file__") if _type(inner) is dict else None
                    if _type(where) is str and root is not None and _realpath_cached(where).startswith(root):
                        out.update(_map(_id, list(dict.values(inner))[:2000]))
                else:
                    out.update(_map(_id, self._parts(value)))
        return out

    def _note_made(self, value) -> None:
        """Keep a list, dict or set a call of changed code returned (held until the test ends): its C methods are
        the module's, not the test's, wherever the test keeps it (red-team round 62 pushed a kept ``setdefault``'s
        dict out of the last 64 with 70 more calls, and every later check was off)."""
        base = _container_base(_type(value))
        if base is list or base is dict or base is set:
            self._made[_id(value)] = value
            if _len(self._made) > _MADE_MOST:  # (what the test frees is freed: a test may count on it; review's B6)
                del self._made[next(iter(self._made))]

    def _class_stand_in(self, cls, held) -> bool:
        """Whether a declared module's class holds a stand-in among its members or two levels into them (a test's
        function set on it, a class-level registry of callbacks). A class none of whose members holds one is known
        by the ids of its members while each is a function, a descriptor, a class or a scalar (their verdict is
        which object they are): checked on every call of changed code, the walk of every method of every class
        was most of the oracle's time on boltons' setutils. A class-level list, dict or object is read again each
        time: what it holds changes under the same id. (A ``__code__`` rebound to a test's under an unchanged
        member is then missed: the call is checked, the strict side.)"""
        members = list(_class_dict(cls).values())[:2000]
        key = tuple(_map(_id, members))
        known = self._classes_clear.get(_id(cls))
        if known is not None and known[0] is cls and known[1] == key:
            return False
        if _any(self._stand_in(m, held) for m in members) or _any(
                self._stand_in(part, held) for m in members for part in self._parts(m)):
            return True
        if _all(_map(_fixed_member, members)):
            self._classes_clear[_id(cls)] = (cls, key)
        return False

    @staticmethod
    def _parts(value, depth: int = 2) -> list:
        """What a module-level list, dict, set or object holds, two levels down (a dict of lists of callbacks: hunt
        17's registry; at most 256 a level; a weak registry's items, keys and values: honest hunt 19's observers in a
        ``WeakSet``)."""
        base = _container_base(_type(value))
        library = _state_class(_type(value))
        if library is not None and _id(library[0]) in _WEAK_KINDS:
            items = library[1](value)[1][:256]
            found = [part for item in items for part in (item if _type(item) is tuple else (item,))]
        elif base is list or base is set or base is tuple or base is frozenset:
            found = list(base.__iter__(value))[:256]
        elif base is dict:
            found = list(dict.values(value))[:256]
        elif base is None and _class_flags(_type(value)) & _HEAPTYPE \
                and not _class_flags(_type(value)) & _TYPE_SUBCLASS:
            own = _attrs_dict(value)
            found = list(dict.values(own))[:256] if _type(own) is dict else []
        else:
            return []
        return found + [inner for item in found for inner in _Shadow._parts(item, depth - 1)] if depth > 1 else found

    def _stand_in(self, value, held=frozenset()) -> bool:
        """Whether ``value`` is a function of the test's own files (a bound method of one, or of a test's object), an
        instance of a class with such a method, a ``unittest.mock`` object, or a C method of a list, dict or set no
        declared module holds (``held``: ids of what they hold; hunt 17's ``subscribe("a", got.append)``)."""
        kind = _type(value)
        if kind is types.MethodType:
            return self._stand_in(value.__func__) or self._stand_in(value.__self__)
        if _any(_map(_is, _class_mro(kind), _repeat(weakref.ref))):
            # (a weak reference: what it refers to, read through C's own call; a ``WeakMethod``'s is the receiver:
            # honest hunt 19's signal receivers, a test object's bound methods kept as ``WeakMethod``s)
            target = weakref.ref.__call__(value)
            return target is not None and self._stand_in(target, held)
        if kind is types.BuiltinMethodType:
            owner = value.__self__
            base = _container_base(_type(owner))
            if (base is not list and base is not dict and base is not set) or _id(owner) not in held:
                return False
            # (a method that only reads a list, dict or set does the same called twice: red-team round 60 kept
            # ``out.get`` of a dict the edit's def returned, which the test held, and every check was off; a
            # subclass's C method is the base's own, but its ``__getitem__`` may ask a ``__missing__``, round 61's
            # ``Counter.get``)
            name = value.__name__
            return not (name in _READ_ONLY_METHODS[base] and (_type(owner) is base or name != "__getitem__"))
        if kind is types.FunctionType:
            return self._test_code(_func_code(value))
        if not _class_flags(kind) & _HEAPTYPE or _class_flags(kind) & _TYPE_SUBCLASS:
            return False
        known = self._test_classes.get(_id(kind))
        if known is not None and known[0] is kind:
            return known[1]
        found = False
        for cls in _class_mro(kind)[:-1]:
            if _class_module(cls) == "unittest.mock" and _mock_class(cls):
                found = True
                break
            # (not its ``__init__``: a copy of the instance is made without it, and the pristine call runs nothing
            # of the test's by holding it; red-team round 65's ``standin_test_class_arg``, a test's record class
            # with an ``__init__`` alone, turned every check of a call given one off)
            members = [m for k, m in list(_class_dict(cls).items())[:500] if k != "__init__"]
            if _any(type(m) is types.FunctionType and self._test_code(_func_code(m)) for m in members):
                found = True
                break
        self._test_classes[_id(kind)] = (kind, found)
        return found

    def _test_held(self, frame) -> set:
        """The ids of what the running test's own frames hold in their locals, and one level into a list, tuple or
        dict there (read as ``_test_locals`` reads them, the locals dict emptied after)."""
        out: set = set()
        for held in self._test_frames(frame):
            for value in list(dict.values(held))[:_LOCALS_ITEMS]:
                out.add(_id(value))
                kind = _type(value)
                if kind is list or kind is tuple:
                    out.update(map(_id, value[:64]))
                elif kind is dict:
                    out.update(map(_id, _islice(dict.values(value), 64)))
        return out

    def _test_frames(self, frame):
        """The locals dicts of the running test's own frames below ``frame`` (function frames of the checkout's files
        that are no declared source and no trace function follows), each emptied once its reader is done with it
        (round 19's FP19-4: it would keep what the test dropped alive; a trace event refills it from the frame)."""
        root = self.test_root
        if root is None:
            return
        depth, frame = 0, frame.f_back
        while frame is not None and depth < 64:
            code = frame.f_code
            real = _realpath_cached(code.co_filename)
            if code.co_flags & 0x1 and real is not None and real.startswith(root) and real not in self.oracle.files \
                    and frame.f_trace is None:
                held = frame.f_locals
                yield held
                dict.clear(held)
            frame, depth = frame.f_back, depth + 1

    def _test_code(self, code) -> bool:
        """Whether ``code`` is genuinely a test file's (compiled from a file of the checkout that is no declared
        source, and a test's by pytest's naming: ``test_*.py``, ``*_test.py``, ``conftest.py``, or a file under a
        ``test``/``tests``/``testing`` folder); a project module's helper the pristine code calls is none."""
        if self.genuine is None or not self.genuine(code):
            return False
        filename = code.co_filename
        parts = _realpath_cached(filename).split(os.sep)
        name = parts[-1]
        return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or _any(
            part in ("test", "tests", "testing") for part in parts[:-1])

    def _read_names(self, spaces) -> frozenset:
        """The global and attribute names the declared modules' functions read (cached by the functions' codes)."""
        codes = tuple(_func_code(v) for space in spaces for v in list(dict.values(space))[:2000]
                      if type(v) is types.FunctionType)
        key = tuple(map(_id, codes))
        if self._names_read is not None and self._names_read[0] == key:
            return self._names_read[1]
        names, stack = set(), list(codes)
        for space in spaces:
            for value in list(dict.values(space))[:2000]:
                if _class_flags(_type(value)) & _TYPE_SUBCLASS:
                    stack += [_func_code(m) for m in list(_class_dict(value).values())[:500]
                              if type(m) is types.FunctionType]
        while stack:
            code = stack.pop()
            names.update(n for n in code.co_names if _type(n) is str)
            stack += [c for c in code.co_consts if _type(c) is types.CodeType]
        self._names_read = (key, frozenset(names))
        return self._names_read[1]

    def _tracked(self, values, frame, reached=_ABSENT) -> list:
        """``(__dict__ or slots, _Held, their contents)`` of each object held from earlier checked calls
        (:meth:`_hold`) or by the running test's own locals (:meth:`_test_locals`) that ``values`` (a call's
        arguments) do not reach: the call's effect on them is compared with the pristine call's, as the declared
        modules' data are."""
        mine = self._test_locals(frame)
        if not self._held and not mine:
            return []
        reached = _mutables(values, self.oracle.files)
        if reached is None:
            return []  # (such arguments are not copied: no check)
        items, alive = [], []
        for ref in self._held:
            item = ref()
            # (a slotted object held strongly that nothing else holds any more is let go: round 19's FP19-5; its
            # references here: the ring's, ``item``'s and the count's argument)
            if item is not None and (_type(ref) is not _Strong or _getrefcount(item) > 3):
                alive.append(ref)
                items.append(item)
        self._held = alive
        out, seen = [], set(reached)
        for item in items + mine:
            if _id(item) in seen:
                continue
            seen.add(_id(item))
            kind = _type(item)
            getter = _instance_dict_getter(kind)
            own = getter(item, kind) if getter is not None else None
            view = _HeldView(item, own if _type(own) is dict else None, _slot_members(kind), reached)
            if view.own is not None or view.members:
                out.append((view, _Held, _Held.copy(view)))
        return out

    def _test_locals(self, frame) -> list:
        """The declared modules' instances that the running test's own frames hold in their locals: what its asserts
        will read, however many objects later calls gave or returned (round 18's R18-9 pushed one out of the last
        _HELD). Its frames are the function frames on the stack from files of the checkout that are not declared
        sources (the test, its helpers, a conftest's fixture in setup or teardown); an instance counts when a local
        holds it, or a list, tuple or dict there does, or another object there does (a unittest ``self.first``;
        round 19's R19-2), and so on one level further (``kept = {"edges": [reading]}``, ``self.cases["a"]``:
        round 19's R19-3), 64 items per container and _LOCALS_ITEMS per frame. Each frame's locals dict is emptied
        after the reading (round 19's FP19-4: it would keep what the test dropped alive), which is safe for a frame
        no trace function follows: a trace event refills it from the frame before anything writes it back."""
        if self.test_root is None:
            return []
        spaces = [_id(space) for space in self.oracle._find_spaces().values()]
        out = []
        for held in self._test_frames(frame):
            level, budget = list(dict.values(held)), _LOCALS_ITEMS
            for last in (False, False, True):  # the locals, what they hold, and what that holds
                deeper = []
                for value in level:
                    if self._holdable(value, spaces):
                        out.append(value)
                    elif budget > 0 and not last:
                        inner = self._inside(value, spaces)
                        budget -= len(inner)
                        deeper += inner
                level = deeper
        return out

    def _inside(self, value, spaces) -> list:
        """What a test's local that is no instance of a declared module holds, 64 items: an exact list's, tuple's
        or dict's items (a slice or an islice runs no project code), another heap object's ``__dict__`` values."""
        kind = _type(value)
        if kind is list or kind is tuple:
            return value[:64]
        if kind is dict:
            return list(_islice(dict.values(value), 64))
        if _class_flags(kind) & _HEAPTYPE and not self._holdable(value, spaces):
            getter = _instance_dict_getter(kind)
            own = getter(value, kind) if getter is not None else None
            return list(_islice(dict.values(own), 64)) if _type(own) is dict else []
        return []

    @staticmethod
    def _holdable(item, spaces) -> bool:
        """An instance of a class of a declared module (``spaces``: their namespaces' ids), not an enum member."""
        kind = _type(item)
        return bool(_class_flags(kind) & _HEAPTYPE) and not isinstance(item, _Enum) \
            and _id(_namespace(_sys_modules.get(_class_module(kind)))) in spaces

    def release(self) -> None:
        """Let go of the objects held strongly (slotted ones that take no weak reference) at a test's end: a later
        test's leak check must not find them alive (round 19's FP19-5)."""
        self._held = [ref for ref in self._held if _type(ref) is not _Strong]
        self._made.clear()

    def _hold(self, items) -> None:
        """Keep references (weak ones where the object takes them) to the instances of the declared modules' classes
        among ``items`` (a call's arguments and result, and the elements of a list or tuple among them): what the
        tests hold."""
        spaces = [_id(space) for space in self.oracle._find_spaces().values()]
        for value in items:
            for item in [value, *(value[:64] if _type(value) in (list, tuple) else ())]:
                kind = _type(item)
                if not self._holdable(item, spaces) or _any(ref() is item for ref in self._held):
                    continue
                try:
                    self._held.append(_weakref(item))
                except TypeError:
                    # No weak reference to it: an instance of a class with ``__slots__`` and no ``__weakref__``
                    # (round 18's R18-5) is held strongly, while it stays among the last _HELD; other such objects
                    # (a namedtuple's) hold nothing a call could change.
                    if not _slot_members(kind):
                        continue
                    self._held.append(_Strong(item))
                if len(self._held) > _HELD:
                    del self._held[0]

    def _judge(self, code, values, copies, call, mask, before, tracked, first, files_before, whole, outcome) -> None:
        """A checked call's return: ``outcome`` and its effects against ``first``, the pristine call's (made before
        the real call, from the same state).

        ``whole``: where the edit kept a def as the given file has it and the pristine file has it otherwise, the
        pristine call run with that def's pristine version too (before the real call, on a third copy). A real call
        that differs from ``first`` but does all that ``whole`` does is no finding (counted ``given_kept``): the
        repair fixed the given file's bug in its caller and left the buggy helper (honest hunt 22's ``kh_*``: the
        helper inlined, its input lowered first, ``calendar.isleap`` called instead), and ``first``'s pristine caller
        ran the given helper. The finding needs a difference from both: a repair that kept the bug, in the helper or
        the caller, differs from ``whole``; one that left the helper and changed nothing it answers differs from
        neither (its test's verdict, not tampering)."""
        qualname = code.co_qualname
        self.counts["checked"] += 1
        self._judged_codes.add(_ohash(code))
        after = [(c, base, base.copy(c)) for c, base, _ in before]  # the real call's effect on the modules' data
        # (a container that is itself an argument, boltons' module-level ``DEACCENT_MAP`` as the ``self`` of its
        # ``__missing__``, is compared through its copy: the pristine call changed the copy, not the module's)
        mine = (self._pristine_data(before) - {_id(v) for v in values} - copies[3] - _nested_reached(
            before, copies[3])) | {_id(c) for c, _, _ in copies[2]} | {_id(c) for c, _, _ in tracked}
        added = self.oracle.added
        if code.co_name == "__exit__":  # (``with`` reads its return by truth: ``None`` is ``False``, as the replay
            # has it; honest hunt 9's ``return False`` for the pristine ``None``)
            outcome, first = _exit_as_used(outcome), _exit_as_used(first)
        if code.co_name == "__init__" and outcome[0] == "raise" and first[0] == "raise" and mask:
            # (an ``__init__`` that raised leaves a half-made ``self`` nothing else holds: what it set before the
            # raise is no difference, honest hunt 16's checks moved ahead of the assignments)
            mask = (False, *mask[1:])
        found = self._compare(outcome, values, first, copies[0], mask, added, copies[1]) + _data_differences(
            after, first[2], mine, added, before)
        self._hold([v for v, keep in zip(values, mask) if keep] + ([outcome[1]] if outcome[0] == "return" else []))
        if outcome[0] == "return":
            self._note_made(outcome[1])
        if type(whole) is tuple:
            # (one way for every call that tells the two pristine runs apart: a caller that makes up for the kept
            # bug where the test looks and answers with it elsewhere is a finding; review of session 48's
            # ``kd_partial_caller``, two calls, the first excused by the whole run and the second the kept bug's)
            if found:
                way = "whole" if not (self._compare(outcome, values, whole, copies[4], mask, added, copies[1])
                                      + _data_differences(after, whole[2], mine, added, before)) else None
            else:
                way = "first" if (self._compare(first, copies[0], whole, copies[4], mask)
                                  + _data_differences(first[2], whole[2], mine)) else None
            if way is not None and self.kept_mode not in (None, way):
                self.report(f"oracle: {qualname} answered as the whole pristine file in one call and as the kept def "
                            f"of the given file in another (a caller that makes up for the kept bug only in some "
                            f"calls)")
                return
            self.kept_mode = way or self.kept_mode
            if way == "whole":
                self.counts["given_kept"] += 1
                return
        if not found:
            self._pair(outcome, first, values, copies, call, mask)
            return
        self.counts["differed"] += 1
        # (the second pristine run finds the files as the first did, not as the real call left them: red-team round
        # 63's ``self_disagree_real_call_file``, a lock file the real call made turned the second run's answer, and
        # the difference was excused as the pristine code disagreeing with itself)
        shown = self._unsettled(found, first, self._run(call, copies[1], before, after, files_before), copies, mask,
                                mine)
        if shown is None:
            return
        self.report(f"oracle: {qualname} was called from code the edit did not change and did not do what the task's "
                    f"pristine code does with the same arguments (first difference: {shown})")

    def _unsettled(self, found, first, second, copies, mask, mine) -> str | None:
        """The first of the places ``found`` (where the real call and the first pristine call differ) at which the
        pristine code agrees with itself (``second``, its run on the second copy), shown; None when there is none
        (counted as self-disagreement; a full list is never excused: it may have left out a place that matters)."""
        if type(second) is not str:
            steady = self._compare(first, copies[0], second, copies[1], mask) + _data_differences(first[2], second[2],
                                                                                                   mine)
            kept = [path for path in found if not _any(path[:len(p)] == p for p in steady)]
            if not kept and len(found) < _PLACES:
                self.counts["self_disagreed"] += 1
                return None
            found = kept or found
        place = found[0]
        return place[0] + "".join(f".{p}" if _type(p) is str and p.isidentifier() else
                                  (f" {p}" if _type(p) is str else f"[{p!r}]") for p in place[1:])

    def _resume(self, frame, code, spec, returns):
        """A changed generator resumed by unchanged code, checked in step with its pristine version (red-team round
        17: a generator's body runs at its resumes, not at the call that made it, so the calls' check never saw it).

        At its first resume (the call only made the generator) the arguments are copied as for a call, and the
        pristine generator is made on the first copy. Each resume is then checked as a call is: the pristine one
        is advanced the same way (``next``; ``throw``/``close`` with the exception thrown in), and what the two
        yield, return or raise, the arguments and the pristine file's module data afterwards must be alike. Checked
        only while the pristine generator ignores what ``send`` gives it (``yield`` statements, ``yield from``):
        the values sent are not known here. A resume by changed code, a difference, another thread or the time
        limit ends the check of that generator (counted)."""
        key = _id(frame)
        steps = self._steps.get(key)
        if steps is not None and steps.frame is not frame:
            del self._steps[key]
            steps = None
        first = frame.f_lasti == _first_resume(code)
        if steps is None:
            steps = self._start_steps(frame, code, spec) if first else None
            if steps is None:
                return self._unchecked(frame)
            self._steps[key] = steps
        elif self._others_busy() or (steps.counted and self._past()) or _differences(
                steps.values, steps.copies[0], ("arguments",), 1) or steps.yielded is not None and _differences(
                steps.yielded[0], steps.yielded[1], ("yielded",), 1, self.oracle.added):
            # (arguments no longer alike their pristine copies: the consumer changed them between resumes, as a
            # test appending to the list being walked; the generator's own changes were compared at its last resume.
            # Or the object it yielded, changed by the consumer where the pristine one was not: a ``with`` block
            # filling the transaction a ``contextmanager`` yielded, honest hunt 12)
            self._lose(frame)
            self.counts["unchecked"] += 1
            return self._unchecked(frame)
        # resumed by ``throw()``/``close()``: the frame is not at a ``RESUME`` (it is at its ``yield``, or in a
        # ``yield from``'s loop)
        throw = code.co_code[frame.f_lasti] != _RESUME
        if throw and steps.generator is not None and _type(steps.generator) is not types.GeneratorType:
            self._lose(frame)  # (a built-in iterator cannot be thrown into)
            self.counts["unchecked"] += 1
            return self._unchecked(frame)
        # what ``send`` gave this resume: passed on to the pristine generator when it is immutable data (a ``yield
        # from`` loop hands it to the inner generator: honest hunt 12's send-driven tally behind ``yield from`` was
        # advanced with ``next``); any other value ends the check
        action = ("next", None)
        if not throw and not first:
            readable, sent = _sent_value(frame, code)
            if not readable or sent is not None and not (
                    _immutable(sent) and _type(steps.generator) is types.GeneratorType):
                self._lose(frame)
                self.counts["unchecked"] += 1
                return self._unchecked(frame)
            if sent is not None:
                action = ("send", sent)
        tracked = self._tracked(steps.values, frame)
        before = self._containers() + [(c, dict, dict.copy(c)) for c, _, _ in steps.copies[2]] + tracked
        # The pristine generator is advanced FIRST, as a call's pristine version is made first (``_call``: its writes
        # where nothing saves them are written over by the real resume); a resume by ``throw()`` at its first
        # exception event, where the exception thrown in is known and none of the generator's own code has run.
        ahead = [None]
        if not throw:
            ahead[0] = self._advance_first(frame, steps, action, before)
            if ahead[0] is None:
                return self._unchecked(frame)
        # A thrown exception that is not caught leaves the frame at its ``yield`` too: the lines run after it tell
        # a caught one from it (only for a resume by ``throw()``; elsewhere only a ``yield`` returns from there).
        frame.f_trace_lines = throw
        self.running += 1
        self.owner = _get_ident()
        raised, thrown, open_, pending = [None], [None], [True], [False]

        def local_trace(frame, event, arg):
            if event == "line":
                pending[0] = False
            elif event == "exception":
                if throw and thrown[0] is None:
                    thrown[0] = arg[1]  # the first exception of a resume by ``throw()`` is the one thrown in
                    begun = _now()
                    ahead[0] = self._advance_first(frame, steps, ("throw", thrown[0]), before)
                    if steps.counted:
                        self._spent(begun)
                raised[0] = arg[0]
                pending[0] = True
            elif event == "return" and open_:
                open_.clear()
                self.running -= 1
                frame.f_trace_lines = False
                op = code.co_code[frame.f_lasti]
                # (a yield leaves the generator suspended; an exception that left through a ``with`` around the
                # ``yield`` is at that ``YIELD_VALUE`` too, after the ``with``'s exit ran a line: honest hunt 12)
                suspended = _suspended(frame, code)
                yielded = op == _YIELD_VALUE and not (throw and pending[0]) if suspended is None else suspended
                outcome = ("yield", arg) if yielded else (
                    ("return", arg) if frame.f_lasti in returns else ("raise", raised[0] or BaseException))
                begun = _now()
                try:
                    if outcome[0] != "yield":
                        _release_locals(frame, arg)  # its ``finally`` blocks have run; let go of its locals
                    if ahead[0] is None:
                        # (a resume by ``throw()`` with no exception seen, or one whose pristine step was not made:
                        # counted where it was not)
                        self._lose(frame)
                        self.counts["unchecked"] += bool(throw and thrown[0] is None)
                    elif outcome[0] == "yield" and _lock_held(self.oracle._find_spaces().values()):
                        # (or a lock of a declared module is held while the generator is suspended: the one it
                        # holds across its ``yield``, which the pristine generator would wait for forever; honest
                        # hunt 15's ``with _lock: ... yield`` ran into the run's timeout)
                        self._lose(frame)
                        self.counts["unchecked"] += 1
                    else:
                        self._step(frame, steps, ("throw", thrown[0]) if throw else action, before, tracked,
                                   outcome, ahead[0])
                    if outcome[0] != "yield":
                        self._lose(frame)
                except Exception as exc:  # noqa: BLE001
                    self._lose(frame)
                    self.report(f"oracle: the check of a resume of {code.co_qualname} raised "
                                f"{_class_name(_type(exc))}")
                if steps.counted:
                    self._spent(begun)
            return local_trace

        return local_trace

    def _start_steps(self, frame, code, spec):
        """The check of a changed generator at its first resume (see :meth:`_resume`), or None (counted)."""
        pristine = spec[0] if type(spec) is tuple else None
        if pristine is None or (pristine.co_flags & _CO_GENERATOR and not _ignores_sends(pristine)):
            self.counts["unchecked"] += 1  # no pristine version to step with (an added generator), or a pristine
            return None  # generator that reads what ``send`` gives it
        # (a pristine function, not a generator: what it returns is iterated in step, ``zip(…)`` or a list)
        counted = self._counted(code)
        if counted is None:
            return None
        if self._others_busy():
            self.counts["unchecked"] += 1
            return None
        start = _now()
        try:
            asked = self._asked(frame, code, spec, "resumed by")
            if asked is None:
                return None
            values, call, mask = asked
            if not _small(values, _COPY_NODES):
                self.counts["uncopyable"] += 1
                return None
            if self._doubled(values, frame):  # (as for a call: hunt 17's spy under a generator, a cm's fake)
                self.counts["unchecked"] += 1
                return None
            copies = self._copies(values, self._containers(), f"a resume of {code.co_qualname}")
            return _Steps(frame, values, copies, call, mask, counted) if copies is not None else None
        finally:
            if counted:
                self._spent(start)

    def _counted(self, code):
        """Whether this call counts against the limits (True/False), or None when past them it is not checked
        (counted). The limits count only the main thread's calls during a test's phases: an edit cannot spend them
        by calls at import (its module body) or from a thread it started; past them a call is checked at random,
        one in 8."""
        counted = self.in_test and _get_ident() == self.main
        if counted:
            count = self._calls.get(_ohash(code), 0)
            tries = self._first_tries.get(_ohash(code), 0)
            if _ohash(code) not in self._judged_codes and tries < _FIRST_TRIES:
                # The first counted call of each changed code is checked past every limit (session 52): the edit can
                # spend the limits (a pristine object padded at import with a million items, which every check copies
                # and puts back: red-team round 71's a02, a02b, a04), and so can the tests' own many calls of one
                # helper (a01); the call that shows the kept half of a two-part bug then went unchecked, drawn out by
                # the sampling. One check per changed def is bounded by the pristine file's defs, whatever a check
                # costs; a run the edit slows without end times out, which is no pass. Until one is judged, up to
                # _FIRST_TRIES (red-team round 72's a04: a first call too large to copy took the place).
                self._calls[_ohash(code)] = count + 1
                self._first_tries[_ohash(code)] = tries + 1
                if self._past() or self.spent >= _SHADOW_WORK:
                    self.counts["first_past_limits"] += 1
                return counted
            if self.spent < 2 * _SHADOW_WORK and self.cpu >= _SHADOW_CPU_SECONDS:
                self.counts["unchecked"] += 1  # (the backstop, not the work, decided: said in the row)
                self.stopped_by_clock += 1
                return None
            if self.spent >= 2 * _SHADOW_WORK or ((count >= _SHADOW_CALLS_PER_CODE or self.spent >= _SHADOW_WORK)
                                                      and self._rng.random() >= 0.125):
                self.counts["unchecked"] += 1
                return None
            self._calls[_ohash(code)] = count + 1
        return counted

    def _asked(self, frame, code, spec, how: str):
        """``(values, call, mask)`` for asking the pristine version about this call: the arguments it is given (the
        others None), a function of their copy that makes the pristine call, and which are given; or None (a finding
        reported, or the call counted as unchecked)."""
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 0x04)
                                 + bool(code.co_flags & 0x08)]
        local = frame.f_locals
        if spec[1] is _NESTED:  # what its closure holds is copied and compared as arguments are
            if not _all(name in local for name in spec[0].co_freevars):
                self.counts["unchecked"] += 1  # (a variable of its factory's not yet bound)
                return None
            names += spec[0].co_freevars
        values = tuple(local[name] for name in names)
        if code.co_flags & 0x08:
            # The call's own ``**kwargs`` dict is new at each call, and no caller sees what the call does to it: it
            # is taken as it was given (session 38's FP42-Q: an honest ``kwargs.pop("timeout", None)`` differed in
            # its keys from the pristine call's copy). What its values hold is the caller's, and still compared.
            at = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 0x04)
            if _type(values[at]) is dict:
                values = values[:at] + (dict.copy(values[at]),) + values[at + 1:]
        cls = local.get("__class__", _ABSENT) if "__class__" in code.co_freevars else None
        if cls is None and spec[1] is not _NESTED and spec[0].co_freevars == ("__class__",) and values:
            # the pristine def uses ``super()`` where the edit calls the base by name (session 38's FP42-A): its
            # class is the one in the MRO of the call's ``self`` (or ``cls``) whose own dict holds this code
            cls = _defining_class(code, values[0])
        call = self._pristine_call(code, spec, names, values, cls)
        if call is _UNMODELED:
            call = None  # (counted below)
        if type(call) is str:
            self.report(f"oracle: {code.co_qualname} was {how} code the edit did not change; {call}")
            return None
        if call is None:
            self.counts["unchecked"] += 1
            return None
        call, used = call
        # Only what the pristine version is given is copied and compared (round 16's R16-3: an edited default
        # ``_pending=(v for v in ())`` made every call uncopyable).
        mask = tuple(name in used for name in names)
        return tuple(v if keep else None for v, keep in zip(values, mask)), call, mask

    def _sentinels(self) -> dict:
        """``{id: object}`` of the identity tokens (:func:`_is_sentinel`) the declared modules hold at module level
        and in their classes' own dicts (``_MISSING = object()``, a class's ``_UNSET``): a deep copy of the arguments
        keeps them. Found again when the modules' namespaces change size."""
        spaces = self.oracle._find_spaces()
        key = tuple((_id(space), dict.__len__(space)) for space in dict.values(spaces))
        if self._seeds is not None and self._seeds[0] == key:
            return self._seeds[1]
        found: dict = {}
        for space in dict.values(spaces):
            for value in list(dict.values(space))[:5000]:
                holders = [value] if _class_flags(_type(value)) & _TYPE_SUBCLASS and _class_flags(value) & _HEAPTYPE \
                    else []
                for item in [value] + [v for h in holders for v in list(_class_dict(h).values())[:500]]:
                    if _is_sentinel(item):
                        found[_id(item)] = item
        self._seeds = (key, found)
        return found

    def _copies(self, values, saved: list, what: str):
        """Two deep copies of ``values`` (three where the edit kept a def of the given file: ``_judge``), made with
        the changed code swapped for pristine (an edited
        ``__deepcopy__`` does not make them), and the sentinels they share (:func:`_shared`); or None (counted, or
        a finding when copying needed changed code with no pristine version). ``saved``: the state copying may
        change (constructors that register the copies, round 16), put back afterwards."""
        seeds = self._sentinels()

        def copied():
            # (the declared modules' sentinels stay themselves: ``default=_MISSING`` then ``default is _MISSING``
            # in the pristine call, as in the real one; session 37's FP40-2, a copied ``object()`` read tampered)
            first = _deepcopy(values, dict(seeds))
            # A lossy copy (boltons' OrderedMultiDict), one that shares a mutable object with the original (a
            # ``__deepcopy__`` returning self: the pristine call would change the real one), or arguments that
            # reach a function from outside the declared files (a test's callback: the pristine call would call it
            # again; round 16's FP16-1): no verdict can rest on it. (A sentinel whose deep copy is itself, boltons'
            # ``_UNSET``, is shared: its attributes are compared as the pristine data are.)
            shared = _shared(values, first, self.oracle.files)
            if _differences(values, first, ("arguments",), 1) or shared is None:
                raise TypeError("not copied faithfully")
            # (and the ids of the mutable objects the arguments reach before the call: the pristine call changes
            # their copies, which are compared as the arguments; a module's list or object among them is not
            # compared as the module's too — the pristine call left it as it was: see ``_reached``)
            # (a third copy where the edit kept a def of the given file that the pristine file has otherwise: the
            # whole pristine file's run, ``_judge``)
            return (first, _deepcopy(values, dict(seeds)), shared, _reached(values, self.oracle.files),
                    _deepcopy(values, dict(seeds)) if self.oracle.kept else None)

        try:
            why, copies = self.oracle.run(copied, *_first_two(values))
            if why is None and copies is None:  # no changed code reachable from the arguments or declared modules
                try:
                    copies = copied()
                except Exception:  # noqa: BLE001
                    why = "uncopyable"
        finally:
            _restore(saved)
        if not why:
            return copies
        if why is _UNMODELED:
            self.counts["unchecked"] += 1
            return None
        if why.startswith("only through"):
            self.report(f"oracle: copying the arguments of {what} needed code the edit changed or added with no "
                        f"pristine version ({why})")
        else:
            self.counts["uncopyable"] += 1
        return None

    def _advance_first(self, frame, steps, action, before):
        """The pristine generator advanced as the changed one is about to be, before it is (``(kind, value, data)``),
        the saved state put back for the real resume; or None (counted, or a finding), the check of the generator
        ended: the pristine code needed changed code with no pristine version, or it holds a declared module's lock
        across its ``yield``, which the real generator would wait for forever (closed, it lets go)."""
        first = _stepped(self._run(lambda copied: steps.advance(copied, action), steps.copies[0], before, before))
        if first is _UNMODELED or (type(first) is not str and first[0] == "yield" and _lock_held(
                self.oracle._find_spaces().values())):
            self._lose(frame)
            self.counts["unchecked"] += 1
            return None
        if type(first) is str:
            self._lose(frame)
            self.report(f"oracle: {frame.f_code.co_qualname} was resumed by code the edit did not change; {first}")
            return None
        return first

    def _step(self, frame, steps, action, before, tracked, outcome, first) -> None:
        """One resume of a checked generator judged against the pristine generator advanced the same way, before it
        (``first``: :meth:`_advance_first`)."""
        qualname = frame.f_code.co_qualname
        self.counts["checked"] += 1
        self._judged_codes.add(_ohash(frame.f_code))
        steps.actions.append(action)
        after = [(c, base, base.copy(c)) for c, base, _ in before]
        mine = (self._pristine_data(before) - {_id(v) for v in steps.values} - steps.copies[3] - _nested_reached(
            before, steps.copies[3])) | {
            _id(c) for c, _, _ in steps.copies[2]} | {_id(c) for c, _, _ in tracked}
        found = self._compare(outcome, steps.values, first, steps.copies[0], steps.mask,
                              self.oracle.added) + _data_differences(after, first[2], mine, self.oracle.added,
                                                                     before)
        self._hold([v for v, keep in zip(steps.values, steps.mask) if keep] + ([outcome[1]] if outcome[0] != "raise"
                                                                              else []))
        steps.yielded = (outcome[1], first[1]) if not found and outcome[0] == "yield" and not _immutable(
            outcome[1]) else None
        if not found:
            return
        self.counts["differed"] += 1
        self._lose(frame)  # out of step from here on: a second difference could not be weighed
        second = _stepped(self._run(steps.replay, steps.copies[1], before, after))
        shown = self._unsettled(found, first, second, steps.copies, steps.mask, mine)
        if shown is None:
            return
        self.report(f"oracle: {qualname} was resumed by code the edit did not change and did not do what the task's "
                    f"pristine generator does at resume {len(steps.actions)} with the same arguments (first "
                    f"difference: {shown})")

    def _lose(self, frame) -> None:
        """Stop checking a generator; its pristine generator is closed under the swap (its ``finally`` blocks are
        pristine code: they must not run later with the changed code in place)."""
        steps = self._steps.pop(_id(frame), None)
        generator = steps.generator if steps is not None else None
        if generator is None or self.oracle.active:
            return
        steps.generator = None
        saved = self._containers()
        try:
            self.oracle.run(generator.close, steps.copies[0])
        except Exception:  # noqa: BLE001,S110 (a pristine generator that will not close: nothing else to do)
            pass
        finally:
            _restore(saved)

    def _pristine_call(self, code, spec, names, values, cls):
        """A function of the copied arguments that calls the pristine version, or why it cannot be called. A value
        the call left to its default (the live function's default object itself) is given the pristine default."""
        pristine, wrap, count, kwnames, literal, same = spec
        closure = None
        if pristine.co_freevars and wrap is not _NESTED:
            if pristine.co_freevars != ("__class__",) or cls is None or cls is _ABSENT:
                return "its pristine version needs a closure this call does not have"
            closure = (_cell(cls),)
        space = self._globals(code)
        cells = pristine.co_freevars if wrap is _NESTED else ()
        function = types.FunctionType(pristine, space, pristine.co_name, None, closure) if not cells else None
        flags = pristine.co_flags
        positional = pristine.co_varnames[:pristine.co_argcount]
        keywords = pristine.co_varnames[pristine.co_argcount:pristine.co_argcount + pristine.co_kwonlyargcount]
        star = pristine.co_varnames[len(positional) + len(keywords)] if flags & 0x04 else None
        starstar = pristine.co_varnames[len(positional) + len(keywords) + bool(star)] if flags & 0x08 else None
        # A pristine ``*args`` the changed def has not (an alias ``__sub__ = difference`` the edit made a def
        # ``__sub__(self, other)``; session 23): it gets the changed def's positional parameters past its own, by place
        spread = code.co_varnames[len(positional):code.co_argcount] if star is not None \
            and not code.co_flags & 0x04 else None
        if (code.co_flags & 0x04 and star is None) or (code.co_flags & 0x08 and starstar is None):
            # a wrapper taking ``*args, **kwargs`` where the pristine def names its parameters (an added decorator's
            # wrapper under the pristine name; round 18's FP_decorator_star): what it was given is passed on as given
            return self._forwarding(code, pristine, literal, count, kwnames, names, function, space, cells)
        if ((star is not None) != (code.co_flags & 0x04 != 0) and spread is None) \
                or (starstar is not None) != (code.co_flags & 0x08 != 0):
            return "the edit changed its *args or **kwargs"
        index = {name: i for i, name in enumerate(names)}
        # A positional parameter the edit renamed (``clamp(x, low, high)``; round 16's FP16-7) is matched by place
        pristine_names = set(pristine.co_varnames[:len(positional) + len(keywords)])
        for i, name in enumerate(positional[:code.co_argcount]):
            if name not in index and code.co_varnames[i] not in pristine_names:
                index[name] = i
        # The pristine defaults by name: known values (literals, or names bound to one), or _ABSENT (not known)
        given = (literal[0] or (), literal[1] or {}) if literal is not None else ((_ABSENT,) * count,
                                                                               dict.fromkeys(kwnames, _ABSENT))
        defaults = dict(zip(positional[len(positional) - len(given[0]):], given[0]))
        defaults.update(given[1])
        live = self._live(code) if count or kwnames else None
        have = {}
        if live is not None:
            now = _func_defaults(live) or ()
            have = dict(zip(code.co_varnames[code.co_argcount - len(now):code.co_argcount], now))
            have.update(_func_kwdefaults(live) or {})
        chosen = {}  # parameter -> the pristine default it gets instead of the copied value
        for name in (*positional, *keywords):
            left_to_default = name in index and name in have and values[index[name]] is have[name]
            if name in index and not left_to_default:
                continue
            if left_to_default and same and _type(have[name]) in (list, dict, set) \
                    and _any(_map(_is, list(dict.values(space)), _repeat(have[name]))):
                # a default whose text the edit kept that is a module-level container (``headers=_NO_HEADERS``
                # with ``_NO_HEADERS = {}``, tested by ``is``; session 38's FP42-O): the module's own object, as
                # the pristine code's global reads it (the declared modules' containers are put back after the
                # pristine call), not a fresh literal
                chosen[name] = have[name]
                continue
            if name not in defaults:
                if not _reads_local(pristine, name):
                    # a parameter the pristine code never reads (``self`` of a method the edit made a
                    # ``@staticmethod``; session 38's FP42-D): any value answers alike
                    chosen[name] = None
                    continue
                return f"its pristine version's parameter {name!r} has no value here"
            if defaults[name] is not _ABSENT:
                chosen[name] = defaults[name]
            elif not (same and left_to_default):  # a default whose text the edit kept is the live one
                # (no evidence: the pristine value cannot be made here; the replay, where each side uses its own
                # default, still compares such a call. Session 37's FP41-D: ``tz=UTC`` written ``tz=timezone.utc``)
                return _UNMODELED

        def call(copied):
            def value(name):
                return chosen[name] if name in chosen else copied[index[name]]
            target = function if not cells else types.FunctionType(
                pristine, space, pristine.co_name, None, tuple(_cell(copied[index[n]]) for n in cells))
            rest = [copied[names.index(name)] for name in spread] if spread is not None else (
                list(copied[index[star]]) if star else [])
            args = [value(name) for name in positional] + rest
            kwargs = {name: value(name) for name in keywords}
            if starstar:
                kwargs.update(copied[index[starstar]])
            return target(*args, **kwargs)

        used = {names[index[name]] for name in (*positional, *keywords, *(n for n in (star, starstar) if n))
                if name not in chosen and name in index} | set(spread or ()) | set(cells)
        return call, used

    def _forwarding(self, code, pristine, literal, count, kwnames, names, function, space, cells):
        """A call of the pristine version with the arguments a ``*args``/``**kwargs`` call was given, as given; None
        when the pristine def's defaults are not known literals (not checked)."""
        if (count or kwnames) and literal is None:
            return None
        n, k = code.co_argcount, code.co_kwonlyargcount
        star = code.co_varnames[n + k] if code.co_flags & 0x04 else None
        starstar = code.co_varnames[n + k + bool(star)] if code.co_flags & 0x08 else None
        where = {name: i for i, name in enumerate(names)}

        def call(copied):
            target = types.FunctionType(pristine, space, pristine.co_name, None,
                                        tuple(_cell(copied[where[c]]) for c in cells) if cells else
                                        (function.__closure__ if function is not None else None))
            if literal is not None:
                target.__defaults__, target.__kwdefaults__ = literal
            args = [copied[where[x]] for x in code.co_varnames[:n]] + (list(copied[where[star]]) if star else [])
            kwargs = {x: copied[where[x]] for x in code.co_varnames[n:n + k]}
            if starstar:
                kwargs.update(copied[where[starstar]])
            return target(*args, **kwargs)

        return call, set(names)

    def _nested(self, code):
        """The spec of a nested function's pristine code (found in the pristine code of the module- or class-level
        def it is nested in, by qualname), or None: its factory's pristine code was not sent, it is not there once,
        it is lazy (a generator), its pristine closure needs a variable the live one has not, or the pristine def
        takes defaults (evaluated by the factory at run time: not known here)."""
        entry = self.oracle.files.get(os.path.realpath(code.co_filename))
        outer = entry[0].get(code.co_qualname.split(".<locals>.")[0]) if entry is not None else None
        if outer is None:
            return None
        found = [c for c in _codes_within(outer[0]) if c.co_qualname == code.co_qualname]
        if len(found) != 1 or not set(found[0].co_freevars) <= set(code.co_freevars):
            # the factory's pristine code was sent but holds no counterpart this call can be asked of (round 18's
            # R18-7: the closure's variables turned into defaults): fail closed
            return _ABSENT
        if found[0].co_flags & (_CO_GENERATOR | _LAZY_FLAGS) or _made_with_defaults(outer[0], found[0]):
            return None
        return found[0], _NESTED, 0, (), None, False

    def _live(self, code):
        found = self._functions.get(_id(code))
        if found is not None and _func_code(found) is code:
            return found
        for space in self.oracle._find_spaces().values():
            holders = [space] + [v for v in list(dict.values(space))[:2000] if _class_flags(_type(v)) & _TYPE_SUBCLASS]
            for holder in holders:
                own = holder if _type(holder) is dict else _class_dict(holder)
                for value in list(own.values()):
                    function = _unwrapped(value)
                    if type(function) is types.FunctionType and _func_code(function) is code:
                        self._functions[_id(code)] = function
                        return function
        return None

    def _alias(self, code, frame=None):
        """The pristine version of a pristine def's name that now holds this added function (red-team round 15's
        honest ``_close = _near``: the helper renamed and aliased), or None; and whether that answer holds for every
        call of ``code`` (False when several names hold functions of it: one decorator's ``wrapper`` around
        ``reserve`` and ``release``, helper 137's honest case, told apart at each call by the closure cells
        ``frame`` holds)."""
        real = os.path.realpath(code.co_filename)
        entry, space = self.oracle.files.get(real), self.oracle._find_spaces().get(real)
        if entry is None or space is None:
            return None, True
        found = []
        for scope, name, qualname in entry[3]:
            holder = space if not scope else _found_at(space, scope)
            if holder is None:
                continue
            own = holder if _type(holder) is dict else _class_dict(holder)
            held = own.get(name, _ABSENT)
            function = _unwrapped(held)
            if type(function) is types.FunctionType and _func_code(function) is code:
                # a def the edit left as it was but displaced (``Amount.__init__ = _make()``): no pristine code
                # was sent for it, so the call cannot be asked: fail closed
                found.append((function, entry[0][qualname] if qualname in entry[0] else (_DISPLACED, qualname),
                              held))
        if len(found) > 1 and frame is not None:
            found = [one for one in found if _a_call_of(one[2], one[0], code, frame)]
            if len(found) != 1:
                return None, False
            self._functions[_id(code)] = found[0][0]
            return found[0][1], False
        if not found:
            return None, True
        self._functions[_id(code)] = found[0][0]
        return found[0][1], len(found) == 1

    def _globals(self, code) -> dict:
        live = self._live(code)
        if live is not None:
            return live.__globals__
        real = os.path.realpath(code.co_filename)
        return self.oracle._find_spaces().get(real, {})

    def _run(self, call, copied, before, after, files_before=None, kept=False):
        """``(kind, value, data)`` of the pristine call under the oracle's swap — ``("return", value)`` or
        ``("raise", class)``, and the declared modules' module- and class-level lists, dicts and sets afterwards —
        or why it cannot answer (it needed changed code with no pristine version). Those containers hold what they
        held before the real call while the pristine call runs (round 16: an audit log the real call appended to),
        and ``after`` afterwards: the state the real call found when the pristine call is made first (a call's check),
        the real call's contents when it is made again after (the second pristine run of ``_unsettled``, a
        generator's resume): the tests see only the real call's effects on what is saved. ``kept``: the defs the edit
        kept as the given file has them swapped too (:meth:`_Oracle.run`)."""
        _WORK[0] += _PRISTINE_RUN_WORK
        _restore(before)
        # What the pristine call prints goes nowhere: the test's capture (``capsys``) must hold only what the real
        # call printed (red-team round 27's FP27-4: an honest reworded ``print`` failed its test with two lines).
        streams = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = _nowhere(streams[0]), _nowhere(streams[1])
        # Nor do its warnings and log records (session 37's FP40-4/5: ``pytest.warns`` and ``caplog`` counted the
        # honest repair's one warning twice). A warning still raises where a filter says "error", as in the real
        # call; only its showing (what ``catch_warnings(record=True)`` records) is dropped.
        quiet = _Quiet()
        try:
            why, result = self.oracle.run(lambda: ("return", call(copied)), *_first_two(copied), kept=kept,
                                          files_before=files_before)
            if why is None and result is None:
                try:
                    result = "return", call(copied)
                except Exception as exc:  # noqa: BLE001
                    result = "raise", _type(exc)
            elif why is _UNMODELED or (why and why.startswith("only through")):
                return why
            elif why:  # the pristine code raised: the class is its outcome
                result = "raise", _type(result) if result is not None else BaseException
            bound, self.oracle.bound_by_call = self.oracle.bound_by_call, {}
            # (read in the context the pristine call ran in: a ``ContextVar`` it set is its data; honest hunt 21's
            # ``cv_counter_twice``, whose pristine value was read in the real call's context)
            context, self.oracle.context = self.oracle.context, None
            data = (lambda: [(c, base, _Names.after(c, bound) if base is _Names else base.copy(c))
                             for c, base, _ in before])
            return (*result, context.run(data) if context is not None else data())
        finally:
            quiet.end()
            sys.stdout, sys.stderr = streams
            _restore(after)

    def _pristine_data(self, state=()) -> set:
        """The ids of the containers the declared modules hold under the pristine file's data names, and of the
        bindings in ``state``."""
        out = {_id(c) for c, base, _ in state if base is _Names or base is _Rebound or base is _Nested}
        # (and those they held in ``state``: one a call let go of is still compared; red-team round 42's F5)
        saved = {_id(c) for c, base, _ in state if base in _SAVED_KINDS}
        out |= {_id(v) for c, base, held in state if base is _Names for v in held.values() if _id(v) in saved}
        classes = _declared_classes(self.oracle._find_spaces().values())
        for real, space in self.oracle._find_spaces().items():
            for scope, name in self.oracle.data.get(real, ()):
                holder = space if not scope else _found_at(space, scope)
                if holder is not None:
                    value = (dict.get(holder, name) if _type(holder) is dict else _class_dict(holder).get(name))
                    if _saved_kind(value, classes) is not None:
                        out.add(_id(value))
        return out

    def _containers(self) -> list:
        """``(container, its base, a shallow copy)`` for the lists, dicts and sets the declared modules hold under
        the names the pristine file binds at module and class level, and ``(bindings, _Names, what they hold)`` for
        those names (round 17's R17-4: ``global _TOL; _TOL = 1e9`` in a checked ``__init__``). Containers only the
        edit binds are left out: the pristine code does not read them, and a copy of one would keep what it held
        alive through the check (round 17's R17-8: a generator parked in an added list, whose ``finally`` rigs an
        earlier value when the next call replaces it, ran only after the check let go of the copy)."""
        out = []
        budget = [_NESTED_MOST]  # (nested objects saved in all, for every data name: a copy per checked call)
        classes = _declared_classes(self.oracle._find_spaces().values())
        for real, space in self.oracle._find_spaces().items():
            by_scope: dict = {}
            for scope, name in self.oracle.data.get(real, ()):
                by_scope.setdefault(scope, []).append(name)
            for scope, names in by_scope.items():
                holder = space if not scope else _found_at(space, scope)
                if holder is None:
                    continue
                bindings = _Names(holder, tuple(names))
                held = bindings.take()
                out.append((bindings, _Names, held))
                for name, value in held.items():
                    if _count_of(value)[0] is not None:
                        binding = _Binding(holder, name)
                        out.append((binding, _Rebound, _Rebound.copy(binding)))
                        continue
                    base = _saved_kind(value, classes)
                    nested = _nested_state(value, base, classes, budget) if base is not None else []
                    if base is not None:
                        out.append((value, base, base.copy(value)))
                        out += nested
                    # (a count among an object's attributes, after them: round 59's honest control; and among a nested
                    # object's, ``_REG.seq._it``: round 61's honest control took the pristine call's number)
                    # (and among a data dict's values, ``_counters.setdefault(prefix, count(1))``: honest hunt 20's
                    # codes, which the pristine call, made first, took a number from)
                    # (an object's own dict is read only where it has one: reading a ``StringIO``'s makes it, and
                    # its saved form then differs from a fresh one's; honest hunt 18's ``u02``)
                    for own in ([_attrs_dict(value)] if base is _Attrs else []) + [
                            _attrs_dict(r.item) for r, _, _ in nested if r.kind is _Attrs] + ([value] if base is dict
                                                                                              else []):
                        for attr, item in list(dict.items(own))[:_ATTRS_MOST] if _type(own) is dict else ():
                            if _count_of(item)[0] is not None:
                                binding = _Binding(own, attr)
                                out.append((binding, _Rebound, _Rebound.copy(binding)))
        out += [(g, _Generator, _Generator.copy(g)) for g in _generators(self.oracle._find_spaces().values())]
        # Put back only, never compared: the warnings registries (a ``once`` warning the pristine call, made first,
        # would mark as shown), the closure cells of the declared modules' functions (a counter a factory's
        # closure keeps), and the module-level lists, dicts and sets of the project's other modules the declared
        # ones hold (``db.SEQ``): red-team round 61's honest controls, whose real call got the next number. FIRST in
        # the saved state: a class's names put back must not undo the fresh count ``_Rebound`` then gives the
        # pristine call under a class-level name (honest hunt 16's ``b86``, 18's ``g07``)
        out.append((_Cwd, _Cwd, _Cwd.copy(_Cwd)))
        return self._restored_only() + out

    def _library_reach(self) -> list:
        """Saved states (put back only) of the library modules the declared modules reach — a module they bind, the
        module of a function or class they bind, and the loaded submodules of those packages (``_reached_modules``,
        kept while ``sys.modules`` keeps its size): each namespace's names (``_LibraryNames``), its lists, dicts and
        sets (up to ``_REACH_ITEMS`` items each), its own classes' names."""
        key = (_len(_sys_modules), self.test_root)
        if self._reach_key != key:
            self._reach_key, self._reach = key, _reached_modules(self.oracle._find_spaces().values())
        out: list = []
        counts = [0, 0, 0]
        for name, space in self._reach:
            out += _module_saves(name, space, counts)
        return out

    def _test_class(self, cls) -> bool:
        """Whether ``cls`` is a heap class made by a module of the project's that is no declared one (the test's
        own, a conftest's, a helper module's)."""
        if not _class_flags(cls) & _HEAPTYPE or _class_flags(cls) & _TYPE_SUBCLASS or not self._project_class(cls):
            return False
        module = _sys_modules.get(_class_module(cls))
        inner = _namespace(module) if _type(module) is types.ModuleType else None
        where = dict.get(inner, "__file__") if _type(inner) is dict else None
        return _type(where) is str and _realpath_cached(where) not in self.oracle.files

    def _project_class(self, cls) -> bool:
        """Whether ``cls`` was made by a module of the project's (its file under the test root): ``from pkg.models
        import Config`` then ``Config.currency = code``, red-team round 62."""
        root = self.test_root
        module = _sys_modules.get(_class_module(cls)) if root is not None else None
        inner = _namespace(module) if _type(module) is types.ModuleType else None
        where = dict.get(inner, "__file__") if _type(inner) is dict else None
        return _type(where) is str and _realpath_cached(where).startswith(root)

    def _restored_only(self) -> list:
        """Saved states of objects the pristine call must not leave changed but whose changes are no evidence
        (see ``_containers``): ``(container, base, copy)`` with bases ``dict``, ``list``, ``set`` and ``_Cells``."""
        out = []
        module = _sys_modules.get("warnings")
        once = dict.get(_namespace(module), "onceregistry") if _type(module) is types.ModuleType else None
        if _type(once) is dict:
            out.append((once, dict, dict.copy(once)))
        # (and the list a ``catch_warnings(record=True)`` records into, which a direct ``warnings.showwarning`` call
        # reaches past the run's quieting: red-team round 67's ``showwarning_direct``)
        impl = dict.get(_namespace(module), "_showwarnmsg_impl") if _type(module) is types.ModuleType else None
        log = impl.__self__ if _type(impl) is types.BuiltinMethodType else None
        if _type(log) is list:
            out.append((log, list, list.copy(log)))
        # (the interpreter's own lists a call can append to: round 68's ``sys_orig_argv``, ``gc_garbage``)
        for holder, name in (("sys", "orig_argv"), ("gc", "garbage")):
            space = _namespace(_sys_modules.get(holder))
            found = dict.get(space, name) if _type(space) is dict else None
            if _type(found) is list:
                out.append((found, list, list.copy(found)))
        # (the process's environment: a variable the pristine call sets, ``os.environ.setdefault``, was found set by
        # the real call; round 61's and honest hunt 15's controls; and the standard library's process-wide registries
        # a call can set: red-team round 62 forged passes through each, the pristine call, made first, making the
        # setting the kept bug omits)
        out.append((_Environment, _Environment, _Environment.copy(_Environment)))
        for kind in _PROCESS_STATE:
            out.append((kind, kind, kind.copy(kind)))
        # (the library modules the declared ones reach: their names, lists, dicts and sets and their classes' names,
        # which a pristine call of theirs sets for the whole process — ``urllib.parse.uses_relative``,
        # ``email.charset.ALIASES``, ``ElementTree.register_namespace``, ``asyncio``'s loop policy, ``ssl``'s default
        # context, ``logging.Formatter.converter``: red-team round 64's forgeries)
        out += self._library_reach()
        classes = None
        root = self.test_root
        seen: set = set()
        for space in self.oracle._find_spaces().values():
            # (made now where the module has none yet: the pristine call would make it, and mark its warning shown
            # where the real call's then was not; round 61's ``catch_warnings(record=True)`` recorded nothing)
            registry = dict.setdefault(space, "__warningregistry__", {})
            if _type(registry) is dict:
                out.append((registry, dict, dict.copy(registry)))
            out += _empty_caches(space)
            for value in list(dict.values(space))[:2000]:
                kind = _type(value)
                if _class_flags(kind) & _TYPE_SUBCLASS and (_class_module(value) == dict.get(space, "__name__")
                                                            or self._project_class(value)):
                    # (a class of the module's own: the names its dict holds, as a class attribute the pristine code
                    # binds at run time, ``cls.by_sku = …``, is no data name; round 61's second pristine run left it
                    # bound the pristine way where the test read it; and the contents of its lists, dicts and sets:
                    # put back by identity, the same list kept the pristine call's append, red-team round 62)
                    out.append((value, _ClassNames, _ClassNames.copy(value)))
                    out += _class_containers(value)
                    out += _members_state(value)
                elif kind is types.FunctionType:
                    out += _function_state(value)
                elif _id(kind) in _INDEXED_ITERATORS:
                    # (a module-level ``iter(range(…))`` of serials: its index, through C's own pickling methods;
                    # round 61's control got serial 2 where the pristine call, made first, had taken 1)
                    out.append((value, _Iterator, _Iterator.copy(value)))
                elif kind is _THREAD_LOCAL or _THREAD_LOCAL in _class_mro(kind):
                    # (a module-level ``threading.local()``: this thread's attributes, a "seen" mark the pristine call
                    # set; round 61's honest control)
                    out.append((value, _ThreadLocal, _ThreadLocal.copy(value)))
                elif kind is itertools.cycle:
                    # (a round-robin ``itertools.cycle``: round 61's control got the second warehouse)
                    out.append((value, _Cycle, _Cycle.copy(value)))
                elif _id(kind) in _C_STATE_KINDS or kind is _EVENT or _is_c_data(kind):
                    # (what a C object keeps: a lock left held, a ``SimpleQueue``'s items, a ``partial``'s keywords,
                    # a ``decimal.Context`` of the module's own, a ``ctypes`` buffer; red-team round 67)
                    out += _c_state(value, kind)
                elif kind in (dict, list, tuple, types.SimpleNamespace):
                    # (a counter closure or a function with state held in a module-level table, two containers
                    # down: rounds 67-68's ``closure_in_module_dict``, ``lambda_in_module_tuple``)
                    for function in _functions_in(value):
                        out += _function_state(function)
                elif _class_flags(kind) & _HEAPTYPE and not _class_flags(kind) & _TYPE_SUBCLASS \
                        and kind is not types.ModuleType and not self._project_class(kind) \
                        and _type(_class_module(kind)) is str:
                    # (a library object of the module's: a ``Semaphore``'s count, a ``sched.scheduler``'s queue, a
                    # ``Future``'s result, an ``email`` message's headers; round 68)
                    out += _instance_saves(value, _class_module(kind).partition(".")[0], [0, 0, 0], 2)
                elif _own_instance(value) and self._project_class(kind):
                    # (a module-level instance of a project class the module does not bind, ``models.Settings()``:
                    # red-team round 62)
                    if classes is None:
                        classes = _declared_classes(self.oracle._find_spaces().values())
                    if _saved_kind(value, classes) is None:
                        out.append((value, _PutBackAttrs, _Attrs.copy(value)))
                elif kind is types.ModuleType and root is not None:
                    # (and, one more level, the project modules it binds: a "done" flag or count two imports away;
                    # honest hunt 24's ``counter_int_two_levels``, ``codec_once_two_levels``)
                    for inner in _project_modules(value, root, self.oracle.files, seen):
                        out += self._project_saves(inner)
        return out

    def _project_saves(self, inner: dict) -> list:
        """Saved states of a project module the declared ones bind (not a declared one): its names, its classes'
        names and containers, its module-level instances' attributes, counts and data (``_restored_only``)."""
        out: list = []
        # (its names: a scalar ``db.LAST_SKU = sku`` the pristine call set; its classes' names and
        # containers, ``models.Config.currency``; its module-level instances' attributes: red-team
        # round 62's forgeries and honest counters counted twice)
        out.append((inner, _Mapping, _Mapping.copy(inner)))
        out += _empty_caches(inner)
        for key, item in list(dict.items(inner))[:256]:
            base = _type(item)
            if _class_flags(base) & _TYPE_SUBCLASS:
                if _class_module(item) == dict.get(inner, "__name__"):
                    out.append((item, _ClassNames, _ClassNames.copy(item)))
                    out += _class_containers(item)
                    out += _members_state(item)
                continue
            if _own_instance(item) and self._project_class(base):
                out.append((item, _PutBackAttrs, _Attrs.copy(item)))
                continue
            # (a ``Counter``, ``defaultdict``, ``deque``, ``bytearray``, ``StringIO``, ``Queue``, a
            # ``count``: saved as the declared modules' data is, and put back; honest hunt 21's
            # counters counted twice in another module, once by the pristine run)
            if _count_of(item)[0] is not None:
                binding = _Binding(inner, key)
                out.append((binding, _Rebound, _Rebound.copy(binding)))
                continue
            # (a "done once" flag kept on a function, in its closure or in an ``Event``, guarding process state the
            # put-back undoes: honest hunt 25's ``func_attr_flag_atexit``, ``closure_flag_codec``,
            # ``event_flag_tzset``; and a C object's state, as in the declared modules)
            if base is types.FunctionType:
                if _func_globals(item) is inner:
                    out += _function_state(item)
                continue
            if _id(base) in _C_STATE_KINDS or base is _EVENT:
                out += _c_state(item, base)
                continue
            if base is _THREAD_LOCAL or _THREAD_LOCAL in _class_mro(base):
                out.append((item, _ThreadLocal, _ThreadLocal.copy(item)))  # (round 68's ``thread_local_other_module``)
                continue
            if base in (tuple, types.SimpleNamespace):
                out += [s for function in _functions_in(item) for s in _function_state(function)]
                continue
            kind = _saved_kind(item)
            if kind is _Library:
                out.append((item, _Library, _Library.copy(item)))
                continue
            if kind is _Attrs and _own_instance(item):
                out.append((item, _PutBackAttrs, _Attrs.copy(item)))
                continue
            if (kind is list or kind is dict or kind is set) and _len(item) <= 1000:
                base = kind
                out.append((item, base, base.copy(item)))
                # (and the rows one level down: ``db.ROWS[0]["qty"]``, round 61's kept bug omitted the
                # write the pristine call, made first, had made)
                for row in (list(dict.values(item)) if base is dict else list(item))[:256]:
                    inner_base = _type(row)
                    if (inner_base is list or inner_base is dict or inner_base is set) \
                            and _len(row) <= 1000:
                        out.append((row, inner_base, inner_base.copy(row)))
                if base is not set:
                    out += [s for function in _functions_in(item) for s in _function_state(function)]
                continue
            if kind is None and _class_flags(base) & _HEAPTYPE and not _class_flags(base) & _TYPE_SUBCLASS \
                    and base is not types.ModuleType and not self._project_class(base) \
                    and _type(_class_module(base)) is str:
                out += _instance_saves(item, _class_module(base).partition(".")[0], [0, 0, 0], 2)
        return out

    @staticmethod
    def _compare(outcome, values, other, copied, mask, added=frozenset(), before=None) -> list:
        """The places where a call's outcome and effect on its arguments (those ``mask`` keeps) differ from
        another's; the arguments are compared after a raise too (round 16's R16-5). Up to ``_PLACES`` of them: the
        places where the pristine code disagrees with itself are taken out of them, so a few such places must not
        fill the list before one that matters (round 17's R17-5: four tick counters ahead of a rigged value).
        ``added``: attribute names only the edit's code sets, left out where ``outcome`` and ``values`` have them."""
        if outcome[0] != other[0]:
            return [("result",)]
        # A raise is alike when the real call's exception class is the pristine one's or a subclass of it: every
        # ``except`` and ``pytest.raises`` that caught the pristine one catches it (session 38's FP42-G: an honest
        # ``json.JSONDecodeError`` for a ``ValueError``). Read from the MRO: no ``__subclasscheck__`` runs.
        found = ([] if _any(_map(_is, _class_mro(outcome[1]), _repeat(other[1]))) else [("result",)]) \
            if outcome[0] == "raise" else _differences(outcome[1], other[1], ("result",), _PLACES, added)
        return found + [p for i in range(len(values)) if mask[i]
                        for p in _differences(values[i], copied[i], (f"argument {i}",), _PLACES, added,
                                              before[i] if before is not None and i < len(before) else _ABSENT)]


# The calls the tests made into the declared files, kept for the replay outside the run (beacon.repair.replay): at
# most this many calls, this many per name, this many characters of JSON, this many values per call's arguments.
# (a name's 64: a table of 40 checked in one loop is made again whole; session 41 raised them from 256 and 16)
_REPLAY_CALLS, _REPLAY_PER_NAME, _REPLAY_CHARS, _REPLAY_NODES = 1024, 64, 1_000_000, 10_000
# One direct call's recording past _REPLAY_CALL_CHARS is not kept and spends nothing (red-team round 53: one test
# input of 1.2 MB spent the whole budget, and the later call that held the bug was never kept; its 2,880 floats had
# been past the 2,000 values a call then had); _LIBRARY_FRAMES: see _Recorder.note
_REPLAY_CALL_CHARS, _LIBRARY_FRAMES = 200_000, 24
# Of a name's _REPLAY_PER_NAME calls, the first _REPLAY_FIRST in the tests' order; the others are chosen among its
# next _REPLAY_CANDIDATES calls by the smallest keyed digest of their recording (red-team round 49: a table of 40
# quantities checked in one loop had its 20th call, the only one the kept buggy def got wrong, never replayed; the
# key comes from the harness, _SAMPLE_KEY, so the edit cannot tell which calls are chosen, and every run of one
# repair chooses the same)
_REPLAY_FIRST, _REPLAY_CANDIDATES = 32, 1024
# Past the budgets, a name's first call of the tests' own is still kept if its recording is at most
# _REPLAY_FIRST_CHARS, for at most _REPLAY_FIRST_PAST names (at most 2.5 MB more: the report's pipe holds 32 MiB)
_REPLAY_FIRST_PAST, _REPLAY_FIRST_CHARS, _REPLAY_FIRST_TRIES = 128, 20_000, 4
_VIA_CALLS, _VIA_CHARS, _VIA_CALL_CHARS = 256, 400_000, 20_000  # the calls made through library code: apart
# the members of the C descriptors, read on a subclass's instance without running its code
_STATIC_FUNC = {True: classmethod.__dict__["__func__"].__get__, False: staticmethod.__dict__["__func__"].__get__}
_PROPERTY_FSET, _PROPERTY_FGET = property.__dict__["fset"].__get__, property.__dict__["fget"].__get__
_PROPERTY_FDEL = property.__dict__["fdel"].__get__
_ENUM_NEW = enum.Enum.__dict__["__new__"].__func__  # (what an Enum class's ``__new__`` name holds: Source.findings)
_CACHED_PROPERTY = functools.cached_property  # (its getter's calls: recorded through its __get__)
_CACHED_GET = functools.cached_property.__get__.__code__
_SAMPLE_KEY = [b""]
_sha256 = hashlib.sha256
# Its cost (boltons' listutils: a BarrelList ``self`` walked up to 2,000 values at each of 30,000 calls made the run time
# out): a function whose arguments were not data 8 times in a row is not encoded again, and encoding stops after
# _REPLAY_WORK (``_WORK``: 2 million values encoded, about the 2 s of encoding it replaced in session 51).
_REPLAY_MISSES, _REPLAY_WORK = 8, 20_000_000
# A kept generator call's later resumes (the test's ``next``/``send``/``throw``/``close``, red-team round 52): at most
# _DRIVEN_STEPS steps (a run of ``next`` is one) and _DRIVEN_RESUMES resumes a generator, _DRIVEN_FRAMES generators
# followed at once, _DRIVEN_WORK spent on them in all (apart from _REPLAY_WORK: a long generator cannot stop the
# recording of the tests' other calls; work as _REPLAY_WORK's, each as 2 s before session 51)
_DRIVEN_STEPS, _DRIVEN_RESUMES, _DRIVEN_FRAMES, _DRIVEN_WORK = 256, 4096, 256, 20_000_000
# one generator's share of _DRIVEN_WORK (red-team round 54: a long honest ``for`` loop spent it all, and a later
# driven generator was cut at its first resume; a twentieth, as 0.1 s of 2 s was)
_DRIVEN_FRAME_WORK = _DRIVEN_WORK // 20
_REPLAY_REPEATS = 16  # times one recording (one call with the same arguments) is kept (round 57: a fifth)
_HOLDER_NAMES = 16  # names kept for a recorded call (the replay makes it through the first the pristine binds)
_DRIVEN_HELD = 64  # objects a followed generator yielded earlier or was sent, watched for the test's changes
# Where CPython 3.11 keeps a frame's value stack: PyFrameObject's ``f_frame`` (after the refcount, the type and
# ``f_back``); in the _PyInterpreterFrame it points to, ``f_code`` (5th pointer), ``stacktop`` (an int after 8
# pointers) and ``localsplus`` (after it, aligned). At a generator's resume by ``send``, the sent value is the top
# of that stack when the trace function's "call" event runs (``TRACE_FUNCTION_ENTRY`` saves the stack pointer).
_F_FRAME, _F_CODE, _STACKTOP, _LOCALSPLUS = 24, 32, 64, 72
_POINTER_AT = ctypes.c_void_p.from_address
_INT_AT = ctypes.c_int.from_address
_INT8_AT = ctypes.c_int8.from_address
_OBJECT_AT = ctypes.py_object.from_address
_CDATA_VALUE = ctypes._SimpleCData.__dict__["value"].__get__
_EXC_ARGS = BaseException.__dict__["args"].__get__
_sys_version = tuple(sys.version_info)
_MAIN_THREAD = threading.get_ident()  # (the plugin loads in the main thread)
_TRACEBACK = types.TracebackType
_FRACTION = fractions.Fraction
_DECIMAL, _DECIMAL_STR = decimal.Decimal, decimal.Decimal.__str__
_PURE_PATH, _PURE_PATH_STR = PurePath, PurePath.__str__
_IMPORT_FIELDS = {name: ImportError.__dict__[name].__get__ for name in ("name", "path")}
_OS_FIELDS = {name: OSError.__dict__[name].__get__ for name in ("errno", "strerror", "filename", "filename2")}


def _library_class(cls) -> str | None:
    """``"module:qualname"`` of a class an installed library's module defines (the standard library or
    site-packages, not the checkout), found again under that name; None for any other."""
    module, qualname = _class_module(cls), _class_qualname(cls)
    if _type(module) is not str or _type(qualname) is not str or "<" in qualname:
        return None
    held = _namespace(_sys_modules.get(module))
    where = held.get("__file__") if held is not None else None
    if _type(where) is not str or not _realpath_cached(where).startswith(_INSTALLED):
        return None
    for part in qualname.split("."):
        held = held.get(part) if _type(held) is dict else _class_dict(held).get(part) if _is_class(held) else None
    return f"{module}:{qualname}" if held is cls else None
_PLAIN_SCALARS = frozenset({type(None), bool, int, float, str})
_object_getattribute, _lru_wrapper = object.__getattribute__, functools._lru_cache_wrapper
_class_qualname = type.__dict__["__qualname__"].__get__


class _NotData(Exception):
    pass


def _plain(value, budget: list, where=None, busy=None):
    """``value`` in the replay's tagged JSON encoding (``beacon.repair.replay_driver``'s), built from exact built-in
    types (no project code runs: no ``__eq__``, ``__iter__`` or ``__reduce__`` of a subclass) and, when ``where``
    (class -> ``[file, qualname]`` or None) names its class, an instance of a declared module's class by its own
    ``__dict__`` and slots (read through CPython's descriptors) or an enum member by name; raises :class:`_NotData`
    for anything else, a cycle, or more than the budget's values."""
    budget[0] -= 1
    _WORK[0] += 10
    if budget[0] < 0:
        raise _NotData
    kind = _type(value)
    if kind in _PLAIN_SCALARS:
        return value
    if kind is bytes:
        return {"$b": value.hex()}
    if kind is bytearray:  # (round 55: a buffer argument made the call no data)
        return {"$ba": bytes(value).hex()}
    if kind is complex:
        return {"$c": [value.real, value.imag]}
    busy = set() if busy is None else busy
    if _id(value) in busy:
        raise _NotData  # (a cycle)
    busy.add(_id(value))
    try:
        if kind is list:
            return [_plain(v, budget, where, busy) for v in list.copy(value)]
        if kind is tuple:
            return {"$t": [_plain(v, budget, where, busy) for v in value]}
        if kind is dict:
            return {"$d": [[_plain(k, budget, where, busy), _plain(v, budget, where, busy)]
                           for k, v in list(dict.items(value))]}
        if kind is set or kind is frozenset:
            items = sorted((_plain(v, budget, where, busy) for v in list(value)),
                           key=_dumps)
            return {"$s" if kind is set else "$fs": items}
        if kind is _TRACEBACK:  # (an ``__exit__``'s third argument: none in the replay, red-team round 52)
            return {"$tb": 0}
        if kind is _FRACTION:  # (by its ratio, red-team round 54's sent fractions)
            return {"$frac": [value.numerator, value.denominator]}
        if kind is _DECIMAL:
            return {"$dec": _DECIMAL_STR(value)}
        builtin = _BUILTIN_EXCEPTIONS.get(_id(kind))
        if builtin is not None and builtin[1] is kind:
            # a built-in exception (what ``__exit__`` is given when a ``with`` block raised: round 52), by its class
            # and arguments; an ``OSError``'s fields too, which its arguments do not hold (round 54's filename)
            args = _plain(list(_EXC_ARGS(value)), budget, where, busy)
            if _any(_is(base, OSError) for base in _class_mro(kind)):
                fields = [_OS_FIELDS[name](value) for name in ("errno", "strerror", "filename", "filename2")]
                # (a path object the test opened is given as its text: ``open`` reports it as it was given)
                fields = [_PURE_PATH_STR(f) if _any(_is(b, _PURE_PATH) for b in _class_mro(_type(f))) else f
                          for f in fields]
                return {"$os": builtin[0], "args": args, "fields": _plain(fields, budget, where, busy)}
            if _any(_is(base, ImportError) for base in _class_mro(kind)):  # (its ``name`` and ``path`` are no
                # arguments: round 55)
                return {"$e": builtin[0], "args": args, "kw": _plain(
                    {"name": _IMPORT_FIELDS["name"](value), "path": _IMPORT_FIELDS["path"](value)}, budget, where, busy)}
            return {"$e": builtin[0], "args": args}
        library = _library_class(kind) if _any(_is(b, BaseException) for b in _class_mro(kind)) else None
        if library is not None:  # (a library's exception, honest hunt 14's ``json.JSONDecodeError`` given to a
            # helper: by its class, arguments and attributes, made again without its ``__init__``)
            own = _instance_dict_getter(kind)
            attrs = own(value, kind) if own is not None else {}
            if _type(attrs) is not dict:
                raise _NotData
            return {"$el": library, "args": _plain(list(_EXC_ARGS(value)), budget, where, busy),
                    "attrs": _plain(dict(attrs), budget, where, busy)}
        if _class_flags(kind) & _TYPE_SUBCLASS:  # a class: a built-in exception class, one a declared module
            # defines, or one an installed library's module defines (round 54's ``json.JSONDecodeError``)
            builtin = _BUILTIN_EXCEPTIONS.get(_id(value))
            if builtin is not None and builtin[1] is value:
                return {"$kb": builtin[0]}
            if not _any(_is(base, BaseException) for base in _class_mro(value)):
                raise _NotData
            found = where(value) if where is not None else None
            if found is not None:
                return {"$k": list(found)}
            library = _library_class(value)
            if library is None:
                raise _NotData
            return {"$kl": library}
        found = where(kind) if where is not None else None
        if found is None:
            return _library_container(value, kind, budget, where, busy)
        getter = _instance_dict_getter(kind)
        own = getter(value, kind) if getter is not None else None
        if _Enum in _class_mro(kind):
            name = own.get("_name_") if _type(own) is dict else None
            if _type(name) is not str:
                raise _NotData
            return {"$n": [*found, name]}
        slots = [(name, member.__get__(value, kind)) for name, member in _slot_members(kind)
                 if _has_slot(member, value, kind)]
        if getter is not None and _type(own) is not dict:
            raise _NotData
        made = {"$o": found, "$v": {"$d": [[k, _plain(v, budget, where, busy)] for k, v in
                                           sorted(dict.items(own or {})) if _type(k) is str]},
                "$sl": {"$d": [[k, _plain(v, budget, where, busy)] for k, v in slots]}}
        if _any(_is(b, BaseException) for b in _class_mro(kind)):  # (a declared exception's arguments, which
            # ``BaseException`` holds outside its ``__dict__``)
            made["$args"] = _plain(list(_EXC_ARGS(value)), budget, where, busy)
        base = next((b for b in _class_mro(kind) if b in _VALUE_BASES), None)
        if base is not None:
            # a subclass of a value class (an int's, a NamedTuple's): its value as C holds it, which the replay
            # makes it from (round 50's ``Cents(int)`` had a ``__new__`` that needs it)
            made["$base"] = _plain(_VALUE_BASES[base](value), budget, where, busy)
            return made
        solid = next((b for b in _class_mro(kind) if not _class_flags(b) & _HEAPTYPE), object)
        if solid is dict or solid is list or solid is set:
            # a subclass of a mutable container (``Levels(dict)``): its items as C holds them, read through the
            # base type, beside its ``__dict__`` (round 55: the items were not encoded, and the replay was given
            # an empty one)
            made["$items"] = _plain(solid.copy(value), budget, where, busy)
        elif solid is not object and not _any(_is(b, BaseException) for b in _class_mro(kind)):
            raise _NotData  # (another C base, a deque's or an OrderedDict's, holds state no encoding here reads)
        return made
    finally:
        busy.discard(_id(value))


def _library_container(value, kind, budget, where, busy):
    """A library's subclass of ``dict``/``list``/``set`` that keeps nothing of its own (a ``Counter``: round 55 found
    it no data) by its class and items, read through the base type; :class:`_NotData` for any other."""
    library = _library_class(kind)
    solid = next((b for b in _class_mro(kind) if not _class_flags(b) & _HEAPTYPE), object)
    if library is None or not (solid is dict or solid is list or solid is set) or _slot_members(kind):
        raise _NotData
    getter = _instance_dict_getter(kind)
    own = getter(value, kind) if getter is not None else None
    if own:  # (state beside the items, or no plain ``__dict__``)
        raise _NotData
    return {"$lc": library, "items": _plain(solid.copy(value), budget, where, busy)}


def _scalar_arguments(code, frame) -> bool:
    """Whether every parameter of the frame holds a plain scalar (``None``, a bool, an int, a float, a str) by exact
    class."""
    try:
        local = frame.f_locals
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        return _all(_type(local[name]) in _PLAIN_SCALARS for name in names)
    except Exception:  # noqa: BLE001
        return False


_FUNC_CLOSURE = types.FunctionType.__dict__["__closure__"].__get__
_CELL_CONTENTS = types.CellType.__dict__["cell_contents"].__get__


def _same_cells(holders, code, frame) -> list:
    """The names of ``holders`` (``(name, function, bound)``) whose function is the called one as far as its frame
    shows: a closure's cells hold what the frame's free variables hold (red-team round 56: two closures of one
    factory share their code, and the test's ``reduced(1000)`` was made again as ``standard(1000)``). All of them when
    none matches (a wrapper between, no free variables)."""
    names = [held[0] for held in holders]
    free = code.co_freevars
    if not free:
        return names
    try:
        local = frame.f_locals
        values = [local[name] for name in free]
    except Exception:  # noqa: BLE001 (a free variable not bound yet)
        return names
    kept = []
    for held in holders:
        cells = _FUNC_CLOSURE(held[1]) if _type(held[1]) is types.FunctionType else None
        try:
            if cells is not None and _len(cells) == _len(values) and _all(
                    _CELL_CONTENTS(cell) is value for cell, value in zip(cells, values)):
                kept.append(held[0])
        except ValueError:  # (an empty cell)
            continue
    return kept or names


# the value classes an instance argument's class may subclass, each with the C read of such an instance's value
_VALUE_BASES = {int: int.__int__, float: float.__float__, str: str.__str__,
                bytes: lambda value: bytes.__getitem__(value, slice(None)),
                tuple: lambda value: tuple.__getitem__(value, slice(None))}


def _has_slot(member, value, kind) -> bool:
    try:
        member.__get__(value, kind)
        return True
    except AttributeError:
        return False


class _Driven:
    """A followed generator call (:meth:`_Recorder._follow`): where its recording is, what makes it again, the
    steps so far and the arguments as they were at the last one."""

    __slots__ = ("code", "index", "text", "entry", "function", "bound", "via", "args", "kwargs", "steps", "driven",
                 "awaiting", "resumes", "counted", "where", "last", "last_text", "spent", "primed", "originals",
                 "yields", "held", "reserved")

    def __init__(self, code, index, text, entry, function, bound, via, args, kwargs):
        self.code, self.index, self.text, self.entry = code, index, text, entry
        self.function, self.bound, self.via, self.args, self.kwargs = function, bound, via, args, kwargs
        self.steps: list = []
        self.driven = False  # whether a step was more than ``next`` (only then are the steps recorded)
        self.awaiting = None  # the step of a ``throw()``/``close()`` resume until its exception is known
        self.resumes = 0
        self.counted = False
        self.where = None  # class -> [file, qualname] of the declared modules' classes (for encoding)
        self.last = self.last_text = None  # the object the last resume yielded, and its encoding then
        self.spent = 0  # work spent on its steps (``_WORK``)
        self.primed = False  # its first resume was made by the kept call itself (a ``@primed`` decorator's wrapper)
        self.originals = None  # parameter name -> the object the caller gave
        self.yields = 0  # the yields seen (the key of what each yielded: "y<n>")
        # [key, object, its encoding as the generator left it] of the objects it yielded before the last one and
        # of the objects sent into it ("s<step>"), the test's later changes to which go with the next step
        # (red-team round 55: a pick record changed after the next one was yielded, a sent list changed later)
        self.held: list = []
        self.reserved = False  # the first followed call of its name: its share is kept past _DRIVEN_WORK


class _StepWatch:
    """What the recorder wants to see of one resume of a followed generator: the exception a ``throw()``/``close()``
    brought in (``thrown``, its first "exception" event) and what it yielded (its "return" event)."""

    __slots__ = ("recorder", "key", "known", "thrown")

    def __init__(self, recorder, key, known):
        self.recorder, self.key, self.known, self.thrown = recorder, key, known, None

    def returned(self, frame, value) -> None:
        if self.known is not None:
            self.recorder._yielded(self.key, self.known, frame, value)


_BUILTIN_EXCEPTIONS = {id(value): (name, value) for name, value in vars(builtins).items()
                       if isinstance(value, type) and issubclass(value, BaseException)}


def _builtin_exception(kind):
    """``["builtins", name]`` for a built-in exception class, else None."""
    known = _BUILTIN_EXCEPTIONS.get(_id(kind))
    return ["builtins", known[0]] if known is not None and known[1] is kind else None


def _argument_states(code, local, where, bound: bool, originals=None) -> list:
    """``[args, kwargs]`` (encoded): the objects the caller gave a generator (``originals``, each parameter's
    object at the first resume; else as its frame holds them), each encoded on its own (``{"$keep": 0}`` for one
    that is no data, or gone). By the caller's objects, not the frame's names: red-team round 55's ``wh =
    wh.levels`` rebound a parameter to another object. ``kwargs`` are the keyword-only ones."""
    count, kwonly = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames

    def one(name):
        try:
            value = local[name] if originals is None else originals[name]
            return _plain(value, [_REPLAY_NODES], where)
        except (_NotData, RecursionError, ValueError, TypeError, KeyError):
            return {"$keep": 0}

    return [[one(name) for name in names[int(bound):count]],
            {"$d": [[name, one(name)] for name in names[count:count + kwonly]]}]


def _watching(watch, inner):
    """A followed generator frame's local trace function for one resume: hands the first exception it sees to the
    :class:`_StepWatch` (the one a ``throw()``/``close()`` resume brought in) and the resume's end ("return": what it
    yielded), and passes every event on to ``inner`` (the oracle's own local trace function, or None)."""
    state = [inner, watch.thrown, watch]

    def local(frame, event, arg):
        if event == "exception" and state[1] is not None:
            caught, state[1] = state[1], None
            try:
                caught(arg[1])
            except Exception:  # noqa: BLE001,S110 (the recording's own failure: never the test's)
                pass
        if state[0] is not None:
            replaced = state[0](frame, event, arg)
            if replaced is not None:
                state[0] = replaced
        if event == "return" and state[2] is not None:
            ended, state[2] = state[2], None
            try:
                ended.returned(frame, arg)
            except Exception:  # noqa: BLE001,S110
                pass
        return local

    return local


class _Recorder:
    """The calls the tests make into the declared files, by the name the module holds, with arguments that are plain
    data: what :mod:`beacon.repair.replay` makes again outside the run (red-team round 25's R25-0: code that
    behaves rightly only where it detects the test run passes every check made inside it).

    A call counts when its function's file is a declared source and its caller's is not (a test, a fixture, a
    library); the name is the module-level or class-level entry that holds the called function (itself, a static
    method's, through ``__wrapped__``, or a decorator's wrapper that the name holds: what the test called). The
    arguments are encoded before the call runs, as the parameters hold them (a value that is the function's own
    default is left out, so each side of the replay uses its own default); ``self``, ``cls`` and any value that is
    not built-in data make the call not replayable (counted)."""

    def __init__(self, files, genuine=None, bound=None):
        self.files = files  # the declared sources' real paths
        self.bound = bound or {}  # real path -> the names its pristine text binds (module level, ``Class.name``)
        self.genuine = genuine  # whether a caller's code is a checkout file's own (None: not asked)
        self.item = None  # the test item whose protocol is running (set by the plugin)
        self._kept_items: dict = {}  # _ohash(item) -> item, for each item with a call kept
        self.calls: list = []
        self._seen: dict = {}  # a recording's text -> the times it was kept
        self._chars = 0
        self._per_name: dict = {}  # qualname -> its calls kept in the tests' order
        self._candidates: dict = {}  # qualname -> its calls past those that were considered for a sampled place
        self._sampled: dict = {}  # qualname -> [[keyed digest, index in calls], ...] of its sampled calls
        # the calls made through library code that is no wrapper of the def (a context manager's ``__enter__``, an
        # event loop, ``Counter.update``): [kept, their characters], kept within budgets of their own, under
        # "via " + qualname per name, so calls the edit could plant through a library hook cannot crowd out the
        # tests' own (red-team round 51)
        self._via = [0, 0]
        self._names: dict = {}  # _ohash(code) -> (code, (qualname, function) or None)
        self._classes: dict = {}  # id(class) -> (class, [file, qualname] or None)
        self._misses: dict = {}  # (id(code), via) -> its calls in a row whose arguments were not data
        self.spent = 0  # work spent encoding arguments (``_WORK``)
        # a kept generator call's frame -> how the test drives it (:class:`_Driven`), until the test item ends
        self._driven: dict = {}
        self._driven_spent = 0
        self._driven_names: set = set()  # the names of the generator calls followed so far (``_Driven.reserved``)
        self._delegates: dict = {}  # a generator's frame a followed one delegates to -> (its code, the followed key)
        self._last_kept = None  # (frame id, code, entry, text, via) of the last call kept that is no generator's
        self._first_past = 0  # names whose first call was kept past the budgets
        self._reserve_tried: dict = {}  # name -> its calls that tried to be kept past the budgets
        self.counts = {"recorded": 0, "not_data": 0, "unnamed": 0, "over": 0, "failed": 0, "not_compiled": 0,
                       "driven": 0, "steps_cut": 0}  # (and "first_past", only when a call took that way)

    def note(self, frame, spaces: dict, root: str, code=None) -> None:
        """Keep this call if a test's own code made it (``root``: the checkout's real path and a separator): its
        caller is a file of the checkout that is not a declared source (a test, a fixture, a helper). Calls made at
        import time are not the tests': the edit could choose them (red-team round 27's R27-2/3/4 spent the budget
        or planted a call whose pristine answer breaks the replay that way); but a test module's own calls while it
        is collected are (``collecting``: a value the module computes at its import; red-team round 73's b03); the
        caller must be that file's genuine code, as for any call kept. Calls made through
        library code that is no wrapper of the def are kept apart, within their own budgets, and marked ``via`` (the
        replay drops them when the pristine process cannot make them all). ``code``: the frame's code, when the caller read it already (each read of
        ``f_code`` is an audit event)."""
        code = frame.f_code if code is None else code
        real = _realpath_cached(code.co_filename)
        if real not in self.files and _generated_init(code):
            real = self._declaring_file(frame, code)  # (a dataclass's ``__init__``: round 50's field default)
        if real not in self.files or code.co_flags & _UNREPLAYED_FLAGS or code.co_name == "<module>":
            return
        if code.co_flags & _RESUMED_FLAGS and frame.f_lasti != _first_resume(code):
            # a generator's or coroutine's frame is entered again at each resume: only its first holds the call's
            # arguments as the caller gave them (round 49's generator and coroutine functions were not recorded);
            # a later one of a kept generator call is the test's next step with it (round 52)
            return self._resumed(frame, code, spaces) if self._driven else None
        if self._driven and code.co_flags & _CO_GENERATOR:
            self._delegate(frame, code)
        # Past the limits no call of this def is kept, whoever made it: said before the walk up the stack (a hot
        # loop of a changed def paid it at every call; session 38)
        item = self.item
        known = self._names.get(_ohash(code))
        if (self.spent >= _REPLAY_WORK or self._full(False) and self._full(True)) and (
                self._first_past >= _REPLAY_FIRST_PAST or known is not None and known[0] is code
                and (not known[1] or self._reserve_closed(known[1][0][0]))):
            # (a def whose name may still take the reserve for its first call goes on: red-team round 72's e05 and
            # e06 spent the encoding work, or both budgets, and the reserve was never weighed)
            self.counts["over"] += 1
            return
        if known is not None and known[0] is code and known[1] \
                and not (item is not None and self._kept_items.get(_ohash(item)) is not item) \
                and _all(self._per_name.get(name, 0) >= _REPLAY_FIRST
                         and self._candidates.get(name, 0) >= _REPLAY_CANDIDATES
                         for name in (known[1][0][0], "via " + known[1][0][0])):
            self.counts["over"] += 1
            return
        # The caller: the first frame in the checkout, past at most 8 library frames, which must then all be
        # wrappers the def's names hold (red-team round 28: ``@singledispatch`` put functools' wrapper between the
        # test and the def, and its calls went unrecorded); any other library code between them is not the test's.
        # Past _LIBRARY_FRAMES (8 before session 42: red-team round 53's argparse sub-command ``type=`` converter,
        # ten frames down, went unrecorded and uncounted) the call is no test's
        back, between = frame.f_back, []
        while back is not None and len(between) <= _LIBRARY_FRAMES:
            back_code = back.f_code  # (each read of a frame's code is an audit event: read once)
            caller = _realpath_cached(back_code.co_filename)
            if caller.startswith(root):
                break
            between.append(back_code)
            back = back.f_back
        else:
            if back is not None:
                return  # (past _LIBRARY_FRAMES)
        # A worker thread's call (a ``ThreadPoolExecutor.map`` of the def): no test frame above it, only library
        # code down to the thread's start; kept as a call through library code while a test runs (red-team round
        # 53: it went unrecorded and uncounted), within the budgets the edit's own threads could spend
        worker = back is None and between and item is not None and _get_ident() != _MAIN_THREAD
        if back is None and not worker:
            return
        if back is not None and caller in self.files:
            # (a generator a kept call of the declared file primed before returning it, as a ``@primed`` decorator's
            # wrapper does: its later resumes are the test's steps with that call, red-team round 54)
            last = self._last_kept
            if code.co_flags & _CO_GENERATOR and last is not None and frame.f_back is back and _id(back) == last[0] \
                    and back_code is last[1]:
                return self._follow(frame, code, last[2], last[3], None, False, last[4], spaces, primed=True)
            return
        if not worker and self.genuine is not None and not self.genuine(back_code):
            # (red-team round 38: the edit's functions compiled under a test file's name filled the per-name limit
            # with calls both versions answer alike, so the test's own call was never replayed)
            self.counts["not_compiled"] += 1
            return
        known = self._names.get(_ohash(code))
        if known is None or known[0] is not code:
            space = spaces.get(real)
            if space is None:  # (not found yet: no answer is kept, R27-4)
                self.counts["unnamed"] += 1
                return
            known = self._names[_ohash(code)] = (code, *self._holders(code, space, self.bound.get(real, ())))
        # Library code between the test and the def that is no wrapper the def's names hold: kept, apart (a
        # generator a ``contextlib.contextmanager`` enters, a coroutine an event loop runs, an enum's
        # ``_missing_``, ``functools.total_ordering``'s generated comparison; red-team round 51)
        via = worker or bool(between) and not _all(_id(c) in known[2] and known[2][_id(c)] is c for c in between)
        if not known[1]:
            self.counts["unnamed"] += 1
            return
        qualname, function, bound = known[1][0]
        if _type(bound) is _ClassBound:
            # a class method's or ``__new__``'s first argument is a class, no data: the call is made again through
            # the class it names (the one holding the def, or a subclass of it in a declared file)
            qualname = bound.name(frame.f_locals, code, lambda kind: self._where(kind, spaces), real)
            if qualname is None:
                self.counts["not_data"] += 1
                return
        # A test's first call is kept past the per-name limit (red-team round 39: an honest parametrized test's
        # twenty calls filled it, so the failing test's own call, forged inside the run, was never replayed)
        first = item is not None and self._kept_items.get(_ohash(item)) is not item
        bucket = "via " + qualname if via else qualname
        sampled = self._per_name.get(bucket, 0) >= _REPLAY_FIRST and not first
        # A name's first call of the tests' own is kept past the budgets (session 52: twenty honest batches of
        # 50,000 characters filled _REPLAY_CHARS, and the later call of the buggy def, tiny, was never replayed:
        # red-team round 71's e01), while it is small and few names took that way (the names are the pristine's)
        past = self._full(via) or self.spent >= _REPLAY_WORK
        reserve = past and not via and not self._reserve_closed(bucket) and self._first_past < _REPLAY_FIRST_PAST
        if reserve:  # (tried a few times at most: a call whose arguments are no data takes a try)
            self._reserve_tried[bucket] = self._reserve_tried.get(bucket, 0) + 1
        if past and not reserve or (sampled and self._candidates.get(bucket, 0) >= _REPLAY_CANDIDATES):
            self.counts["over"] += 1
            return
        missed = (_id(code), bool(via))  # (apart: round 56's eight planted ``call_soon`` calls that were no data
        # stopped the test's own calls from being encoded)
        if self._misses.get(missed, 0) >= _REPLAY_MISSES and not _scalar_arguments(code, frame):
            # (its calls were not data that often in a row: not encoded again, unless this one's arguments are all
            # plain scalars, which cost nothing to encode: red-team round 57's eight ``date`` calls before the
            # test's own call with strings)
            self.counts["not_data"] += 1
            return
        start = _WORK[0]
        try:
            args, kwargs = self._arguments(code, frame.f_locals, function, lambda kind: self._where(kind, spaces),
                                           bool(bound))
            entry = {"file": real, "name": qualname, "names": _same_cells(known[1], code, frame), "args": args,
                     "kwargs": kwargs}
            if _type(bound) is _ClassBound:  # (by the class it was called through only; the replay checks that
                # the pristine module binds that class; a ``__new__``'s call is the class's, which runs ``__init__``)
                entry.update(names=[qualname], through="class" if bound.member else "new")
            if via:  # (the replay makes such calls again only where the pristine process can make them all)
                entry["via"] = "library"
            if reserve:  # (kept past the budgets, maybe without the calls before it that set up what it reads)
                entry["past"] = True
            if "." in qualname and not bound and self._plain_method(qualname, real, spaces):
                # (its first argument is the instance: the replay leaves it out where the pristine class holds a
                # static or class method under that name, honest hunt 15's ``parse_pair`` made a method)
                entry["method"] = True
            if _loop_running():  # (made again inside an event loop of its own: honest hunt 10)
                entry["loop"] = True
            elif _generated_init(code):  # (a dataclass's: the pristine text binds the class, not the name; by its
                # ``self``'s class, which may inherit it from a base the pristine file lacks: red-team round 51)
                place = self._where(_type(frame.f_locals.get(code.co_varnames[0])), spaces)
                if place is None or place[0] != real:
                    raise _NotData
                entry.update(name=place[1] + ".__init__", names=[place[1] + ".__init__"], through="class")
            text = _dumps(entry)
        except (_NotData, RecursionError, ValueError, TypeError, KeyError):
            self.counts["not_data"] += 1
            self._misses[missed] = self._misses.get(missed, 0) + 1
            return
        finally:
            self.spent += _WORK[0] - start
        self._misses[missed] = 0
        if self._seen.get(text, 0) >= _REPLAY_REPEATS and not code.co_flags & _CO_GENERATOR:  # (a generator's call
            # is followed anew: the test may drive a second one otherwise, red-team round 54; a call made again with
            # the same arguments kept a few times: round 56's ticket counter wrong only at the second)
            return
        self._seen[text] = self._seen.get(text, 0) + 1
        if len(text) > (_VIA_CALL_CHARS if via else _REPLAY_FIRST_CHARS if reserve else _REPLAY_CALL_CHARS):
            self.counts["over"] += 1  # (one call through a library may not take its budget: round 51's 450,000
            return  # characters planted through an event loop; nor one of the test's own: round 53)
        if reserve:
            self._first_past += 1
            self.counts["first_past"] = self.counts.get("first_past", 0) + 1
        if sampled:
            self._candidates[bucket] = self._candidates.get(bucket, 0) + 1
            if not self._sample(bucket, text, via):
                return
            if item is not None:
                self._kept_items[_ohash(item)] = item
            return self._kept(frame, code, entry, text, function, bound, via, spaces)
        self._chars += len(text)
        self._per_name[bucket] = self._per_name.get(bucket, 0) + 1
        self.calls.append(text)
        self.counts["recorded"] += 1
        if via:
            self._via[0] += 1
            self._via[1] += len(text)
        if item is not None:
            self._kept_items[_ohash(item)] = item
        return self._kept(frame, code, entry, text, function, bound, via, spaces)

    def _kept(self, frame, code, entry, text, function, bound, via, spaces):
        """A call just kept: a generator's is followed; any other's is remembered, for a generator it primes."""
        if code.co_flags & _CO_GENERATOR:
            return self._follow(frame, code, entry, text, function, bound, via, spaces)
        self._last_kept = (_id(frame), code, entry, text, via)
        return None

    def _delegate(self, frame, code) -> None:
        """A generator's first resume made by a followed generator's ``yield from``: a ``throw()`` the test makes on
        the followed one reaches this one without resuming it (red-team round 54), so this one's such resumes are
        the followed one's steps."""
        outer = frame.f_back
        known = self._driven.get(_id(outer)) if outer is not None else None
        if known is not None and outer.f_code is known.code and _len(self._delegates) < _DRIVEN_FRAMES:
            self._delegates[_id(frame)] = (code, _id(outer))

    def _follow(self, frame, code, entry, text, function, bound, via, spaces, primed=False):
        """Follow a kept generator call's frame: its later resumes are the test's steps with it (red-team round 52:
        the replay drained every generator with ``next``, so what the test sent, threw in or closed early never
        reached it there, nor a ``contextmanager``'s rollback when its block raised). A :class:`_StepWatch` on the
        frame's first resume (what it yields), or None."""
        name = entry.get("name")
        first = name not in self._driven_names and _len(self._driven_names) < _REPLAY_FIRST_PAST
        if not code.co_flags & _CO_GENERATOR or _len(self._driven) >= _DRIVEN_FRAMES and not first:
            return None  # (the first of a name past the frames held at once too: round 72's e08)
        index = next((i for i in range(_len(self.calls) - 1, -1, -1) if self.calls[i] is text), None)
        if index is None:
            return None
        known = self._driven[_id(frame)] = _Driven(code, index, text, entry, function, bound, via, None, None)
        known.where = lambda kind: self._where(kind, spaces)  # noqa: E731
        local = frame.f_locals
        known.originals = {name: local[name] for name in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
                           if name in local}
        known.args = _dumps(_argument_states(code, local, known.where, bool(bound), known.originals))
        known.primed = primed
        # (the first followed call of each name keeps its own share past _DRIVEN_WORK, for _REPLAY_FIRST_PAST names:
        # session 52, twenty-one honest loops of one generator spent it all and the tracker the test then drove
        # with ``send`` was cut at its first resume, red-team round 71's e02)
        if first:
            self._driven_names.add(name)
            known.reserved = True
        return _StepWatch(self, _id(frame), known)

    def _yielded(self, key, known, frame, value) -> None:
        """A followed generator's resume ended: when it yielded an object that is no immutable data, that object
        and its encoding now, so the next resume can tell what the test did to it (a ``with`` block filling the
        transaction a ``contextmanager`` yielded, honest hunt 12)."""
        before, known.last, known.last_text = known.last, None, None
        if self._driven.get(key) is not known or _suspended(frame, known.code) is not True:
            return
        start = _WORK[0]
        known.yields += 1
        try:
            # the arguments as the generator leaves them at its yield: a difference at the next resume is the
            # test's change (its own changes are made again by the replay's generator: honest hunt 11's
            # ``__iter__`` counting ``self.current`` down is no driven generator)
            known.args = _dumps(_argument_states(known.code, frame.f_locals, known.where, bool(known.bound),
                                                 known.originals))
            if before is not None and before is not value:
                self._hold(known, f"y{known.yields - 1}", before)
            for entry in known.held:  # (as the generator leaves them at this yield)
                entry[2] = _dumps(_plain(entry[1], [_REPLAY_NODES], known.where))
            if not _immutable(value):
                known.last, known.last_text = value, _dumps(_plain(value, [_REPLAY_NODES], known.where))
        except (_NotData, RecursionError, ValueError, TypeError, KeyError):
            known.last = known.last_text = None
        finally:
            self._driven_spent += _WORK[0] - start
            known.spent += _WORK[0] - start

    @staticmethod
    def _hold(known, key, value) -> None:
        """Keep watching ``value`` (an object the generator yielded earlier, or one sent into it) for the test's
        changes, up to _DRIVEN_HELD objects a generator (each once)."""
        if _len(known.held) < _DRIVEN_HELD and not _immutable(value) \
                and not _any(_is(entry[1], value) for entry in known.held):
            known.held.append([key, value, _dumps(_plain(value, [_REPLAY_NODES], known.where))])

    def item_done(self) -> None:
        """A test item ended: the generators it made are followed no longer (an id may then be reused)."""
        self._driven.clear()
        self._delegates.clear()
        self._last_kept = None

    def _resumed(self, frame, code, spaces):
        """One later resume of a followed generator (see :meth:`_follow`): by ``next``/``send``, the step is kept
        now; by ``throw``/``close``, the returned function takes the exception thrown in (the frame's first
        "exception" event, :func:`_watching`). The arguments as the frame holds them then are kept with the step
        when they changed (the test's ``with`` block changed the dict the ``contextmanager`` yielded)."""
        key = _id(frame)
        known = self._driven.get(key)
        if known is None or known.code is not code:
            return self._delegated(frame, code, spaces)
        if self._driven_spent >= _DRIVEN_WORK and not known.reserved or known.awaiting is not None or known.resumes >= _DRIVEN_RESUMES \
                or known.spent >= _DRIVEN_FRAME_WORK or self.calls[known.index] is not known.text:
            return self._cut(key)  # (over its limits; a throw whose exception never came; sampled out)
        start = _WORK[0]
        try:
            known.resumes += 1
            where = lambda kind: self._where(kind, spaces)  # noqa: E731
            step = {}
            # the arguments as the frame holds them, each on its own (round 54: one the generator rebound to an
            # iterator made none of them data, and the test's change to another went unsynced); a change since
            # the last step, by the test or the generator, makes the steps worth recording
            states = _argument_states(code, frame.f_locals, where, bool(known.bound), known.originals)
            text = _dumps(states)
            if text != known.args:
                step["args"], known.args = states, text
                known.driven = True
            if known.last is not None:  # (the object it last yielded, as the test left it, when the test changed it)
                now = _plain(known.last, [_REPLAY_NODES], where)
                if _dumps(now) != known.last_text:
                    step["yielded"] = now
                    known.driven = True
            changed = []
            for entry in known.held:  # (objects it yielded earlier, and sent ones, as the test left them)
                now = _plain(entry[1], [_REPLAY_NODES], where)
                text = _dumps(now)
                if text != entry[2]:
                    changed.append([entry[0], now])
                    entry[2] = text
            if changed:
                step["held"] = changed
                known.driven = True
            watch = _StepWatch(self, key, known)
            if code.co_code[frame.f_lasti] != _RESUME:  # (at its ``yield``: resumed by ``throw()``/``close()``)
                known.awaiting = step
                watch.thrown = lambda exc: self._thrown(key, known, exc, where)
                return watch
            readable, value = _sent_value(frame, code)
            if not readable:
                return self._cut(key)
            if value is None:
                last = known.steps[-1] if known.steps else None
                if last is not None and last["do"] == "next" and "args" not in step and "yielded" not in step \
                        and "held" not in step:
                    last["n"] += 1  # (a run of ``next`` is one step)
                    return watch
                step.update(do="next", n=1)
            else:
                step.update(do="send", value=_plain(value, [_REPLAY_NODES], where))
                known.driven = True
                self._hold(known, f"s{_len(known.steps)}", value)  # (the step's index: _stepped appends it)
            self._stepped(key, known, step)
            return watch if self._driven.get(key) is known else None
        except (_NotData, RecursionError, ValueError, TypeError, KeyError):
            return self._cut(key)
        finally:
            self._driven_spent += _WORK[0] - start
            known.spent += _WORK[0] - start

    def _delegated(self, frame, code, spaces):
        """A resume by ``throw()`` of a generator a followed one delegates to, handed down the followed one's ``yield
        from`` without resuming it (CPython 3.11's ``_gen_throw``): the followed one's step."""
        delegate = self._delegates.get(_id(frame))
        if delegate is None or delegate[0] is not code or code.co_code[frame.f_lasti] == _RESUME:
            return None
        back = frame.f_back
        known = self._driven.get(delegate[1])
        # (CPython makes the followed frame the current one, still at its ``yield from``'s ``YIELD_VALUE``, while
        # it hands the exception down; a ``throw()`` the followed frame's own code made would stand at a call)
        if known is None or back is None or _id(back) != delegate[1] or back.f_code is not known.code \
                or known.code.co_code[back.f_lasti] != _YIELD_VALUE or known.awaiting is not None:
            return None
        known.awaiting = {}
        watch = _StepWatch(self, delegate[1], None)
        where = lambda kind: self._where(kind, spaces)  # noqa: E731

        def thrown(exc):
            if _type(exc) is GeneratorExit:  # (a close reaches the followed frame too: its own step)
                known.awaiting = None
                return
            self._thrown(delegate[1], known, exc, where)

        watch.thrown = thrown
        return watch

    def _thrown(self, key, known, exc, spaces_where) -> None:
        """The exception a ``throw()``/``close()`` resume of a followed generator was given: the step, by its class
        (a built-in one, or one a declared module defines) and arguments."""
        start = _WORK[0]
        try:
            step, known.awaiting = known.awaiting, None
            kind = _type(exc)
            if kind is GeneratorExit:
                step["do"] = "close"
            else:
                where = _builtin_exception(kind)
                if where is not None:  # (a built-in one whole, as an argument is: an ``OSError``'s file name too,
                    # which its arguments do not hold: red-team round 54)
                    step["exc"] = _plain(exc, [_REPLAY_NODES])
                if where is None:  # (a class a declared module defines, by its file and name, as ``$o`` has it,
                    # or an installed library's, by module and name, with its attributes: round 54's
                    # ``json.JSONDecodeError``, whose ``__init__`` takes more than its arguments)
                    place = spaces_where(kind)
                    library = _library_class(kind) if place is None else None
                    if place is None and library is None:
                        self._cut(key)
                        return
                    where = {"$k": list(place)} if place is not None else {"$kl": library}
                    own = _instance_dict_getter(kind)
                    attrs = own(exc, kind) if own is not None else None
                    if library is not None and _type(attrs) is dict:
                        step["attrs"] = _plain(dict(attrs), [_REPLAY_NODES], spaces_where)
                step.update({"do": "throw", "raise": where,
                             "value": _plain(list(_EXC_ARGS(exc)), [_REPLAY_NODES], spaces_where)})
            known.driven = True
            self._stepped(key, known, step)
        except (_NotData, RecursionError, ValueError, TypeError, KeyError):
            self._cut(key)
        finally:
            self._driven_spent += _WORK[0] - start

    def _stepped(self, key, known, step) -> None:
        """Keep ``step``; once the test did more than ``next`` with the generator, its call's recording holds the
        steps (``"steps"``), within the call budgets."""
        known.steps.append(step)
        if _len(known.steps) > _DRIVEN_STEPS:
            return self._cut(key)
        if not known.driven:
            return None
        text = _dumps(dict(known.entry, steps=known.steps, **({"primed": True} if known.primed else {})))
        grown = _len(text) - _len(known.text)
        # (a name's first followed call grows past _REPLAY_CHARS while at most _REPLAY_FIRST_CHARS: round 72's e07)
        full = self._chars + grown > _REPLAY_CHARS and not (known.reserved and _len(text) <= _REPLAY_FIRST_CHARS)
        if full or _len(text) > _REPLAY_CALL_CHARS or known.via and (
                self._via[1] + grown > _VIA_CHARS):  # (a call through library code grows past _VIA_CALL_CHARS with
            # its steps: round 54's transaction over 800 items)
            return self._cut(key)
        self.calls[known.index], known.text = text, text
        self._chars += grown
        if known.via:
            self._via[1] += grown
        if not known.counted:
            known.counted = True
            self.counts["driven"] += 1
        return None

    def _cut(self, key) -> None:
        """Follow that generator no further: its recording keeps the steps it has (drained as before if none was
        more than ``next``)."""
        if self._driven.pop(key, None) is not None:
            self.counts["steps_cut"] += 1
        return None

    def _declaring_file(self, frame, code) -> str | None:
        """The declared file whose module defines the class of a generated ``__init__``'s ``self`` (the class's
        holders are then searched for the code: :meth:`_holders`)."""
        if not code.co_argcount:
            return None
        first = frame.f_locals.get(code.co_varnames[0])
        kind = first if _class_flags(_type(first)) & _TYPE_SUBCLASS else _type(first)  # (``_cls`` of a ``__new__``)
        name = _class_module(kind)
        space = _namespace(_sys_modules.get(name)) if _type(name) is str else None
        where = space.get("__file__") if space is not None else None
        return _realpath_cached(where) if _type(where) is str else None

    def _reserve_closed(self, name: str) -> bool:
        """Whether a call of ``name`` can no longer be kept past the budgets: one of its calls was kept, or
        _REPLAY_FIRST_TRIES tried to be."""
        return name in self._per_name or self._reserve_tried.get(name, 0) >= _REPLAY_FIRST_TRIES

    def _full(self, via: bool) -> bool:
        """Whether the tests' own calls' budgets (or, ``via``, those of the calls made through library code) are
        spent."""
        if via:
            return self._via[0] >= _VIA_CALLS or self._via[1] >= _VIA_CHARS
        return len(self.calls) - self._via[0] >= _REPLAY_CALLS or self._chars - self._via[1] >= _REPLAY_CHARS

    def _sample(self, qualname: str, text: str, via: bool = False) -> bool:
        """Keep ``text``, a call of ``qualname`` past its first ones, if its keyed digest is among the smallest
        ``_REPLAY_PER_NAME - _REPLAY_FIRST`` of the name's so far (it takes the place of the largest); False when it
        is not kept. Either way the counts add up as a kept call and one over the limit."""
        digest = _sha256(_SAMPLE_KEY[0] + text.encode("utf-8", "surrogatepass")).digest()
        slots = self._sampled.setdefault(qualname, [])
        if len(slots) < _REPLAY_PER_NAME - _REPLAY_FIRST:
            slots.append([digest, len(self.calls)])
            self.calls.append(text)
            self._chars += len(text)
            self.counts["recorded"] += 1
            if via:
                self._via[0] += 1
                self._via[1] += len(text)
            return True
        worst = max(slots)
        self.counts["over"] += 1
        if digest >= worst[0]:
            return False
        self._chars += len(text) - len(self.calls[worst[1]])
        if via:
            self._via[1] += len(text) - len(self.calls[worst[1]])
        self.calls[worst[1]] = text  # (in the place of the call it replaces)
        worst[0] = digest
        return True

    @staticmethod
    def _holders(code, space, bound=()) -> tuple[list, dict]:
        """``(qualname, function, bound)`` of every module-level or class-level entry whose function is ``code``'s:
        itself, a static method's, through ``__wrapped__``, or a bound method's (``bound``: its ``self`` is not the
        test's argument); and the codes of the Python wrappers met on the way (id -> code), whose frames may stand
        between a test and the def. All of them, so the harness can call a name the pristine module binds too
        (red-team round 27's R27-1: ``_clamp = clamp`` placed before ``clamp``). Through a ``functools.partial``
        that binds no arguments (it calls its function with the test's own; red-team round 28: ``clamp =
        partial(_clamp)`` left only the name ``_clamp``, which the pristine module lacks); not one that binds some
        (its own arguments are not the test's) or a class method (its first argument is the class)."""
        found, wrappers = [], {}
        holders = [("", space, None)]
        for prefix, entries, _ in holders:  # (classes nested in classes too, three deep: round 49's Stock.Line)
            if prefix.count(".") >= 3 or len(holders) > 2000:
                continue
            holders += [(prefix + name + ".", _class_dict(value), value) for name, value in list(entries.items())[:2000]
                        if _class_flags(_type(value)) & _TYPE_SUBCLASS and _type(name) is str
                        and (not prefix or _class_qualname(value) == prefix + name)]
        for prefix, entries, holder in holders:
            for name, value in list(entries.items()):
                if _type(name) is not str or not name.isidentifier():
                    continue
                kinds = _class_mro(_type(value))
                if prefix and (classmethod in kinds or name == "__new__" and staticmethod in kinds):
                    # its first argument is the class (round 49's alternate constructor, round 50's ``__new__``):
                    # made again as ``Class.name(...)``, a ``__new__`` as ``Class(...)``; a subclass of classmethod
                    # too (round 51), read through the base's own member
                    function = _STATIC_FUNC[classmethod in kinds](value)
                    if type(function) is types.FunctionType and _func_code(function) is code:
                        member = "" if name == "__new__" else name
                        found.append((prefix + name, function, _ClassBound(holder, member)))
                    continue
                setter = _PROPERTY_FSET(value) if prefix and property in kinds else None
                if _type(setter) is staticmethod:  # (a static method as a setter: round 51)
                    setter = _STATIC_FUNC[False](setter)
                if type(setter) is types.FunctionType and _func_code(setter) is code:
                    # an assignment through a property's setter (round 50; a property subclass's, round 51): made
                    # again as ``Class.name.fset(obj, value)``, and the object compared afterwards
                    found.append((prefix + name + ".fset", setter, False))
                    continue
                deleter = _PROPERTY_FDEL(value) if prefix and property in kinds else None
                if _type(deleter) is staticmethod:
                    deleter = _STATIC_FUNC[False](deleter)
                if type(deleter) is types.FunctionType and _func_code(deleter) is code:
                    # a ``del obj.name`` through a property's deleter (red-team round 56): ``Class.name.fdel(obj)``
                    found.append((prefix + name + ".fdel", deleter, False))
                    continue
                if prefix and property in kinds and _type(value) is not property:
                    getter = _PROPERTY_FGET(value)  # (a property subclass's getter: read through the base's member)
                    if type(getter) is types.FunctionType and _func_code(getter) is code:
                        found.append((prefix + name, getter, False))
                        continue
                if prefix and _type(value) is _CACHED_PROPERTY and type(value.func) is types.FunctionType \
                        and _func_code(value.func) is code:
                    # a ``cached_property``'s getter, run by its ``__get__`` (round 50): made again as
                    # ``Class.name.func(obj)``
                    found.append((prefix + name + ".func", value.func, False))
                    wrappers[_id(_CACHED_GET)] = _CACHED_GET
                    continue
                function, depth, met = value, 0, []
                while _type(function) is _partial and depth < 8:  # (exactly partial: its members run no code)
                    function = function.func if not function.args and not function.keywords else None
                    depth += 1
                function = _unwrapped(function) if function is not None else None
                registry = _func_dict(function).get("registry") if type(function) is types.FunctionType else None
                if _type(registry) is types.MappingProxyType and _type(_func_dict(function).get("dispatch")) \
                        is types.FunctionType:
                    # a ``functools.singledispatch`` function: an implementation registered under another name
                    # (``_``) is made again through it, with the same arguments (round 50)
                    held = [f for f in list(types.MappingProxyType.values(registry))[:64]
                            if type(f) is types.FunctionType and _func_code(f) is code and f is not
                            _func_dict(function).get("__wrapped__")]
                    if held:
                        found.append((prefix + name, held[0], False))
                        wrappers[_id(_func_code(function))] = _func_code(function)
                        continue
                while depth < 8 and function is not None:
                    if type(function) is types.FunctionType and _func_code(function) is code:
                        found.append((prefix + name, function, _type(value) is types.MethodType))
                        for wrapper in met:
                            wrappers[_id(wrapper)] = wrapper
                        break
                    if type(function) is types.FunctionType:
                        met.append(_func_code(function))
                    # ``__wrapped__`` read from a Python function's or an ``lru_cache`` wrapper's own dict only: no
                    # descriptor of a project class runs
                    own = _func_dict(function) if type(function) is types.FunctionType else (
                        _object_getattribute(function, "__dict__") if type(function) is _lru_wrapper else None)
                    function = own.get("__wrapped__") if _type(own) is dict else None
                    depth += 1
                if len(found) >= 64:
                    break
            if len(found) >= 64:
                break
        # A module-level def's own name first (red-team round 50: the edit rebound an earlier name the pristine
        # module binds, ``net = gross``, and the test's ``gross()`` was made again as ``net()`` on both sides, which
        # agreed); a method's stays after the module's names (R27-5: a name holding a bound method of the edit's
        # object is what the test called, and its ``self`` is no data)
        if "." not in code.co_qualname:  # (then public names: a test calls those; round 56 named the def ``_units``
            # and bound seven private aliases of it ahead of ``units``, the name the test called)
            found.sort(key=lambda held: (held[0] != code.co_qualname, held[0].startswith("_")))
        if len(found) > _HOLDER_NAMES:
            # The def's own name and the names the pristine text binds are kept past the cut, in their order
            # (red-team round 58: sixteen module-level aliases of ``Stock.price``, or fifteen public ones bound
            # ahead of ``price = _priced``, pushed every name the pristine module binds past it, and the call was
            # never replayed)
            first = [i for i, held in enumerate(found) if held[0] == code.co_qualname or held[0] in bound or (
                held[0].endswith((".fset", ".fdel", ".func")) and held[0][:-5] in bound)][:_HOLDER_NAMES]
            rest = [i for i in range(len(found)) if i not in first][:_HOLDER_NAMES - len(first)]
            found = [found[i] for i in sorted(first + rest)]
        return found[:_HOLDER_NAMES], wrappers  # (sorted before the cut)

    @staticmethod
    def _plain_method(qualname: str, real: str, spaces: dict) -> bool:
        """Whether the class at ``qualname``'s scope in the declared module holds a plain function under its name."""
        space = spaces.get(real)
        scope, _, name = qualname.rpartition(".")
        holder = _found_at(space, scope) if _type(space) is dict else None
        return holder is not None and _type(_class_dict(holder).get(name)) is types.FunctionType

    def _where(self, kind, spaces: dict):
        """``[file, qualname]`` of a class defined at the top of a declared module (or in a class there), found under
        that name now; None for any other class."""
        known = self._classes.get(_id(kind))
        if known is not None and known[0] is kind:
            return known[1]
        found = None
        if _class_flags(kind) & _HEAPTYPE:
            module = _sys_modules.get(_class_module(kind)) if _type(_class_module(kind)) is str else None
            space = _namespace(module)
            real = next((path for path, held in spaces.items() if held is space), None) if space is not None else None
            qualname = _class_qualname(kind)
            if real is not None and _type(qualname) is str and "<" not in qualname:
                holder = space
                for part in qualname.split("."):
                    holder = holder.get(part) if _type(holder) is dict else (
                        _class_dict(holder).get(part) if _class_flags(_type(holder)) & _TYPE_SUBCLASS else None)
                found = [real, qualname] if holder is kind else None
        self._classes[_id(kind)] = (kind, found)
        return found

    @staticmethod
    def _arguments(code, local, function, where=None, bound: bool = False):
        """The positional and keyword arguments that make this call again, encoded (``where``: see :func:`_plain`;
        ``bound``: the first parameter is a bound method's ``self``, not the test's). Positional parameters stay
        positional (red-team round 27's FP27-2: turning later ones into keywords broke a rename); a trailing run of
        them that hold the function's own default objects is marked ``$dflt``: each side of the replay leaves such
        an argument to its own default where its function has one, and passes it where it has none (the test then
        passed it: the pristine tests call pristine code); such a default that is no data is sent as
        ``{"$nodata": 0}`` (a side that must pass it cannot make the call). Keyword-only ones at their default are
        left out."""
        budget = [_REPLAY_NODES]
        count, kwonly, flags = code.co_argcount, code.co_kwonlyargcount, code.co_flags
        names = code.co_varnames
        defaults = (_func_defaults(function) or ()) if type(function) is types.FunctionType else ()
        kwdefaults = (_func_kwdefaults(function) or {}) if type(function) is types.FunctionType else {}
        own = dict(zip(names[count - len(defaults):count], defaults))
        positional = list(names[int(bound):count])
        trailing = 0  # the last parameters that hold the function's own default objects
        if not flags & 0x04:
            while trailing < len(positional) and positional[-1 - trailing] in own \
                    and local[positional[-1 - trailing]] is own[positional[-1 - trailing]]:
                trailing += 1
        cut = len(positional) - trailing
        args = [_plain(local[name], budget, where) for name in positional[:cut]]
        for name in positional[cut:]:
            try:
                value = _plain(local[name], budget, where)
            except _NotData:  # a default that is no data (red-team round 28: an edit's ``_below=min`` made every
                value = {"$nodata": 0}  # call unrecordable): only a side without that default cannot make the call
            args.append({"$dflt": value})
        if flags & 0x04:
            star = local[names[count + kwonly]]
            if _type(star) is not tuple:
                raise _NotData
            args += [_plain(v, budget, where) for v in star]
        kwargs = []
        for name in names[count:count + kwonly]:
            value = local[name]
            if name in kwdefaults and value is kwdefaults[name]:
                continue
            kwargs.append([name, _plain(value, budget, where)])
        if flags & 0x08:
            extra = local[names[count + kwonly + bool(flags & 0x04)]]
            if _type(extra) is not dict:
                raise _NotData
            kwargs += [[k, _plain(v, budget, where)] for k, v in list(dict.items(extra))]
        if _any(_type(k) is not str for k, _ in kwargs):
            raise _NotData
        return args, {"$d": kwargs}

    def evidence(self) -> dict:
        return dict(self.counts)


def _data_differences(one, other, mine: set, added=frozenset(), before=None) -> list:
    """Where the declared modules' containers the pristine file binds, the names it binds, and the objects held from
    earlier calls (ids in ``mine``) differ between two saved states (their shallow contents). A container a name held
    in ``before`` that the name holds no more in either state is compared as what the names hold now, not as itself
    (session 38's FP42-S: ``global _log; _log = _log + [x]`` left the old list as it was where the pristine
    ``_log.append(x)`` filled it)."""
    left = _rebound_containers(one, other, before) if before is not None else ()
    if left:  # (what each state's names hold: such a container as that state's copy of it, not as it is now)
        real_of = {_id(c): a for c, base, a in one if base in _SAVED_KINDS}
        pristine_of = {_id(c): b for c, base, b in other if base in _SAVED_KINDS}
    out = []
    held_now = _names_values(one) if left else []
    gone = set(left)  # (objects a name let go of, and what they held: compared as the names' values, above)
    for (container, base, a), (_, _, b), (_, _, was) in zip(one, other, before or _repeat((None, None, None))):
        if base is _Nested and (_id(container.parent) in gone or not (
                _still_held(container, one) and _still_held(container, other))):
            gone.add(_id(container.item))
            continue
        if _id(container) in mine and _id(container) in left and base is not _Names \
                and not _any(_map(_is, held_now, _repeat(container))):
            # the real call let go of it: it must leave it as it was (red-team round 42's F5 rebound ``_SCALE``
            # and emptied the old dict, which a def's default still held)
            out += _differences(a, was, (_data_label(container, base, a),), _PLACES, added)
            continue
        if _id(container) not in mine or _id(container) in left:
            continue
        if base is _Attrs:  # (each attribute by its saved contents: one side's rebound list is compared by its copy)
            a, b = _comparable(a), _comparable(b)
        elif base is _Library and _id(_state_class(_type(container))[0]) in _WEAK_KINDS:
            a, b = _weak_comparable(container, a), _weak_comparable(container, b)
        if left and base is _Names:
            # (a name one side rebound to a new deque, OrderedDict, StringIO or object: that object as its saved
            # form too, so both sides compare as the same kind of thing; honest hunt 18's ``_log = deque()`` for
            # ``_log.clear()``)
            a = {k: _comparable(real_of.get(_id(v), v) if _id(v) in left else _as_saved(v)) for k, v in a.items()}
            b = {k: _comparable(pristine_of.get(_id(v), v) if _id(v) in left else _as_saved(v))
                 for k, v in b.items()}
        out += _differences(a, b, (_data_label(container, base, a),), _PLACES, added)
    return out


def _weak_comparable(container, state) -> list:
    """A weak registry's saved state as compared: a ``WeakKeyDictionary``'s values and a ``WeakValueDictionary``'s
    keys in the order they were put there (the same on both sides: the other half are the pristine call's copies),
    a ``WeakSet`` by its size (its order is its items' ids'). Red-team round 61 kept a wrong value under a key and
    a value under a wrong key when only the sizes were compared."""
    kind = _state_class(_type(container))[0]
    if kind is weakref.WeakKeyDictionary:
        return [value for _, value in state[1]]
    if kind is weakref.WeakValueDictionary:
        return [key for key, _ in state[1]]
    return [state[0]]


def _names_values(state) -> list:
    """Every value the ``_Names`` entries of a saved state hold."""
    return [v for _, base, held in state if base is _Names for v in held.values()]


def _as_saved(value):
    """A library object or an instance as ``_Library``/``_Attrs`` save it (anything else as it is)."""
    kind = _type(value)
    if _state_class(kind) is not None:
        return _Library.copy(value)
    if _container_base(kind) is None and (_class_flags(kind) & _HEAPTYPE or _id(kind) in _ATTRS_LIBRARY) \
            and not _class_flags(kind) & _TYPE_SUBCLASS and _type(_attrs_dict(value)) is dict:
        return _Attrs.copy(value)
    return value


def _comparable(saved):
    """An ``_Attrs`` copy with each attribute as its saved contents where it has them (its live object holds what
    the last put-back left, not what the call left: an object one side rebound is compared by its copy)."""
    if _type(saved) is dict and saved.keys() == {"attributes", "slots"}:
        return {part: {k: (c if c is not None else v) for k, (v, c) in items.items()} for part, items in saved.items()}
    return saved


def _still_held(ref, state) -> bool:
    """Whether the saved ``state`` of a nested object's parent still holds it (by identity)."""
    for container, base, held in state:
        if (container is ref.parent) or (base is _Nested and container.item is ref.parent):
            if _type(held) is dict and held.keys() >= {"attributes", "slots"}:  # (an ``_Attrs`` copy)
                parts = [v for part in held.values() for v, _ in part.values()]
            elif _type(held) is dict:
                parts = list(held.values())
            elif _type(held) in (list, set, tuple):
                parts = list(held)
            else:
                parts = []
            return _any(_map(_is, parts, _repeat(ref.item)))
    return False


def _rebound_containers(one, other, before) -> set:
    """The ids of the lists, dicts and sets the names in ``before``'s ``_Names`` entries held that those names hold
    no more in ``one`` or in ``other`` (the three are aligned: the same containers in the same order)."""
    out = set()
    saved = {_id(c) for c, base, _ in before if base in _SAVED_KINDS}
    for i, (_, base, held) in enumerate(before):
        if base is not _Names:
            continue
        for name, value in held.items():
            if _id(value) in saved and (
                    one[i][2].get(name, _ABSENT) is not value or other[i][2].get(name, _ABSENT) is not value):
                out.add(_id(value))
    return out


def _data_label(container, base, contents) -> str:
    if base is _Names:
        return "module data (names)"
    if base is _Held:
        return "an object the tests hold (an earlier checked call's argument or result, or a test's local)"
    if base is _Attrs:
        return f"module data (a {_class_name(_type(container))}'s attributes)"
    if base is _Rebound:
        return f"module data ({container.name}, a count)"
    if base is _Nested:
        return f"module data (a {_class_name(_type(container.item))} inside)"
    return f"module data ({_class_name(_type(container))} of {len(contents)})"


class _Held:
    """The base of a held object's attributes (a :class:`_HeldView`) in a saved state: each attribute with, for a
    list, dict or set, its contents too (round 18's R18-4: ``earlier.values[:] = …`` changes no attribute of the
    object)."""

    @staticmethod
    def copy(view) -> dict:
        return {part: {key: (value, view.contents(value)) for key, value in items}
                for part, items in (("attributes", view.attributes()), ("slots", view.slot_values()))}

    @staticmethod
    def put(view, held: dict) -> None:
        view.put({key: value for key, (value, _) in held["attributes"].items()},
                 {key: value for key, (value, _) in held["slots"].items()})
        for part in held.values():
            for value, contents in part.values():
                if contents is not None:
                    _restore([(value, _Library if _state_class(_type(value)) is not None
                               else _container_base(_type(value)), contents)])


class _HeldView:
    """A held object's attributes: its instance ``__dict__``'s items and the ``__slots__`` members its project
    classes declare (round 18's R18-5), read and put back through CPython's descriptors (no project code runs). A
    list, dict or set attribute has its contents saved too, unless the checked call's arguments reach it (``reach``:
    the arguments' copies compare it; a set two ``_ComplementSet`` objects share) or it holds more than
    _COPY_NODES items (red-team round 19's FP19-6: a copy per checked call; it is compared by identity then)."""

    __slots__ = ("item", "own", "members", "reach")

    def __init__(self, item, own, members, reach):
        self.item, self.own, self.members, self.reach = item, own, members, reach

    def attributes(self) -> list:
        return list(dict.items(self.own)) if self.own is not None else []

    def slot_values(self) -> list:
        return [(name, value) for name, member in self.members
                if (value := _read(member.__get__, self.item)) is not _ABSENT]

    def contents(self, value):
        if _state_class(_type(value)) is not None:  # (a ``queue.Queue``'s ``deque``: hunt 16's family A)
            if _id(value) in self.reach:
                return None
            return _Library.copy(value)
        base = _container_base(_type(value))
        if (base is list or base is dict or base is set) and _id(value) not in self.reach \
                and _len(value) <= _COPY_NODES:
            return base.copy(value)
        return None

    def put(self, attributes: dict, slots: dict) -> None:
        if self.own is not None:
            dict.clear(self.own)
            dict.update(self.own, attributes)
        for name, member in self.members:  # (only members that moved: round 19's FP19-1)
            now = _read(member.__get__, self.item)
            if name in slots and now is not slots[name]:
                member.__set__(self.item, slots[name])
            elif name not in slots and now is not _ABSENT:
                member.__delete__(self.item)


def _slot_members(cls) -> tuple:
    """``(name, member descriptor)`` for each member of the classes in ``cls``'s MRO that declare ``__slots__`` in a
    class statement (only those: a C base's members, ``functools.partial``'s read-only ``func`` or ``args``, are its
    own business, and ``partial`` is a heap type too; round 19's FP19-1), cached per class."""
    found = _SLOT_MEMBERS.get(_id(cls))
    if found is None or found[0] is not cls:
        found = _SLOT_MEMBERS[_id(cls)] = (cls, tuple(
            (name, value) for klass in _class_mro(cls)[:-1] if "__slots__" in _class_dict(klass)
            for name, value in _class_dict(klass).items() if _type(value) is types.MemberDescriptorType))
    return found[1]


_SLOT_MEMBERS: dict = {}


class _Names:
    """Names a module namespace or a class binds (the pristine file's data names): what they hold is taken and put
    back as a container's contents are."""

    __slots__ = ("holder", "names")

    def __init__(self, holder, names):
        self.holder, self.names = holder, names

    def take(self) -> dict:
        own = self.holder if _type(self.holder) is dict else _class_dict(self.holder)
        return {name: own.get(name, _ABSENT) for name in self.names}

    def put(self, held: dict) -> None:
        for name, value in held.items():
            if _type(self.holder) is dict:
                if value is _ABSENT:
                    dict.pop(self.holder, name, None)
                elif dict.get(self.holder, name, _ABSENT) is not value:
                    dict.__setitem__(self.holder, name, value)
            elif _class_dict(self.holder).get(name, _ABSENT) is not value:
                if value is _ABSENT:
                    type.__delattr__(self.holder, name)
                else:
                    type.__setattr__(self.holder, name, value)

    @staticmethod
    def copy(bindings) -> dict:
        return bindings.take()

    @staticmethod
    def after(bindings, bound: dict) -> dict:
        """What the names hold after a pristine call: what the call bound (``_Oracle.bound_by_call``) where the
        oracle's swap had set the name and has since put the live value back, else what they hold."""
        held = bindings.take()
        key = _id(bindings.holder)
        for name in held:
            if (key, name) in bound:
                held[name] = bound[(key, name)]
        return held


class _Generator:
    """A ``random.Random``'s state (C's, and ``gauss``'s spare value), saved and put back like a container's contents:
    the pristine call starts from the state the real call started from, and the real call's state is back afterwards
    (helper 139's honest hunt: a test that seeds the shared generator and a def that draws from it; the pristine call
    drew too, so the test's next numbers, and the pristine answer, were others)."""

    @staticmethod
    def copy(generator) -> tuple:
        own = _object_dict(generator)
        return _RANDOM_GETSTATE(generator), own.get("gauss_next") if _type(own) is dict else None

    @staticmethod
    def put(generator, state: tuple) -> None:
        _RANDOM_SETSTATE(generator, state[0])
        own = _object_dict(generator)
        if _type(own) is dict and "gauss_next" in own:
            own["gauss_next"] = state[1]


_RANDOM_GETSTATE, _RANDOM_SETSTATE = _random.Random.getstate, _random.Random.setstate


def _nowhere(stream):
    """A text stream the pristine call's output goes to instead of ``stream``: with a binary ``buffer`` under it
    (red-team round 58's honest ``sys.stdout.buffer.write``: a ``StringIO`` has none, and the pristine call raised),
    in ``stream``'s encoding and error handler (read through the text layer's own descriptors), else UTF-8."""
    encoding, errors = "utf-8", "strict"
    if _any(_map(_is, _class_mro(_type(stream)), _repeat(io.TextIOWrapper))):  # (by the MRO: no ``__class__``)
        encoding, errors = _TEXT_ENCODING(stream), _TEXT_ERRORS(stream)
    try:
        return io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors=errors, newline="", write_through=True)
    except (LookupError, TypeError, ValueError):
        return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="", write_through=True)


_TEXT_ENCODING = io.TextIOWrapper.encoding.__get__
_TEXT_ERRORS = io.TextIOWrapper.errors.__get__


def _library_state_table() -> dict:
    """id(class) -> ``(class, copy, put)`` for Python's own stateful classes whose state is neither a list's, a
    dict's nor a set's contents, nor an instance ``__dict__``: saved as a plain value, put back in place through the
    class's own C methods (no project code runs, the object stays the one the module and the test hold). An
    ``OrderedDict`` is here, ahead of its ``dict`` base: ``dict.update`` would skip its order."""
    import array
    import collections
    import contextvars
    import weakref

    def od_put(value, items):
        collections.OrderedDict.clear(value)
        for key, item in items:
            collections.OrderedDict.__setitem__(value, key, item)

    def deque_put(value, items):
        collections.deque.clear(value)
        collections.deque.extend(value, items)

    def weak_set_put(value, state):
        weakref.WeakSet.clear(value)
        for item in state[1]:
            weakref.WeakSet.add(value, item)

    def weak_dict_put(cls):
        def put(value, state):
            cls.clear(value)
            for key, item in state[1]:
                cls.__setitem__(value, key, item)
        return put

    table = {
        collections.deque: (lambda v: list(collections.deque.__iter__(v)), deque_put),
        # (a weak registry: its items, held strongly while the check lasts, compared as ``_weak_comparable`` says:
        # the pristine call's are copies. The pristine call, made first, registered the copies it was given, which
        # the real call then counted: honest hunt 17's ``c163`` live sessions)
        weakref.WeakSet: (lambda v: (weakref.WeakSet.__len__(v), list(weakref.WeakSet.__iter__(v))), weak_set_put),
        weakref.WeakKeyDictionary: (lambda v: (weakref.WeakKeyDictionary.__len__(v),
                                               list(weakref.WeakKeyDictionary.items(v))),
                                    weak_dict_put(weakref.WeakKeyDictionary)),
        weakref.WeakValueDictionary: (lambda v: (weakref.WeakValueDictionary.__len__(v),
                                                 list(weakref.WeakValueDictionary.items(v))),
                                      weak_dict_put(weakref.WeakValueDictionary)),
        collections.OrderedDict: (lambda v: list(collections.OrderedDict.items(v)), od_put),
        array.array: (lambda v: (array.array.tobytes(v),),
                      lambda v, s: array.array.__setitem__(v, slice(None), array.array(v.typecode, s[0]))),
        bytearray: (bytes, lambda v, s: bytearray.__setitem__(v, slice(None), s)),
        io.StringIO: (io.StringIO.__getstate__, io.StringIO.__setstate__),
        io.BytesIO: (io.BytesIO.__getstate__, io.BytesIO.__setstate__),
        # (a ``ContextVar``'s value in the running context; one never set stays unset: red-team round 59's user
        # set wrong, which the pristine call's ``set`` overwrote before the test read it)
        contextvars.ContextVar: (lambda v: (contextvars.ContextVar.get(v, _ABSENT),),
                                 lambda v, s: s[0] is _ABSENT or contextvars.ContextVar.set(v, s[0])),
    }
    return {id(cls): (cls, *ops) for cls, ops in table.items()}


_LIBRARY_STATE = _library_state_table()
_WEAK_KINDS = frozenset(_id(c) for c in (weakref.WeakSet, weakref.WeakKeyDictionary, weakref.WeakValueDictionary))


def _state_class(cls):
    """The class of ``_LIBRARY_STATE`` that ``cls`` is or derives from, or None."""
    for base in _class_mro(cls):
        found = _LIBRARY_STATE.get(_id(base))
        if found is not None and found[0] is base:
            return found
    return None


class _Library:
    """A library object's state (a ``deque``, an ``OrderedDict``, an ``array``, a ``bytearray``, a ``StringIO``)
    that a name of the pristine file holds, saved and put back like a container's contents (honest hunt 16's family
    A: a module-level work queue; the pristine call popped a second job, so the test's own next ``take()`` got
    another)."""

    @staticmethod
    def copy(value):
        try:
            return _state_class(_type(value))[1](value)
        except (ValueError, TypeError):  # (a closed StringIO: "closed", compared as such)
            return "closed"

    @staticmethod
    def put(value, state) -> None:
        if state == "closed":
            return
        try:
            _state_class(_type(value))[2](value, state)
        except (ValueError, BufferError, TypeError, OverflowError):
            pass  # (a closed StringIO, a BytesIO with a buffer out: left as it is)


class _Attrs:
    """An object a name of the pristine file holds at module or class level whose state is its instance attributes
    (a project class's instance, a ``SimpleNamespace``, a ``ChainMap``, a ``queue.Queue``): its ``__dict__`` and
    project ``__slots__``, with the contents of the lists, dicts, sets and library objects they hold, saved and put
    back like a container's contents (hunt 16's family A; ``stats.hits += 1`` on a module-level instance was counted
    twice, once by the pristine call)."""

    @staticmethod
    def view(item) -> _HeldView:
        own = _attrs_dict(item)
        return _HeldView(item, own if _type(own) is dict else None, _slot_members(_type(item)), ())

    @staticmethod
    def copy(item) -> dict:
        held = _Held.copy(_Attrs.view(item))
        for name in _cached_names(_type(item)):  # (a cache: neither compared nor taken away, hunt 18's total)
            held["attributes"].pop(name, None)
        return held

    @staticmethod
    def put(item, held: dict) -> None:
        view = _Attrs.view(item)
        cached = _cached_names(_type(item))
        if cached and view.own is not None:  # (what the caches hold now stays)
            held = {**held, "attributes": {**held["attributes"], **{
                name: (value, None) for name, value in dict.items(view.own) if name in cached}}}
        _Held.put(view, held)


def _cached_names(kind) -> frozenset:
    """The names a class's MRO holds a ``functools.cached_property`` under."""
    return frozenset(name for cls in _class_mro(kind) for name, value in list(_class_dict(cls).items())[:500]
                     if _type(value) is _CACHED_PROPERTY)


def _has_attributes(value, classes) -> bool:
    """Whether ``value`` is an instance whose state ``_Attrs`` saves: of a class the declared modules bind (or a
    subclass of one; ``classes``: their ids) or of one of _ATTRS_LIBRARY, with a CPython ``__dict__`` of at most
    _ATTRS_MOST items or ``__slots__`` members. Other library objects are not (a ``logging.Logger``'s level cache
    fills as it is used: warnings and log records are no evidence, session 37's policy; a thread, a lock)."""
    kind = _type(value)
    mro = _class_mro(kind)
    if _class_flags(kind) & _TYPE_SUBCLASS or not (
            _id(kind) in _ATTRS_LIBRARY or _any(_id(base) in classes for base in mro[:-1])):
        return False
    if _any(_type(m) is str and (m == "logging" or m.startswith("logging.")) for m in map(_class_module, mro)):
        return False  # (a project's log handler or filter: the pristine call's records are dropped, hunt 18)
    own = _attrs_dict(value)
    if _type(own) is dict:
        return _len(own) <= _ATTRS_MOST
    return bool(_slot_members(kind))


def _attrs_dict(item):
    """An instance's ``__dict__`` through CPython's own descriptor (a ``SimpleNamespace``'s is a C member), or
    None."""
    kind = _type(item)
    if kind is types.SimpleNamespace:
        return _NAMESPACE_DICT(item, kind)
    getter = _instance_dict_getter(kind)
    return getter(item, kind) if getter is not None else None


_NAMESPACE_DICT = types.SimpleNamespace.__dict__["__dict__"].__get__


_ATTRS_MOST = 256
_SAVED_KINDS = (list, dict, set, _Library, _Attrs)


def _attrs_library() -> dict:
    """id(class) -> class: Python's own classes whose instances' state is their attributes and that a module keeps
    as data (a namespace of counters, layered settings, a work queue)."""
    import argparse
    import collections
    import queue
    return {_id(cls): cls for cls in (types.SimpleNamespace, argparse.Namespace, collections.ChainMap,
                                      collections.UserDict, collections.UserList, queue.Queue, queue.LifoQueue,
                                      queue.PriorityQueue)}


_ATTRS_LIBRARY = _attrs_library()


def _saved_kind(value, classes=frozenset()):
    """How the oracle saves and puts back what a data name's value holds: ``list``, ``dict``, ``set`` (its
    contents), ``_Library``, ``_Attrs`` (``classes``: see :func:`_has_attributes`), or None (nothing it saves:
    immutable, or a state it cannot read or does not weigh)."""
    kind = _type(value)
    if _state_class(kind) is not None:
        return _Library
    base = _container_base(kind)
    if base is list or base is dict or base is set:
        return base
    if base is None and _has_attributes(value, classes):
        return _Attrs
    return None


def _declared_classes(spaces) -> set:
    """The ids of the classes the declared modules' namespaces bind."""
    return {_id(v) for space in spaces for v in list(dict.values(space))[:2000]
            if _class_flags(_type(v)) & _TYPE_SUBCLASS}


class _Binding:
    """One name a module namespace or class binds, for ``_Rebound``."""

    __slots__ = ("holder", "name")

    def __init__(self, holder, name):
        self.holder, self.name = holder, name

    def get(self):
        own = self.holder if _type(self.holder) is dict else _class_dict(self.holder)
        return own.get(self.name, _ABSENT)

    def set(self, value) -> None:
        if _type(self.holder) is dict:
            dict.__setitem__(self.holder, self.name, value)
        else:
            type.__setattr__(self.holder, self.name, value)


class _Rebound:
    """An ``itertools.count`` a data name holds: C keeps its number where nothing can set it, so the pristine call
    is given a fresh ``count`` at the number the real call started from, under the name, and the name gets the real
    one back afterwards (``_Names`` comes first in a saved state). Its state is ``(number, step)`` (hunt 16: a
    module-level ``count(1)`` of order numbers, which the pristine call advanced as well)."""

    @staticmethod
    def copy(binding):
        count, bound = _count_of(binding.get())
        return (_COUNT_REDUCE(count)[1], bound) if count is not None else _ABSENT

    @staticmethod
    def put(binding, state) -> None:
        count, bound = _count_of(binding.get())
        if state is _ABSENT or count is None or (_COUNT_REDUCE(count)[1], bound) == state:
            return
        fresh = itertools.count(*state[0])
        binding.set(fresh.__next__ if state[1] else fresh)


class _NestedRef:
    """A list, dict, set, library object or project instance inside what a data name holds (``STOCK["bolt"]``, a
    ``Shelf`` in ``SHELVES``), with the object that held it when it was saved."""

    __slots__ = ("item", "kind", "parent")

    def __init__(self, item, kind, parent):
        self.item, self.kind, self.parent = item, kind, parent


class _Nested:
    """What a data name's value holds further down, saved, put back and compared as the value itself is (red-team
    round 59: ``STOCK[sku]["reserved"] = units`` and a ``Shelf`` in a module list, which the pristine call, run on
    the same inner objects after the real call, overwrote with the right answer before the test read it). Compared
    only where both calls' parents still hold it (one an edit replaced, ``STOCK[sku] = {...}``, is the parent's
    difference, not its own)."""

    @staticmethod
    def copy(ref):
        return ref.kind.copy(ref.item)

    @staticmethod
    def put(ref, state) -> None:
        _restore([(ref.item, ref.kind, state)])


def _nested_state(value, kind, classes, budget: list, depth: int = 3) -> list:
    """``(_NestedRef, _Nested, copy)`` for the mutable objects ``value`` holds, ``depth`` levels down, at most
    ``budget[0]`` of them (spent: shared by a call's data names; each object once)."""
    out, stack, seen = [], [(value, kind, depth)], {_id(value)}
    while stack and budget[0] > 0:
        parent, parent_kind, left = stack.pop()
        if left <= 0:
            continue
        if parent_kind is list or parent_kind is set:
            items = list(parent_kind.__iter__(parent))[:256]
        elif parent_kind is dict:
            items = list(dict.values(parent))[:256]
        elif parent_kind is _Attrs:
            own = _attrs_dict(parent)
            items = list(dict.values(own))[:256] if _type(own) is dict else []
        else:
            items = []
        for item in items:
            if _id(item) in seen:
                continue
            seen.add(_id(item))
            item_kind = _saved_kind(item, classes)
            if item_kind is None:
                continue
            ref = _NestedRef(item, item_kind, parent)
            out.append((ref, _Nested, item_kind.copy(item)))
            stack.append((item, item_kind, left - 1))
            budget[0] -= 1
            if budget[0] <= 0:
                break
    return out


_NESTED_MOST = 256


def _count_of(value) -> tuple:
    """``(the itertools.count, whether it is held as its bound __next__)`` of a value that is a count or a count's
    ``__next__`` (``_next_id = itertools.count(1).__next__``: red-team round 59's honest control), else ``(None,
    False)``."""
    if _type(value) is itertools.count:
        return value, False
    if _type(value) is types.MethodWrapperType and _type(value.__self__) is itertools.count \
            and value.__name__ == "__next__":
        return value.__self__, True
    return None, False


_COUNT_REDUCE = itertools.count.__reduce__


class _Cwd:
    """The process's working folder, saved and put back like a container's contents: the pristine call starts in
    the folder the real call started in, and the real call's folder is back afterwards (honest hunt 11: a
    ``contextmanager`` that changes folder, whose pristine generator the oracle resumed in the test's process, left
    the test in another folder)."""

    @staticmethod
    def copy(_) -> str | None:
        try:
            return _GETCWD()
        except OSError:
            return None

    @staticmethod
    def put(_, folder) -> None:
        if folder is not None:
            try:
                _CHDIR(folder)
            except OSError:
                pass


_GETCWD, _CHDIR = os.getcwd, os.chdir
_copy_context = contextvars.copy_context


# The audit events through which a call changes the file system (Python 3.11's table), by the positions of the
# paths each changes and of the folder descriptors those paths may be relative to; the events of a process started
# (whose writes no event of this process shows).
_FILE_PATHS = {"open": ((0,), ()), "os.remove": ((0,), (1,)), "os.rmdir": ((0,), (1,)), "os.mkdir": ((0,), (2,)),
               "os.rename": ((0, 1), (2, 3)), "os.link": ((1,), (2, 3)), "os.symlink": ((1,), (2,)),
               "os.truncate": ((0,), ()), "os.chmod": ((0,), (2,)), "os.utime": ((0,), (3,)),
               "shutil.rmtree": ((0,), (1,)), "sqlite3.connect": ((0,), ()),
               # (no event of Python's own: the guard's, ``_UNSEEN``)
               "beacon.mkfifo": ((0,), (2,)), "beacon.mknod": ((0,), (3,))}
_PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.spawn", "os.fork",
                             "os.forkpty", "pty.spawn", "os.startfile",
                             # (what goes out of the process or past Python: a request to a server the test runs, a
                             # C call; review of session 46)
                             "socket.connect", "socket.sendto", "socket.sendmsg", "socket.bind",
                             "ctypes.call_function", "ctypes.dlopen"})
# The audit events of a change the guard does not save (a file's owner, its extended attributes: red-team round 63):
# refused like a process
_UNSAVED_EVENTS = frozenset({"os.chown", "os.setxattr", "os.removexattr", "os.chflags", "os.lchflags"})
_O_TMPFILE = getattr(os, "O_TMPFILE", 0)  # (an anonymous file in a folder: nothing to save or put back)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_FILE_BYTES_MOST = 8 << 20  # bytes of files saved for one pristine run; past it the run's check is dropped
_FILE_ENTRIES_MOST = 512  # files, folders and links saved for one pristine run
_REMEMBERED_MOST = 16  # paths a test's pristine runs wrote, saved again before each of its later pristine runs
_GONE = ("gone",)
_lstat, _readlink, _scandir, _listdir = os.lstat, os.readlink, os.scandir, os.listdir
_unlink, _rmdir, _mkdir, _makedirs, _symlink, _chmod, _utime = (os.unlink, os.rmdir, os.mkdir, os.makedirs,
                                                                os.symlink, os.chmod, os.utime)
_fspath, _fsdecode, _rmtree, _io_open = os.fspath, os.fsdecode, shutil.rmtree, io.open
_abspath, _path_realpath, _path_join, _path_split = os.path.abspath, os.path.realpath, os.path.join, os.path.split
_S_ISLNK, _S_ISDIR, _S_IMODE = stat.S_ISLNK, stat.S_ISDIR, stat.S_IMODE  # (and _S_ISREG, below)


class _NotPutBack(BaseException):
    """Raised (by the audit hook, before the operation) at a pristine run's change of the file system that
    :class:`_Files` could not put back: the run is cut short and its check dropped. A ``BaseException``: the
    pristine code's ``except Exception`` does not carry on past it."""


class _Files:
    """What a pristine run (:meth:`_Oracle.run`) changes in the file system, put back when it ends (red-team round
    61: nothing saved a file, so a pristine call made first wrote the file a kept bug omits or skips — the test read
    the pristine call's file — and a second pristine run made after the real call wrote over the real call's file).

    While a run is on, the bootstrap's audit hook hands this object every audit event of the run's thread; before a
    file, folder or link is changed (opened for writing, removed, renamed, made, truncated, linked, its mode or times
    set, a tree removed, a SQLite database opened) its state is saved — bytes, mode and times; absent; a link's
    target; a folder's entries — and at the end every saved path is given that state back, latest first. What cannot
    be put back (a process started, a path relative to a folder descriptor outside a tree removal, a file written
    through a descriptor opened before the run, more than ``_FILE_BYTES_MOST`` bytes or ``_FILE_ENTRIES_MOST``
    entries) is refused before it happens (:class:`_NotPutBack`) and the run's check is dropped (counted). The
    paths a test's pristine runs wrote are saved again before each of its later runs: a pristine generator's file,
    opened at one step, is written at the next through the file object (no event). Writes through a file object
    opened before any pristine run (a module-level log file) are not seen: the documented gap."""

    def __init__(self, checks: list):
        self.checks = checks  # the list the audit hook calls: holds ``self.hook`` while a run is on
        self.remembered: dict = {}  # (an ordered set) paths this test's pristine runs changed
        self.saved: dict = {}
        self.order: list = []
        self.spent = self.entries = 0
        self.broken = None
        self.busy = 0  # (the thread inside the guard's own work: its events are the guard's)
        self.trees = self.opened = False
        self.fds = None  # the descriptors open at the run's first write (``_flush_written``)
        self.thread = None
        self.last: tuple = ()  # ``(path, state)`` the last run saved, in order: the files as it found them
        self.real_start = None  # what ``_thread.start_new_thread`` held before the swap (the plugin's own recorder)
        self.started: list = []  # the threads the run's thread started (``Thread`` objects, or bare idents)
        self.reals: dict = {}  # (module, name) -> what the name held before the run's swap (``_swap_unseen``)
        self.spaces: list = []  # the declared modules' namespaces (``_Oracle.run``)
        self.started_idents: set = set()  # the idents of the threads the run started (the run's own: ``_guard_on``)
        self.tz = None
        self.module_tops: set = set()
        self.process: list = []  # ``(kind, value)``: registrations the run made (``atexit``, a codec search), a tzset
        self.env_keys: set = set()  # the names the run gave ``os.putenv``/``os.unsetenv``
        self.modules: list = []  # saved states of the library modules the run imported, as the import gave them
        self.module_ids: set = set()

    def begin(self, start=None) -> None:
        """``start``: the paths an earlier run saved (``last``) and their states then, given back for this run (its
        ``end`` puts back what they hold now)."""
        self.started = []
        self._put_unseen()  # (a begin with no end before it: its swaps first)
        self.process, self.env_keys, self.modules, self.module_ids = [], set(), [], set()
        self.started_idents, self.module_tops = set(), set()
        self.module_ids |= set(map(_id, self.spaces))  # (the declared modules: compared, never put back here)
        self.zone = _zone_now()  # (the C library's time zone as the run finds it: ``_put_process``)
        data = getattr(_ENVIRON, "_data", None)
        self.tz = dict.get(data, b"TZ") if _type(data) is dict else None
        self.saved, self.order, self.spent, self.entries = {}, [], 0, 0
        self.broken, self.trees, self.opened, self.thread, self.fds = None, False, False, _get_ident(), None
        self.busy = _get_ident()
        try:
            for path in list(self.remembered):
                why = self._save(path)
                if why is not None:  # (a path this test's runs wrote that cannot be saved now: review's F1, a file
                    self.broken = self.broken or why  # the edit's real call grew past the cap)
            for path, state in start or ():
                why = self._save(path)
                if why is None and type(state) is not str:
                    try:
                        _put_path(path, state)
                    except OSError as exc:
                        why = f"a file could not be given its earlier state ({_type(exc).__name__})"
                self.broken = self.broken or why
        finally:
            self.busy = 0
        self._swap_unseen()
        list.append(self.checks, self.hook)

    def end(self) -> str | None:
        """Put back what the run changed; why its check cannot stand (something was not or could not be put
        back), or None."""
        self._end_threads()  # (first: what they write while they end is saved and put back with the rest)
        while _any(one == self.hook for one in self.checks):
            list.remove(self.checks, self.hook)
        self._put_unseen()
        self._put_process()
        self.busy = _get_ident()
        try:
            if self.opened and self.fds is not None:
                # (what the run's file objects still hold in their buffers reaches the file now, before it is put back,
                # not when the pristine call's copy holding the object dies: red-team round 63's
                # ``buffered_flush_after_putback``; only descriptors the run opened and left open, and the heap walked
                # only when there is one)
                new = _open_descriptors()
                if new is not None and new - self.fds:
                    _flush_written(set(self.order), {int(fd) for fd in new - self.fds})
            self.last = tuple((path, self.saved[path]) for path in self.order)
            for path in reversed(self.order):
                state = self.saved[path]
                if type(state) is str:
                    continue
                try:
                    _put_path(path, state)
                except OSError as exc:
                    self.broken = self.broken or f"a file it changed could not be put back ({_type(exc).__name__})"
                self.remembered.pop(path, None)
                self.remembered[path] = None
            while len(self.remembered) > _REMEMBERED_MOST:
                del self.remembered[next(iter(self.remembered))]
        finally:
            self.busy = 0
            self.thread = None
        return self.broken

    def _swap_unseen(self) -> None:
        """Put the guard in front of what changes the process or the file system with no audit event of its own
        (Python 3.11): a thread started (noted and ended with the run: its later work, a ``threading.Timer``'s
        write, would come after the run is put back), a FIFO or device node made (saved like a file made), a relative
        ``os.open``. Only the run's thread is held."""
        self.unseen = []
        for holder, name, guarded in _UNSEEN:
            space = _namespace(_sys_modules.get(holder))
            real = dict.get(space, name, _ABSENT) if _type(space) is dict else _ABSENT
            if real is not _ABSENT and real is not guarded:
                dict.__setitem__(space, name, guarded)
                self.unseen.append((space, name, real))
                self.reals[(holder, name)] = real
                if guarded is _guarded_start:
                    self.real_start = real
        # (and a declared module's name bound to one at import, ``from atexit import register``, ``from time import
        # tzset``: review of session 48, red-team round 66; an honest repair's test counted two registrations)
        guards = {(holder, name): guarded for holder, name, guarded in _UNSEEN}
        aliases = {_id(real): guards[key] for key, real in self.reals.items()}
        for space in self.spaces:
            for key, value in list(dict.items(space))[:2000]:
                guarded = aliases.get(_id(value))
                if guarded is not None and value is not guarded:
                    dict.__setitem__(space, key, guarded)
                    self.unseen.append((space, key, value))

    def _end_threads(self) -> None:
        """The threads the run started, ended with it: a ``threading.Timer`` cancelled, each joined for at most
        ``_THREAD_WAIT`` seconds in all; one still running (or started bare, with no ``Thread`` to wait for) drops the
        check — what it does later would come after the put-back (red-team round 63's ``timer_write_after_run``)."""
        if not self.started:
            return
        deadline = _clock() + _THREAD_WAIT
        for thread in self.started:
            if _type(thread) is int:
                self.broken = self.broken or "it started a thread with no Thread object, whose end cannot be awaited"
                continue
            if isinstance(thread, threading.Timer):
                thread.cancel()
            try:
                thread.join(max(0.0, deadline - _clock()))
            except RuntimeError:
                pass
            if thread.is_alive():
                self.broken = self.broken or "a thread it started was still running when it ended"
        self.started = []

    def _put_unseen(self) -> None:
        for space, name, real in reversed(getattr(self, "unseen", ())):
            dict.__setitem__(space, name, real)
        self.unseen, self.real_start, self.reals = [], None, {}

    def imported(self, names) -> None:
        """The run's thread imported ``names`` (``_guarded_import``): each library module among them not saved yet
        in this run is saved as the import gave it — before the run's code changes it, or as its body made it when
        the run loaded it — and put back when the run ends (red-team round 65: a module imported inside a function,
        through ``importlib.import_module`` or first loaded by the run, was reached by no saved state)."""
        self.busy = _get_ident()
        try:
            counts = [0, 0, 0]
            names = list(names)
            # (and the loaded submodules of an imported package, used as its attributes: red-team round 66's
            # ``import_package_use_submodule``, ``import xml`` then ``xml.etree.ElementTree``)
            for top in {n.partition(".")[0] for n in names} - self.module_tops - _REACH_SKIP:
                self.module_tops.add(top)
                names += _submodules(top)
            for name in names:
                module = _sys_modules.get(name)
                space = _namespace(module) if _type(module) is types.ModuleType else None
                if _type(space) is not dict or _id(space) in self.module_ids \
                        or name.partition(".")[0] in _REACH_SKIP or _len(self.module_ids) >= _REACH_MODULES:
                    continue
                where = dict.get(space, "__file__")
                if (where is not None and _type(where) is not str) \
                        or getattr(dict.get(space, "__spec__"), "_initializing", False) is True:
                    continue  # (a module whose body is still running, the import inside it: saved when it is done)
                # (a project module too, not a declared one: its module-level writes are the run's, put back; review
                # of session 48's ``lazy_project_module``, and a whole run's count that leaked into an honest test)
                self.module_ids.add(_id(space))
                self.modules += _module_saves(name, space, counts)
        finally:
            self.busy = 0

    def _put_process(self) -> None:
        """Undo what the run registered process-wide with no saved state (``_swap_unseen``'s recorders): its codec
        search functions unregistered (red-team round 65's ``codecs_register``), the C library's zone read again
        after a ``time.tzset`` (``tzset_c_zone``), the names it gave ``os.putenv``/``os.unsetenv`` given
        ``os.environ``'s values (``putenv_child``: a child process saw the pristine run's variable), and the library
        modules it imported their saved states."""
        process, self.process = self.process, []
        zone = False
        for kind, value in process:
            try:
                if kind == "codec":
                    _module_of("_codecs").unregister(value)
                elif kind == "uncodec":
                    _module_of("_codecs").register(value)
                elif kind == "error":
                    name, held = value
                    _module_of("_codecs").register_error(name, held if held is not None else _unknown_handler(name))
                elif kind == "tzset":
                    zone = True
            except Exception:  # noqa: BLE001,S112 (nothing else to do)
                continue
        data = getattr(_ENVIRON, "_data", None)
        for key in self.env_keys if _type(data) is dict else ():
            try:
                name = os.fsencode(key)
                if name in data:
                    _putenv(name, dict.__getitem__(data, name))
                else:
                    _unsetenv(name)
            except (OSError, ValueError, TypeError):
                continue
        self.env_keys = set()
        # (and where the zone changed with no ``time.tzset`` call: glibc's ``mktime`` reads ``TZ`` again; red-team
        # round 67's ``mktime_applies_tz``)
        if zone or _zone_now() != self.zone:
            self._put_zone(data)
        modules, self.modules, self.module_ids = self.modules, [], set()
        _restore(modules)

    def guarded(self, event: str, args: tuple) -> None:
        """The run's thread's call of a function with no audit event, as if it were ``event``: refused or saved
        (``_UNSEEN``); other threads' calls pass."""
        if self.thread == _get_ident() and self.busy != _get_ident() and _any(one == self.hook
                                                                              for one in self.checks):
            self.hook(event, args)

    def _put_zone(self, data) -> None:
        """The C library's time zone as the run found it, after the run's ``time.tzset``: read again from ``TZ``; if
        that is not the zone the run found (the test set ``TZ`` and applied none: red-team round 65's
        ``tzset_c_zone``), from the ``TZ`` the run found, from no ``TZ`` and from the process's first ``TZ``, the
        environment then given back without another ``tzset``; if none gives it, the check is dropped."""
        _TZSET()
        if _zone_now() == self.zone:
            return
        held = dict.get(data, b"TZ") if _type(data) is dict else None
        try:
            # (the ``TZ`` the run found first: ``os.environ`` is given back after this, so the run's own ``TZ`` is
            # what a plain ``tzset`` reads; review of session 48's ``put_zone_drops_check``)
            for candidate in dict.fromkeys((self.tz, None, _START_TZ)):
                _unsetenv(b"TZ") if candidate is None else _putenv(b"TZ", candidate)
                _TZSET()
                if _zone_now() == self.zone:
                    break
            else:
                self.broken = self.broken or "it set the C library's time zone, which could not be put back"
        finally:
            _unsetenv(b"TZ") if held is None else _putenv(b"TZ", held)

    def hook(self, event, args) -> None:
        if self.busy == _get_ident():
            return  # (the guard's own reads and writes; another thread's events are still seen)
        if event in _ENV_EVENTS:
            if _type(args) is tuple and args and _type(args[0]) in (str, bytes) and (
                    _get_ident() == self.thread or _get_ident() in self.started_idents):
                self.env_keys.add(args[0])
            return
        if event in _PROCESS_EVENTS:
            why = "it started a process, whose writes cannot be put back"
        elif event in _UNSAVED_EVENTS:
            why = "it set a file's owner or extended attributes, which are not saved"
        elif event in _FILE_PATHS:
            self.busy = _get_ident()
            known = len(self.order)
            try:
                why = self._note(event, args)
            finally:
                self.busy = 0
            if len(self.order) != known and _get_ident() != self.thread:
                # (another thread's change while the run is on, a pool the pristine code started: saved and put back
                # as the run's own, and the check dropped, whose thread it was cannot be told; a read is no change)
                self.broken = self.broken or "another thread changed files while it ran"
        else:
            return
        if why is not None:
            self.broken = self.broken or why
            raise _NotPutBack(f"beacon: the pristine run's change of the file system cannot be put back: {why}")

    def _note(self, event, args) -> str | None:
        """Save the state of the paths ``event`` is about to change; why it cannot be put back, or None."""
        if _type(args) is not tuple:
            return "an audit event of an unknown form"
        paths, folders = _FILE_PATHS[event]
        if event == "open":
            if len(args) < 3 or _type(args[2]) is not int or not args[2] & _WRITE_FLAGS:
                return None  # (opened to read)
            if _O_TMPFILE and args[2] & _O_TMPFILE == _O_TMPFILE:
                return None  # (``tempfile.TemporaryFile``: a file with no name)
            if args[1] is None and _type(args[0]) is not int and not _path_isabs(_exact_path(args[0])):
                # (``os.open`` with a relative path: its event does not say whether a ``dir_fd`` was given)
                return "a relative path opened through os.open" 
        if _any(i < len(args) and args[i] is not None and not (_type(args[i]) is int and args[i] < 0)
                for i in folders):  # (a folder descriptor not given is None, or ``AT_FDCWD``: negative)
            # (a tree's removal walks it by folder descriptors: its entries were saved with the tree)
            return None if self.trees and event in ("os.remove", "os.rmdir", "os.chmod") else \
                "a path relative to a folder descriptor"
        for i in paths:
            given = args[i] if i < len(args) else None
            if _type(given) is int:
                if event in ("open", "os.truncate", "os.chmod", "os.utime") and self.opened:
                    continue  # (a descriptor of a file this run opened to write, ``os.fdopen(mkstemp()[0])``)
                return "a file written through a descriptor opened before the run"
            try:
                raw = _exact_path(given)
                if event == "sqlite3.connect" and (raw == ":memory:" or raw.startswith("file:") or not raw):
                    return None if raw == ":memory:" or not raw else "a SQLite database named by a URI"
                head, tail = _path_split(_abspath(raw))
                path = _path_join(_path_realpath(head), tail)
                if event in _FOLLOWING:  # (a write, a mode or a time follows a link to its target)
                    path = _path_realpath(path)
            except (TypeError, ValueError, OSError):
                return "a path it could not read"
            if (event == "os.mkdir" and _exists(path)) or (event == "open" and _isdir(path)):
                # (it fails: ``makedirs(exist_ok=True)`` asks of every folder on the way; a folder opened to write is
                # ``TemporaryFile``'s ``O_TMPFILE`` through an opener, a file with no name)
                continue
            shallow = event in ("os.chmod", "os.utime", "os.mkdir")  # (a folder's mode and times, not its entries)
            for one in ((path, path + "-journal", path + "-wal", path + "-shm") if event == "sqlite3.connect"
                        else (path,)):
                why = self._save(one, shallow)
                if why is not None:
                    return why
            if event == "open":
                if not self.opened:
                    self.fds = _open_descriptors()  # (before this one opens: those of the test's own are left alone)
                self.opened = True
            elif event == "shutil.rmtree":
                self.trees = True
        return None

    def _save(self, path: str, shallow: bool = False) -> str | None:
        if path in self.saved:
            known = self.saved[path]
            if type(known) is str:
                return known  # (saved already, or not: it still cannot be put back; review's F1)
            if known[0] == "dir" and known[4] is None and not shallow:
                # (a folder whose mode was saved, now moved or removed: its entries may have changed since)
                return "a folder changed in part before it was moved or removed"
            return None
        state = self._state(path, shallow)
        self.saved[path] = state
        self.order.append(path)
        return state if type(state) is str else None

    def _state(self, path: str, shallow: bool = False):
        """``_GONE``, ``("link", target)``, ``("file", bytes, mode, atime, mtime)`` or ``("dir", mode, atime,
        mtime, {name: state})`` — or why it cannot be saved."""
        self.entries += 1
        if self.entries > _FILE_ENTRIES_MOST:
            return f"more than {_FILE_ENTRIES_MOST} files and folders"
        try:
            found = _lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return _GONE
        except OSError as exc:
            return f"a path it could not read ({_type(exc).__name__})"
        mode = found.st_mode
        try:
            if _S_ISLNK(mode):
                return ("link", _readlink(path))
            if _S_ISREG(mode):
                self.spent += found.st_size
                if self.spent > _FILE_BYTES_MOST:
                    return f"more than {_FILE_BYTES_MOST >> 20} MiB of files"
                with _io_open(path, "rb") as fh:
                    return ("file", fh.read(), _S_IMODE(mode), found.st_atime_ns, found.st_mtime_ns)
            if _S_ISDIR(mode) and shallow:  # (its mode and times only: review's B3, a whole /tmp saved for a chmod)
                return ("dir", _S_IMODE(mode), found.st_atime_ns, found.st_mtime_ns, None)
            if _S_ISDIR(mode):
                entries = {}
                for name in _listdir(path):
                    inner = self._state(_path_join(path, name))
                    if type(inner) is str:
                        return inner
                    entries[name] = inner
                return ("dir", _S_IMODE(mode), found.st_atime_ns, found.st_mtime_ns, entries)
        except OSError as exc:
            return f"a path it could not read ({_type(exc).__name__})"
        return "a path that is neither a file, a folder nor a link"


def _guarded_start(function, args, kwargs=None, /):
    """``_thread.start_new_thread`` while a pristine run is on (``_Files._swap_unseen``): a thread the run's thread
    starts is noted, to be ended with the run (``_Files._end_threads``); the start itself goes through what the name
    held before the swap (the plugin's own recorder of thread origins)."""
    guard = _FILE_GUARD
    real = guard.real_start if guard is not None and guard.real_start is not None else _START_THREAD
    ident = real(function, args) if kwargs is None else real(function, args, kwargs)
    if guard is not None and guard.thread == _get_ident() and _any(one == guard.hook for one in guard.checks):
        owner = getattr(function, "__self__", None) if _type(function) is types.MethodType else None
        list.append(guard.started, owner if isinstance(owner, threading.Thread) else ident)
        set.add(guard.started_idents, ident)
    return ident


def _guarded_mkfifo(path, mode=0o666, *, dir_fd=None):
    if _FILE_GUARD is not None:
        _FILE_GUARD.guarded("beacon.mkfifo", (path, mode, dir_fd))
    return _MKFIFO(path, mode, dir_fd=dir_fd)


def _guarded_mknod(path, mode=0o600, device=0, *, dir_fd=None):
    if _FILE_GUARD is not None:
        _FILE_GUARD.guarded("beacon.mknod", (path, mode, device, dir_fd))
    return _MKNOD(path, mode, device, dir_fd=dir_fd)


def _guarded_os_open(path, flags, mode=0o777, *, dir_fd=None):
    """``os.open`` while a pristine run is on: a relative path with no folder descriptor opened as the same path under
    the working folder, whose audit event the guard can then read (the event does not say whether a ``dir_fd`` was
    given, so a relative one is refused: red-team round 63's ``dropped_check_hides_instance_state``, a lock file
    opened relative to the test's folder, turned the checks off)."""
    guard = _FILE_GUARD
    given = path
    if dir_fd is None and guard is not None and guard.thread == _get_ident() and _type(flags) is int \
            and flags & _WRITE_FLAGS:
        named = _fspath(path)
        if _type(named) is str and not _path_isabs(named):
            path = _path_join(_GETCWD(), named)
        elif _type(named) is bytes and not _path_isabs(named):
            path = _path_join(_GETCWDB(), named)
    try:
        return _OS_OPEN(path, flags, mode, dir_fd=dir_fd)
    except OSError as exc:
        if path is not given:
            exc.filename = given  # (as the call named it: review of session 47, an error message compared)
        raise


def _submodules(top: str) -> list:
    """The loaded submodules of package ``top`` (at most ``_REACH_MODULES``), kept while ``sys.modules`` keeps its
    size: asked at each pristine run's first import of a package."""
    size = _len(_sys_modules)
    if _SUBMODULES.get("") != size:
        _SUBMODULES.clear()
        _SUBMODULES[""] = size
    found = _SUBMODULES.get(top)
    if found is None:
        found = _SUBMODULES[top] = [k for k in list(_sys_modules) if _type(k) is str and k.startswith(top + ".")][
            :_REACH_MODULES]
    return found


_SUBMODULES: dict = {}


def _guard_on():
    """The file guard when a pristine run is on in this thread, else None."""
    guard = _FILE_GUARD
    if guard is not None and guard.thread is not None and guard.busy != _get_ident() \
            and (guard.thread == _get_ident() or _get_ident() in guard.started_idents) \
            and _any(one == guard.hook for one in guard.checks):
        return guard
    return None


def _real_of(holder: str, name: str, default):
    guard = _FILE_GUARD
    return guard.reals.get((holder, name), default) if guard is not None else default


def _guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    """``builtins.__import__`` while a pristine run is on: the library modules an absolute import names are saved as
    it gives them (``_Files.imported``)."""
    module = _real_of("builtins", "__import__", _IMPORT)(name, globals, locals, fromlist, level)
    guard = _guard_on()
    if guard is not None and level == 0 and _type(name) is str:
        parts = name.split(".")
        names = [".".join(parts[:i]) for i in range(1, _len(parts) + 1)]
        for item in fromlist or ():
            if _type(item) is str and item != "*":
                names.append(f"{name}.{item}")
        guard.imported(names)
    return module


def _guarded_import_module(name, package=None):
    module = _real_of("importlib", "import_module", _IMPORT_MODULE)(name, package)
    guard = _guard_on()
    space = _namespace(module) if _type(module) is types.ModuleType else None
    found = dict.get(space, "__name__") if _type(space) is dict else None
    if guard is not None and _type(found) is str:
        parts = found.split(".")
        guard.imported([".".join(parts[:i]) for i in range(1, _len(parts) + 1)])
    return module


def _guarded_atexit(function, *args, **kwargs):
    """``atexit.register`` while a pristine run is on: nothing registered, ``function`` returned as the real one
    returns it (red-team round 65's ``atexit_register``: the pristine run's registration stayed, and an unregistration
    does not lower ``atexit._ncallbacks()``; an honest repair's test counted two registrations)."""
    if _guard_on() is None:
        return _real_of("atexit", "register", _ATEXIT_REGISTER)(function, *args, **kwargs)
    return function


def _guarded_codec(search_function):
    out = _real_of("codecs", "register", _CODEC_REGISTER)(search_function)
    guard = _guard_on()
    if guard is not None:
        list.append(guard.process, ("codec", search_function))
    return out


def _guarded_codec_unregister(search_function):
    out = _real_of("codecs", "unregister", _CODEC_UNREGISTER)(search_function)
    guard = _guard_on()
    if guard is not None:  # (registered again after the run: red-team round 66's ``codecs_unregister``)
        list.append(guard.process, ("uncodec", search_function))
    return out


def _guarded_register_error(name, handler):
    """``codecs.register_error`` while a pristine run is on: the handler the name had is given back after the run,
    and a name that had none gets one that raises as an unknown name does (there is no unregistering; red-team round
    66's ``codecs_register_error``)."""
    guard = _guard_on()
    if guard is not None and _type(name) is str:
        try:
            held = _module_of("_codecs").lookup_error(name)
        except LookupError:
            held = None
        list.append(guard.process, ("error", (name, held)))
    return _real_of("codecs", "register_error", _REGISTER_ERROR)(name, handler)


def _unknown_handler(name):
    def unknown(exc):
        raise LookupError(f"unknown error handler name '{name}'")
    return unknown


def _guarded_at_fork(**kwargs):
    """``os.register_at_fork`` while a pristine run is on: nothing registered (it cannot be undone; red-team round
    65's ``register_at_fork``: a child the test forked ran the pristine run's handler)."""
    if _guard_on() is None:
        return _real_of("os", "register_at_fork", _AT_FORK)(**kwargs)
    return None


def _guarded_tzset():
    out = _real_of("time", "tzset", _TZSET)()
    guard = _guard_on()
    if guard is not None:
        list.append(guard.process, ("tzset", None))
    return out


_IMPORT, _IMPORT_MODULE = builtins.__import__, importlib.import_module
_ATEXIT_REGISTER, _CODEC_REGISTER = atexit.register, codecs.register
_CODEC_UNREGISTER, _REGISTER_ERROR = codecs.unregister, codecs.register_error
_AT_FORK, _TZSET = getattr(os, "register_at_fork", None), getattr(time, "tzset", None)
_ENV_EVENTS = frozenset({"os.putenv", "os.unsetenv"})
_ORDERED_DICT = collections.OrderedDict
_START_TZ = os.environb.get(b"TZ")  # (the zone the process started with: one ``_Files._put_zone`` tries)


def _zone_now() -> tuple:
    """The C library's time zone as ``time.localtime`` applies it: name and offset in January and in July 1970."""
    try:
        return tuple((moment.tm_zone, moment.tm_gmtoff) for moment in (time.localtime(0), time.localtime(15_811_200)))
    except (OSError, OverflowError, ValueError):
        return ()
_START_THREAD, _MKFIFO, _MKNOD = _thread.start_new_thread, getattr(os, "mkfifo", None), getattr(os, "mknod", None)
_THREAD_WAIT = 0.2  # seconds a pristine run's end waits in all for the threads it started
_OS_OPEN, _GETCWDB = os.open, os.getcwdb
_UNSEEN = (("_thread", "start_new_thread", _guarded_start), ("threading", "_start_new_thread", _guarded_start),
           ("os", "mkfifo", _guarded_mkfifo), ("os", "mknod", _guarded_mknod), ("os", "open", _guarded_os_open),
           ("builtins", "__import__", _guarded_import), ("importlib", "import_module", _guarded_import_module),
           ("atexit", "register", _guarded_atexit), ("codecs", "register", _guarded_codec),
           ("os", "register_at_fork", _guarded_at_fork), ("time", "tzset", _guarded_tzset),
           ("importlib", "__import__", _guarded_import), ("codecs", "unregister", _guarded_codec_unregister),
           ("codecs", "register_error", _guarded_register_error),
           # (the same functions where the C modules bind them: red-team round 67's ``codecs_c_register``,
           # ``posix_register_at_fork``)
           ("_codecs", "register", _guarded_codec), ("_codecs", "unregister", _guarded_codec_unregister),
           ("_codecs", "register_error", _guarded_register_error), ("posix", "register_at_fork", _guarded_at_fork),
           ("posix", "mkfifo", _guarded_mkfifo), ("posix", "mknod", _guarded_mknod),
           ("posix", "open", _guarded_os_open))


def _open_descriptors() -> set | None:
    """The process's open file descriptors (Linux's ``/proc/self/fd``, without the one its own listing held), or
    None."""
    try:
        listed = _listdir("/proc/self/fd")
    except OSError:
        return None
    out = set()
    for fd in listed:
        try:
            _fstat(int(fd))
        except (OSError, ValueError):
            continue  # (the listing's own, closed since: the next file opened may take its number)
        out.add(fd)
    return out


_fstat = os.fstat


def _flush_written(paths: set, descriptors: set) -> None:
    """Flush the open file objects (of the io module's own classes over a real file, on one of ``descriptors``)
    writing to ``paths``."""
    texts, buffers = [], []
    for value in gc.get_objects():
        kind = _type(value)
        if kind is io.TextIOWrapper:
            texts.append(value)
        elif kind is io.BufferedWriter or kind is io.BufferedRandom:
            buffers.append(value)
    for value in texts + buffers:
        try:
            buffer = value.buffer if _type(value) is io.TextIOWrapper else value
            if _type(buffer) is not io.BufferedWriter and _type(buffer) is not io.BufferedRandom:
                continue
            raw = buffer.raw
            if _type(raw) is not io.FileIO or raw.closed or raw.fileno() not in descriptors:
                continue
            value.flush()  # (a descriptor the run opened: its file is one the run saved, or named by its number)
        except (OSError, ValueError, TypeError, AttributeError):
            continue


def _exact_path(given) -> str:
    """A path argument as an exact ``str`` (a ``str`` subclass's own methods do not run in the guard)."""
    given = _fspath(given)
    if isinstance(given, bytes):
        return _fsdecode(bytes(given))
    return str.__str__(given)


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:  # (an empty cell)
        return None


_FOLLOWING = frozenset({"open", "os.truncate", "os.chmod", "os.utime", "sqlite3.connect"})
_exists, _path_isabs, _isdir = os.path.lexists, os.path.isabs, os.path.isdir


def _put_path(path: str, state) -> None:
    """Give ``path`` the state :meth:`_Files._state` saved; a file whose bytes are already those is not written."""
    try:
        now = _lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        now = None
    kind = state[0]
    if now is not None and not (kind == "file" and _S_ISREG(now.st_mode) or kind == "dir" and _S_ISDIR(now.st_mode)):
        if _S_ISDIR(now.st_mode):
            _rmtree(path)
        else:
            _unlink(path)
        now = None
    if kind == "gone":
        return
    if kind == "link":
        _symlink(state[1], path)
        return
    if kind == "file":
        if now is None or now.st_size != len(state[1]) or _read_bytes(path) != state[1]:
            if now is None:
                _makedirs(_path_split(path)[0], exist_ok=True)
            with _io_open(path, "wb") as fh:
                fh.write(state[1])
        if now is None or _S_IMODE(now.st_mode) != state[2]:
            _chmod(path, state[2])
        _utime(path, ns=(state[3], state[4]))
        return
    if now is None:
        _makedirs(path, exist_ok=True)
    entries = state[4]
    for name in _listdir(path) if entries is not None else ():
        if name not in entries:
            _put_path(_path_join(path, name), _GONE)
    for name, inner in entries.items() if entries is not None else ():
        _put_path(_path_join(path, name), inner)
    _chmod(path, state[1])
    _utime(path, ns=(state[2], state[3]))


def _read_bytes(path: str) -> bytes | None:
    try:
        with _io_open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _file_guard():
    """The process's :class:`_Files`, made at first use on the bootstrap's list (``FILE_CHECKS``), else (the plugin
    loaded without the bootstrap) on an audit hook of its own."""
    global _FILE_GUARD
    if _FILE_GUARD is None:
        checks = FILE_CHECKS if _type(FILE_CHECKS) is list else []
        if checks is not FILE_CHECKS:
            def dispatch(event, args, _checks=checks):
                if _checks:
                    _checks[0](event, args)
            sys.addaudithook(dispatch)
        _FILE_GUARD = _Files(checks)
    return _FILE_GUARD


# Set by the bootstrap (``canary.bootstrap_code``) to the list its audit hook hands every event while not empty.
FILE_CHECKS = None
_FILE_GUARD = None


def _object_dict(value):
    try:
        return object.__getattribute__(value, "__dict__")
    except (AttributeError, TypeError):
        return None


def _generators(spaces) -> list:
    """The random number generators the ``random`` module's functions use and those the declared modules hold at
    module level (``_RNG = random.Random(42)``), each once."""
    found = []
    module = sys.modules.get("random")
    for space in [_module_dict(module) if isinstance(module, types.ModuleType) else {}, *spaces]:
        values = list(space.values())[:2000] if _type(space) is dict else []
        # (and at class level, and one level into module data: a class's ``_rng``, a namespace's; red-team round
        # 61's honest control drew from a class-level generator the pristine call, made first, had advanced)
        for value in list(values):
            if _class_flags(_type(value)) & _TYPE_SUBCLASS:
                values += list(_class_dict(value).values())[:500]
            elif space is not values and _type(value) is not types.ModuleType:
                values += _Shadow._parts(value, 1)
        for value in values:
            owner = value.__self__ if _type(value) is types.MethodType else value
            if isinstance(owner, _random.Random):
                found.append(owner)
    return list({_id(g): g for g in found}.values())


_INDEXED_ITERATORS = frozenset(map(id, (type(iter([])), type(iter(())), type(iter(range(0))),
                                         type(iter(range(1 << 64))))))


class _Iterator:
    """A list's, tuple's or range's iterator (``_Shadow._restored_only``): its index, put back through
    ``__setstate__`` (an exhausted one has no state to give back, and stays so)."""

    @staticmethod
    def copy(iterator):
        reduced = _type(iterator).__reduce__(iterator)
        return reduced[2] if _len(reduced) > 2 else _ABSENT

    @staticmethod
    def put(iterator, index) -> None:
        if index is not _ABSENT:
            _type(iterator).__setstate__(iterator, index)


def _mock_class(cls) -> bool:
    """Whether ``cls`` or a class of its MRO defines a function compiled from the standard library's
    ``unittest/mock.py``: a ``__module__`` of ``"unittest.mock"`` alone is anyone's to give (red-team round 62:
    ``namedtuple(…, module="unittest.mock")`` made a module-level record a test's stand-in, and every check was off)."""
    for one in _class_mro(cls)[:-1]:
        for member in list(_class_dict(one).values())[:200]:
            function = member.__func__ if _type(member) in (classmethod, staticmethod) else member
            if type(function) is types.FunctionType and _realpath_cached(_func_code(function).co_filename) == _MOCK_FILE:
                return True
    return False


_MOCK_FILE = os.path.realpath(os.path.join(sysconfig.get_paths()["stdlib"], "unittest", "mock.py"))


def _class_containers(cls) -> list:
    """``(container, base, copy)`` for the lists, dicts and sets (of at most 1,000 items) a class holds by name."""
    out = []
    for value in list(_class_dict(cls).values())[:500]:
        base = _type(value)
        base = dict if base in _DICT_KINDS else base  # (a class-level ``Counter``: review of session 49)
        if (base is list or base is dict or base is set) and base.__len__(value) <= 1000:
            out.append((value, base, base.copy(value)))
    return out


class _PutBackAttrs:
    """``_Attrs``'s save and put back for an instance whose attributes are put back and never compared
    (``_Shadow._restored_only``: not one of ``_SAVED_KINDS``, so not compared where a data name holds it)."""

    copy = staticmethod(lambda item: _Attrs.copy(item))
    put = staticmethod(lambda item, held: _Attrs.put(item, held))


def _own_instance(value) -> bool:
    """Whether ``value`` is an instance of a Python class (no class, enum member or container) with a ``__dict__``
    whose state ``_Attrs`` saves."""
    kind = _type(value)
    if not _class_flags(kind) & _HEAPTYPE or _class_flags(kind) & _TYPE_SUBCLASS or isinstance(value, _Enum) \
            or _container_base(kind) is not None:
        return False
    own = _attrs_dict(value)
    return _type(own) is dict and _len(own) <= _ATTRS_MOST


class _Mapping:
    """A dict put back item by item, by identity, where it differs (never emptied and filled again: an import may run
    between): a module's names (``_Shadow._restored_only``), ``sys.modules``, ``copyreg.dispatch_table``."""

    @staticmethod
    def copy(mapping) -> dict:
        return dict.copy(mapping)

    @staticmethod
    def put(mapping, saved) -> None:
        for key in [k for k in mapping if k not in saved]:
            module = dict.get(mapping, key)
            if mapping is _sys_modules and _imported_as(module, key) and not _plain_project_module(module, key):
                # (a module the run imported: not put out, a C extension cannot be loaded twice; review's B1. Nor a
                # project module that makes classes: the real call importing it again would make other classes,
                # which the pristine call's result does not have; honest hunt 24's ``lazy_enum_member``. Its state
                # is put back: ``_Files.imported``)
                continue
            dict.pop(mapping, key, None)
            # (a project module of functions and data the run first imported is put out, and off its package: the
            # real call's import runs its body again — a plugin's registration, which the put-back of the registry
            # undid (honest hunt 24's ``plugin_list_top``); red-team round 65's ``import_stays_in_sys_modules``)
            parent, _, child = key.rpartition(".")
            space = _namespace(_sys_modules.get(parent)) if parent else None
            if _type(space) is dict and dict.get(space, child) is module:
                dict.pop(space, child, None)
        for key, value in saved.items():
            if dict.get(mapping, key, _ABSENT) is not value:
                dict.__setitem__(mapping, key, value)


def _plain_project_module(module, name) -> bool:
    """Whether ``module`` was loaded from a ``.py`` file outside the standard library and installed packages and
    makes no class of its own (its functions and data are compared by name and value, its classes by identity)."""
    space = _namespace(module) if _type(module) is types.ModuleType else None
    spec = dict.get(space, "__spec__") if _type(space) is dict else None
    origin = getattr(spec, "origin", None)
    if _type(origin) is not str or not origin.endswith(".py") or (_realpath_cached(origin) or "").startswith(
            _LIBRARY_PATHS) or _type(name) is not str:
        return False
    return not _any(_class_flags(_type(v)) & _TYPE_SUBCLASS and _class_module(v) == name
                    for v in list(dict.values(space))[:2000])


def _imported_as(module, name) -> bool:
    """Whether ``module`` is a module the import system loaded under ``name`` (its spec's name), not one a call
    made and planted there (``sys.modules[name] = types.ModuleType(name)``: red-team round 62's alias)."""
    if _type(module) is not types.ModuleType:
        return False
    spec = dict.get(_namespace(module), "__spec__")
    return spec is not None and getattr(spec, "name", None) == name and getattr(spec, "origin", None) is not None


class _Registries:
    """The standard library's process-wide settings a call can change, put back (``_Shadow._restored_only``):
    ``sys.modules``, ``copyreg``'s dispatch table, ``warnings``' filters, the module-level ``random`` generator,
    ``csv``'s dialects, ``decimal``'s current context, ``logging``'s loggers (level, handlers, filters, propagate,
    disabled). Each only where the module is loaded."""

    @staticmethod
    def copy(_) -> list:
        out = [(_sys_modules, _Mapping, dict.copy(_sys_modules))]
        copyreg = _sys_modules.get("copyreg")
        table = getattr(copyreg, "dispatch_table", None) if _type(copyreg) is types.ModuleType else None
        if _type(table) is dict:
            out.append((table, _Mapping, dict.copy(table)))
        warnings = _namespace(_sys_modules.get("warnings"))
        filters = dict.get(warnings, "filters") if _type(warnings) is dict else None
        if _type(filters) is list:
            out.append((filters, list, list(filters)))
        random = _namespace(_sys_modules.get("random"))
        generator = dict.get(random, "_inst") if _type(random) is dict else None
        if generator is not None and isinstance(generator, _random.Random):
            out.append((generator, _RandomState, _random.Random.getstate(generator)))
        csv = _sys_modules.get("csv")
        if _type(csv) is types.ModuleType:
            try:
                out.append((csv, _CsvDialects, {n: csv.get_dialect(n) for n in csv.list_dialects()}))
            except Exception:  # noqa: BLE001,S110
                pass
        decimal = _sys_modules.get("decimal")
        if _type(decimal) is types.ModuleType:
            try:
                context = decimal.getcontext()
                out.append((context, _DecimalContext, context.copy()))
            except Exception:  # noqa: BLE001,S110
                pass
        logging = _sys_modules.get("logging")
        manager = getattr(getattr(logging, "root", None), "manager", None) if logging is not None else None
        if manager is not None and _type(getattr(manager, "loggerDict", None)) is dict:
            loggers = [logging.root] + [v for v in list(manager.loggerDict.values())[:2000]
                                        if isinstance(v, logging.Logger)]
            out.append((manager, _Loggers, [(lg, lg.level, list(lg.handlers), list(lg.filters), lg.propagate,
                                              lg.disabled) for lg in loggers]))
            out.append((manager, _NewLoggers, (logging.Logger, set(map(_id, loggers)))))
            handlers = {_id(h): h for lg in loggers for h in list(lg.handlers)[:64]}
            for handler in handlers.values():  # (every attribute: red-team round 66's ``handler_terminator``)
                own = _InstanceDict.copy(handler)
                if own is not None:
                    out.append((handler, _HandlerDict, own))
            out.append((manager, _Handlers, ([(h, h.level, h.formatter, list(h.filters)) for h in handlers.values()],
                                             getattr(manager, "loggerClass", None),
                                             getattr(manager, "logRecordFactory", None))))
        # (and what else a call sets for the whole process: red-team round 63 forged passes through a signal handler,
        # the socket module's default timeout, logging's level names, mimetypes' tables and weakref finalizers, the
        # pristine call, made first, making the setting the kept bug omits)
        out.append((None, _Settings, _Settings.copy(None)))
        # (the interpreter's own lists, changed in place: ``sys.path.insert``, ``sys.argv[1:] = …``; honest hunt 21)
        for name in ("path", "argv", "meta_path", "path_hooks", "warnoptions"):
            value = getattr(sys, name, None)
            if _type(value) is list:
                out.append((value, list, list(value)))
        for module, names in _LIBRARY_TABLES:
            space = _namespace(_sys_modules.get(module))
            for name in names if _type(space) is dict else ():
                table = dict.get(space, name)
                if _type(table) is dict:
                    out.append((table, _Mapping, dict.copy(table)))
        mimetypes = _namespace(_sys_modules.get("mimetypes"))
        db = dict.get(mimetypes, "_db") if _type(mimetypes) is dict else None
        if db is not None and _type(_object_dict(db)) is dict:
            own = _object_dict(db)
            for name in ("types_map", "types_map_inv", "encodings_map", "suffix_map"):
                value = dict.get(own, name)
                for table in (value if _type(value) is tuple else (value,)):
                    if _type(table) is dict:
                        out.append((table, _Mapping, dict.copy(table)))
        callbacks = getattr(gc, "callbacks", None)
        if _type(callbacks) is list:
            out.append((callbacks, list, list(callbacks)))
        decimal = _sys_modules.get("decimal")
        default = getattr(decimal, "DefaultContext", None) if _type(decimal) is types.ModuleType else None
        if default is not None and _type(default) is _type(decimal.getcontext()):
            out.append((default, _DecimalContext, default.copy()))
        builtin_names = _namespace(builtins)
        if _type(builtin_names) is dict:
            out.append((builtin_names, _Mapping, dict.copy(builtin_names)))
        registry = _class_dict(weakref.finalize).get("_registry")
        if _type(registry) is dict:
            out.append((registry, _Finalizers, dict.copy(registry)))
        return out

    @staticmethod
    def put(_, saved) -> None:
        for container, base, contents in saved:
            try:
                _restore([(container, base, contents)])
            except Exception:  # noqa: BLE001,S112 (a registry that refuses its own state back: nothing else to do)
                continue


class _Settings:
    """Process-wide settings read through functions and put back through their setters where they differ (signal
    handlers, the socket module's default timeout, the recursion and digit limits, the switch interval, the garbage
    collector's thresholds, the locale), and library modules' names a call can rebind (``sys.stdout``,
    ``sys.excepthook``, ``warnings.showwarning``, ``logging.setLoggerClass``, ``urllib.request.install_opener``,
    ``mimetypes.init``), put back by identity (``_Registries``)."""

    @staticmethod
    def copy(_) -> tuple:
        values = []
        for name, read, write in _SETTINGS:
            try:
                values.append((name, write, read()))
            except Exception:  # noqa: BLE001,S112 (a module not loaded, a setting this platform lacks)
                continue
        names = []
        for module, keys in _LIBRARY_NAMES:
            space = _namespace(_sys_modules.get(module))
            if _type(space) is dict:
                names.append((space, [(key, dict.get(space, key, _ABSENT)) for key in keys]))
        return values, names

    @staticmethod
    def put(_, saved) -> None:
        values, names = saved
        for name, write, value in values:
            try:
                write(value)
            except Exception:  # noqa: BLE001,S112 (one that refuses its own value back: nothing else to do)
                continue
        for space, pairs in names:
            for key, value in pairs:
                if dict.get(space, key, _ABSENT) is value:
                    continue
                if value is _ABSENT:
                    dict.pop(space, key, None)
                else:
                    dict.__setitem__(space, key, value)


def _module_of(name):
    module = _sys_modules.get(name)
    if _type(module) is not types.ModuleType:
        raise LookupError(name)  # (not loaded: nothing a call could have set)
    return module


def _signal_handlers() -> list:
    return list(zip(_SIGNALS, map(_getsignal, _SIGNALS)))  # (C's own getsignal: the Python wrapper's enums cost)


def _put_signal_handlers(saved) -> None:
    signal = _module_of("_signal")
    for number, handler in saved:
        if handler is not None and _getsignal(number) is not handler:
            try:
                signal.signal(number, handler)
            except (OSError, ValueError, TypeError, RuntimeError):  # (not the main thread; one that cannot be caught)
                continue


def _put_if_changed(read, write):
    def put(value):
        if read() != value:
            write(value)
    return put


def _locale_now():
    return _module_of("_locale").setlocale(_module_of("_locale").LC_ALL, None)


def _put_locale(value) -> None:
    if _locale_now() != value:
        _module_of("_locale").setlocale(_module_of("_locale").LC_ALL, value)


def _rlimits_now() -> list:
    resource = _module_of("resource")
    return [(name, resource.getrlimit(getattr(resource, name))) for name in _RLIMITS if hasattr(resource, name)]


def _put_rlimits(saved) -> None:
    resource = _module_of("resource")
    for name, limits in saved:
        if resource.getrlimit(getattr(resource, name)) != limits:
            try:
                resource.setrlimit(getattr(resource, name), limits)
            except (OSError, ValueError):
                continue


_RLIMITS = ("RLIMIT_NOFILE", "RLIMIT_CORE", "RLIMIT_STACK", "RLIMIT_FSIZE", "RLIMIT_CPU", "RLIMIT_DATA", "RLIMIT_AS",
            "RLIMIT_NPROC", "RLIMIT_MEMLOCK", "RLIMIT_MSGQUEUE", "RLIMIT_NICE", "RLIMIT_RTPRIO", "RLIMIT_RTTIME",
            "RLIMIT_SIGPENDING", "RLIMIT_RSS", "RLIMIT_LOCKS")  # (the last seven: red-team round 66)


def _umask_now() -> int:
    mask = _umask(0o022)  # (read by setting it: put back at once)
    _umask(mask)
    return mask


def _put_umask(mask) -> None:
    if _umask(mask) != mask:
        pass  # (set: the old value it returns is no matter)


def _faulthandler_now() -> bool:
    return _module_of("faulthandler").is_enabled()


def _put_faulthandler(enabled) -> None:
    handler = _module_of("faulthandler")
    if handler.is_enabled() != enabled:
        handler.enable(file=sys.__stderr__) if enabled else handler.disable()


_umask = os.umask


def _gc_state():
    return gc.isenabled(), gc.get_threshold(), gc.get_debug()


def _put_gc_state(value) -> None:
    enabled, threshold, debug = value
    if gc.get_threshold() != threshold:
        gc.set_threshold(*threshold)
    if gc.isenabled() != enabled:
        (gc.enable if enabled else gc.disable)()
    if gc.get_debug() != debug:
        gc.set_debug(debug)  # (red-team round 65's ``gc_set_debug``)


def _itimers_now() -> tuple:
    signal = _module_of("_signal")
    return _clock(), tuple((which, signal.getitimer(which)) for which in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL,
                                                                           signal.ITIMER_PROF))


def _put_itimers(value) -> None:
    """An interval timer (``signal.alarm``, ``setitimer``) the run armed is disarmed; one it disarmed, re-armed or
    gave another interval is armed again for what was left of it (red-team round 65's ``signal_alarm``: the pristine
    call's alarm fired in the test; round 66's ``itimer_rearm``: the test's alarm moved nearer)."""
    signal = _module_of("_signal")
    then, timers = value
    elapsed = _clock() - then
    for which, (left, interval) in timers:
        now = signal.getitimer(which)
        due = max(left - elapsed, 0.001) if left else 0.0
        if (now[0] == 0.0) != (left == 0.0) or now[1] != interval or abs(now[0] - due) > 0.25:
            signal.setitimer(which, due, interval)


def _tracing_memory() -> tuple:
    tracemalloc = _module_of("_tracemalloc")
    return tracemalloc.is_tracing(), tracemalloc.get_traceback_limit()


def _put_tracing_memory(value) -> None:
    tracemalloc = _module_of("_tracemalloc")
    if (tracemalloc.is_tracing(), tracemalloc.get_traceback_limit()) != value:
        tracemalloc.stop()
        if value[0]:
            tracemalloc.start(value[1])  # (with its depth: red-team round 66's ``tracemalloc_limit``)


def _wakeup_fd() -> int:
    signal = _module_of("_signal")
    fd = signal.set_wakeup_fd(-1)  # (read by setting it: put back at once; the main thread only, else ValueError)
    signal.set_wakeup_fd(fd)
    return fd


def _put_wakeup_fd(value) -> None:
    if _wakeup_fd() != value:
        _module_of("_signal").set_wakeup_fd(value)


def _thread_name():
    return _module_of("threading").current_thread().name


_STREAM_SETTINGS = ("encoding", "errors", "line_buffering", "write_through")


def _streams_now() -> tuple:
    """The interpreter's own text streams (``sys.__stdout__``, ``__stderr__``, ``__stdin__``) with what
    ``reconfigure`` changes: C state of each stream, which the names' identity does not show (red-team round 66's
    ``stdout_reconfigure``)."""
    space = _namespace(sys)
    out = []
    for key in ("__stdout__", "__stderr__", "__stdin__"):
        stream = dict.get(space, key)
        if _type(stream) is io.TextIOWrapper:
            out.append((stream, tuple(getattr(stream, name) for name in _STREAM_SETTINGS)))
    return tuple(out)


def _readline_now() -> tuple:
    """``readline``'s C state a call can set (red-team round 66's ``readline_history``): the history's length limit
    and its lines (up to 1,000), the completer and its word delimiters."""
    readline = _module_of("readline")
    count = readline.get_current_history_length()
    lines = tuple(readline.get_history_item(i) for i in range(1, count + 1)) if count <= 1000 else None
    return (readline.get_history_length(), lines, readline.get_completer(), readline.get_completer_delims())


def _put_readline(saved) -> None:
    readline = _module_of("readline")
    now = _readline_now()
    length, lines, completer, delims = saved
    # (the completer by identity: ``==`` would run an edit's own ``__eq__``)
    if now[2] is completer and (now[0], now[1], now[3]) == (length, lines, delims):
        return
    readline.set_history_length(length)
    if lines is not None:
        readline.clear_history()
        for line in lines:
            readline.add_history(line)
    readline.set_completer(completer)
    readline.set_completer_delims(delims)


def _thread_attributes() -> tuple:
    """The running thread's ``Thread`` object and its own attributes (one a call set on
    ``threading.current_thread()``: red-team round 67's ``current_thread_attribute``)."""
    thread = _module_of("threading").current_thread()
    return thread, _InstanceDict.copy(thread)


def _put_thread_attributes(saved) -> None:
    thread, own = saved
    if own is not None and _module_of("threading").current_thread() is thread:
        _InstanceDict.put(thread, own)


def _codec_cache() -> dict:
    cache = dict.get(_namespace(_module_of("encodings")), "_cache")
    return cache if _type(cache) is dict else {}


def _codec_names() -> frozenset:
    return frozenset(key for key in list(_codec_cache()) if _type(key) is str)  # (no other key's ``__hash__`` runs)


def _put_codec_cache(saved) -> None:
    """Codec names looked up since ``saved`` (``encodings._cache``'s keys) are dropped from the interpreter's own
    lookup cache too, which only ``codecs.unregister`` of a registered function empties (``_LIBRARY_TABLES`` puts
    ``encodings._cache`` back)."""
    if _codec_names() == saved:
        return

    def nothing(_name):
        return None
    codecs = _module_of("_codecs")
    codecs.register(nothing)
    codecs.unregister(nothing)


def _put_scheduler(saved) -> None:
    if (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority) != saved:
        os.sched_setscheduler(0, saved[0], os.sched_param(saved[1]))


def _put_streams(saved) -> None:
    for stream, values in saved:
        if tuple(getattr(stream, name) for name in _STREAM_SETTINGS) != values:
            stream.reconfigure(**dict(zip(_STREAM_SETTINGS, values)))


def _put_thread_name(value) -> None:
    thread = _module_of("threading").current_thread()
    if thread.name != value:
        thread.name = value


def _socket_timeout():
    return _module_of("_socket").getdefaulttimeout()


def _put_socket_timeout(value) -> None:
    if _socket_timeout() != value:
        _module_of("_socket").setdefaulttimeout(value)


try:
    import signal as _signal_module
    _SIGNALS = tuple(sorted(int(n) for n in set(_signal_module.valid_signals())
                            - {_signal_module.SIGKILL, _signal_module.SIGSTOP}))
    _getsignal = sys.modules["_signal"].getsignal
except (ImportError, AttributeError, KeyError):  # pragma: no cover (not POSIX)
    _SIGNALS, _getsignal = (), None
_SETTINGS = (("signal handlers", _signal_handlers, _put_signal_handlers),
             ("socket timeout", _socket_timeout, _put_socket_timeout),
             ("recursion limit", sys.getrecursionlimit, _put_if_changed(sys.getrecursionlimit, sys.setrecursionlimit)),
             ("digits limit", sys.get_int_max_str_digits,
              _put_if_changed(sys.get_int_max_str_digits, sys.set_int_max_str_digits)),
             ("switch interval", sys.getswitchinterval,
              _put_if_changed(sys.getswitchinterval, sys.setswitchinterval)),
             ("garbage collector", _gc_state, _put_gc_state),
             ("locale", _locale_now, _put_locale),
             ("umask", _umask_now, _put_umask),
             ("blocked signals", lambda: _module_of("_signal").pthread_sigmask(_module_of("_signal").SIG_BLOCK, ()),
              lambda value: _module_of("_signal").pthread_sigmask(_module_of("_signal").SIG_BLOCK, ()) != value
              and _module_of("_signal").pthread_sigmask(_module_of("_signal").SIG_SETMASK, value)),
             ("cpu affinity", lambda: os.sched_getaffinity(0),
              lambda value: os.sched_getaffinity(0) != value and os.sched_setaffinity(0, value)),
             ("resource limits", _rlimits_now, _put_rlimits),
             ("csv field limit", lambda: _module_of("_csv").field_size_limit(),
              lambda value: _module_of("_csv").field_size_limit(value)),
             ("thread stack size", lambda: _module_of("_thread").stack_size(),
              lambda value: _module_of("_thread").stack_size() != value and _module_of("_thread").stack_size(value)),
             ("first weekday", lambda: _module_of("calendar").firstweekday(),
              lambda value: _module_of("calendar").setfirstweekday(value)),
             ("faulthandler", _faulthandler_now, _put_faulthandler),
             # (red-team round 65: each set by a pristine call and read by the test after it)
             ("coroutine origin depth", sys.get_coroutine_origin_tracking_depth,
              _put_if_changed(sys.get_coroutine_origin_tracking_depth, sys.set_coroutine_origin_tracking_depth)),
             ("interval timers", _itimers_now, _put_itimers),
             ("memory tracing", _tracing_memory, _put_tracing_memory),
             ("thread name", _thread_name, _put_thread_name),
             # (red-team round 66)
             ("async generator hooks", sys.get_asyncgen_hooks,
              lambda value: tuple(sys.get_asyncgen_hooks()) != tuple(value) and sys.set_asyncgen_hooks(*value)),
             ("dlopen flags", sys.getdlopenflags, _put_if_changed(sys.getdlopenflags, sys.setdlopenflags)),
             ("wakeup fd", _wakeup_fd, _put_wakeup_fd),
             ("stream settings", _streams_now, _put_streams),
             ("readline", _readline_now, _put_readline),
             # (red-team round 67)
             ("thread attributes", _thread_attributes, _put_thread_attributes),
             ("codec cache", _codec_names, _put_codec_cache),
             ("scheduler", lambda: (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority), _put_scheduler),
             ("process priority", lambda: os.getpriority(os.PRIO_PROCESS, 0),
              lambda value: os.getpriority(os.PRIO_PROCESS, 0) != value and os.setpriority(os.PRIO_PROCESS, 0, value)),
             ("ctypes errno", lambda: _module_of("_ctypes").get_errno(),
              lambda value: _module_of("_ctypes").set_errno(value)))
# Library modules' names a call can rebind (each put back where the module is loaded)
_LIBRARY_NAMES = (("sys", ("stdout", "stderr", "stdin", "excepthook", "displayhook", "breakpointhook",
                           "unraisablehook", "tracebacklimit", "dont_write_bytecode", "pycache_prefix", "ps1", "ps2",
                           "warnoptions")),
                  ("threading", ("excepthook", "_profile_hook", "_trace_hook")),
                  ("warnings", ("showwarning", "formatwarning", "defaultaction", "onceregistry")),
                  ("logging", ("_loggerClass", "_logRecordFactory", "raiseExceptions", "lastResort", "logThreads",
                               "logProcesses", "logMultiprocessing")),
                  ("urllib.request", ("_opener",)),
                  ("mimetypes", ("inited", "_db", "types_map", "common_types", "encodings_map", "suffix_map")),
                  ("tempfile", ("tempdir", "template")),
                  # (``io`` is the interpreter's, never reached: red-team round 67's ``io_default_buffer_size``)
                  ("io", ("DEFAULT_BUFFER_SIZE",)),
                  ("sys", ("path", "argv", "meta_path", "path_hooks")),
                  # (red-team round 68's ``sys_last_value``)
                  ("sys", ("last_type", "last_value", "last_traceback")))
# Library modules' dicts a call can fill or change, put back item by item (``logging.addLevelName``; and the
# builtins' names, ``builtins._``, which ``gettext.install`` binds: _Registries)
_LIBRARY_TABLES = (("logging", ("_levelToName", "_nameToLevel")), ("shutil", ("_ARCHIVE_FORMATS", "_UNPACK_FORMATS")),
                   ("sqlite3", ("adapters", "converters")),
                   # (``encodings`` is the interpreter's, never reached; its aliases are a table a call can fill:
                   # red-team round 65's ``encodings_alias_skip``)
                   ("encodings.aliases", ("aliases",)),
                   # (``sys`` is never reached: red-team round 67's ``sys_xoptions``; and ``encodings``' lookup
                   # cache, whose C twin "codec cache" in ``_SETTINGS`` empties: ``codec_lookup_cache``)
                   ("sys", ("_xoptions",)), ("encodings", ("_cache",)),
                   # (an importer the run's import cached: round 68's ``sys_path_importer_cache``)
                   ("sys", ("path_importer_cache",)))


class _Finalizers:
    """``weakref.finalize``'s registry: a finalizer a call registered (on the pristine call's copy of an object,
    which dies after the run: red-team round 63's ``finalizer_on_pristine_copy`` then changed the module's data)
    detached."""

    @staticmethod
    def put(registry, saved) -> None:
        known = set(map(_id, saved))
        for finalizer in [f for f in list(registry) if _id(f) not in known and _type(f) is weakref.finalize]:
            try:
                weakref.finalize.detach(finalizer)
            except Exception:  # noqa: BLE001,S112
                continue


class _RandomState:
    @staticmethod
    def put(generator, state) -> None:
        if _random.Random.getstate(generator) != state:
            _random.Random.setstate(generator, state)


class _CsvDialects:
    @staticmethod
    def put(csv, saved) -> None:
        now = {n: csv.get_dialect(n) for n in csv.list_dialects()}
        for name in now:
            if name not in saved:
                csv.unregister_dialect(name)
        for name, dialect in saved.items():
            if now.get(name) is not dialect:
                csv.register_dialect(name, dialect)


class _DecimalContext:
    _FIELDS = ("prec", "rounding", "Emin", "Emax", "capitals", "clamp")

    @staticmethod
    def copy(context):
        return context.copy()

    @staticmethod
    def put(context, saved) -> None:
        for name in _DecimalContext._FIELDS:
            if getattr(context, name) != getattr(saved, name):
                setattr(context, name, getattr(saved, name))
        for kind in ("flags", "traps"):
            now, was = getattr(context, kind), getattr(saved, kind)
            for signal in list(was):
                if now[signal] != was[signal]:
                    now[signal] = was[signal]


def _function_state(function, depth: int = 2) -> list:
    """Put-back-only saved states of a module function's own state: its closure's cells, its attributes
    (``_audit.calls += 1``), the containers among its defaults (``def f(x, _seen=[])``) and cells, and, ``depth``
    levels down, the same of the functions its cells hold (a factory's inner function): red-team rounds 67-68's
    ``function_attribute``, ``helper_mutable_default``, ``nested_function_default``."""
    closure = _func_closure(function)
    out = [(function, _Cells, _Cells.copy(function))] if closure else []
    # (and what its cells hold: a ``done = []`` flag of a "run once" closure, honest hunt 25's ``closure_flag_codec``)
    for cell in closure or ():
        try:
            item = cell.cell_contents
        except ValueError:
            continue
        if _type(item) is types.FunctionType and depth > 1:
            out += _function_state(item, depth - 1)
        else:
            out += _put_back_state(item)
    own = _func_dict(function)
    if _type(own) is dict:
        out.append((own, dict, dict.copy(own)))
        # (and the containers its attributes hold: an id counter put back beside a ``f.issued = {}`` table that kept
        # the pristine run's entries handed the same ids out again; honest hunt 26's ``func_attr_counter_table``)
        for item in list(dict.values(own))[:64]:
            out += _put_back_state(item)
    defaults = _func_defaults(function)
    keywords = _func_kwdefaults(function)
    for item in (*(defaults if _type(defaults) is tuple else ()),
                 *(dict.values(keywords) if _type(keywords) is dict else ())):
        out += _put_back_state(item)
    return out


def _put_back_state(item) -> list:
    """A list, dict or set (a ``Counter``'s, an ``OrderedDict``'s items: their base's) or a library object with a
    state of its own (a ``deque``), saved to be put back, or nothing."""
    kind = _saved_kind(item)
    if (kind is list or kind is dict or kind is set) and kind.__len__(item) <= _REACH_ITEMS:
        return [(item, kind, kind.copy(item))]
    if kind is _Library:
        return [(item, _Library, _Library.copy(item))]
    return []


def _functions_in(value, depth: int = 2) -> list:
    """The functions a module-level value holds, ``depth`` containers down: itself, a ``staticmethod``'s,
    ``classmethod``'s or ``property``'s, a ``partial``'s, or in a tuple, list, dict or ``SimpleNamespace``
    (red-team round 68's lambdas in a tuple, a dict of lists, a namespace, a ``partial``)."""
    kind = _type(value)
    if kind is types.FunctionType:
        return [value]
    if kind is staticmethod:
        return _functions_in(_static_func(value), 0)
    if kind is classmethod:
        return _functions_in(_class_method_func(value), 0)
    if kind is property:
        return [part(value) for part in _property_parts if _type(part(value)) is types.FunctionType]
    if kind is functools.partial:
        return _functions_in(_partial_func(value), 0)
    if depth <= 0:
        return []
    items = (list(value) if kind is tuple or kind is list else list(dict.values(value)) if kind is dict
             else list(dict.values(_attrs_dict(value))) if kind is types.SimpleNamespace
             and _type(_attrs_dict(value)) is dict else [])
    return [f for item in items[:256] for f in _functions_in(item, depth - 1)]


def _members_state(cls) -> list:
    """Put-back-only states a declared or project class holds by name: its functions' own state (a method's
    attribute, a ``staticmethod``'s default list) and its C objects' (an ``Event``, a ``Lock``): red-team round 68's
    ``method_function_attribute``, ``class_level_event``, ``class_level_lock``."""
    out = []
    for item in list(_proxy_values(_class_dict(cls)))[:500]:
        kind = _type(item)
        if _id(kind) in _C_STATE_KINDS or kind is _EVENT:
            out += _c_state(item, kind)
        else:
            for function in _functions_in(item, 0):
                out += _function_state(function)
    return out


class _LockHeld:
    """A module-level lock (``threading.Lock()``): held or not, put back (one the pristine run took is released)."""

    @staticmethod
    def copy(lock) -> bool:
        return lock.locked()

    @staticmethod
    def put(lock, held) -> None:
        # (and one held at the save and free now taken again: a generator that holds a module lock across its
        # yields, whose pristine steps release it between the real ones; honest hunt 15's ``t03``. A lock another
        # thread released in the run, a timer's, is then held for nobody: the review of session 49's open
        # ``lock_timer_release_direct``)
        if lock.locked() and not held:
            try:
                lock.release()
            except RuntimeError:
                pass
        elif held and not lock.locked():
            lock.acquire(False)


class _QueueItems:
    """A module-level ``queue.SimpleQueue``'s items, read by taking them out and putting them back in order."""

    @staticmethod
    def copy(queue) -> list | None:
        if queue.qsize() > _REACH_ITEMS:
            return None  # (not read: a longer queue taken out and put back in part would lose its order)
        items = _QueueItems.drain(queue)
        for item in items:
            queue.put_nowait(item)
        return items

    @staticmethod
    def put(queue, items) -> None:
        if items is None or queue.qsize() > _REACH_ITEMS:
            return
        _QueueItems.drain(queue)
        for item in items:
            queue.put_nowait(item)

    @staticmethod
    def drain(queue) -> list:
        items = []
        while True:
            try:
                items.append(queue.get_nowait())
            except Exception:  # noqa: BLE001 (``queue.Empty``: done)
                break
        return items


class _Buffer:
    """A module-level ``ctypes`` object's bytes, through the buffer protocol (no ``ctypes`` call)."""

    @staticmethod
    def copy(value) -> bytes | None:
        # (not one that holds pointers: its bytes put back without the objects they point into would point at freed
        # memory; review of session 49)
        kind = _type(value)
        inner = _mro_lookup(kind, "_type_")
        further = _mro_lookup(inner, "_type_") if _class_flags(_type(inner)) & _TYPE_SUBCLASS else None
        keeps = _mro_lookup(kind, "_objects")  # (read through C's own descriptor only: no property of an edit's)
        held = keeps.__get__(value) if _type(keeps) in (types.GetSetDescriptorType, types.MemberDescriptorType) \
            else True
        if (_type(inner) is str and inner in "zZPO") or (_type(further) is str and further in "zZPO") or held:
            return None
        try:
            return memoryview(value).cast("B").tobytes()
        except (TypeError, ValueError, BufferError):
            return None

    @staticmethod
    def put(value, data) -> None:
        if data is None:
            return
        view = memoryview(value).cast("B")
        if view.tobytes() != data:
            view[:] = data


def _mro_lookup(kind, name: str):
    """What the first class of ``kind``'s MRO that holds ``name`` in its own dict holds (no descriptor, no
    ``__getattr__`` runs), or None."""
    for cls in _class_mro(kind):
        own = _class_dict(cls)
        if name in own:
            return own[name]
    return None


def _is_c_data(kind) -> bool:
    """Whether ``kind`` is a ``ctypes`` data type (a buffer, array, structure, simple value)."""
    module = _sys_modules.get("_ctypes")
    if _type(module) is not types.ModuleType:
        return False
    bases = tuple(b for b in (getattr(module, n, None) for n in ("_SimpleCData", "Array", "Structure", "Union"))
                  if b is not None)
    return _any(base in bases for base in _class_mro(kind))


def _c_state(value, kind) -> list:
    if kind is _thread.LockType:
        return [(value, _LockHeld, _LockHeld.copy(value))]
    if kind is _SIMPLE_QUEUE:
        return [(value, _QueueItems, _QueueItems.copy(value))]
    if kind is functools.partial:
        keywords = _partial_keywords(value)
        out = [(keywords, dict, dict.copy(keywords))] if _type(keywords) is dict else []
        # (and the containers among its arguments: round 68's ``partial_args_list``)
        args = _partial_args(value)
        out += [s for item in (args if _type(args) is tuple else ())[:64] for s in _put_back_state(item)]
        return out + [s for function in _functions_in(value, 0) for s in _function_state(function)]
    if kind is decimal.Context:
        return [(value, _DecimalContext, value.copy())]
    if kind is _EVENT:
        return [(value, _EventFlag, value.is_set())]
    return [(value, _Buffer, _Buffer.copy(value))]


_SIMPLE_QUEUE = _queue.SimpleQueue
_EVENT = threading.Event


class _EventFlag:
    """A module-level ``threading.Event``: set or not, put back."""

    @staticmethod
    def copy(event) -> bool:
        return event.is_set()

    @staticmethod
    def put(event, flag) -> None:
        if event.is_set() != flag:
            event.set() if flag else event.clear()
_C_STATE_KINDS = frozenset(map(id, (_thread.LockType, _SIMPLE_QUEUE, functools.partial, decimal.Context)))


class _Loggers:
    @staticmethod
    def put(manager, saved) -> None:
        changed = False
        for logger, level, handlers, filters, propagate, disabled in saved:
            if logger.level != level:
                logger.level, changed = level, True
            if logger.handlers != handlers:
                logger.handlers[:] = handlers
            if logger.filters != filters:
                logger.filters[:] = filters
            logger.propagate, logger.disabled = propagate, disabled
        if changed:
            manager._clear_cache()


class _HandlerDict:
    """A handler's attributes, put back as ``_InstanceDict`` does, but not a stream the run closed (a pristine
    ``basicConfig(force=True)`` closes the handlers it replaces: a ``FileHandler`` given its closed file back failed
    every later write, where with no stream it opens its file again; honest hunt 24's ``logging_basicconfig``)."""

    @staticmethod
    def put(handler, saved) -> None:
        stream = dict.get(saved, "stream")
        try:
            closed = getattr(stream, "closed", False) is True if stream is not None else False
        except Exception:  # noqa: BLE001
            closed = False
        if closed:
            saved = {k: v for k, v in saved.items() if k not in ("stream", "_closed")}
            own = object.__getattribute__(handler, "__dict__")
            for key in ("stream", "_closed"):
                if key in own:
                    saved[key] = dict.__getitem__(own, key)
        _InstanceDict.put(handler, saved)


class _Handlers:
    """The loggers' handlers' levels, formatters and filters, and the logging manager's logger class and record
    factory (``Logger.manager.setLoggerClass``): put back where a call changed them (red-team round 65's
    ``handler_level``, ``manager_logger_class``)."""

    @staticmethod
    def put(manager, saved) -> None:
        handlers, logger_class, factory = saved
        for handler, level, formatter, filters in handlers:
            if handler.level != level:
                handler.level = level
            if handler.formatter is not formatter:
                handler.formatter = formatter
            if handler.filters != filters:
                handler.filters[:] = filters
        if getattr(manager, "loggerClass", None) is not logger_class:
            manager.loggerClass = logger_class
        if getattr(manager, "logRecordFactory", None) is not factory:
            manager.logRecordFactory = factory


class _EmptyCache:
    """A module-level ``functools.lru_cache``/``cache`` wrapper empty before the run, emptied again if the run filled
    it: a "done once" memo (``@cache def _setup(): codecs.register(…)``) must not say done for what the put-back
    undid (honest hunt 24's ``codec_cached``, ``reprlib_cached``…). One that held entries keeps them (no entry can be
    taken out alone)."""

    copy = staticmethod(lambda wrapper: not wrapper.cache_info().currsize)

    @staticmethod
    def put(wrapper, was_empty) -> None:
        if was_empty and wrapper.cache_info().currsize:
            wrapper.cache_clear()


def _empty_caches(space: dict) -> list:
    out = []
    for value in list(dict.values(space))[:2000]:
        if _type(value) is _LRU_WRAPPER:
            try:
                out.append((value, _EmptyCache, not value.cache_info().currsize))
            except Exception:  # noqa: BLE001,S112
                continue
    return out


def _project_modules(module, root: str, declared: dict, seen: set) -> list:
    """The namespaces of ``module`` and of the project modules it binds (a file under ``root``, not a declared one),
    each once per ``seen`` (ids)."""
    out = []
    for value in (module, *(list(dict.values(_namespace(module)))[:2000] if _type(_namespace(module)) is dict else ())):
        if _type(value) is not types.ModuleType or _len(out) >= 16:
            continue
        inner = _namespace(value)
        where = dict.get(inner, "__file__") if _type(inner) is dict else None
        if _type(where) is not str or not _realpath_cached(where).startswith(root) \
                or _realpath_cached(where) in declared or _id(inner) in seen:
            if value is module:
                return out
            continue
        seen.add(_id(inner))
        out.append(inner)
    return out


def _reached_modules(spaces) -> list:
    """``(name, namespace)`` of the library modules (standard library or installed: ``_LIBRARY_PATHS``, or built in)
    that ``spaces`` (the declared modules' namespaces) bind or bind a function or class of, with the loaded submodules
    of their packages; not the interpreter's own machinery (``_REACH_SKIP``, put back elsewhere or not at all), at most
    ``_REACH_MODULES``."""
    wanted = set()
    spaces = list(spaces)
    declared = set(map(_id, spaces))
    # (and the project's other modules the declared ones bind, or bind a function or class of, one level: red-team
    # round 65's ``other_module_reach``, ``ET.register_namespace`` called through ``pkg/mail.py``'s binding)
    # (two levels, and through a class's module: review and red-team round 66's ``two_level_project_reach``,
    # ``other_module_class_reach``)
    level = list(spaces)
    for _ in range(2):
        deeper = []
        for space in level:
            for value in list(dict.values(space))[:2000]:
                kind = _type(value)
                inner = (_namespace(value) if kind is types.ModuleType else _func_globals(value)
                         if kind is types.FunctionType else _namespace(_sys_modules.get(_class_module(value)))
                         if _class_flags(kind) & _TYPE_SUBCLASS else None)
                if _type(inner) is not dict or _id(inner) in declared or _len(spaces) >= 32:
                    continue
                where = dict.get(inner, "__file__")
                if _type(where) is str and not (_realpath_cached(where) or "").startswith(_LIBRARY_PATHS):
                    declared.add(_id(inner))
                    spaces.append(inner)
                    deeper.append(inner)
        level = deeper
    for space in spaces:
        for value in list(dict.values(space))[:2000]:
            kind = _type(value)
            if kind is types.ModuleType:
                name = dict.get(_namespace(value), "__name__")
            elif kind is types.FunctionType:
                name = dict.get(_func_globals(value), "__name__")
            elif _class_flags(kind) & _TYPE_SUBCLASS:
                name = _class_module(value)
            elif kind is types.BuiltinFunctionType:
                module = getattr(value, "__self__", None)
                name = dict.get(_namespace(module), "__name__") if _type(module) is types.ModuleType else None
            else:
                continue
            if _type(name) is str and name.partition(".")[0] not in _REACH_SKIP:
                wanted.add(name.partition(".")[0])
    wanted |= _named_modules(spaces) - _REACH_SKIP
    out = []
    for name, module in list(_sys_modules.items()):
        if _type(name) is not str or name.partition(".")[0] not in wanted or _type(module) is not types.ModuleType:
            continue
        space = _namespace(module)
        where = dict.get(space, "__file__") if _type(space) is dict else None
        if _type(space) is not dict or (where is not None and (_type(where) is not str or not (
                _realpath_cached(where) or "").startswith(_LIBRARY_PATHS))):
            continue
        out.append((name, space))
        if _len(out) >= _REACH_MODULES:
            break
    return out


def _named_modules(spaces) -> set:
    """Top-level names of loaded packages the code of ``spaces``' functions and classes names without binding them:
    a module's name among its string constants, dotted (``sys.modules["email.charset"]``) or in code that imports by
    name (``import_module("colorsys")``, ``__import__``, ``sys.modules``), or a module reached as an attribute of a
    module the spaces bind, three levels down (``urllib.request.http.client``, where ``http`` is another package):
    red-team rounds 66-67. An attribute name alone is not enough (``user.email``, ``resp.json()`` would pull whole
    packages into every check's saves: review of session 49). Only exact ``str`` objects are looked up (a ``str``
    subclass among constants would run its own ``__hash__``)."""
    reachable: set = set()
    level = [v for space in spaces for v in list(dict.values(space))[:2000] if _type(v) is types.ModuleType]
    for _ in range(3):
        deeper = []
        for module in level:
            inner = _namespace(module)
            for value in list(dict.values(inner))[:2000] if _type(inner) is dict else ():
                if _type(value) is types.ModuleType and _id(value) not in reachable:
                    reachable.add(_id(value))
                    deeper.append(value)
        level = deeper[:256]
    codes, found, seen = [], set(), set()
    for space in spaces:
        own = dict.get(space, "__name__")
        for value in list(dict.values(space))[:2000]:
            kind = _type(value)
            # (only what the space itself makes: a library function or class it binds is the library's code)
            if kind is types.FunctionType and _func_globals(value) is space:
                codes.append(_func_code(value))
            elif _class_flags(kind) & _TYPE_SUBCLASS and _type(own) is str and _type(_class_module(value)) is str \
                    and _class_module(value) == own:
                for member in list(_proxy_values(_class_dict(value)))[:256]:
                    kind = _type(member)
                    inners = ((member,) if kind is types.FunctionType else (_static_func(member),)
                              if kind is staticmethod else (_class_method_func(member),) if kind is classmethod
                              else tuple(part(member) for part in _property_parts) if kind is property else ())
                    codes += [_func_code(inner) for inner in inners if _type(inner) is types.FunctionType]
    while codes and _len(seen) < 4096:
        code = codes.pop()
        if _type(code) is not types.CodeType or _id(code) in seen:
            continue
        seen.add(_id(code))
        names = [n for n in code.co_names if _type(n) is str]
        dynamic = not _DYNAMIC_IMPORT.isdisjoint(names)
        for const in code.co_consts:
            if _type(const) is types.CodeType:
                codes.append(const)
            elif _type(const) is str and 0 < _len(const) < 200 and ("." in const or dynamic) \
                    and _type(_sys_modules.get(const)) is types.ModuleType:
                found.add(const.partition(".")[0])
        for name in names:
            module = _sys_modules.get(name)
            if _type(module) is types.ModuleType and _id(module) in reachable:
                found.add(name)
    return found


# Names whose presence makes a function's plain string constants module names (an import by name)
_DYNAMIC_IMPORT = frozenset({"import_module", "__import__", "modules", "_gcd_import", "resolve_name", "find_spec",
                             "reload", "run_module"})


# The interpreter's own machinery, never among the reached modules: what it holds is the import system's, the threads',
# the plugin's, or is put back on its own (``_Registries``, ``_Settings``)
_REACH_SKIP = frozenset({"sys", "builtins", "importlib", "_frozen_importlib", "_frozen_importlib_external", "_imp",
                         "threading", "_thread", "weakref", "_weakref", "_weakrefset", "abc", "_abc", "gc", "types",
                         "os", "posix", "posixpath", "io", "_io", "encodings", "codecs", "_codecs", "warnings",
                         "_warnings", "site", "pytest", "_pytest", "pluggy", "beacon_canary_plugin", "contextvars",
                         "_contextvars", "signal", "_signal", "faulthandler", "atexit", "marshal", "zipimport"})
# (``_REACH_ITEMS``: 4,096 since red-team round 65's ``html.entities.html5``, 2,231 entries, was passed by at 1,000)
_REACH_MODULES, _REACH_NAMES, _REACH_CONTAINERS, _REACH_ITEMS, _REACH_CLASSES = 96, 512, 256, 4096, 256
_REACH_INSTANCES = 128
_DICT_KINDS = (collections.defaultdict, collections.OrderedDict, collections.Counter)


def _module_saves(name: str, space: dict, counts: list) -> list:
    """Saved states (put back only) of a library module ``name``: its names (``_LibraryNames``), its lists, dicts and
    sets (up to ``_REACH_ITEMS`` items each), its own classes' names, and the attributes of its module-level objects of
    a library class of its own (``_InstanceDict``: ``reprlib.aRepr.maxstring``, ``logging.lastResort``'s level,
    ``multiprocessing``'s default context; red-team round 65). ``counts``: containers, classes and objects saved so
    far, each capped (``_REACH_CONTAINERS``, ``_REACH_CLASSES``, ``_REACH_INSTANCES``)."""
    # (and its ``lru_cache``s the run first filled: round 68's ``functools_lru_in_library``, ``fnmatch``'s patterns)
    out = [(space, _LibraryNames, dict.copy(space))] + _empty_caches(space)
    for value in list(dict.values(space))[:_REACH_NAMES]:
        kind = _type(value)
        base = kind if kind is list or kind is dict or kind is set else dict if kind in _DICT_KINDS else None
        if base is not None and counts[0] < _REACH_CONTAINERS and _len(value) <= _REACH_ITEMS:
            counts[0] += 1
            out.append((value, base, base.copy(value)))  # (a ``defaultdict``'s items: round 66's overload registry)
        elif _class_flags(kind) & _TYPE_SUBCLASS:
            if _class_flags(value) & _HEAPTYPE and counts[1] < _REACH_CLASSES and _class_module(value) == name:
                counts[1] += 1
                out.append((value, _ClassNames, _ClassNames.copy(value)))
                # (and its lists, dicts and sets: round 66's ``RawConfigParser.BOOLEAN_STATES.update``)
                out += _class_containers(value)
                # (and its objects of the package's classes, with their containers: ``EmailPolicy.header_factory``'s
                # registry, round 66; not ``logging.Logger.manager``'s logger table, whose loggers a run made stay
                # for ``_Handlers``: honest hunt 21's ``log_filehandler_min`` lost its file handler's lines)
                for item in list(_proxy_values(_class_dict(value)))[:_REACH_NAMES]:
                    item_kind = _type(item)
                    if _class_flags(item_kind) & _HEAPTYPE and not _class_flags(item_kind) & _TYPE_SUBCLASS \
                            and item_kind is not types.ModuleType:
                        out += _instance_saves(item, name.partition(".")[0], counts,
                                               1 if name.partition(".")[0] == "logging" else 2)
        elif _class_flags(kind) & _HEAPTYPE and kind is not types.ModuleType:
            out += _instance_saves(value, name.partition(".")[0], counts, 2)
    return out


def _instance_saves(value, top: str, counts: list, depth: int) -> list:
    """``_InstanceDict`` of a library module's object of a class of the module's own package, and, ``depth`` levels
    down, the lists, dicts and sets its attributes hold and its attributes' objects of that package's classes:
    ``email.policy.default.header_factory.registry`` filled in place by ``map_to_type``, red-team round 66's
    ``policy_header_factory``."""
    kind = _type(value)
    if counts[2] >= _REACH_INSTANCES or _type(_class_module(kind)) is not str \
            or _class_module(kind).partition(".")[0] != top:
        return []
    own = _InstanceDict.copy(value)
    if own is None:
        return []
    counts[2] += 1
    out = [(value, _InstanceDict, own)]
    if depth <= 1:
        return out
    for item in list(dict.values(own))[:_REACH_NAMES]:
        item_kind = _type(item)
        base = (item_kind if item_kind is list or item_kind is dict or item_kind is set
                else dict if item_kind in _DICT_KINDS else None)
        if base is not None and counts[0] < _REACH_CONTAINERS and _len(item) <= _REACH_ITEMS:
            counts[0] += 1
            out.append((item, base, base.copy(item)))
        elif base is None and _class_flags(item_kind) & _HEAPTYPE and not _class_flags(item_kind) & _TYPE_SUBCLASS \
                and item_kind is not types.ModuleType:
            out += _instance_saves(item, top, counts, depth - 1)
    return out


class _InstanceDict:
    """An object's own attributes (a library module's object: ``_module_saves``), read and put back through
    ``object``'s ``__dict__`` (no code of its class runs): what each held put back by identity, a name added since
    removed."""

    @staticmethod
    def copy(value) -> dict | None:
        try:
            own = object.__getattribute__(value, "__dict__")
        except (AttributeError, TypeError):
            return None
        return dict.copy(own) if _type(own) is dict and _len(own) <= _REACH_NAMES else None

    @staticmethod
    def put(value, saved) -> None:
        try:
            own = object.__getattribute__(value, "__dict__")
        except (AttributeError, TypeError):
            return
        if _type(own) is not dict:
            return
        for key in [k for k in list(own) if k not in saved]:
            dict.pop(own, key, None)
        for key, held in saved.items():
            if dict.get(own, key, _ABSENT) is not held:
                dict.__setitem__(own, key, held)


class _LibraryNames:
    """A library module's names (``_Shadow._library_reach``): what each held put back by identity; a name bound
    since is removed, unless it holds a module (a submodule imported meanwhile is bound on its package: taking it
    off would break ``package.submodule``)."""

    copy = staticmethod(lambda space: dict.copy(space))

    @staticmethod
    def put(space, saved) -> None:
        name = dict.get(space, "__name__")
        for key in [k for k in list(space) if k not in saved]:
            value = dict.get(space, key)
            if _type(value) is not types.ModuleType or not (_type(name) is str and _type(key) is str and _sys_modules.get(
                    f"{name}.{key}") is value):  # (a module bound under another name: round 66's ``cElementTree``)
                dict.pop(space, key, None)
        for key, value in saved.items():
            if dict.get(space, key, _ABSENT) is not value:
                dict.__setitem__(space, key, value)


class _NewLoggers:
    """The loggers a call made (``logging.getLogger`` of a new name): given a new logger's settings back — no
    handler, no filter, level unset — where the call gave them some (honest hunt 21: the pristine run's first
    ``getLogger`` added the handler, and the honest repair's real call, finding one, added none)."""

    @staticmethod
    def put(manager, saved) -> None:
        kind, known = saved
        changed = False
        for logger in list(dict.values(manager.loggerDict)):
            if _id(logger) in known or _type(logger) is not kind:  # (the library's own class: no edit code runs)
                continue
            if logger.handlers or logger.filters or logger.level or not logger.propagate or logger.disabled:
                logger.handlers[:], logger.filters[:] = [], []
                logger.level, logger.propagate, logger.disabled, changed = 0, True, False, True
        if changed:
            manager._clear_cache()


class _Environment:
    """The process's environment (``_Shadow._restored_only``): ``os.environ``'s own mapping, put back with
    ``putenv``/``unsetenv`` where it differs."""

    @staticmethod
    def copy(_) -> dict | None:
        data = getattr(_ENVIRON, "_data", None)
        return dict(data) if _type(data) is dict else None

    @staticmethod
    def put(_, saved) -> None:
        data = getattr(_ENVIRON, "_data", None)
        if saved is None or _type(data) is not dict or data == saved:
            return
        for key in [k for k in data if k not in saved]:
            try:
                _unsetenv(key)
            except (OSError, ValueError):
                pass
            dict.pop(data, key, None)
        zone = dict.get(data, b"TZ")
        for key, value in saved.items():
            if dict.get(data, key, _ABSENT) != value:
                try:
                    _putenv(key, value)
                except (OSError, ValueError):
                    pass
                dict.__setitem__(data, key, value)
        if zone != dict.get(data, b"TZ"):
            time.tzset()  # (the zone a call set through ``TZ``: the C library's is read again)


_ENVIRON, _putenv, _unsetenv = os.environ, os.putenv, os.unsetenv


class _ThreadLocal:
    """A ``threading.local``'s attributes in this thread (``_Shadow._restored_only``), put back in place."""

    @staticmethod
    def copy(local) -> dict | None:
        try:
            own = _THREAD_LOCAL.__getattribute__(local, "__dict__")
        except AttributeError:
            return None
        return dict.copy(own) if _type(own) is dict else None

    @staticmethod
    def put(local, saved) -> None:
        if saved is None:
            return
        own = _THREAD_LOCAL.__getattribute__(local, "__dict__")
        if _type(own) is dict and own != saved:
            dict.clear(own)
            dict.update(own, saved)


_THREAD_LOCAL = _thread._local
_PROCESS_STATE = (_Registries,)


class _Cycle:
    """An ``itertools.cycle`` (``_Shadow._restored_only``): what it has saved and where it is, through its own
    ``__reduce__``/``__setstate__`` — on its first pass, the list it saved and its source iterator's index (a list's,
    tuple's or range's); after it, its place in the saved list, reached again by ``next``."""

    @staticmethod
    def copy(cycle):
        try:
            reduced = itertools.cycle.__reduce__(cycle)
            source, (saved, repeating) = reduced[1][0], reduced[2]
        except (TypeError, ValueError, IndexError):
            return None
        if not repeating:
            index = _Iterator.copy(source) if _id(_type(source)) in _INDEXED_ITERATORS else _ABSENT
            return False, list(saved), source, index
        place = _Iterator.copy(source) if _id(_type(source)) in _INDEXED_ITERATORS else _ABSENT
        return True, list(saved), None, place

    @staticmethod
    def put(cycle, state) -> None:
        if state is None:
            return
        repeating, saved, source, index = state
        if _Cycle.copy(cycle) == state:
            return
        itertools.cycle.__setstate__(cycle, (list(saved), repeating))
        if not repeating:
            _Iterator.put(source, index)
        elif _type(index) is int and 0 < index < _len(saved):
            for _ in range(index):
                next(cycle)


class _ClassNames:
    """A class's own names (``_Shadow._restored_only``): what each holds, put back by identity through ``type``'s own
    ``__setattr__``/``__delattr__`` (no metaclass code runs); a name added since is removed."""

    @staticmethod
    def copy(cls) -> dict:
        return dict(_class_dict(cls))

    @staticmethod
    def put(cls, names) -> None:
        for name, value in list(_class_dict(cls).items()):
            if _type(name) is not str or name[:2] == "__" and name[-2:] == "__":
                continue
            try:
                if name not in names:
                    type.__delattr__(cls, name)
                elif dict.__getitem__(names, name) is not value:
                    type.__setattr__(cls, name, dict.__getitem__(names, name))
            except (TypeError, AttributeError):
                continue


class _Cells:
    """A function's closure cells (``_Shadow._restored_only``): their contents, put back in place."""

    @staticmethod
    def copy(function) -> list:
        out = []
        for cell in _func_closure(function) or ():
            try:
                out.append(cell.cell_contents)
            except ValueError:  # (an empty cell)
                out.append(_ABSENT)
        return out

    @staticmethod
    def put(function, contents) -> None:
        for cell, value in zip(_func_closure(function) or (), contents):
            if value is not _ABSENT:
                cell.cell_contents = value


_PUT_KINDS = frozenset(map(id, (_Cells, _Iterator, _ClassNames, _Generator, _Cwd, _Held, _Library, _Attrs, _Rebound,
                                 _Environment, _ThreadLocal, _Cycle, _Mapping, _Registries, _RandomState, _PutBackAttrs,
                                 _CsvDialects, _DecimalContext, _Loggers, _Settings, _Finalizers, _NewLoggers,
                                 _LibraryNames, _InstanceDict, _Handlers, _EmptyCache, _HandlerDict,
                                 _Nested, _LockHeld, _QueueItems, _Buffer, _EventFlag)))


def _restore(saved) -> None:
    """Give containers saved by ``_Shadow._containers`` their contents back."""
    _WORK[0] += 80 * _len(saved) + sum(_len(contents) for _, _, contents in saved if _type(contents) in _SIZED)
    for container, base, contents in saved:
        if base is _Names:
            container.put(contents)
        elif _id(base) in _PUT_KINDS:  # (a kind of saved state with a ``put(container, contents)`` of its own)
            base.put(container, contents)
        elif base is list:
            list.__setitem__(container, slice(None), contents)
        else:
            base.clear(container)
            base.update(container, contents)


def _imported_names(module, path=None) -> list | None:
    """``(name, source module, attribute)`` for each top-level ``from source import attribute as name`` of a test
    module's file (relative imports resolved by its package), and ``(name, module, None)`` for each ``import module``
    (``import a.b`` binds ``a``), or None when the file cannot be read. ``path``: the file pytest collected (the
    module's ``__file__`` is the module's to say: red-team round 36 pointed it nowhere)."""
    try:
        path = os.fspath(path) if path is not None else getattr(module, "__file__", None)
        with open(path, "rb") as fh:
            tree = compile(fh.read(), "<test module>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)  # (C: no ast.parse)
    except (SyntaxError, OSError, TypeError, ValueError, RecursionError, MemoryError):
        # (a module pytest imported compiled from this file: a SyntaxError now is not the file's, it fails closed;
        # red-team round 37 raised one from an audit hook so that no name was checked)
        return None
    package = getattr(module, "__package__", None) or ""
    out = []
    for node in tree.body:
        if isinstance(node, ast.Import):  # (round 36: a module name rebound in the test module before collection)
            out += [(a.asname, a.name, None) if a.asname else (a.name.partition(".")[0], a.name.partition(".")[0], None)
                    for a in node.names]
            continue
        if not isinstance(node, ast.ImportFrom) or any(a.name == "*" for a in node.names):
            continue
        if node.level:
            parts = package.split(".") if package else []
            if node.level - 1 > len(parts):
                continue
            base = ".".join(parts[:len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        out += [(a.asname or a.name, base, a.name) for a in node.names if base]
    return out


def _is_module(value) -> bool:
    """Whether ``value`` is a module (its class ``ModuleType`` or a subclass), read from the class's real MRO."""
    return _any(_map(_is, _class_mro(_type(value)), _repeat(types.ModuleType)))


def _module_class_why(module) -> str | None:
    """Why a module's class (not ``ModuleType`` itself) changes what ``getattr`` on the module answers: a
    ``__getattribute__`` of its own, or a data descriptor (a property, a slot) in the class or a base before
    ``ModuleType``, which wins over the module's namespace. A subclass that only adds ``__getattr__`` (for names the
    module lacks) or methods, as deprecation shims do, is fine."""
    cls = _type(module)
    if cls is types.ModuleType:
        return None
    for klass in _class_mro(cls):
        if klass is types.ModuleType:
            break
        own = _class_dict(klass)
        if not _str_keys(own):
            return f"its class {_class_name(cls)} has a key that is not a string"
        for name, value in list(types.MappingProxyType.items(own)):
            if name == "__getattribute__" or (name[:2] != "__" and (_mro_has(_type(value), "__set__")
                                                                    or _mro_has(_type(value), "__delete__"))):
                return f"its class {_class_name(cls)} answers {name!r} itself, not from the module's namespace"
    return None


def _mro_has(cls, name: str) -> bool:
    """Whether ``cls`` or a base defines ``name`` in its own dict (read without running anything; a dict holding a
    key that is not a string counts as yes)."""
    for klass in _class_mro(cls):
        own = _class_dict(klass)
        if not _str_keys(own) or name in own:
            return True
    return False


def _source_value(source: str, attribute: str, scan: bool = False):
    """What the module ``source`` holds under ``attribute`` (``_ABSENT`` when it is not loaded or does not). ``scan``:
    also ``_ABSENT`` when its namespace holds a key that is not a string (at collection; later checks ask
    ``_Watch.odd_keys`` first, which reports it)."""
    origin = _sys_modules.get(source)
    if attribute is None:  # (``import source``: the module itself)
        return origin if origin is not None else _ABSENT
    # (a subclass too: red-team round 35 gave the declared module a class whose property ``add`` handed the tests
    # operator.add while the namespace kept the def; the namespace is what the checks judge)
    held = _namespace(origin) if _is_module(origin) else None
    if held is None or (scan and not _str_keys(held)):
        return _ABSENT
    return dict.get(held, attribute, _ABSENT)


_PRECOMPUTE_FILES = 400  # at most this many test folders' files rewritten before any project code (_Comparisons.precompute)


def _with_filename(code, filename: str):
    """``code`` and the code objects in its constants with ``co_filename`` set to ``filename``."""
    consts = tuple(_with_filename(c, filename) if _type(c) is types.CodeType else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


_PATCHED_ANY: set = set()  # every (id(holder), name) a test's monkeypatch or mock.patch set (_Watch.module_changes)
_PATCHED_VALUES: dict = {}  # (id(holder), name) -> the value the last such patch put there (_RewriteGuard)
_DECLARED: set = set()  # the declared sources' real paths (set by the plugin): their frames patch nothing for a test


def _declared_on_stack() -> bool:
    """Whether code of a declared source is anywhere on this thread's stack."""
    frame = _sys_getframe(1)
    while frame is not None:
        if _realpath_cached(frame.f_code.co_filename) in _DECLARED:
            return True
        frame = frame.f_back
    return False


def _known_to_inspect(module) -> None:
    """Tell ``inspect`` which module the canaries' file is, as its own scan would find. pytest formats must_fail's
    failure through ``inspect.getsourcefile``, and for a file that is gone (the canaries' module is deleted once
    imported) ``inspect.getmodule`` resolves every loaded module's file (``os.path.realpath`` each, ~25 ms with
    pytest's ~500 modules) to find it, in every run. Its cache maps the file to the name it would have found."""
    inspect = _sys_modules.get("inspect")
    cache = getattr(inspect, "modulesbyfile", None)
    name = getattr(module, "__name__", None)
    filename = getattr(module, "__file__", None)
    if type(cache) is dict and type(name) is str and type(filename) is str and _sys_modules.get(name) is module:
        cache.setdefault(filename, name)


def _record_patches() -> None:
    """Wrap pytest's ``MonkeyPatch.setattr`` and ``unittest.mock``'s ``_patch.__enter__`` so that each module or class
    attribute a test sets through them is noted in ``patched`` as ``(id(holder), name)`` (the holder: a module's
    namespace dict, or the class) in ``_PATCHED_ANY``. Code under test that reaches either is a screen finding
    (``test_framework``). Installed when the plugin is created, before its watch of pytest's internals notes them."""
    def note(holder, name):
        space = _namespace(holder) if _type(holder) is types.ModuleType else holder
        if type(name) is not str or _get_ident() != _MAIN_THREAD or _declared_on_stack():
            return  # (red-team rounds 33, 34: only a test's own patch is one, not the code under test calling
            # monkeypatch, in this thread or through another it started, whose stack holds no frame of it)
        _PATCHED_ANY.add((_id(space), name))
        if _type(space) is dict:
            _PATCHED_VALUES[(_id(space), name)] = dict.get(space, name, _ABSENT)
        elif _is_class(space):
            _PATCHED_VALUES[(_id(space), name)] = types.MappingProxyType.get(_class_dict(space), name, _ABSENT)
    try:
        from _pytest.monkeypatch import MonkeyPatch
        original = MonkeyPatch.setattr
        if not getattr(original, "_beacon_noted", False):
            def setattr(self, *args, **kwargs):
                result = original(self, *args, **kwargs)
                if self._setattr:
                    note(self._setattr[-1][0], self._setattr[-1][1])
                return result
            setattr._beacon_noted = True
            MonkeyPatch.setattr = setattr
    except Exception:  # noqa: BLE001,S110 (another pytest: monkeypatched names then get their pristine values)
        pass

    def wrap_mock(mock) -> None:
        try:
            entered = mock._patch.__enter__
            if not getattr(entered, "_beacon_noted", False):
                def __enter__(self):
                    result = entered(self)
                    note(self.target, self.attribute)
                    return result
                __enter__._beacon_noted = True
                mock._patch.__enter__ = __enter__
        except Exception:  # noqa: BLE001,S110
            pass

    mock = _sys_modules.get("unittest.mock")
    if mock is not None:
        wrap_mock(mock)
    else:  # (importing it costs ~30 ms of every run, asyncio with it: wrapped as it is imported, by whom ever)
        sys.meta_path.insert(0, _WrapOnImport("unittest.mock", wrap_mock))


class _WrapOnImport:
    """A finder first on ``sys.meta_path``: the module ``name``, when it is imported, is found by the finders after
    this one and ``wrap`` is called with it once it has run. Code that takes this finder out only leaves the module
    unwrapped (for ``unittest.mock``: a test's patches then excuse nothing)."""

    def __init__(self, name: str, wrap):
        self._name, self._wrap = name, wrap

    def find_spec(self, name, path=None, target=None):
        if _type(name) is not str or name != self._name:
            return None
        spec = None
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None) if finder is not self else None
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                break
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        spec.loader = _WrappingLoader(loader, self._wrap)
        return spec


class _WrappingLoader:
    """``loader``'s module creation and execution, then ``wrap(module)``."""

    def __init__(self, loader, wrap):
        self._loader, self._wrap = loader, wrap

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._wrap(module)

    def __getattr__(self, name):  # (get_source, get_code, is_package … of the loader, for inspect and linecache)
        return getattr(self._loader, name)


def _record_threads(starts: dict, files: dict) -> None:
    """Wrap ``_thread.start_new_thread`` (every thread's start: ``threading``'s, an executor's) so that each thread
    started is noted in ``starts`` by its ident: the thread that started it and the declared files' code objects on
    the starter's stack (64 frames). :meth:`_Shadow._origin` judges from them whether the edited code started it."""
    original = _thread.start_new_thread
    if getattr(original, "_beacon_noted", False):
        return

    def start_new_thread(function, args, kwargs=_ABSENT):
        frame, codes, depth = _getframe(1), [], 0
        while frame is not None and depth < 64:
            if _realpath_cached(frame.f_code.co_filename) in files:
                codes.append(frame.f_code)
            frame, depth = frame.f_back, depth + 1
        starter = _get_ident()
        ident = original(function, args) if kwargs is _ABSENT else original(function, args, kwargs)
        starts[ident] = (starter, tuple(codes))  # (an ident reused by a later thread gets that thread's record)
        return ident

    start_new_thread._beacon_noted = True
    # (``threading`` took its own reference when it was imported, before this plugin; ``start_new`` is the alias)
    _thread.start_new_thread = _thread.start_new = threading._start_new_thread = start_new_thread


def _codes_within(code):
    """The code objects nested in ``code``, at any depth."""
    for const in code.co_consts:
        if type(const) is types.CodeType:
            yield const
            yield from _codes_within(const)


def _made_with_defaults(outer, inner) -> bool:
    """Whether the code that makes the function of ``inner`` (somewhere in ``outer``) gives it defaults or keyword
    defaults (``MAKE_FUNCTION``'s flags 0x01, 0x02); True when that cannot be found."""
    for code in (outer, *_codes_within(outer)):
        if not _any(const is inner for const in code.co_consts):
            continue
        loaded = False
        for op in _get_instructions(code):
            if op.opname == "LOAD_CONST" and op.argval is inner:
                loaded = True
            elif loaded and op.opname == "MAKE_FUNCTION":
                return bool(op.arg & 0x03)
        return True
    return True


class _Steps:
    """A changed generator being checked in step with its pristine version (``_Shadow._resume``)."""

    __slots__ = ("frame", "values", "copies", "call", "mask", "counted", "actions", "generator", "yielded")

    def __init__(self, frame, values, copies, call, mask, counted):
        self.frame, self.values, self.copies, self.call, self.mask = frame, values, copies, call, mask
        self.counted, self.actions, self.generator = counted, [], None
        # the last resume's yielded objects, real and pristine, when they were found alike and are not immutable
        self.yielded = None

    def begin(self, copied):
        """The pristine generator on ``copied``, or an iterator over what the pristine function returns (a generator
        written where the pristine code returns ``zip(…)`` or a list)."""
        made = self.call(copied)
        return made if _type(made) is types.GeneratorType else iter(made)

    def advance(self, copied, action):
        """The pristine generator advanced as the changed one was: ``("yield", value)`` or ``("return", value)``."""
        if self.generator is None:
            self.generator = self.begin(copied)
        return _advance(self.generator, action)

    def replay(self, copied):
        """A second pristine generator, on ``copied``, taken through every resume so far: the last one's outcome."""
        generator = self.begin(copied)
        try:
            for action in self.actions:
                outcome = _advance(generator, action)
            return outcome
        finally:
            if _type(generator) is types.GeneratorType:
                generator.close()


def _advance(generator, action):
    try:
        if action[0] == "throw" and _type(generator) is not types.GeneratorType:
            raise action[1]  # (a built-in iterator cannot be thrown into: the exception is what it would give)
        value = generator.throw(action[1]) if action[0] == "throw" else (
            generator.send(action[1]) if action[0] == "send" else next(generator))
    except StopIteration as stop:
        return "return", stop.value
    return "yield", value


def _stepped(result):
    """``_Shadow._run``'s answer for a generator's resume: ``(kind, value, data)`` with the kind the resume's."""
    if type(result) is str or result[0] != "return":
        return result
    return (*result[1], result[2])


_FIRST_RESUMES: dict = {}
_SENDS_IGNORED: dict = {}


def _first_resume(code) -> int:
    """The offset of a code's first instruction (``RESUME 0``): a generator's frame is there at its first resume."""
    known = _FIRST_RESUMES.get(code)
    if known is None:
        known = -1
        for op in _get_instructions(code):
            if op.opname == "RESUME" and op.arg == 0:
                known = op.offset
                break
        _FIRST_RESUMES[code] = known
    return known


def _ignores_sends(code) -> bool:
    """Whether every ``yield`` of a generator's code drops the value ``send`` gives it (a ``yield`` statement:
    ``RESUME`` then ``POP_TOP``) or passes it on (``yield from``'s loop)."""
    known = _SENDS_IGNORED.get(code)
    if known is None:
        ops = list(_get_instructions(code))
        known = _SENDS_IGNORED[code] = _all(
            i + 2 < len(ops) and ops[i + 2].opname in ("POP_TOP", "JUMP_BACKWARD_NO_INTERRUPT")
            for i, op in enumerate(ops) if op.opcode == _YIELD_VALUE)
    return known


def _exit_as_used(outcome):
    """An ``__exit__``'s outcome as ``with`` uses it: a returned ``None`` as ``False`` (only exact ``None``; any other
    value as it is)."""
    if outcome[0] == "return" and outcome[1] is None:
        return ("return", False, *outcome[2:])
    return outcome


def _immutable(value, depth: int = 0) -> bool:
    """Whether ``value`` is immutable built-in data by exact class (a tuple of such, a few levels deep): one object
    both the real and the pristine generator may be given."""
    kind = _type(value)
    if kind in _PLAIN_SCALARS or kind is bytes or kind is complex:
        return True
    return kind is tuple and depth < 4 and _all(_immutable(v, depth + 1) for v in value)


_LOCK, _RLOCK = _thread.LockType, _thread.RLock
_LOCKED, _RLOCK_OWNED = _thread.LockType.locked, _thread.RLock._is_owned
_CONDITION_LOCK = threading.Condition


def _lock_held(spaces) -> bool:
    """Whether a lock a declared module holds (a module-level name, or a class attribute of a class defined there;
    ``Lock``, an ``RLock`` another thread owns, a ``Condition``'s) is taken: pristine code that takes it would wait
    forever. Read through the C types' own methods: no project code runs."""
    for space in spaces:
        values = list(dict.values(space)) if _type(space) is dict else []
        values += [v for c in values if _is_class(c) for v in _proxy_values(_class_dict(c))]
        for value in values[:5000]:
            kind = _type(value)
            if kind is _CONDITION_LOCK:
                inner = _instance_dict_getter(kind)
                own = inner(value, kind) if inner is not None else None
                value = dict.get(own, "_lock") if _type(own) is dict else None
                kind = _type(value)
            if kind is _LOCK and _LOCKED(value) or kind is _RLOCK and _RLOCK_OWNED(value) is False and (
                    _rlock_taken(value)):
                return True
    return False


def _rlock_taken(lock) -> bool:
    """Whether another thread owns the ``RLock`` (its repr says "locked"; the owner is not this thread)."""
    return _type(lock) is _RLOCK and "<locked" in _RLOCK.__repr__(lock)


def _suspended(frame, code) -> bool | None:
    """At a generator frame's "return" event: whether it yielded (CPython 3.11 marks the generator suspended before
    the event) rather than returned or let an exception out; None where that cannot be read. The state is the byte
    before the generator's interpreter frame, after padding (``gi_frame_state``, an int8: -1 suspended, 0
    running)."""
    if _sys_version[:2] != (3, 11):
        return None
    base = _CDATA_VALUE(_POINTER_AT(_id(frame) + _F_FRAME))
    if not base or _CDATA_VALUE(_POINTER_AT(base + _F_CODE)) != _id(code):
        return None
    state = _CDATA_VALUE(_INT8_AT(base - 5))
    return state == -1 if state in (-1, 0) else None


def _sent_value(frame, code) -> tuple:
    """``(True, value)``: what the resume of a generator's ``frame`` was given (``None`` by ``next``, the value by
    ``send``), read from the top of its value stack during the trace function's "call" event; ``(False, None)``
    where it cannot be read (another interpreter than CPython 3.11, a frame laid out otherwise)."""
    if _sys_version[:2] != (3, 11):
        return False, None
    base = _CDATA_VALUE(_POINTER_AT(_id(frame) + _F_FRAME))
    if not base or _CDATA_VALUE(_POINTER_AT(base + _F_CODE)) != _id(code):
        return False, None  # (not the frame's own code where 3.11 keeps it: another layout)
    top = _CDATA_VALUE(_INT_AT(base + _STACKTOP))
    names = _len(code.co_varnames) + _len(code.co_freevars) + _len(
        [n for n in code.co_cellvars if n not in code.co_varnames])
    if not names < top <= names + code.co_stacksize:
        return False, None
    try:
        return True, _CDATA_VALUE(_OBJECT_AT(base + _LOCALSPLUS + 8 * (top - 1)))
    except ValueError:  # (an empty slot)
        return False, None


def _release_locals(frame, returned=None) -> None:
    """Drop a returning frame's own local variables (not its cells: closures it made keep theirs), so what their
    ends do happens now. Not when the frame returns its ``locals()`` dict (alone, or in a tuple or list): the caller
    holds it, with what it holds (red-team round 17's FP17-6: the check emptied a dict a function returned)."""
    code = frame.f_code
    keep = set(code.co_cellvars) | set(code.co_freevars)
    local = frame.f_locals
    if returned is local or (_type(returned) in (tuple, list) and _any(item is local for item in returned)):
        return
    for name in code.co_varnames:
        if name not in keep:
            local.pop(name, None)
    _locals_to_fast(frame, 1)


_FRAME_NAMES = frozenset({"_getframe", "currentframe", "getouterframes", "getinnerframes", "extract_stack",
                          "walk_stack", "print_stack", "format_stack", "getframeinfo", "f_back"})
_READS_FRAMES: dict = {}  # _ohash(code) (no audit event: asked at every call) -> (code, whether it reads frames)


def _reads_frames(code) -> bool:
    """Whether ``code`` (or code nested in it) names a way to its callers' frames: ``sys._getframe``,
    ``inspect.currentframe``/``stack``/``getouterframes``…, ``traceback.extract_stack``, ``frame.f_back``."""
    known = _READS_FRAMES.get(_ohash(code))
    if known is not None and known[0] is code:
        return known[1]
    found, todo = False, [code]
    while todo and not found:
        item = todo.pop()
        names = frozenset(item.co_names)
        found = bool(names & _FRAME_NAMES) or ("inspect" in names and ("stack" in names or "trace" in names))
        todo += [c for c in item.co_consts if _type(c) is types.CodeType]
    _READS_FRAMES[_ohash(code)] = (code, found)
    return found


_LOCAL_OPS = frozenset(dis.opmap[name] for name in ("LOAD_FAST", "LOAD_FAST_CHECK", "STORE_FAST", "DELETE_FAST")
                       if name in dis.opmap)


def _reads_local(code, name: str) -> bool:
    """Whether ``code`` reads, writes or captures its local ``name`` (a cell a nested function holds counts)."""
    if name in code.co_cellvars:
        return True
    return _any(op.opcode in _LOCAL_OPS and op.argval == name for op in _get_instructions(code))


def _first_two(values) -> tuple:
    """The first two of a call's argument values, None for those it has not (a call with no arguments: session 37's
    FP40-1, every changed function without parameters read tampered, "the check of a call … raised TypeError")."""
    return (values[0] if _len(values) > 0 else None, values[1] if _len(values) > 1 else None)


def _is_sentinel(value) -> bool:
    """Whether ``value`` is an identity token: a bare ``object()``, or an instance of a Python class (not a class, a
    container or a function) with no instance state (an empty ``__dict__`` or none, no slot set). Read through C
    descriptors; nothing of the value's runs."""
    kind = _type(value)
    if kind is object:
        return True
    flags = _class_flags(kind)
    if not flags & _HEAPTYPE or flags & _TYPE_SUBCLASS or _container_base(kind) is not None:
        return False
    getter = _instance_dict_getter(kind)
    own = getter(value, kind) if getter is not None else None
    if own is not None and (_type(own) is not dict or dict.__len__(own)):
        return False
    return not _any(_read(get, value) is not _ABSENT for _, get in _slot_getters(kind))


def _mutables(value, files: dict, limit: int = _COPY_NODES):
    """The lists, dicts, sets, bytearrays and instances with a ``__dict__`` or slots that ``value`` reaches (as
    :func:`_small` walks), by id, or None when it reaches a Python function from outside the declared ``files``."""
    stack, seen, out = [value], set(), {}
    while stack and len(seen) <= limit:
        item = stack.pop()
        if _id(item) in seen:
            continue
        seen.add(_id(item))
        kind = _type(item)
        if kind in _SCALARS:
            continue
        if kind is types.BuiltinMethodType or kind is types.MethodWrapperType:
            bound = item.__self__  # ``seen.append``: the copy is the same method of the same list (round 16's K)
            if bound is not None and _type(bound) is not types.ModuleType:
                stack.append(bound)
            continue
        if kind is types.MethodType:
            stack.append(item.__self__)
            item, kind = item.__func__, _type(item.__func__)
        if kind is _partial:
            stack += [item.func, *item.args, *item.keywords.values()]
            continue
        if kind is types.FunctionType:
            filename = _func_code(item).co_filename
            if type(filename) is not str or (_realpath_cached(filename) not in files
                                             and not _realpath_cached(filename).startswith(_LIBRARY_PATHS)):
                return None  # a test's callback: the pristine call would call it again
            if _realpath_cached(filename) not in files:
                # (the standard library's or an installed package's, ``loads=json.loads``: no stand-in itself,
                # red-team round 62 turned every check of a class off through one; but what it closes over and
                # carries is walked: ``singledispatch``'s wrapper around a test's function, review's F2)
                stack += [_cell_value(c) for c in (_func_closure(item) or ())]
                stack += list(_func_defaults(item) or ()) + list((_func_kwdefaults(item) or {}).values())
                own = _object_dict(item)
                stack += list(dict.values(own))[:64] if _type(own) is dict else []
            continue
        if _any(_map(_is, _class_mro(kind), _repeat(weakref.ref))):
            # (a weak reference the deep copy shares: the pristine call, on the copy, would change what it refers to;
            # red-team round 62's forged totals, reached through a line's ``weakref.ref``)
            target = weakref.ref.__call__(item)
            if target is not None and (_container_base(_type(target)) is not None
                                       or _type(_attrs_dict(target)) is dict or _slot_members(_type(target))):
                return None  # (a list, dict, set or an object with attributes: mutable; review's B2)
            continue
        base = _container_base(kind)
        heap = _class_flags(kind) & _HEAPTYPE
        try:
            if base is not None:
                if base is not tuple and base is not frozenset:
                    out[_id(item)] = item
                for part in _container_parts(item, base):
                    stack += part
            elif kind is bytearray:
                out[_id(item)] = item
            if heap and not isinstance(item, _Enum):
                getter = _instance_dict_getter(kind)
                own = getter(item, kind) if getter is not None else None
                if _type(own) is dict:
                    out[_id(item)] = item
                    stack += list(dict.values(own))
                if _slot_members(kind):  # (an instance with only slots is as mutable: boltons' _ComplementSet)
                    out[_id(item)] = item
                stack += [got for _, get in _slot_getters(kind) for got in (_read(get, item),) if got is not _ABSENT]
        except Exception:  # noqa: BLE001,S112
            continue
    return out


def _nested_reached(state, reached) -> set:
    """The ids of the ``_Nested`` entries of ``state`` whose object is among ``reached`` (compared as the
    arguments')."""
    return {_id(c) for c, base, _ in state if base is _Nested and _id(c.item) in reached}


def _reached(values, files: dict) -> frozenset:
    """The ids of the lists, dicts, sets, instances and library objects (``_LIBRARY_STATE``'s) that a call's
    arguments reach before the call. One the declared modules also hold (``Counter(totals=NAMES)`` then
    ``self.totals.append``) is changed by the real call and, through the arguments' copies, by the pristine call
    on a copy: compared as what the arguments hold, and not as the module's data too (where the pristine call,
    working on the copy, left the module's as it found it: session 44's probe, refused on f269790)."""
    found = _mutables(values, files) or {}
    out = set(found)
    for item in list(found.values()) + list(values):
        own = _attrs_dict(item) if _class_flags(_type(item)) & _HEAPTYPE else None
        for value in list(dict.values(own)) if _type(own) is dict else [item]:
            if _state_class(_type(value)) is not None:
                out.add(_id(value))
    return frozenset(out)


def _shared(original, copied, files: dict) -> list | None:
    """None when a deep copy shares a mutable object with the original (other than a sentinel) or calls out to test
    code; else ``(__dict__, dict, its contents)`` of each sentinel it shares: an instance of a Python class whose
    deep copy is itself and whose attributes are all plain scalars (boltons' ``_UNSET``, made by ``make_sentinel``
    with a ``__reduce__`` naming the module global). What the calls do to those attributes is compared as the
    declared modules' data are."""
    before, after = _mutables(original, files), _mutables(copied, files)
    if before is None or after is None:
        return None
    out = []
    for key in before.keys() & after.keys():
        item = before[key]
        kind = _type(item)
        getter = _instance_dict_getter(kind) if _class_flags(kind) & _HEAPTYPE and _container_base(kind) is None \
            else None
        own = getter(item, kind) if getter is not None else None
        if _type(own) is not dict or not _all(_type(v) in _SCALARS for v in dict.values(own)) or _any(
                _type(_read(get, item)) not in _SCALARS and _read(get, item) is not _ABSENT
                for _, get in _slot_getters(kind)):
            return None
        out.append((own, dict, dict.copy(own)))
    return out


def _small(value, limit: int) -> bool:
    """Whether ``value`` reaches at most ``limit`` values through built-in containers, instance ``__dict__``s and
    slots (read as :func:`_differences` reads them; no code of the values runs)."""
    stack, seen = [value], set()
    try:
        return _small_walk(stack, seen, limit)
    finally:
        _WORK[0] += 10 * _len(seen)


def _small_walk(stack: list, seen: set, limit: int) -> bool:
    """:func:`_small`'s walk (``seen`` filled: the work it did)."""
    while stack:
        item = stack.pop()
        if _id(item) in seen:
            continue
        seen.add(_id(item))
        if len(seen) > limit:
            return False
        kind = _type(item)
        if kind in _SCALARS:
            continue
        base = _container_base(kind)
        try:
            if base is not None:
                for part in _container_parts(item, base):
                    stack += part
            if _class_flags(kind) & _HEAPTYPE:
                getter = _instance_dict_getter(kind)
                own = getter(item, kind) if getter is not None else None
                if _type(own) is dict:
                    stack += list(dict.values(own))
                stack += [got for _, get in _slot_getters(kind) for got in (_read(get, item),) if got is not _ABSENT]
        except Exception:  # noqa: BLE001,S112 (unreadable this way: counted as one value)
            continue
    return True


def _differences(left, right, path: tuple, most: int = 4, added=frozenset(), before=_ABSENT) -> list:
    """Up to ``most`` places (paths) where two values differ: numbers within a relative 1e-9, other built-in scalars
    by ``==``, containers item by item, instances of Python classes by their ``__dict__`` and slots (read through
    CPython's own descriptors), classes and functions by qualname, anything else by its own ``==`` unless it compares
    by identity (a lock, a file: the same class is enough). Walks at most ``_DIFF_NODES`` pairs. ``added``: attribute
    names the pristine file never mentions, which ``left``'s instances may hold where ``right``'s do not (a cache the
    edit added: no evidence; session 38's FP42-E). ``before``: ``right`` as it was before the pristine call that made
    it (an untouched copy of the arguments), walked alongside: an added attribute the pristine call itself set is
    compared (red-team round 63's ``added_name_hides_dynamic_attr``: a pristine ``setattr`` of a field whose name
    the pristine text never spells, which an added ``self.price = …`` elsewhere had put among the added names)."""
    out: list = []
    stack = [(left, right, path, before)]
    seen: set = set()
    budget = _DIFF_NODES
    while stack and len(out) < most and budget > 0:
        a, b, where, was = stack.pop()
        budget -= 1
        if a is b:
            continue
        key = (_id(a), _id(b))
        if key in seen:
            continue
        seen.add(key)
        ta, tb = _type(a), _type(b)
        if ta in _NUMBERS and tb in _NUMBERS or ta is complex and tb is complex:
            if not (a == b or (ta is float and tb is float and (_isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
                                                                or (_isnan(a) and _isnan(b))))):
                out.append(where)
            continue
        if ta is types.GeneratorType and tb is not ta and not _class_flags(tb) & _HEAPTYPE \
                and _getattr(tb, "__next__", None) is not None:
            continue  # a generator for a built-in iterator (``zip``): a returned one is checked resume by resume
        if ta is not tb:
            kind, other_kind = _ALIKE.get(_id(ta)), _ALIKE.get(_id(tb))
            if "ordered" in (kind, other_kind) and {kind, other_kind} <= {"ordered", "mapping"} \
                    and (ta is dict or tb is dict):
                # a dict for an OrderedDict (or back): their keys and values pair by place (an OrderedDict's ``==``
                # weighs order, so the same items in another order differ; red-team rounds 43 and 44)
                keys_a, keys_b = list(dict.keys(a)), list(dict.keys(b))
                if len(keys_a) != len(keys_b):
                    out.append(where + ("(keys)",))
                    continue
                stack += [pair for i, (x, y) in enumerate(_islice(zip(keys_a, keys_b), budget)) for pair in (
                    (x, y, where + ("(key)", i), _ABSENT), (dict.__getitem__(a, x), dict.__getitem__(b, y),
                                                            where + (i,), _ABSENT))][::-1]
                continue
            if kind is None or kind != other_kind:
                plain = _plain_stand_in(ta, tb)
                if plain is None:
                    out.append(where + ("(class)",))
                    continue
                if plain is not tuple:  # (an IntEnum member for an int, a str Enum's for a str: their values)
                    va, vb = _PLAIN_VALUE[plain](a), _PLAIN_VALUE[plain](b)
                    if not (va == vb or plain is float and (_isclose(va, vb, rel_tol=1e-9, abs_tol=1e-12)
                                                            or (_isnan(va) and _isnan(vb)))):
                        out.append(where)
                    continue
                kind = "sequence"  # (a NamedTuple for a tuple: their items, in order)
            if kind == "sequence":  # (a list and a tuple, or a tuple's subclass: their items, in order)
                items_a = _container_parts(a, _container_base(ta))[0]
                items_b = _container_parts(b, _container_base(tb))[0]
                if len(items_a) != len(items_b):
                    out.append(where + ("(length)",))
                    continue
                stack += [(x, y, where + (i,), _ABSENT)
                          for i, (x, y) in enumerate(_islice(zip(items_a, items_b), budget))][::-1]
                continue
            # (a set and a frozenset, a dict and a dict of the collections module: compared below as their base)
        if ta in _SCALARS:
            if a != b:
                out.append(where)
            continue
        if ta is types.FunctionType:
            if _func_code(a).co_qualname != _func_code(b).co_qualname:
                out.append(where)
            continue
        if ta is types.MethodType:
            if _func_code(_unwrapped(a)).co_qualname != _func_code(_unwrapped(b)).co_qualname \
                    if type(a.__func__) is types.FunctionType and type(b.__func__) is types.FunctionType else \
                    a.__func__ is not b.__func__:
                out.append(where)
            continue
        if _class_flags(ta) & _TYPE_SUBCLASS or ta is types.ModuleType:
            if (_class_name(a) != _class_name(b)) if ta is type else a is not b:
                out.append(where)
            continue
        base = _container_base(ta)
        heap = _class_flags(ta) & _HEAPTYPE
        try:
            if base is list or base is tuple:
                items_a, items_b = _container_parts(a, base)[0], _container_parts(b, base)[0]
                if len(items_a) != len(items_b):
                    out.append(where + ("(length)",))
                    continue
                # (a sequence's items are not paired with the untouched copy's: the pristine call may have moved them;
                # the review of session 47's ``stale_attr_shifted_list``) (only the first ``budget`` pairs, here and
                # for every container: no later one is reached, each pop taking one of the budget; pushing each pair
                # of a 1.3-million-item table made every check take a second, session 52's red team's r72_h01)
                stack += [(x, y, where + (i,), _ABSENT)
                          for i, (x, y) in enumerate(_islice(zip(items_a, items_b), budget))][::-1]
            elif base is dict:
                if dict.__len__(a) != dict.__len__(b):
                    out.append(where + ("(keys)",))
                    continue
                if not _keys_equal(dict.keys(a), dict.keys(b)):  # (the same keys: in C, as ``in`` would ask)
                    out.append(where + ("(keys)",))
                    continue
                stack += [(dict.__getitem__(a, k), dict.__getitem__(b, k), where + ((k,) if _type(k) in _SCALARS else
                                                                                  ("(a key)",)),
                           dict.get(was, k, _ABSENT) if _type(was) is tb and _type(k) in _SCALARS else _ABSENT)
                          for k in _islice(dict.keys(a), budget)][::-1]
            elif base is set or base is frozenset:
                if not base.__eq__(a, b):
                    out.append(where)
                    continue
            elif not heap:
                if ta.__eq__ is not object.__eq__ and not (a == b):
                    out.append(where)
                continue
            if heap and _library_equality(ta):
                # a library's class that says itself what equal means (pathlib's paths: their cached slots, such as
                # ``_str`` after ``str()``, differ between equal paths; helper 137's honest hunt): its own ``==``,
                # library code the replay's library comparison watches
                try:
                    same = a == b
                except Exception:  # noqa: BLE001
                    same = False
                if same is not True:
                    out.append(where)
                continue
            if heap:
                getter = _instance_dict_getter(ta)
                own_a = getter(a, ta) if getter is not None else None
                own_b = getter(b, tb) if getter is not None else None
                if _type(own_a) is dict and _type(own_b) is dict:
                    # (a str key only is looked up in ``added``: no other key's ``__hash__`` runs; and only plain
                    # data is left out: red-team round 42's F1 hung a generator there, which made every later call
                    # with the object uncopyable, so unchecked)
                    # (and one the pristine side holds too, copied from an object the edit's ``__init__`` made:
                    # the pristine code never mentions it, its value there is the copy's, stale; honest hunt 20's
                    # caches, histories, counters and dirty flags the changed defs keep up to date. Plain data only,
                    # on both counts: a deque, a pattern or a logger there would make the object no data to the
                    # replay's recorder, whose calls are then never replayed: round 56's ``self_made_no_data_deque``)
                    own_was = getter(was, tb) if getter is not None and _type(was) is tb else _ABSENT
                    # (on the pristine side, left out only where the pristine call did not set it: the copy's stale
                    # value, as it was before the call; where that is not known, as before)
                    keys = [k for k in dict.keys(own_a) if not (added and _type(k) is str and k in added
                                                                 and _plain_values(dict.__getitem__(own_a, k))
                                                                 and _stale_attribute(own_b, own_was, k))]
                    shared = [k for k in dict.keys(own_b) if not (added and _type(k) is str and k in added
                                                                  and dict.__contains__(own_a, k)
                                                                  and _plain_values(dict.__getitem__(own_a, k))
                                                                  and _stale_attribute(own_b, own_was, k))]
                    if _len(keys) != _len(shared) or any(not dict.__contains__(own_b, k) for k in keys):
                        out.append(where + ("(attributes)",))
                        continue
                    stack += [(dict.__getitem__(own_a, k), dict.__getitem__(own_b, k), where + (k,),
                               dict.get(own_was, k, _ABSENT) if _type(own_was) is dict else _ABSENT)
                              for k in keys][::-1]
                for name, get in _slot_getters(ta):
                    got_a, got_b = _read(get, a), _read(get, b)
                    if got_a is _ABSENT or got_b is _ABSENT:
                        if (got_a is _ABSENT) != (got_b is _ABSENT):
                            out.append(where + (name,))
                        continue
                    stack.append((got_a, got_b, where + (name,), _read(get, was) if _type(was) is tb else _ABSENT))
                if base is None:
                    for builtin in _class_mro(ta):
                        if not _class_flags(builtin) & _HEAPTYPE:
                            break
                    if builtin is not object and builtin.__eq__ is not object.__eq__ \
                            and builtin.__eq__(a, b) is False:
                        out.append(where)
        except Exception:  # noqa: BLE001,S112 (a value that cannot be read this way: no verdict about it)
            continue
    _WORK[0] += 20 * (_DIFF_NODES - budget)
    return out


def _stale_attribute(own, was, key) -> bool:
    """Whether the pristine side's attribute ``key`` (its ``__dict__`` ``own``) is as it was before the pristine call
    (``was``, the untouched copy's dict; ``_ABSENT``: not known, taken as stale): not set by the pristine code."""
    if _type(was) is not dict:
        return True
    if not dict.__contains__(own, key):
        return True  # (absent on the pristine side: nothing the pristine code set)
    if not dict.__contains__(was, key):
        return False
    return not _differences(dict.__getitem__(own, key), dict.__getitem__(was, key), (), 1)


# The comparisons _CompareCalls turns into calls (compare_call), by the Compare's one operator.
_CALLED_OPS = {ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__lt__", ast.LtE: "__le__", ast.Gt: "__gt__",
               ast.GtE: "__ge__", ast.In: "__contains__", ast.NotIn: "!__contains__"}
_SCOPES = (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)


class _CompareCalls(ast.NodeTransformer):
    """``a == b`` in a test module's functions, outside an assert (or in a lambda or comprehension inside one) ->
    ``@pytest_ar._beacon_cmp(a, b, "__eq__")``: the comparison pytest's rewriter does not see (red-team round 13,
    R13-4: ``self.assertTrue(a == b)``, ``assert any(x == y for …)``). A chain (``a < b < c``) and ``is`` stay."""

    def __init__(self):
        self.depth = 0

    def visit_FunctionDef(self, node):  # noqa: N802 (ast's names)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    visit_AsyncFunctionDef = visit_Lambda = visit_FunctionDef

    def visit_Assert(self, node):  # noqa: N802
        # pytest rewrites the assert's own comparisons (judge_link); the scopes nested in it it leaves whole
        for inner in [n for n in ast.walk(node) if type(n) in _SCOPES]:
            self.depth += 1
            self.generic_visit(inner)
            self.depth -= 1
        return node

    def visit_Compare(self, node):  # noqa: N802
        self.generic_visit(node)
        op = _CALLED_OPS.get(type(node.ops[0])) if len(node.ops) == 1 else None
        if not self.depth or op is None:
            return node
        helper = ast.Attribute(ast.Name("@pytest_ar", ast.Load()), "_beacon_cmp", ast.Load())
        return ast.copy_location(ast.Call(helper, [node.left, node.comparators[0], ast.Constant(op)], []), node)


class _Comparisons:
    """A list-free runtime check against always-equal values (red-team round 6, F1).

    The static screen refuses the comparison dunders it can see; a class built at run time (``type`` passed as
    a value, a namespace whose keys come from ``dir(0)``, a nested ``class __eq__(str)``, an Enum's functional
    API, ``functools.wraps`` with ``assigned=``) is invisible to it. This looks at what exists instead: every
    class alive when the plugin starts (before any project file loads) is snapshotted, and at each check every
    class alive is walked again and each comparison dunder in its own ``__dict__`` is judged:

    - on any class, a function whose code comes from one of the task's declared source files but whose name is
      not the dunder's: a ``lambda``, or ``def f`` assigned as ``__eq__`` (also inside a staticmethod);
    - on a class created after the snapshot (and for a dunder of an older class rebound since): a class as the
      value (``class __eq__(str)``), a staticmethod or classmethod, a builtin or C descriptor named otherwise
      (``__eq__ = int.__ne__``) or bound to an object (``__gt__ = float("inf").__gt__``), or any other callable or descriptor (``functools.partial``, an instance with
      ``__call__``, a property), or a function from outside the checkout (the standard library, site-packages)
      whose name is not the dunder's (red-team round 7: ``os.fwalk`` returns a generator, ``functools.wraps`` a
      partial, both truthy). ``None`` is fine (``__hash__ = None``), and so are: functions of the dunder's own
      name (dataclasses' and attrs' generated ``__eq__``); the checkout's own functions outside the declared
      sources (``__le__ = issubset`` in a project class); ``functools.total_ordering``'s ``_gt_from_lt`` …; a
      factory's closure named after the dunder that wraps nothing (attrs' ``cmp_using``, numpy's mixins); a
      library's own class, new since the snapshot and found under its ``__module__``/``__qualname__``, using a
      function of its own package (jinja2, mpmath, pandas, sympy); a Cython-compiled function as its class's own
      compiled ``def`` or a library's factory closure (:meth:`_judge_cython`); a static/classmethod of a function of
      the dunder's name, or a library factory's isinstance hook (:meth:`_library_factory`); and ``unittest.mock``'s
      own objects (a MagicMock's class holds a ``MagicProxy`` or a child mock for each dunder).

    ``def __eq__`` in the declared file is not judged: an honest repair writes comparisons that way, so an
    always-equal ``def __eq__`` stays the screen's business (docs/threat_model.md). Nor is, on a class of a declared
    file, exactly what a statement of that file's pristine code binds there, when the checkout keeps the statement
    unchanged (``__bool__ = __nonzero__``, a lambda, werkzeug's ``_ProxyLookup(operator.eq)``: the harness sends these
    sites, :mod:`beacon.repair.pristine_bindings`; :meth:`_pristine_site`). What the named ``def``, class or factory
    does is the declared file's own code, like a ``def __eq__``: the screen's business.
    """

    def __init__(self, sources=(), root: str = "", edited=(), pristine=(), oracle=()):
        self.oracle = _Oracle(oracle)  # the pristine code of the defs the edit changed (see _Oracle)
        self.shadow = None  # the oracle of calls (_Shadow), when the plugin made one: rewriting may pause its trace
        self.rewrite_guard = None  # what the rewriting calls, checked as each rewriting starts (_RewriteGuard)
        # realpath -> (the file's bytes, its rewritten code, its functions' codes for the provenance check, the path
        # it was compiled under): the test folders' modules rewritten before any project code ran (precompute)
        self.precomputed: dict = {}
        self._transform = self._rewriter = None  # (set by install_judge)
        # id(code) -> (code, _code_image, [the adaptive array last seen]) of each code object compiled ahead
        self.images: dict = {}
        self.compiled_from = None  # _SourceCode._compiled_from, set by the plugin (genuine)
        self._genuine: dict = {}  # _ohash(code) -> (code, whether it is a checkout file's own code: genuine)
        # id(TestCase instance) -> (the instance, {id(type): (type, function)}): the entries of its equality table that
        # a test's own code added through addTypeEqualityFunc (_equality_table_why)
        self.trusted_equality: dict = {}
        self.provenance = None  # the provenance check (_Provenance): takes the plugin's rewriting of each file
        self.sources = {}
        for path in sources:
            real = os.path.realpath(path)
            self.sources[real] = os.path.relpath(real, root) if root and real.startswith(root + os.sep) else real
        # a declared source's real path -> the lines the edit changed (the harness's ``before``): probed at asserts
        self.edited = {os.path.realpath(path): frozenset(lines) for path, lines in _edited_entries(edited)
                       if os.path.realpath(path) in self.sources}
        self._probed: dict = {}  # id(function) -> weak reference: an edited comparison dunder probed once per run
        self._linked: dict = {}  # (id(function), id(the other operand's class)) -> weak reference: asked once
        self._containers: dict = {}  # id(container) -> (container, its length): judged at an assert of this test
        # (class qualname, dunder) -> the declared files' pristine binding sites there (see _pristine_site)
        self.pristine = _pristine_table(pristine, self.sources)
        self._reals: dict = {}  # co_filename -> its real path
        self._again = None  # set by _judge: what a pristine call's object held when it passed (see _held_now)
        self._memo: dict = {}  # _held_now's class parts while one class's dunders are judged (cleared before)
        self._real: dict = {}  # co_filename -> the declared source it is (as shown), or None
        self.root = os.path.realpath(root) if root else ""
        self._outside_files: dict = {}  # co_filename -> whether it is outside the checkout (or not a file at all)
        # a library module's real path -> the qualnames of the classes its source defines (``f.<locals>.C`` too)
        self._class_defs: dict = {}
        # functools.total_ordering's generated methods (``_gt_from_lt`` …): functions under another name, by design.
        convert = getattr(_sys_modules.get("functools"), "_convert", None)
        self.total_ordering = frozenset(f for ops in (convert.values() if type(convert) is dict else ())
                                        for _, f in ops if type(f) is types.FunctionType)
        # id(class) -> (weak reference to the class, {dunder: (hold(value), hold(its code) or None)}): what was
        # judged (for the classes alive at the snapshot: trusted) and needs no judging again while it is the same.
        self.known: dict = {}
        self._keep = _all_classes()  # the snapshot's classes stay alive: no later class reuses one of their ids
        self._snapshot_ids = frozenset(id(cls) for cls in self._keep)
        # (module, qualname) of each snapshot class, as it was then: a new class under one of these names replaced it
        self._snapshot_names = frozenset((_class_module(cls), _class_name(cls)) for cls in self._keep)
        for cls in self._keep:
            own = _class_dict(cls)
            self.known[id(cls)] = (weakref.ref(cls), {name: _state(own[name]) for name in _COMPARISONS if name in own})
        case = _sys_modules.get("unittest.case")  # imported with pytest, before any project file
        if case is None:
            import unittest.case as case  # noqa: PLC0415 (the standard library's; mock.py lies next to it)
        self.mock_file = os.path.join(os.path.dirname(case.TestCase.__init__.__code__.co_filename), "mock.py")
        self._walked_at, self._walk_cost = 0.0, 0.0  # when the last walk after a test call ended, and what it cost
        self.reported: set = set()
        self.at_asserts: list = []  # findings of the compare-time judge (reported once), handed out by findings()

    def _source(self, code) -> str | None:
        return self._declared(code.co_filename)

    def _declared(self, filename) -> str | None:
        """The declared source (as shown) that the file ``filename`` is, or None."""
        if type(filename) is not str:
            return "<a co_filename that is not a str>"
        if filename not in self._real:
            real = os.path.realpath(filename) if filename[:1] != "<" else filename
            self._real[filename] = self.sources.get(real)
        return self._real[filename]

    @staticmethod
    def _code(value):
        """The code of a function-like value: a Python function, or an instance of a C type that exposes one
        (Cython's cyfunction); ``None`` for anything else (a bound method, a partial, an object of a class)."""
        if type(value) is types.FunctionType:
            return value.__code__
        if type(value) is types.MethodType:
            return None
        if _class_flags(type(value)) & _HEAPTYPE:
            return _cython_code(value)  # Cython 3's functions are heap types made by C; Python classes answer None
        # Only the C type's own descriptor (old Cython's static function type): a class, a staticmethod or another
        # object with an instance ``__dict__`` can carry a planted ``__code__`` named after the dunder (red-team
        # round 9, R9-2).
        getter = _class_dict(type(value)).get("__code__")
        if (type(getter) not in (types.GetSetDescriptorType, types.MemberDescriptorType)
                or getter.__objclass__ is not type(value)):
            return None
        try:
            code = getter.__get__(value, type(value))
        except Exception:
            return None
        return code if type(code) is types.CodeType else None

    def _from_mock(self, value) -> bool:
        """An object of ``unittest.mock``'s own classes: every function of its class and bases is in mock.py,
        and ``__call__``/``__get__``, where it has them, are such functions."""
        mro = _class_mro(type(value))
        functions = 0
        for cls in mro[:-1]:
            for attribute in _class_dict(cls).values():
                if type(attribute) is types.FunctionType:
                    if attribute.__code__.co_filename != self.mock_file:
                        return False
                    functions += 1
        for slot in ("__call__", "__get__"):
            for cls in mro:
                own = _class_dict(cls)
                if slot in own:
                    if type(own[slot]) is not types.FunctionType:
                        return False
                    break
        return functions > 0

    def _judge(self, name: str, value, cls=None) -> str | None:
        """Why ``value`` as the dunder ``name`` of a new (or changed) class ``cls`` is a finding, or None: what
        :meth:`_judge_value` finds, unless ``value`` is exactly what a pristine binding of the declared file makes
        there (:meth:`_pristine_site`)."""
        self._again = None
        why = self._judge_value(name, value, cls)
        if why is not None and self.pristine and cls is not None and self._pristine_site(name, value, cls):
            # An object a pristine call made (werkzeug's ``_ProxyLookup``) keeps its identity when what it holds is
            # rebound (``LocalProxy.__eq__.bind_f = …``): what it holds now is kept with the judgement, which stands
            # only while every item is the same object (judged again otherwise).
            if _type(value) is not types.FunctionType or value.__closure__ is not None:
                self._again = _held_now(value, self._memo)
            return None
        return why

    def _judge_value(self, name: str, value, cls=None) -> str | None:
        if value is None:
            return None
        static = isinstance(value, _STATIC)
        inner = value.__func__ if static else value
        code = self._code(inner)
        if code is not None:
            source = self._source(code)
            if source is not None and code.co_name != name:
                return f"{code.co_name} from {source}"
            if type(inner) is not types.FunctionType and _class_flags(type(inner)) & _HEAPTYPE:
                return self._judge_cython(name, inner, code, cls)
            if static:
                # ``@classmethod def __instancecheck__`` (a project's metaclass) has the power of a ``def`` of the
                # dunder's name, which is the screen's business; ``staticmethod(bool)`` (no code) and a renamed
                # function stay findings, except a library's factory-made isinstance hook (see _library_factory).
                if code.co_name == name or (name in _TYPE_CHECKS and self._library_factory(cls, code)):
                    return None
                # a test helper's ``staticmethod(lambda o: True)``: what a plain lambda there may already do (a test
                # module's or conftest's own function; any checkout function was too broad, red-team round 10)
                if (type(inner) is types.FunctionType and not self._outside(code) and _test_file(code.co_filename)
                        and (cls is None or self._home(cls) is None)):
                    return None
                return f"a {_class_name(type(value))} of {self._shown(inner, code)}"
            if not static and code.co_name != name and cls is not None:
                # Red-team round 8 (R8-3): on a class of a declared file, a function under another name is a finding
                # wherever it comes from (``__eq__ = truncate`` imported from the checkout's other modules returns a
                # truthy string); total_ordering's methods and a factory's closure named after the dunder stay fine.
                # (One from outside the checkout meets the rule below, G1, with its exceptions.) A test's own lambda
                # or nested def (``monkeypatch.setattr(Money, "__eq__", lambda s, o: True)``) stays fine.
                home = self._home(cls)
                if (home is not None and value not in self.total_ordering and not self._outside(code)
                        and not (type(value) is types.FunctionType and self._named_by_its_factory(name, value, code))
                        and not self._test_local(code)):
                    return f"{self._shown(value, code)}, a function under another name on a class of {home}"
            if not static:
                # Red-team round 7 (G1): a function from outside the checkout (the standard library, site-packages)
                # under another name returns whatever it returns for (self, other): ``os.fwalk`` a generator,
                # ``functools.wraps`` a partial, both truthy. A library class's own alias (``__le__ = issubset``,
                # jinja2's ``__eq__ = _fail_with_undefined_error``) stays fine (see _library_own); so do the
                # checkout's own functions (``__le__ = issubset`` in a project class) and total_ordering's.
                if (code.co_name != name and source is None and type(value) is types.FunctionType
                        and value not in self.total_ordering and self._outside(code)
                        and not self._named_by_its_factory(name, value, code) and not self._library_own(cls, code)
                        and not self._library_local(cls, code) and not self._orphan_of(cls, name, value, code)
                        and not self._named_for_its_class(cls, name, code)):
                    return f"{self._shown(value, code)}, a function from outside the checkout under another name"
                return None  # a function: fine unless the declared file made it under another name
        if static:
            return f"a {_class_name(type(value))}"
        if isinstance(value, type):
            return f"a class ({_class_name(value)})"
        if type(value) in _BUILTINS:
            if value.__name__ != name:
                return f"the builtin {value.__name__}"
            # Red-team round 7 (G5): bound to an object, it compares that object, not self (``float("inf").__gt__``
            # as ``__gt__``: every value is greater). Unbound descriptors (``int.__eq__``) and module functions stay.
            bound = value.__self__ if type(value) in (types.MethodWrapperType, types.BuiltinFunctionType) else None
            if type(value) is types.MethodWrapperType or (
                    type(value) is types.BuiltinFunctionType and type(bound) is not types.ModuleType):
                return f"the builtin {name} bound to a {_class_name(type(bound))} object"
            return None
        inner = _instancemethod_function(value)
        if inner is not None:  # pybind11's methods: a C ``instancemethod`` around its C function, on its own class
            if (type(inner) is types.BuiltinFunctionType and inner.__name__ == name
                    and _class_name(type(inner.__self__)).startswith("pybind11_detail_function_record")
                    and self._compiled_class(cls)):
                return None
            return "an instancemethod object"
        if _any(_map(_is, _WRAPPING_DESCRIPTORS, _repeat(_type(value)))):
            # a project's ``__eq__ = partialmethod(_compare, …)`` or ``@singledispatchmethod def __eq__``: the functions
            # it calls (a singledispatchmethod's registered implementations too) are judged in its place
            own = object.__getattribute__(value, "__dict__")  # the exact functools class: no property runs
            functions = [dict.get(own, "func")]
            if _type(value) is functools.singledispatchmethod:
                dispatcher = dict.get(own, "dispatcher")
                registry = (dict.get(_func_dict(dispatcher), "registry") if type(dispatcher) is types.FunctionType
                            else None)
                if type(registry) is not types.MappingProxyType:
                    return "a singledispatchmethod without its registry"
                functions += list(types.MappingProxyType.values(registry))
            for function in functions:
                why = self._judge(name, function, cls)
                if why is not None:
                    return why
            return None
        descriptor = any("__get__" in _class_dict(cls) for cls in _class_mro(type(value)))
        if (callable(value) or descriptor) and not self._from_mock(value):
            if self._library_descriptor(name, value, cls) or self._checkout_descriptor(name, value, cls):
                return None
            return f"a {_class_name(type(value))} object"
        return None

    # ---- A declared file's pristine comparison bindings ----------------------------------------------------------
    # ``__bool__ = __nonzero__``, ``__ne__ = lambda self, o: not self == o`` and werkzeug's ``LocalProxy.__eq__ =
    # _ProxyLookup(operator.eq)`` are findings of the rules above; in a declared file whose pristine code already has
    # them (and the checkout keeps the statement unchanged: beacon.repair.pristine_bindings, harness side) the task was
    # invalid at preparation. A value there passes only as what that very statement makes, judged by identity and by
    # code positions, never by writable names: the class is found at its qualname in its module, whose file is the
    # site's declared file, and the value is the sibling ``def`` the class holds under the statement's name (code of
    # that file, name, qualname and first line), the lambda whose code lies in the statement's lambda body (file,
    # qualname and every instruction's position), or an instance of the file's class the call names (every class of
    # its MRO but object defined in that file, found at its qualname, its functions that file's code of that class)
    # or a closure of the file's factory ``def`` the call names (its code nested in the factory's), holding only
    # plain data, the builtins the call's dotted names resolve to (C objects of that name) and the call's own lambdas
    # or closures that class's methods or that factory made (their closures and defaults judged alike, two levels
    # deep; never one of its methods itself).

    def _pristine_site(self, name: str, value, cls) -> bool:
        qualname = _class_name(cls)
        sites = self.pristine.get((qualname, name)) if type(qualname) is str else None
        if not sites:
            return False
        module_name = _class_module(cls)
        space = _namespace(_sys_modules.get(module_name)) if type(module_name) is str else None
        path = dict.get(space or {}, "__file__")
        if type(path) is not str or path[:1] == "<" or _found_at(space, qualname) is not cls:
            return False
        real = os.path.realpath(path)
        return any(site["file"] == real and self._pristine_value(site, value, cls, space, real) for site in sites)

    def _real_file(self, code) -> str:
        filename = code.co_filename
        if type(filename) is not str or filename[:1] == "<":
            return "<not a file>"
        real = self._reals.get(filename)
        if real is None:
            real = self._reals[filename] = os.path.realpath(filename)
        return real

    def _pristine_value(self, site: dict, value, cls, space: dict, real: str) -> bool:
        kind, in_class = site["kind"], site["scope"] == "class"
        lambda_name = site["cls"] + ".<lambda>" if in_class else "<lambda>"
        if kind == "name":
            target = site["target"]
            sibling = in_class and site["qualname"] != target
            held = types.MappingProxyType.get(_class_dict(cls), target) if sibling else dict.get(space, target)
            if held is not value or _type(value) is not types.FunctionType:
                return False
            code = _func_code(value)
            return (self._real_file(code) == real and code.co_name == target
                    and code.co_qualname == site["qualname"] and code.co_firstlineno in site["lines"])
        if kind == "lambda":
            if _type(value) is not types.FunctionType:
                return False
            code = _func_code(value)
            return (self._real_file(code) == real and code.co_qualname == lambda_name
                    and _in_span(code, site["lambdas"][0]))
        callee = dict.get(space, site["callee"])
        if site["callee_class"]:
            if (not issubclass(_type(callee), type) or _type(value) is not callee
                    or not self._file_class(callee, space, real)):
                return False
            held = [_read(getter, value) for _, getter in _slot_getters(callee)]
            for klass in _class_mro(callee):
                getter = types.MappingProxyType.get(_class_dict(klass), "__dict__")
                if _type(getter) is types.GetSetDescriptorType and getter.__objclass__ is klass:
                    own = _read(getter.__get__, value)
                    if _type(own) is dict:
                        held += list(dict.values(own))
                    break
            return self._pristine_held(held, site, space, real, site["callee"] + ".", lambda_name, 2)
        if _type(callee) is not types.FunctionType or _type(value) is not types.FunctionType:
            return False
        factory, code = _func_code(callee), _func_code(value)
        return (self._real_file(factory) == real and factory.co_qualname == site["callee"]
                and self._real_file(code) == real and code.co_qualname.startswith(site["callee"] + ".<locals>.")
                and _nested(factory, code, 4)
                and self._pristine_held(_captured(value), site, space, real, site["callee"] + ".", lambda_name, 2))

    def _file_class(self, kind, space: dict, real: str) -> bool:
        """Whether every class of ``kind``'s MRO but ``object`` is a class of the declared file ``real``, found at its
        qualname in ``space`` (the file's module), its functions (plain or static/class methods) that file's code of
        that class, its other values plain data or its own slot and ``__dict__`` descriptors."""
        mro = _class_mro(kind)
        if mro[-1] is not object:
            return False
        for klass in mro[:-1]:
            qualname = _class_name(klass)
            if type(qualname) is not str or "<" in qualname or _found_at(space, qualname) is not klass:
                return False
            for item in types.MappingProxyType.values(_class_dict(klass)):
                if _type(item) in _STATIC:
                    item = item.__func__
                if _type(item) is types.FunctionType:
                    code = _func_code(item)
                    if self._real_file(code) != real or not code.co_qualname.startswith(qualname + "."):
                        return False
                elif _type(item) in (types.MemberDescriptorType, types.GetSetDescriptorType):
                    if item.__objclass__ is not klass:
                        return False
                elif _id(_type(item)) not in _PLAIN_IDS:  # (_plain_data, inline: a hot loop)
                    return False
        return True

    def _pristine_held(self, items, site: dict, space: dict, real: str, own: str, lambda_name: str,
                       depth: int) -> bool:
        resolved = None
        for item in items:
            kind = _type(item)
            if item is None or item is _ABSENT or kind in _SCALARS:
                continue
            if kind is types.FunctionType:
                code = _func_code(item)
                if self._real_file(code) != real:
                    return False
                if code.co_qualname == lambda_name and _any(_in_span(code, span) for span in site["lambdas"]):
                    continue  # one of the statement's own lambdas
                if (depth > 0 and code.co_qualname.startswith(own) and ".<locals>." in code.co_qualname
                        and self._pristine_held(_captured(item), site, space, real, own, lambda_name, depth - 1)):
                    continue  # a closure the named class's methods or factory made (werkzeug's ``bind_f``), not
                    # one of its methods passed as an argument
                return False
            if resolved is None:
                resolved = [_resolved(parts, space) for parts in site["names"]]
            if not _any(_map(_is, resolved, _repeat(item))):
                return False
        return True

    def _library_descriptor(self, name: str, value, cls) -> bool:
        """A library's own descriptor on a library's own class of the same package (werkzeug's
        ``LocalProxy.__eq__ = _ProxyLookup(operator.eq)``, which flask imports), holding only functions of that
        library's files and builtins or classes named after the dunder (``operator.eq`` for ``__eq__``, ``bool`` for
        ``__bool__``), also inside those functions' closures: ``_ProxyLookup(operator.is_not)`` or a checkout
        function bound to the library class is refused (found by the session-19 false-positive sweep, which forged a
        pass through a rule without the names)."""
        kind = type(value)
        methods = [f for f in _class_dict(kind).values() if type(f) is types.FunctionType]
        if cls is None or not methods:
            return False
        code = _func_code(methods[0])
        if not (self._outside(code) and self._library_own(kind, code) and self._library_own(cls, code)):
            return False
        held = [_read(getter, value) for _, getter in _slot_getters(kind)]
        getter = _instance_dict_getter(kind)  # (``object`` has no ``__dict__`` descriptor to borrow)
        own = _read(lambda v: getter(v, kind), value) if getter is not None else _ABSENT
        if type(own) is dict:
            held += list(own.values())
        stem = name.strip("_")
        return self._held_ok(held, os.path.dirname(os.path.realpath(code.co_filename)) + os.sep,
                             frozenset({stem, "is_" + stem}), 2)

    def _checkout_descriptor(self, name: str, value, cls) -> bool:
        """The same shape in a checkout module that is not a declared source (its text is the task's own: only the
        declared file may change), for a project whose own class it is (werkzeug's ``LocalProxy`` when werkzeug is
        the project under test: the real-suites sweep of session 20): the descriptor's class and ``cls`` are found at
        their qualnames in that module, whose file holds the descriptor's methods, and what the descriptor holds is
        that file's functions and builtins or classes named after the dunder (:meth:`_held_ok`)."""
        kind = type(value)
        methods = [f for f in _class_dict(kind).values() if type(f) is types.FunctionType]
        if cls is None or not methods:
            return False
        code = _func_code(methods[0])
        path = _realpath(code.co_filename) if type(code.co_filename) is str else ""
        if (not path or self._outside(code) or self._declared(code.co_filename) is not None or _test_file(path)):
            return False
        for klass in (kind, cls):
            module_name = _class_module(klass)
            space = _namespace(_sys_modules.get(module_name) if type(module_name) is str else None)
            where = dict.get(space, "__file__") if space is not None else None
            if type(where) is not str or _realpath(where) != path or _found_at(space, _class_name(klass)) is not klass:
                return False
        held = [_read(getter, value) for _, getter in _slot_getters(kind)]
        getter = _instance_dict_getter(kind)
        own = _read(lambda v: getter(v, kind), value) if getter is not None else _ABSENT
        if type(own) is dict:
            held += list(own.values())
        stem = name.strip("_")
        return self._held_ok(held, path, frozenset({stem, "is_" + stem}), 2, outside=False)

    def _held_ok(self, held, library: str, names: frozenset, depth: int, outside: bool = True) -> bool:
        """Whether ``held`` (and the closures of its functions, ``depth`` deep) is only functions of the files under
        ``library`` (outside the checkout, or with ``outside=False`` inside it but not declared) and builtins or
        classes with one of ``names``."""
        for item in held:
            if item is None or item is _ABSENT or _id(_type(item)) in _PLAIN_IDS:  # (_plain_data, inline)
                continue
            if _type(item) is types.FunctionType:
                code = _func_code(item)
                if (not os.path.realpath(code.co_filename).startswith(library) or self._outside(code) is not outside
                        or (not outside and self._declared(code.co_filename) is not None)):
                    return False
                cells = _cells(item)
                if cells and (depth == 0 or not self._held_ok(cells, library, names, depth - 1, outside)):
                    return False
                continue
            if _type(item) in _BUILTINS or isinstance(item, type):
                if getattr(item, "__name__", None) not in names:
                    return False
                continue
            return False
        return True

    def _library_local(self, cls, code) -> bool:
        """A class made by a ``class`` statement inside a library's function (pytz's ``LazyList.__new__``, Django's
        ``lazy``) using a closure made in that same function of that same file: the class is new since the snapshot,
        its module's file is outside the checkout and is the code's file, the code's qualname starts with the class's
        enclosing function, and the file has a ``class`` statement at exactly that ``<locals>`` path (found by the
        session-19 false-positive sweep: every project importing pytz or Django was ``tampered``)."""
        if cls is None or id(cls) in self._snapshot_ids:
            return False
        qualname = _class_name(cls)
        if type(qualname) is not str or ".<locals>." not in qualname:
            return False
        path = dict.get(_namespace(_sys_modules.get(_class_module(cls))) or {}, "__file__")
        if type(path) is not str or path[:1] == "<" or not self._outside_path(path):
            return False
        path = os.path.realpath(path)
        enclosing = qualname.rpartition(".<locals>.")[0]
        return (os.path.realpath(code.co_filename) == path
                and getattr(code, "co_qualname", "").startswith(enclosing + ".<locals>.")
                and qualname in self._local_classes(path))

    def _local_classes(self, path: str) -> frozenset:
        """The qualnames of every ``class`` statement in the source file at ``path``, inside functions too (parsed once
        per file)."""
        names = self._class_defs.get(path)
        if names is None:
            found = set()
            try:
                with _open(path, "rb") as fh:
                    tree = _compile(fh.read(), path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
            except (OSError, SyntaxError, ValueError):
                tree = None
            todo = [(tree, "")] if tree is not None else []
            while todo:
                node, prefix = todo.pop()
                if type(node) is ast.ClassDef:
                    found.add(prefix + node.name)
                    prefix = prefix + node.name + "."
                elif type(node) in _DEFS:
                    prefix = prefix + node.name + ".<locals>."
                for field in type(node)._fields:
                    value = getattr(node, field, None)
                    if type(value) is list:
                        todo.extend((v, prefix) for v in value if isinstance(v, ast.AST))
                    elif isinstance(value, ast.AST):
                        todo.append((value, prefix))
            names = self._class_defs[path] = frozenset(found)
        return names

    def _named_for_its_class(self, cls, name: str, code) -> bool:
        """A library function named ``<Class>_<dunder>`` set on that library class by the same package (fontTools'
        ``ot.VarStore.__bool__ = VarStore___bool__``, reached through matplotlib's PDF backend; its classes are
        generated, so no ``class`` statement stands as evidence): the class is new since the snapshot and found under
        its ``__module__``/``__qualname__``, whose file is outside the checkout, and the code's file is in the same
        top-level package."""
        if cls is None or id(cls) in self._snapshot_ids or code.co_name != f"{_class_name(cls)}_{name}":
            return False
        module_name = _class_module(cls)
        space = _namespace(_sys_modules.get(module_name)) if type(module_name) is str else None
        top = _namespace(_sys_modules.get(module_name.partition(".")[0])) if space is not None else None
        path, package = dict.get(space or {}, "__file__"), dict.get(top or {}, "__file__")
        if (type(path) is not str or type(package) is not str or path[:1] == "<" or package[:1] == "<"
                or dict.get(space, _class_name(cls)) is not cls or not self._outside_path(path)
                or os.path.basename(package) != "__init__.py"):
            return False
        return os.path.realpath(code.co_filename).startswith(os.path.dirname(os.path.realpath(package)) + os.sep)

    def _orphan_of(self, cls, name: str, value, code) -> bool:
        """The class ``dataclass(slots=True)`` replaced (SQLAlchemy's ``Range``), still alive and holding the very value
        that the live library class of the same module and qualname holds under the same name, which is itself the
        library's own (found by the session-19 false-positive sweep)."""
        if cls is None:
            return False
        qualname = _class_name(cls)
        space = _namespace(_sys_modules.get(_class_module(cls)))
        if space is None or type(qualname) is not str or "<" in qualname:
            return False
        live = _found_at(space, qualname)
        return (live is not None and live is not cls and types.MappingProxyType.get(_class_dict(live), name) is value
                and self._library_own(live, code))

    def _compiled_class(self, cls) -> bool:
        """Whether ``cls`` is a class of a compiled extension module outside the checkout (pybind11's enums in
        matplotlib and scipy), new since the snapshot and found under its ``__module__``/``__qualname__`` there, with
        a metaclass of that binding library (``pybind11_type``)."""
        if cls is None or id(cls) in self._snapshot_ids or _class_name(_type(cls)) != "pybind11_type":
            return False
        module_name, class_name = _class_module(cls), _class_name(cls)
        if type(module_name) is not str or type(class_name) is not str or "<" in class_name:
            return False
        space = _namespace(_sys_modules.get(module_name))
        path = dict.get(space or {}, "__file__")
        if (type(path) is not str or not path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
                or not self._outside_path(path) or (module_name, class_name) in self._snapshot_names):
            return False
        return _found_at(space, class_name) is cls

    def _outside_path(self, path: str) -> bool:
        real = os.path.realpath(path)
        return not (self.root and real.startswith(self.root + os.sep)) and real not in self.sources

    def _judge_cython(self, name: str, function, code, cls) -> str | None:
        """A Cython-compiled function as the dunder ``name`` of ``cls`` (also inside a static/classmethod): fine as the
        class's own compiled ``def`` of that dunder (pandas' ``Infinity.__eq__``, ``OffsetMeta.__instancecheck__``:
        the code's name and the function's ``__qualname__`` say so), or as a closure of a factory in a compiled module
        of the library whose own class ``cls`` is (pandas' ``NAType.__eq__``, named after the dunder; its
        ``__qualname__``/``__name__`` are writable, its code is not, so the library's own class is the evidence).
        Anything else is a finding: reused on another class, ``Infinity.__gt__`` says every value is smaller."""
        qualname = getattr(function, "__qualname__", None)
        if type(qualname) is not str:
            return f"a {_class_name(type(function))} without a qualname"
        if code.co_name == name and cls is not None and qualname == f"{_class_name(cls)}.{name}":
            return None
        if "<locals>" in qualname and getattr(function, "__name__", None) == name:
            compiled = self._compiled_file(function)
            if compiled is not None and self._library_own(cls, code, compiled):
                return None
        return f"the Cython function {qualname}"

    @staticmethod
    def _test_local(code) -> bool:
        """A lambda or nested def inside a function of a test module or conftest (by pytest's default file names):
        what a test passes to ``monkeypatch.setattr`` or ``mock.patch.object``; the code under test cannot reach it
        without the objects of that call."""
        return "<locals>" in getattr(code, "co_qualname", "<locals>") and _test_file(code.co_filename)

    def _home(self, cls) -> str | None:
        """The declared source (as shown) that ``cls``'s module's file (``sys.modules[cls.__module__].__file__``) is,
        or None. ``__module__`` is writable, so it is believed only when that module's file has a ``class`` statement
        at the class's qualname holding it (or, for a test module, when every function of the class is that module's:
        a factory there may make classes with ``type()``); otherwise the class is judged as a declared file's, and
        the label says why (red-team round 10's R10-2, ``__module__ = "textkit.strings"``; round 11's R11-3, a test
        module or a module that is not loaded named instead)."""
        module_name = _class_module(cls)
        module = _sys_modules.get(module_name) if type(module_name) is str else None
        space = _namespace(module)
        path = dict.get(space or {}, "__file__")
        qualname = _class_name(cls)
        if type(path) is str and path[:1] != "<":
            declared = self._declared(path)
            if declared is not None or not self.sources:
                return declared
            real = _realpath(path)
            if ((qualname in self._local_classes(real)
                 and ("<locals>" in qualname or _found_at(space, qualname) is cls))
                    or (_test_file(real) and self._only_functions_of(cls, real))):
                return None
            shown = os.path.relpath(real, self.root) if self.root and real.startswith(self.root + os.sep) else module_name
            return f"{shown}, its __module__, whose file has no class statement for it (a declared file's may say so)"
        if not self.sources or (space is not None and type(qualname) is str and _found_at(space, qualname) is cls):
            return None
        return (f"{module_name if type(module_name) is str else '?'}, its __module__, which names no module file "
                f"holding it (a declared file's class may say so)")

    @staticmethod
    def _only_functions_of(cls, real: str) -> bool:
        """Whether every Python function ``cls`` holds (plain, static or class method) comes from the file ``real``:
        a class a test module builds with ``type()`` around its own helpers, not a declared file's class that says a
        test module is its home (red-team round 11, R11-3: ``__module__ = "test_numbers"``)."""
        for item in types.MappingProxyType.values(_class_dict(cls)):
            if _type(item) in _STATIC:
                item = item.__func__
            if _type(item) is types.FunctionType and _realpath(_func_code(item).co_filename) != real:
                return False
        return True

    def _defines_class(self, path: str, qualname: str) -> bool:
        """Whether the source file at ``path`` has a ``class`` statement at ``qualname`` (``Outer.Inner``: nested class
        bodies; under ``if``/``try`` too, never inside a function: such a class has ``<locals>`` in its qualname and
        is never a library's own), parsed once per file (red-team round 8, R8-4: a class made at run time and planted
        as ``functools._Exact`` has none)."""
        return "<locals>" not in qualname and qualname in self._local_classes(path)

    def _outside(self, code) -> bool:
        """Whether ``code`` comes from outside the checkout (or from no file: ``<string>``, ``<attrs generated …>``)."""
        filename = code.co_filename
        outside = self._outside_files.get(filename)
        if outside is None:
            real = os.path.realpath(filename) if filename[:1] != "<" else filename
            outside = self._outside_files[filename] = not (self.root and real.startswith(self.root + os.sep))
        return outside

    @staticmethod
    def _named_by_its_factory(name: str, function, code) -> bool:
        """A closure a library's factory made for this dunder and named after it (attrs' ``cmp_using`` on a class
        from ``types.new_class``, numpy's mixins, sortedcontainers): its ``__name__`` is the dunder's and it wraps
        nothing (``functools.wraps(int.__eq__)(closure)`` would copy the name, and sets ``__wrapped__``)."""
        qualname = getattr(code, "co_qualname", "")
        return ("<locals>" in qualname and function.__name__ == name
                and dict.get(function.__dict__, "__wrapped__", _ABSENT) is _ABSENT)

    def _library_own(self, cls, code, home: str | None = None) -> bool:
        """Whether ``cls`` is a library's own class using a function of its own package: ``cls`` was not alive at the
        snapshot (a library class from then on is trusted as it was, and a rebinding of it is judged without this
        exception), it is found under its own ``__module__`` and ``__qualname__`` in ``sys.modules`` (dictionaries
        read directly: no ``__getattr__`` runs), that module's file is outside the checkout, and ``code`` comes from
        the same top-level package (the same file for a top-level module). Libraries make comparison methods with
        decorator factories (numpy's mixins, pandas' ``OpsMixin``, sympy, sortedcontainers) or aliases (jinja2's
        ``__eq__ = _fail_with_undefined_error``, mpmath's ``__gt__ = _compare``); a class made by the code under test
        (``type(K)("E", …)``, ``types.new_class``) lives in the module that made it (or in ``types``), not under its
        name in ``os`` or ``functools``. Red-team round 8 (R8-4): the class must also be a ``class`` statement at its
        ``__qualname__`` in its module's source file, and not stand under the name of a class alive at the snapshot."""
        if cls is None:
            return False
        if id(cls) in self._snapshot_ids:  # held alive by _keep: the id is that class's
            return False
        module_name, class_name = _class_module(cls), _class_name(cls)
        if type(module_name) is not str or type(class_name) is not str or "<" in class_name:
            return False
        module = _sys_modules.get(module_name)
        namespace = space = _namespace(module)
        if space is None:
            return False
        owner = _found_at(space, class_name)
        top = _sys_modules.get(module_name.partition(".")[0])
        path = dict.get(_namespace(top) or {}, "__file__")
        if owner is not cls or type(path) is not str or path[:1] == "<":
            return False
        if (module_name, class_name) in self._snapshot_names:  # planted over a class alive at the snapshot
            return False
        path, real = os.path.realpath(path), home or os.path.realpath(code.co_filename)
        if (self.root and path.startswith(self.root + os.sep)) or path in self.sources:
            return False
        if os.path.basename(path) == "__init__.py":  # a package: any of its files
            same = real.startswith(os.path.dirname(path) + os.sep)
        else:
            same = real == path
        if not same:
            return False
        own_file = dict.get(namespace, "__file__")
        if type(own_file) is not str or own_file[:1] == "<":
            return False
        own_file = os.path.realpath(own_file)
        if not own_file.startswith(os.path.dirname(path) + os.sep) and own_file != path:
            return False
        if self._defines_class(own_file, class_name):
            return True
        # A class shown under its package's name (pandas' ``@set_module("pandas")`` gives ``Categorical`` the
        # ``__module__`` "pandas"): its ``class`` statement is in the file of its own methods, a file of the same
        # package. The method is the class's own (red-team round 9, R9-1: not one borrowed from the real class by a
        # class planted under its name): stored under its code's name, with the qualname ``Categorical.<name>``, and
        # held by no other live class.
        package = os.path.dirname(path) + os.sep
        own = _class_dict(cls)
        for key, f in list(own.items()):
            if (type(f) is types.FunctionType and type(key) is str and _func_code(f).co_name == key
                    and _func_code(f).co_qualname == f"{class_name}.{key}"):
                where = os.path.realpath(_func_code(f).co_filename)
                if (where != own_file and where.startswith(package) and self._defines_class(where, class_name)
                        and not _held_elsewhere(cls, f)):
                    return True
        if home is None:
            return False
        # A class compiled by Cython (pandas' ``NAType``), judged for a Cython function: no ``class`` statement ships,
        # so the evidence is one of its own methods, a Cython function of a compiled module of the same package,
        # stored under its name (``__name__`` and code), with the qualname ``NAType.<name>``, held by no other class.
        for key, f in list(own.items()):
            code = _cython_code(f)
            if (code is not None and type(key) is str and code.co_name == key and getattr(f, "__name__", None) == key
                    and getattr(f, "__qualname__", None) == f"{class_name}.{key}"
                    and (self._compiled_file(f) or "").startswith(package) and not _held_elsewhere(cls, f)):
                return True
        return False

    @staticmethod
    def _compiled_file(function) -> str | None:
        """The real path of the compiled extension module a Cython function's ``__module__`` names, or None."""
        module_name = getattr(function, "__module__", None)
        module = _sys_modules.get(module_name) if type(module_name) is str else None
        path = dict.get(_namespace(module) or {}, "__file__")
        if type(path) is not str or not path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            return None
        return os.path.realpath(path)

    def _library_factory(self, cls, code) -> bool:
        """Whether ``code`` (an isinstance/issubclass hook of the new class ``cls``) is a closure of a library's class
        factory in the very module that ``cls`` says made it: pandas' ``create_pandas_abc_type`` builds ``ABCSeries``
        and its metaclass with ``type(name, bases, {"__instancecheck__": classmethod(_instancecheck), …})``, and
        ``type()`` takes ``__module__`` from the module calling it. The module's file is outside the checkout and is
        the closure's file. Only isinstance/issubclass ask these hooks (never ``==``, ``<`` or ``bool``); code that
        calls such a factory itself must import it, which the screen refuses in an edit."""
        if cls is None or id(cls) in self._snapshot_ids or "<locals>" not in getattr(code, "co_qualname", ""):
            return False
        module_name = _class_module(cls)
        module = _sys_modules.get(module_name) if type(module_name) is str else None
        path = dict.get(_namespace(module) or {}, "__file__")
        if type(path) is not str or path[:1] == "<" or self._declared(path) is not None or not self._outside(code):
            return False
        return os.path.realpath(path) == os.path.realpath(code.co_filename)

    @staticmethod
    def _shown(function, code) -> str:
        module = function.__module__
        return f"{module if type(module) is str else '?'}.{getattr(code, 'co_qualname', code.co_name)}"

    def after_call(self) -> list[str]:
        """:meth:`findings` after a test call, walking every class at most about a tenth of the run's time: the walk is
        skipped while the time since the last one is under nine times that walk's own cost (it grows with the classes
        alive: ~2 ms bare, 20-40 ms with a scientific stack of ~5,500 classes, which made a 500-test suite 7x slower
        and large suites time out at preparation). What the compare-time judge found is handed out every time; the
        walks after collection and in must_pass's final check always run."""
        self._containers.clear()  # what one test's asserts compared (judge_at_assert)
        self.oracle._reached.clear()
        start = _clock()
        if start - self._walked_at < 9 * self._walk_cost:
            return self.findings(walk=False)
        out = self.findings()
        self._walked_at = _clock()
        self._walk_cost = self._walked_at - start
        return out

    def findings(self, walk: bool = True) -> list[str]:
        """What is found now and was not reported before (each finding is reported once).

        Every class alive is walked; a class without comparison dunders costs one C-level ``isdisjoint`` over
        its keys, and a dunder value (with its code, for a function) judged before costs an identity check.
        """
        if not walk:
            taken = self.at_asserts[:]
            del self.at_asserts[:len(taken)]
            return taken
        out = []
        known, none_of, subclasses, class_dict, names = (self.known, _COMPARISON_SET.isdisjoint, _subclasses,
                                                         _class_dict, _COMPARISONS)
        exact, flags, checked, lookup = _str_keys, _class_flags, _CACHE_CHECKED, _type_lookup
        seen: set = set()
        todo = [object]
        pop, push, mark = todo.pop, todo.extend, seen.add
        while todo:
            cls = pop()
            if id(cls) in seen:  # a class with several bases is listed under each
                continue
            mark(id(cls))
            push(subclasses(cls))
            own = class_dict(cls)
            try:
                if not exact(own):  # before anything hashes the keys (R8-2); every class, every walk: a raw write
                    out.append(f"comparison check of {self._label(cls)}: {_odd_key(own)}")  # into a class dict
                    continue  # (gc) adds a key setattr would have made an exact str, to a class seen before too
                if none_of(own):  # hashes the keys (exact strs, or a class from the snapshot)
                    continue
                heap = flags(cls) & _HEAPTYPE
                plain = type(cls) is type
                entry = known.get(id(cls))
                if entry is None or entry[0]() is not cls:  # first seen (or an id reused by a new class)
                    entry = known[id(cls)] = (weakref.ref(cls), {})
                judged = entry[1]
                self._memo.clear()
                for name in names:
                    if name not in own:
                        continue
                    value = own[name]
                    if heap and (value is None or type(value) in checked) and not (
                            plain and lookup(cls, name) is value):  # R8-1: also when judged before
                        why = _stale(cls, name, value)
                        if why is not None:
                            out.append(f"comparison {self._label(cls)}.{name}: {why}")
                            continue
                    before = judged.get(name)
                    if before is not None and before[0]() is value and (
                            before[1] is None or before[1]() is value.__code__) and (
                            len(before) == 2 or _same(before[2], _held_now(value, self._memo))):
                        continue  # judged already (or trusted: at the snapshot)
                    judged[name] = _state(value)
                    why = self._judge(name, value, cls)
                    if self._again is not None:  # a pristine call's object: judged again when what it holds changed
                        judged[name] = (*judged[name], self._again)
                    if why is not None:
                        out.append(f"comparison {self._label(cls)}.{name} is {why}")
            except Exception as exc:  # a hostile key or value: a finding, never a crash of the check
                out.append(f"comparison check of {self._label(cls)} raised {_class_name(type(exc))}")
        new = [f for f in out if f not in self.reported]
        self.reported.update(new)
        taken = self.at_asserts[:]
        del self.at_asserts[:len(taken)]
        return taken + new

    # ---- The compare-time judge (red-team round 7, G3 (d)) ------------------------------------------------------
    # The checks above sample at three moments; a class made and freed between two of them (r2), or a dunder set
    # before an assert and restored after it (r4, r8), is gone by the next one. This judges what an assert compares
    # at the moment it compares it: pytest's assertion rewriting is patched (before any test module is rewritten)
    # to pass each operand of a ``Compare`` in an assert, and the asserted value of a plain ``assert x``, through
    # ``_beacon_judge`` (bound in ``_pytest.assertion.rewrite``, whose alias ``@pytest_ar`` every rewritten module
    # uses), which returns it unchanged after judging the dunders ``type(value)`` resolves to.

    def judge_at_assert(self, value):
        """The comparison dunders (and ``__len__``, for truthiness) that ``type(value)`` resolves to through its MRO
        (the first class whose own ``__dict__`` defines each one), judged as :meth:`findings` judges them: a value
        judged before (or trusted at the snapshot) costs an identity check. A list, tuple, dict, set or frozenset
        (or a subclass) compares its elements with their own dunders: each distinct class among its elements (keys
        and values; nested such containers too, to a depth of 3) is judged as well, found without running any Python
        code of theirs (the base type's own iteration, ``type()``, ids). Returns ``value``; never raises."""
        try:
            cls = type(value)
            if _class_flags(cls) & _HEAPTYPE:
                self._judge_class(cls)
                if self.edited:
                    self.probe(cls, value)
            base = _container_base(cls)
            if base is not None:
                # A container an assert of this test already compared, at the same length, is not walked again:
                # ``assert w in VOCAB`` in a loop over a 200,000-word set took a minute (red-team round 10, FP10-1).
                # Held (not only its id) until the test ends, so the id cannot be reused by another container.
                length = base.__len__(value)
                seen = self._containers.get(id(value))
                if seen is None or seen[0] is not value or seen[1] != length:
                    self._judge_elements(value, base, 3, set())
                    self._containers[id(value)] = (value, length)
        except Exception as exc:  # a hostile class: a finding, never an error in the test
            self._report_at_assert(f"comparison check at an assert raised {_class_name(type(exc))}")
        return value

    def judge_link(self, result, left, right, op: str):
        """After ``left op right`` in an assert said yes: each side whose comparison would be probed (an edited
        function, or one reaching an edited method; :meth:`probe`) is asked again with the *other* operand changed
        to a value it must say no to (:func:`_unlike`: an int a million larger, a string with more characters, a
        copies of an object with its attributes replaced in turn, a number far below for ``<``). Yes again is a finding: an
        edited ``__eq__`` that says yes to any ``int`` (``isinstance(other, int) and True``), which tells the probe's
        strangers apart. Returns ``result``; never raises."""
        try:
            if self.edited and _yes(result):
                finding = self.oracle.ask(left, right, op)
                if finding is not None:
                    self._report_at_assert(finding)
                if op in _REFLECTED:
                    self._probe_link(left, right, op)
                    self._probe_link(right, left, _REFLECTED[op])
        except Exception as exc:
            self._report_at_assert(f"comparison check at an assert raised {_class_name(type(exc))}")
        return result

    def judge_truth(self, seen, value):
        """After ``assert x`` or ``assert not x`` took the truth of ``x`` (``seen``, computed in the test's own frame):
        the pristine code is asked the same (:class:`_Oracle`; red-team round 12, R12-6: ``__bool__``/``__len__``
        edited to say ``False`` so ``assert not problems`` passed). Returns ``seen``; never raises."""
        try:
            if self.edited and type(seen) is bool and _class_flags(_type(value)) & _HEAPTYPE:
                finding = self.oracle.ask(value, None, "__bool__", seen)
                if finding is not None:
                    self._report_at_assert(finding)
        except Exception as exc:
            self._report_at_assert(f"comparison check at an assert raised {_class_name(type(exc))}")
        return seen

    def compare_call(self, left, right, op: str):
        """A comparison of a test module written outside an assert (``assertTrue(a == b)``, ``any(x == y for …)``,
        ``if a != b: fail()``; red-team round 13, R13-4), rewritten to a call of this: made as written, then, when it
        answers a ``bool``, the oracle asks the pristine code the same question. Returns the answer unchanged."""
        __tracebackhide__ = True  # noqa: F841 (pytest hides this frame from a failure's traceback)
        result = _ORACLE_CALLS[op](left, right)
        # (two values of Python's own scalar classes, exactly: the comparison is C's and no pristine code can answer
        # it otherwise; session 37's FP40-3, a test's recursive helper comparing ints ran 15x slower)
        if _ohash(_type(left)) in _SCALAR_CLASSES and _ohash(_type(right)) in _SCALAR_CLASSES:
            return result
        if self.edited and not self.oracle.active and type(result) is bool:
            try:
                finding = self.oracle.ask(left, right, op, result)
                if finding is not None:
                    self._report_at_assert(finding)
            except Exception as exc:
                self._report_at_assert(f"comparison check at an assert raised {_class_name(type(exc))}")
        return result

    def judge_method(self, original, args, kwargs, op) -> None:
        """After a ``TestCase`` assertion method passed: the same call again with the changed code replaced by its
        pristine version (:meth:`_Oracle.run`); failing there (``assertCountEqual``, ``assertDictEqual``,
        ``assertAlmostEqual``…: comparisons unittest makes itself) is a finding, and so is needing changed code with
        no pristine version. Then the link's probe, for the methods that compare two values. Never raises."""
        if self.oracle.active:
            return
        why = self._equality_table_why(args[0]) if args else None
        if why is not None:
            self._report_at_assert(f"{_func_code(original).co_name} passed, but {why}")
        if not self.edited:
            return
        try:
            values = [v for v in (*args[1:3], *kwargs.values())]
            if self.oracle.files and _any(_map(self.oracle.reaches, values)):
                why, raised = self.oracle.run(lambda: original(*args, **kwargs), *(values + [None, None])[:2])
                why = None if why is _UNMODELED else why
                if isinstance(raised, AssertionError):  # the method's own failure: unittest's failureException
                    why = "the task's pristine code says it fails on the same values"
                if why:
                    self._report_at_assert(f"oracle: {_func_code(original).co_name} passed; {why}")
            if op in _REFLECTED and len(args) > 2:
                self._probe_link(args[1], args[2], op)
                self._probe_link(args[2], args[1], _REFLECTED[op])
        except Exception as exc:
            self._report_at_assert(f"comparison check at an assert raised {_class_name(type(exc))}")

    def genuine(self, code) -> bool:
        """Whether ``code`` is a code object a file of the checkout that is not a declared source compiles to (a
        test's, a fixture's, a helper's): its claimed file is not enough (red-team round 38 compiled the edit's
        functions under a test file's name, so their calls counted as a test's)."""
        known = self._genuine.get(_ohash(code))
        if known is not None and known[0] is code:
            return known[1]
        filename = code.co_filename
        real = _realpath_cached(filename) if _type(filename) is str and filename[:1] != "<" else None
        ok = bool(real is not None and self.root and real.startswith(self.root + os.sep) and real not in self.sources
                  and self.compiled_from is not None and self.compiled_from(code, real, filename))
        self._genuine[_ohash(code)] = (code, ok)
        return ok

    def trust_equality_entry(self, case, typeobj, function, caller) -> None:
        """``addTypeEqualityFunc`` (wrapped) was called: the entry is a test's own when the caller is genuine."""
        if caller is not None and self.genuine(caller):
            entry = self.trusted_equality.get(_id(case))
            if entry is None or entry[0] is not case:
                entry = self.trusted_equality[_id(case)] = (case, {})
            entry[1][_id(typeobj)] = (typeobj, function)

    # What ``TestCase.__init__`` puts in an instance's ``_type_equality_funcs`` (the only string entries unittest makes)
    _EQUALITY_DEFAULTS = {dict: "assertDictEqual", list: "assertListEqual", tuple: "assertTupleEqual",
                          set: "assertSetEqual", frozenset: "assertSetEqual", str: "assertMultiLineEqual"}

    def _equality_table_why(self, case) -> str | None:
        """Why a ``TestCase`` instance's table of type-specific equality methods (what ``assertEqual`` asks first) holds
        an entry that is neither unittest's own default nor one a test's own code added through
        ``addTypeEqualityFunc`` (red-team round 37: ``{int: "assertIsNot"}`` written into the instance's table made
        ``assertEqual(-1, 5)`` run unittest's own ``assertIsNot``; round 38's honest suites add string names, callable
        objects and the package's own helpers, so the entry is judged by who added it, not by what it is). Reads the
        instance's own dict and the table's items by identity; hashes nothing of the edit's."""
        getter = _instance_dict_getter(_type(case))
        space = getter(case) if getter is not None else None
        if _type(space) is not dict or not _str_keys(space):
            return None
        table = dict.get(space, "_type_equality_funcs", _ABSENT)
        if table is _ABSENT:
            return None
        if _type(table) is not dict:
            return "its instance's _type_equality_funcs is not a dict"
        trusted = self.trusted_equality.get(_id(case))
        trusted = trusted[1] if trusted is not None and trusted[0] is case else {}
        defaults = self._EQUALITY_DEFAULTS
        for key, value in zip(tuple(table), tuple(dict.values(table))):
            if _type(key) is type and _any(_map(_is, defaults, _repeat(key))) and _type(value) is str \
                    and value == dict.get(defaults, key):
                continue  # (TestCase.__init__'s own)
            added = dict.get(trusted, _id(key))
            if added is not None and added[0] is key and added[1] is value:
                continue  # (a test's addTypeEqualityFunc)
            label = _class_name(key) if _type(key) is type else "?"
            shown = repr(value) if _type(value) is str else _class_name(_type(value))
            return f"its instance's equality table sends {label} to {shown}, which no test's code added"
        return None

    def _probe_link(self, value, other, name: str) -> None:
        cls = _type(value)
        if not _class_flags(cls) & _HEAPTYPE:
            return
        found, owner = _in_mro(cls, name)
        if found is _ABSENT:
            return
        key = (id(found), id(_type(other)))
        seen = self._linked.get(key)
        if seen is not None and seen() is found:
            return
        function, where = self._probed_callable(cls, found, value)
        if function is None or (type(function) is types.FunctionType and self.oracle.covers(function)):
            return  # the oracle asked the pristine code this link's question (judge_link)
        self._linked[key] = _hold(found)
        unlike = _unlike(other, name)
        if unlike and all(_yes(_ask(function, value, changed)) for changed in unlike):
            self._report_at_assert(
                f"probe: {self._label(owner)}.{name} ({where}) says yes to a {_class_name(_type(other))} it was "
                f"compared with and also to one it must say no to")
        elif name == "__eq__":
            # Red-team round 11 (R11-4): ``return abs(other) < 10 ** 6`` says no to every value far away, but it never
            # reads ``self``: copies of the value, its attributes replaced by strangers in turn, all still equal.
            mine = _perturbed(cls, value)
            if mine and all(_yes(_ask(function, copy, other)) for copy in mine):
                self._report_at_assert(
                    f"probe: {self._label(owner)}.{name} ({where}) says yes to the {_class_name(_type(other))} it was "
                    f"compared with whatever the value's own attributes are")

    def probe(self, cls, value) -> None:
        """Ask each edited comparison dunder that ``cls`` resolves to about a stranger (see :class:`_Stranger`).

        The screen does not judge the *body* of a ``def __eq__`` the declared file already had (an honest repair may
        fix a comparison), and at run time such a function looks like any other. So a comparison dunder (``==``, the
        orderings, ``in``) that ``type(value)`` resolves to, a Python function from a declared source whose code
        spans a line the edit changed (the harness's ``before``) or that uses, by name, a method of ``cls`` or a
        global function that does (F4: ``return self.compare(other) == 0`` with ``compare`` edited), is called once
        per run with ``value`` and an object of a class no project code knows: an honest comparison returns
        ``NotImplemented`` or a falsy value or raises. Saying yes (``True``, or a truthy value of a C type) is a
        finding: ``return True`` or ``… or True`` written into an existing ``__eq__``. A function that raised on a
        bare stranger is asked again with one whose every attribute and call result is a falsy stranger
        (``self.x == other.x or True``). One that said no (an ``isinstance`` guard) is asked, except ``in``, about
        copies of ``value`` that together replace each instance attribute by a stranger (:func:`_perturbed`): an honest
        comparison of any attribute says no to one of them; yes to all is a finding. Code that inspects what it is
        given before saying yes (``type(other.cents) is int``) is not caught; unedited code that reaches no edited
        function is never called."""
        for name in _PROBED:
            found, owner = _in_mro(cls, name)
            function, where = self._probed_callable(cls, found, value)
            if function is None:
                continue
            seen = self._probed.get(id(found))
            if seen is not None and seen() is found:
                continue
            self._probed[id(found)] = _hold(found)
            said = _ask(function, value, _Stranger())
            if said is _RAISED:
                said = _ask(function, value, _Attributed())
            if _yes(said):
                self._report_at_assert(
                    f"probe: {self._label(owner)}.{name} ({where}) says yes about an object of a class it has "
                    f"never seen")
            elif name != "__contains__" and not (type(function) is types.FunctionType and self.oracle.covers(function)):
                changed = _perturbed(cls, value)
                if changed and all(_yes(_ask(function, value, other)) for other in changed):
                    self._report_at_assert(
                        f"probe: {self._label(owner)}.{name} ({where}) says yes about a copy of the value with "
                        f"its attributes replaced, in turn, by objects it has never seen")

    def _probed_callable(self, cls, found, value) -> tuple:
        """``(callable(value, other), why)`` for a comparison dunder the probe asks, or ``(None, None)``: a Python
        function (see :meth:`_why_probed`), or a descriptor whose class's ``__get__`` is a Python function
        (werkzeug's ``_ProxyLookup``) when code it is made of or holds spans an edited line (red-team round 11,
        R11-2: ``__eq__ = _ProxyLookup(operator.eq)`` kept as it was while the edit made its ``bind_f`` say yes),
        asked through that ``__get__``."""
        if type(found) is types.FunctionType:
            where = self._why_probed(cls, found, found.__code__, value)
            return (found, where) if where is not None else (None, None)
        kind = _type(found)
        if found is _ABSENT or not _class_flags(kind) & _HEAPTYPE:
            return None, None
        getter = _in_mro(kind, "__get__")[0]
        if type(getter) is not types.FunctionType:
            return None, None
        codes = [f.__code__ for klass in _class_mro(kind)[:-1] for f in types.MappingProxyType.values(_class_dict(klass))
                 if type(f) is types.FunctionType]
        instance = _instance_dict_getter(kind)
        own = _read(lambda v: instance(v, kind), found) if instance is not None else _ABSENT
        todo = list(dict.values(own)) if _type(own) is dict else []
        todo += [_read(slot, found) for _, slot in _slot_getters(kind)]
        for depth in range(3):
            nxt = []
            for item in todo:
                if type(item) is types.FunctionType:
                    codes.append(item.__code__)
                    nxt += _cells(item)
            todo = nxt
        edited = next((code for code in codes if self._edited_code(code)), None)
        if edited is None:
            return None, None
        return ((lambda v, o: getter(found, v, cls)(o)),
                f"a {_class_name(kind)} reaching the edited {self._source(edited)}:{edited.co_firstlineno}")

    def _edited_code(self, code) -> bool:
        """Whether ``code`` (or code nested in it) was compiled from a line of a declared source the edit changed."""
        filename = code.co_filename
        edited = self.edited.get(_realpath(filename)) if type(filename) is str else None
        return bool(edited) and not edited.isdisjoint(_code_lines(code))

    def _why_probed(self, cls, function, code, value) -> str | None:
        """Why the comparison ``function`` (resolved on ``cls``, asked about ``value``) is probed, or None: its code
        spans a line the edit changed, or it uses by name a function the edit changed one step away — a method that
        ``cls`` resolves to or that ``value`` holds in its instance ``__dict__``, or a global of the function's
        module (red-team round 6's F4: a base's ``__eq__`` returning ``self.compare(other) == 0``, the edit overriding
        ``compare``; round 10's R10-1: a library's own ``__eq__`` (``UserList``'s ``self.__cast(other)``,
        SQLAlchemy's ``self.operate(eq, other)``, scipy's ``self._comparison``) steered by a method of a project
        subclass)."""
        if self._edited_code(code):
            return f"the edited {self._source(code)}:{code.co_firstlineno}"
        names = set()
        todo = [code]
        while todo:
            current = todo.pop()
            names.update(name for name in current.co_names if type(name) is str)
            todo.extend(const for const in current.co_consts if type(const) is types.CodeType)
        space = function.__globals__
        getter = _instance_dict_getter(cls)
        held = getter(value, cls) if getter is not None else None
        for name in names:
            found = _ABSENT
            if _type(held) is dict:
                found = dict.get(held, name, _ABSENT)
            if found is _ABSENT:
                found = _in_mro(cls, name)[0]
            if found is _ABSENT and type(space) is dict:
                found = dict.get(space, name, _ABSENT)
            if _type(found) in _STATIC or _type(found) is types.MethodType:
                found = found.__func__
            elif _type(found) is property:
                found = found.fget
            if type(found) is types.FunctionType and found is not function and self._edited_code(found.__code__):
                inner = found.__code__
                return (f"{_shown_file(code)}:{code.co_firstlineno}, reaching the edited {self._source(inner)}:"
                        f"{inner.co_firstlineno} as {name}")
        return None

    def _judge_elements(self, value, base, depth: int, seen: set) -> None:
        if id(value) in seen:
            return
        seen.add(id(value))
        for elements in _container_parts(value, base):
            types_ = list(_map(_type, elements))
            for cls in dict(zip(_map(_id, types_), types_)).values():
                if _class_flags(cls) & _HEAPTYPE:
                    self._judge_class(cls)
                inner = _container_base(cls)
                if inner is not None and depth > 1:
                    for element in elements:
                        if _type(element) is cls:
                            self._judge_elements(element, inner, depth - 1, seen)

    def _judge_class(self, cls, _names=frozenset(_COMPARISONS + ("__len__",))) -> None:
        """Judge the comparison dunders (and ``__len__``) that the heap class ``cls`` resolves to (see
        :meth:`judge_at_assert`)."""
        left = set(_names)
        plain = _type(cls) is type  # no metaclass: its cached lookup is read directly (the common case)
        for owner in _class_mro(cls):
            own = _class_dict(owner)
            if not _str_keys(own):  # before hashing a key (R8-2), each time (see findings)
                self._report_at_assert(f"comparison check of {self._label(owner)}: {_odd_key(own)} (at an assert)")
                return
            found = left.intersection(own)  # iterates own's keys in C
            if not found:
                continue
            left -= found
            for name in found:  # R8-1: what the comparison calls is CPython's cached lookup on cls
                dunder = own[name]
                if (dunder is None or type(dunder) in _CACHE_CHECKED) and not (
                        plain and _type_lookup(cls, name) is dunder):
                    why = _stale(cls, name, dunder)
                    if why is not None:
                        self._report_at_assert(f"comparison {self._label(cls)}.{name}: {why} (at an assert)")
            if _class_flags(owner) & _HEAPTYPE:
                self._judge_owner(owner, own, found)
            if not left:
                break
        for name in (left - _TYPE_OWN if plain else left):  # resolved nowhere: nor may the cache hold one
            # (``getattr`` on a class whose metaclass is ``type`` itself is type's C lookup: no Python code runs)
            why = (None if plain and _getattr(cls, name, _ABSENT) is _ABSENT else _stale(cls, name, _ABSENT))
            if why is not None:
                self._report_at_assert(f"comparison {self._label(cls)}.{name}: {why} (at an assert)")

    def _judge_owner(self, owner, own, found) -> None:
        self._memo.clear()
        entry = self.known.get(id(owner))
        if entry is None or entry[0]() is not owner:
            entry = self.known[id(owner)] = (weakref.ref(owner), {})
        judged = entry[1]
        for name in found:
            dunder = own[name]
            before = judged.get(name)
            if before is not None and before[0]() is dunder and (
                    before[1] is None or before[1]() is dunder.__code__) and (
                    len(before) == 2 or _same(before[2], _held_now(dunder, self._memo))):
                continue
            judged[name] = _state(dunder)
            why = self._judge(name, dunder, owner)
            if self._again is not None:
                judged[name] = (*judged[name], self._again)
            if why is not None:
                self._report_at_assert(f"comparison {self._label(owner)}.{name} is {why} (at an assert)")

    def _report_at_assert(self, finding: str) -> None:
        if finding not in self.reported:
            self.reported.add(finding)
            self.at_asserts.append(finding)

    def rewritten_elsewhere(self, rewriter, own: dict, mod, path: str, transform) -> str | None:
        """Why pytest's rewritten tree ``mod`` of the file at ``path`` is not the plugin's own rewriting of the file's
        bytes (None when it is; session 34). The plugin reads the file itself, parses it (C), and has a fresh
        ``AssertionRewriter`` with no config (the pass hook's setting copied from pytest's as a bool) rewrite it, so
        nothing the edit reached through pytest's objects (the config, the source pytest read, the tree it was
        given) shapes the copy; what the rewriting calls outside them is :class:`_RewriteGuard`'s. A module that is
        no test module (a helper whose asserts pytest rewrites) had no other check. The compiled results go to the
        provenance check, which then does not compile the file again."""
        try:
            with _open(path, "rb") as fh:
                source = fh.read()
        except OSError:
            return None  # (no file of that name: code pytest was handed another way)
        hook = dict.get(own, "enable_assertion_pass_hook", False)
        if _type(hook) is not bool:
            return f"pytest's rewriting of {path} was given a pass-hook setting that is not a bool"
        try:
            tree = _compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
            fresh = _type(rewriter)(path, None, source)
            fresh.enable_assertion_pass_hook = hook
            transform(fresh, tree)
            mine = _compile(tree, path, "exec", dont_inherit=True)
            theirs = _compile(mod, path, "exec", dont_inherit=True)
        except Exception as exc:  # noqa: BLE001 (a tree that does not compile: pytest's compile fails the same way)
            return f"the plugin's rewriting of {path} raised {_class_name(_type(exc))}"
        if mine != theirs:  # (code objects compare in C: their constants are Python's own kinds)
            return (f"pytest's rewriting of {path} is not the plugin's rewriting of the file (code of the edit "
                    f"changed the tree or the source pytest was given)")
        provenance = self.provenance
        if provenance is not None:  # (by the file name: no os.path function, which the guard does not cover)
            out: dict = {}
            _nested_codes(_compile(source, path, "exec", dont_inherit=True), out)
            _nested_codes(mine, out)
            first = provenance.rewritten.setdefault(path, (source, out))[1]  # (the bytes: see _Provenance._pristine)
            if first is not out and first != out:  # (lists of code objects: compared in C)
                return (f"{path} was rewritten again and came out different (the first rewriting stands for the "
                        f"provenance check)")
        return None

    def install_judge(self, rewrite) -> None:
        """Patch ``rewrite.AssertionRewriter`` (pytest's ``_pytest.assertion.rewrite``) so rewritten asserts call
        :meth:`judge_at_assert`. Called before the watch's snapshot, which then holds the patched methods and the
        helper (``_WATCHED``). Only the evaluated expressions are wrapped, after pytest built them: a failing
        assert's explanation (which pytest builds from the same temporaries) is byte-identical."""
        rewriter = rewrite.AssertionRewriter
        visit_compare, visit_assert = rewriter.visit_Compare, rewriter.visit_Assert
        visit_unary, visit_boolop = rewriter.visit_UnaryOp, rewriter.visit_BoolOp
        rewrite._beacon_judge = self.judge_at_assert
        rewrite._beacon_link = self.judge_link
        rewrite._beacon_truth = self.judge_truth
        rewrite._beacon_cmp = self.compare_call
        run = rewriter.run
        # A rewritten pyc that an earlier pytest run cached (same tag) holds asserts without the helper.
        rewrite.PYC_TAIL = "." + rewrite.PYTEST_TAG + "-beacon" + rewrite.PYC_EXT

        def judged(rewriter_self, node):
            if (type(node) is ast.Call and type(node.func) is ast.Attribute
                    and node.func.attr == "_beacon_judge"):
                return node
            call = ast.copy_location(rewriter_self.helper("_beacon_judge", node), node)
            for part in (call.func, call.func.value):  # the assert's own nodes got their location already
                ast.copy_location(part, node)
            return call

        def visit_Compare(self, comp):  # noqa: N802 (pytest's name)
            statements = self.statements
            start = len(statements)
            result = visit_compare(self, comp)
            # pytest evaluates each link of the chain as ``@py_assertN = (left op right)`` on its temporaries. The
            # link's result is judged too: its truthiness decides the assert (a ``def __eq__`` may return an object
            # whose ``__bool__`` lies).
            for statement in statements[start:]:
                if type(statement) is ast.Assign and type(statement.value) is ast.Compare:
                    compare = statement.value
                    operands = (compare.left, *compare.comparators)
                    compare.left = judged(self, compare.left)
                    compare.comparators = [judged(self, c) for c in compare.comparators]
                    statement.value = linked(self, judged(self, compare), compare.ops, operands)
            return result

        def linked(rewriter_self, node, ops, operands):
            # One link (pytest writes ``@py_assertN = left op right`` on temporaries or plain names, which can be
            # read again without running anything): its operands go to ``_beacon_link`` with the result, so an
            # edited comparison that said yes can be asked about a value it should say no to (judge_link).
            op = _ORACLE_LINK_OPS.get(type(ops[0])) if len(ops) == 1 else None
            if op is None or not all(type(o) in (ast.Name, ast.Constant) for o in operands):
                return node
            again = [ast.copy_location(ast.Name(o.id, ast.Load()) if type(o) is ast.Name
                                       else ast.Constant(o.value), node) for o in operands]
            call = ast.copy_location(rewriter_self.helper("_beacon_link", node, *again,
                                                          ast.copy_location(ast.Constant(op), node)), node)
            for part in (call.func, call.func.value):
                ast.copy_location(part, node)
            return call

        def truth(rewriter_self, operand):
            # ``not x`` -> ``not _beacon_truth(bool(_beacon_judge(x)), x)``: the truth is taken in the test's own frame
            # (as ``not x`` takes it), then the oracle asks the pristine code (judge_truth). Only for a plain name
            # (pytest's temporaries), which can be read again without running anything.
            if type(operand) is not ast.Name:
                return judged(rewriter_self, operand)
            seen = ast.copy_location(ast.Call(ast.copy_location(ast.Name("bool", ast.Load()), operand),
                                              [judged(rewriter_self, operand)], []), operand)
            again = ast.copy_location(ast.Name(operand.id, ast.Load()), operand)
            call = ast.copy_location(rewriter_self.helper("_beacon_truth", seen, again), operand)
            for part in (call.func, call.func.value):
                ast.copy_location(part, operand)
            return call

        def visit_UnaryOp(self, unary):  # noqa: N802
            statements = self.statements
            start = len(statements)
            result = visit_unary(self, unary)
            # ``assert not x``: pytest evaluates ``@py_assertN = not <x>``; x's truthiness decides the assert.
            for statement in statements[start:]:
                if (type(statement) is ast.Assign and type(statement.value) is ast.UnaryOp
                        and type(statement.value.op) is ast.Not):
                    statement.value.operand = truth(self, statement.value.operand)
            return result

        def visit_BoolOp(self, boolop):  # noqa: N802
            statements = self.statements
            start = len(statements)
            result = visit_boolop(self, boolop)
            # ``assert a and b``: pytest assigns each operand to the result variable (in nested ``if`` bodies) and
            # tests that variable: each operand's truthiness decides the assert.
            target = result[0].id if type(result[0]) is ast.Name else None
            for statement in statements[start:]:
                for node in ast.walk(statement):
                    if (type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name
                            and node.targets[0].id == target):
                        node.value = judged(self, node.value)
            return result

        def visit_Assert(self, assert_):  # noqa: N802
            test = assert_.test
            statements = visit_assert(self, assert_)
            plain = not (type(test) in (ast.Compare, ast.BoolOp)
                         or (type(test) is ast.UnaryOp and type(test.op) is ast.Not))
            if plain:  # ``assert x``: the truthiness of x (``__bool__``, ``__len__``)
                main = [s for s in statements if type(s) is ast.If]
                if main and type(main[-1].test) is ast.UnaryOp and type(main[-1].test.op) is ast.Not:
                    main[-1].test.operand = truth(self, main[-1].test.operand)
            return statements

        def transform(rewriter_self, mod):
            # Comparisons outside the asserts pytest rewrites (and inside their lambdas and comprehensions) become
            # calls of ``_beacon_cmp`` (compare_call); only in runs that hand over edited code with an oracle, and only
            # when pytest will rewrite the module (it adds the ``@pytest_ar`` import the calls use).
            first = mod.body[0] if mod.body else None
            doc = first.value.value if (type(first) is ast.Expr and type(first.value) is ast.Constant
                                        and type(first.value.value) is str) else None
            if mod.body and comparisons.oracle.files and not (doc is not None
                                                                and rewriter_self.is_rewrite_disabled(doc)):
                _CompareCalls().visit(mod)
                ast.fix_missing_locations(mod)
            run(rewriter_self, mod)

        def run_rewriter(self, mod):  # noqa: N802
            guard = comparisons.rewrite_guard  # first: the transform below calls ast's visitor too
            why = guard.changed() if guard is not None else None
            own = rewriter_dict(self) if _type(self) is rewriter and rewriter_dict is not None else None
            path = dict.get(own, "module_path") if _type(own) is dict else None
            shown = path if _type(path) is str else "a module"
            if why is not None:
                comparisons._report_at_assert(f"assertion rewriting: {why} before pytest rewrote {shown} (code of "
                                              f"the edit run inside the rewriting can take a test's asserts out)")
            shadow = comparisons.shadow
            paused = shadow is not None and shadow.may_pause() and _set_trace_now(None)  # (this thread's only)
            try:
                transform(self, mod)
                if _type(path) is str and why is None:
                    why = comparisons.rewritten_elsewhere(self, own, mod, path, transform)
                    if why is not None:
                        comparisons._report_at_assert(f"assertion rewriting: {why}")
            finally:
                if paused:
                    _set_trace_now(shadow.trace, must=True)

        rewrite_test = rewrite._rewrite_test

        def _rewrite_test(fn, config):
            # pytest's read-rewrite-compile of a module it imports: for a module rewritten before any project code
            # ran (precompute), that code, when the file holds the very bytes rewritten then; else pytest's own.
            done = comparisons.precomputed_code(fn)
            return done if done is not None else rewrite_test(fn, config)

        comparisons = self
        self._transform, self._rewriter = transform, rewriter
        rewriter_dict = _instance_dict_getter(rewriter)  # (the instances' own __dict__, read by the C getter)
        for name, patched in (("visit_Compare", visit_Compare), ("visit_Assert", visit_Assert),
                              ("visit_UnaryOp", visit_UnaryOp), ("visit_BoolOp", visit_BoolOp),
                              ("run", run_rewriter)):
            patched.__qualname__ = "AssertionRewriter." + name
            setattr(rewriter, name, patched)
        if _type(rewrite_test) is types.FunctionType:
            rewrite._rewrite_test = _rewrite_test

    def precompute(self, config, args) -> None:
        """Rewrite the modules pytest may rewrite in the test folders before any project code runs (session 35,
        red-team rounds 32-34: code of the edit run inside pytest's rewriting, reached through what the rewriting
        calls or reads — ``itertools.count``, ``ast._const_node_type_names``, a function's ``__code__`` swapped and put
        back — changed the tree, and the plugin's own rewriting, in the same process, agreed). Every ``.py`` file
        under the test paths the run was given (a file, or a folder's files, ``__pycache__`` and hidden folders left
        out) and each ``conftest.py`` from the checkout's root down to them, but the declared sources, at most
        :data:`_PRECOMPUTE_FILES` files: read, parsed in C and rewritten with pytest's rewriting and the plugin's own
        transform, as :meth:`rewritten_elsewhere` does, and compiled. When pytest then imports one of them and the
        file still holds those bytes, it gets that code (``_rewrite_test``): nothing the edit did to the rewriting can
        shape it. The rewriting's one setting, the assertion pass hook's ini option, is read here."""
        if self._transform is None or not self.root:
            return
        try:
            hook = bool(config.getini("enable_assertion_pass_hook"))
        except Exception:  # noqa: BLE001 (an ini pytest cannot read: pytest reports it itself)
            return
        tests = list(args[list(args).index("--") + 1:]) if "--" in args else []
        files: dict = {}
        for test in tests:
            relative = str(test).split("::")[0]
            if os.path.isabs(relative) or ".." in relative.split(os.sep):
                continue
            path = os.path.normpath(os.path.join(self.root, relative))
            here = os.path.dirname(path) if not os.path.isdir(path) else path
            while here.startswith(self.root) and len(files) < _PRECOMPUTE_FILES:  # the conftests above it
                if os.path.isfile(os.path.join(here, "conftest.py")):  # (a missing one takes no place: round 37)
                    files.setdefault(os.path.join(here, "conftest.py"), None)
                if here == self.root:
                    break
                here = os.path.dirname(here)
            if os.path.isfile(path) and path.endswith(".py"):
                files.setdefault(path, None)
            elif os.path.isdir(path):
                for here, dirs, names in os.walk(path):
                    dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
                    for name in sorted(names):
                        if name.endswith(".py") and len(files) < _PRECOMPUTE_FILES:
                            files.setdefault(os.path.join(here, name), None)
        for path in files:
            real = os.path.realpath(path)
            if real in self.sources or real in self.precomputed or not os.path.isfile(real):
                continue
            try:
                with _open(real, "rb") as fh:
                    source = fh.read()
                tree = _compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
                fresh = self._rewriter(path, None, source)
                fresh.enable_assertion_pass_hook = hook
                self._transform(fresh, tree)
                code = _compile(tree, path, "exec", dont_inherit=True)
                out: dict = {}
                _nested_codes(_compile(source, path, "exec", dont_inherit=True), out)
                _nested_codes(code, out)
            except Exception:  # noqa: BLE001 (a file that does not compile: pytest's own rewriting reports it)
                continue
            self.precomputed[real] = (source, code, out, path)
            # each code object's image as compiled, before any project code (red-team round 37 found these entries
            # through gc.get_objects() and wrote into their code objects with ctypes before pytest was handed them)
            for codes in _nested_codes(code, {}).values():
                for c in codes:
                    image = _code_image(c)
                    if image is not None:
                        self.images[_id(c)] = (c, image, [None])

    def precomputed_code(self, fn):
        """``(os.stat_result, code)`` for the module file ``fn`` as :meth:`precompute` rewrote it, or None (not
        rewritten then, or its bytes changed since)."""
        if not self.precomputed:
            return None
        guard = self.rewrite_guard  # (pathlib's classes, which turn ``fn`` into a path, are among what it watches)
        why = guard.changed() if guard is not None else None
        try:
            path = os.fspath(fn)
            entry = self.precomputed.get(_realpath(path)) if _type(path) is str else None
            if entry is None:
                return None
            with _open(path, "rb") as fh:
                source = fh.read()
            stat = os.stat(path)
        except Exception:  # noqa: BLE001 (pytest's own rewriting reads it again and reports)
            return None
        if source != entry[0]:
            return None
        if why is not None:
            self._report_at_assert(f"assertion rewriting: {why} before pytest rewrote {path} (the plugin's "
                                   "rewriting made before any project code ran stands for it)")
        code = entry[1]
        if entry[3] != path:  # (the file under another name: copies of the code, which must then be as compiled)
            changed = [c for codes in _nested_codes(code, {}).values() for c in codes
                       if _id(c) in self.images and _code_changed(c, self.images[_id(c)][1])]
            if changed:
                self._report_at_assert(f"assertion rewriting: {changed[0].co_qualname} of {path}: its instructions "
                                       "or constants were written in place before pytest was handed it")
            code = _with_filename(code, path)
            for codes in _nested_codes(code, {}).values():
                for c in codes:
                    image = _code_image(c)
                    if image is not None:
                        self.images[_id(c)] = (c, image, [None])
        provenance = self.provenance
        if provenance is not None:
            nested: dict = {}
            _nested_codes(code, nested)
            provenance.served.setdefault(_realpath(path), {}).update(
                (_id(c), c) for codes in nested.values() for c in codes)
            provenance.rewritten.setdefault(path, (source, nested if code is not entry[1] else entry[2]))
        return stat, code

    def rewrite_helpers(self, config, args) -> None:
        """Have pytest rewrite the asserts of the test folders' helper modules as it rewrites the test modules'
        (red-team round 12, R12-5: ``def assert_same(a, b): assert a == b`` in ``tests/helpers.py`` compared the
        edit's values where no judge or oracle saw it). The folders are the first folder of each test path the run
        was given; a helper is any ``.py`` file under one that is not a test module, a ``conftest.py`` or a declared
        source. Its names (its stem, and its dotted path from the checkout) join the rewriting hook's marked names,
        as ``pytest.register_assert_rewrite`` would add them (without its already-imported warning). Only the
        failure messages of its asserts change."""
        rewrite = _sys_modules["_pytest.assertion.rewrite"]
        hook = next((f for f in sys.meta_path if isinstance(f, rewrite.AssertionRewritingHook)), None)
        marked = getattr(hook, "_must_rewrite", None)
        if type(marked) is not set or not self.root:
            return
        tests = list(args[list(args).index("--") + 1:]) if "--" in args else []
        try:
            patterns = [p for p in config.getini("python_files") if type(p) is str]
        except Exception:  # noqa: BLE001 (an ini pytest cannot read: pytest reports it itself)
            patterns = ["test_*.py", "*_test.py"]
        folders = set()
        for test in tests:
            parts = Path(str(test).split("::")[0]).parts
            if parts and not os.path.isabs(parts[0]) and parts[0] not in ("..", ".") \
                    and os.path.isdir(os.path.join(self.root, parts[0])):
                folders.add(os.path.join(self.root, parts[0]))
        names, budget = set(), 3000
        for folder in sorted(folders):
            for here, dirs, files in os.walk(folder):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
                for name in sorted(files):
                    budget -= 1
                    if budget < 0:
                        break
                    path = os.path.join(here, name)
                    if (not name.endswith(".py") or name == "conftest.py" or os.path.realpath(path) in self.sources
                            or any(fnmatch.fnmatch(name, p) for p in patterns)):
                        continue
                    dotted = os.path.relpath(path, self.root)[:-3].replace(os.sep, ".")
                    names.update((dotted.removesuffix(".__init__"), name[:-3]) if name != "__init__.py"
                                 else (dotted.removesuffix(".__init__"),))
        if names:
            marked.update(names)
            cache = getattr(hook, "_marked_for_rewrite_cache", None)
            if type(cache) is dict:
                cache.clear()

    def install_unittest_judge(self, case) -> None:
        """Wrap ``unittest.TestCase``'s assertion methods (``case`` is ``unittest.case``) so every value they are given
        passes through :meth:`judge_at_assert` before the original compares it: a ``TestCase`` suite's
        ``assertEqual`` is judged as a rewritten ``assert ==`` is. The wrappers are in the watch (``_WATCHED``); the
        original's result, exceptions and messages are untouched, and the wrapper's frame is hidden from tracebacks."""
        namespace = {"__unittest": True, "__builtins__": __builtins__}
        exec(_compile(_UNITTEST_WRAPPER, "<beacon unittest judge>", "exec", dont_inherit=True), namespace)  # noqa: S102
        own = case.TestCase.__dict__
        for name in _UNITTEST_JUDGED:
            original = own.get(name)
            if type(original) is types.FunctionType:
                judged = namespace["wrap"](original, self.judge_at_assert, self.judge_method, _UNITTEST_LINKS.get(name))
                for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
                    setattr(judged, attribute, getattr(original, attribute))
                judged.__wrapped__ = original
                setattr(case.TestCase, name, judged)
        original = own.get("addTypeEqualityFunc")
        if type(original) is types.FunctionType:
            # (before the watches' snapshot, like the judged methods: it is in the watch)
            def addTypeEqualityFunc(self, typeobj, function, _original=original, _trust=self.trust_equality_entry):
                _original(self, typeobj, function)
                frame = _sys_getframe(1)
                _trust(self, typeobj, function, frame.f_code if frame is not None else None)

            for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
                setattr(addTypeEqualityFunc, attribute, getattr(original, attribute))
            addTypeEqualityFunc.__wrapped__ = original
            case.TestCase.addTypeEqualityFunc = addTypeEqualityFunc

    @staticmethod
    def _label(cls) -> str:
        module = _class_module(cls)
        return f"{module if type(module) is str else '?'}.{_class_name(cls)}"


# Bound when this module is imported, before any project file: the provenance check reads files through these.
_open, _stat, _realpath, _compile, _S_ISREG = open, os.stat, os.path.realpath, compile, stat.S_ISREG
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _first_lines(source: bytes, filename: str) -> dict:
    """``(name, first line)`` of every ``def``/``async def`` in ``source``, at any depth (the first line is the
    first decorator's when decorated: what ``co_firstlineno`` holds since Python 3.8) -> whether the def is at the
    top of the module or of a class body (``True``), where pytest collects tests by the def's own name."""
    tree = _compile(source, filename, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    out, todo = {}, [(tree, False)]
    while todo:
        node, outer = todo.pop()
        if type(node) in _DEFS:
            out[(node.name, node.decorator_list[0].lineno if node.decorator_list else node.lineno)] = outer
        elif type(node) is ast.Lambda:  # (a hook bound to a lambda in a conftest: round 31's honest case)
            out.setdefault(("<lambda>", node.lineno), False)
        body_holder = type(node) is ast.Module or type(node) is ast.ClassDef
        for field in type(node)._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                todo.extend((v, body_holder and field == "body") for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                todo.append((value, False))
    return out


def _nested_codes(code, out: dict) -> dict:
    """Every code object inside ``code`` (defs, lambdas, class bodies, at any depth) by ``(co_name, first line)``."""
    todo = [code]
    while todo:
        current = todo.pop()
        out.setdefault((current.co_name, current.co_firstlineno), []).append(current)
        todo.extend(c for c in current.co_consts if type(c) is types.CodeType)
    return out


# CPython 3.11's specializing interpreter rewrites a code object's instructions in place as it runs (an adaptive
# copy); ``co_code`` is that copy mapped back to the base instructions, cached on first read. Bound before any project
# file: the base instruction of each opcode and the cache entries after it.
try:
    _DEOPT = bytes(dis._deoptop(op) for op in range(256))
    _CACHE_ENTRIES = tuple(opcode._inline_cache_entries)
except (AttributeError, TypeError, ValueError):  # another CPython: the image check is off (_code_image: None)
    _DEOPT = _CACHE_ENTRIES = None


def _code_image(code):
    """What ``code`` runs, read now: its instructions from the live adaptive array (never ``co_code``'s cache, which
    keeps what was first read), mapped back to the base instructions with every inline cache zeroed, as ``co_code``
    is made; its constants tuple, their identities and their values (marshalled, nested code left out: it has its
    own image). None where the interpreter has no adaptive array."""
    if _DEOPT is None:
        return None
    try:
        raw = code._co_code_adaptive
    except AttributeError:
        return None
    out, i, size = bytearray(), 0, _len(raw)
    while i < size:
        op = _DEOPT[raw[i]]
        caches = _CACHE_ENTRIES[op] if op < _len(_CACHE_ENTRIES) else 0
        out += bytes((op, raw[i + 1])) + bytes(2 * caches)
        i += 2 + 2 * caches
    consts = code.co_consts
    try:
        values = _marshal_dumps(tuple(v for v in consts if _type(v) is not types.CodeType), 2)  # (2: no refs, so
        # the bytes do not depend on how many references each constant has)
        # (round 38: the names tuple swapped, ``add`` read as a builtin of the edit's; the rest of what the
        # interpreter reads from a code object besides its instructions and constants, by value)
        shape = _marshal_dumps((code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
                                code.co_exceptiontable, code.co_flags, code.co_argcount, code.co_posonlyargcount,
                                code.co_kwonlyargcount, code.co_stacksize, code.co_nlocals), 2)
    except ValueError:
        values = shape = None
    return bytes(out), consts, tuple(consts), values, code.co_names, shape


def _code_changed(code, image, seen=None) -> bool:
    """Whether ``code`` no longer runs what its ``image`` (:func:`_code_image`) showed: its instructions or constants
    written in place (red-team round 37: through ``ctypes``, a rewritten assert's ``raise`` made a ``POP_TOP`` and a
    compared constant swapped in the constants tuple, the code object, and so every identity check, unchanged).
    ``seen`` (a one-item list: the adaptive array last found to map back to the image): the quick check after a test
    call, by identity and that array, leaving the values marshalled to the full check in must_pass."""
    if seen is not None and _DEOPT is not None:
        try:
            raw = code._co_code_adaptive
        except AttributeError:
            return False
        consts = code.co_consts
        if consts is not image[1] or not _all(_map(_is, consts, image[2])) or code.co_names is not image[4]:
            return True
        if raw == seen[0]:
            return False
        if _code_image(code)[0] != image[0]:
            return True
        seen[0] = raw
        return False
    now = _code_image(code)
    return now is not None and (now[0] != image[0] or now[1] is not image[1] or not _all(_map(_is, now[2], image[2]))
                                or now[3] != image[3] or now[4] is not image[4] or now[5] != image[5])


# Set by the bootstrap (``canary.bootstrap_code``) to the list its audit hook calls on ``object.__setattr__`` events.
AUDIT_CHECKS = None
_CO_OPTIMIZED = 0x1  # a function's code (not a module's or a class body's)
_LRU_WRAPPER = type(functools.lru_cache()(lambda: None))
_GUARDED_ATTRS = frozenset({"__code__", "__defaults__", "__kwdefaults__"})


def _code_key(code) -> tuple:
    """What a code object does, compared without recursing into the code it nests (CPython's ``==`` on code objects
    compares nested code again at each level: exponential in the nesting depth, and a 70-deep def never returns): its
    bytecode, names, line table, flags and argument counts, and its constants, nested code by qualname and line."""
    return (code.co_code, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars, code.co_linetable,
            code.co_flags, code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_qualname,
            code.co_firstlineno, tuple(_const_key(c) for c in code.co_consts))


def _const_key(value) -> tuple:
    kind = _type(value)
    if kind is types.CodeType:
        return ("code", value.co_qualname, value.co_firstlineno)
    if kind is tuple or kind is frozenset:
        keys = tuple(_const_key(v) for v in value)
        return (kind.__name__, keys if kind is tuple else tuple(sorted(keys, key=repr)))
    return (kind.__name__, repr(value))


class _SourceCode:
    """What the declared sources' defs run (red-team rounds 23 and 24).

    Every forged pass of those rounds ended the same way: code the screen never saw (a string evaluated by
    ``inspect.signature(f, eval_str=True)``, a pickle a project helper loads, an annotation ``singledispatch``
    evaluates) ran ``clamp.__code__ = (lambda value, low, high: …).__code__`` while the modules loaded. The edited
    ``def clamp`` stayed what the screen judged and the test imported the same function object, so no check saw a
    change. Two checks of the declared sources:

    - An audit hook (installed with the plugin, before any project file loads; hooks cannot be removed) refuses an
      assignment of ``__code__``, ``__defaults__`` or ``__kwdefaults__`` to a function whose code comes from a
      declared source, and records it: the assignment raises ``PermissionError`` and the run is ``tampered``. A
      code that differs only in its flags (``types.coroutine`` on a generator) is let through.
    - After collection, after each test call and in must_pass's final check, the object each ``def`` of a declared
      source binds (its qualname in the module, through classes' own dictionaries; a ``staticmethod``'s,
      ``classmethod``'s or ``property``'s function; then ``__wrapped__`` up to eight levels) must run code compiled
      from that file (``==`` to the code of a def of the file at its own qualname and first line, compiled when the
      plugin started, before any project file loaded) somewhere in its wrapper chain. A function there whose code
      was made at run time (``<string>``) or elsewhere under the def's own qualname is a finding: a name rebound to
      ``FunctionType(code, globals, "clamp")`` made by such code. A def the module no longer binds (deleted,
      conditional) and objects that are not functions (an ``lru_cache`` wrapper aside, read through
      ``__wrapped__``) are not judged.
    """

    DEPTH = 8

    def __init__(self, sources: dict, oracle=None, root: str = ""):
        self.sources = sources  # realpath -> as shown
        self.root = _realpath(root) + os.sep if root else os.sep  # the checkout (its files may call settrace)
        # The oracle's pristine code (claims the declared file's name): the functions it builds from it get their
        # defaults set by the plugin itself (``_Oracle._pristine``), never by the code under test.
        self.pristine: dict = {}
        todo = [spec[0] for entry in (oracle.files.values() if oracle is not None else ()) for spec in entry[0].values()]
        while todo:
            code = todo.pop()
            if _type(code) is types.CodeType and _id(code) not in self.pristine:
                self.pristine[_id(code)] = code
                todo.extend(code.co_consts)
        self.compiled: dict = {}  # realpath -> {(co_qualname, co_firstlineno): code} of its functions
        # realpath -> {qualname: (its defs' first lines, whether one is decorated)} for the defs at the top of the
        # module or of a class body; and the module-level names an import binds (a def that is only a fallback:
        # ``try: from _speedups import f`` / ``except ImportError: def f``)
        self.defs: dict = {}
        self.imported: dict = {}
        for real in sources:
            try:
                with _open(real, "rb") as fh:
                    source = fh.read()
                top = _compile(source, real, "exec", dont_inherit=True)
                tree = _compile(source, real, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
            except Exception:  # (a source that does not compile: its defs are not judged; the tests fail anyway)
                continue
            self.defs[real], self.imported[real] = _top_defs(tree)
            table, todo = {}, [top]
            while todo:
                code = todo.pop()
                if code.co_flags & _CO_OPTIMIZED:
                    table[(code.co_qualname, code.co_firstlineno)] = _code_key(code)
                todo.extend(c for c in code.co_consts if _type(c) is types.CodeType)
            self.compiled[real] = table
        self.refused: list[str] = []  # assignments the audit hook refused
        # (realpath, co_filename) -> the file's code compiled plainly and as pytest's assertion rewriting does (a
        # module registered with ``register_assert_rewrite``): _Provenance._pristine, set by the plugin
        self.rewritten = None
        self._modules: dict = {}  # realpath -> the module object first found for it in sys.modules
        self._reals: dict = {}  # co_filename -> its real path
        self._matched: dict = {}  # id(code) -> a code found equal to its def's (compared once per run)
        # The plugin's own code objects (its oracle installs a trace function) and the bootstrap's audit dispatcher
        # (learnt below, by identity: a function of the edit could take its name)
        self._own_codes: dict = {}
        for value in list(dict.values(globals())):
            for function in ([value] if _type(value) is types.FunctionType else
                             [v for v in _proxy_values(_class_dict(value)) if _type(v) is types.FunctionType]
                             if _type(value) is type and _class_module(value) == __name__ else []):
                for codes in _nested_codes(_func_code(function), {}).values():
                    self._own_codes.update((_id(c), c) for c in codes)
        self._dispatcher = _ABSENT  # (learning)
        self._callers: dict = {}  # (realpath, co_filename) -> the file's code objects (_compiled_from)
        # Callers _tracer cleared, by identity, so the next call from them costs no stat and no compilation. Python
        # 3.11 refuses a thread's sys.settrace while another thread's is inside the audit hooks ("Cannot install a
        # trace function while another trace function is being installed"), and the thread dies before its target
        # runs. Under the oracle's threading.settrace each new thread calls sys.settrace from threading's bootstrap,
        # and a check there that lets go of the interpreter lock (a stat, reading and compiling threading.py) killed
        # the helper threads multiprocessing.pool starts in a row: an honest test hung until the timeout (red-team
        # round 39). Cleared at once: that bootstrap, as threading was loaded before any project file.
        self._cleared: dict = {}
        inner = _class_dict(threading.Thread)["_bootstrap_inner"]
        self._bootstrap = _func_code(inner)
        self._cleared[_id(self._bootstrap)] = self._bootstrap
        self._real(self._bootstrap.co_filename)
        # What that bootstrap installs: threading's own module globals (the function's, whatever sys.modules holds)
        self._threading = _func_globals(inner)
        self.oracle_trace = None  # the oracle of calls' trace function, once installed: threading's hook must stay it
        self.guarded = None  # the plugin's recording function: its code and defaults may not be assigned
        # (also with no declared source: the trace-function check applies to every run)
        # Through the bootstrap's own hook (one Python call per audit event: a second hook made the oracle of
        # calls' runs about a quarter slower, its function-code reads being audit events), else a hook of its own.
        if _type(AUDIT_CHECKS) is list:
            AUDIT_CHECKS.append(self._hook)
        else:
            sys.addaudithook(self._hook)
        _settrace(_gettrace())  # one sys.settrace event now, before any project file: _tracer learns the dispatcher
        if self._dispatcher is _ABSENT:
            self._dispatcher = None

    def _real(self, filename) -> str | None:
        if _type(filename) is not str:
            return None
        real = self._reals.get(filename)
        if real is None:
            real = self._reals[filename] = _realpath(filename) if filename[:1] != "<" else filename
        return real

    def _tracer(self, event) -> None:
        """``sys.settrace``/``sys.setprofile`` called by code of a declared source, or by code that names no real
        file (made by ``exec``/``compile``): refused (``PermissionError``) and recorded. A trace function sees the
        test function's frame and, in Python 3.11, writes its locals back when it returns: red-team round 30 flipped
        the assertion's ``@py_assert`` results to ``True`` that way, so a failing assert passed. Calls from tests,
        libraries and the project's other files are let through (Hypothesis, coverage, the plugin's own oracle)."""
        frame = _sys_getframe(2)  # (0: this, 1: _hook, 2: the bootstrap's dispatcher, or the caller without one)
        if self._dispatcher is _ABSENT:  # the plugin's own call from __init__
            self._dispatcher = frame.f_code if frame.f_code.co_name == "_beacon_memory_guard" else None
            return
        if frame.f_code is self._dispatcher:
            frame = frame.f_back
        if frame is None or self._own_codes.get(_id(frame.f_code)) is frame.f_code:
            return
        # Any declared source's frame up the stack is the caller too (round 31: weakref.finalize(obj, sys.settrace,
        # f)() and a bdb.Bdb subclass's set_trace, called from the edit, put a library frame in between).
        up = frame.f_back
        while up is not None:
            if self._real(up.f_code.co_filename) in self.sources:
                frame = up
                break
            up = up.f_back
        code = frame.f_code
        if self._cleared.get(_id(code)) is code:
            if code is self._bootstrap:
                self._thread_hook(event)
            return
        why = self._code_why(code)
        if why is None:
            self._cleared[_id(code)] = code  # (held: its id is never reused)
            return
        self._refuse(f"source: {event} was called by {why} (a trace function sees and rewrites the tests' frames)")

    def _refuse(self, finding: str) -> None:
        if finding not in self.refused:
            self.refused.append(finding)
        raise PermissionError("beacon: " + finding)

    def _thread_hook(self, event) -> None:
        """A new thread installs threading's trace or profile hook (``threading.settrace``, which raises no audit
        event of its own): the function it runs is judged as a caller of ``sys.settrace`` is. Red-team session 37:
        the edit's ``threading.settrace(f)`` gave every later thread a trace function that rewrote the tests' frames
        there (an assert run in a pool's worker passed on a wrong repair), and the oracle's own hook was gone from
        those threads, so their calls were neither checked nor recorded. Recorded, not refused: a refusal here kills
        the new thread before its target runs, and the test waiting on it (a pool's result) would hang until the
        timeout, with no evidence; recorded, the run ends and its verdict carries the finding."""
        kind = "trace" if event == "sys.settrace" else "profile"
        hook = dict.get(self._threading, f"_{kind}_hook")
        if hook is None:
            return
        if kind == "trace" and self.oracle_trace is not None:
            # the oracle of calls' own hook, or a finding: a thread started with another runs unchecked and
            # unrecorded (red-team round 40: a library def bound to the edit's object; the price, as for a test's
            # own sys.settrace under the oracle, is that a test's own threading.settrace reads tampered)
            if _type(hook) is types.MethodType and hook.__self__ is self.oracle_trace.__self__ \
                    and hook.__func__ is self.oracle_trace.__func__:
                return
            why = "no longer the oracle of calls' own (the threads started with it run unchecked)"
        else:
            why = _trace_why(hook, self._function_why)
            if why is None:
                return
        finding = (f"source: threading's {kind} hook, installed by each new thread, runs {why} (a trace function sees "
                   "and rewrites the tests' frames)")
        if finding not in self.refused:
            self.refused.append(finding)

    def _function_why(self, function) -> str | None:
        """:meth:`_code_why` of a Python function's code (the plugin's own code and cleared code pass at once)."""
        code = _func_code(function)
        if self._own_codes.get(_id(code)) is code or self._cleared.get(_id(code)) is code:
            return None
        why = self._code_why(code)
        if why is None:
            self._cleared[_id(code)] = code
            return None
        return f"{code.co_qualname}: {why}"

    def _code_why(self, code) -> str | None:
        """Why code that calls ``sys.settrace`` (or a trace function a thread installs) is not allowed to: a
        declared source's, code that is no file's, or not compiled from the file it names, outside the checkout and
        the installed libraries. None when it is allowed."""
        filename = code.co_filename
        real = self._real(filename)
        why = None
        if real is None or real[:1] == "<":
            why = f"code that is no file's ({filename!r})" if _type(filename) is str else "code with no file name"
        elif real in self.sources:
            why = f"{self.sources[real]}, a declared source"
        else:
            try:
                if not _S_ISREG(_stat(real).st_mode):
                    why = f"{filename}, not a regular file"
            except OSError:
                why = f"{filename}, not a file"
        if why is None and not (real.startswith(self.root) or _in_libraries(real)):
            why = f"{filename}, outside the checkout and the installed libraries"
        if why is None and not self._compiled_from(code, real, filename):
            why = f"code that claims {filename} but is not compiled from it"  # (compile(src, "/usr/lib/…/os.py"))
        return why

    def _compiled_from(self, code, real: str, filename: str) -> bool:
        """Whether ``code`` equals a code object the file at ``real`` compiles to (plainly, or as pytest's assertion
        rewriting compiles a test module), names and constants of Python's own kinds only; each file compiled once."""
        if not _plain_code(code):
            return False
        key = (real, filename)
        table = self._callers.get(key)
        if table is None:
            table = self._callers[key] = self.rewritten(real, filename) if self.rewritten is not None else {}
        return _any(code == other for other in table.get((code.co_name, code.co_firstlineno), ()))

    def _hook(self, event, args) -> None:
        if event == "sys.settrace" or event == "sys.setprofile":
            self._tracer(event)
            return
        if event == "sys.addaudithook":
            # Red-team round 37: a hook of the edit ran inside every check that calls id() (an audited builtin),
            # compile or open, and changed what they read and returned (a judged value, a SyntaxError where a
            # test file was parsed). Dropped (a RuntimeError from a hook silently refuses the new one) and recorded.
            finding = "source: an audit hook was added during the run (refused: it would run inside the checks)"
            if finding not in self.refused:
                self.refused.append(finding)
            raise RuntimeError("beacon: " + finding)
        if event != "object.__setattr__" or _len(args) < 3 or args[1] not in _GUARDED_ATTRS \
                or _type(args[0]) is not types.FunctionType:
            return
        if args[0] is self.guarded:  # the plugin's recording function (_record_test_calls)
            finding = f"source: the plugin's recording of test calls had its {args[1]} assigned at run time"
            if finding not in self.refused:
                self.refused.append(finding)
            raise PermissionError("beacon: " + finding)
        code = _func_code(args[0])
        real = self._real(code.co_filename)
        if real not in self.sources or self.pristine.get(_id(code)) is code:
            return
        if args[1] == "__code__" and _type(args[2]) is types.CodeType and \
                _code_key(args[2].replace(co_flags=code.co_flags)) == _code_key(code):
            return  # (types.coroutine sets a flag)
        finding = (f"source: {code.co_qualname} of {self.sources[real]} had its {args[1]} assigned at run time; "
                   "a declared source's function must run the code of its def")
        if finding not in self.refused:
            self.refused.append(finding)
        raise PermissionError("beacon: " + finding)

    def _module(self, real: str):
        module = self._modules.get(real)
        if module is None:
            for candidate in list(dict.values(_sys_modules)):
                space = _namespace(candidate)
                filename = dict.get(space, "__file__") if space is not None else None
                if _type(filename) is str and self._real(filename) == real:
                    module = self._modules[real] = candidate
                    break
        return module

    def findings(self) -> list[str]:
        out = list(self.refused)
        for real, table in self.compiled.items():
            module = self._module(real)
            space = _namespace(module) if module is not None else None
            if space is None:
                continue
            why = _module_class_why(module)  # (red-team round 35: a property of the module's class won over the def)
            if why is not None and f"source: the module of {self.sources[real]}: {why}" not in out:
                out.append(f"source: the module of {self.sources[real]}: {why}")
            for qualname, (lines, decorated) in self.defs.get(real, {}).items():
                owner, *rest = qualname.rsplit(".", 1) if "." in qualname else (None, qualname)
                holder = space if owner is None else _found_at(space, owner)
                if holder is None:
                    continue
                held = (dict.get(holder, rest[0], _ABSENT) if owner is None
                        else types.MappingProxyType.get(_class_dict(holder), rest[0], _ABSENT))
                if rest[0] == "__new__" and owner is not None and held is _ENUM_NEW \
                        and _Enum in _class_mro(holder):
                    # an Enum's own ``__new__`` is kept as ``_new_member_`` and its name holds ``Enum.__new__``
                    # (honest hunt 9: httpx's ``codes``, an ``IntEnum`` with a ``__new__``, refused untouched)
                    held = types.MappingProxyType.get(_class_dict(holder), "_new_member_", _ABSENT)
                if held is _ABSENT or (owner is None and qualname in self.imported[real]) or (
                        _id(holder), rest[0]) in _PATCHED_ANY:
                    continue  # (deleted, an import's: judged by the import; or set by a test's monkeypatch/mock.patch)
                functions = self._functions(held)
                if not functions and not decorated:
                    # an undecorated def's name holding a partial, a callable object, a class, a builtin (red-team
                    # round 25's R25-2c: ``clamp = functools.partial(_other)``)
                    why = (f"source: {qualname} of {self.sources[real]} holds a {_class_name(_type(held))} object, not "
                           "the function of its def")
                    if why not in out:
                        out.append(why)
                for function in functions:
                    why = self._why(function, qualname, real, table, lines, decorated)
                    if why is not None and why not in out:
                        out.append(why)
        return out

    @staticmethod
    def _functions(held) -> list:
        kind = _type(held)
        if kind is staticmethod or kind is classmethod:
            return [held.__func__]
        if kind is property:
            return [f for f in (held.fget, held.fset, held.fdel) if f is not None]
        if kind is types.FunctionType or kind is _LRU_WRAPPER:
            return [held]  # (an lru_cache wrapper: judged through what it wraps)
        return []

    def _why(self, function, qualname: str, real: str, table: dict, lines: frozenset, decorated: bool) -> str | None:
        """Why what ``qualname``'s name holds is not its def's function. Undecorated, it must be a plain function
        running that def's own code (red-team round 25's R25-2a: ``clamp = _other``, another def of the same file);
        decorated, the wrapper chain (``__wrapped__``) must end at it, through no level made at run time (R25-2b: an
        ``exec``-made wrapper naming the genuine def in ``__wrapped__``)."""
        shown = self.sources[real]
        chain, current = [], function
        for _ in range(self.DEPTH):
            if _type(current) is not types.FunctionType and _type(current) is not _LRU_WRAPPER:
                break
            chain.append(current)
            own = current.__dict__  # (a function's or the C wrapper's own dict: no project code runs)
            wrapped = dict.get(own, "__wrapped__", _ABSENT) if _type(own) is dict else _ABSENT
            if wrapped is _ABSENT or not decorated:
                break
            current = wrapped
        functions = [f for f in chain if _type(f) is types.FunctionType]
        if not functions:
            return None if decorated else (f"source: {qualname} of {shown} holds a {_class_name(_type(function))} "
                                           "object, not the function of its def")
        for level in functions:
            code = _func_code(level)
            place = self._real(code.co_filename)
            if place is None or place[:1] == "<":
                return (f"source: {qualname} of {shown} holds a function whose code was made at run time "
                        f"({code.co_filename}), not the code of its def")
            if place == real and self._matched.get(_id(code)) is not code:
                key = _code_key(code)
                if table.get((code.co_qualname, code.co_firstlineno)) != key and not (
                        self.rewritten is not None and _any(key == _code_key(other) for other in self.rewritten(
                            real, code.co_filename).get((code.co_name, code.co_firstlineno), ()))):
                    return (f"source: {qualname} of {shown} runs code that is not the code of its file's def "
                            f"{code.co_qualname} (line {code.co_firstlineno}): replaced or rewritten")
                self._matched[_id(code)] = code  # (held: its id is not reused; a code object cannot change)
        innermost = _func_code(functions[-1])
        if decorated and len(chain) == 1:
            return None  # (a decorator's wrapper that names nothing it wraps: its code is checked above)
        if self._real(innermost.co_filename) != real or innermost.co_qualname != qualname \
                or innermost.co_firstlineno not in lines:
            return (f"source: {qualname} of {shown} holds {innermost.co_qualname} (line {innermost.co_firstlineno}"
                    f" of {innermost.co_filename}), not the function of its def")
        return None


def _top_defs(tree) -> tuple[dict, frozenset]:
    """``{qualname: (first lines, decorated)}`` of the defs at the top of a module or of a (nested) class body, and
    the module-level names an import binds."""
    defs: dict = {}
    imported = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
                if _type(node) in (ast.Import, ast.ImportFrom) for alias in node.names}
    todo = [(tree.body, "")]
    while todo:
        body, prefix = todo.pop()
        for node in body:
            if _type(node) in _DEFS:
                first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                lines, decorated = defs.get(prefix + node.name, (frozenset(), False))
                defs[prefix + node.name] = (lines | {first}, decorated or bool(node.decorator_list))
            elif _type(node) is ast.ClassDef:
                todo.append((node.body, f"{prefix}{node.name}."))
            elif _type(node) in (ast.If, ast.Try, ast.With):  # (defs under a version or import test)
                todo.extend((part, prefix) for part in (getattr(node, "body", []), getattr(node, "orelse", []),
                                                        getattr(node, "finalbody", []),
                                                        *[h.body for h in getattr(node, "handlers", [])]) if part)
    return defs, frozenset(imported)


class _Provenance:
    """A list-free check of where each collected test function comes from (red-team round 6, q7).

    Collection runs after project code has loaded, so whatever collection produced can be rewired by the edit
    (``PyCollector.collect``, ``pytest_pycollect_makeitem``, a module ``__getattr__``, a module replaced in
    ``sys.modules`` or by an import hook, a test function's ``__code__`` swapped at import). This judges the
    result instead: for every ``Function`` item (:meth:`_Watch.needs_pyfunc_call`; the two canaries exempt by
    identity), the function collection left on it (a bound method's ``__func__``, then ``__wrapped__`` read from
    each function's own ``__dict__``, at most ``DEPTH`` levels, so ``functools.wraps`` wrappers and
    ``unittest.mock.patch`` are seen through). The innermost one must be a plain Python function whose
    ``co_filename`` resolves to a regular file inside the checkout that is not a declared source, and that file
    (parsed once, with ``ast``: a pristine, integrity-checked test or helper file) must have a ``def``/``async
    def`` named ``co_name`` whose first line is ``co_firstlineno``. A def at the top of a module or class body
    must carry the test's own name (the node id's last part, without parameters): pytest collects such defs by
    their names, so one under another name stands in for a different test. A nested def (a test made by a
    factory) may carry any name. A wrapper level must be a plain function too: inside the checkout it
    is held to the same rule; outside it (``mock.py``, a library's decorator) it must be in a file, not a
    declared source, and hold the function it wraps in its closure (as ``functools.wraps`` wrappers do).

    The metadata alone can be forged (red-team round 7's r12: a passing test's code given the failing test's name
    and first line with ``code.replace``), so a function inside the checkout must also *be* its def's code: equal
    (``==``: bytecode, constants, names, line table; not the file name) to the code object of that def compiled
    from the file on disk, plainly or as pytest's assertion rewriting compiles a test module (with
    ``rewrite_asserts`` as it was when the plugin started, before any project file). Hypothesis's ``@given``
    wrapper is a function made with ``exec`` that claims the test's file, name and first line: it is accepted by
    that shape (it names its test in ``.hypothesis.inner_test`` and claims exactly that test's place; the test is
    not in its closure, Hypothesis keeps it elsewhere), and the test it names is judged in turn. Faking that shape
    needs a code object with a forged place, which takes ``exec`` or ``__code__``: the screen's business.
    """

    DEPTH = 8

    def __init__(self, root: str, sources: dict):
        self.root = _realpath(root)
        self.sources = sources  # realpath -> as shown (see _Comparisons)
        self.exempt: set = set()  # ids of the canary items (alive for the whole run)
        self._where: dict = {}  # co_filename -> (realpath, "inside" | "outside" | why it is neither)
        self._defs: dict = {}  # realpath -> {(name, first line): top-level def}, or None when it cannot be parsed
        self._ok: dict = {}  # id(code) -> (code judged fine (held: no id reuse), its def is top-level, file shown)
        self._compiled: dict = {}  # (realpath, co_filename) -> {(name, first line): [code, ...]} from the file
        # file name -> the same, from the plugin's own rewriting of each module pytest rewrote (rewritten_elsewhere)
        self.rewritten: dict = {}
        # the files rewritten before any project code ran, when pytest's rewriting is on (_Comparisons.precompute),
        # and for each, {id: code} of the code objects pytest was handed for it: a test function from such a file
        # must run one of those very objects
        self.precomputed: frozenset = frozenset()
        self.served: dict = {}
        self.images: dict = {}  # _Comparisons.images (each code object compiled ahead)
        self._item_real = None  # the file of the item being judged (findings)
        rewrite = _sys_modules.get("_pytest.assertion.rewrite")  # imported with pytest, before any project file
        self._rewrite_asserts = getattr(rewrite, "rewrite_asserts", None)
        self.config = None  # set at pytest_configure: the rewriting depends on it

    def _place(self, filename) -> tuple:
        if type(filename) is not str:
            return None, "a co_filename that is not a str"
        place = self._where.get(filename)
        if place is None:
            real = _realpath(filename) if filename[:1] != "<" else filename
            if real in self.sources:
                place = real, f"from {self.sources[real]}, a declared source"
            elif filename[:1] == "<":
                place = real, f"from {filename}, not a file"
            else:
                try:
                    regular = _S_ISREG(_stat(real).st_mode)
                except OSError:
                    regular = False
                if not regular:
                    place = real, f"from {filename}, not a regular file"
                elif real.startswith(self.root + os.sep):
                    place = real, "inside"
                elif _in_libraries(real):
                    place = real, "outside"
                else:  # (a file the run could have written: /tmp, a folder of its own)
                    place = real, f"from {filename}, outside the checkout and the installed libraries"
            self._where[filename] = place
        return place

    def _defined(self, real: str) -> dict | None:
        if real not in self._defs:
            try:
                with _open(real, "rb") as fh:
                    self._defs[real] = _first_lines(fh.read(), real)
            except (OSError, SyntaxError, ValueError):
                self._defs[real] = None
        return self._defs[real]

    def _judge_code(self, code, inner: bool, name: str | None) -> str | None:
        """Why a function with ``code`` at this level is a finding, or None. ``name`` is the test's own name (from
        its node id, without parameters) when ``code`` is the innermost function's."""
        here = self._item_real
        if (inner and here is not None and here in self.precomputed and _type(code.co_filename) is str
                and _realpath_cached(code.co_filename) == here
                and dict.get(self.served.get(here, {}), _id(code)) is not code):
            # (red-team round 35: a forged .pyc read through sys.pycache_prefix, a module put in sys.modules before
            # pytest imported the file: the test function's code equalled the def's, but not through us. Only for the
            # item's own file: a test function re-exported from a module loaded another way is judged as before)
            return (f"{code.co_name} from {os.path.relpath(here, self.root)}, but not the code the plugin rewrote "
                    "before any project code ran (the test module did not come from pytest's rewriting of its file)")
        known = self._ok.get(id(code))
        if known is None or known[0] is not code:
            if not _plain_code(code):  # (round 30: names of a str subclass were hashed and compared below)
                return "a function whose code holds names or constants of other classes than Python's own"
            real, where = self._place(code.co_filename)
            if where == "outside":
                if inner:
                    return f"{code.co_name} from {code.co_filename}, outside the checkout"
                return None  # a wrapper from a library: its closure is checked by the caller
            if where != "inside":
                return f"{code.co_name} {where}"
            defined = self._defined(real)
            shown = os.path.relpath(real, self.root)
            if defined is None:
                return f"{code.co_name} from {shown}, which does not parse"
            top = defined.get((code.co_name, code.co_firstlineno))
            if top is None:
                return f"{code.co_name} (line {code.co_firstlineno}) from {shown}, where no def of that name starts there"
            if not any(code == pristine for pristine in self._pristine(real, code.co_filename).get(
                    (code.co_name, code.co_firstlineno), ())):
                return (f"{code.co_name} (line {code.co_firstlineno}) from {shown}, but its code is not that def's "
                        "(replaced or rewritten)")
            known = self._ok[id(code)] = (code, top, shown)
        # A def at the top of a module or class body is collected under its own name: bound to another test's name
        # it stands in for that test (red-team round 6's q7: a failing test rebound to a passing one of the same
        # file). A factory's nested def may carry any name.
        if inner and name is not None and known[1] and code.co_name != name:
            return f"{code.co_name} (a top-level def of {known[2]}) collected under the name {name}"
        return None

    def _pristine(self, real: str, filename: str) -> dict:
        """The code objects of the file at ``real``, compiled plainly and as pytest rewrites a test module (both
        under ``filename``, the name pytest compiled it under: the rewriting embeds it)."""
        key = (real, filename)
        if key not in self._compiled:
            out: dict = {}
            try:
                with _open(real, "rb") as fh:
                    source = fh.read()
                # The plugin's own rewriting, as pytest imported the file, when it was of these very bytes: a name
                # resolves where it points now (red-team round 33: the stripped copy of a test file rewritten under a
                # symlink's name, or a relative name from another working directory, then the name pointed back at
                # the checkout's file and the stripped rewriting stood for it).
                done = dict.get(self.rewritten, filename)
                if done is not None and _type(done[0]) is bytes and done[0] == source:
                    self._compiled[key] = done[1]
                    return done[1]
                _nested_codes(_compile(source, filename, "exec", dont_inherit=True), out)
                if self._rewrite_asserts is not None:
                    tree = _compile(source, filename, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
                    self._rewrite_asserts(tree, source, filename, self.config)
                    _nested_codes(_compile(tree, filename, "exec", dont_inherit=True), out)
            except Exception:  # a file that no longer compiles: nothing matches, so its functions are findings
                pass
            self._compiled[key] = out
        return self._compiled[key]

    def _hypothesis_inner(self, function):
        """The test inside Hypothesis's ``@given`` wrapper ``function``, or None if it does not have that shape."""
        handle = dict.get(function.__dict__, "hypothesis", None)
        inner = getattr(handle, "inner_test", None)
        if type(inner) is not types.FunctionType or _sys_modules.get("hypothesis.core") is None:
            return None
        code, test = function.__code__, inner.__code__
        if (code.co_filename, code.co_firstlineno, code.co_name) != (test.co_filename, test.co_firstlineno,
                                                                     test.co_name):
            return None  # not impersonating the test it names, as Hypothesis's wrapper does
        return inner

    def judge(self, function, name: str | None = None) -> str | None:
        """Why ``function`` (what collection left on a ``Function`` item named ``name``) is not a pristine test
        function."""
        if type(function) is types.MethodType:
            function = function.__func__
        for _ in range(self.DEPTH):
            if type(function) is not types.FunctionType:
                return f"a {_class_name(type(function))} object, not a Python function"
            wrapped = dict.get(function.__dict__, "__wrapped__", _ABSENT)
            code = function.__code__
            if type(code) is not types.CodeType:
                return "a function whose code is not a code object"
            if wrapped is _ABSENT and dict.get(function.__dict__, "hypothesis", None) is not None:
                inner = self._hypothesis_inner(function)
                if inner is not None:
                    function = inner  # a genuine @given wrapper: judge the test it runs
                    continue
            why = self._judge_code(code, wrapped is _ABSENT, name)
            if why is not None:
                return why
            if wrapped is _ABSENT:
                return None
            if self._place(code.co_filename)[1] == "outside" and not self._holds(function, wrapped):
                return f"{code.co_name} from {code.co_filename}, a wrapper whose closure does not hold what it wraps"
            function = wrapped
        return f"wrapped more than {self.DEPTH} levels deep"

    def hook_function(self, function) -> str | None:
        """Why a hook implementation's function is not a def of the file it names, as that file compiles (None when
        it is): any file but a declared source, inside the checkout (a conftest, a helper module it imports) or
        outside it (an installed plugin). Red-team rounds 29 and 30: a module the edit made claiming to be a
        conftest, a plugin registered by the edit's import-time code while a conftest imported it, a function whose
        code names itself with a ``str`` subclass (compared inside the check)."""
        if _type(function) is not types.FunctionType:
            return f"a {_class_name(_type(function))}, not a Python function"
        code = _func_code(function)
        if not _plain_code(code):
            return "a function whose code holds names or constants of other classes than Python's own"
        real, where = self._place(code.co_filename)
        if where not in ("inside", "outside"):
            return f"{code.co_name} {where}"
        defined = self._defined(real)
        if defined is None or (code.co_name, code.co_firstlineno) not in defined:
            return f"{code.co_name} (line {code.co_firstlineno}) from {code.co_filename}, where no def of that name starts"
        if not any(code == pristine for pristine in self._pristine(real, code.co_filename).get(
                (code.co_name, code.co_firstlineno), ())):
            return f"{code.co_name} (line {code.co_firstlineno}) from {code.co_filename}, but its code is not that def's"
        return None

    def _helpers_why(self, function) -> str | None:
        """Why the names pytest's rewriting binds in a test module the plugin rewrote (``@pytest_ar``, the rewriting
        module, which the rewritten asserts call; ``@py_builtins``) are not what they were bound to (red-team round
        35: ``@pytest_ar`` rebound, while the module ran, to a copy whose ``_beacon_link`` said yes). None if fine."""
        if _type(function) is not types.FunctionType:
            return None
        code = _func_code(function)
        if _type(code.co_filename) is not str or _realpath_cached(code.co_filename) not in self.precomputed:
            return None
        space = _func_globals(function)
        if _type(space) is not dict or not _str_keys(space):
            return "in a module whose namespace cannot be read without running other code"
        for name, module in (("@pytest_ar", _sys_modules.get("_pytest.assertion.rewrite")),
                             ("@py_builtins", _sys_modules.get("builtins"))):
            held = dict.get(space, name, _ABSENT)
            if held is not _ABSENT and held is not module:
                return f"in a module whose {name} is not the module pytest's rewriting bound there"
        return None

    def _globals_why(self, function, module, path) -> str | None:
        """Why a function of the test module's own file, on the collected function's ``__wrapped__`` chain, runs over
        other globals than that module's namespace (red-team round 36: the served code object made into a function
        over a dict in which ``add`` was operator.add). None when each does."""
        space = _namespace(module)
        if space is None or _type(module) is not types.ModuleType:
            return None  # (judged by the watch: a test module of another class is a finding there)
        try:
            real = _realpath_cached(os.fspath(path))  # (the file pytest collected, not the module's __file__)
        except TypeError:
            return None
        for _ in range(self.DEPTH):
            if _type(function) is types.MethodType:
                function = function.__func__
            if _type(function) is not types.FunctionType:
                return None
            code = _func_code(function)
            # (the code pytest was handed for the file: Hypothesis's wrapper claims the file with code of its own)
            if (real is not None and dict.get(self.served.get(real, {}), _id(code)) is code
                    and _func_globals(function) is not space):
                return f"{code.co_name} from {code.co_filename}, run over other globals than its test module's"
            function = dict.get(_func_dict(function), "__wrapped__", _ABSENT)
        return None

    @staticmethod
    def _holds(function, wrapped) -> bool:
        for cell in function.__closure__ or ():
            try:
                if cell.cell_contents is wrapped:
                    return True
            except ValueError:  # an empty cell
                continue
        return False

    def _image_why(self, code) -> str | None:
        """Why the item's test function's code (served by the plugin) no longer runs what it ran when served."""
        known = self.images.get(_id(code)) if code is not None else None
        if known is not None and known[0] is code and _code_changed(code, known[1], known[2]):
            return f"{code.co_name}, whose instructions or constants were written in place since it was compiled"
        return None

    def code_changes(self) -> list[str]:
        """Every code object the plugin rewrote ahead for a test folder's module (test functions, fixtures,
        helpers), checked against its image once, in must_pass."""
        return [f"{code.co_qualname} of {code.co_filename}: its instructions or constants were written in place "
                "since the plugin compiled it" for code, image, _seen in list(self.images.values())
                if _code_changed(code, image)]

    def findings(self, items, watch) -> list[str]:
        out = []
        for item in items:
            state = watch.items.get(id(item))
            if state is None or id(item) in self.exempt or not watch.needs_pyfunc_call(item):
                continue
            try:
                # The item's name without parameters (which may hold "::" or "["); the report carries the node
                # id, so that must end with the name, as pytest builds it.
                full = item.name
                if type(full) is not str or not str.endswith(item.nodeid, "::" + full):
                    why = "under a node id that does not end with its name"
                else:
                    try:
                        self._item_real = _realpath_cached(os.fspath(getattr(item, "path", None)))
                    except TypeError:
                        self._item_real = None
                    why = (self.judge(state["attrs"]["_obj"], full.partition("[")[0])
                           or self._image_why(state["code"])
                           or self._helpers_why(state["attrs"]["_obj"])
                           or self._globals_why(state["attrs"]["_obj"], getattr(item, "module", None),
                                                getattr(item, "path", None)))
            except Exception as exc:  # a hostile object: a finding, never a crash of the check
                why = f"not judged: {_class_name(type(exc))}"
            if why is not None:
                out.append(f"{item.nodeid}: the collected test function is {why}")
        return out


def _report_state(report) -> dict:
    """A report's own attributes, read through ``BaseReport``'s real instance ``__dict__`` descriptor (bound when
    the plugin was created): no class-level property, ``__getattr__`` or ``__dict__`` override is consulted."""
    try:
        own = _REPORT_DICT[0](report)
    except TypeError:  # not one of pytest's reports
        return {}
    return dict.copy(own) if isinstance(own, dict) else {}


def _outcome(report):
    """``report``'s own ``outcome`` when it is an exact ``str`` (else None: treated as a failure)."""
    outcome = _report_state(report).get("outcome")
    return outcome if _type(outcome) is str else None


def _node_id(own: dict) -> str:
    """For the ledger's message: a report's node id (pytest 9.2 keeps it as ``_id``, a ``NodeId``)."""
    value = own.get("nodeid", own.get("_id"))
    try:
        return value if _type(value) is str else str.__str__(str(value))
    except Exception:
        return "?"


_REPORT_DICT: list = []  # BaseReport's instance __dict__ getter, bound by CanaryPlugin before any project file


class CanaryPlugin:
    """Adds the two canary items after collection, watches pytest's internals, keeps exit codes meaningful."""

    def __init__(self, secret: dict):
        self._secret = secret
        self._failed_elsewhere = False
        self._comparisons = _Comparisons(secret.get("sources", ()), os.getcwd(),  # before any project file loads
                                         secret.get("edited", ()), secret.get("pristine", ()),
                                         secret.get("oracle", ()))
        self._comparisons.install_judge(_sys_modules["_pytest.assertion.rewrite"])  # before the watches' snapshots
        self._comparisons.rewrite_guard = _RewriteGuard(_sys_modules["_pytest.assertion.rewrite"])  # (after it)
        _DECLARED.update(self._comparisons.sources)
        _record_patches()  # (also before them: the wrappers are the originals the watch notes)
        self._comparisons.install_unittest_judge(_sys_modules["unittest.case"])  # (imported by _Comparisons)
        # The pristine code re-makes each call of changed code (installed when the conftests load, before any
        # project file does; see _Shadow).
        _SAMPLE_KEY[0] = str(secret.get("sample_key") or "").encode("ascii", "replace")  # (the shadow's draws too)
        self._shadow = _Shadow(self._comparisons.oracle)
        self._comparisons.shadow = self._shadow
        self._oracle_calls = secret.get("oracle_calls") is True
        self._calls: dict = {}  # id(item) -> (item, how its test function's call ended: "returned" or the exception)
        self._inner_call = _record_test_calls(_sys_modules["_pytest.python"], self)  # (before the watches' snapshots)
        self._watch = _Watch()  # before pytest loads any project file
        self._provenance = _Provenance(os.getcwd(), self._comparisons.sources)
        self._comparisons.provenance = self._provenance
        self._provenance.images = self._comparisons.images
        # (its audit hook: before any project file loads)
        self._source_code = _SourceCode(self._comparisons.sources, self._comparisons.oracle, os.getcwd())
        self._comparisons.compiled_from = self._source_code._compiled_from
        self._shadow.genuine = self._comparisons.genuine
        self._source_code.guarded = self._inner_call
        self._source_code.rewritten = self._provenance._pristine
        if not _REPORT_DICT:
            reports = _sys_modules["_pytest.reports"]
            _REPORT_DICT.append(_class_dict(reports.BaseReport)["__dict__"].__get__)
        self._internals = _Internals()  # last: whatever the plugin itself set up in pytest is in its snapshot
        self._watch.descriptors, self._watch.hook_impls = self._internals.descriptors, self._internals.hook_impls
        self._multicall, self._old_style = _pluggy_call_codes()
        self._failed: list[str] = []  # non-canary reports that failed ("nodeid when"), for the failure ledger
        self._subtests = 0  # subtest reports logged (pytest 9's SubtestReport), for must_pass's SUBTESTS property
        self._subtest_report = getattr(_sys_modules.get("_pytest.subtests"), "SubtestReport", ())  # bound before tests
        self._canaries: tuple = ()
        self._canary_reports: list = []  # the canaries' reports, as the outermost makereport wrapper returned them
        self._status = None  # pytest's own exit status, as its session-finish hook was given it
        self._armed = False
        self._items: list = []
        self._seen: list[str] = []  # changes found during collection, or before or after any test call
        self._must_pass = None
        self._calling = None  # the item whose call phase is running (set by our outermost runtest_call wrapper)
        self._pyfunc_done = None  # that item, once pytest_pyfunc_call returned for it with its collected function
        self._given = (None, None)  # (item, its fixture values as its setup left them: _Watch.fixture_values)
        self._fixture_results: dict = {}  # id(fixture definition) -> (it, its cached_result as pytest made it)

    def _final_changes(self) -> list[str]:
        """Called by the must_pass canary, which runs last: everything seen, plus a check of every item now."""
        if not self._armed:
            return ["the watch was never armed", *sorted(set(self._seen))]
        found, odd = self._keys_first(self._items, full=True)
        self._seen += found
        if odd:
            return sorted(set(self._seen))
        self._seen += (self._comparisons.findings() + self._provenance.findings(self._items, self._watch)
                       + self._provenance.code_changes() + self._shadow.intact() + self._source_code.findings()
                       # what the pristine code did differently matters only to a run whose tests all passed: with a
                       # failure the run is no pass anyway, and a wrong repair is a failure, not tampering
                       + (self._shadow.found if not self._failed_elsewhere else []))
        found = sorted(set(self._seen + self._watch.changes(self._items)))
        wholesale = self._internals.reported  # after the other layers' findings: the report's message is shortened
        return [f for f in found if f not in wholesale] + [f for f in found if f in wholesale]

    def _tracer_why(self) -> str | None:
        """Why the active trace or profile function is not allowed while a test function runs (None when it is):
        none, the oracle of calls' own, a C-level tracer, or a def of a file that is not a declared source."""
        for kind, function in (("trace", _gettrace()), ("profile", _getprofile())):
            if function is None or (_type(function) is types.MethodType and function.__self__ is self._shadow
                                    and function.__func__ is _Shadow.trace):
                continue
            # What CPython runs when it calls the function (a partial's, a method's, a class's __call__ def: until
            # session 37 an object with a __call__ def counted as a C-level tracer and was let through), and what that
            # runs on (round 40: bdb's trace_dispatch bound to the edit's subclass); a C-level tracer (coverage's)
            # runs nothing of Python's
            why = _trace_why(function, self._source_code._function_why)
            if why is not None:
                return f"a {kind} function ({why})"
        return None

    def _hook_origin(self, plugin, function) -> str | None:
        """Why a watched hook's implementation is not pytest's, pluggy's, this plugin's or a def of a file that is
        not a declared source (``_Provenance.hook_function``); None when it is one of those."""
        if plugin is self:
            return None
        inner = function.__func__ if _type(function) is types.MethodType else function
        if _type(inner) is types.FunctionType and (inner is self._inner_call or self._internals.is_own(inner)):
            return None
        return self._provenance.hook_function(inner)

    def _keys_first(self, items, full: bool) -> tuple[list, bool]:
        """The wholesale watch's check, then the keys of the dicts the other checks read by key (``odd_keys``).
        Returns ``(findings, stop)``: ``stop`` when a dict holds a key that is not an exact ``str`` (its ``__eq__``
        would run inside the check): the caller then runs no other check (the run is tampered already). Other
        findings stop nothing: the other checks' evidence is kept (what was found is recorded before they run)."""
        internals = self._internals
        found = internals.findings(full)
        if internals.odd:  # (not _Watch.odd_keys after _sys_modules was found odd: it reads it)
            return found + [f for f in internals.odd if f not in found], True
        odd = self._watch.odd_keys(items, internal=False)
        return found + odd, bool(odd)

    @_hookimpl(tryfirst=True)
    def pytest_load_initial_conftests(self, early_config, parser, args):
        # Before any conftest imports a helper: the test folders' helper modules get their asserts rewritten too.
        self._comparisons.rewrite_helpers(early_config, args)
        self._comparisons.precompute(early_config, args)  # (before any conftest: no project code has run)
        rewrite = _sys_modules.get("_pytest.assertion.rewrite")
        hook = getattr(rewrite, "AssertionRewritingHook", None)
        if any(_type(finder) is hook for finder in list(sys.meta_path)):  # pytest's rewriting is on (--assert=rewrite)
            self._provenance.precomputed = frozenset(self._comparisons.precomputed)
        if self._oracle_calls:  # not earlier: pytest's own start-up would pay the trace function's cost for nothing
            self._shadow.install()
            if self._shadow.installed:
                self._source_code.oracle_trace = self._shadow.trace

    @_hookimpl(tryfirst=True)
    def pytest_configure(self, config):
        self._watch.configure(config)
        self._provenance.config = config
        self._internals.configure(config)

    def pytest_plugin_registered(self, plugin, manager):
        if plugin is self:  # pytest.main registers this plugin after its builtin plugins' modules, before conftests
            self._internals.more_modules()

    @_hookimpl(wrapper=True, tryfirst=True)
    def pytest_make_collect_report(self, collector):
        # A test module's own calls at its import (``VALUE = stock.restock(...)``, a parametrize list computed from
        # the code) are the tests' too, and recorded for the replay (red-team round 73's b03: a repair right only
        # inside the run passed, since no call made at collection was ever replayed). Only a module's collection:
        # the caller must still be a test file's own code (``_Recorder.note``)
        module = isinstance(collector, pytest.Module) and self._shadow.recorder is not None \
            and not self._shadow.in_test
        if module:
            self._shadow.collecting = True
            self._shadow.test_root = _realpath_cached(str(collector.config.rootpath)) + os.sep
        try:
            return (yield)
        finally:
            if module:
                self._shadow.collecting = False
                self._shadow.test_root = None

    @_hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self._shadow.in_test = True  # the oracle of calls' limits count the calls of a test's phases only
        self._shadow.test_root = _realpath_cached(str(item.config.rootpath)) + os.sep
        recorder = self._shadow.recorder
        if recorder is not None:
            recorder.item = item
        try:
            return (yield)
        finally:
            self._shadow.in_test = False
            self._shadow.test_root = None
            if _FILE_GUARD is not None:
                _FILE_GUARD.remembered.clear()  # (paths of this test's pristine runs: another test's are not)
            if recorder is not None:
                recorder.item = None
                recorder.item_done()
            self._shadow.release()

    @_hookimpl(wrapper=True, tryfirst=True)
    def pytest_fixture_setup(self, fixturedef, request):
        # What pytest cached as a fixture's value when it made it (red-team round 38: a session fixture's cached
        # result rewritten by a thread between two tests that use it; compared at each later test's setup)
        result = yield
        self._fixture_results[_id(fixturedef)] = (fixturedef, _cached_result(fixturedef))
        return result

    @_hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_call(self, item):
        if self._armed:
            odd = self._internals.odd_keys(modules=False) or self._watch.odd_keys([item])
            self._seen += odd or self._watch.changes([item])
        self._calling, self._pyfunc_done = item, None
        self._calls.pop(_id(item), None)
        given = self._given[1] if self._given[0] is item else self._watch.fixture_values(item)
        try:
            return (yield)
        finally:
            self._calling = None
            if self._armed:
                found, odd = self._keys_first([item], full=False)
                self._seen += found
                if not odd:
                    self._seen += (self._watch.changes([item]) + self._watch.fixture_changes(item, given)
                                   + self._comparisons.after_call()
                                   + self._shadow.intact() + self._provenance.findings([item], self._watch)
                                   + self._source_code.findings())

    @_hookimpl(wrapper=True, tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        # A list-free check (red-team round 5): records that pytest's Python-function call path was entered, and
        # returned, for the item whose call phase is running, with the function collection gave it. The report
        # wrapper below flags a Function's call phase reported passed without this record.
        item = pyfuncitem
        collected = self._watch.items.get(id(item), {}).get("attrs", {}).get("_obj", _ABSENT)
        called = item is self._calling and item.obj is collected  # what pytest's own implementation calls next
        result = yield
        if called and item.obj is collected:
            self._pyfunc_done = item
        return result

    @_hookimpl(trylast=True)  # after any project hook that reorders or deselects
    def pytest_collection_modifyitems(self, session, config, items):
        s = self._secret
        # In the run's box (a folder the tests can write to but not list or chmod, when the harness could make it
        # so): the module's name holds the secret's token, so a test thread cannot find it while it exists.
        folder = tempfile.mkdtemp(prefix="c", dir=s.get("box") or None)
        try:
            path = Path(folder) / _module_file_name(list(config.getini("python_files")), s["token"])
            # The secret is on disk only between these lines (0600, in the run's own temp folder).
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(_MODULE_TEMPLATE.format(**s))
            own = pytest.Module.from_parent(session, path=path)
            functions = [getattr(own.obj, name) for name in (s["must_pass"], s["must_fail"])]
            own.obj._beacon_watch = self._final_changes
            self._watch.canaries_module = own.obj  # (its file is deleted once imported)
            _known_to_inspect(own.obj)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        self._items = list(items)
        # Each canary joins one of the project's own test modules (same conftest hooks and node-id prefix)
        # and runs right after that module's last test, so it never splits a class's or a module's
        # setup/teardown. must_fail joins a random module; must_pass the module of the last test, so it
        # runs last and its check of the watch covers the whole run.
        last_of: dict = {}
        for index, item in enumerate(items):
            module = item.getparent(pytest.Module)
            if module is not None:
                last_of[module] = index
        candidates = [m for m in last_of if not any(mark.name in _MODULE_MARKS_TO_AVOID for mark in m.iter_markers())]
        chosen = candidates[int.from_bytes(os.urandom(8), "big") % _len(candidates)] if candidates else own
        must_fail = self._canary(chosen, items[last_of[chosen]] if chosen in last_of else None, functions[1], own)
        final = items[-1].getparent(pytest.Module) if items else None
        must_pass = self._canary(final if final in candidates else own, items[-1] if items else None, functions[0], own)
        joined = must_fail.getparent(pytest.Module)
        position = last_of[joined] + 1 if joined in last_of else len(items)
        items.insert(position, must_fail)
        items.append(must_pass)
        self._must_pass = must_pass
        self._canaries = (must_pass, must_fail)
        self._provenance.exempt = {id(must_pass), id(must_fail)}  # their module was written outside the checkout
        found, odd = self._keys_first(self._items + [must_pass, must_fail], full=True)
        self._seen += found
        if odd:
            return  # never armed: must_pass fails with what was found
        self._seen += (self._watch.arm(self._items + [must_pass, must_fail], self._hook_origin)
                       + self._comparisons.findings())
        self._seen += self._provenance.findings(self._items + [must_pass, must_fail], self._watch)
        self._seen += self._source_code.findings()
        self._comparisons.oracle.settle()
        self._armed = True

    @staticmethod
    def _canary(module, last, function, own):
        """A Function item for ``function`` in ``module``, beside ``last`` (the module's last test): under the
        same test class when that test is in one (a module's autouse fixture may set ``request.cls.x``), else
        under the module. Under the canary's own module instead when the fixtures there cannot serve a function
        of no arguments, which would make an honest run's canary error at random (red-team round 8, FP-1): a
        parametrized fixture, or a fixture in the closure that nothing defines (a name only
        ``pytest_generate_tests`` parametrizes)."""
        parent = module
        if module is not own and last is not None and type(last.parent) is pytest.Class:
            parent = last.parent
        item = pytest.Function.from_parent(parent, name=function.__name__, callobj=function)
        info = item._fixtureinfo
        defs = info.name2fixturedefs
        if module is not own and (any(d.params for chain in defs.values() for d in chain)
                                  or any(name not in defs and name != "request" for name in info.names_closure)):
            item = pytest.Function.from_parent(own, name=function.__name__, callobj=function)
        return item

    @_hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item, call):
        # A list-free check (red-team round 4): pytest reports a phase as passed only when it raised nothing, so
        # a phase whose call raised but whose report says passed had its report rewritten, however that was done
        # (report construction, a hook, a patched class). Outermost wrapper: it sees what every inner one made.
        report = yield
        if call.when == "setup":  # the fixture values as the setup left them, compared when the call ends
            self._given = (item, self._watch.fixture_values(item))
            state = self._watch.items.get(id(item))
            for definition, _func in (state or {}).get("fixtures", ()):
                made = self._fixture_results.get(_id(definition))
                if made is not None and made[0] is definition and _cached_result(definition) is not made[1] \
                        and _cached_result(definition) is not None:
                    self._seen.append(f"{item.nodeid} setup: a fixture's cached value was replaced after pytest "
                                      "made it")
        if any(item is canary for canary in self._canaries):
            self._canary_reports.append(report)  # held: the ledger knows them by identity
        passed = _outcome(report) == "passed"
        if call.excinfo is not None and passed:
            self._seen.append(f"{item.nodeid} {call.when}: raised {call.excinfo.typename} but reported passed")
        # A phase that never raises needs the positive check (red-team round 5: `item.runtest = lambda: None`
        # set on the instance runs nothing): a Function's call passes only if its function really was called.
        # A call-phase report made while the item's own call is still running is a subtest's (pytest 9's
        # `subtests` fixture, unittest's subTest): not the item's call report, which is made after the call
        # returns, and checked then (red-team round 8, FP-2: each subtest's report cleared the record).
        subtest = self._calling is item
        if call.when == "call" and passed and self._armed and not subtest and self._watch.needs_pyfunc_call(item):
            if self._pyfunc_done is not item:
                self._seen.append(f"{item.nodeid} call: reported passed but pytest never called its test function "
                                  "(no pytest_pyfunc_call)")
            # How pytest's own implementation's call of the test function ended (absent when another implementation,
            # a conftest's, called it instead): an exception there, however a wrapper turned it into a return.
            ended = self._calls.get(_id(item), (None, None))
            if ended[0] is item and _type(ended[1]) is _Traced:
                self._seen.append(f"{item.nodeid} call: reported passed, but its test function returned while "
                                  f"{ended[1].why} was active")
            elif ended[0] is item and _type(ended[1]) is not str:  # (an exception: never compared, never asked)
                self._seen.append(f"{item.nodeid} call: raised {_class_name(_type(ended[1]))} in its test function "
                                  "(pytest's own call of it) but the call is reported passed")
        if call.when == "call" and not subtest:
            self._pyfunc_done = None
            # The must-pass canary's body asks the watch, but a run that never calls that body (its runtest
            # neutered like any other test's) would pass it vacuously: its report carries the findings itself.
            if item is self._must_pass and report.outcome == "passed":
                changes = self._final_changes()
                if changes:
                    report.outcome = "failed"
                    report.longrepr = f"AssertionError: {changes!r} (beacon watch, from the report hook)"
                elif self._failed_elsewhere:
                    # The failure ledger (red-team round 6, F3a): a report writer rewritten to say "passed" (and
                    # pytest's ExitCode replaced) hid a real failure. must_pass fails with what this plugin saw;
                    # the harness accepts that only beside a report that shows a failure too.
                    report.outcome = "failed"
                    report.longrepr = (f"{LEDGER} {len(self._failed)} report(s) failed outside the canaries: "
                                       f"{self._failed[:5]!r}")
        elif call.when == "teardown":
            self._watch.torn_down.add(id(item))
            if item is self._must_pass:  # last: JUnit writes the teardown report's properties into its testcase
                report.user_properties.append((SUBTESTS, self._subtests))
                if self._shadow.installed:
                    report.user_properties.append((ORACLE_CALLS, _dumps(self._shadow.evidence())))
                    recorder = self._shadow.recorder
                    report.user_properties.append((REPLAY_CALLS, '{"counts": %s, "calls": [%s]}' % (
                        _dumps(recorder.evidence()), ", ".join(recorder.calls))))
        return report

    # The failure ledger reads each report's own outcome (red-team round 7: ``TestReport.failed`` overridden by a
    # property on the subclass, which also hid the failure from pytest's own counters and JUnit writer).
    # A canary's report is known by identity (pytest 9.2 keeps a report's node id behind a property).
    def pytest_runtest_logreport(self, report):
        own = _report_state(report)
        if isinstance(report, self._subtest_report):
            self._subtests += 1  # JUnit counts a subtest's report in tests= and writes it into its test's testcase
        if _outcome(report) not in ("passed", "skipped") and not any(report is r for r in self._canary_reports):
            self._failed_elsewhere = True
            when = own.get("when")
            self._failed.append(f"{_node_id(own)} {when if _type(when) is str else '?'}")

    def pytest_collectreport(self, report):
        if _outcome(report) not in ("passed", "skipped"):
            self._failed_elsewhere = True
            own = _report_state(report)
            self._failed.append(f"{_node_id(own)} collect")

    def pytest_sessionfinish(self, session, exitstatus):
        # Only the must_fail canary failed: report the project's own result (0), as pytest would.
        if int(exitstatus) == 1 and not self._failed_elsewhere and session.testsfailed == 1:
            session.exitstatus = 0
        # A test failed: never 0 (red-team round 6 forced 0). main() enforces it without pytest's ExitCode.
        if self._failed_elsewhere and int(session.exitstatus) == 0:
            session.exitstatus = 1
        self._status = int(session.exitstatus)


def _read_secret(fd: int) -> dict:
    chunks = []
    while True:
        data = os.read(fd, 65536)
        if not data:
            break
        chunks.append(data)
    os.close(fd)
    return json.loads(b"".join(chunks))


def main(fd: int, args: list[str], _exit=os._exit, _int=int, _stdio=(sys.stdout, sys.stderr)) -> int:
    """Read the secret (the interpreter runs with ``-P``: nothing from the checkout is importable yet),
    then put the working directory first on ``sys.path``, as ``python -m pytest`` does, and run pytest.

    When the plugin saw a test fail, the process ends with a non-zero status through ``os._exit`` (bound, like
    the other defaults, when this module was imported, before any project file): ``pytest.main`` returns
    ``_pytest.config.ExitCode(ret)``, which the code under test can replace (red-team round 6 made it return 0).
    """
    try:
        secret = _read_secret(fd)
    except (OSError, ValueError) as exc:
        print(f"beacon canary: no secret on fd {fd} ({exc}); refusing to run pytest", file=sys.stderr)
        return 97
    sys.path.insert(0, os.getcwd())
    global pytest
    import pytest as _pytest_module

    pytest = _pytest_module
    plugin = CanaryPlugin(secret)
    # Everything alive now is the interpreter's, pytest's and this plugin's (its snapshots of pytest's internals are
    # large): none of it is ever garbage, yet each full collection during the run walked all of it, and pytest's own
    # cleanup collects five times. Moved out of the collector's reach, it costs ~0.2 s less per run (~20%,
    # experiments/benchmarks/scoring_overhead). No project code has run yet (``-P``), so every object the tests make
    # is collected as in a bare run; the plugin finds classes through ``type.__subclasses__``, not ``gc``.
    gc.freeze()
    status = pytest.main(args, plugins=[plugin])
    if plugin._failed_elsewhere:
        code = plugin._status  # pytest's own, recorded by the plugin's session-finish hook; 1 if never reached
        code = code if type(code) is _int and code > 0 else 1
        for stream in (*_stdio, sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        _exit(code)
    return int(status)
