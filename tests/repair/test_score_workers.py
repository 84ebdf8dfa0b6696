"""A job's test runs at once (``score_workers``; ``beacon.repair.job.run_repair_job``): the rows are the same bytes
for any number, the runs do overlap, and never more than asked.

Real control tasks, real sandboxed pytest runs; the overlap is read from the process table while the job runs.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from beacon.artifacts import RunWriter
from beacon.repair.attempt import AttemptSpec
from beacon.repair.job import run_repair_job
from beacon.repair.prepare import RunSettings
from beacon.repair.sandbox import find_bwrap
from repotools import control_tasks

SETTINGS = RunSettings(allow_local_execution=True, timeout_s=60, sandbox="required")
# no_retrieval + line_span is refused before any test run (the oracle cannot edit lines it was not shown): rows
# without a test stage sit between rows with one, and must keep their place
SPECS = [AttemptSpec(method, 2000, "vague", fmt, "oracle") for method in ("target_file", "no_retrieval", "bm25")
         for fmt in ("line_span", "diff")]


@pytest.fixture(scope="module")
def control(tmp_path_factory):
    return control_tasks(tmp_path_factory.mktemp("workers"))


def _parent(pid: str) -> str:
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()[1]


def _ours(pid: str, me: str) -> bool:
    """Whether ``pid`` descends from ``me`` (other tests may run their own pytest processes meanwhile)."""
    for _ in range(12):
        pid = _parent(pid)
        if pid == me:
            return True
        if pid in ("0", "1"):
            return False
    return False


class _Overlap:
    """The most test processes (pytest under the canary plugin) of this process alive at once, polled from
    ``/proc``."""

    def __init__(self):
        self.most, self._stop = 0, threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(5)

    def _poll(self):
        me = str(os.getpid())
        while not self._stop.wait(0.005):
            alive = 0
            for pid in os.listdir("/proc"):
                try:
                    with open(f"/proc/{pid}/comm") as comm, open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                        if comm.read().startswith("python") and b"beacon_canary_plugin" in cmdline.read() \
                                and _ours(pid, me):
                            alive += 1
                except (OSError, ValueError, IndexError):
                    continue
            self.most = max(self.most, alive)


def _job(control, tmp_path: Path, workers: int, settings: RunSettings = SETTINGS) -> tuple[bytes, int, dict]:
    resolve, tasks = control
    out = tmp_path / f"run-{workers}-{settings.sandbox}"
    writer = RunWriter(out, config={}, scientific={}, overrides=[], inputs={}, code={"commit": None, "dirty": None},
                       packages={})
    with _Overlap() as overlap:
        summary = run_repair_job(tasks[:1], resolve, SPECS, writer=writer, work_dir=out.with_name(out.name + "-work"),
                                 settings=settings, workers=workers)
    writer.close()
    return (out / "records.jsonl").read_bytes(), overlap.most, summary.outcomes


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the process table from /proc")


@needs_proc
@pytest.mark.skipif(find_bwrap()[0] is None, reason="score_workers > 1 needs the sandbox")
def test_rows_are_the_same_bytes_and_the_runs_overlap_up_to_the_limit(control, tmp_path):
    alone, most_alone, outcomes = _job(control, tmp_path, 1)
    together, most_together, _ = _job(control, tmp_path, 2)
    assert outcomes == {"pass": 5, "invalid_patch": 1}, outcomes
    assert together == alone
    assert most_alone == 1  # (the task's validation runs its suites one at a time too)
    assert most_together == 2


@needs_proc
def test_without_the_sandbox_the_tests_run_one_at_a_time(control, tmp_path, caplog):
    # unsandboxed runs share the machine's /tmp, ports and the user's files
    _, most, outcomes = _job(control, tmp_path, 2, RunSettings(allow_local_execution=True, timeout_s=60,
                                                               sandbox="off"))
    assert outcomes == {"pass": 5, "invalid_patch": 1} and most == 1, (outcomes, most)
    assert "score_workers=2 needs sandbox=required" in caplog.text


def test_a_job_needs_at_least_one_worker(control, tmp_path):
    resolve, tasks = control
    writer = RunWriter(tmp_path / "run", config={}, scientific={}, overrides=[], inputs={},
                       code={"commit": None, "dirty": None}, packages={})
    with pytest.raises(ValueError, match="workers must be at least 1, got 0"):
        run_repair_job(tasks[:1], resolve, SPECS, writer=writer, work_dir=tmp_path / "work", settings=SETTINGS,
                       workers=0)
    writer.close()


def test_the_config_key_is_neutral_and_checked():
    from hydra import compose, initialize_config_dir

    from experiments.cli import NEUTRAL_KEYS
    from experiments.errors import UsageError
    from experiments.runner import scientific_config
    from experiments.schema import check_values, validate

    conf = Path(__file__).resolve().parents[2] / "conf"
    with initialize_config_dir(config_dir=str(conf), version_base=None):
        repair = validate(compose(config_name="repair"))
        control = validate(compose(config_name="control"))
        bad = validate(compose(config_name="repair", overrides=["score_workers=0"]))
    assert (repair.score_workers, control.score_workers) == (1, 2)
    assert "score_workers" in NEUTRAL_KEYS and "score_workers" not in scientific_config(control)
    check_values(control)
    with pytest.raises(UsageError, match=r"score_workers=0: expected an integer >= 1"):
        check_values(bad)
