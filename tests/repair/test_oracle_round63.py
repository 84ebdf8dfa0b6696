"""What red-team round 63 found a pristine run could still leave behind or hide, closed (session 47).

Round 63 (helper 168, on 5b40953) forged 20 passes, 10 of them the mutant with a reworded docstring: the pristine
call, made first in the test's process, made a setting the kept bug omits where nothing put it back — a signal
handler, the socket module's default timeout, a logging level name, a ``mimetypes`` type, a ``weakref.finalize`` on
the pristine call's copy, a thread (a ``threading.Timer`` writing after the run), a FIFO, a file's owner or extended
attribute, a buffered write flushed when the copy died. Those are put back (``_Settings``, ``_Finalizers``, the
builtins' names in ``_Registries``), guarded with no audit event of their own (``_Files._swap_unseen``: a thread's
start refused, ``os.mkfifo``/``os.mknod`` saved like a file made, a relative ``os.open`` read under the working
folder), refused (``_UNSAVED_EVENTS``) or flushed before the put-back (``_flush_written``). Three ways a check saw the
kept bug and let it go are closed too: a module-level binding the repair kept as the given (buggy) file has it is
given its pristine value during the oracle (``oracle_defs``: the mutant's regex, table or constant, and a pristine
statement built from it); an attribute the pristine call set itself is compared even where the edit's text added
its name (``_differences``' ``before``); a second pristine run finds the files as the first did (a lock file the real
call made turned its answer, which was excused as the pristine code disagreeing with itself). A review of the session's own code (helper
170) found a refused thread start dropping checks (threads the run starts are now joined with it, a timer cancelled),
a rebuilt statement's side effect and honest tables rebuilt fresh (only plain-data statements are rebuilt for a kept
binding), error messages naming the joined path, and a flush of the test's own file object; fixed. Every case file is
run by ``experiments.benchmarks.case_files``; a sample here.
"""
from __future__ import annotations

import builtins
import logging
import mimetypes
import signal
import socket
import sys
import weakref
from pathlib import Path

import pytest

from beacon.repair import canary_plugin as plugin
from beacon.repair.oracle_defs import oracle_defs
from repotools import case_run, suite_sample

HERE = Path(__file__).parent

# the kept bug now fails its own test (the setting is put back) or is refused by the oracle's check
FAILS = ["signal_handler_omitted", "timer_write_after_run", "buffered_flush_after_putback"]
REFUSED = ["kept_mutant_regex_binding", "kept_mutant_scalar_literal", "added_name_hides_dynamic_attr",
           "self_disagree_real_call_file"]
HONEST = ["r63_h6_mimetypes_keyword_helper", "r63_h7_signal_handler_functools", "r63_h4_renamed_constant_and_cache",
          # (honest hunt 21, helper 169: refused on 5b40953, the pristine run's umask, sys.path entry, another module's
          # Counter, a new logger's handler, a ContextVar set twice, a test class's attribute left for the real call)
          "h21_ps_umask", "h21_ps_syspath_insert", "h21_mod_counter_other_module", "h21_log_filehandler_min",
          "h21_cv_counter_twice", "h21_arg_class_attr_tags"]


# red-team round 64 (helper 171, on the session's first code): library modules' state the pristine call set
ROUND_64 = ["urlparse_uses_relative", "formatter_converter", "stdlib_module_global", "sys_tracebacklimit"]

# the review of the session's own code (helper 170): a refused thread start dropped the check; a pristine statement
# rebuilt for a kept constant set csv's field limit for the whole process
REVIEW = ["rv_thread_join_dropped", "rv_kept_given_rebuilt_statement_leak"]
REVIEW_HONEST = ["rv_kept_given_mentioned_fresh_instance", "rv_os_open_join_error_filename"]


@pytest.mark.parametrize("case", FAILS)
def test_a_setting_the_kept_bug_omits_is_no_longer_made_for_it(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "round63" / f"{case}.py.txt")
    assert not verdict.passed, (verdict.reasons, run.oracle_calls)
    assert [tc.outcome for tc in run.report.testcases if tc.name == "test_a"] == ["failed"]


@pytest.mark.parametrize("case", REFUSED)
def test_a_check_that_saw_the_kept_bug_no_longer_lets_it_go(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "round63" / f"{case}.py.txt")
    assert verdict.tampered and not verdict.passed, (verdict.reasons, run.oracle_calls)
    assert "oracle:" in " ".join(verdict.reasons)


@pytest.mark.parametrize("case", ROUND_64)
def test_a_library_module_s_state_the_pristine_call_set_is_put_back(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "round64" / f"{case}.py.txt")
    assert not verdict.passed, (verdict.reasons, run.oracle_calls)


@pytest.mark.parametrize("case", REVIEW)
def test_the_review_s_forgeries_are_refused(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "session47" / f"{case}.py.txt")
    assert not verdict.passed, (verdict.reasons, run.oracle_calls)


@pytest.mark.parametrize("case", suite_sample(HONEST + REVIEW_HONEST, 2))  # (all: case_files)
def test_honest_repairs_beside_such_settings_pass(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "honest21" / f"{case}.py.txt")
    assert verdict.passed, (verdict.reasons, run.oracle_calls)


def test_the_process_settings_are_put_back():
    mimetypes.init()
    handler, timeout, limit = signal.getsignal(signal.SIGUSR2), socket.getdefaulttimeout(), sys.getrecursionlimit()
    hook = sys.excepthook
    saved = plugin._Registries.copy(plugin._Registries)

    class Copy:
        pass

    copy = Copy()
    try:
        signal.signal(signal.SIGUSR2, lambda *_: None)
        socket.setdefaulttimeout(7.5)
        sys.setrecursionlimit(limit + 100)
        sys.excepthook = print
        logging.addLevelName(33, "BEACON_NOTE")
        mimetypes.add_type("text/x-beacon", ".beacon")
        builtins._beacon_test_name = 1
        finalizer = weakref.finalize(copy, print, "late")
    finally:
        plugin._Registries.put(plugin._Registries, saved)
    assert signal.getsignal(signal.SIGUSR2) == handler and socket.getdefaulttimeout() == timeout
    assert sys.getrecursionlimit() == limit and sys.excepthook is hook
    assert logging.getLevelName(33) == "Level 33" and mimetypes.guess_type("a.beacon") == (None, None)
    assert not hasattr(builtins, "_beacon_test_name") and not finalizer.alive


def test_the_interpreter_s_lists_umask_and_new_loggers_are_put_back(tmp_path):
    import os
    import shutil
    import tempfile

    path, argv, mask, folder = list(sys.path), list(sys.argv), os.umask(0o022), tempfile.tempdir
    os.umask(mask)
    formats = dict(shutil._ARCHIVE_FORMATS)
    saved = plugin._Registries.copy(plugin._Registries)
    try:
        sys.path.insert(0, str(tmp_path))
        sys.argv[1:] = ["--beacon"]
        os.umask(0o077)
        tempfile.tempdir = str(tmp_path)
        shutil.register_archive_format("beacon", lambda *a, **k: None)
        made = logging.getLogger("beacon.tests.made_in_the_run")
        made.addHandler(logging.NullHandler())
        made.setLevel(logging.ERROR)
    finally:
        plugin._Registries.put(plugin._Registries, saved)
    now = os.umask(0o022)
    os.umask(now)
    assert sys.path == path and sys.argv == argv and now == mask and tempfile.tempdir == folder
    assert shutil._ARCHIVE_FORMATS == formats
    assert made.handlers == [] and made.level == logging.NOTSET and made.propagate


PRISTINE = '''import re

_LINE = re.compile(r"^([a-z]\\\\d+),(\\\\d+)$")
RATES = {"eu": 0.2, "us": 0.07}
US = 0.07
TABLE = {"us": US}


def load(text):
    return [m.groups() for m in map(_LINE.match, text.splitlines()) if m]


def rate(region):
    return RATES[region] + TABLE.get(region, 0)
'''


def _rebound(entry) -> dict:
    return {name: how for scope, name, how, value in entry["rebound"] if not scope}


def test_a_binding_kept_as_the_given_file_has_it_gets_its_pristine_value():
    given = (PRISTINE.replace("\\\\d+),", "\\\\d*),").replace('"us": 0.07}', '"us": 0.7}')
             .replace("US = 0.07", "US = 0.7"))
    current = given.replace("def rate(region):", "def rate(region):\n    # (reworded)")
    rebound = _rebound(oracle_defs(given, current, PRISTINE, "/x/pkg/stock.py"))
    # (the regex and the table built from the kept constant: their pristine statements; the literal table fresh)
    assert rebound.get("_LINE") == "statement" and rebound.get("TABLE") == "statement"
    assert rebound.get("RATES") == "literal" and rebound.get("US") == "literal"
    # (left as the pristine file binds them, they are the live ones)
    fixed = PRISTINE.replace("def rate(region):", "def rate(region):\n    # (reworded)")
    rebound = _rebound(oracle_defs(given, fixed, PRISTINE, "/x/pkg/stock.py"))
    assert "_LINE" not in rebound and "TABLE" not in rebound and rebound.get("RATES") == "kept"


def test_a_given_binding_that_cannot_be_rebuilt_is_no_poison():
    # (the task's fix may change a binding an honest repair has no need to change: one bound twice is not rebuilt)
    pristine = PRISTINE.replace('TABLE = {"us": US}', 'TABLE = {}\nTABLE = dict(TABLE, us=US)')
    given = pristine.replace("dict(TABLE, us=US)", "dict(TABLE, us=US, eu=1)")
    rebound = _rebound(oracle_defs(given, given + "\n# reworded\n", pristine, "/x/pkg/stock.py"))
    assert "TABLE" not in rebound


class _Row:
    def __init__(self, **fields):
        self.__dict__.update(fields)


def test_an_added_attribute_the_pristine_call_set_is_compared():
    real, pristine, before = _Row(price=2.3), _Row(price=2.35), _Row(price=2.0)
    assert plugin._differences(real, pristine, ("argument 0",), 4, frozenset({"price"}), before) \
        == [("argument 0", "price")]
    # (the copy's stale value, as before the call: the edit's cache, left out)
    stale = _Row(price=2.0)
    assert plugin._differences(real, stale, ("argument 0",), 4, frozenset({"price"}), before) == []
    # (before not known: left out, as before)
    assert plugin._differences(real, pristine, ("argument 0",), 4, frozenset({"price"})) == []


def test_the_library_modules_the_declared_ones_reach_are_put_back():
    import urllib.parse
    from xml.etree import ElementTree

    space = {"__name__": "pkg.stock", "urllib": urllib, "ET": ElementTree, "urljoin": urllib.parse.urljoin,
             "os": __import__("os")}
    reached = dict(plugin._reached_modules([space]))
    assert "urllib.parse" in reached and "xml.etree.ElementTree" in reached
    assert "os" not in reached and "sys" not in reached  # (the interpreter's own: put back elsewhere)
    uses, namespaces = list(urllib.parse.uses_relative), dict(ElementTree._namespace_map)
    saved = []
    for name, names in reached.items():
        saved.append((names, plugin._LibraryNames, plugin._LibraryNames.copy(names)))
        saved += [(v, list, list(v)) for v in names.values() if type(v) is list]
        saved += [(v, dict, dict(v)) for v in names.values() if type(v) is dict]
    urllib.parse.uses_relative.append("beacon")
    ElementTree.register_namespace("beacon", "urn:beacon")
    urllib.parse._beacon_added = 1
    plugin._restore(saved)
    assert urllib.parse.uses_relative == uses and ElementTree._namespace_map == namespaces
    assert not hasattr(urllib.parse, "_beacon_added")
