"""The in-run oracle and state the pristine program keeps (session 43, honest hunt 15): a counter the pristine code
rebinds as it runs keeps its live value during the oracle (it was reset to its literal, and every edit of a def that
bumps one was refused), and a lock of a declared module held across a generator's ``yield`` ends that generator's
check (the pristine generator waited for it forever). The harness-level cases are in ``honest15/``."""
from __future__ import annotations

import ast
import threading

from beacon.repair.canary_plugin import _lock_held
from beacon.repair.oracle_defs import _rebound_when_run, oracle_defs

COUNTERS = '''_issued = 0
_limit = 10


class Ticket:
    issued = 0
    prefix = "T"

    def __init__(self):
        Ticket.issued += 1

    @classmethod
    def reset(cls):
        cls.issued = 0

    def bump(self):
        type(self).seen = 1
        self.__class__.other = 2


def ticket():
    global _issued
    _issued = _issued + 1
    return _issued


def shadow():
    _limit = 3  # (a local: not the module's)
    return _limit
'''


def test_names_the_pristine_code_rebinds_as_it_runs():
    assert _rebound_when_run(ast.parse(COUNTERS)) == {
        ("", "_issued"), ("Ticket", "issued"), ("Ticket", "seen"), ("Ticket", "other")}


def test_such_a_name_is_not_given_its_literal_during_the_oracle():
    edited = COUNTERS.replace("_issued = _issued + 1", "_issued += 1")
    rebound = {(r[0], r[1]) for r in oracle_defs(COUNTERS, edited, COUNTERS, "/x/stock.py")["rebound"]}
    assert ("", "_limit") in rebound and ("Ticket", "prefix") in rebound  # (constants: still their literal)
    assert ("", "_issued") not in rebound and ("Ticket", "issued") not in rebound


def test_a_held_lock_of_a_declared_module_is_seen():
    lock, rlock, condition = threading.Lock(), threading.RLock(), threading.Condition(threading.Lock())
    space = {"_lock": lock, "_rlock": rlock, "_cond": condition, "Holder": type("Holder", (), {"lock": lock})}
    assert not _lock_held([space])
    with lock:
        assert _lock_held([space])
        assert _lock_held([{"Holder": space["Holder"]}])  # (a class attribute)
    with rlock:
        assert not _lock_held([space])  # (this thread's own: the pristine code takes it again)
    with condition:  # (its lock: a plain one here; the default RLock is this thread's)
        assert _lock_held([space])
    taken, release = threading.Event(), threading.Event()

    def hold():
        with rlock:
            taken.set()
            release.wait(5)

    worker = threading.Thread(target=hold)
    worker.start()
    taken.wait(5)
    try:
        assert _lock_held([{"_rlock": rlock}])  # (another thread's)
    finally:
        release.set()
        worker.join()


def test_a_sync_helper_added_under_a_changed_coroutine_is_inside_changed_code(tmp_path):
    # (honest hunt 15: "called from code the edit did not change" for an ``async def``'s, an async generator's and
    # an ``asynccontextmanager``'s new helper; no call of these is plain data, so the replay has none to make)
    from pathlib import Path

    from repotools import case_run

    for case in ("a07_coroutine_new_sync_helper", "a08_async_gen_asend_new_helper", "a04b_async_cm_helper_no_lock"):
        run, verdict = case_run(tmp_path / case, Path(__file__).parent / "honest15" / f"{case}.py.txt")
        assert verdict.passed and not verdict.tampered, (case, verdict.reasons)
