"""``beacon.scratch``: a job's temporary folder goes when the job ends, however it ends, and a killed job's goes with
the next job of its kind (real processes, a real TMPDIR of the test's own)."""
from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from beacon.scratch import make_owned_tempdir, owned_tempdir, sweep_stale

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def scratch(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_the_folder_goes_when_the_block_ends(scratch):
    with owned_tempdir("beacon-x-") as work:
        assert work.parent == scratch and work.name.startswith(f"beacon-x-{os.getpid()}.")
        (work / "deep" / "er").mkdir(parents=True)
        (work / "deep" / "er" / "f").write_text("x")
        (work / "deep" / "er" / "f").chmod(0o400)
        (work / "deep" / "er").chmod(stat.S_IRUSR | stat.S_IXUSR)  # a test made it read-only
    assert list(scratch.iterdir()) == []


def test_a_tree_too_deep_for_rmtree_goes_too(scratch):
    with owned_tempdir("beacon-x-") as work:
        deep = work
        for _ in range(1200):  # shutil.rmtree's recursion gives up here (RecursionError)
            deep = deep / "d"
            deep.mkdir()
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_the_folder_goes_after_an_exception_or_ctrl_c(scratch, error):
    with pytest.raises(error):
        with owned_tempdir("beacon-x-") as work:
            (work / "f").write_text("x")
            raise error("stop")
    assert list(scratch.iterdir()) == []


KILLED = """
import os, signal, sys
from beacon.scratch import make_owned_tempdir
work = make_owned_tempdir("beacon-x-")
(work / "f").write_text("x")
print(work, flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # no finally, no atexit
"""


def test_a_killed_jobs_folder_goes_with_the_next_job_and_nothing_else_does(scratch):
    run = subprocess.run([sys.executable, "-c", KILLED], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "TMPDIR": str(scratch), "PYTHONPATH": str(ROOT)})
    assert run.returncode == -signal.SIGKILL, run.stderr
    dead = Path(run.stdout.strip())
    assert dead.parent == scratch and (dead / "f").exists()
    mine = make_owned_tempdir("beacon-x-")  # a live owner (this process): kept
    keep = [scratch / "beacon-x-abc123",  # made by an older Beacon (no pid) or by hand
            scratch / "beacon-x-1-abc",  # no machine tag
            scratch / f"beacon-x-{dead.name[len('beacon-x-'):].split('.')[0]}.00000000-abc",  # another machine
            scratch / f"beacon-y-{dead.name[len('beacon-x-'):]}"]  # another prefix
    for folder in keep:
        folder.mkdir()
    with owned_tempdir("beacon-x-") as work:
        assert not dead.exists() and mine.exists() and all(k.exists() for k in keep)
        assert sorted(scratch.iterdir()) == sorted([work, mine, *keep])
    assert sweep_stale("beacon-x-") == []  # nothing stale is left
    assert sorted(scratch.iterdir()) == sorted([mine, *keep])
