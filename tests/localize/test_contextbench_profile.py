"""The two metric profiles on hand-made files: each documented difference, and the native trajectory readers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from beacon.localize.contextbench import (
    ReferenceGold, Tree, deleted_lines, edit_loc, evaluate_instance, merge, overlap,
)
from beacon.localize.context_metrics import auc_coverage
from beacon.localize.trajectories import (
    TrajectoryFormatError, find_trajectories, read_checkpoints, read_traj, read_traj_json, read_trajectory,
)

M_PY = ("import os\n"             # 1
        "\n"                      # 2
        "class A:\n"              # 3
        "    x = 1\n"             # 4
        "\n"                      # 5
        "    @property\n"         # 6
        "    def f(self):\n"      # 7
        "        return 1\n"      # 8
        "\n"                      # 9
        "    def g(self):\n"      # 10
        "        return 2\n")     # 11


@pytest.fixture
def repo(tmp_path) -> Path:
    (tmp_path / "m.py").write_text(M_PY)
    (tmp_path / "empty.py").write_text("")
    return tmp_path


def unified(steps, final_files=None, final_spans=None, patch=""):
    def spans(items):
        out = {}
        for path, s, e in items:
            out.setdefault(path, []).append({"type": "line", "start": s, "end": e})
        return out
    steps = [{"files": sorted({p for p, _, _ in st}), "spans": spans(st)} for st in steps]
    last = steps[-1] if steps else {"files": [], "spans": {}}
    return {"instance_id": "x", "model_patch": patch, "traj_data": {
        "pred_steps": steps, "pred_files": last["files"] if final_files is None else final_files,
        "pred_spans": last["spans"] if final_spans is None else spans(final_spans)}}


GOLD = ReferenceGold.from_dict({"init_ctx": [{"file": "m.py", "start_line": 8, "end_line": 8}]})


def test_intervals_are_inclusive_and_touching_ones_merge():
    assert merge([(5, 9), (0, 4), (20, 21)]) == [(0, 9), (20, 21)]
    assert overlap([(0, 9)], [(9, 12)]) == 1


def test_auc_is_the_plain_mean_of_step_coverage(repo):
    """A curve 0, 0, c: ContextBench c/3, Beacon's trapezoid c/4."""
    record = unified([[("m.py", 1, 1)], [("m.py", 2, 2)], [("m.py", 8, 8)]])
    result = evaluate_instance(record, GOLD, repo)
    assert [s["coverage"]["line"] for s in result["trajectory"]["steps"]] == [0.0, 0.0, 1.0]
    assert result["trajectory"]["auc_coverage"]["line"] == pytest.approx(1 / 3)
    assert auc_coverage([0.0, 0.0, 1.0]) == pytest.approx(1 / 4)


def test_symbol_grain_counts_definition_nodes_and_enclosing_classes(repo):
    tree = Tree(repo)
    names = lambda spans: sorted(tree.data("m.py")[s:e].split(b"\n")[0].decode().strip()
                                 for _, _, s, e in tree.defs_in_spans(tree.byte_spans(spans)))
    assert names([("m.py", 8, 8)]) == ["class A:", "def f(self):"]  # no module symbol; the class counts
    assert names([("m.py", 6, 6)]) == ["class A:"]  # a decorator line is not inside tree-sitter's def node
    assert names([("m.py", 1, 2)]) == []


def test_line_grain_does_not_clip_and_missing_files_count_only_as_files(repo):
    record = unified([[("m.py", 8, 20), ("gone.py", 1, 5)]])
    final = evaluate_instance(record, GOLD, repo)["final"]
    assert final["line"]["pred_size"] == 13 + 5  # lines 12-20 of an 11-line file, and a missing file, count
    assert final["span"]["pred_size"] == len("        return 1\n\n    def g(self):\n        return 2\n")
    assert final["file"]["pred_size"] == 2 and final["file"]["coverage"] == 1.0


def test_empty_denominators_are_one(repo):
    record = unified([[("m.py", 8, 8)]])
    result = evaluate_instance(record, ReferenceGold.from_dict({"init_ctx": [], "add_ctx": [
        {"file": "m.py", "start_line": 8, "end_line": 8}]}), repo)
    assert result["final"]["line"]["gold_size"] == 0 and result["final"]["line"]["coverage"] == 1.0
    assert result["trajectory"]["steps"][0]["coverage"]["line"] == 1.0
    assert result["final"]["span"]["coverage"] == 1.0  # add_ctx counts at every grain but line


def test_empty_trajectory_is_an_error(repo):
    assert evaluate_instance(unified([]), GOLD, repo) == {"instance_id": "x", "error": "no_context_extracted"}


def test_editloc_is_the_share_of_deleted_lines_in_gold(repo):
    replace = "--- a/m.py\n+++ b/m.py\n@@ -8,1 +8,1 @@\n-        return 1\n+        return 3\n"
    insert = "--- a/m.py\n+++ b/m.py\n@@ -8,0 +9,1 @@\n         return 1\n+        pass\n"
    assert deleted_lines(replace) == {"m.py": [(8, 8)]}
    wide = ReferenceGold.from_dict({"init_ctx": [{"file": "m.py", "start_line": 1, "end_line": 11}]})
    assert edit_loc(replace, wide) == {"recall": 1.0, "precision": 1.0, "intersection": 1, "gold_size": 11,
                                       "pred_size": 1}
    assert edit_loc(insert, wide)["recall"] == 0.0  # a pure insertion deletes nothing
    # no model patch: the reference scores the instance's own patch
    gold = ReferenceGold(GOLD.init, (), replace)
    assert evaluate_instance(unified([[("m.py", 8, 8)]]), gold, repo)["editloc"]["recall"] == 1.0
    assert "editloc" not in evaluate_instance(unified([[("m.py", 8, 8)]]), GOLD, repo)


def test_byte_grain_edges(repo):
    tree, size = Tree(repo), len(M_PY)
    assert tree.line_to_byte("empty.py", 1, 3) == (0, 0)  # an empty file is one byte
    assert tree.line_to_byte("m.py", 12, 12) == (size, size)  # the "line" after the last newline: one phantom byte
    assert tree.line_to_byte("m.py", 13, 13) is None
    assert tree.line_to_byte("m.py", 11, 99) == (size - len("        return 2\n"), size - 1)


# -- native readers --------------------------------------------------------------

def _jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_sweagent_checkpoints(tmp_path):
    path = _jsonl(tmp_path / "o__r-1.checkpoints.jsonl", [
        {"action": "str_replace_editor view /testbed/m.py  --view_range 3 8", "observation": "..."},
        {"action": "str_replace_editor view /testbed/m.py", "observation": "whole file: no step"},
        {"action": "str_replace_editor view /testbed/m.py --view_range 9 -1"},
        {"action": "grep -n f m.py"},
        {"action": "str_replace_editor view /m.py --view_range 1 2"},
    ])
    record = read_checkpoints(path)
    assert record["instance_id"] == "o__r-1" and record["model_patch"] == ""
    assert record["traj_data"]["pred_steps"] == [
        {"files": ["m.py"], "spans": {"m.py": [{"type": "line", "start": 3, "end": 8}]}},
        {"files": ["m.py"], "spans": {"m.py": [{"type": "line", "start": 1, "end": 2}]}}]
    assert record["traj_data"]["pred_spans"] == {"m.py": [{"type": "line", "start": 1, "end": 2}]}
    with path.open("a") as fh:  # a patch_context checkpoint is the final context
        fh.write(json.dumps({"type": "patch_context", "patch_context": "File: /testbed/m.py\nLines: 7-8\n"}) + "\n")
    assert read_trajectory(path)["traj_data"]["pred_spans"] == {"m.py": [{"type": "line", "start": 7, "end": 8}]}


def test_sweagent_traj(tmp_path):
    folder = tmp_path / "instance_o__r-abc"
    folder.mkdir()
    path = folder / "instance_o__r-abc.traj"
    path.write_text(json.dumps({"info": {"patch_context": "File: /testbed/b.py\nLines: 1-2\nFile: /testbed/a.py\n"
                                                           "Lines: 5-6\n", "submission": "diff"}}))
    record = read_traj(path)
    assert record["instance_id"] == "instance_o__r-abc" and record["model_patch"] == "diff"
    assert record["traj_data"] == {"pred_steps": [], "pred_files": ["a.py", "b.py"], "pred_spans": {
        "b.py": [{"type": "line", "start": 1, "end": 2}], "a.py": [{"type": "line", "start": 5, "end": 6}]}}


def test_mini_sweagent_traj_json(tmp_path):
    messages = [
        {"role": "assistant", "content": "<explore_context>\nFile: /testbed/m.py\nLines: 8-3\n</explore_context>"},
        {"role": "user", "content": "ok"},
        {"role": "assistant", "content": "<PATCH_CONTEXT>File: /home/repo/m.py\nLines: 7-8\n</PATCH_CONTEXT>"},
    ]
    path = tmp_path / "o__r-2.traj.json"
    path.write_text(json.dumps({"messages": messages, "info": {
        "submission": "p", "config": {"environment": {"image": "mswebench/o_m_repo:pr-2"}}}}))
    record = read_traj_json(path)
    assert record["traj_data"] == {
        "pred_steps": [{"files": ["m.py"], "spans": {"m.py": [{"type": "line", "start": 3, "end": 8}]}}],
        "pred_files": ["m.py"], "pred_spans": {"m.py": [{"type": "line", "start": 7, "end": 8}]}}
    assert record["instance_id"] == "o__r-2" and record["model_patch"] == "p"
    # no <explore_context>: steps from the assistant's bash commands
    bash = [{"role": "assistant", "content": "```bash\nnl -ba /testbed/m.py | sed -n '3,8p' && cat n.py\n```"},
            {"role": "assistant", "content": "```bash\nsed -i 's/a/b/' m.py\n```"},
            {"role": "assistant", "content": "```bash\ngrep -n x src/k.py\n```"}]
    path.write_text(json.dumps({"messages": bash}))
    assert read_trajectory(path)["traj_data"]["pred_steps"] == [
        {"files": ["m.py", "n.py"], "spans": {"m.py": [{"type": "line", "start": 3, "end": 8}]}},
        {"files": ["src/k.py"], "spans": {}}]
    assert find_trajectories(tmp_path) == [path]


@pytest.mark.parametrize("name, text, where", [
    ("a.checkpoints.jsonl", '{"action": "x"}\n{not json\n', ":2"),
    ("a.checkpoints.jsonl", '{"action": 3}\n', ":1: field 'action'"),
    ("a.traj", '{"info": {"patch_context": 7}}', ": field 'info.patch_context'"),
    ("a.traj.json", '{"messages": [{"content": 5}]}', ": field 'messages[0].content'"),
    ("a.traj.json", "[1]", ": expected a JSON object"),
])
def test_malformed_files_name_file_line_field(tmp_path, name, text, where):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(TrajectoryFormatError, match=str(path).replace(".", r"\.") + where.replace(".", r"\.")
                       .replace("[", r"\[").replace("]", r"\]")):
        read_trajectory(path)


def test_other_files_are_refused(tmp_path):
    with pytest.raises(TrajectoryFormatError, match="not a trajectory file"):
        read_trajectory(tmp_path / "x.json")


# -- the entry point on hand-made files ----------------------------------------------

def test_trajectories_entry_point_rows_and_errors(tmp_path, capsys):
    from beacon.artifacts.verify import verify
    from experiments import trajectories

    trees, trajs = tmp_path / "trees", tmp_path / "trajs"
    for iid in ("o__r-1", "o__r-2"):
        (trees / iid).mkdir(parents=True)
        (trees / iid / "m.py").write_text(M_PY)
    trajs.mkdir()
    messages = [{"role": "assistant", "content": "<explore_context>\nFile: m.py\nLines: 7-8\n</explore_context>"},
                {"role": "assistant", "content": "<PATCH_CONTEXT>\nFile: m.py\nLines: 7-8\n</PATCH_CONTEXT>"}]
    for iid in ("o__r-1", "o__r-2"):
        (trajs / f"{iid}.traj.json").write_text(json.dumps({"messages": messages, "info": {"submission": ""}}))
    fix = "--- a/m.py\n+++ b/m.py\n@@ -8,1 +8,1 @@\n-        return 1\n+        return 3\n"
    instances = tmp_path / "instances.jsonl"
    instances.write_text(json.dumps({"instance_id": "o__r-1", "patch": fix}) + "\n"
                         + json.dumps({"instance_id": "o__r-2", "patch": fix.replace("return 1", "return 9")}) + "\n")
    out = tmp_path / "run"
    argv = [str(trajs), "--instances", str(instances), "--trees", str(trees), "--out", str(out)]
    assert trajectories.main(argv) == 0 and verify(out) == []
    rows = {r["key"]: r for r in map(json.loads, (out / "records.jsonl").read_text().splitlines())}
    good = rows["o__r-1|mini-swe-agent/contextbench"]
    assert good["error"] is None and good["metrics"]["contextbench_line_coverage"] == 1.0
    assert good["metrics"]["contextbench_symbol_precision"] == 1.0  # class A and f, both gold
    assert good["metrics"]["file_acc@1"] == 1.0 and good["metrics"]["budget_file_recall"] is None
    assert rows["o__r-1|mini-swe-agent/beacon"]["metrics"]["beacon_unit_coverage"] == 1.0
    bad = rows["o__r-2|mini-swe-agent/beacon"]  # its patch does not apply at the base: a row with the reason
    assert bad["metrics"] is None and "o__r-2" in bad["error"]
    (trajs / "o__r-3.traj.json").write_text(json.dumps({"messages": []}))
    assert trajectories.main([*argv[:-1], str(tmp_path / "run2")]) == 2
    assert "'o__r-3' is not in" in capsys.readouterr().err


def test_spans_beacon_refuses_still_score_under_the_reference_profile(repo):
    from beacon.localize.agent_scoring import score_trajectory
    from beacon.localize.gold import gold_from_patch
    from beacon.localize.importers import ImportFormatError

    record = unified([[("m.py", 0, 8)]])  # line 0: the reference's byte grain reads line 1, its line grain nothing
    fix = "--- a/m.py\n+++ b/m.py\n@@ -8,1 +8,1 @@\n-        return 1\n+        return 3\n"
    gold = gold_from_patch("x", fix, repo)
    row = score_trajectory(record, profile="contextbench", agent="a", gold=gold, reference_gold=GOLD, repo=repo)
    assert row["error"] is None and row["metrics"]["contextbench_span_coverage"] == 1.0
    assert row["metrics"]["contextbench_line_coverage"] == 0.0
    assert row["metrics"]["file_acc@1"] is None and row["steps"] == 1  # the reference's step count
    with pytest.raises(ImportFormatError, match="line number >= 1"):
        score_trajectory(record, profile="beacon", agent="a", gold=gold, reference_gold=GOLD, repo=repo)
