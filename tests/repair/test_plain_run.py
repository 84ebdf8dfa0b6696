"""The plain run: after a full run whose tests all pass, the tests run again with no pristine call in the process.

The in-run oracle of calls makes each call of changed code with the pristine code first, in the test's own process;
what that call leaves where no put-back reaches (here a file descriptor's offset) can make a kept bug's test pass.
The plain run (``pytest_runner._plain_run``) is a second pytest process with every layer but the oracle of calls, and
``verify_run`` passes a run only when both pass. Real harness runs throughout (``repotools.oracle_run``: a real tree,
real pytest processes, the sandbox off).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from repotools import case_run, oracle_run

from beacon.repair.pytest_runner import plain_evidence, verify_run

IDS = ["tests/test_stock.py::test_a"]

# Red-team round 67's a02 (round67/open until session 50): the pristine ``rewind`` moves the test's descriptor to its
# first byte; the kept bug's ``SEEK_CUR`` moves nothing, so in the full run the test reads what the pristine call set up.
PRISTINE = '''import os


def rewind(fd):
    """Move a journal descriptor back to its first byte."""
    os.lseek(fd, 0, os.SEEK_SET)
'''
MUTANT = PRISTINE.replace("os.SEEK_SET", "os.SEEK_CUR")
KEPT_BUG = MUTANT.replace("Move a journal descriptor back to its first byte.",
                          "Put the offset of a journal descriptor back at its start.")
FIXED = PRISTINE.replace("os.lseek(fd, 0, os.SEEK_SET)", "os.lseek(fd, 0, 0)")
TEST = ("import os\n\nfrom pkg import stock\n\n\ndef test_a(tmp_path):\n"
        "    fd = os.open(tmp_path / 'j', os.O_RDWR | os.O_CREAT)\n    os.write(fd, b'hello')\n"
        "    stock.rewind(fd)\n    assert os.read(fd, 5) == b'hello'\n    os.close(fd)\n")


def _run(tmp_path, source, **options):
    return oracle_run(tmp_path, source, pristine=PRISTINE, given_text=MUTANT, test=TEST, ids=IDS, **options)


def test_a_kept_bug_the_pristine_call_covered_fails_in_the_plain_run(tmp_path):
    run, verdict = _run(tmp_path, KEPT_BUG)
    # the full run alone passes: its tests, its canaries and the oracle's comparisons say nothing against it
    assert run.report is not None and run.exit_code == 0 and run.canaries.ok
    assert all(tc.outcome == "passed" for tc in run.report.testcases)
    assert run.oracle_calls["checked"] >= 1
    # the plain run fails the test as the mutant does: a test failure, not tampering
    assert run.plain is not None and run.plain.exit_code != 0
    assert not verdict.passed and not verdict.tampered
    assert any(r.startswith("plain run (no pristine code in the process): ") and "b'hello'" in r
               for r in verdict.reasons), verdict.reasons
    # (no replay after a plain run that failed: the verdict is already made)
    assert not run.replay.get("ran")
    evidence = plain_evidence(run, IDS)
    assert evidence["ran"] and not evidence["passed"] and not evidence["tampered"]
    assert evidence["outcomes"] == {"failed": 1} and evidence["exit_code"] == 1


def test_an_honest_repair_passes_both_runs(tmp_path):
    run, verdict = _run(tmp_path, FIXED)
    assert verdict.passed, verdict.reasons
    assert run.plain is not None and verify_run(run.plain, IDS).passed
    assert run.plain.oracle_calls == {} and run.oracle_calls["checked"] >= 1
    assert run.replay.get("ran")  # the replay follows a plain run that passed
    assert plain_evidence(run, IDS) == {"ran": True, "passed": True, "tampered": False, "outcomes": {"passed": 1},
                                        "exit_code": 0, "timed_out": False, "canaries_ok": True,
                                        "integrity_violations": 0, "limits_hit": []}
    # its report is kept beside the full run's
    assert (tmp_path / "report" / "junit.xml").is_file() and (tmp_path / "report" / "plain" / "junit.xml").is_file()


def test_no_plain_run_after_a_failing_run_or_without_the_oracle_of_calls(tmp_path):
    run, verdict = _run(tmp_path / "mutant", MUTANT)
    assert not verdict.passed and run.plain is None and plain_evidence(run, IDS) == {"ran": False}
    assert not any(r.startswith("plain run") for r in verdict.reasons)
    run, verdict = _run(tmp_path / "no-calls", FIXED, calls=False)
    assert verdict.passed and run.plain is None


# Red-team round 69's p10, in short: the repair rewrites its own file at import. Without the sandbox the checkout is
# writable, and the plain run and the replay would import the rewritten text, not the one scored.
SELF_REWRITE = PRISTINE + '''

with open(__file__) as _fh:
    _TEXT = _fh.read()
with open(__file__, "w") as _fh:
    _fh.write(_TEXT + "\\n# rewritten\\n")
'''


def test_a_declared_source_rewritten_during_the_run_is_put_back_and_refused(tmp_path):
    run, verdict = _run(tmp_path, SELF_REWRITE)
    assert not verdict.passed and run.plain is None  # (an integrity violation: no plain run in a changed checkout)
    assert run.integrity_violations == ("changed during the run: pkg/stock.py (a declared source; put back)",)
    assert (tmp_path / "repo" / "pkg" / "stock.py").read_text(encoding="utf-8") == SELF_REWRITE


def test_what_a_test_writes_into_the_checkout_is_gone_before_the_plain_run(tmp_path):
    # An honest suite that writes next to its tests (possible only without the sandbox): each run starts from the
    # checkout as it was, so the file and folder the full run made are not there for the plain run (``os.mkdir``
    # would raise).
    test = ("import os\n\nfrom pkg import stock\n\n\ndef test_a(tmp_path):\n    assert not os.path.exists('out.txt')\n"
            "    os.mkdir('made')\n"
            "    with open('out.txt', 'w') as fh:\n        fh.write('x')\n    os.symlink('out.txt', 'link.txt')\n"
            "    fd = os.open(tmp_path / 'j', os.O_RDWR | os.O_CREAT)\n    os.write(fd, b'hello')\n"
            "    stock.rewind(fd)\n    assert os.read(fd, 5) == b'hello'\n")
    run, verdict = oracle_run(tmp_path, FIXED, pristine=PRISTINE, given_text=MUTANT, test=test, ids=IDS)
    assert verdict.passed, verdict.reasons
    assert run.plain is not None and verify_run(run.plain, IDS).passed
    assert not (tmp_path / "repo" / "out.txt").exists() and not (tmp_path / "repo" / "link.txt").is_symlink()
    assert not (tmp_path / "repo" / "made").exists()  # (the review's c3: the plain run made it again)


# Forged passes of red-team rounds 62-69 (open until session 50) that the plain run refuses: state a pristine call
# left where no put-back reaches, in the full run — the mutant with a reworded docstring each —, (round 69) what
# the comparisons' oracle's pristine code left at an assert, which the plain run once kept on, and (round 70) a kept
# bug that behaved only where hash randomization is off (the full run's ``PYTHONHASHSEED=0``; the plain run's seed
# comes from the pristine files) or copied a line into folders the restore once left. One per family here
# (about a second each); every one runs in ``python -m experiments.benchmarks.case_files``.
CLOSED = [("round62", "deep_five_levels_omitted"), ("round64", "event_loop_callback"),
          ("round66", "e35_zoneinfo_clear_cache"), ("round67", "d03_preload_library_module"),
          ("round68", "b19_mmap_anonymous"), ("round68", "c12_abc_register_numbers"),
          ("round69", "p05_checkout_ledger_survives"), ("round69", "p15_statement_registry_approx"),
          ("round69", "p16_cmp_oracle_other_module_list"), ("session50", "rv_c1_eq_outside_assert_pristine_rewind"),
          ("session50", "rv_c4_import_preloaded_by_the_oracle"), ("round70", "a10_hash_seed_test_object"),
          ("round70", "a20_hash_seed_partial_unnamed"), ("round70", "a05_folders_survive_restore"),
          ("session51", "rv_f01_fchmod_mode_survives_restore")]


@pytest.mark.parametrize("folder, case", CLOSED)
def test_what_pristine_code_left_in_the_full_run_passes_no_kept_bug(tmp_path, folder, case):
    run, verdict = case_run(tmp_path, Path(__file__).parent / folder / f"{case}.py.txt")
    assert not verdict.passed and not verdict.tampered
    assert run.plain is not None and any(r.startswith("plain run (no pristine code in the process): ")
                                         for r in verdict.reasons), verdict.reasons


def test_a_make_like_rebuild_passes_both_runs(tmp_path):
    # The session 51 review's h03: the test rebuilds an artifact older than its source; the restore put the rebuilt
    # one back with a new modification time, so in the plain run it looked fresh and the test failed. Modes and times
    # are put back now.
    run, verdict = case_run(tmp_path, Path(__file__).parent / "honest_s51" / "rv_h03_make_like_rebuild.py.txt")
    assert verdict.passed and run.plain is not None and plain_evidence(run, IDS)["passed"], verdict.reasons
