"""The one run-folder skeleton (``experiments.job.run_job``) on real run folders: seal, resume, skip, fail."""
from __future__ import annotations

import json

import pytest

from beacon.artifacts import verify
from experiments.errors import UsageError
from experiments.job import RunSpec, run_job


def spec(tmp_path, **scientific) -> RunSpec:
    sci = {"kind": "demo", **scientific}
    return RunSpec(tmp_path / "run", config={**sci, "work_dir": "/tmp/x"}, scientific=sci, overrides=["a=1"],
                   inputs={"data": "0" * 64})


def status(tmp_path) -> dict:
    return json.loads((tmp_path / "run" / "run.json").read_text())


def test_a_job_is_sealed_and_a_sealed_one_is_not_run_again(tmp_path):
    def body(writer):
        writer.append({"key": "r1", "value": 1})
        return "done"

    assert run_job(spec(tmp_path), body) == "done"
    assert status(tmp_path)["status"] == "complete" and verify(tmp_path / "run") == []
    assert run_job(spec(tmp_path), lambda writer: pytest.fail("a sealed run is not run again")) is None


def test_a_failure_is_recorded_with_its_one_line_reason_and_resumes(tmp_path):
    def failing(writer):
        writer.append({"key": "r1"})
        raise UsageError("budget=-1: expected a positive integer\n(see README 'Configs')")

    with pytest.raises(UsageError):
        run_job(spec(tmp_path), failing)
    meta = status(tmp_path)
    assert meta["status"] == "failed"
    assert meta["error"]["message"] == "budget=-1: expected a positive integer | (see README 'Configs')"

    def resume(writer):
        assert writer.finished_keys() == {"r1"}  # the row written before the failure is kept
        writer.append({"key": "r2"})

    run_job(spec(tmp_path), resume)
    assert status(tmp_path)["status"] == "complete" and status(tmp_path)["record_count"] == 2


def test_another_scientific_config_in_the_same_folder_is_refused(tmp_path):
    run_job(spec(tmp_path), lambda writer: None)
    with pytest.raises(Exception, match="config"):
        run_job(spec(tmp_path, budget=2), lambda writer: pytest.fail("must not run"))
