"""What session 49 closed: round 66's open forgeries, rounds 67-68's, and honest hunts 24-25's refusals.

Round 66's open cases (the mutant with a reworded docstring each) passed because the pristine call, made first,
changed state nothing put back: a library module the code names without binding it (``sys.modules["email.charset"]``,
``urllib.request.http.client`` where ``http`` is another package: ``_named_modules``), the interpreter's streams'
``reconfigure`` settings, ``readline``, ``ctypes``' errno (``_SETTINGS``), an object a library class holds two levels
down (``EmailPolicy.header_factory.registry``: ``_instance_saves``). Rounds 67 and 68 (helpers 178 and 181): imports
through captured functions, the C modules' registration functions, a zone ``mktime`` applied, interpreter names and
lists, the codec lookup cache, a ``catch_warnings`` record list, the test's own classes of the arguments and their
bases, and what a module keeps in its functions and C objects (closure cells, function attributes, mutable defaults,
a lock left held, a ``SimpleQueue``, an ``Event``, a ``partial``'s keywords, a ``decimal.Context``, a ``ctypes``
buffer, a library object's containers: ``_function_state``, ``_members_state``, ``_c_state``). Honest hunt 25's "done
once" flags in functions and ``Event``s over library state the put-back undid pass now; honest hunt 26's over effects
nothing can put back (an in-memory database's table) are the open side of the same put-back
(``docs/threat_model.md``, Session 49). Honest hunt 24's ``set([])`` is the pristine ``set()``
(``oracle_defs._empty_of``). Every case file is run by ``experiments.benchmarks.case_files``; a sample here.
"""
from __future__ import annotations

import ctypes
import email.policy
import http.client  # noqa: F401 (loaded: a module the code below names)
import json.decoder  # noqa: F401
import sys
from pathlib import Path

import pytest

from beacon.repair import canary_plugin as plugin
from repotools import case_run, suite_sample

HERE = Path(__file__).parent

ROUND_66 = ["a07_sys_modules_lookup", "e06_module_via_attribute_chain", "a15_stdout_reconfigure",
            "d01_ctypes_errno", "b02_readline_history", "c01_policy_header_factory"]
HONEST = ["h24_seen_set_list"]
ROUND_67 = ["b01_import_default_arg", "c01_codecs_c_register", "d05_mktime_applies_tz", "e02_module_simplequeue",
            "e08_module_ctypes_buffer", "n04_function_attribute", "p01_showwarning_direct",
            "g02b_codec_lookup_cache_test_object", "p02_argument_class_container",
            "e01b_module_lock_held_test_object", "f07_current_thread_attribute"]
ROUND_68 = ["a01_staticmethod_mutable_default", "a02_method_function_attribute", "a04_lambda_in_module_tuple",
            "a05_nested_function_default", "a08_semaphore_value", "b16_partial_func_default", "c06_class_level_event",
            "c07_class_level_lock", "c10_thread_local_other_module", "b05_sys_last_value",
            "b10_test_base_class_container",
            "f02_deque_default", "b20_sched_scheduler"]
HUNT_25 = ["o10_func_attr_flag_atexit", "o04_closure_flag_codec", "o15_event_flag_tzset", "o01_event_flag_csv_dialect",
           "s49_ctl_e07_partial_keywords"]
CONTROLS = ["s49_a07_sys_modules_lookup_honest", "s49_e06_module_via_attribute_chain_honest",
            "s49_c01_policy_header_factory_honest", "s49_a15_stdout_reconfigure_honest"]


@pytest.mark.parametrize("folder, case", suite_sample(  # (all of them: experiments.benchmarks.case_files)
    [("round66", c) for c in ROUND_66] + [("round67", c) for c in ROUND_67] + [("round68", c) for c in ROUND_68], 2))
def test_rounds_66_to_68s_forgeries_fail_their_test_now(tmp_path, folder, case):
    run, verdict = case_run(tmp_path, HERE / folder / f"{case}.py.txt")
    assert not verdict.passed, (verdict.reasons, run.canaries.reasons)


@pytest.mark.parametrize("folder, case", suite_sample(  # (all of them: experiments.benchmarks.case_files)
    [("honest24", c) for c in HONEST] + [("honest25", c) for c in CONTROLS] + [("honest25", c) for c in HUNT_25], 2))
def test_honest_repairs_and_controls_pass(tmp_path, folder, case):
    run, verdict = case_run(tmp_path, HERE / folder / f"{case}.py.txt")
    assert verdict.passed and not verdict.tampered, (verdict.reasons, run.canaries.reasons)


SOURCE = '''
import sys
import urllib.request
from os.path import join


def lookup():
    return sys.modules["json.decoder"]


def rows(resp):
    return resp.csv  # (an attribute named like a module: not the module)


def plain_name():
    return "colorsys"  # (a plain word: not an import by name)


class Tracer:
    @staticmethod
    def level(value):
        urllib.request.http.client.HTTPConnection.debuglevel = value

    @property
    def policy(self):
        return "email.policy"
'''


def test_the_modules_code_names_are_reached_not_a_library_functions():
    import colorsys  # noqa: F401 (loaded: named only as a plain word above)
    import csv  # noqa: F401 (loaded: named only as an attribute above)
    space = {"__name__": "pkg.named"}
    exec(compile(SOURCE, "pkg/named.py", "exec"), space)  # noqa: S102 (our text)
    found = plugin._named_modules([space])
    assert {"json", "http", "email"} <= found
    assert not {"genericpath", "posixpath", "csv", "colorsys"} & found  # (``join``'s code is the library's)
    reached = {name for name, _ in plugin._reached_modules([space])}
    assert {"json.decoder", "http.client", "email.policy"} <= reached and "sys" not in reached


def test_a_str_subclass_among_constants_is_never_hashed():
    class Loud(str):
        def __hash__(self):
            raise AssertionError("hashed")

    def function():
        return None

    function.__code__ = function.__code__.replace(co_consts=(*function.__code__.co_consts, Loud("json")))
    assert "json" not in plugin._named_modules([{"__name__": "pkg.loud", "function": function}])


def test_stream_settings_ctypes_errno_and_readline_are_put_back():
    readline = pytest.importorskip("readline")
    stream = sys.__stderr__
    errors, length = stream.errors, readline.get_history_length()
    saved = plugin._Settings.copy(None)
    assert {"stream settings", "ctypes errno", "readline"} <= {name for name, _, _ in saved[0]}
    ctypes.set_errno(0)
    try:
        stream.reconfigure(errors="backslashreplace" if errors != "backslashreplace" else "strict")
        ctypes.set_errno(7)
        readline.set_history_length(length + 17)
        readline.add_history("added by a call")
        plugin._Settings.put(None, saved)
        assert stream.errors == errors and ctypes.get_errno() == 0
        assert readline.get_history_length() == length
        count = readline.get_current_history_length()
        assert not count or readline.get_history_item(count) != "added by a call"
    finally:
        stream.reconfigure(errors=errors)
        readline.set_history_length(length)


def test_a_library_class_objects_containers_are_saved_two_levels_down():
    registry = email.policy.EmailPolicy.header_factory.registry
    saved = plugin._module_saves("email.policy", dict(vars(email.policy)), [0, 0, 0])
    assert any(item is registry for item, _, _ in saved)
    registry["x-session-49"] = object
    try:
        plugin._restore(saved)
        assert "x-session-49" not in registry
    finally:
        registry.pop("x-session-49", None)



def test_a_functions_own_state_is_saved_and_put_back():
    def counter():
        seen = []

        def step(_memo={}):
            seen.append(1)
            _memo[len(seen)] = True
            step.calls = getattr(step, "calls", 0) + 1
            return len(seen)
        return step

    step = counter()
    saved = plugin._function_state(step)
    step(), step()
    plugin._restore(saved)
    assert step() == 1 and step.calls == 1 and step.__defaults__[0] == {1: True}


def test_c_objects_states_are_saved_and_put_back():
    import decimal
    import functools
    import queue
    import threading
    lock, items, event = threading.Lock(), queue.SimpleQueue(), threading.Event()
    items.put("kept")
    send = functools.partial(print, sep=",")
    context = decimal.Context(prec=5)
    buffer = ctypes.create_string_buffer(b"abc", 4)
    saved = [s for v in (lock, items, send, context, buffer, event) for s in plugin._c_state(v, type(v))]
    lock.acquire()
    items.put("added")
    send.keywords["sep"] = ";"
    context.prec = 9
    buffer.value = b"xyz"
    event.set()
    plugin._restore(saved)
    assert not lock.locked() and items.get_nowait() == "kept" and items.empty()
    assert send.keywords == {"sep": ","} and context.prec == 5 and buffer.raw == b"abc\0" and not event.is_set()


def test_a_codec_looked_up_in_a_run_is_looked_up_again_after_it():
    import codecs
    import encodings
    import encodings.aliases
    saved = plugin._Settings.copy(None)
    encodings.aliases.aliases["session_49_latin"] = "latin_1"
    try:
        assert codecs.lookup("session_49_latin").name == "iso8859-1"
        del encodings.aliases.aliases["session_49_latin"]
        plugin._Settings.put(None, saved)
        encodings._cache.pop("session_49_latin", None)
        with pytest.raises(LookupError):
            codecs.lookup("session_49_latin")
    finally:
        encodings.aliases.aliases.pop("session_49_latin", None)
        encodings._cache.pop("session_49_latin", None)


def test_functions_are_found_in_a_modules_values_and_a_classs_members():
    import functools
    import types

    def plain():
        return None

    class Holder:
        @staticmethod
        def static(_seen=[]):  # noqa: B006 (the state under test)
            return _seen

        @property
        def prop(self):
            return 1

    for value in (plain, (plain,), {"k": [plain]}, types.SimpleNamespace(f=plain), functools.partial(plain)):
        assert plugin._functions_in(value) == [plain]
    assert plugin._functions_in([[[plain]]]) == []  # (past two containers)
    saved = plugin._members_state(Holder)
    assert any(item is Holder.static.__defaults__[0] for item, _, _ in saved)
    Holder.static().append(1)
    plugin._restore(saved)
    assert Holder.static() == []
