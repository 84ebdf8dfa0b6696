"""State a pristine run may change outside the saved data is put back after it (session 46, red-team round 62).

The in-run oracle's pristine call, made first, runs in the test's process: whatever it changed and nothing put back
reached the real call and the test. Red-team round 62 forged 36 passes that way, 20 of them the mutant with a reworded
docstring (the pristine call made the setting the kept bug omits: an environment variable, a ``ContextVar``,
``decimal``'s precision, a ``csv`` dialect, a logger's level, a ``sys.modules`` entry, another project module's
scalar, class attribute or instance, a class-level list put back by identity), and its honest controls were refused
when the pristine call counted a second time. Those are put back now (``_Shadow._restored_only``: ``_Registries``,
``_Environment``, ``_ThreadLocal``, ``_Cycle``, ``_Mapping``, ``_PutBackAttrs``; a ``ContextVar`` is set in a copy
of the context), and four holes of the stand-in rule are closed (a mock by its code, not its module's name; a
library function among the arguments is no test callback; stand-ins only under pristine names; what checked calls
returned held until the test ends; a weak reference the deep copy shares). Every case file is run by
``experiments.benchmarks.case_files``; a sample here.
"""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from beacon.repair import canary_plugin as plugin
from repotools import case_run

HERE = Path(__file__).parent

# the kept bug omits a setting the pristine call, made first, used to make for it: now its own test fails
# (a sample: every case file is run by ``experiments.benchmarks.case_files``; the suite's ten minutes are shared)
FAILS = ["env_omitted_write", "contextvar_omitted_direct", "other_module_scalar_omitted",
         "classnames_runtime_list_identity"]
# the stand-in rule turned every check off: now the oracle's check runs and refuses the kept bug
REFUSED = ["standin_namedtuple_kwargs", "standin_library_function_injected_pristine"]
HONEST = ["r62_h_other_module_scalar_counter_honest", "r62_h_argument_weakref_totals_honest",
          "h20_a10_added_attr_cache_on_self"]
HONEST_19 = ["r61_h_environ_flag", "r61_h_module_cycle_round_robin"]


@pytest.mark.parametrize("case", FAILS)
def test_a_setting_the_kept_bug_omits_is_no_longer_made_for_it(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "round62" / f"{case}.py.txt")
    assert not verdict.passed, (verdict.reasons, run.oracle_calls)
    assert [tc.outcome for tc in run.report.testcases if tc.name == "test_a"] == ["failed"]


@pytest.mark.parametrize("case", REFUSED)
def test_the_stand_in_rule_no_longer_turns_the_check_off(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "round62" / f"{case}.py.txt")
    assert verdict.tampered and not verdict.passed, (verdict.reasons, run.oracle_calls)
    assert "oracle:" in " ".join(verdict.reasons)


@pytest.mark.parametrize("case", HONEST + HONEST_19)
def test_honest_repairs_beside_such_state_pass(tmp_path, case):
    folder = "honest20" if case in HONEST else "honest19"
    run, verdict = case_run(tmp_path, HERE / folder / f"{case}.py.txt")
    assert verdict.passed, (verdict.reasons, run.oracle_calls)
    # (a weak reference among the arguments makes the call uncopyable: left unchecked, not checked twice)
    assert run.oracle_calls["checked" if "weakref" not in case else "unchecked"] >= 1, run.oracle_calls


@settings(max_examples=80, deadline=None)
@given(items=st.lists(st.integers(), min_size=1, max_size=6), before=st.integers(0, 15), during=st.integers(0, 15),
       source=st.sampled_from(["list", "tuple", "range"]))
def test_a_cycle_is_put_back_where_it_was(items, before, during, source):
    made = {"list": lambda: iter(list(items)), "tuple": lambda: iter(tuple(items)),
            "range": lambda: iter(range(len(items)))}[source]
    cycle, twin = itertools.cycle(made()), itertools.cycle(made())
    for _ in range(before):
        next(cycle)
        next(twin)
    saved = plugin._Cycle.copy(cycle)
    for _ in range(during):  # (what a pristine call takes)
        next(cycle)
    plugin._Cycle.put(cycle, saved)
    if before < len(items) <= before + during:
        return  # (its source ran out during the pristine call: a first pass cannot be begun again; documented)
    assert [next(cycle) for _ in range(2 * len(items))] == [next(twin) for _ in range(2 * len(items))]


def test_the_process_wide_registries_are_put_back(monkeypatch):
    import copyreg
    import csv
    import decimal
    import logging
    import sys
    import types

    logger = logging.getLogger("beacon.tests.registries")
    level = logger.level
    saved = plugin._Registries.copy(plugin._Registries)
    precision = decimal.getcontext().prec
    try:
        csv.register_dialect("beacon_test_dialect", delimiter=";")
        copyreg.pickle(types.SimpleNamespace, lambda ns: (types.SimpleNamespace, ()))
        sys.modules["beacon_test_alias"] = types.ModuleType("beacon_test_alias")
        decimal.getcontext().prec = 5
        logger.setLevel(logging.DEBUG)
    finally:
        plugin._Registries.put(plugin._Registries, saved)
    assert "beacon_test_dialect" not in csv.list_dialects()
    assert types.SimpleNamespace not in copyreg.dispatch_table
    assert "beacon_test_alias" not in sys.modules
    assert decimal.getcontext().prec == precision and logger.level == level


def test_the_environment_is_put_back(monkeypatch):
    monkeypatch.delenv("BEACON_TEST_FLAG", raising=False)
    monkeypatch.setenv("BEACON_TEST_KEPT", "1")
    saved = plugin._Environment.copy(plugin._Environment)
    import os

    os.environ["BEACON_TEST_FLAG"] = "x"
    del os.environ["BEACON_TEST_KEPT"]
    plugin._Environment.put(plugin._Environment, saved)
    assert "BEACON_TEST_FLAG" not in os.environ and os.environ["BEACON_TEST_KEPT"] == "1"
    assert os.getenv("BEACON_TEST_FLAG") is None
