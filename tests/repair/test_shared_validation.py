"""A sweep's jobs share each task's validation: one verdict per key, the same rows as validating in every job."""
from __future__ import annotations

import dataclasses
import json
import logging
import multiprocessing
import os
import sys
import time
from pathlib import Path

import pytest

from beacon.data import load_manifest, repo_resolver
from beacon.repair.control import make_control_repo
from beacon.repair.limits import Limits
from beacon.repair.prepare import RunSettings, prepare_task
from beacon.repair.sandbox import find_bwrap
import beacon
from beacon.repair.pytest_setup import PASSTHROUGH_ENV
from beacon.repair.shared_validation import (FIELDS, SharedValidation, harness_digest, installed_digest, key_inputs,
                                             tree_digest, validation_key)

BWRAP, WHY_NO_BWRAP = find_bwrap()
SETTINGS = RunSettings(allow_local_execution=True, timeout_s=20, sandbox="required")
VERDICT = {"sandboxed": True, "baseline": {"exit_code": 0, "ids": 2}, "mutant": {"exit_code": 1, "failing_ids": ["t::a"]},
           "original_ids": ["t::a", "t::b"], "invalid_reason": None}


@pytest.fixture(scope="module")
def control(tmp_path_factory):
    root = tmp_path_factory.mktemp("control")
    _, manifest = make_control_repo(root)
    resolve = repo_resolver(root / "repos")
    return resolve, load_manifest(manifest, resolve_repo=resolve)


class Calls:
    def __init__(self, verdict=VERDICT):
        self.n, self.verdict = 0, verdict

    def __call__(self) -> dict:
        self.n += 1
        return json.loads(json.dumps(self.verdict))


def test_the_key_names_the_task_the_settings_and_the_harness(control):
    _, tasks = control
    base = validation_key(key_inputs(tasks[0], SETTINGS))
    assert base == validation_key(key_inputs(tasks[0], SETTINGS))  # stable within a process
    others = [
        key_inputs(tasks[1], SETTINGS),
        key_inputs(dataclasses.replace(tasks[0], mutated_line=tasks[0].mutated_line + " "), SETTINGS),
        key_inputs(dataclasses.replace(tasks[0], test_command=tasks[0].test_command + " -x"), SETTINGS),
        key_inputs(tasks[0], dataclasses.replace(SETTINGS, timeout_s=21)),
        key_inputs(tasks[0], dataclasses.replace(SETTINGS, network="allow")),
        key_inputs(tasks[0], dataclasses.replace(SETTINGS, limits=Limits(memory_mb=1024))),
        key_inputs(tasks[0], dataclasses.replace(SETTINGS, project_addopts="drop")),
        {**key_inputs(tasks[0], SETTINGS), "harness": "0" * 64},  # an edited harness validates again
        {**key_inputs(tasks[0], SETTINGS), "pytest": "0.0"},
    ]
    keys = {validation_key(inputs) for inputs in others}
    assert base not in keys and len(keys) == len(others)
    inputs = key_inputs(tasks[0], SETTINGS)
    assert sorted(inputs) == ["bwrap", "environment", "executable", "format", "harness", "installed", "platform",
                              "pluggy", "pytest", "python", "settings", "task"]
    assert (inputs["harness"], inputs["installed"], inputs["python"], inputs["executable"]) == (
        harness_digest(), installed_digest(), sys.version, sys.executable)
    assert inputs["environment"] == {name: os.environ.get(name) for name in PASSTHROUGH_ENV}
    assert inputs["task"] == tasks[0].to_json() and inputs["settings"]["sandbox"] == "required"
    # the whole package, not one folder of it
    assert harness_digest() == tree_digest(Path(beacon.__file__).resolve().parent)


def test_the_harness_digest_changes_with_any_module(tmp_path):
    (tmp_path / "repair").mkdir(parents=True)
    (tmp_path / "repair" / "prepare.py").write_text("A = 1\n")
    (tmp_path / "tokens.py").write_text("B = 2\n")
    (tmp_path / "notes.txt").write_text("not code\n")
    seen = {tree_digest(tmp_path)}
    (tmp_path / "notes.txt").write_text("still not code\n")
    assert tree_digest(tmp_path) in seen
    (tmp_path / "repair" / "prepare.py").write_text("A = 2\n")
    seen.add(tree_digest(tmp_path))
    (tmp_path / "repair" / "prepare.py").rename(tmp_path / "repair" / "prepared.py")
    seen.add(tree_digest(tmp_path))
    (tmp_path / "repair" / "new.py").write_text("")
    seen.add(tree_digest(tmp_path))
    assert len(seen) == 4


def test_a_verdict_is_made_once_then_shared(control, tmp_path):
    _, tasks = control
    shared, calls = SharedValidation(tmp_path / "v", label="job-a"), Calls()
    first = shared.get_or_run(tasks[0], SETTINGS, calls)
    second = SharedValidation(tmp_path / "v", label="job-b").get_or_run(tasks[0], SETTINGS, calls)
    assert calls.n == 1
    assert first[1:] == ("ran", second[2]) and second[1] == "shared" and first[0] == second[0] == VERDICT
    entry = json.loads(shared.entry(first[2]).read_text())
    assert entry["by"] == "job-a" and entry["inputs"]["task"] == tasks[0].to_json()
    # another task, or the same one under other settings, is validated on its own
    shared.get_or_run(tasks[1], SETTINGS, calls)
    shared.get_or_run(tasks[0], dataclasses.replace(SETTINGS, timeout_s=30), calls)
    assert calls.n == 3


@pytest.mark.parametrize("damage", ["truncated", "other_key", "missing_field", "wrong_type", "not_ids", "invalid",
                                    "no_ids", "writable_by_others"])
def test_a_damaged_entry_is_validated_again_and_replaced(control, tmp_path, caplog, damage):
    _, tasks = control
    shared, calls = SharedValidation(tmp_path / "v"), Calls()
    _, _, key = shared.get_or_run(tasks[0], SETTINGS, calls)
    path = shared.entry(key)
    entry = json.loads(path.read_text())
    if damage == "truncated":
        path.write_text(path.read_text()[:40])
    elif damage == "writable_by_others":
        path.chmod(0o666)
    else:
        if damage == "other_key":
            entry["key"] = "0" * 64
        elif damage == "missing_field":
            del entry["validation"]["invalid_reason"]
        elif damage == "wrong_type":
            entry["validation"]["original_ids"] = "t::a"
        elif damage == "invalid":  # only valid verdicts are shared
            entry["validation"]["invalid_reason"] = "mutant survives: every original test still passes"
        elif damage == "no_ids":
            entry["validation"]["original_ids"] = []
        else:
            entry["validation"]["original_ids"] = [1, 2]
        path.write_text(json.dumps(entry))
    with caplog.at_level(logging.WARNING, logger="beacon"):
        verdict, how, _ = shared.get_or_run(tasks[0], SETTINGS, calls)
    assert (verdict, how, calls.n) == (VERDICT, "ran", 2)
    assert str(path) in caplog.text and "validating the task again" in caplog.text
    assert json.loads(path.read_text())["validation"] == VERDICT  # replaced
    assert path.stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("verdict", [
    {**VERDICT, "original_ids": [], "invalid_reason": "original suite does not pass: t::a: failed"},
    {**VERDICT, "original_ids": [], "invalid_reason": "mutant does not complete: timed out"},
    {**VERDICT, "original_ids": [], "invalid_reason": None},
])
def test_an_invalid_verdict_is_measured_by_each_job(control, tmp_path, verdict):
    """A timeout or a suite that failed once must not drop the task from the whole sweep and its resumes."""
    _, tasks = control
    shared, calls = SharedValidation(tmp_path / "v"), Calls(verdict)
    assert [shared.get_or_run(tasks[0], SETTINGS, calls)[:2] for _ in range(2)] == [(verdict, "ran")] * 2
    assert calls.n == 2 and list((tmp_path / "v").glob("*.json")) == []


def test_a_failing_validation_is_not_stored(control, tmp_path):
    _, tasks = control
    shared = SharedValidation(tmp_path / "v")

    def broken() -> dict:
        raise RuntimeError("the harness failed, not the task")

    with pytest.raises(RuntimeError):
        shared.get_or_run(tasks[0], SETTINGS, broken)
    calls = Calls()
    assert shared.get_or_run(tasks[0], SETTINGS, calls)[1] == "ran" and calls.n == 1
    with pytest.raises(ValueError, match="expected"):
        shared.get_or_run(tasks[1], SETTINGS, Calls({**VERDICT, "extra": 1}))
    assert sorted(FIELDS) == sorted(VERDICT)


def _ask(folder, manifest_root, counter, out, barrier):
    """A job in another process: asks for task 0's verdict, validating slowly (counted in ``counter``)."""
    resolve = repo_resolver(manifest_root / "repos")
    task = load_manifest(manifest_root / "tasks.jsonl", resolve_repo=resolve)[0]
    barrier.wait(60)  # every process asks at once, so without the lock each would find no entry and validate

    def slow() -> dict:
        with open(counter, "a") as fh:
            fh.write("x")
        time.sleep(1.0)
        return VERDICT

    verdict, how, _ = SharedValidation(folder).get_or_run(task, SETTINGS, slow)
    with open(out, "a") as fh:
        fh.write(json.dumps([how, verdict]) + "\n")


def test_two_jobs_starting_together_validate_once(tmp_path):
    _, manifest = make_control_repo(tmp_path / "c")
    root = manifest.parent
    assert (root / "repos").is_dir() and manifest.name == "tasks.jsonl"
    counter, out = tmp_path / "count", tmp_path / "out"
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(3)
    jobs = [context.Process(target=_ask, args=(tmp_path / "v", root, counter, out, barrier)) for _ in range(3)]
    for job in jobs:
        job.start()
    for job in jobs:
        job.join(60)
        assert job.exitcode == 0
    assert counter.read_text() == "x"  # the others waited for the first one's verdict
    answers = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(how for how, _ in answers) == ["ran", "shared", "shared"]
    assert all(verdict == VERDICT for _, verdict in answers)


@pytest.mark.skipif(BWRAP is None, reason=f"bubblewrap unavailable: {WHY_NO_BWRAP}")
def test_a_shared_verdict_prepares_the_task_as_validating_it_does(control, tmp_path):
    resolve, tasks = control
    task = tasks[0]
    alone = prepare_task(task, resolve(task.repo), tmp_path / "alone", SETTINGS)
    assert alone.valid and alone.validation == "ran" and alone.mutant["failing_ids"]
    shared = SharedValidation(tmp_path / "v")
    first = prepare_task(task, resolve(task.repo), tmp_path / "first", SETTINGS, shared=shared)
    second = prepare_task(task, resolve(task.repo), tmp_path / "second", SETTINGS, shared=shared)
    assert (first.validation, second.validation) == ("ran", "shared") and second.validation_key
    for prepared in (first, second):
        assert (prepared.sandboxed, prepared.baseline, prepared.mutant, prepared.original_ids,
                prepared.invalid_reason) == (alone.sandboxed, alone.baseline, alone.mutant, alone.original_ids, None)
    # a sweep that does not require the sandbox validates in every job
    auto = dataclasses.replace(SETTINGS, sandbox="auto")
    assert prepare_task(task, resolve(task.repo), tmp_path / "auto", auto, shared=shared).validation == "ran"
    assert len(list(shared.folder.glob("*.json"))) == 1
    # a task found invalid (here its mutant survives) is validated by every job and never stored
    survives = dataclasses.replace(task, mutated_line=task.original_line + "  # unchanged")
    for name in ("s1", "s2"):
        prepared = prepare_task(survives, resolve(task.repo), tmp_path / name, SETTINGS, shared=shared)
        assert prepared.validation == "ran" and not prepared.valid
        assert prepared.invalid_reason == "mutant survives: every original test still passes"
    assert len(list(shared.folder.glob("*.json"))) == 1
