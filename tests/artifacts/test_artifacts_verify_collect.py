"""verify() against tampering, the command line, and collect() over a fake Hydra sweep."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys

import pytest

from beacon.artifacts import RunWriter, collect, verify


def make_run(run_dir, *, budget=2000, rows=3, end="seal", overrides=None):
    sci = {"budget": budget, "method": "bm25", "run_dir": str(run_dir)}
    writer = RunWriter(run_dir, config=sci, scientific=sci, overrides=overrides or [f"budget={budget}"],
                       inputs={}, code={"commit": "f" * 40, "dirty": True}, packages={})
    for i in range(rows):
        writer.append({"key": f"k{i}", "hit": i % 2 == 0})
    if end == "seal":
        writer.seal()
    elif end == "fail":
        writer.fail(RuntimeError("provider timed out on k3"))
    else:  # closed unsealed: status stays running, as after a kill
        writer.close()
    return run_dir


def writable(path):
    path.chmod(0o644)  # what someone editing a sealed file must do first
    return path


def test_clean_run_verifies(tmp_path):
    assert verify(make_run(tmp_path / "r")) == []


def test_flipped_byte_is_reported(tmp_path):
    run = make_run(tmp_path / "r")
    path = writable(run / "records.jsonl")
    data = bytearray(path.read_bytes())
    data[10] ^= 0x01
    path.write_bytes(bytes(data))
    problems = verify(run)
    assert any(p.startswith("records.jsonl: changed (manifest sha256") for p in problems), problems


def test_deleted_file_is_reported(tmp_path):
    run = make_run(tmp_path / "r")
    (run / "records.jsonl").unlink()
    assert "records.jsonl: missing (listed in MANIFEST.sha256)" in verify(run)


def test_added_files_and_symlinks_are_reported(tmp_path):
    run = make_run(tmp_path / "r")
    (run / "sub").mkdir()
    (run / "sub" / "notes.txt").write_text("late addition")
    (run / "link").symlink_to(run / "run.json")
    problems = verify(run)
    assert "sub/notes.txt: extra file (not in MANIFEST.sha256)" in problems
    assert "link: symlink or special file (a sealed run holds only regular files)" in problems


def test_missing_or_malformed_manifest_is_reported(tmp_path):
    run = make_run(tmp_path / "r")
    manifest = writable(run / "MANIFEST.sha256")
    manifest.write_text(manifest.read_text() + "not a manifest line\n")
    assert any(p.startswith("MANIFEST.sha256:3: expected") for p in verify(run))
    manifest.unlink()
    assert verify(run) == ["MANIFEST.sha256: missing (the run was never sealed, or the manifest was deleted)"]
    assert verify(tmp_path / "nowhere") == [f".: {tmp_path / 'nowhere'} is not a folder"]


def test_consistent_rewrite_of_run_json_is_still_caught(tmp_path):
    # Someone edits run.json and regenerates the manifest: bytes match, contents do not.
    run = make_run(tmp_path / "r")
    meta = json.loads((run / "run.json").read_text())
    meta["scientific"]["budget"] = 4000
    writable(run / "run.json").write_text(json.dumps(meta))
    lines = writable(run / "MANIFEST.sha256").read_text().splitlines()
    from beacon.artifacts import sha256_file
    (run / "MANIFEST.sha256").write_text("".join(
        f"{sha256_file(run / 'run.json')}  run.json\n" if line.endswith("  run.json") else line + "\n"
        for line in lines))
    assert [p.split(" is ")[0] for p in verify(run)] == ["run.json: field 'config_hash'"]


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "beacon.artifacts", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=60)


def test_cli_verify_exit_codes(tmp_path):
    run = make_run(tmp_path / "r")
    ok = _cli("verify", run, cwd=tmp_path)
    assert (ok.returncode, ok.stdout.strip()) == (0, f"{run}: OK")
    (run / "extra.log").write_text("x")
    (run / "run.json").unlink()
    bad = _cli("verify", run, cwd=tmp_path)
    assert bad.returncode == 1
    assert bad.stdout.splitlines() == [f"{run}/run.json: missing (listed in MANIFEST.sha256)",
                                       f"{run}/extra.log: extra file (not in MANIFEST.sha256)"]
    assert _cli("verify", cwd=tmp_path).returncode == 2  # usage error


def _fake_sweep(sweep):
    make_run(sweep / "0", budget=2000)
    make_run(sweep / "1", budget=4000, end="fail")
    (sweep / "2" / ".hydra").mkdir(parents=True)  # Hydra started the job; the runner never opened its run
    (sweep / "2" / ".hydra" / "overrides.yaml").write_text("- budget=8000\n- 'query.text=a b'\n")
    make_run(sweep / "10", budget=16000, end="close")
    (sweep / "multirun.yaml").write_text("hydra: {}\n")
    (sweep / ".submitit").mkdir()


def test_collect_lists_every_job_whatever_its_state(tmp_path):
    sweep = tmp_path / "multirun" / "2024-01-01" / "12-00-00"
    _fake_sweep(sweep)
    index_path = collect(sweep)
    assert index_path == sweep / "sweep_index.json"
    index = json.loads(index_path.read_text())
    jobs = {job["path"]: job for job in index["jobs"]}
    assert [job["path"] for job in index["jobs"]] == ["0", "1", "2", "10"]
    assert jobs["0"]["status"] == "complete" and jobs["0"]["verified"] is True and jobs["0"]["records"] == 3
    assert jobs["0"]["overrides"] == ["budget=2000"] and len(jobs["0"]["config_hash"]) == 64
    assert jobs["1"]["status"] == "failed" and jobs["1"]["error"] == "RuntimeError: provider timed out on k3"
    assert jobs["1"]["verified"] is False and jobs["1"]["records"] == 3
    assert jobs["2"]["status"] == "missing" and jobs["2"]["config_hash"] is None
    assert jobs["2"]["overrides"] == ["budget=8000", "query.text=a b"] and "no run.json" in jobs["2"]["error"]
    assert jobs["10"]["status"] == "running" and jobs["10"]["records"] == 3
    assert index["summary"] == {"jobs": 4, "complete": 1, "failed": 1, "running": 1, "missing": 1,
                                "unreadable": 0, "verified": 1}
    rows = list(csv.DictReader((sweep / "sweep_index.csv").open()))
    assert [(r["path"], r["status"], r["verified"]) for r in rows] == [
        ("0", "complete", "true"), ("1", "failed", "false"), ("2", "missing", "false"), ("10", "running", "false")]
    assert rows[2]["overrides"] == "budget=8000 'query.text=a b'"
    assert collect(sweep).read_bytes() == index_path.read_bytes()  # no timestamps: re-collect is stable


def test_collect_reports_tampered_and_unreadable_jobs(tmp_path):
    make_run(tmp_path / "a" / "0")
    writable(tmp_path / "a" / "0" / "records.jsonl").write_text("")
    (tmp_path / "b" / "0").mkdir(parents=True)
    (tmp_path / "b" / "0" / "run.json").write_text("{trunc")
    jobs = json.loads(collect(tmp_path).read_text())["jobs"]
    assert [(j["path"], j["status"], j["verified"]) for j in jobs] == [
        ("a/0", "complete", False), ("b/0", "unreadable", False)]
    assert any("records.jsonl: changed" in p for p in jobs[0]["problems"])
    assert "not valid JSON" in jobs[1]["error"]


def test_cli_collect_and_refusals(tmp_path):
    sweep = tmp_path / "sweep"
    _fake_sweep(sweep)
    out = _cli("collect", sweep, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [str(sweep / "sweep_index.json"),
                                       "4 jobs: 1 complete (1 verified), 1 failed, 1 running, 1 missing"]
    refused = _cli("collect", sweep / "0", cwd=tmp_path)
    assert refused.returncode == 2 and "run folder, not a sweep folder" in refused.stderr
    with pytest.raises(FileNotFoundError, match="does not exist"):
        collect(tmp_path / "absent")
    assert not os.path.exists(sweep / "0" / "sweep_index.json")
