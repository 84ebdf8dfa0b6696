"""LocAgent and ContextBench importers on hand-made files, scored with the shared metrics."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from beacon.localize.gold import Gold, gold_from_patch
from beacon.localize.importers import (
    ImportFormatError, load_contextbench, load_locagent, locagent_id, score_contextbench, score_locagent,
)
from repotools import fix_scene

M_PY = "import os\n\n\ndef f(x):\n    y = x + 1\n    return y\n\n\ndef g():\n    return 2\n"
MODEL_PATCH = ("--- a/m.py\n+++ b/m.py\n@@ -5,2 +5,2 @@\n     y = x + 1\n-    return y\n+    return y + 0\n"
               "@@ -9,2 +9,2 @@\n def g():\n-    return 2\n+    return 3\n")


@pytest.fixture
def scene(tmp_path) -> tuple[Path, str]:
    """A real repo at its base commit and the fix's ``git diff`` (m.py lines 5 and 10)."""
    repo, patch = fix_scene(tmp_path / "repo", {"m.py": M_PY, "n.py": "A = 1\n"},
                            {"m.py": M_PY.replace("x + 1", "x + 2").replace("return 2", "return 3")})
    return repo, patch


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


# -- LocAgent ------------------------------------------------------------------

def test_locagent_ids():
    assert locagent_id("pkg/m.py:Class.method") == "pkg/m.py::Class.method"
    assert locagent_id("./m.py:func") == "m.py::func"
    assert locagent_id("pkg/m.py") == "pkg/m.py::<module>"
    assert locagent_id("pkg/m.py::already") == "pkg/m.py::already"


def test_locagent_import_and_score(scene, tmp_path):
    repo, patch = scene
    golds = {"scene": gold_from_patch("scene", patch, repo),
             "absent": Gold("absent", ("m.py",), units=("m.py::f",), kinds={"m.py::f": "function"})}
    path = write_jsonl(tmp_path / "loc_outputs.jsonl", [
        {"instance_id": "scene", "found_files": ["m.py", "n.py"], "found_modules": ["m.py:g", "m.py:f.inner"],
         "found_entities": ["m.py:g", "n.py", "m.py:f"], "raw_output_loc": ["ignored"]},
    ])
    preds = load_locagent(path)
    assert preds[0].modules == ("m.py::g", "m.py::f.inner")
    assert preds[0].entities == ("m.py::g", "n.py::<module>", "m.py::f")
    absent, scene_rec = score_locagent(preds, golds, ks=(1, 3))
    assert scene_rec == {
        "instance_id": "scene", "missing": False,
        "file_acc@1": 1.0, "file_recall@1": 1.0, "file_acc@3": 1.0, "file_recall@3": 1.0, "file_mrr": 1.0,
        # modules: m.py::g, then m.py::f (from f.inner)
        "module_acc@1": 1.0, "module_recall@1": 0.5, "module_acc@3": 1.0, "module_recall@3": 1.0, "module_mrr": 1.0,
        # functions: the module entity counts for files only -> m.py::g, m.py::f
        "function_acc@1": 1.0, "function_recall@1": 0.5, "function_acc@3": 1.0, "function_recall@3": 1.0,
        "function_mrr": 1.0,
    }
    assert absent["missing"] and absent["file_acc@1"] == 0.0 and absent["module_mrr"] == 0.0
    assert absent["function_recall@3"] == 0.0
    with pytest.raises(ValueError, match="without gold.*'scene'"):
        score_locagent(preds, {"absent": golds["absent"]})


@pytest.mark.parametrize("row, field, line", [
    ("{not json", None, 2),
    ({"instance_id": "b", "found_files": [], "found_modules": []}, "found_entities", 2),
    ({"instance_id": "b", "found_files": "m.py", "found_modules": [], "found_entities": []}, "found_files", 2),
    ({"instance_id": "b", "found_files": [], "found_modules": [3], "found_entities": []}, "found_modules", 2),
    ({"instance_id": "a", "found_files": [], "found_modules": [], "found_entities": []}, "instance_id", 2),
    ({"found_files": [], "found_modules": [], "found_entities": []}, "instance_id", 2),
])
def test_locagent_malformed_lines_name_file_line_field(tmp_path, row, field, line):
    good = {"instance_id": "a", "found_files": [], "found_modules": [], "found_entities": []}
    path = write_jsonl(tmp_path / "loc.jsonl", [good, row])
    with pytest.raises(ImportFormatError) as err:
        load_locagent(path)
    assert (err.value.path, err.value.line, err.value.field) == (str(path), line, field)
    assert f"{path}:{line}" in str(err.value)


# -- ContextBench --------------------------------------------------------------

def test_contextbench_import_and_score(scene, tmp_path):
    repo, patch = scene
    golds = {iid: gold_from_patch(iid, patch, repo) for iid in ("scene", "flat", "absent")}
    path = write_jsonl(tmp_path / "pred.jsonl", [
        {"instance_id": "scene", "model_patch": MODEL_PATCH, "traj_data": {
            "pred_steps": [
                {"files": ["n.py"], "spans": {"n.py": [{"type": "line", "start": 1, "end": 1}]}},
                {"pred_files": [], "pred_spans": [{"file": "m.py", "start_line": 4, "end_line": 6}]},
                {"spans": [["m.py", 5, 10]]},
            ],
            "pred_files": ["m.py"], "pred_spans": {"m.py": [[4, 6]]}}},
        {"instance_id": "flat", "pred_files": ["m.py"], "pred_spans": {"m.py": [{"start_line": 9, "end_line": 10}]},
         "pred_symbols": ["m.py:g"], "model_patch": "no diff here"},
    ])
    trajs = load_contextbench(path)
    assert [len(t.steps) for t in trajs] == [3, 1]
    assert trajs[1].steps[0] == trajs[1].final and trajs[1].final.symbols == {"m.py::g"}
    absent, flat, scene_rec = score_contextbench(trajs, golds, {iid: repo for iid in golds})
    curve = [0.0, 14 / 27, 1.0]
    assert scene_rec == pytest.approx({
        "instance_id": "scene", "missing": False, "steps": 3,
        # final context: m.py lines 4-6 (units: f)
        "file_coverage": 1.0, "file_precision": 1.0, "symbol_coverage": 0.5, "symbol_precision": 1.0,
        "span_coverage": 14 / 27, "span_precision": 14 / 37, "line_coverage": 0.5, "line_precision": 1 / 3,
        # steps read n.py:1 (unit n.py::<module>), m.py:4-6 (f), m.py:5-10 (f, g)
        "auc_file": 0.75, "auc_symbol": 0.5, "auc_line": 0.5, "auc_span": (curve[0] + 2 * curve[1] + curve[2]) / 4,
        "redundancy_file": 1 / 3, "redundancy_symbol": 1 / 4, "redundancy_line": 0.2, "redundancy_span": 27 / 94,
        "editloc_file_recall": 1.0, "editloc_file_precision": 1.0, "editloc_symbol_recall": 1.0,
        "editloc_symbol_precision": 1.0, "editloc_line_recall": 0.5, "editloc_line_precision": 0.5,
        "editloc_error": None,
    })
    assert flat["symbol_coverage"] == 0.5 and flat["line_coverage"] == 0.5 and flat["auc_line"] == 0.5
    assert flat["editloc_line_recall"] is None and flat["editloc_error"].startswith("flat: malformed patch")
    assert absent["missing"] and absent["steps"] == 0 and absent["auc_file"] is None
    assert absent["file_coverage"] == 0.0 and absent["file_precision"] is None and absent["editloc_error"] is None


@pytest.mark.parametrize("traj, field", [
    ({"pred_steps": {"files": []}}, "traj_data.pred_steps"),
    ({"pred_steps": [{"spans": {"m.py": [[5, 4]]}}]}, "traj_data.pred_steps[0].spans"),
    ({"pred_steps": [{"spans": {"m.py": [{"type": "byte", "start": 0, "end": 9}]}}]}, "traj_data.pred_steps[0].spans"),
    ({"pred_steps": [{"spans": [["m.py", 0, 2]]}]}, "traj_data.pred_steps[0].spans"),
    ({"pred_steps": [{"pred_spans": [{"file": "m.py", "start_line": 1}]}]}, "traj_data.pred_steps[0].pred_spans"),
    ({"pred_files": ["m.py", ""]}, "traj_data.pred_files"),
    ({"pred_steps": ["m.py"]}, "traj_data.pred_steps[0]"),
])
def test_contextbench_malformed_lines_name_file_line_field(tmp_path, traj, field):
    path = write_jsonl(tmp_path / "pred.jsonl", [{"instance_id": "x", "traj_data": traj}])
    with pytest.raises(ImportFormatError) as err:
        load_contextbench(path)
    assert (err.value.line, err.value.field) == (1, field)


def test_contextbench_model_patch_must_be_text(tmp_path):
    path = write_jsonl(tmp_path / "pred.jsonl", [{"instance_id": "x", "traj_data": {}, "model_patch": 3}])
    with pytest.raises(ImportFormatError, match="model_patch"):
        load_contextbench(path)
