"""Resource limits seen from real pytest runs: a fork storm, a memory hog, a full /tmp, an escaped process.

Each test's code under test tries to take more than its run allows and the
kernel stops it; the run records which limit it reached and fails. The
numbers are small (tens of processes, a few hundred MB) so the suite stays
gentle on a shared 2-core machine.
"""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from beacon.repair.limits import Limits, RunCgroup
from beacon.repair.pytest_runner import run_pytest, verify_run
from beacon.repair.sandbox import find_bwrap

BWRAP, WHY_NO_BWRAP = find_bwrap()
needs_bwrap = pytest.mark.skipif(BWRAP is None, reason=f"needs a working bubblewrap: {WHY_NO_BWRAP}")
_PROBE_GROUP, WHY_NO_CGROUP = RunCgroup.create(Limits(processes=8, memory_mb=64, tmp_mb=0))
if _PROBE_GROUP is not None:
    _PROBE_GROUP.destroy()
needs_cgroup = pytest.mark.skipif(_PROBE_GROUP is None, reason=f"needs a writable cgroup tree: {WHY_NO_CGROUP}")

FORK_STORM = '''
import os, time


def test_storm():
    started = []
    for _ in range(60):
        pid = os.fork()
        if pid == 0:
            time.sleep(5)
            os._exit(0)
        started.append(pid)
'''

MEMORY_HOG = '''
def test_hog():
    blocks = [bytearray(16 << 20) for _ in range(40)]  # 640 MB, touched (bytearray zero-fills)
    assert len(blocks) == 40
'''

FILL_TMP = '''
import os


def test_fill():
    with open("/tmp/big", "wb") as fh:
        for _ in range(12):
            fh.write(b"x" * (1 << 20))
'''

ESCAPE = '''
import subprocess, sys


def test_escape():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
'''

HONEST = '''
import threading


def test_threads_and_memory():
    blocks = [bytearray(1 << 20) for _ in range(20)]
    threads = [threading.Thread(target=lambda: None) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with open("/tmp/scratch", "wb") as fh:
        fh.write(b"x" * (2 << 20))
    assert len(blocks) == 20
'''


def checkout(tmp_path: Path, body: str) -> Path:
    root = tmp_path / "checkout"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_it.py").write_text(body)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def run(tmp_path, body, limits, sandbox="required"):
    return run_pytest(checkout(tmp_path, body), ["tests"], protected={}, sandbox=sandbox, limits=limits,
                      report_dir=tmp_path / "report", timeout=60)


@needs_cgroup
@needs_bwrap
def test_a_fork_storm_is_stopped_at_the_process_limit_and_the_run_fails(tmp_path):
    done = run(tmp_path, FORK_STORM, Limits(processes=30, memory_mb=2048, tmp_mb=64))
    assert done.limits_hit == ("processes",)
    assert done.limits["hit"] == ["processes"]
    assert done.limits["enforced_by"][0].startswith("cgroup v")
    verdict = verify_run(done, ["tests/test_it.py::test_storm"])
    assert not verdict.passed
    assert any("resource limit reached: processes" in r for r in verdict.reasons), verdict.reasons


@needs_cgroup
@needs_bwrap
def test_a_memory_hog_is_killed_at_the_memory_limit_and_the_run_fails(tmp_path):
    done = run(tmp_path, MEMORY_HOG, Limits(processes=64, memory_mb=256, tmp_mb=64))
    assert "memory" in done.limits_hit
    verdict = verify_run(done, ["tests/test_it.py::test_hog"])
    assert not verdict.passed and any("resource limit reached" in r for r in verdict.reasons)


@needs_bwrap
def test_the_sandbox_tmp_is_as_small_as_configured(tmp_path):
    done = run(tmp_path, FILL_TMP, Limits(processes=64, memory_mb=1024, tmp_mb=8))
    assert done.observed["tmp_size_mb"] == 8
    assert "tmpfs /tmp (empty scratch, 8 MiB)" in done.mounts
    assert "tmpfs size" in done.limits["enforced_by"]
    verdict = verify_run(done, ["tests/test_it.py::test_fill"])
    assert not verdict.passed
    assert "No space left on device" in done.report.testcases[0].message + done.stdout


@needs_cgroup
def test_a_process_that_escapes_the_process_group_dies_with_the_run_even_unsandboxed(tmp_path):
    done = run(tmp_path, ESCAPE, Limits(processes=64, memory_mb=1024, tmp_mb=0), sandbox="off")
    assert verify_run(done, ["tests/test_it.py::test_escape"]).passed, (done.stdout, done.stderr)
    time.sleep(0.2)
    survivors = subprocess.run(["pgrep", "-f", "import time; time.sleep(60)"], capture_output=True, text=True)
    assert survivors.stdout.strip() == "", "the setsid child outlived the run"


@needs_cgroup
@needs_bwrap
def test_an_honest_suite_passes_under_the_default_limits_and_records_them(tmp_path):
    done = run(tmp_path, HONEST, Limits())
    assert verify_run(done, ["tests/test_it.py::test_threads_and_memory"]).passed, (done.stdout, done.stderr)
    assert done.limits == {"processes": 512, "memory_mb": 4096, "tmp_mb": 1024, "hit": [], "not_enforced": "",
                           "enforced_by": [done.limits["enforced_by"][0], "tmpfs size"]}
    assert done.observed == {"uid": 1000, "gid": 1000, "loopback_only": True, "proc_mounted": False,
                             "checkout_writable": False, "tmp_size_mb": 1024}


@needs_cgroup
def test_the_run_cgroup_is_removed_afterwards(tmp_path):
    group, _ = RunCgroup.create(Limits(processes=16, memory_mb=64, tmp_mb=0))
    folders = set(group.folders.values())
    assert all(f.is_dir() for f in folders)
    proc = subprocess.Popen(group.wrap(["sleep", "30"]))
    time.sleep(0.2)
    assert any(str(proc.pid) in (f / "cgroup.procs").read_text().split() for f in folders)
    group.destroy()
    assert proc.wait(timeout=5) == -9
    assert not any(f.exists() for f in folders)


def test_limits_are_checked():
    with pytest.raises(ValueError, match=r"limits\.memory_mb must be an integer >= 0"):
        Limits(memory_mb=-1)
    with pytest.raises(ValueError, match=r"limits\.processes"):
        Limits(processes=1.5)
    assert RunCgroup.create(Limits(processes=0, memory_mb=0, tmp_mb=8)) == (None, "no process or memory limit configured")


def test_without_a_writable_cgroup_tree_the_run_says_why(tmp_path, monkeypatch):
    # An unprivileged harness: the run still happens, and its evidence names what was not enforced.
    if os.geteuid() == 0:
        pytest.skip("runs as root; the unprivileged path is exercised where the harness is not root")
    done = run(tmp_path, HONEST, Limits(), sandbox="auto")
    assert done.limits["enforced_by"] in ([], ["tmpfs size"])
    assert done.limits["not_enforced"]


@needs_cgroup
@needs_bwrap
def test_the_run_measures_its_peaks(tmp_path):
    done = run(tmp_path, HONEST, Limits())
    assert done.peaks["memory_mb"] >= 20  # the test holds 20 MiB of bytearrays
    assert 2 <= done.peaks["processes"] < 64  # sh/bwrap/python and the test's threads


def test_the_repair_config_carries_the_limits_and_refuses_negative_ones():
    from hydra import compose, initialize_config_dir

    from experiments.errors import UsageError
    from experiments.runner import run_limits, scientific_config
    from experiments.schema import check_values, validate

    conf = Path(__file__).resolve().parents[2] / "conf"
    with initialize_config_dir(config_dir=str(conf), version_base=None):
        cfg = validate(compose(config_name="repair", overrides=["limits.memory_mb=2048"]))
        bad = validate(compose(config_name="repair", overrides=["limits.processes=-1"]))
    assert run_limits(cfg) == Limits(processes=512, memory_mb=2048, tmp_mb=1024)
    assert "limits" not in scientific_config(cfg)  # machine protection, not part of a result's identity
    check_values(cfg)
    with pytest.raises(UsageError, match=r"limits\.processes=-1: expected an integer >= 0"):
        check_values(bad)


@needs_bwrap
def test_a_probe_that_contradicts_the_settings_is_refused():
    from beacon.repair.sandbox import _contradictions, _observe

    allowed = dict(_observe(BWRAP, "allow", 0))
    if allowed["loopback_only"]:
        pytest.skip("this machine has no network interface beside loopback to see")
    # What a sandbox with network allowed sees is exactly what a "deny" run must never claim as isolated.
    assert _contradictions(allowed, "deny") == ["a network interface beside loopback"]
    assert _contradictions(allowed, "allow") == []
    assert _contradictions({**allowed, "uid": 0, "proc_mounted": True}, "allow") == ["uid 0, expected 1000",
                                                                                     "/proc is mounted"]


@needs_cgroup
def test_run_cgroups_of_a_harness_that_died_are_removed_by_the_next_run(tmp_path):
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid that no longer runs (a harness killed before it could destroy its cgroup)
    group, _ = RunCgroup.create(Limits(processes=16, memory_mb=64, tmp_mb=0))
    parents = {f.parent for f in group.folders.values()}
    group.destroy()
    stale = [p / f"beacon-{gone.pid}-deadbeef0000" for p in parents]
    for folder in stale:
        folder.mkdir()
    alive = [p / f"beacon-{os.getpid()}-cafe00000000" for p in parents]  # this process: not stale
    for folder in alive:
        folder.mkdir()
    try:
        again, _ = RunCgroup.create(Limits(processes=16, memory_mb=64, tmp_mb=0))
        again.destroy()
        assert not any(f.exists() for f in stale)
        assert all(f.exists() for f in alive)
    finally:
        for folder in stale + alive:
            if folder.exists():
                folder.rmdir()
