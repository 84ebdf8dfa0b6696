"""Golden rows: one row of each kind, built by the runners' own code from a real small run, byte for byte.

The committed lines in ``golden/`` are what ``records.jsonl`` holds for
these inputs; a change of any key, value or type shows here first. To accept
an intended change (and bump ``RECORD_SCHEMA`` when the layout changes), run
with ``BEACON_UPDATE_GOLDEN=1`` and review the diff of ``golden/``.
Every committed archive row is also read through the types and written
back to the same bytes.
"""
from __future__ import annotations

import dataclasses
import difflib
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.artifacts.hashing import canonical_json_bytes
from beacon.graph.codebase import CodebaseGraph
from beacon.localize.evaluate import Cell
from beacon.localize.gold import gold_from_patch
from beacon.providers import OracleProvider, render_repair
from beacon.records import (
    ABSENT, OUTCOMES, LocalizationRecord, Outcome, RecordError, RepairOutcome, TrajectoryRecord, read_rows,
    row_from_json,
)
from beacon.records.fields import NULL
from beacon.repair.attempt import AttemptSpec, run_attempt
from beacon.repair.control import make_control_repo
from beacon.repair.job import _prepare_failure
from beacon.repair.limits import NO_LIMITS
from beacon.repair.prepare import RunSettings, prepare_task
from beacon.data import load_manifest, repo_resolver
from experiments import trajectories

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("golden")
ARCHIVES = sorted((ROOT / "outputs" / "archive").rglob("records.jsonl"))
REF = ROOT.parent / "shared" / "data" / "contextbench_ref"
# sandbox off: the rows must not depend on whether this machine has bubblewrap
# and no process or memory limits: nor on whether it lets the harness create a cgroup
SETTINGS = RunSettings(allow_local_execution=True, timeout_s=30, sandbox="off", limits=NO_LIMITS)


def line(row) -> bytes:
    return canonical_json_bytes(row.to_json()) + b"\n"


def check_golden(name: str, row) -> None:
    path = GOLDEN / f"{name}.jsonl"
    got = line(row)
    if os.environ.get("BEACON_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(got)
    want = path.read_bytes()
    diff = "\n".join(difflib.unified_diff(want.decode().replace(",", ",\n").splitlines(),
                                          got.decode().replace(",", ",\n").splitlines(), lineterm="", n=1))
    assert got == want, f"{path} differs from the row built now:\n{diff}"
    assert type(row).from_json(row.to_json(), str(path)) == row  # round trip
    assert row_from_json(row.to_json()) == row  # dispatch by kind finds the same type


@pytest.fixture(scope="module")
def control(tmp_path_factory):
    root = tmp_path_factory.mktemp("golden")
    repo, manifest = make_control_repo(root)
    tasks = load_manifest(manifest, resolve_repo=repo_resolver(root / "repos"))
    return repo, tasks, root


def test_repair_attempt_row(control):
    _, tasks, root = control
    task = tasks[0]
    prepared = prepare_task(task, repo_resolver(root / "repos")(task.repo), root / "work", SETTINGS)
    answer = render_repair(task.path, prepared.mutated_text, task.line, task.repair_line, "diff")
    spec = AttemptSpec("bm25", 2000, "vague", "diff", "oracle")
    row, _ = run_attempt(prepared, spec, lambda p, s: OracleProvider(answer), SETTINGS, dry_run=False, slot="g")
    assert row.outcome is Outcome.PASS and row.prepared
    check_golden("repair_attempt", row)


def test_repair_unprepared_row(control):
    _, tasks, _ = control
    spec = AttemptSpec("bm25", 2000, "vague", "diff", "oracle")
    row = _prepare_failure(tasks[0], spec, "GitError: no such commit", dry_run=False)
    assert not row.prepared and row.checks is ABSENT
    check_golden("repair_unprepared", row)


@pytest.fixture(scope="module")
def localization_cell(control):
    repo, tasks, _ = control
    task = tasks[0]
    lines = (repo / task.path).read_text().splitlines()
    n = task.line
    patch = (f"--- a/{task.path}\n+++ b/{task.path}\n@@ -{n},1 +{n},1 @@\n-{lines[n - 1]}\n"
             f"+{lines[n - 1]}  # fixed\n")
    cell = Cell("demo-1|bm25()|500", "demo-1", "textkit", task.commit, "bm25", {}, 500, "golden")
    return cell, CodebaseGraph.from_repo(repo), gold_from_patch("demo-1", patch, repo)


def test_localization_rows(localization_cell):
    cell, graph, gold = localization_cell
    scored = cell.scored(graph, "clamp returns the wrong bound for values below the range", gold)
    assert scored.metrics["file_acc@1"] == 1.0
    check_golden("localization_scored", scored)
    check_golden("localization_error", cell.failed("PatchError: patch does not apply to textkit/numbers.py"))


@pytest.mark.skipif(not (REF / "instances.jsonl").is_file(), reason=f"ContextBench reference cases not at {REF}")
def test_trajectory_row(tmp_path):
    out = tmp_path / "run"
    argv = [str(REF / "trajectories"), "--instances", str(REF / "instances.jsonl"), "--trees", str(REF / "trees"),
            "--out", str(out), "--glob", "pallets__flask-5014.checkpoints.jsonl", "--profiles", "beacon"]
    assert trajectories.main(argv) == 0
    (row,) = read_rows(out / "records.jsonl")
    assert isinstance(row, TrajectoryRecord)
    check_golden("trajectory", row)


@pytest.mark.parametrize("path", ARCHIVES, ids=lambda p: p.parent.relative_to(ROOT / "outputs" / "archive").as_posix())
def test_archived_rows_read_and_write_back_byte_identical(path):
    raw = path.read_bytes().splitlines(keepends=True)
    rows = list(read_rows(path))
    assert len(rows) == len(raw) > 0
    for row, want in zip(rows, raw):
        assert line(row) == want
        assert type(row).from_json(row.to_json()) == row
        assert row.structured_output is ABSENT  # archived at schema 1: the later fields stay absent


def test_outcome_enum_is_the_outcome_strings():
    assert OUTCOMES == tuple(o.value for o in Outcome)
    assert [f"{o}" for o in Outcome] == list(OUTCOMES) and Outcome("pass") is Outcome.PASS


@pytest.mark.parametrize("change, message", [
    ({"budget": "500"}, "demo.jsonl:3: field 'budget': expected int, got '500'"),
    ({"budget": True}, "field 'budget': expected int, got True"),
    ({"outcome": "passed"}, "field 'outcome': 'passed' is not one of pass, abstain,"),
    ({"surprise": 1}, "field 'surprise' is not a field of a repair record"),
    ({"kind": "localise"}, "field 'kind': expected 'localize' or no kind (a repair row), got 'localise'"),
])
def test_bad_rows_name_file_line_and_field(control, change, message):
    _, tasks, _ = control
    row = _prepare_failure(tasks[0], AttemptSpec("bm25", 500, "vague", "diff", "oracle"), "E: x", dry_run=False)
    with pytest.raises(RecordError) as err:
        row_from_json({**row.to_json(), **change}, "demo.jsonl:3")
    assert message in str(err.value)


def test_a_missing_required_field_is_named(localization_cell):
    cell, _, _ = localization_cell
    data = cell.failed("E: x").to_json()
    del data["error"]
    with pytest.raises(RecordError, match=r"x.jsonl:1: field 'error' is missing; expected a localization record"):
        row_from_json(data, "x.jsonl:1")
    data = {**cell.failed("E: x").to_json(), "metrics": {"file_acc@1": 1.0}}
    with pytest.raises(RecordError, match="field 'metrics': expected null in a row with an error"):
        LocalizationRecord.from_json(data, "x.jsonl:2")


_JSON_OF = {str: st.text(max_size=5), int: st.integers(-5, 10**6), bool: st.booleans(), NULL: st.none(),
            float: st.floats(0, 1), dict: st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
            list: st.lists(st.text(max_size=3), max_size=2), Outcome: st.sampled_from(OUTCOMES)}


def _row_strategy(cls):
    """JSON objects of ``cls``'s shape: every required field, any subset of the others, values of their types."""
    fields = dataclasses.fields(cls)
    values = {f.name: st.one_of(*(_JSON_OF[t] for t in f.metadata["types"])) for f in fields}
    required = {f.name for f in fields if f.metadata["required"]}
    optional = [f.name for f in fields if not f.metadata["required"]]
    return st.sets(st.sampled_from(optional)).flatmap(
        lambda keep: st.fixed_dictionaries({k: values[k] for k in sorted(required | keep)}))


@settings(max_examples=60, deadline=None)
@given(data=_row_strategy(RepairOutcome), wrong=st.data())
def test_repair_rows_round_trip_and_a_wrong_type_is_named(data, wrong):
    data = {**data, "dry_run": False}  # a dry-run row must have no outcome (a rule between fields)
    row = RepairOutcome.from_json(data, "p.jsonl:1")
    assert row.to_json() == data and canonical_json_bytes(row.to_json()) == canonical_json_bytes(data)
    name = wrong.draw(st.sampled_from(sorted(data)))
    bad = {**data, name: 1.5}  # a float is the type of no repair field
    with pytest.raises(RecordError, match=f"p.jsonl:1: field '{name}': expected "):
        RepairOutcome.from_json(bad, "p.jsonl:1")


@settings(max_examples=40, deadline=None)
@given(data=_row_strategy(LocalizationRecord))
def test_localization_rows_round_trip(data):
    data = {**data, "kind": "localize", "task_set": "t", "error": None, "metrics": {"file_acc@1": 1.0}}
    row = row_from_json(data, "p.jsonl:2")
    assert isinstance(row, LocalizationRecord) and row.to_json() == data
