"""``python -m experiments.trajectories`` on the ContextBench reference cases: a sealed run, tabled by paper.build.

The agent rows go beside a retrieval method's rows (bm25, scored by
``beacon.localize.evaluate`` on the same base files) in one paper build.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from beacon.artifacts import RunWriter
from beacon.artifacts.verify import verify
from beacon.graph.codebase import CodebaseGraph
from beacon.localize.evaluate import evaluate
from beacon.localize.gold import gold_from_patch
from experiments import trajectories

ROOT = Path(__file__).resolve().parents[2]
REF = ROOT.parent / "shared" / "data" / "contextbench_ref"
pytestmark = pytest.mark.skipif(not (REF / "expected.json").is_file(),
                                reason=f"ContextBench reference cases not found at {REF}")


def close(got, want) -> bool:
    """Same structure and keys; numbers within 1e-9."""
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and all(close(got[k], want[k]) for k in want)
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(close, got, want))
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        return isinstance(got, (int, float)) and abs(got - want) <= 1e-9
    return got == want


def _rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def agent_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("traj") / "agents" / "run"
    argv = [str(REF / "trajectories"), "--instances", str(REF / "instances.jsonl"), "--trees", str(REF / "trees"),
            "--out", str(out)]
    assert trajectories.main(argv) == 0
    first = (out / "records.jsonl").read_bytes()
    assert trajectories.main(argv) == 0  # the same command again finds the sealed run
    assert (out / "records.jsonl").read_bytes() == first
    return out


def test_run_folder_is_sealed_and_holds_both_profiles(agent_run):
    assert verify(agent_run) == []
    rows = _rows(agent_run)
    assert sorted(r["key"] for r in rows) == sorted(
        f"{iid}|swe-agent/{p}" for iid in json.loads((REF / "expected.json").read_text())
        for p in ("contextbench", "beacon"))
    for row in rows:
        assert row["kind"] == "localize" and row["metric_profile"] == row["method"].split("/")[1]
        prefix = "contextbench_" if row["metric_profile"] == "contextbench" else "beacon_"
        other = "beacon_" if prefix == "contextbench_" else "contextbench_"
        if row["metrics"] is not None:
            assert any(k.startswith(prefix) for k in row["metrics"])
            assert not any(k.startswith(other) for k in row["metrics"])


def test_contextbench_rows_are_the_reference_output(agent_run):
    expected = json.loads((REF / "expected.json").read_text())
    for row in _rows(agent_run):
        if row["metric_profile"] != "contextbench":
            continue
        want = expected[row["instance_id"]]
        assert close(row["contextbench"], want), row["instance_id"]
        if "error" in want:
            assert row["error"] == want["error"] and row["metrics"] is None
        else:
            assert row["metrics"]["contextbench_symbol_coverage"] == want["final"]["symbol"]["coverage"]
            assert row["metrics"]["contextbench_auc_line"] == want["trajectory"]["auc_coverage"]["line"]


@pytest.fixture(scope="module")
def retrieval_run(tmp_path_factory) -> Path:
    """bm25 at 2000 tokens on the same instances and base files, written like the localization runner's rows."""
    tmp = tmp_path_factory.mktemp("bm25")
    rows = []
    for line in (REF / "instances.jsonl").read_text().splitlines():
        inst = json.loads(line)
        iid = inst["instance_id"]
        with tarfile.open(REF / "trees" / f"{iid}.tar.gz") as tar:
            tar.extractall(tmp / "trees" / iid, filter="data")
        tree = tmp / "trees" / iid
        gold = gold_from_patch(iid, inst["patch"], tree)
        query = "fix " + " ".join(u.rpartition(".")[2] for u in gold.units)
        record = evaluate(CodebaseGraph.from_repo(tree), iid, query, gold, "bm25", 2000)
        rows.append({**record, "key": f"{iid}|bm25()|2000", "repo": inst["repo"],
                     "base_commit": inst.get("base_commit") or "", "task_set": "instances", "error": None})
    sci = {"kind": "bm25 on the contextbench_ref trees"}
    with RunWriter(tmp / "bm25" / "run", config=sci, scientific=sci, overrides=[], inputs={},
                   code={"commit": "0" * 40, "dirty": False}, packages={}) as run:
        for row in rows:
            run.append(row)
        run.seal()
    return tmp / "bm25" / "run"


def test_paper_build_tables_agents_beside_retrieval(agent_run, retrieval_run, tmp_path):
    out = tmp_path / "paper"
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    # the parent folders, since both run folders are named "run"
    proc = subprocess.run([sys.executable, "-m", "paper.build", str(agent_run.parent), str(retrieval_run.parent),
                           "--out", str(out), "--resamples", "200"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    tables = json.loads((out / "summary.json").read_text())["tables"]
    methods = {row["Method"] for row in tables["tab_localization_acc"]["rows"].values()}
    assert {"bm25", "swe-agent/contextbench", "swe-agent/beacon"} <= methods
    context = list(tables["tab_localization_context"]["rows"].values())
    cell = next(r for r in context if r["Method"] == "swe-agent/contextbench"
                and r["Metric"] == "contextbench_symbol_coverage")
    expected = json.loads((REF / "expected.json").read_text())
    scored = [e["final"]["symbol"]["coverage"] for e in expected.values() if "error" not in e]
    assert cell["n"] == 3 and cell["Mean"] == pytest.approx(100 * sum(scored) / 3)
    assert not any(r["Method"] == "bm25" for r in context)  # retrieval rows have no trajectory context metrics
