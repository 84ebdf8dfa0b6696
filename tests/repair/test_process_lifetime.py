"""beacon.repair.process.run_captured: a command it runs does not outlive the harness.

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

HARNESS = """
import sys
from beacon.repair.process import run_captured
run_captured([sys.executable, "-c", "import time; time.sleep(300)", "sleeper", sys.argv[1]], cwd=".",
             env={"PATH": "/usr/bin:/bin"}, timeout=600, output_cap=1000)
"""


def _alive_naming(marker: str) -> list[int]:
    """The live processes running the harness's command (its own command line names the marker differently)."""
    needle = f"sleeper\0{marker}".encode()
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                command = fh.read()
            with open(f"/proc/{pid}/stat") as fh:
                zombie = fh.read().split(") ")[-1][:1] == "Z"
        except OSError:
            continue
        if needle in command and not zombie:
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
