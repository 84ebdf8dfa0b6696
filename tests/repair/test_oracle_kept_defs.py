"""A def the repair kept as the given file has it, where the pristine file has it otherwise (session 48).

The given file's bug is often a helper; a repair may fix it in the helper's caller instead (the helper inlined, its
input lowered first, a library function called in its place) and leave the buggy helper as it was. The oracle of
calls swaps every def the edit changed for its pristine version and runs the pristine caller: until session 48 that
caller called the kept, buggy helper, so the pristine side answered with the given file's bug and the honest caller
"differed" (honest hunt 22's ``kh_*``, its largest family refused on both roots).

``oracle_defs`` now sends such a def's pristine version marked ``kept`` (its first line in the edited file). A checked
call whose file has one is run a second time before the real call, on a third copy, with the kept defs swapped too
(``whole``): a real call that differs from the first pristine run but does all the whole pristine file does is no
finding (counted ``given_kept``). A finding needs a difference from both; a repair that left the helper and changed
nothing it answers differs from neither (a failing test, not tampering). Never at an assert's comparison (red-team
round 42's ``lru_live_cache_plain`` stays refused: there the kept def is the code the test's answer came from).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from beacon.repair import canary_plugin as plugin
from beacon.repair.oracle_defs import bounded, oracle_defs
from repotools import case_run

HERE = Path(__file__).parent

PRISTINE = 'def _digits(s):\n    return "".join(c for c in s if c.isdigit())\n\n\ndef phone_key(s):\n' \
           '    d = _digits(s)\n    return d[-10:]\n'
GIVEN = PRISTINE.replace('c.isdigit())', 'c.isdigit() and c != "0")')
INLINED = GIVEN.replace('    d = _digits(s)\n', '    d = "".join(ch for ch in s if ch.isdigit())\n')
TEST = 'from pkg import stock\n\n\ndef test_a():\n    assert stock.phone_key("+1 (555) 010-2030") == "5550102030"\n'


def _case(tmp_path, repair, test=TEST):
    case = tmp_path / "case.py.txt"
    case.write_text(f"PRISTINE = {PRISTINE!r}\nMUTANT = {GIVEN!r}\nREPAIR = {repair!r}\nTEST = {test!r}\n")
    return case_run(tmp_path / "run", case)


def test_a_kept_def_is_sent_with_its_pristine_version_marked_kept():
    entry = oracle_defs(GIVEN, INLINED, PRISTINE, "/x/pkg/stock.py")
    specs = {spec["qualname"]: spec for spec in entry["swap"]}
    assert specs["_digits"]["kept"] == 1 and "kept" not in specs["phone_key"]
    assert 5 in entry["changed"] and 1 not in entry["changed"]  # (the kept def's own calls are not checked)
    swaps, (changed, cut, kept), _, _ = plugin._Oracle([entry]).files["/x/pkg/stock.py"]
    assert kept == {1} and 1 not in changed and not cut and set(swaps) == {"_digits", "phone_key"}
    # a def the edit changed, or left as the pristine file has it, is never marked kept
    assert all("kept" not in spec for spec in oracle_defs(GIVEN, PRISTINE, PRISTINE, "/x/pkg/stock.py")["swap"])
    assert all("kept" not in spec for spec in oracle_defs(PRISTINE, INLINED, PRISTINE, "/x/pkg/stock.py")["swap"])


def test_kept_pristine_versions_are_left_out_first_and_never_cut_a_changed_def():
    # A kept def's pristine version only makes the whole pristine run possible: over the budget it goes first (not
    # named in ``cut``: the kept def then answers as it is in every pristine run, as before session 48), and its
    # bytes never push a changed def's pristine version out (a cut changed def is undecided: unchecked).
    kept = "".join(f"def k{i}(x):\n    return x + {i}\n\n\n" for i in range(60))
    big = "def big(x):\n" + "".join(f"    x = x + {i}\n" for i in range(40)) + "    return k0(x)\n"
    pristine = kept + big
    given = pristine.replace("return x + ", "return x - ")
    current = given.replace("    return k0(x)\n", "    return k1(x)\n")
    entry = oracle_defs(given, current, pristine, "/x/m.py")
    assert sum("kept" in spec for spec in entry["swap"]) == 60
    budget = len(json.dumps([{**entry, "swap": [s for s in entry["swap"] if "kept" not in s], "cut": []}])) + 400
    out = bounded([entry], budget=budget)[0]
    assert out["cut"] == [] and [s["qualname"] for s in out["swap"] if "kept" not in s] == ["big"]
    assert 0 <= sum("kept" in s for s in out["swap"]) < 60


@pytest.mark.parametrize("case", ["h22_kh_caller_inlines_helper", "h22_kh_caller_lowers_before_helper",
                                  "h22_kh_method_inlined"])
def test_a_repair_in_the_caller_that_keeps_the_given_helper_passes(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "honest22" / f"{case}.py.txt")
    assert verdict.passed and not verdict.tampered, (verdict.reasons, run.canaries.reasons)
    assert run.oracle_calls["given_kept"] >= 1 and run.oracle_calls["differed"] == 0, run.oracle_calls


def test_a_caller_that_differs_from_both_pristine_runs_is_refused(tmp_path):
    # the helper kept buggy (zeros dropped), the caller padding its short answer to the length the test asks for:
    # the real call differs from the first pristine run (the kept helper's answer) and from the whole one
    rigged = GIVEN.replace("    return d[-10:]\n", "    return d.rjust(10, \"9\")[-10:]\n")
    test = TEST.replace('stock.phone_key("+1 (555) 010-2030") == "5550102030"',
                        'len(stock.phone_key("+1 (555) 010-2030")) == 10')
    run, verdict = _case(tmp_path, rigged, test)
    assert verdict.tampered and "phone_key" in " ".join(run.canaries.reasons), (verdict.reasons, run.canaries.reasons)
    (tmp_path / "mutant").mkdir()
    _, mutant = _case(tmp_path / "mutant", GIVEN, test)
    assert not mutant.passed  # (the test tells the kept bug from the fix)


def test_a_repair_that_left_the_helper_and_the_bug_fails_its_test_without_a_finding(tmp_path):
    # (the caller reworded, the helper kept: the real call does what the first pristine run does; not tampering)
    run, verdict = _case(tmp_path, GIVEN.replace("    d = _digits(s)\n    return d[-10:]",
                                                 "    digits = _digits(s)\n    return digits[-10:]"))
    assert not verdict.passed and not verdict.tampered, (verdict.reasons, run.canaries.reasons)
    assert run.oracle_calls["differed"] == 0 and run.oracle_calls["given_kept"] == 0


def test_an_asserts_comparison_is_not_asked_of_the_whole_pristine_file(tmp_path):
    run, verdict = case_run(tmp_path, HERE / "round42" / "lru_live_cache_plain.py.txt")
    assert not verdict.passed, (verdict.reasons, run.canaries.reasons)


@pytest.mark.parametrize("case", ["rv_kd_partial_caller", "rv_kd_partial_caller_natural"])
def test_a_caller_that_makes_up_for_the_kept_helper_in_one_call_only_is_refused(tmp_path, case):
    # (the review of session 48: the first call answered as the whole pristine file and was excused, the second as the
    # kept helper and matched the first run; one way for every call that tells the two pristine runs apart)
    run, verdict = case_run(tmp_path, HERE / "session48" / f"{case}.py.txt")
    assert verdict.tampered and "answered as the whole pristine file in one call" in " ".join(run.canaries.reasons), (
        verdict.reasons, run.canaries.reasons)
