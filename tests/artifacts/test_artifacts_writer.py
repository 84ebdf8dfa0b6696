"""RunWriter lifecycle on real files: create, append, resume, repair, refuse, fail, seal."""
from __future__ import annotations

import json
import math
import shutil
import subprocess

import pytest

from beacon.artifacts import (CodeStateError, CorruptRecordsError, RecordError, RunClosedError, RunInUseError,
                              RunMismatchError, RunWriter, SealedRunError, code_state, config_hash,
                              package_versions, verify)

SCI = {"budget": 2000, "method": {"name": "bm25"}, "output_dir": "/tmp/a"}
CODE = {"commit": "a" * 40, "dirty": False}
INPUTS = {"tasks": "b" * 64}


def open_run(run_dir, scientific=SCI, inputs=INPUTS, **kw):
    return RunWriter(run_dir, config={"sci": scientific, "hydra": {"x": 1}}, scientific=scientific,
                     overrides=["budget=2000"], inputs=inputs, code=CODE, packages={"numpy": "1.26"}, **kw)


def rec(i):
    return {"key": f"t{i}", "score": i / 3, "ok": i % 2 == 0}


def run_meta(run_dir):
    return json.loads((run_dir / "run.json").read_text())


def test_lifecycle_create_append_seal(tmp_path):
    run_dir = tmp_path / "runs" / "r1"
    writer = open_run(run_dir)
    meta = run_meta(run_dir)
    assert meta["status"] == "running" and meta["schema_version"] == 1
    assert meta["config_hash"] == config_hash(SCI) == writer.config_hash
    assert meta["scientific"] == SCI and meta["config"]["hydra"] == {"x": 1}
    assert (meta["code"], meta["inputs"], meta["overrides"]) == (CODE, INPUTS, ["budget=2000"])
    assert meta["packages"] == {"numpy": "1.26"} and "output_dir" in meta["hash_rule"]["excluded_keys"]
    assert (run_dir / "records.jsonl").read_bytes() == b""
    for i in range(3):
        writer.append(rec(i))
    assert writer.finished_keys() == {"t0", "t1", "t2"}
    assert (run_dir / "records.jsonl").read_bytes().splitlines()[1] == b'{"key":"t1","ok":false,"score":0.3333333333333333}'
    writer.add_timing("graph", 1.5)
    manifest = writer.seal()
    meta = run_meta(run_dir)
    assert meta["status"] == "complete" and meta["record_count"] == 3 and meta["error"] is None
    assert meta["timings"]["phases"] == {"graph": 1.5} and meta["timings"]["completed_at"]
    assert meta["sessions"][0]["outcome"] == "complete" and meta["sessions"][0]["rows_appended"] == 3
    lines = manifest.read_text().splitlines()
    assert [line.split("  ")[1] for line in lines] == ["records.jsonl", "run.json"]
    for path in run_dir.iterdir():
        assert path.stat().st_mode & 0o222 == 0, f"{path.name} is still writable"
    assert verify(run_dir) == []
    if shutil.which("sha256sum"):
        subprocess.run(["sha256sum", "--quiet", "-c", "MANIFEST.sha256"], cwd=run_dir, check=True)
    with pytest.raises(SealedRunError, match="sealed"):
        writer.append(rec(9))


def test_reopening_a_sealed_run_writes_nothing(tmp_path):
    with open_run(tmp_path) as writer:
        writer.append(rec(0))
        writer.seal()
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()}
    with open_run(tmp_path) as again:
        assert again.sealed and again.finished_keys() == {"t0"}
        with pytest.raises(SealedRunError, match="new run_dir"):
            again.append(rec(1))
        assert again.seal() == tmp_path / "MANIFEST.sha256"
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()} == before


def test_exception_marks_failed_and_failed_run_resumes(tmp_path):
    with pytest.raises(ZeroDivisionError):
        with open_run(tmp_path) as writer:
            writer.append(rec(0))
            1 / 0
    meta = run_meta(tmp_path)
    assert meta["status"] == "failed" and meta["error"]["type"] == "ZeroDivisionError"
    assert "1 / 0" in meta["error"]["traceback"]
    with pytest.raises(RunClosedError):
        writer.append(rec(1))
    with open_run(tmp_path) as writer:
        assert writer.finished_keys() == {"t0"}
        writer.append(rec(1))
        writer.seal()
    meta = run_meta(tmp_path)
    assert [s["outcome"] for s in meta["sessions"]] == ["failed", "complete"]
    assert meta["sessions"][1]["rows_at_start"] == 1 and meta["status"] == "complete"
    assert meta["error"] is None and meta["sessions"][0]["error"]["type"] == "ZeroDivisionError"


def test_close_without_seal_leaves_a_resumable_run(tmp_path):
    open_run(tmp_path).close()
    assert run_meta(tmp_path)["status"] == "running"
    moved = {**SCI, "output_dir": "/elsewhere", "cache_dir": "/c"}  # paths differ: same run
    with open_run(tmp_path, scientific=moved) as writer:
        assert writer.finished_keys() == set()


@pytest.mark.parametrize("record, message", [
    ({"score": 1}, "field 'key'"), ({"key": ""}, "field 'key'"), ({"key": 3}, "field 'key'"),
    ({"key": "t", "score": math.nan}, r"record 't': \$.score: nan"),
    ({"key": "t", "m": {"f1": [0.5, math.inf]}}, r"\$.m.f1\[1\]: inf"),
    ({"key": "t", "when": object()}, "not a JSON value"), (["t"], "must be a dict"),
])
def test_append_refuses_bad_records(tmp_path, record, message):
    with open_run(tmp_path) as writer:
        with pytest.raises(RecordError, match=message):
            writer.append(record)
    assert (tmp_path / "records.jsonl").read_bytes() == b""


def test_duplicate_key_refused(tmp_path):
    with open_run(tmp_path) as writer:
        writer.append(rec(0))
        with pytest.raises(RecordError, match="already recorded"):
            writer.append({**rec(0), "score": 2})
    assert len((tmp_path / "records.jsonl").read_bytes().splitlines()) == 1


def test_torn_last_line_is_cut_away_on_reopen(tmp_path):
    with open_run(tmp_path) as writer:
        for i in range(3):
            writer.append(rec(i))
    complete = (tmp_path / "records.jsonl").read_bytes()
    with open(tmp_path / "records.jsonl", "ab") as handle:
        handle.write(b'{"key":"t3","ok":fal')  # what a kill during write(2) can leave
    with open_run(tmp_path) as writer:
        assert writer.finished_keys() == {"t0", "t1", "t2"}
        assert (tmp_path / "records.jsonl").read_bytes() == complete
        writer.append(rec(3))
    assert (tmp_path / "records.jsonl").read_bytes() == complete + json.dumps(
        rec(3), sort_keys=True, separators=(",", ":")).encode() + b"\n"
    repair = run_meta(tmp_path)["repairs"][0]
    assert repair["offset"] == len(complete) and repair["dropped_bytes"] == 20


def test_corrupt_middle_line_is_an_error_with_file_and_line(tmp_path):
    with open_run(tmp_path) as writer:
        for i in range(3):
            writer.append(rec(i))
    path = tmp_path / "records.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0] + b'{"key":"t1",oops\n' + lines[2])
    with pytest.raises(CorruptRecordsError, match=r"records\.jsonl:2: not valid UTF-8 JSON"):
        open_run(tmp_path)
    path.write_bytes(lines[0] + lines[0] + lines[2])
    with pytest.raises(CorruptRecordsError, match=r"records\.jsonl:2: duplicate key 't0' \(first on line 1\)"):
        open_run(tmp_path)
    path.write_bytes(b"".join(lines))  # restored: the failed opens released the folder lock
    with open_run(tmp_path) as writer:
        assert writer.finished_keys() == {"t0", "t1", "t2"}


def test_different_config_hash_or_inputs_refused(tmp_path):
    with open_run(tmp_path) as writer:
        writer.append(rec(0))
    with pytest.raises(RunMismatchError, match=r"differs at: budget \(2000 -> 4000\).*never mixed"):
        open_run(tmp_path, scientific={**SCI, "budget": 4000})
    with pytest.raises(RunMismatchError, match="field 'inputs' differs for tasks"):
        open_run(tmp_path, inputs={"tasks": "c" * 64})
    assert run_meta(tmp_path)["config_hash"] == config_hash(SCI)


def test_stray_files_without_run_json_refused(tmp_path):
    (tmp_path / "records.jsonl").write_text('{"key":"x"}\n')
    with pytest.raises(RunMismatchError, match="no run.json"):
        open_run(tmp_path)


def test_second_writer_on_the_same_folder_refused(tmp_path):
    with open_run(tmp_path):
        with pytest.raises(RunInUseError, match="another RunWriter"):
            open_run(tmp_path)
    open_run(tmp_path).close()


@pytest.mark.parametrize("kwargs, message", [
    ({"inputs": {"tasks": "abc"}}, "64 lowercase hex"),
    ({"code": {"commit": "x"}}, "code_state"),
    ({"packages": {"numpy": 1}}, "package_versions"),
    ({"overrides": "budget=1"}, "list of str"),
])
def test_constructor_arguments_checked(tmp_path, kwargs, message):
    args = dict(config={}, scientific=SCI, overrides=[], inputs=INPUTS, code=CODE, packages={})
    with pytest.raises((TypeError, ValueError), match=message):
        RunWriter(tmp_path, **{**args, **kwargs})
    assert not (tmp_path / "run.json").exists()


def test_code_state_and_package_versions(tmp_path):
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    with pytest.raises(CodeStateError, match="git checkout"):
        code_state(tmp_path)
    subprocess.run([*git, "init", "-q"], check=True)
    (tmp_path / "a.py").write_text("x = 1\n")
    subprocess.run([*git, "add", "a.py"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "c"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert code_state(tmp_path) == {"commit": head, "dirty": False}
    (tmp_path / "untracked.txt").write_text("outputs do not count")
    assert code_state(tmp_path)["dirty"] is False
    (tmp_path / "a.py").write_text("x = 2\n")
    assert code_state(tmp_path) == {"commit": head, "dirty": True}
    versions = package_versions(["pytest", "beacon", "no-such-dist-beacon-test"])
    assert list(versions) == ["beacon", "no-such-dist-beacon-test", "pytest"]
    assert versions["beacon"] == "0.1.0" and versions["no-such-dist-beacon-test"] is None
    assert versions["pytest"] == pytest.__version__
