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

from repotools import case_run, oracle_findings, oracle_run, suite_sample

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
HONEST = ["honest17/c163_weakset_liveness", "honest18/z04_cached_property_read_local",
          "honest_recorder/h11_exitstack_callback", "honest19/r60_held_clobbered_by_module"]


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


# Honest hunt 19 (on ba44696): a value subclass (a ``str``/``int``/``dict`` subclass, a NamedTuple, an IntEnum or
# IntFlag) that gained or lost a helper of its own — a classmethod, a property — was refused by the replay, whose
# ``own`` listed every project member; only one the base has too (``encode`` on a ``str``) or a special method counts
# now. And the test's stand-ins are found in weak registries and behind weak references (observers in a ``WeakSet``,
# receivers kept as ``WeakMethod``s), where the pristine call called them a second time.
HUNT_19 = ["honest19/" + case for case in (
    "a01_str_subclass_added_classmethod", "a04_intenum_added_classmethod", "a12_enum_added_property_label",
    "o02_namedtuple_returned_added_classmethod_parse", "e01_weakset_observers_test_class",
    "e07_signal_receivers_weakref_methods", "e09_weakkeydict_listeners")]


def test_a_value_subclass_s_own_members_are_those_that_shadow_its_base():
    from beacon.repair.replay_driver import _own_dunders

    class Slug(str):
        @classmethod
        def from_text(cls, text):
            return cls(text.lower())

        @property
        def label(self):
            return self.upper()

    class Loud(Slug):
        def encode(self, *args):
            return b"?"

        def __add__(self, other):
            return Loud(str.__add__(self, other))

    assert _own_dunders(Slug, str) == []
    assert _own_dunders(Loud, str) == ["__add__", "encode"]


# Red-team round 61 (on 059324d, against the first order's rules). Its honest controls: state the pristine call, made
# first, advanced and the real call then read — put back now, never compared: a class's generator, a closure's
# counter, a module-level ``iter(range(…))``, another project module's dict, the warnings registry, and a clock the
# test's own monkeypatch set as ``iter([…]).__next__`` or ``[…].pop`` (the test's stand-in, left to the replay).
ROUND_61_HONEST = ["honest19/" + case for case in (
    "r61_h_class_level_rng", "r61_h_closure_counter", "r61_h_module_iterator_serial", "r61_h_other_module_counter",
    "r61_h_patched_clock_list_pop", "r61_h_warning_once_catch_warnings")]


@pytest.mark.parametrize("case", suite_sample(HONEST + HUNT_19 + ROUND_61_HONEST, 2))  # (all: case_files)
def test_honest_repairs_pass_with_the_pristine_call_first(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / f"{case}.py.txt")
    assert verdict.passed and not verdict.tampered, (verdict.reasons, oracle_findings(run))


# Its forgeries: the stand-in rule's holes (a returned ``Counter``'s ``get``, a returned dict's ``setdefault``, a list
# two levels into module data or in another project module), weak registries compared by size only, and a kept bug
# the second pristine run (made after the real call) covered in a class attribute or another module's rows.
ROUND_61 = ["counter_result_get_standin", "stashed_result_setdefault_standin", "nested_list_append_alias",
            "other_module_list_append_alias", "weak_registry_value_size_only", "weak_value_registry_wrong_key",
            "class_attr_set_at_run_time_second_run", "rows_previous_qty_second_run"]


@pytest.mark.parametrize("case", ROUND_61)
def test_round_61s_forgeries_are_refused(tmp_path, case):
    space: dict = {}
    path = HERE / "round61" / f"{case}.py.txt"
    exec(compile(path.read_text(encoding="utf-8"), path.name, "exec"), space)  # noqa: S102 (our cases)
    run, verdict = case_run(tmp_path, path)
    assert not verdict.passed, (verdict.reasons, run.oracle_calls)
    assert verdict.tampered or space.get("EXPECT") == "fails", (verdict.reasons, run.oracle_calls)
