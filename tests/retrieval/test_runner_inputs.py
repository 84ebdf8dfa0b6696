"""Both runners obtain the history a method needs the same way; a repair run of ``hybrid_history`` uses it.

Before, a repair run built its graph without history and ``method=hybrid_history`` silently ranked as
``hybrid``. Now ``run_repair_job`` reads the inputs its methods declare (``beacon.repo.history.read_inputs``,
as ``SnapshotCache.inputs`` does for localization) and the attempt passes them to the method.
"""
from __future__ import annotations

import json
import subprocess

import pytest

from beacon.artifacts import RunWriter
from beacon.localize.instances import SnapshotCache
from beacon.repair.attempt import AttemptSpec
from beacon.repair.control import make_control_repo
from beacon.repair.job import run_repair_job
from beacon.repair.prepare import RunSettings, prepare_task
from beacon.repo.history import RepoHistory
from beacon.retrieval import MissingInputError, get_method
from beacon.data import load_manifest, repo_resolver


@pytest.fixture(scope="module")
def control(tmp_path_factory):
    root = tmp_path_factory.mktemp("control")
    _, manifest = make_control_repo(root)
    repo = root / "repos" / "textkit"
    # A second commit so that the history priors have something to say: one line of moving_average (line numbers
    # kept, so the tasks' mutations still apply), nothing of clamp.
    numbers = repo / "textkit" / "numbers.py"
    numbers.write_text(numbers.read_text().replace("window must be positive", "window must be > 0"))
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root)}
    subprocess.run(["git", "commit", "-qam", "touch strings"], cwd=repo, check=True, env=env)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()
    rows = [{**json.loads(line), "commit": head} for line in manifest.read_text().splitlines() if line]
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    resolve = repo_resolver(root / "repos")
    return root, resolve, load_manifest(manifest, resolve_repo=resolve), "textkit/numbers.py"


def test_prepare_reads_the_inputs_asked_for_as_the_localization_cache_does(control, tmp_path):
    root, resolve, tasks, changed = control
    task = tasks[0]
    bare = prepare_task(task, resolve(task.repo), tmp_path / "bare", RunSettings())
    assert bare.inputs.present() == frozenset()
    prepared = prepare_task(task, resolve(task.repo), tmp_path / "w", RunSettings(),
                            frozenset({"file_history", "line_history"}))
    assert isinstance(prepared.inputs.file_history, RepoHistory) and prepared.inputs.file_history.base == task.commit
    assert prepared.inputs.file_history.commits[0] == (changed,)
    loc = SnapshotCache(tmp_path / "cache", root / "repos").inputs(task.repo, task.commit, {"file_history"})
    assert loc.file_history == prepared.inputs.file_history
    query = "fix the helpers"
    with pytest.raises(MissingInputError, match="'file_history'"):
        get_method("hybrid_history").rank(bare.graph, query, bare.inputs)
    with_history = get_method("hybrid_history").scores(prepared.graph, query, prepared.inputs)
    assert "history" in with_history.components and with_history.components["history"].max() > 0


def test_a_repair_job_of_hybrid_history_uses_the_history(control, tmp_path):
    root, resolve, tasks, _ = control
    rows = {}
    for method in ("hybrid", "hybrid_history"):
        writer = RunWriter(tmp_path / method, config={"method": method}, scientific={"method": method},
                           overrides=[], inputs={}, code={"commit": None, "dirty": None}, packages={})
        run_repair_job(tasks[:1], resolve, [AttemptSpec(method, 400, "vague", "diff", "oracle")], writer=writer,
                       work_dir=tmp_path / f"work-{method}", settings=RunSettings(), dry_run=True)
        writer.close()
        rows[method] = [json.loads(line) for line in (tmp_path / method / "records.jsonl").read_text().splitlines()]
    assert all(r["error"] is None for rs in rows.values() for r in rs if "error" in r)
    # The function prior lifts moving_average (changed at the base) over clamp, which hybrid ranks first.
    assert rows["hybrid"][0]["ranking_top"][:2] == ["textkit/numbers.py::clamp", "textkit/numbers.py::moving_average"]
    assert rows["hybrid_history"][0]["ranking_top"][:2] == ["textkit/numbers.py::moving_average",
                                                          "textkit/numbers.py::clamp"]
