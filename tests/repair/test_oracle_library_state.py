"""The in-run oracle and the state a module keeps in objects (session 44, honest hunt 16's family A): what a name of
the pristine file holds at module or class level — a ``deque``, an ``OrderedDict``, an ``array``, a ``bytearray``, a
``StringIO``, an ``itertools.count``, a ``SimpleNamespace``, a project class's instance — is saved before the real
call, given back to the pristine call as the real call found it, compared after both, and left as the real call left
it. Before, the pristine call changed such an object a second time (a job popped twice from a work queue, a number
taken twice from a count), so the honest repair's own test failed; and an attribute the pristine call wrote into a
shared instance hid the kept bug's (``instance_overwrite``). The save and put-back are tested directly (with
hypothesis); the harness-level cases are in ``honest16/`` and below."""
from __future__ import annotations

import array
import collections
import io
import itertools
import logging
import queue
import threading
import types
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from beacon.repair.canary_plugin import _Attrs, _Binding, _Library, _Rebound, _restore, _saved_kind
from repotools import case_run, oracle_findings, oracle_run

HERE = Path(__file__).parent


class Stats:
    def __init__(self):
        self.hits, self.log = 0, []


class Slotted:
    __slots__ = ("n",)


def test_what_is_saved_and_how():
    slotted = Slotted()
    slotted.n = 1
    assert [_saved_kind(v) for v in (collections.deque(), collections.OrderedDict(), array.array("d"), bytearray(),
                                     io.StringIO(), io.BytesIO())] == [_Library] * 6
    assert [_saved_kind(v) for v in ([], {}, set(), collections.Counter(), collections.defaultdict(list))] == [
        list, dict, set, dict, dict]
    declared = {id(Stats), id(Slotted)}  # (the classes the declared modules bind)
    assert [_saved_kind(v, declared) for v in (Stats(), slotted, types.SimpleNamespace(a=1),
                                               collections.ChainMap({}), queue.Queue())] == [_Attrs] * 5
    # (an instance of a class no declared module binds, a logger (its level cache fills as it is used), a thread;
    # classes, modules, functions, immutable values, a lock: nothing to save)
    assert [_saved_kind(v, declared) for v in (Stats(), logging.getLogger("x"), threading.Thread(), Stats, types,
                                               len, test_what_is_saved_and_how, (1,), "s", 3, frozenset(), None,
                                               threading.Lock())] == [_Attrs] + [None] * 12
    assert _saved_kind(Stats()) is None


OPS = st.lists(st.tuples(st.sampled_from("apc"), st.integers(-3, 3)), max_size=12)


def _mutate(value, ops):
    for op, n in ops:
        if isinstance(value, collections.OrderedDict):
            if op == "a":
                value[n] = op
            elif op == "p" and value:
                value.popitem(last=n > 0)
            elif n in value:
                value.move_to_end(n, last=n > 0)
        elif isinstance(value, (io.StringIO, io.BytesIO)):
            text = str(n) * (n % 3)
            value.write(text if isinstance(value, io.StringIO) else text.encode())
            if op == "p":
                value.seek(abs(n))
            elif op == "c":
                value.truncate()
        elif op == "a":
            value.append(n % 256)
        elif op == "p" and len(value):
            value.pop()
        elif op == "c" and isinstance(value, collections.deque):
            value.rotate(n)
        elif op == "c":
            del value[:1]


def _state(value):
    if isinstance(value, io.StringIO):
        return value.getvalue(), value.tell()
    if isinstance(value, io.BytesIO):
        return value.getvalue(), value.tell()
    return list(value.items()) if isinstance(value, dict) else list(value)


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["deque", "bounded", "od", "array", "bytearray", "stringio", "bytesio"]),
       first=OPS, second=OPS)
def test_a_library_object_gets_its_state_back_in_place(kind, first, second):
    value = {"deque": collections.deque, "bounded": lambda: collections.deque(maxlen=3),
             "od": collections.OrderedDict, "array": lambda: array.array("i"), "bytearray": bytearray,
             "stringio": io.StringIO, "bytesio": io.BytesIO}[kind]()
    _mutate(value, first)
    saved, was, same = _Library.copy(value), _state(value), id(value)
    _mutate(value, second)
    _restore([(value, _Library, saved)])
    assert _state(value) == was and id(value) == same  # (an OrderedDict's order too)
    assert _Library.copy(value) == saved


def test_an_instance_gets_its_attributes_and_their_contents_back():
    stats, jobs, ns = Stats(), queue.Queue(), types.SimpleNamespace(n=1)
    jobs.put("a")
    saved = [(o, _Attrs, _Attrs.copy(o)) for o in (stats, jobs, ns)]
    log = stats.log
    stats.hits += 2
    stats.log.append("x")
    stats.extra = 1
    jobs.put("b")
    jobs.get()
    ns.n, ns.m = 5, 6
    _restore(saved)
    assert (stats.hits, stats.log, stats.log is log, hasattr(stats, "extra")) == (0, [], True, False)
    assert list(jobs.queue) == ["a"] and vars(ns) == {"n": 1}


def test_a_count_is_given_fresh_to_the_pristine_call_and_the_real_one_back():
    real = itertools.count(1)
    space = {"_numbers": real}
    binding = _Binding(space, "_numbers")
    before = _Rebound.copy(binding)
    assert next(real) == 1  # (the real call took 1)
    after = _Rebound.copy(binding)
    _restore([(binding, _Rebound, before)])  # (the pristine call's start)
    assert space["_numbers"] is not real and next(space["_numbers"]) == 1 and _Rebound.copy(binding) == after
    space["_numbers"] = real  # (``_Names`` puts the real one back first)
    _restore([(binding, _Rebound, after)])
    assert space["_numbers"] is real and next(real) == 2

    class Node:
        ids = itertools.count(7, 2)

    binding = _Binding(Node, "ids")
    saved = _Rebound.copy(binding)
    next(Node.ids)
    _restore([(binding, _Rebound, saved)])
    assert next(Node.ids) == 7


# honest hunt 16's family A (helper 157, on 46a8b99), refused then, passing now; all of them run in case_files
HONEST = ["b25_itertools_count_ids", "b34_module_deque_queue_pop", "b32_module_ordereddict_lru",
          "b66_module_namespace_stats", "b94_module_stringio_log", "b95_module_chainmap_settings",
          "s44_module_instance_counter", "s44_module_list_reached_by_argument"]


@pytest.mark.parametrize("case", HONEST)
def test_honest_repairs_of_defs_that_change_module_objects_pass(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "honest16" / f"{case}.py.txt")
    assert verdict.passed and not verdict.tampered, (verdict.reasons, oracle_findings(run))


# honest hunt 18 (helper 161, on 528c000), refused under this session's first rules: a name rebound to a new object
# where the pristine code changed the old one (or back), a log handler at module level, a cached_property there, an
# enum member or a NamedTuple field read by a changed def; all of honest18/ run in case_files
HONEST_18 = ["b11_deque_rebind", "u03_instance_reset_rebind", "f05_pristine_rebinds_repair_mutates",
             "n01_module_log_handler_counter", "z04_cached_property_read_local", "k10_enum_compare_member",
             "l01_namedtuple_default_field"]


@pytest.mark.parametrize("case", HONEST_18)
def test_honest_hunt_18s_repairs_pass(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "honest18" / f"{case}.py.txt")
    assert verdict.passed and not verdict.tampered, (verdict.reasons, oracle_findings(run))


@pytest.mark.parametrize("case", ["r59_count_in_module_instance", "r59_count_next_method_alias"])
def test_a_count_in_a_module_object_or_as_its_next_is_given_back(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "honest17" / f"{case}.py.txt")
    assert verdict.passed and not verdict.tampered, (verdict.reasons, oracle_findings(run))


# a kept bug the pristine call's write into the shared instance hid (a forged pass on f269790); two kept bugs in a
# module object's state now compared (they failed their tests on f269790 only because the pristine call changed
# the object a second time)
# Red-team round 59 (helper 160, on 528c000): the pristine call, run on the same inner objects, a run-time global
# or a ContextVar after the real call, wrote the right answer where the test read it; each now fails its own test.
@pytest.mark.parametrize("case, tampered", [("s44_instance_overwrite", False), ("s44_instance_state", True),
                                            ("s44_count_state", True), ("r59_nested_module_dict_overwritten", False),
                                            ("r59_module_list_objects_overwritten", False),
                                            ("r59_global_set_at_run_time", False),
                                            ("r59_contextvar_overwritten", False),
                                            ("r59_contextvar_read_by_call", False)])
def test_a_kept_bug_in_a_module_object_is_not_a_pass(tmp_path, case, tampered):
    run, verdict = case_run(tmp_path, HERE / "session44" / f"{case}.py.txt")
    assert not verdict.passed and verdict.tampered is tampered, (verdict.reasons, oracle_findings(run))
    if tampered:
        assert "module data" in oracle_findings(run)


# The test's own stand-ins (honest hunt 17's family A): a call whose pristine version could reach one is not checked
# in the run (the replay still makes it); one the edit plants, compiled under a test file's name, is not the test's,
# and a project module's helper is none either (test_oracle_rebuilt.py: a changed import is still refused).
STAND_INS = ["c118_monkeypatch_spy", "c119_mock_patch_call_count", "c116_class_registry_callbacks",
             "c161_monkeypatched_stdin", "c166_counted_comparisons"]


@pytest.mark.parametrize("case", STAND_INS)
def test_a_call_that_reaches_the_test_s_stand_ins_is_left_to_the_replay(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "honest17" / f"{case}.py.txt")
    assert verdict.passed and not verdict.tampered, (verdict.reasons, oracle_findings(run))
    assert run.oracle_calls["unchecked"] >= 1 and run.replay["ran"], (run.oracle_calls, run.replay)


@pytest.mark.parametrize("case", ["s45_listener_after_module", "s45_class_spy_after_a_clear_scan"])
def test_a_stand_in_is_found_after_a_module_and_after_a_clear_scan(tmp_path, case):
    # (session 45: the scan once lost the test's ids at the first module among the names, and a class's clear
    # verdict is kept only while its members are the same objects)
    run, verdict = case_run(tmp_path, HERE / "honest19" / f"{case}.py.txt")
    assert verdict.passed and not verdict.tampered, (verdict.reasons, oracle_findings(run))
    assert run.oracle_calls["unchecked"] >= 1 and run.replay["ran"], (run.oracle_calls, run.replay)


def test_a_class_is_scanned_again_when_its_members_change():
    from beacon.repair import canary_plugin as plugin
    shadow = plugin._Shadow.__new__(plugin._Shadow)
    shadow._classes_clear, shadow._test_classes, shadow.genuine = {}, {}, None

    class Box:
        size = 3

        def grow(self):
            return self.size + 1

    assert not shadow._class_stand_in(Box, set()) and id(Box) in shadow._classes_clear
    registry: list = []
    Box.listeners = registry  # a class-level list: read again at every call, so the class is no longer kept
    assert not shadow._class_stand_in(Box, set())
    assert id(Box) not in shadow._classes_clear or shadow._classes_clear[id(Box)][1] != tuple(
        map(id, vars(Box).values()))
    registry.append([].append)
    held = {id(registry[0].__self__)}
    assert shadow._class_stand_in(Box, held)  # (a C method of a list the test holds, two levels down)
    assert plugin._fixed_member((1, "a")) and not plugin._fixed_member(([],)) and not plugin._fixed_member([].append)
    assert plugin._fixed_member(dict.fromkeys) and not plugin._fixed_member(Box().grow)


def test_a_stand_in_the_edit_plants_does_not_turn_the_oracle_off(tmp_path):
    pristine = "def total(xs):\n    return sum(xs)\n"
    planted = pristine.replace("    return sum(xs)\n", "    return sum(list(xs))\n") + (
        "\n\n_spy = eval(compile('lambda *a: None', 'tests/test_stock.py', 'eval'))\n")
    given = pristine.replace("sum(xs)", "sum(xs) + 1")
    run, verdict = oracle_run(tmp_path, planted, pristine=pristine, given_text=given,
                              test="from pkg.stock import total\n\n\ndef test_a():\n    assert total([1, 2]) == 3\n",
                              ids=["tests/test_stock.py::test_a"])
    assert verdict.passed and run.oracle_calls["checked"] >= 1, (verdict.reasons, run.oracle_calls)
