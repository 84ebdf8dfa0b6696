"""``tasks.pypi`` pins in task configs: schema errors, runner integration (offline), the Boltons pilot files."""
from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest
import yaml
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from omegaconf.errors import ConfigKeyError, MissingMandatoryValue

from beacon.repo.pypi import DEFAULT_CACHE, SdistPin, materialize_pin
from beacon.data import load_manifest, repo_resolver
from experiments.runner import load_tasks, scientific_config
from experiments.schema import TasksConf, check_values, validate

ROOT = Path(__file__).resolve().parents[2]
BOLTONS = SdistPin("boltons", "26.2.0", "d39cfd15c1a1c3bd4d705c82252fa9edb8e4f5e8cc039f8e39afac7b1b47e92c")
BOLTONS_COMMIT = "52d2630ade95650c1dd649986fdc2cb5785bad38"  # the import of that sdist (beacon.repo.pypi)
SHA = "a" * 64


def repair_cfg(tasks: dict):
    return validate(OmegaConf.create({
        "method": {"name": "bm25"}, "query": {"type": "dev_report"}, "provider": {"name": "oracle"},
        "edit_format": {"name": "diff"}, "tasks": {"name": "t", **tasks}}))


def manifest_tasks(**extra) -> dict:
    return {"kind": "manifest", "manifest": "m.jsonl", "repos_dir": "repos", **extra}


@pytest.mark.parametrize("pins,kind,message", [
    ([{"name": "boltons", "version": "26.2.0", "sha256": "abc"}], "manifest", r"tasks\.pypi\[0\].*'sha256'"),
    ([{"name": "bol tons", "version": "1", "sha256": SHA}], "manifest", r"tasks\.pypi\[0\].*'name'"),
    ([{"name": "x", "version": "1", "sha256": SHA}, {"name": "x", "version": "1", "sha256": "b" * 64}], "manifest",
     r"tasks\.pypi\[1\]: x==1 is pinned twice"),
    ([{"name": "x", "version": "1", "sha256": SHA}], "control", "tasks.kind=manifest"),
])
def test_bad_pins_fail_validation_naming_the_entry(pins, kind, message):
    extra = manifest_tasks() if kind == "manifest" else {"kind": "control"}
    cfg = repair_cfg({**extra, "pypi": pins})
    with pytest.raises(ValueError, match=message):
        check_values(cfg)


def test_misspelt_or_missing_pin_keys_fail_before_any_work():
    with pytest.raises(ConfigKeyError, match="sha"):
        repair_cfg(manifest_tasks(pypi=[{"name": "x", "version": "1", "sha": SHA}]))
    with pytest.raises(MissingMandatoryValue, match=r"tasks\.pypi\[0\]\.sha256"):
        check_values(repair_cfg(manifest_tasks(pypi=[{"name": "x", "version": "1"}])))


def test_empty_pins_leave_the_config_hash_unchanged():
    without = scientific_config(repair_cfg(manifest_tasks()))
    assert "pypi" not in without["tasks"] and "sdist_cache_dir" in without["tasks"]  # _dir: left out of the hash
    pinned = scientific_config(repair_cfg(manifest_tasks(pypi=[{"name": "x", "version": "1", "sha256": SHA}])))
    assert pinned["tasks"]["pypi"] == [{"name": "x", "version": "1", "sha256": SHA}]


def _demo_sdist(path: Path) -> Path:
    files = {"demo/core.py": b"def double(x):\n    return 2 * x\n",
             "tests/test_core.py": b"from demo.core import double\n\ndef test_double():\n    assert double(3) == 6\n"}
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"demo-1.0/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_runner_materializes_pins_before_the_manifest_and_records_their_hashes(tmp_path):
    cache = tmp_path / "sdists"
    cache.mkdir()
    sdist = _demo_sdist(cache / "demo-1.0.tar.gz")  # already cached: no pip, no network
    pin = SdistPin("demo", "1.0", hashlib.sha256(sdist.read_bytes()).hexdigest())
    _, commit = materialize_pin(pin, tmp_path / "probe", cache_dir=cache)
    row = {"repo": "demo", "commit": commit, "bug_location": "demo/core.py:2", "mutation_type": "constant",
           "original_line": "    return 2 * x", "mutated_line": "    return 3 * x", "token_budget": 1000,
           "test_command": "python -m pytest -q tests/test_core.py::test_double"}
    (tmp_path / "tasks.jsonl").write_text(json.dumps(row) + "\n")
    cfg = repair_cfg({"kind": "manifest", "manifest": str(tmp_path / "tasks.jsonl"), "repos_dir": str(tmp_path / "repos"),
                      "sdist_cache_dir": str(cache), "pypi": [{"name": "demo", "version": "1.0", "sha256": pin.sha256}]})
    check_values(cfg)
    tasks, resolve, inputs = load_tasks(cfg, tmp_path / "work", lambda p: p)
    assert [t.commit for t in tasks] == [commit] and resolve("demo").git_dir == tmp_path / "repos" / "demo.git"
    assert inputs["sdist_demo==1.0"] == pin.sha256
    # Without the pin the repositories folder is not there: the error names the config key to set.
    bare = repair_cfg({"kind": "manifest", "manifest": str(tmp_path / "tasks.jsonl"), "repos_dir": str(tmp_path / "none")})
    with pytest.raises(ValueError, match=r"tasks.repos_dir=.*does not exist"):
        load_tasks(bare, tmp_path / "work2", lambda p: p)
    # ... and with an empty folder, the manifest check names the missing repo
    (tmp_path / "empty").mkdir()
    bare = repair_cfg({"kind": "manifest", "manifest": str(tmp_path / "tasks.jsonl"), "repos_dir": str(tmp_path / "empty")})
    with pytest.raises(ValueError, match="field 'repo'"):
        load_tasks(bare, tmp_path / "work3", lambda p: p)


def test_boltons_pilot_files_are_consistent_offline():
    data = yaml.safe_load((ROOT / "conf" / "tasks" / "boltons_pilot.yaml").read_text())
    merged = OmegaConf.merge(OmegaConf.structured(TasksConf), data)
    assert [SdistPin(**p) for p in OmegaConf.to_container(merged.pypi)] == [BOLTONS]
    assert BOLTONS_COMMIT in (ROOT / "conf" / "tasks" / "boltons_pilot.yaml").read_text()
    tasks = load_manifest(ROOT / merged.manifest)
    assert len(tasks) == 3 and len({t.path for t in tasks}) == 3
    for task in tasks:
        assert task.repo == "boltons" and task.commit == BOLTONS_COMMIT and task.token_budget <= 2000
        assert task.dev_report and all("::" in s for s in task.tests.selection)
        # The report says what a user sees, never where the line is or what it should read.
        for secret in (task.original_line.strip(), task.mutated_line.strip(), task.bug_location, f"line {task.line}"):
            assert secret not in task.dev_report, (task.task_id, secret)


def test_boltons_controls_preset_composes_and_validates():
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        cfg = compose(config_name="repair", overrides=["+experiment=boltons_controls"])
    valid = validate(cfg)
    check_values(valid)
    assert valid.tasks.name == "boltons_pilot" and valid.provider.name == "oracle" and valid.allow_local_execution
    assert len(valid.grid.methods) >= 6 and "no_retrieval" in valid.grid.methods
    assert set(valid.grid.edit_formats) == {"diff", "exact_edit", "line_span"} and max(valid.grid.budgets) <= 2000


def test_boltons_manifest_matches_the_pinned_sdist(tmp_path):
    cached = Path(DEFAULT_CACHE).expanduser() / "boltons-26.2.0.tar.gz"
    if not cached.is_file():
        pytest.skip(f"{cached} is not cached (tests never download; fetch it with "
                    f"python -m beacon.repo.pypi boltons==26.2.0 --sha256 {BOLTONS.sha256} --repos-dir DIR)")
    empty = tmp_path / "no-index"
    empty.mkdir()
    git_dir, commit = materialize_pin(BOLTONS, tmp_path / "repos", pip_args=["--no-index", "--find-links", str(empty)])
    assert commit == BOLTONS_COMMIT
    tasks = load_manifest(ROOT / "experiments" / "data" / "boltons_pilot.jsonl",
                          resolve_repo=repo_resolver(tmp_path / "repos"))
    assert len(tasks) == 3
