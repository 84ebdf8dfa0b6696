"""A newcomer's mistakes, end to end: each named error is one stderr line with exit status 2.

Real subprocesses of the real entry points. Each test asserts the single line
names the key, field or file:line:column and what was expected, and that no
traceback is printed; a multirun with one bad cell completes the others,
records the failed one as ``failed`` in its run.json and exits 1 naming it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "experiments" / "data" / "boltons_pilot.jsonl"


def run(*args, cwd=ROOT, env=None, timeout=600):
    # PYTHONPATH: this checkout's code, also when the command runs from another directory
    base = {k: v for k, v in os.environ.items() if k != "HYDRA_FULL_ERROR"}
    env = {**base, "CI": "1", "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def one_error_line(out: subprocess.CompletedProcess) -> str:
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode == 2, (out.returncode, out.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr[-2000:]
    assert "Traceback" not in out.stderr + out.stdout
    return lines[0]


def first_row() -> dict:
    return json.loads(MANIFEST.read_text().splitlines()[0])


@pytest.mark.parametrize("override, expected", [
    ("+budgt=2000", ["config key 'budgt'", "did you mean 'budget'", "expected one of"]),
    ("method.name=bm52", ["method.name='bm52'", "unknown retrieval method", "did you mean 'bm25'"]),
    ("budget=-5", ["budget=-5", "integer >= 0"]),
])
def test_config_mistakes_are_one_line_naming_the_key(tmp_path, override, expected):
    line = one_error_line(run("-m", "experiments.repair", override, f"hydra.run.dir={tmp_path}"))
    for text in expected:
        assert text in line, line
    assert not (tmp_path / "run").exists()  # nothing started


def test_a_missing_manifest_file_names_the_key(tmp_path):
    line = one_error_line(run("-m", "experiments.repair", "tasks=manifest", f"tasks.manifest={tmp_path}/nope.jsonl",
                              f"tasks.repos_dir={tmp_path}", f"hydra.run.dir={tmp_path}/r"))
    assert f"tasks.manifest='{tmp_path}/nope.jsonl'" in line and "does not exist" in line


def test_a_missing_manifest_field_names_file_line_and_field(tmp_path):
    row = first_row()
    del row["commit"]
    manifest = tmp_path / "tasks.jsonl"
    manifest.write_text(json.dumps(row) + "\n")
    line = one_error_line(run("-m", "experiments.repair", "tasks=manifest", f"tasks.manifest={manifest}",
                              f"tasks.repos_dir={tmp_path}", f"hydra.run.dir={tmp_path}/r"))
    assert f"{manifest}:1: field 'commit': missing" in line


def test_a_malformed_jsonl_line_names_the_right_column(tmp_path):
    text = MANIFEST.read_text().splitlines()[0]
    key = text.index(', "repo"')
    bad = text[:key] + ",," + text[key + 1:]  # ',,' after the task_id value: the fault is the second comma
    manifest = tmp_path / "tasks.jsonl"
    manifest.write_text(bad + "\n")
    column = key + 2  # 1-based column of the second comma
    line = one_error_line(run("-m", "experiments.repair", "tasks=manifest", f"tasks.manifest={manifest}",
                              f"tasks.repos_dir={tmp_path}", f"hydra.run.dir={tmp_path}/r"))
    assert f"{manifest}:1:{column}: invalid JSON" in line, (column, line)


def test_instances_without_shared_data_name_the_key_to_set(tmp_path):
    # a clone without ../shared: the instances file is missing; the line says which keys point elsewhere
    line = one_error_line(run("-m", "experiments.localize", "tasks.instances=../no_shared_here/data/instances.jsonl",
                              f"hydra.run.dir={tmp_path}"))
    assert "tasks.instances='../no_shared_here/data/instances.jsonl'" in line and "does not exist" in line
    assert "../shared/data" in line and "tasks.repos_dir" in line and "README" in line


def test_a_malformed_instances_line_names_line_and_column(tmp_path):
    instances = tmp_path / "instances.jsonl"
    instances.write_text('{"instance_id": "a"}\n{"instance_id": "b", "repo" "x"}\n')
    line = one_error_line(run("-m", "experiments.localize", f"tasks.instances={instances}",
                              f"tasks.repos_dir={tmp_path}", f"hydra.run.dir={tmp_path}/r"))
    assert f"{instances}:2:29: invalid JSON" in line, line


def test_hydra_full_error_shows_the_traceback(tmp_path):
    out = run("-m", "experiments.repair", "budget=-5", f"hydra.run.dir={tmp_path}", env={"HYDRA_FULL_ERROR": "1"})
    assert out.returncode != 0 and "Traceback" in out.stderr and "budget=-5" in out.stderr


def test_a_multirun_with_one_bad_cell_completes_the_others(tmp_path):
    """Run from another directory (tmp_path): the sweep folder is named after its own overrides."""
    args = ("-m", "experiments.repair", "-m", "budget=300,-5", "tasks.limit=1", "allow_local_execution=true",
            "hydra/launcher=local", "print_table=false")
    out = run(*args, cwd=tmp_path)
    assert out.returncode == 1, out.stderr[-3000:]
    assert "Traceback" not in out.stderr
    assert "1 of 2 jobs" in out.stderr and "budget=-5: a token budget must be an integer >= 0" in out.stderr
    sweeps = list((tmp_path / "outputs" / "sweeps" / "repair").iterdir())
    assert [s.name for s in sweeps] == ["allow_local_execution=true,budget=300,-5,tasks.limit=1"]
    metas = {p.parent.parent.name: json.loads(p.read_text()) for p in sweeps[0].glob("*/run/run.json")}
    status = {name: m["status"] for name, m in metas.items()}
    assert status == {"allow_local_execution=True,budget=300,tasks.limit=1": "complete",
                      "allow_local_execution=True,budget=-5,tasks.limit=1": "failed"}, status
    failed = metas["allow_local_execution=True,budget=-5,tasks.limit=1"]
    assert failed["error"]["message"] == "budget=-5: a token budget must be an integer >= 0"
    # paper.build builds from the complete job and names the failed one (index.md, every caption)
    paper = run("-m", "paper.build", str(tmp_path / "outputs" / "sweeps" / "repair"), "--out", str(tmp_path / "p"),
                "--resamples", "100", cwd=tmp_path)
    assert paper.returncode == 0, paper.stderr
    index = (tmp_path / "p" / "index.md").read_text()
    assert "1 failed job(s) left out" in index and "budget=-5: a token budget must be an integer >= 0" in index
    assert f"Sweeps read: `repair/{sweeps[0].name}`" in index
    summary = json.loads((tmp_path / "p" / "summary.json").read_text())
    assert all("failed job" in t["caption"] for t in summary["tables"].values())
    # the same command again resumes the same folder (the complete job is kept, the bad one fails again)
    again = run(*args, cwd=tmp_path)
    assert again.returncode == 1 and "1 of 2 jobs" in again.stderr
    assert len(list((tmp_path / "outputs" / "sweeps" / "repair").iterdir())) == 1
    # a different sweep gets its own folder
    other = run("-m", "experiments.repair", "-m", "budget=300", "tasks.limit=1", "allow_local_execution=true",
                "print_table=false", cwd=tmp_path)
    assert other.returncode == 0, other.stderr[-2000:]
    assert len(list((tmp_path / "outputs" / "sweeps" / "repair").iterdir())) == 2


def test_a_path_override_makes_one_run_folder(tmp_path):
    out = run("-m", "experiments.repair", "tasks=manifest", f"tasks.manifest={tmp_path}/a/b.jsonl",
              f"tasks.repos_dir={tmp_path}", cwd=tmp_path)
    assert out.returncode == 2
    (folder,) = (tmp_path / "outputs" / "runs" / "repair").iterdir()
    assert "%2F" in folder.name and "/" not in folder.name


def test_a_damaged_sealed_run_is_refused_on_rerun(tmp_path):
    args = ("-m", "experiments.repair", "tasks.limit=1", "allow_local_execution=true", f"hydra.run.dir={tmp_path}")
    assert run(*args).returncode == 0
    records = tmp_path / "run" / "records.jsonl"
    records.chmod(0o644)
    records.write_bytes(records.read_bytes()[:-10])
    for extra in ((), ("print_table=false",)):
        line = one_error_line(run(*args, *extra))
        assert "sealed run does not verify" in line and "records.jsonl" in line, line


def test_each_entry_point_help_lists_only_its_groups(tmp_path):
    localize = run("-m", "experiments.localize", "--help", cwd=tmp_path).stdout
    repair = run("-m", "experiments.repair", "--help", cwd=tmp_path).stdout
    groups = lambda text: {line.split(":")[0] for line in text.split("== Config ==")[0].splitlines() if ":" in line}  # noqa: E731
    assert groups(localize) == {"method", "tasks", "experiment", "hydra/launcher"}, localize[:800]
    assert groups(repair) == {"method", "query", "provider", "edit_format", "tasks", "experiment", "hydra/launcher"}
    assert "localize_dev" in localize and "localize_dev" not in repair and "swebench_lite_dev" not in repair


def test_temp_work_folders_are_removed(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    out = run("-m", "experiments.repair", "tasks.limit=1", "allow_local_execution=true", "print_table=false",
              f"hydra.run.dir={tmp_path}/r", env={"TMPDIR": str(tmp)})
    assert out.returncode == 0, out.stderr[-2000:]
    assert (tmp_path / "r" / "run" / "MANIFEST.sha256").exists()
    assert not list(tmp.glob("beacon-work-*"))
