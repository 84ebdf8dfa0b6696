"""experiments/benchmarks/alt_fixes.py: its machinery on real attempts through run_attempt.

Every hand-written variant applies to exactly one place of its task's pristine file; the labels name variants that
exist; a right fix of a control task passes and the exit status is 0; a wrong fix that passes (here: a right fix
labelled wrong for the test) makes the exit status 1, so the benchmark can fail.
"""
from __future__ import annotations

from experiments.benchmarks import alt_fixes as af
from experiments.benchmarks import alt_fixes_variants as variants

CLAMP = "textkit:textkit/numbers.py:9:return_value_swap"


def test_every_label_names_a_variant():
    for key in (*variants.WRONG, *variants.KNOWN, *variants.KNOWN_MISSES, *variants.FAILS_TESTS):
        assert key[1] in variants.ALTS[key[0]], key
    assert set(variants.KNOWN_MISSES) <= set(variants.WRONG)


def test_every_variant_applies_once_to_its_pristine_file(tmp_path):
    found = set()
    for task, resolve in af.load_tasks(tmp_path):  # (the boltons cache is filled by .ci/run, as for the pilot)
        source = resolve(task.repo)
        pristine = source.read_file(task.commit, task.path).decode()  # the task's commit holds the right file
        assert pristine.split("\n")[task.line - 1] == task.repair_line, task.task_id
        for name in variants.ALTS.get(task.task_id, {}):
            assert af.apply_variant(task.task_id, name, pristine) != pristine, (task.task_id, name)
            found.add(task.task_id)
    assert found == set(variants.ALTS)


def test_a_right_fix_passes_and_a_passing_wrong_fix_fails_the_benchmark(tmp_path, monkeypatch, capsys):
    assert af.main(["--only", f"{CLAMP}/known_repair,{CLAMP}/minmax"]) == 0
    out = capsys.readouterr().out
    assert "known_repair" in out and "minmax" in out and "verdicts: ok 2" in out, out
    monkeypatch.setitem(variants.WRONG, (CLAMP, "minmax"), "labelled wrong for this test")
    assert af.main(["--only", f"{CLAMP}/minmax"]) == 1
    assert f"not as labelled: {CLAMP}/minmax" in capsys.readouterr().out
