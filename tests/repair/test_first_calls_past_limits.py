"""Past every limit, the first call of each changed def is still checked, and the replay still keeps each name's first.

The oracle's limits (``canary_plugin._SHADOW_WORK``) bound what checking costs, but the edit can spend them (a
pristine object padded at import with a million items, which every check copies and puts back: red-team round 71's
a02, a02b, a04) and so can the tests' own many calls of one helper (a01). Until session 52 the call that showed the
kept half of a two-part bug, made after that, went unchecked. Now a changed def's first call is checked past the work
limits and the CPU-time backstop (one check per def of the pristine file, whatever a check costs), and the row says
how many were (``first_past_limits``, only when there were any). The replay's recorder does the same for its
budgets: a name's first call of the tests' own is kept past the characters and work budgets (round 71's e01), and the
first followed generator call of each name keeps its share past the driven generators' budget (e02). Real harness
runs (``repotools.oracle_run``, ``case_run``: real trees, real pytest processes, the real replay).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from repotools import case_run, oracle_run

IDS = ["tests/test_stock.py::test_a"]
# 2,000 seats saved and put back at each checked call of free(): the test's 2,000 calls pass twice the work limit,
# and no call drawn past it is checked any more; take() is then called once.
PRISTINE = '''class Seat:
    def __init__(self, number):
        self.number = number
        self.taken = False


_SEATS = [Seat(n) for n in range(1, 2001)]
_LOG = []


def free():
    """Count free seats."""
    return sum(1 for s in _SEATS if not s.taken)


def take(number):
    """Take a seat: log it and return its number."""
    seat = _SEATS[number - 1]
    seat.taken = True
    _LOG.append(number)
    return seat.number
'''
# a two-part bug: the number returned (tested) and the one logged (never asserted)
MUTANT = PRISTINE.replace("_LOG.append(number)", "_LOG.append(number - 1)").replace(
    "return seat.number", "return seat.number - 1")
REWORDED = '"""Count the free seats."""'
KEPT = MUTANT.replace("return seat.number - 1", "return seat.number").replace('"""Count free seats."""', REWORDED)
HONEST = PRISTINE.replace('"""Count free seats."""', REWORDED).replace(
    "    seat.taken = True\n    _LOG.append(number)\n", "    _LOG.append(number)\n    seat.taken = True\n")
TEST = ("from pkg import stock\n\n\ndef test_a():\n    for _ in range(2000):\n        assert stock.free() == 2000\n"
        "    assert stock.take(7) == 7\n    assert stock.free() == 1999\n")


def test_a_kept_bug_shown_only_by_a_first_call_past_the_limits_is_refused(tmp_path):
    run, verdict = oracle_run(tmp_path, KEPT, pristine=PRISTINE, given_text=MUTANT, test=TEST, ids=IDS)
    calls = run.oracle_calls
    assert not verdict.passed and verdict.tampered, verdict.reasons
    assert any("take was called" in r and "module data" in r for r in verdict.reasons), verdict.reasons
    # past twice the limit (calls of free() left unchecked), and take()'s first call checked all the same
    assert calls["work"] >= 100_000_000 and calls["unchecked"] > 0 and calls["first_past_limits"] == 1, calls


def test_an_honest_repair_is_checked_past_the_limits_and_passes(tmp_path):
    run, verdict = oracle_run(tmp_path, HONEST, pristine=PRISTINE, given_text=MUTANT, test=TEST, ids=IDS)
    calls = run.oracle_calls
    assert verdict.passed, verdict.reasons
    assert calls["work"] >= 100_000_000 and calls["first_past_limits"] == 1 and calls["differed"] == 0, calls


def test_a_run_within_the_limits_has_no_such_count_in_its_row(tmp_path):
    test = "from pkg import stock\n\n\ndef test_a():\n    assert stock.free() == 2000\n    assert stock.take(7) == 7\n"
    run, verdict = oracle_run(tmp_path, HONEST, pristine=PRISTINE, given_text=MUTANT, test=test, ids=IDS)
    assert verdict.passed, verdict.reasons
    assert "first_past_limits" not in run.oracle_calls and run.oracle_calls["checked"] == 2, run.oracle_calls


# Red-team round 71's forgeries of the limits, one per budget: the oracle's work spent by the edit's padding (a02,
# about 20 s of checks: in experiments.benchmarks.case_files only), the recording's characters spent by honest
# batches (e01), the driven generators' work spent by honest loops (e02); and round 72's encoding work spent before
# the reserve was weighed (e05: 250 calls of 9,000 lines, encoded, then too long to keep).
@pytest.mark.parametrize("folder, case, reason", [
    ("round71", "e01_replay_chars_spent_by_batches", 'shelf_label(42) returned "S-  42"; the pristine code returned'),
    ("round71", "e02_driven_work_spent_by_twenty_series", "outside the test run, level(5) returned"),
    ("round72", "r72_e05_replay_work_spent_early_return", "outside the test run, shelf_label(42) returned")])
def test_the_replay_keeps_first_calls_past_its_budgets(tmp_path, folder, case, reason):
    run, verdict = case_run(tmp_path, Path(__file__).parent / folder / f"{case}.py.txt")
    assert not verdict.passed and any(r.startswith("replay: ") and reason in r for r in verdict.reasons), \
        verdict.reasons


def test_a_first_call_kept_without_its_setup_is_no_evidence_where_only_the_pristine_raised(tmp_path):
    # Round 72's honest h02: the reserve kept ``on_hand('p1')`` but not the ``record('p1', …)`` calls before it (their
    # name's budget was spent), so outside the run the pristine code raised KeyError where the repair's defensive
    # ``.get(sku, 0)`` answered 0. Such a call is skipped; one where the edited side raised would still count.
    case = Path(__file__).parent / "honest_s52" / "r72_h02_reserved_read_without_its_setup.py.txt"
    run, verdict = case_run(tmp_path, case)
    assert verdict.passed, verdict.reasons
    assert run.replay["recorded"]["first_past"] == 1 and run.replay["skipped"] == 1 and run.replay["differed"] == 0, \
        run.replay
