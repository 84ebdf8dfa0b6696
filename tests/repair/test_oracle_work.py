"""The oracle's limits count work, not seconds: a run past them checks the same calls on a loaded machine.

Until session 51 the oracle of calls stopped checking after 5 s of checking (one call in 8 past it, none past 10 s)
and drew the calls it still checked from ``os.urandom``: on a busier or slower machine the same repair had other
calls checked, other counts in its row, and sometimes another verdict (honest hunt 19's d03, refused only under
load). Now the limits count the work the checks do (``canary_plugin._WORK``: values walked, compared, put back,
encoded) and the draws come from the harness's sampling key. Real harness runs (``repotools.oracle_run``: a real
tree, real pytest processes); the load is two real busy processes.
"""
from __future__ import annotations

import subprocess
import sys

from repotools import oracle_run

IDS = ["tests/test_stock.py::test_a"]
# A module list of 200 objects and a dict of 200 keys, saved and put back at each checked call: about 150,000 units
# a call, so 500 calls pass the work limit (50 million) after some 320 and are then drawn one in 8.
PRISTINE = '''class Seat:
    def __init__(self, number):
        self.number = number
        self.taken = False


_SEATS = [Seat(n) for n in range(1, 201)]
_INDEX = {n: n * 2 for n in range(200)}


def free():
    """Count free seats."""
    return sum(1 for s in _SEATS if not s.taken)
'''
MUTANT = PRISTINE.replace("if not s.taken", "if s.taken")
REWORDED = PRISTINE.replace('"""Count free seats."""', '"""Count the free seats."""')
TEST = "from pkg import stock\n\n\ndef test_a():\n    for _ in range(500):\n        assert stock.free() == 200\n"


def _counts(tmp_path):
    run, verdict = oracle_run(tmp_path, REWORDED, pristine=PRISTINE, given_text=MUTANT, test=TEST, ids=IDS)
    assert verdict.passed, verdict.reasons
    return {k: v for k, v in run.oracle_calls.items() if k != "seconds"}, run.oracle_calls["seconds"]


def test_a_run_past_the_limits_checks_the_same_calls_under_load(tmp_path):
    alone, alone_s = _counts(tmp_path / "alone")
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        loaded, loaded_s = _counts(tmp_path / "loaded")
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    # past the work limit (some calls not checked), the draws past it made, and all of it the same under load
    assert alone["unchecked"] > 0 and alone["checked"] > 300 and alone["work"] >= 50_000_000, alone
    assert loaded == alone, (alone, loaded, alone_s, loaded_s)
