"""The Hydra layer end to end: validation, real multiruns (joblib and submitit_local),
failure isolation, resume after kill -9, dry runs, and reproduction of the archive."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from omegaconf import OmegaConf

from experiments.schema import GROUP_SCHEMAS

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT / "outputs" / "archive" / "control_smoke"


def run(*args, cwd=ROOT, timeout=600, check=True, tmpdir=None):
    env = {**os.environ, "CI": "1", **({"TMPDIR": str(tmpdir)} if tmpdir is not None else {})}
    out = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    if check and out.returncode != 0:
        raise AssertionError(f"{args} exited {out.returncode}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return out


def records(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines() if line]


def test_every_group_file_matches_its_schema():
    for group, schema in GROUP_SCHEMAS.items():
        files = sorted((ROOT / "conf" / group).glob("*.yaml"))
        assert files, group
        for path in files:
            data = yaml.safe_load(path.read_text()) or {}
            data.pop("defaults", None)
            OmegaConf.merge(OmegaConf.structured(schema), data)  # raises on unknown keys / wrong types
    for path in (ROOT / "conf" / "experiment").glob("*.yaml"):
        text = path.read_text()
        assert text.startswith("# @package _global_"), path
        assert "Feeds:" in text and "feeds:" in text, f"{path} must name the figure/table it feeds"


def test_a_misspelt_key_or_wrong_type_fails_before_any_work(tmp_path):
    out = run("-m", "experiments.repair", "+budgt=5", f"hydra.run.dir={tmp_path}/a", check=False)
    assert out.returncode != 0 and "budgt" in out.stderr
    out = run("-m", "experiments.repair", "budget=lots", f"hydra.run.dir={tmp_path}/b", check=False)
    assert out.returncode != 0 and "budget" in out.stderr
    out = run("-m", "experiments.repair", "method.name=bm52", f"hydra.run.dir={tmp_path}/c", check=False)
    assert out.returncode != 0 and "expected one of" in out.stderr
    assert not (tmp_path / "a" / "run").exists() and not (tmp_path / "b" / "run").exists()


def test_scoring_requires_explicit_local_execution(tmp_path):
    out = run("-m", "experiments.repair", f"hydra.run.dir={tmp_path}", check=False)
    assert out.returncode != 0 and "allow_local_execution" in out.stderr
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["status"] == "failed"


def test_dry_run_assembles_prompts_without_executing(tmp_path):
    run("-m", "experiments.repair", "dry_run=true", "method=bca", f"hydra.run.dir={tmp_path}")
    rows = records(tmp_path / "run")
    assert len(rows) == 3
    for row in rows:
        assert row["dry_run"] and row["outcome"] is None and row["response"] is None and row["tests"] is None
        assert row["baseline"] == {} and row["prompt"].startswith("You are fixing a bug")
        assert row["context_tokens"] <= 2000


def test_real_multirun_and_collect(tmp_path):
    sweep = tmp_path / "sweep"
    # One task per job: the point is the sweep's wiring (four jobs, each sealed, verified and collected);
    # every task under every method is scored by the control archive's reproduction below, and submitit's
    # launcher is checked the same way in test_cluster_launchers.py.
    run("-m", "experiments.repair", "-m", "method=bm25,no_retrieval", "budget=500,2000", "query=vague",
        "tasks.limit=1", "allow_local_execution=true", "hydra/launcher=local", f"hydra.sweep.dir={sweep}")
    runs = sorted(p.parent for p in sweep.rglob("run.json"))
    assert len(runs) == 4
    for run_dir in runs:
        assert run("-m", "beacon.artifacts", "verify", str(run_dir)).returncode == 0
        rows = records(run_dir)
        assert len(rows) == 1 and all(r["outcome"] == "pass" for r in rows)
    out = run("-m", "beacon.artifacts", "collect", str(sweep))
    index = json.loads((sweep / "sweep_index.json").read_text())
    assert len(index["jobs"]) == 4 and "sweep_index" in out.stdout
    # the one task was validated by one job; the other three took its verdict (beacon/repair/shared_validation.py)
    hows = sorted(json.loads((r / "run.json").read_text())["sessions"][-1]["environment"]["validation"].popitem()[1]
                  .split()[0] for r in runs)
    assert hows == ["ran", "shared", "shared", "shared"]
    assert len(list((sweep / ".shared" / "validation").glob("*.json"))) == 1


def test_a_failing_job_does_not_lose_the_others(tmp_path):
    sweep = tmp_path / "sweep"
    # provider=replay without recordings fails inside the job; oracle jobs complete.
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    # (share_validation=false: each job validates its own tasks, and the sweep keeps no verdicts)
    out = run("-m", "experiments.repair", "-m", "provider=oracle,replay", "tasks.limit=1", "share_validation=false",
              "allow_local_execution=true", f"hydra.sweep.dir={sweep}", check=False, tmpdir=scratch)
    # the sweep ends non-zero, naming the failed cell and why
    assert out.returncode == 1 and "1 of 2 jobs" in out.stderr and "provider.recordings" in out.stderr
    metas = {p.parent.parent.name: json.loads(p.read_text()) for p in sweep.rglob("run.json")}
    statuses = {name.split("provider=")[1].split(",")[0]: m["status"] for name, m in metas.items()}
    assert statuses == {"oracle": "complete", "replay": "failed"}
    assert not (sweep / ".shared").exists()
    oracle = next(m for m in metas.values() if m["status"] == "complete")
    assert list(oracle["sessions"][-1]["environment"]["validation"].values()) == ["ran"]
    assert list(scratch.iterdir()) == []  # the failed job's work folder went too
    failed = next(m for m in metas.values() if m["status"] == "failed")
    assert "recordings" in json.dumps(failed["error"])
    run("-m", "beacon.artifacts", "collect", str(sweep))
    jobs = json.loads((sweep / "sweep_index.json").read_text())["jobs"]
    assert sorted(j["status"] for j in jobs) == ["complete", "failed"]


def _processes_naming(path) -> list[str]:
    """The command lines of live processes that name ``path``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "stat").read_text().rsplit(") ", 1)[-1][:1] != "Z":
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                if str(path) in command:
                    found.append(command[:300])
        except OSError:
            continue
    return found


def test_resume_after_kill_9_gives_identical_records(tmp_path):
    # 6 rows: 2 methods on each of the 3 control tasks, so a kill after the 2nd row lands before the last task
    args = ["-m", "experiments.control", "grid.methods=[bm25,no_retrieval]", "grid.budgets=[2000]",
            "grid.edit_formats=[diff]", "print_table=false"]
    scratch = tmp_path / "tmp"  # the runs' TMPDIR, where their work folders go
    scratch.mkdir()
    clean = tmp_path / "clean"
    run(*args, f"hydra.run.dir={clean}", tmpdir=scratch)
    assert list(scratch.iterdir()) == []  # a job that ends removes its work folder
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, *args, f"hydra.run.dir={killed}"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                            env={**os.environ, "TMPDIR": str(scratch)})
    target = killed / "run" / "records.jsonl"
    deadline = time.time() + 300
    while time.time() < deadline:
        if target.exists() and target.read_text().count("\n") >= 2:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = target.read_text().count("\n")
    total = len(records(clean / "run"))
    assert 2 <= partial < total, "the kill must land mid-run"
    left = sorted(p.name for p in scratch.iterdir())  # SIGKILL runs no cleanup: the work folder (and maybe
    assert any(name.startswith("beacon-work-") for name in left), left  # a test run's beacon-pytest-*) stays
    run(*args, f"hydra.run.dir={killed}", tmpdir=scratch)
    assert sorted(p.name for p in scratch.iterdir()) == []  # ...so the next run removed the dead run's, then its own
    # ...after killing what still ran there: a sandbox whose pid 1 missed its parent-death signal outlived the job
    assert _processes_naming(scratch) == [], "a test run of the killed job outlived the next run"
    assert (killed / "run" / "records.jsonl").read_bytes() == (clean / "run" / "records.jsonl").read_bytes()
    assert run("-m", "beacon.artifacts", "verify", str(killed / "run")).returncode == 0


# A seeded sample of the archive's 72 rows (every row: ``python -m experiments.benchmarks.reproduce_archives``,
# a release check; all 72 cost about 110 s on a loaded 2-core machine, the sample a sixth of that).
SAMPLE = 12


def test_archived_control_run_reproduces(tmp_path):
    from experiments.reproduce import sample_keys
    archived = {r["key"]: r for r in records(ARCHIVE)}
    chosen = sample_keys(archived, SAMPLE, 0)
    # the sample holds both of the archive's outcomes, several methods and both edit formats
    assert {archived[k]["outcome"] for k in chosen} == {r["outcome"] for r in archived.values()}
    assert len({archived[k]["method"] for k in chosen}) >= 4 and len({archived[k]["edit_format"] for k in chosen}) == 2
    out = run("-m", "experiments.reproduce", str(ARCHIVE), "--sample", str(SAMPLE), tmpdir=tmp_path)
    assert f"{SAMPLE} of 72 records (a sample: --sample {SAMPLE} --seed 0), every scored field identical" in out.stdout
    # Without --out the verdict is the output: the reproduction and its work folder are removed.
    assert "reproduction removed; --out DIR keeps it" in out.stdout and list(tmp_path.iterdir()) == []


def test_a_changed_score_is_reported_as_a_diff(tmp_path):
    copy = tmp_path / "archive"
    shutil.copytree(ARCHIVE, copy)
    for path in copy.iterdir():
        path.chmod(0o644)
    # Cut the archive down to its first row's grid cell (3 tasks), so the reproduction scores 3 attempts,
    # not 72: the point is the diff report; every archived row is reproduced by the test above.
    rows = records(copy)
    first = rows[0]
    cell = ("method", "budget", "edit_format")
    rows = [r for r in rows if all(r[k] == first[k] for k in cell)]
    meta = json.loads((copy / "run.json").read_text())
    meta["config"]["grid"].update(methods=[first["method"]], budgets=[first["budget"]],
                                  edit_formats=[first["edit_format"]])
    meta["record_count"] = len(rows)
    (copy / "run.json").write_text(json.dumps(meta, indent=2))
    first["outcome"] = "test_fail" if first["outcome"] == "pass" else "pass"
    (copy / "records.jsonl").write_text("".join(
        json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n" for r in rows))
    from beacon.artifacts.manifest import walk_run, write_manifest
    files, _ = walk_run(copy)
    write_manifest(copy, [f for f in files if f != "MANIFEST.sha256"])
    out = run("-m", "experiments.reproduce", str(copy), check=False)
    assert out.returncode == 1
    assert "outcome" in out.stderr and first["key"] in out.stderr
    # the only difference reported is the changed row's: the cut-down archive reproduces otherwise
    assert [k for k in {r["key"] for r in rows} if k in out.stderr] == [first["key"]], out.stderr[-3000:]
    # A sample compares only the rows it re-ran: one without the changed row reproduces, and says it was a sample.
    from experiments.reproduce import main, sample_keys
    seed = next(s for s in range(100) if first["key"] not in sample_keys({r["key"]: r for r in rows}, 2, s))
    assert main([str(copy), "--sample", "2", "--seed", str(seed), "--out", str(tmp_path / "sampled")]) == 0
    assert len(records(tmp_path / "sampled" / "run")) == 2


def test_a_tampered_archive_is_refused(tmp_path):
    copy = tmp_path / "archive"
    shutil.copytree(ARCHIVE, copy)
    (copy / "records.jsonl").chmod(0o644)
    with open(copy / "records.jsonl", "a") as fh:
        fh.write("\n")
    out = run("-m", "experiments.reproduce", str(copy), check=False)
    assert out.returncode == 1 and "does not verify" in out.stderr
