"""beacon.repair.process.run_captured: a command it runs does not outlive the harness; what does (a sandbox whose
pid 1 missed its parent-death signal) is killed by the next job that sweeps the dead harness's folder.

The command runs in its own session (so a timeout can kill its whole group), which also puts it out of reach of a
``kill -9`` of the harness's own group: a job killed that way left its test run waiting forever to write its report.
Where util-linux's ``setpriv --pdeathsig`` exists, the command (the harness's own child: under bubblewrap, whose
``--die-with-parent`` then takes the whole sandbox down) is killed when the harness dies.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from beacon.repair.sandbox import bwrap_prefix, find_bwrap, write_synthetic_etc
from beacon.scratch import _host, _names, sweep_stale

HARNESS = """
import sys
from beacon.repair.process import run_captured
run_captured([sys.executable, "-c", "import time; time.sleep(300)", "sleeper", sys.argv[1]], cwd=".",
             env={"PATH": "/usr/bin:/bin"}, timeout=600, output_cap=1000)
"""


def _alive_naming(marker: str) -> list[int]:
    """The live processes running the harness's command (its own command line names the marker differently)."""
    return _alive_holding(f"sleeper\0{marker}")


def _alive_holding(needle: str) -> list[int]:
    """Live, non-zombie processes whose command line holds ``needle``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                command = fh.read()
            with open(f"/proc/{pid}/stat") as fh:
                zombie = fh.read().rsplit(") ", 1)[-1][:1] == "Z"
        except OSError:
            continue
        if needle.encode() in command and not zombie:
            found.append(int(pid))
    return found


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="util-linux's setpriv is not installed")
def test_a_command_dies_with_the_harness_killed_by_sigkill():
    marker = f"beacon-lifetime-{uuid.uuid4().hex}"
    harness = subprocess.Popen([sys.executable, "-c", HARNESS, marker], start_new_session=True)
    deadline = time.time() + 30
    while not _alive_naming(marker) and time.time() < deadline:
        time.sleep(0.05)
    assert _alive_naming(marker), "the command never started"
    os.killpg(harness.pid, signal.SIGKILL)
    harness.wait()
    deadline = time.time() + 10
    while _alive_naming(marker) and time.time() < deadline:
        time.sleep(0.05)
    left = _alive_naming(marker)
    for pid in left:  # (the test cleans up after a failure: the command's whole group)
        os.killpg(os.getpgid(pid), signal.SIGKILL)
    assert left == [], "the command outlived the harness"


def _sleeping(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker`` (a unique ``sleep`` length)."""
    return _alive_holding(marker)


def _wait_for(check, seconds: float = 20.0):
    deadline = time.time() + seconds
    while not check() and time.time() < deadline:
        time.sleep(0.05)
    return check()


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()  # reaped: its pid is free (and not soon reused: pids are handed out in rising order)
    return proc.pid


def _marker() -> str:
    return f"300.{uuid.uuid4().int % 10**9:09d}"  # a sleep length no other process uses


def _cleanup(*markers: str) -> None:
    for marker in markers:
        for pid in _sleeping(marker):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.mark.skipif(find_bwrap()[0] is None, reason="bubblewrap does not work here")
def test_the_next_run_kills_a_sandbox_its_dead_harness_left(tmp_path):
    """A sandbox whose harness is gone (pid 1 missed the parent-death signal) dies when the next run sweeps its
    folder: the whole pid namespace, down to a command whose own line names nothing of the folder."""
    folder = tmp_path / f"beacon-pytest-{_dead_pid()}-abcdefgh"
    (folder / "box").mkdir(parents=True)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    prefix, _ = bwrap_prefix(find_bwrap()[0], checkout, network="deny", etc_dir=write_synthetic_etc(folder / "etc"),
                             readonly_files=[folder], writable=[folder / "box"])
    inner, child = _marker(), _marker()
    sandbox = subprocess.Popen([*prefix, "/bin/sh", "-c", f"sleep {child} & sleep {inner}; :"],
                               start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert _wait_for(lambda: _sleeping(inner) and _sleeping(child)), "the sandbox never started"
        swept = subprocess.run([sys.executable, "-c", "from beacon.repair.pytest_runner import _remove_stale_scratch;"
                                " _remove_stale_scratch()"], env={**os.environ, "TMPDIR": str(tmp_path)}, timeout=60)
        assert swept.returncode == 0
        assert not folder.exists()
        assert _wait_for(lambda: sandbox.poll() is not None, 10), "bubblewrap outlived the sweep"
        assert _wait_for(lambda: not _sleeping(inner) and not _sleeping(child), 10), "the sandbox's commands outlived it"
    finally:
        sandbox.kill()
        sandbox.wait()
        _cleanup(inner, child)


def test_a_sweep_kills_a_dead_jobs_process_group_and_nothing_else(tmp_path):
    """Without a sandbox: the dead job's process that names its folder and the rest of that process's group go;
    a process naming a longer folder name or a live job's folder stays."""
    dead, host = _dead_pid(), _host()
    stale = tmp_path / f"beacon-work-{dead}.{host}-abcdefgh"
    live = tmp_path / f"beacon-work-{os.getpid()}.{host}-abcdefgh"
    for path in (stale, live):
        path.mkdir()
    leader, member, longer, other = _marker(), _marker(), _marker(), _marker()
    procs = [subprocess.Popen(["/bin/sh", "-c", script], start_new_session=True) for script in (
        f"sleep {member} & sleep {leader}; : {stale}",
        f"sleep {longer}; : {stale}x",
        f"sleep {other}; : {live}",
    )]
    try:
        assert _wait_for(lambda: all(_sleeping(m) for m in (leader, member, longer, other))), "never started"
        assert sweep_stale("beacon-work-", root=tmp_path) == [stale]
        assert _wait_for(lambda: procs[0].poll() is not None, 10), "the dead job's process outlived the sweep"
        assert _wait_for(lambda: not _sleeping(leader) and not _sleeping(member), 10), "its group outlived it"
        time.sleep(0.3)
        assert procs[1].poll() is None and procs[2].poll() is None, "a process of another folder was killed"
        assert live.exists()
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
        _cleanup(leader, member, longer, other)


_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.-", min_size=1, max_size=12)


@given(folder=_NAME, tail=_NAME, sep=st.sampled_from(["/", " ", "\0", "'", '"', ":"]),
       before=st.text(alphabet=" =:'abc", max_size=20))
def test_a_command_names_a_folder_only_where_the_name_ends(folder, tail, sep, before):
    path = f"/tmp/beacon-work-{folder}"
    needle = (path.encode(),)
    assert _names(f"{before}{path}".encode(), needle)
    assert _names(f"{before}{path}{sep}{tail}".encode(), needle)
    assert not _names(f"{before}{path}{tail}".encode(), needle)
