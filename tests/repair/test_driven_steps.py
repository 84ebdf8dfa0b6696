"""The replay drives a generator as the test drove it (session 42; red-team round 52): what a resume was sent, read
from the frame inside the run; the steps made again by the driver (``next``, ``send``, ``throw``, ``close``, the
arguments as the test had them); exceptions, their classes and tracebacks as call arguments (an ``__exit__``'s)."""
from __future__ import annotations

import json
import sys

from hypothesis import given, settings, strategies as st

from beacon.repair.canary_plugin import _plain, _sent_value
from beacon.repair.replay_driver import _driven, decode
from repotools import oracle_run


def _level(start):
    current = start
    while True:
        change = yield current
        if change is not None:
            current += change


sent_values = st.lists(st.none() | st.integers() | st.text(max_size=4) | st.lists(st.integers(), max_size=3),
                       max_size=12)


@settings(max_examples=80, deadline=None)
@given(sent_values)
def test_what_each_resume_was_sent_is_read_from_the_frame(values):
    seen = []

    def trace(frame, event, arg):
        if event == "call" and frame.f_code is _level.__code__:
            seen.append(_sent_value(frame, frame.f_code))

    generator = _level(0)
    sys.settrace(trace)
    try:
        next(generator)
        for value in values:
            try:
                generator.send(value)
            except TypeError:
                generator = _level(0)  # (a value ``+=`` refuses ended it: start another)
                next(generator)
                seen.append("restarted")
    finally:
        sys.settrace(None)
    # the first resume holds no sent value (the call made the generator); each later one holds exactly what was
    # sent, by identity
    expected = [(False, None)]
    for value in values:
        expected.append((True, value))
    got = [s for s in seen if s != "restarted" and s != (False, None)]
    assert [v for _, v in got] == [v for _, v in expected[1:]][:len(got)]
    assert all(value is sent for (_, value), sent in zip(got, values))
    assert seen[0] == (False, None)


def _restock(stock):
    """A ``contextmanager``-shaped generator: yields the stock dict; rolls it back when the block raises."""
    saved = dict(stock)
    try:
        yield stock
    except KeyError:
        stock.clear()
        stock.update(saved)
        raise


def test_the_driver_makes_each_recorded_step_and_reports_each_outcome():
    steps = [{"do": "send", "value": 3}, {"do": "next", "n": 2}, {"do": "throw", "raise": ["builtins", "ValueError"],
                                                                  "value": ["x"]}]
    done = _driven(_level(5), steps, [5], {}, None)["$steps"]
    assert done[:4] == [{"yield": 5}, {"yield": 8}, {"yield": 8}, {"yield": 8}]
    assert len(done) == 6 and done[4]["raise"] == "builtins:ValueError" and done[4]["message"] == "x"
    # (last: what the generator's code after its last step left in what it yielded last, red-team round 58)
    assert done[5] == {"left": 8, "held": [5, 3, 8, 8, 8]}  # (and each object it yielded or was sent)
    assert _driven(_level(1), [{"do": "close"}, {"do": "send", "value": 1}], [1], {}, None) == {"$steps": [
        {"yield": 1}, {"closed": True}, {"left": 1, "held": [1]}]}  # (no step after a close)


def test_a_step_writes_the_arguments_the_test_had_into_the_live_ones_after_recording_what_they_held():
    stock = {"a": 5}
    # the test's block took 2 of "a" and added "b" before raising KeyError: the rollback restores {"a": 5}
    steps = [{"do": "throw", "raise": ["builtins", "KeyError"], "value": ["zz"],
              "args": [[{"$d": [["a", 3], ["b", 1]]}], {"$d": []}]}]
    done = _driven(_restock(stock), steps, [stock], {}, None)["$steps"]
    assert done[0] == {"yield": {"$d": [["a", 5]]}}
    assert done[1] == {"args": [[{"$d": [["a", 5]]}], {"$d": []}]}  # (what the first step had left)
    assert done[2]["raise"] == "builtins:KeyError"
    assert stock == {"a": 5}
    wrong = {"a": 5}

    def no_rollback(stock):
        yield stock

    _driven(no_rollback(wrong), steps, [wrong], {}, None)
    assert wrong == {"a": 3, "b": 1}  # (the test's changes, kept by a generator that does not roll back)


def test_exceptions_their_classes_and_tracebacks_are_call_arguments():
    try:
        {}["zz"]
    except KeyError as exc:
        caught, traceback = exc, exc.__traceback__
    encoded = _plain([KeyError, caught, traceback, ValueError("a", 2)], [100])
    back = decode(json.loads(json.dumps(encoded)))
    assert back[0] is KeyError and back[2] is None
    assert type(back[1]) is KeyError and back[1].args == ("zz",)
    assert type(back[3]) is ValueError and back[3].args == ("a", 2)


PRISTINE = '''def level(start):
    """A running stock level: send a delivery (or a negative pick) and get the level after it."""
    current = start
    while True:
        change = yield current
        if change is not None:
            current += change
'''
MUTANT = PRISTINE.replace("current += change", "current = change")
REPAIR = PRISTINE.replace("current += change", "current = current + change")  # (honest, written otherwise)
TEST = ("from pkg.stock import level\n\n\ndef test_a():\n    tracker = level(5)\n    assert next(tracker) == 5\n"
        "    assert tracker.send({sent}) == 8\n    assert tracker.send(-2) == 6\n")


def test_a_send_driven_generator_is_recorded_with_its_steps(tmp_path):
    run, verdict = oracle_run(tmp_path, REPAIR, pristine=PRISTINE, given_text=MUTANT, test=TEST.format(sent=3),
                              ids=["tests/test_stock.py::test_a"])
    assert verdict.passed, verdict.reasons
    assert run.replay["recorded"]["driven"] == 1 and run.replay["compared"] == 1, run.replay


def test_a_step_that_is_no_data_cuts_the_steps_and_the_generator_is_drained_as_before(tmp_path):
    # (an object with ``__radd__`` sent: no data; the call is replayed drained, as before session 42)
    test = TEST.format(sent="Three()").replace(
        "def test_a", "class Three:\n    def __radd__(self, other):\n        return other + 3\n\n\ndef test_a")
    run, verdict = oracle_run(tmp_path, REPAIR, pristine=PRISTINE, given_text=MUTANT, test=test,
                              ids=["tests/test_stock.py::test_a"])
    assert verdict.passed, verdict.reasons
    recorded = run.replay["recorded"]
    assert recorded["driven"] == 0 and recorded["steps_cut"] == 1 and recorded["recorded"] == 1, recorded


def test_an_object_the_test_changed_is_written_back_before_the_next_step():
    def collecting():
        box = []
        yield box
        return sorted(box)

    # the test appended to the yielded list before the next resume: the driver records what the list held in the
    # replay (empty), then gives it what the test left
    done = _driven(collecting(), [{"do": "next", "n": 1, "yielded": [3, 1, 2]}], [], {}, None)["$steps"]
    assert done == [{"yield": []}, {"yielded": []}, {"return": [1, 2, 3]}, {"left": [3, 1, 2], "held": [[3, 1, 2]]}]


class _Block:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _inside_a_with():
    with _Block():
        yield 1
    yield 2


def test_a_resume_that_let_an_exception_out_through_a_with_is_told_from_a_yield():
    from beacon.repair.canary_plugin import _suspended

    ends = []

    def trace(frame, event, arg):
        if frame.f_code is _inside_a_with.__code__:
            def local(frame, event, arg):
                if event == "return":
                    ends.append((arg, _suspended(frame, frame.f_code)))
                return local
            return local
        return None

    sys.settrace(trace)
    try:
        generator = _inside_a_with()
        next(generator)
        try:
            generator.throw(ValueError("x"))
        except ValueError:
            pass
        assert list(_inside_a_with()) == [1, 2]
    finally:
        sys.settrace(None)
    # (the thrown exception left at the ``yield``'s own instruction, after the ``with``'s exit ran a line: the
    # generator is not suspended there, as it is after a yield)
    assert ends == [(1, True), (None, False), (1, True), (2, True), (None, False)]


def test_the_written_state_reaches_the_objects_the_generator_holds():
    from beacon.repair.replay_driver import _KEEP, _put

    class Warehouse:
        def __init__(self):
            self.levels = {"bolt": 4}
            self.log = ["opened"]

    live = Warehouse()
    held = live.levels  # (what a generator reads after ``levels = self.levels``)
    wanted = Warehouse()
    wanted.levels, wanted.log = {"bolt": 9, "nut": 1}, ["opened", "counted"]
    _put(live, wanted, 0)
    assert held is live.levels and held == {"bolt": 9, "nut": 1} and live.log == ["opened", "counted"]
    kept = iter([1, 2])
    args = [kept, {"a": 1}]
    from beacon.repair.replay_driver import _written

    _written(args, {}, [[_KEEP, {"a": 5}], {}])  # (an argument no data at the resume stays as it is)
    assert args[0] is kept and args[1] == {"a": 5}


def _picks(order):
    """Yields a record per line, then the total of the records as they stand (they may have been changed since)."""
    records = []
    for sku, qty in order:
        record = {"sku": sku, "qty": qty}
        records.append(record)
        yield record
    yield sum(r["qty"] for r in records)


def _open_lines():
    lines = []
    while True:
        got = yield sum(1 for line in lines if not line.endswith(":done"))
        if got is not None:
            lines = got


def test_a_step_writes_the_test_s_changes_to_earlier_yielded_and_sent_objects():
    # (red-team round 55: the first record changed after the second was yielded; a sent list changed later)
    steps = [{"do": "next", "n": 1}, {"do": "next", "n": 1, "held": [["y1", {"$d": [["sku", "bolt"], ["qty", 1]]}]]}]
    done = _driven(_picks([("bolt", 4), ("nut", 2)]), steps, [[]], {}, None)["$steps"]
    assert done[2] == {"held": "y1", "was": {"$d": [["sku", "bolt"], ["qty", 4]]}} and done[3] == {"yield": 3}
    steps = [{"do": "send", "value": ["bolt", "nut"]}, {"do": "next", "n": 1, "held": [["s0", ["bolt:done", "nut"]]]}]
    done = _driven(_open_lines(), steps, [], {}, None)["$steps"]
    assert [d.get("yield") for d in done] == [0, 2, None, 1, None]
    assert done[-1]["held"] == [0, ["bolt:done", "nut"], 2, 1]
    # a key no step made (a primed generator's first yield, not seen by the driver) writes nothing
    done = _driven(_open_lines(), [{"do": "next", "n": 1, "held": [["y9", []]]}], [], {}, None)["$steps"]
    assert done == [{"yield": 0}, {"yield": 0}, {"left": 0, "held": [0, 0]}]
