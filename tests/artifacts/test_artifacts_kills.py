"""RunWriter after real SIGKILLs at the awkward moments: session bookkeeping stays exact, sealing completes.

Each scenario runs a writer in a real subprocess and kills it with SIGKILL at one point
(after appending rows, after run.json says complete but before the manifest, between
sealing's chmods); the next RunWriter on the folder must record what really happened.
A sealed run that was damaged afterwards is refused with verify's findings.
"""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from beacon.artifacts import RunWriter, verify
from beacon.artifacts.errors import DamagedRunError

ROOT = Path(__file__).resolve().parents[2]
ARGS = dict(config={"budget": 1}, scientific={"budget": 1}, overrides=["budget=1"], inputs={"tasks": "b" * 64},
            code={"commit": "a" * 40, "dirty": False}, packages={})


def killed_writer(run_dir: Path, body: str) -> None:
    """Run ``body`` with ``w`` an open RunWriter on ``run_dir`` in a subprocess that SIGKILLs itself."""
    script = textwrap.dedent(f"""
        import os, pathlib, signal
        import beacon.artifacts.writer as writer_module
        from beacon.artifacts import RunWriter
        def die(*_a, **_k):
            os.kill(os.getpid(), signal.SIGKILL)
        w = RunWriter(pathlib.Path({str(run_dir)!r}), **{ARGS!r})
    """) + textwrap.dedent(body) + "\ndie()\n"
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr


def meta(run_dir: Path) -> dict:
    return json.loads((run_dir / "run.json").read_text())


def test_a_killed_session_counts_the_rows_it_appended(tmp_path):
    run_dir = tmp_path / "run"
    killed_writer(run_dir, "for i in range(3):\n    w.append({'key': f'k{i}'})\n")
    assert meta(run_dir)["sessions"][0]["rows_appended"] == 0  # counted in memory: the file is stale
    killed_writer(run_dir, "w.append({'key': 'k3'})\n")
    writer = RunWriter(run_dir, **ARGS)
    writer.append({"key": "k4"})
    writer.seal()
    sessions = meta(run_dir)["sessions"]
    assert [(s["outcome"], s["rows_at_start"], s["rows_appended"]) for s in sessions] == [
        ("interrupted", 0, 3), ("interrupted", 3, 1), ("complete", 4, 1)]
    assert verify(run_dir) == []


def test_a_kill_inside_seal_leaves_one_complete_session(tmp_path):
    run_dir = tmp_path / "run"
    # run.json is written as complete, then the process dies before MANIFEST.sha256 exists
    killed_writer(run_dir, "w.append({'key': 'k0'})\nwriter_module.write_manifest = die\nw.seal()\n")
    assert meta(run_dir)["status"] == "complete" and not (run_dir / "MANIFEST.sha256").exists()
    writer = RunWriter(run_dir, **ARGS)
    assert not writer.sealed and writer.finished_keys() == {"k0"}
    writer.seal()
    sessions = meta(run_dir)["sessions"]
    assert [s["outcome"] for s in sessions] == ["interrupted", "complete"]
    assert [s["rows_appended"] for s in sessions] == [1, 0] and meta(run_dir)["record_count"] == 1
    assert verify(run_dir) == []


def test_a_kill_between_chmods_is_finished_by_the_next_open(tmp_path):
    run_dir = tmp_path / "run"
    killed_writer(run_dir, textwrap.dedent("""
        w.append({'key': 'k0'})
        calls = []
        original = pathlib.Path.chmod
        def chmod(self, mode, **kw):
            calls.append(self)
            if len(calls) == 2:
                die()
            return original(self, mode, **kw)
        pathlib.Path.chmod = chmod
        w.seal()
    """))
    writable = [p.name for p in run_dir.iterdir() if p.stat().st_mode & stat.S_IWUSR]
    assert (run_dir / "MANIFEST.sha256").exists() and writable  # the kill left files writable
    writer = RunWriter(run_dir, **ARGS)
    assert writer.sealed
    writer.close()
    assert [p.name for p in run_dir.iterdir() if p.stat().st_mode & 0o222] == []


def test_a_damaged_sealed_run_is_refused_with_the_findings(tmp_path):
    run_dir = tmp_path / "run"
    writer = RunWriter(run_dir, **ARGS)
    for i in range(3):
        writer.append({"key": f"k{i}"})
    writer.seal()
    records = run_dir / "records.jsonl"
    records.chmod(0o644)
    records.write_bytes(records.read_bytes()[:-5])  # truncated
    with pytest.raises(DamagedRunError, match=r"sealed run does not verify .*records.jsonl"):
        RunWriter(run_dir, **ARGS)
