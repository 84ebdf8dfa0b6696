"""The in-run oracle makes the pristine call before the real one (session 45, red-team round 60).

Made after the real call, on the same process and file system, the pristine call wrote the right answer over the kept
bug's wrong one wherever nothing saved and put back what it wrote (a file, a logger's level, another module's rows, an
object past the saved depth): the mutant with a new docstring passed, with no run detection at all (any edit of the def
turned the check on, and the check repaired the state the test then read). Made first, from the state the real call
finds, and with the saved state put back for the real call, what it writes there is written over by the real call:
the kept bug fails the test as the mutant does. A generator's resumes are advanced the same way (a ``throw()`` at its
first exception event, where the exception thrown in is known and none of the generator's own code has run).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from repotools import case_run, oracle_findings, oracle_run

HERE = Path(__file__).parent

# a sample of round 60's overwrite family (all of it in ``experiments.benchmarks.case_files``): each now fails its own
# test, as the mutant does
FAILS = ["file_rewritten_by_pristine_call", "logger_level_reset_by_pristine_call", "other_module_rows_overwrite",
         "nested_fourth_level_overwrite", "s45_gen_step_file_overwrite", "s45_contextmanager_throw_overwrite"]


@pytest.mark.parametrize("case", FAILS)
def test_the_pristine_call_no_longer_repairs_the_kept_bug(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "round60" / f"{case}.py.txt")
    assert not verdict.passed, (verdict.reasons, run.oracle_calls)
    failed = [tc for tc in run.report.testcases if tc.outcome != "passed" and tc.name == "test_a"]
    assert failed, [(tc.name, tc.outcome) for tc in run.report.testcases]
    assert run.oracle_calls["checked"] >= 1, run.oracle_calls  # (the check ran: it is its order that changed)


# a C method is a stand-in of the test's only when it can change its receiver and the declared modules do not hold
# that receiver themselves (round 60 turned every check off through ``_push = _PENDING.append`` and ``out.get``)
@pytest.mark.parametrize("case", ["held_module_list_append_alias", "stashed_result_method_standin"])
def test_a_module_s_own_list_or_a_read_only_method_is_no_stand_in(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "round60" / f"{case}.py.txt")
    assert verdict.tampered and "module data" in oracle_findings(run), (verdict.reasons, run.oracle_calls)


# honest repairs the first order refused: a weak registry the pristine call put its copies in (saved and put back
# now, compared by size), an unchanged ``cached_property`` def the pristine call needed before any real call filled
# its cache (it was taken for a def the edit replaced), and an ``ExitStack`` callback (honest_recorder's open case)
@pytest.mark.parametrize("case", ["honest17/c163_weakset_liveness", "honest18/z04_cached_property_read_local",
                                  "honest_recorder/h11_exitstack_callback", "honest19/r60_held_clobbered_by_module"])
def test_honest_repairs_pass_with_the_pristine_call_first(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / f"{case}.py.txt")
    assert verdict.passed and not verdict.tampered, (verdict.reasons, oracle_findings(run))


PRISTINE = '''import json


def save_counts(path, counts):
    """Write the counted quantities as JSON."""
    path.write_text(json.dumps({sku: int(n) for sku, n in counts.items()}, sort_keys=True))
'''
TEST = ("import json\n\nfrom pkg import stock\n\n\ndef test_a(tmp_path):\n    out = tmp_path / 'counts.json'\n"
        "    stock.save_counts(out, {'a1': 7, 'b2': 3})\n"
        "    assert json.loads(out.read_text()) == {'a1': 7, 'b2': 3}\n")


def test_a_file_both_calls_write_alike_passes_and_the_kept_bug_does_not(tmp_path):
    mutant = PRISTINE.replace("int(n) for sku", "int(n) - 1 for sku")
    honest = mutant.replace("{sku: int(n) - 1 for sku, n in counts.items()}",
                            "dict((sku, int(n)) for sku, n in counts.items())")
    run, verdict = oracle_run(tmp_path / "honest", honest, pristine=PRISTINE, given_text=mutant, test=TEST,
                              ids=["tests/test_stock.py::test_a"])
    assert verdict.passed and run.oracle_calls["checked"] == 1, (verdict.reasons, run.oracle_calls)
    kept = mutant.replace('"""Write the counted quantities as JSON."""', '"""Write the counts as JSON."""')
    run, verdict = oracle_run(tmp_path / "kept", kept, pristine=PRISTINE, given_text=mutant, test=TEST,
                              ids=["tests/test_stock.py::test_a"])
    assert not verdict.passed and run.oracle_calls["checked"] == 1, (verdict.reasons, run.oracle_calls)
