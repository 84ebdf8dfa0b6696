"""Mutation discovery on real generated git repositories: manifests, limits, determinism, validation."""
from __future__ import annotations

import json

import pytest

from beacon.repair.prepare import RunSettings
from beacon.repo.git import open_source
from beacon.data import ManifestError, load_manifest, repo_resolver
from beacon.tasks.discover import DiscoveryError, DiscoveryLimitError, Limits, ValidateOptions, discover
from beacon.tasks.validate import killing_command
from beacon.tasks.mutate import mutations
from experiments.discover import main
from repotools import git

CALC = '''"""Calc helpers."""
import math


def clamp(x, lo, hi):
    """Limit x to [lo, hi]."""
    if x < lo:
        return lo
    return min(x, hi)


def is_even(n):
    return n % 2 == 0
'''
TESTS = '''from pkg.calc import clamp, is_even


def test_clamp():
    assert clamp(-1, 0, 5) == 0
    assert clamp(3, 0, 5) == 3


def test_even():
    assert is_even(4)
'''


@pytest.fixture
def repo(tmp_path):
    work = tmp_path / "repos" / "calc"
    for rel, text in {"pkg/__init__.py": "", "pkg/calc.py": CALC, "tests/test_calc.py": TESTS,
                      "pkg/test_helpers.py": "def helper(a):\n    return a + 1\n"}.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text)
    git(work, "init", "-q")
    git(work, "add", ".")
    git(work, "commit", "-qm", "init")
    return work, git(work, "rev-parse", "HEAD")


def run_cli(repo_dir, out, *extra):
    return main([str(repo_dir), "--commit", "HEAD", "--out", str(out), *extra])


def test_complete_run_writes_a_loadable_manifest_of_every_candidate(repo, tmp_path, capsys):
    work, commit = repo
    (work / "pkg" / "calc.py").write_text("def changed():\n    return 1 < 2\n")  # uncommitted: must be ignored
    out = tmp_path / "out" / "tasks.jsonl"
    assert run_cli(work, out) == 0
    summary = json.loads(capsys.readouterr().out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    expected = mutations("pkg/calc.py", CALC)
    assert [(r["bug_location"], r["mutation_type"], r["mutated_line"]) for r in rows] == [
        (f"pkg/calc.py:{m.line}", m.operator, m.mutated_line) for m in expected]
    assert summary["candidates"] == summary["written"] == len(rows) == summary["syntax_checks"] > 5
    assert summary["skipped"] == {} and summary["test_files"] == 2  # pkg/test_helpers.py, tests/test_calc.py
    assert not any(r["bug_location"].startswith(("tests/", "pkg/test_")) for r in rows)
    assert rows[0]["task_id"] == f"calc:pkg/calc.py:7:{expected[0].operator}:0"
    assert {r["commit"] for r in rows} == {commit} and {r["test_command"] for r in rows} == {"python -m pytest -q tests"}
    tasks = load_manifest(out, resolve_repo=repo_resolver(tmp_path / "repos"))
    assert len(tasks) == len(rows)
    meta = tasks[0].metadata
    assert meta["limits"] == Limits().as_dict() and meta["discovery_version"] == 1
    assert meta["operator"] == tasks[0].mutation_type and meta["variant"] == 0


@pytest.mark.parametrize("flag, value, limit", [
    ("--max-file-bytes", "100", "max_file_bytes"),
    ("--max-check-bytes", "500", "max_check_bytes"),
    ("--max-checks", "3", "max_checks"),
    ("--max-tasks", "2", "max_tasks"),
])
def test_each_limit_raises_and_writes_nothing(repo, tmp_path, capsys, flag, value, limit):
    work, commit = repo
    absent, existing = tmp_path / "absent.jsonl", tmp_path / "existing.jsonl"
    existing.write_text("previous contents\n")
    for out in (absent, existing):
        assert run_cli(work, out, flag, value) == 2
        err = capsys.readouterr().err
        assert f"{limit}={value} exceeded" in err and flag in err and "nothing was written" in err
    assert not absent.exists() and existing.read_text() == "previous contents\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    with pytest.raises(DiscoveryLimitError) as info:
        discover(open_source(work), commit, repo="calc", limits=Limits(**{limit: int(value)}))
    assert info.value.limit == limit and info.value.value > info.value.maximum == int(value)


def test_limits_are_recorded_and_runs_are_byte_identical_from_tree_and_bundle(repo, tmp_path, capsys):
    work, _ = repo
    bundle = tmp_path / "calc.bundle"
    git(work, "bundle", "create", str(bundle), "--all")
    outs = [tmp_path / f"run{i}.jsonl" for i in range(3)]
    args = ("--max-checks", "500", "--paths", "pkg")
    assert run_cli(work, outs[0], *args) == 0 and run_cli(work, outs[1], *args) == 0
    assert main([str(bundle), "--commit", "HEAD", "--out", str(outs[2]), "--cache-dir", str(tmp_path / "c"), *args]) == 0
    capsys.readouterr()
    assert outs[0].read_bytes() == outs[1].read_bytes() == outs[2].read_bytes()
    rows = [json.loads(line) for line in outs[0].read_text().splitlines()]
    assert {r["metadata"]["limits"]["max_checks"] for r in rows} == {500}


def test_unusable_files_are_skipped_and_uncompilable_mutants_rejected(repo, tmp_path, capsys):
    work, _ = repo
    # parses but does not compile (nonlocal without an enclosing binding): all 3 mutants are rejected
    (work / "pkg" / "broken.py").write_text("def f(a):\n    nonlocal zz\n    return a + 1\n")
    (work / "pkg" / "crlf.py").write_bytes(b"def f(a):\r\n    return a + 1\r\n")
    (work / "pkg" / "latin.py").write_bytes(b"# \xe9\ndef f(a):\n    return a + 1\n")
    (work / "pkg" / "old.py").write_text("def f(a):\n    print a\n")
    (work / "pytest.py").write_text("def f(a):\n    return a + 1\n")
    git(work, "add", ".")
    git(work, "commit", "-qm", "odd files")
    assert run_cli(work, tmp_path / "o.jsonl") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rejected_syntax"] == 3 and summary["syntax_checks"] == summary["candidates"] + 3
    skipped = summary["skipped"]
    assert skipped["pkg/crlf.py"] == "has CR line endings" and skipped["pkg/latin.py"] == "not UTF-8"
    assert skipped["pkg/old.py"].startswith("does not parse") and "shadows pytest" in skipped["pytest.py"]
    rows = [json.loads(line) for line in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert {r["bug_location"].split(":")[0] for r in rows} == {"pkg/calc.py"}


def test_paths_and_tests_options_are_checked(repo, tmp_path, capsys):
    work, _ = repo
    assert run_cli(work, tmp_path / "o.jsonl", "--paths", "nowhere") == 2
    assert "matches no .py file" in capsys.readouterr().err
    assert run_cli(work, tmp_path / "o.jsonl", "--tests", "tests/missing.py") == 2
    assert "does not exist" in capsys.readouterr().err
    assert run_cli(work, tmp_path / "o.jsonl", "--tests", "tests/test_calc.py::test_even") == 0
    row = json.loads((tmp_path / "o.jsonl").read_text().splitlines()[0])
    assert row["test_command"] == "python -m pytest -q tests/test_calc.py::test_even"


def test_operator_filter_and_size_suffixes(repo, tmp_path, capsys):
    work, _ = repo
    out = tmp_path / "o.jsonl"
    assert run_cli(work, out, "--operators", "off_by_one", "return_value_swap", "--max-check-bytes", "1M") == 0
    summary = json.loads(capsys.readouterr().out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["mutation_type"] for r in rows} == {"return_value_swap"} == set(summary["by_operator"])
    assert summary["operators"] == ["return_value_swap", "off_by_one"]
    assert summary["limits"]["max_check_bytes"] == 1 << 20 == rows[0]["metadata"]["limits"]["max_check_bytes"]
    for bad in (["--operators", "nonsense"], ["--max-file-bytes", "12X"], ["--max-checks", "0"]):
        with pytest.raises(SystemExit):
            run_cli(work, out, *bad)
        assert "error: argument" in capsys.readouterr().err
    with pytest.raises(DiscoveryError, match="unknown operator"):
        discover(open_source(work), "HEAD", repo="calc", operators=["nonsense"])


def test_cli_refuses_validate_without_consent(repo, tmp_path, capsys):
    work, _ = repo
    with pytest.raises(SystemExit) as info:
        run_cli(work, tmp_path / "o.jsonl", "--validate")
    assert info.value.code == 2 and "--allow-local-execution" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()
    with pytest.raises(PermissionError, match="allow_local_execution"):
        discover(open_source(work), "HEAD", repo="calc", validate=ValidateOptions(RunSettings()))


def test_validate_keeps_killed_mutants_with_node_id_commands(repo, tmp_path, capsys):
    work, commit = repo
    found = [m for m in mutations("pkg/calc.py", CALC) if m.line == 7]
    assert [m.mutated_line for m in found[:2]] == ["    if not (x < lo):", "    if x <= lo:"]  # killed, survives
    out = tmp_path / "validated.jsonl"
    assert run_cli(work, out, "--validate", "--allow-local-execution", "--paths", "pkg/calc.py",
                   "--max-validate", "2", "--select", "first", "--timeout", "30") == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert summary["validation"]["statuses"] == {
        "killed": 1, "survived": 1, "timeout": 0, "no_report": 0, "unconfirmed": 0,
        "not_validated": summary["candidates"] - 2}
    assert "-> survived" in captured.err and "-> killed" in captured.err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 1 and rows[0]["mutated_line"] == "    if not (x < lo):"
    assert rows[0]["test_command"] == "python -m pytest -q tests/test_calc.py::test_clamp"
    assert rows[0]["metadata"]["validation"] == {"status": "killed", "failing_ids": ["tests/test_calc.py::test_clamp"]}
    (task,) = load_manifest(out, resolve_repo=repo_resolver(tmp_path / "repos"))
    assert task.commit == commit and task.tests.selection == ("tests/test_calc.py::test_clamp",)


def test_validate_refuses_a_failing_original_suite(repo, tmp_path):
    work, _ = repo
    (work / "tests" / "test_calc.py").write_text(TESTS + "\n\ndef test_broken():\n    assert False\n")
    git(work, "commit", "-qam", "broken test")
    options = ValidateOptions(RunSettings(allow_local_execution=True, timeout_s=30), max_validate=1)
    with pytest.raises(DiscoveryError, match="does not pass.*test_broken"):
        discover(open_source(work), "HEAD", repo="calc", paths=["pkg/calc.py"], validate=options)


def test_killing_command_uses_node_ids_files_when_unwritable_or_too_many():
    ids = ["tests/a.py::test_x", "tests/a.py::test_y[a b]", "tests/b.py::T::test_z"]
    assert killing_command(ids, 25) == "python -m pytest -q tests/a.py tests/b.py::T::test_z"
    assert killing_command(ids, 2) == "python -m pytest -q tests/a.py tests/b.py"
    assert killing_command(ids[2:], 25) == "python -m pytest -q tests/b.py::T::test_z"


def test_manifest_metadata_must_be_an_object(tmp_path, repo):
    work, commit = repo
    base = {"repo": "calc", "commit": commit, "bug_location": "pkg/calc.py:7", "mutation_type": "m",
            "original_line": "    if x < lo:", "mutated_line": "    if x <= lo:", "token_budget": 10,
            "test_command": "python -m pytest tests"}
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({**base, "metadata": {"operator": "m", "n": [1]}}) + "\n")
    (task,) = load_manifest(path)
    assert task.metadata == {"operator": "m", "n": [1]} and task.to_json()["metadata"] == task.metadata
    hash(task)  # still hashable: metadata is left out of the hash
    path.write_text(json.dumps({**base, "metadata": ["not", "an", "object"]}) + "\n")
    with pytest.raises(ManifestError, match="field 'metadata': expected a JSON object, got list"):
        load_manifest(path)
