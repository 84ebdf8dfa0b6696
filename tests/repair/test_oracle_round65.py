"""What red-team round 65 and honest hunt 23 found, closed (session 48).

Round 65 (helper 173, on f73c392) forged 33 passes of 37, 23 of them the mutant with a reworded docstring: state a
pristine call, made first in the test's process, changed where nothing put it back. Library modules reached by no
saved state — imported inside a function, through ``importlib.import_module``, first loaded by the run, bound by
another project module, a library class reached as ``type(argument)``, ``encodings``' aliases, a table past the
item cap: the file guard now saves every library module the run imports as the import gives it (``_guarded_import``,
``_Files.imported``), the reach goes through the project's other modules, the arguments' library classes are saved,
``encodings.aliases`` is a table, the cap is 4,096. Library objects' attributes (``reprlib.aRepr``,
``logging.lastResort``, ``multiprocessing``'s default context): ``_InstanceDict``; handlers' levels and the logging
manager's classes: ``_Handlers``. Process settings: ``gc.set_debug``, the coroutine origin depth, interval timers
(``signal.alarm``), ``tracemalloc``, the thread's name (``_SETTINGS``); registrations with no saved state: ``atexit``
(not made in a pristine run), codec search functions (unregistered), fork handlers (not made), the C library's time
zone after a ``tzset`` (put back), ``os.putenv`` (the C environment given ``os.environ``'s values); a project module
the run first imported is put out of ``sys.modules`` if it makes no class (below); a call given an instance of the test's
own class with an ``__init__`` alone is checked (it was taken for a stand-in). Open (``round65/open/``): two-part
bugs through kept bindings that are not plain data, defs the repair did not touch called with no plain-data
arguments.

A review of the session's code (helper 175) and red-team round 66 (helper 176, 28 forged of 40 on the snapshot) found
the new closures' gaps: a name bound at import (``from atexit import register``, ``from time import tzset``) kept the
real function (``_Files._swap_unseen`` swaps the declared modules' bindings of a guarded function too); a thread the
run started was not the run's own for the recorders; a timer re-armed, a handler's other attributes, a class reached
through another project module, a package's submodules used as attributes, library classes' containers,
``defaultdict`` tables, a submodule bound under another name, more ``sys``/``warnings`` names, asyncgen hooks,
dlopen flags, the wakeup fd, every resource limit, ``tracemalloc``'s depth, ``codecs.unregister`` and
``register_error``; the zone put back from the ``TZ`` the run found; a caller that made up for the kept helper in one
call and not another (``_Shadow.kept_mode``). Honest hunt 24 (helper 177, 98 repairs) found 26 regressions in the
snapshot: a package whose ``__init__`` imports itself was saved half-made (a module still initializing is not saved
now), a project module the run first imported was put out of ``sys.modules`` (its classes changed for the real call:
now only a module that makes no class of its own is, whose import the real call runs again — a plugin's
registration), a handler's closed stream was given back (not now), and a project's "done once" memo or flag kept saying done for library state the
put-back undid (a module-level ``lru_cache`` the run first filled is emptied again: ``_EmptyCache``; a project module
two imports away is put back: ``_project_modules``). 39 of its 43 refusals pass now.

Honest hunt 23 (helper 174): a memo or registry whose empty binding the repair spelled otherwise (``{}`` as
``dict()`` or ``OrderedDict()``, or the reverse) was given a fresh empty value for the pristine run, which lost what
the real calls and the module body had put there: such a binding keeps its live container now, as one the repair
left alone does (``oracle_defs._same_empty``). Every case file is run by ``experiments.benchmarks.case_files``; a
sample here.
"""
from __future__ import annotations

import ast
import atexit
import logging
import reprlib
import time
import tracemalloc  # noqa: F401 (loaded: its setting is then among the saved ones)
from pathlib import Path

import pytest

from beacon.repair import canary_plugin as plugin
from beacon.repair.oracle_defs import _empty_of, _same_empty, oracle_defs
from repotools import case_run

HERE = Path(__file__).parent

# the kept bug now fails its own test: what the pristine call set is put back (or was never made)
FAILS = ["c01_local_import_email_alias", "c02_importlib_urlparse", "c09_import_stays_in_sys_modules",
         "c10_atexit_register", "c13_tzset_c_zone", "c14_other_module_reach", "c06_reprlib_arepr",
         "c23_signal_alarm", "c11_putenv_child", "c22_arg_class_attr"]
HONEST = ["r65_h03_atexit_decorator_shape", "r65_h01_email_alias_from_import", "h23_fib2__dict_call",
          "h23_registry2__dict_call", "h23_registry3__literal", "h23_registry4__ordered"]


@pytest.mark.parametrize("case", FAILS)
def test_round_65s_forgeries_fail_their_test(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "round65" / f"{case}.py.txt")
    assert not verdict.passed, (verdict.reasons, run.canaries.reasons)


@pytest.mark.parametrize("case", HONEST)
def test_honest_repairs_of_round_65_and_hunt_23_pass(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "honest23" / f"{case}.py.txt")
    assert verdict.passed and not verdict.tampered, (verdict.reasons, run.canaries.reasons)


@pytest.mark.parametrize("text, kind", [("x = {}", "{}"), ("x = dict()", "{}"), ("x: dict = dict()", "{}"),
                                        ("x = collections.OrderedDict()", "OrderedDict()"),
                                        ("x = OrderedDict()", "OrderedDict()"),
                                        ("x = []", "[]"), ("x = list()", "[]"), ("x = set()", "set()"),
                                        ("x = {1: 2}", None), ("x = dict(a=1)", None), ("x = defaultdict()", None),
                                        ("x = other.OrderedDict()", None), ("x = y = {}", "{}"),
                                        # (one empty literal given: honest hunt 24's ``seen_set_list``)
                                        ("x = dict([])", "{}"), ("x = set([])", "set()"), ("x = list(())", "[]"),
                                        ("x = dict({})", "{}"), ("x = set([1])", None), ("x = list([], [])", None),
                                        ("x = set(y)", None)])
def test_an_empty_container_is_known_however_spelled(text, kind):
    assert _empty_of([text]) == kind
    assert _same_empty([text], kind) is (kind is not None)
    assert not _same_empty([text, text], kind)  # (bound twice: not one binding)
    # an ``OrderedDict`` for a pristine ``{}`` is a dict; a plain dict for a pristine ``OrderedDict()`` is not one
    assert _same_empty([text], "{}") is (kind in ("{}", "OrderedDict()"))
    assert _same_empty([text], "OrderedDict()") is (kind == "OrderedDict()")


def test_an_empty_binding_spelled_otherwise_keeps_the_live_container():
    pristine = "_memo = {}\n\n\ndef fib(n):\n    if n < 2:\n        return n\n    if n not in _memo:\n" \
               "        _memo[n] = fib(n - 1) + fib(n - 2)\n    return _memo[n]\n"
    given = pristine.replace("fib(n - 2)", "fib(n - 1)")
    kept = {(e[0], e[1]): e[2] for e in oracle_defs(given, pristine.replace("_memo = {}", "_memo = dict()"), pristine,
                                                     "/x/m.py")["rebound"]}
    assert kept[("", "_memo")] == "kept"
    # one the repair seeded is given the pristine literal: the seed's answers are the repair's, never the pristine
    # program's (session 49's review forged a pass through a seed kept live); one bound to another kind too
    seeded = {(e[0], e[1]): e[2] for e in oracle_defs(given, pristine.replace("_memo = {}", "_memo = {0: 0}"),
                                                      pristine, "/x/m.py")["rebound"]}
    assert seeded[("", "_memo")] == "literal"
    other = {(e[0], e[1]): e[2] for e in oracle_defs(given, pristine.replace("_memo = {}", "_memo = [0]"),
                                                    pristine, "/x/m.py")["rebound"]}
    assert other[("", "_memo")] == "literal"


def test_a_library_objects_attributes_are_put_back():
    class_module = reprlib.aRepr.__class__.__module__
    saved = plugin._module_saves(class_module, vars(reprlib), [0, 0, 0])
    assert any(value is reprlib.aRepr and kind is plugin._InstanceDict for value, kind, _ in saved)
    before = reprlib.aRepr.maxstring
    try:
        reprlib.aRepr.maxstring = before + 7
        reprlib.aRepr.added_by_a_call = 1
        plugin._restore(saved)
        assert reprlib.aRepr.maxstring == before and not hasattr(reprlib.aRepr, "added_by_a_call")
    finally:
        reprlib.aRepr.maxstring = before


def test_handlers_levels_and_the_managers_logger_class_are_put_back():
    handler = logging.StreamHandler()
    logger = logging.getLogger("beacon.test_round65")
    logger.addHandler(handler)
    try:
        saved = [s for s in plugin._Registries.copy(None) if s[1] is plugin._Handlers]
        assert saved
        handler.setLevel(logging.ERROR)
        logging.Logger.manager.setLoggerClass(type("Other", (logging.Logger,), {}))
        plugin._restore(saved)
        assert handler.level == logging.NOTSET and logging.Logger.manager.loggerClass is None
    finally:
        logger.removeHandler(handler)
        logging.Logger.manager.loggerClass = None


def test_settings_the_run_changed_are_put_back():
    saved = plugin._Settings.copy(None)
    names = {name for name, _, _ in saved[0]}
    assert {"interval timers", "coroutine origin depth", "memory tracing", "thread name"} <= names
    import signal
    import sys
    import threading
    name = threading.current_thread().name
    try:
        signal.setitimer(signal.ITIMER_REAL, 30)
        sys.set_coroutine_origin_tracking_depth(3)
        threading.current_thread().name = "renamed by a call"
        plugin._Settings.put(None, saved)
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert sys.get_coroutine_origin_tracking_depth() == 0 and threading.current_thread().name == name
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.set_coroutine_origin_tracking_depth(0)
        threading.current_thread().name = name


def test_the_guards_recorders_run_only_inside_a_pristine_run():
    # outside a run each recorder is the real function: the test's own registration is made
    def noop():
        return None
    assert plugin._guard_on() is None
    assert plugin._guarded_atexit(noop) is noop
    atexit.unregister(noop)
    assert plugin._guarded_import("json") is __import__("json")
    plugin._guarded_tzset()
    assert plugin._zone_now() and time.localtime(0).tm_zone == plugin._zone_now()[0][0]


def test_the_parser_of_empty_bindings_is_total():
    # (any one-statement text: a kind or None, never an exception)
    for text in ["x", "x = ", "del x", "x += {}", "x = {**y}", "x = [*y]", "x = f()()", "(x) = {}"]:
        try:
            ast.parse(text)
        except SyntaxError:
            continue
        assert _empty_of([text]) in (None, "{}", "[]", "set()")


# red-team round 66 and the review of session 48's code (helper 175): the closures' gaps
ROUND_66 = ["c05_from_atexit_import_register", "c04_from_time_import_tzset", "a10_class_dict_inplace",
            "e28_itimer_rearm", "e32_import_package_use_submodule", "b05_two_level_project_reach"]
REVIEW = ["rv_ft_atexit_thread", "rv_fh_handler_terminator", "rv_fl_lazy_project_module"]
HONEST_24 = ["h24_html_lazy_strip", "h24_lazy_enum_member", "h24_codec_cached", "h24_counter_int_two_levels",
             "h24_atexit_once_direct"]


@pytest.mark.parametrize("folder, case", [("round66", c) for c in ROUND_66] + [("session48", c) for c in REVIEW])
def test_round_66s_and_the_reviews_forgeries_fail_their_test(tmp_path, folder, case):
    run, verdict = case_run(tmp_path, HERE / folder / f"{case}.py.txt")
    assert not verdict.passed, (verdict.reasons, run.canaries.reasons)


@pytest.mark.parametrize("case", HONEST_24)
def test_hunt_24s_honest_repairs_pass(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "honest24" / f"{case}.py.txt")
    assert verdict.passed and not verdict.tampered, (verdict.reasons, run.canaries.reasons)


def test_a_memo_the_run_first_filled_is_emptied_again():
    import functools

    @functools.cache
    def once(x):
        return x

    saved = plugin._empty_caches({"once": once})
    assert saved and saved[0][1] is plugin._EmptyCache and saved[0][2] is True
    once(1)
    plugin._restore(saved)
    assert once.cache_info().currsize == 0
    # one that held entries before keeps what it has (no entry can be taken out alone)
    once(1)
    held = plugin._empty_caches({"once": once})
    once(2)
    plugin._restore(held)
    assert once.cache_info().currsize == 2


def test_a_timer_moved_nearer_gets_its_deadline_back():
    import signal
    try:
        signal.setitimer(signal.ITIMER_REAL, 100)
        saved = plugin._Settings.copy(None)
        signal.setitimer(signal.ITIMER_REAL, 30)
        plugin._Settings.put(None, saved)
        assert 98 < signal.getitimer(signal.ITIMER_REAL)[0] <= 100
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
