"""The ``contextbench`` profile against the reference evaluator's own outputs on four real SWE-agent runs.

``../shared/data/contextbench_ref/`` (see its README) holds the raw
``.checkpoints.jsonl`` files, the reference's unified records, gold, the base
files and ``expected.json`` (the reference's ``evaluate_instance`` output).
Every field must match to 1e-9, scored from the raw files.
"""
from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from beacon.graph.parse import parse_source
from beacon.localize.contextbench import ReferenceGold, Tree, definitions, evaluate_instance
from beacon.localize.importers import load_contextbench
from beacon.localize.trajectories import read_trajectory

ROOT = Path(__file__).resolve().parents[2]
REF = ROOT.parent / "shared" / "data" / "contextbench_ref"
pytestmark = pytest.mark.skipif(not (REF / "expected.json").is_file(),
                                reason=f"ContextBench reference cases not found at {REF}")
TOLERANCE = 1e-9


def _jsonl(path: Path) -> dict[str, dict]:
    return {r["instance_id"]: r for r in map(json.loads, path.read_text().splitlines()) if r}


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    """(expected, instances, unified records, instance id -> extracted base tree)."""
    root = tmp_path_factory.mktemp("contextbench_ref")
    trees = {}
    for archive in sorted((REF / "trees").glob("*.tar.gz")):
        iid = archive.name[: -len(".tar.gz")]
        with tarfile.open(archive) as tar:
            tar.extractall(root / iid, filter="data")
        trees[iid] = root / iid
    expected = json.loads((REF / "expected.json").read_text())
    return expected, _jsonl(REF / "instances.jsonl"), _jsonl(REF / "unified.jsonl"), trees


def assert_same(got, want, where: str = "") -> None:
    """Equal structure and keys; numbers within TOLERANCE; the path of the first difference in the message."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), (where, sorted(got), sorted(want))
        for key in want:
            assert_same(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (where, got, want)
        for i, (a, b) in enumerate(zip(got, want)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(want, (int, float)) and not isinstance(want, bool):
        assert isinstance(got, (int, float)) and abs(got - want) <= TOLERANCE, (where, got, want)
    else:
        assert got == want, (where, got, want)


def test_all_four_cases_from_raw_checkpoints_match_the_reference(cases):
    expected, instances, _, trees = cases
    assert len(expected) == 4
    for iid, want in sorted(expected.items()):
        record = read_trajectory(REF / "trajectories" / f"{iid}.checkpoints.jsonl")
        inst = instances[iid]
        got = evaluate_instance(record, ReferenceGold.from_dict(inst["gold"], inst["patch"]), trees[iid])
        assert_same(got, want, iid)
    # the cases cover the differences the profile exists for
    assert expected["pydata__xarray-4966"] == {"instance_id": "pydata__xarray-4966", "error": "no_context_extracted"}
    assert expected["pydata__xarray-4075"]["editloc"]["recall"] == 1.0  # one ratio, not recall over 184 gold lines
    assert expected["pallets__flask-5014"]["editloc"]["pred_size"] == 0  # pure insertion: 0.0


def test_native_reader_gives_the_reference_extractor_steps(cases):
    _, _, unified, _ = cases
    for iid, record in unified.items():
        got = read_trajectory(REF / "trajectories" / f"{iid}.checkpoints.jsonl")
        assert got["instance_id"] == iid
        assert got["traj_data"] == record["traj_data"], iid


def test_beacon_importer_reads_the_raw_checkpoints(cases):
    _, _, unified, _ = cases
    traj = load_contextbench(REF / "trajectories" / "pydata__xarray-4075.checkpoints.jsonl")[0]
    assert traj.instance_id == "pydata__xarray-4075" and len(traj.steps) == 3
    assert traj.final.line_spans == {"xarray/core/weighted.py": ((140, 151),)}
    empty = load_contextbench(REF / "trajectories" / "pydata__xarray-4966.checkpoints.jsonl")[0]
    assert empty.steps == (empty.final,) and not empty.final.all_files()  # beacon: one empty step, not an error


def test_definitions_are_beacon_parser_definitions(cases):
    """The symbol grain's ``ast`` definitions are exactly the definitions of Beacon's parser (beacon/graph/parse.py):
    same count, names and end lines; the start differs only by decorators, which tree-sitter's
    ``function_definition`` node (the reference) leaves out and Beacon's span includes."""
    *_, trees = cases
    checked = decorated = 0
    for tree in trees.values():
        for file in sorted(tree.rglob("*.py")):
            data = file.read_bytes()
            beacon = sorted((d for d in parse_source(data).defs if d.kind != "module"),
                            key=lambda d: (d.start_line, -d.end_line))
            mine = definitions(data)
            line_of = [0] + [i + 1 for i, b in enumerate(data) if b == ord("\n")]

            def line(offset: int) -> int:
                return max(i for i, start in enumerate(line_of) if start <= offset) + 1

            assert len(beacon) == len(mine), file
            for b, (kind, name, start, end) in zip(beacon, sorted(mine, key=lambda d: (line(d[2]), -d[3]))):
                assert b.qualname.split(".")[-1].split("#")[0] == name, (file, b.qualname, name)
                assert (b.kind == "class") == (kind == "class_definition"), (file, b.qualname)
                assert b.end_line == line(end - 1), (file, b.qualname)
                above = data.decode().split("\n")[b.start_line - 1:line(start) - 1]  # Beacon's extra lines
                assert not above or above[0].lstrip().startswith("@"), (file, b.qualname, above)
                decorated += bool(above)
                checked += 1
    assert checked > 500 and decorated > 20, (checked, decorated)


def test_symbol_grain_counts_enclosing_definitions(cases):
    """xarray-4075: the final view (weighted.py 140-151) overlaps class Weighted and _sum_of_weights: 2 symbols."""
    expected, instances, _, trees = cases
    tree = Tree(trees["pydata__xarray-4075"])
    spans = tree.byte_spans([("xarray/core/weighted.py", 140, 151)])
    found = sorted((kind, tree.data(p)[s:e].split(b"(")[0].split(b":")[0].decode()) for p, kind, s, e in
                   tree.defs_in_spans(spans))
    assert found == [("class_definition", "class Weighted"), ("function_definition", "def _sum_of_weights")]
    assert expected["pydata__xarray-4075"]["final"]["symbol"]["pred_size"] == 2


def test_reference_summary_pools_final_sizes_and_skips_errors(cases):
    from beacon.localize.contextbench import aggregate

    expected, *_ = cases
    summary = aggregate(list(expected.values()))
    assert (summary["num_valid"], summary["num_total"]) == (3, 4)
    # file: intersections 0 + 1 + 1 over gold sizes 1 + 2 + 1 and predicted sizes 1 + 1 + 1
    assert summary["final_file"] == {"coverage": 2 / 4, "precision": 2 / 3}
    assert summary["traj_auc_span"] == pytest.approx(sum(
        e["trajectory"]["auc_coverage"]["span"] for e in expected.values() if "error" not in e) / 3)
    # pooled EditLoc divides by the gold size, unlike each instance's ratio (the reference's own inconsistency)
    assert summary["editloc"]["recall"] == pytest.approx(2 / (1 + 184 + 1))
