"""Resume after a real ``kill -9``: the finished file is byte-identical to an uninterrupted run."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from beacon.artifacts import verify

# Shared by the child process and this test: deterministic records, some
# large enough (tens of KiB) that a kill can land inside a write.
SETUP = r'''
from beacon.artifacts import RunWriter
KEYS = [f"task-{i:03d}" for i in range(60)]

def record(i):
    return {"key": KEYS[i], "score": i / 7, "ok": i % 3 == 0, "pad": "é" * (16000 * (i % 3))}

def open_run(run_dir):
    sci = {"budget": 2000, "method": "bm25", "output_dir": str(run_dir)}
    return RunWriter(run_dir, config=sci, scientific=sci, overrides=[], inputs={},
                     code={"commit": "0" * 40, "dirty": False}, packages={})
'''
CHILD = SETUP + r'''
import sys, time
writer = open_run(sys.argv[1])
done = writer.finished_keys()
for i, key in enumerate(KEYS):
    if key not in done:
        writer.append(record(i))
        time.sleep(0.02)
writer.seal()
'''


def _finish(run_dir, namespace):
    with namespace["open_run"](run_dir) as writer:
        done = writer.finished_keys()
        for i, key in enumerate(namespace["KEYS"]):
            if key not in done:
                writer.append(namespace["record"](i))
        writer.seal()
        return done


def test_resume_after_sigkill_is_byte_identical(tmp_path):
    namespace: dict = {}
    exec(SETUP, namespace)
    reference, killed = tmp_path / "reference", tmp_path / "killed"
    _finish(reference, namespace)

    child = subprocess.Popen([sys.executable, "-c", CHILD, str(killed)])
    records = killed / "records.jsonl"
    deadline = time.monotonic() + 15
    while not (records.exists() and records.read_bytes().count(b"\n") >= 12):
        assert child.poll() is None, "child ended before it could be killed"
        assert time.monotonic() < deadline, "child wrote too slowly"
        time.sleep(0.005)
    os.kill(child.pid, signal.SIGKILL)
    assert child.wait(timeout=10) == -signal.SIGKILL
    assert json.loads((killed / "run.json").read_text())["status"] == "running"
    assert not (killed / "MANIFEST.sha256").exists()

    done = _finish(killed, namespace)
    assert 12 <= len(done) < len(namespace["KEYS"])
    assert (killed / "records.jsonl").read_bytes() == (reference / "records.jsonl").read_bytes()
    meta = json.loads((killed / "run.json").read_text())
    assert [s["outcome"] for s in meta["sessions"]] == ["interrupted", "complete"]
    assert meta["sessions"][1]["rows_at_start"] == len(done) and meta["record_count"] == 60
    assert verify(killed) == []
    # Identical scientific config despite different output_dir: same hash.
    assert meta["config_hash"] == json.loads((reference / "run.json").read_text())["config_hash"]
