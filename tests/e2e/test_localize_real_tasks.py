"""Real issues in localization runs: several instance files in one run, the recommended default, the preset.

One requests issue (``swebench_lite_dev``) and one sqlfluff issue
(``swebench_lite_devsplit``, a ``src/`` layout) in one job: both are scored
under one task set, sqlfluff's gold is found under ``src/`` and ranked by
the graph's own paths, and an instance listed in two files is refused. The
default method of ``conf/localize.yaml`` is the recommended ``hybrid_follow``,
and on a flask issue that quotes the CLI's own message it ranks the gold file
first where its base ``hybrid_prf`` does not. The ``localize_real`` preset
scores every registered method but the oracle.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
DEV, DEVSPLIT = SHARED / "swebench_lite_dev", SHARED / "swebench_lite_devsplit"

pytestmark = pytest.mark.skipif(not (DEVSPLIT / "instances.jsonl").exists(),
                                reason=f"shared dev split not present at {DEVSPLIT}")


def _pick(src: Path, instance_id: str, out: Path) -> Path:
    rows = [line for line in src.read_text().splitlines() if json.loads(line)["instance_id"] == instance_id]
    out.write_text("\n".join(rows) + "\n")
    return out


def _localize(tmp_path: Path, *overrides: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "experiments.localize", "tasks=swebench_lite_real",
                           "grid.methods=[bm25]", "grid.budgets=[4000]", f"cache_dir={tmp_path / 'cache'}",
                           f"hydra.run.dir={tmp_path / 'run'}", "print_table=false", *overrides],
                          cwd=ROOT, env={**os.environ, "CI": "1"}, capture_output=True, text=True, timeout=900)


def test_two_instance_files_one_task_set_and_a_src_layout(tmp_path):
    a = _pick(DEV / "instances.jsonl", "psf__requests-2317", tmp_path / "a.jsonl")
    b = _pick(DEVSPLIT / "instances.jsonl", "sqlfluff__sqlfluff-1625", tmp_path / "b.jsonl")
    proc = _localize(tmp_path, f"tasks.instances={a}", f"tasks.more_instances=[{b}]")
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(x) for x in (tmp_path / "run" / "run" / "records.jsonl").read_text().splitlines()]
    assert [r["instance_id"] for r in rows] == ["psf__requests-2317", "sqlfluff__sqlfluff-1625"]
    assert all(r["error"] is None and r["task_set"] == "swebench_lite_real" for r in rows)
    sql = rows[1]
    assert sql["gold"]["files"] == ["src/sqlfluff/rules/L031.py"]
    assert sql["gold"]["functions"] == ["src/sqlfluff/rules/L031.py::Rule_L031._lint_aliases_in_join"]
    assert all(p.startswith(("src/", "plugins/", "docs/", "examples/", "util", "setup", "test"))
               for p in sql["ranked"]["files"])
    assert "src/sqlfluff/rules/L031.py" in sql["ranked"]["files"][:5]
    inputs = json.loads((tmp_path / "run" / "run" / "run.json").read_text())["inputs"]
    assert set(inputs) == {"instances", "more_instances[0]"}


def test_an_instance_in_two_files_is_refused_naming_both(tmp_path):
    a = _pick(DEV / "instances.jsonl", "psf__requests-2317", tmp_path / "a.jsonl")
    proc = _localize(tmp_path, f"tasks.instances={a}", f"tasks.more_instances=[{a}]")
    assert proc.returncode != 0
    assert "psf__requests-2317" in proc.stderr and "is in both" in proc.stderr, proc.stderr[-2000:]


def test_a_missing_extra_file_names_its_key(tmp_path):
    proc = _localize(tmp_path, f"tasks.more_instances=[{tmp_path / 'nope.jsonl'}]")
    assert proc.returncode != 0 and "tasks.more_instances[0]" in proc.stderr, proc.stderr[-2000:]


def test_an_unused_more_instances_leaves_the_config_hash_alone():
    """Runs made before the key existed keep their config hash (experiments.runner._LATER_TASK_KEYS)."""
    from omegaconf import OmegaConf

    from experiments.runner import scientific_config
    from experiments.schema import LocalizeConf, validate

    cfg = OmegaConf.create({"method": {"name": "bm25"}, "tasks": {"name": "t", "kind": "swebench", "instances": "a"}})
    assert "more_instances" not in scientific_config(validate(cfg, LocalizeConf))["tasks"]
    cfg.tasks.more_instances = ["b"]
    assert scientific_config(validate(cfg, LocalizeConf))["tasks"]["more_instances"] == ["b"]


def test_the_default_method_is_hybrid_follow_and_a_quoted_message_finds_the_gold_file(tmp_path):
    """flask-5063 quotes the ``.env`` tip that ``flask/cli.py`` prints; hybrid_prf ranks another file first."""
    a = _pick(DEV / "instances.jsonl", "pallets__flask-5063", tmp_path / "a.jsonl")
    common = [f"tasks.instances={a}", f"cache_dir={tmp_path / 'cache'}", "print_table=false"]
    runs = {}
    for label, extra in (("default", []), ("hybrid_prf", ["method=hybrid_prf"])):
        proc = subprocess.run([sys.executable, "-m", "experiments.localize", *common, *extra,
                               f"hydra.run.dir={tmp_path / label}"],
                              cwd=ROOT, env={**os.environ, "CI": "1"}, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, proc.stderr[-3000:]
        (row,) = [json.loads(x) for x in (tmp_path / label / "run" / "records.jsonl").read_text().splitlines()]
        runs[label] = row
    assert runs["default"]["method"] == "hybrid_follow" and runs["hybrid_prf"]["method"] == "hybrid_prf"
    gold = runs["default"]["gold"]["files"]
    assert runs["default"]["ranked"]["files"][0] in gold and runs["default"]["metrics"]["file_acc@1"] == 1.0
    assert runs["hybrid_prf"]["ranked"]["files"][0] not in gold


def test_the_localize_real_preset_scores_every_registered_method_but_the_oracle():
    from omegaconf import OmegaConf

    from beacon.retrieval import method_names

    preset = OmegaConf.load(ROOT / "conf" / "experiment" / "localize_real.yaml")
    methods = list(preset.grid.methods)
    assert len(methods) == len(set(methods)) and set(methods) == set(method_names()) - {"target_file"}
