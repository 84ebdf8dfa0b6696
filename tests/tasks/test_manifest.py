"""Task manifests: every validation rule, against real git repositories."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from beacon.data import ManifestError, load_manifest, parse_test_command, repo_resolver
from repotools import git


@pytest.fixture
def repos(tmp_path):
    root = tmp_path / "repos"
    work = root / "calc"
    work.mkdir(parents=True)
    git(work, "init", "-q")
    (work / "calc.py").write_text("def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    return min(x, hi)\n")
    (work / "test_calc.py").write_text("from calc import clamp\n\ndef test_clamp():\n    assert clamp(-1, 0, 5) == 0\n")
    git(work, "add", ".")
    git(work, "commit", "-qm", "init")
    return root, git(work, "rev-parse", "HEAD")


def row(sha, **changes):
    base = {
        "repo": "calc", "commit": sha, "bug_location": "calc.py:2", "mutation_type": "comparison_swap",
        "original_line": "    if x < lo:", "mutated_line": "    if x > lo:", "token_budget": 2000,
        "test_command": "python -m pytest test_calc.py -q",
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def write(tmp_path, rows, name="tasks.jsonl"):
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_valid_manifest_loads_with_defaults(tmp_path, repos):
    root, commit = repos
    path = write(tmp_path, [row(commit), "", row(commit, task_id="second", known_repair="    if x <= lo:")])
    tasks = load_manifest(path, resolve_repo=repo_resolver(root))
    assert [t.task_id for t in tasks] == ["calc:calc.py:2:comparison_swap", "second"]
    assert tasks[0].repair_line == "    if x < lo:" and tasks[1].repair_line == "    if x <= lo:"
    assert tasks[0].path == "calc.py" and tasks[0].line == 2
    assert tasks[0].tests.selection == ("test_calc.py",) and tasks[0].tests.flags == ("-q",)


@pytest.mark.parametrize("changes, field, message", [
    ({"commit": None}, "commit", "missing"),
    ({"token_budget": "2000"}, "token_budget", "expected int"),
    ({"token_budget": True}, "token_budget", "expected int"),
    ({"token_budget": -5}, "token_budget", ">= 0"),
    ({"surprise": 1}, "surprise", "unknown field"),
    ({"commit": "abc123"}, "commit", "full 40-hex"),
    ({"bug_location": "calc.py"}, "bug_location", "path.py:line"),
    ({"bug_location": "calc.py:0"}, "bug_location", "path.py:line"),
    ({"mutated_line": "    if x < lo:"}, "mutated_line", "identical"),
    ({"mutated_line": "a\nb"}, "mutated_line", "single line"),
    ({"test_command": "pytest test_calc.py"}, "test_command", "python -m pytest"),
])
def test_field_errors_name_file_line_and_field(tmp_path, repos, changes, field, message):
    _, commit = repos
    path = write(tmp_path, [row(commit, task_id="ok"), row(commit, **changes)])
    with pytest.raises(ManifestError) as err:
        load_manifest(path)
    assert err.value.line == 2 and err.value.field == field and str(path) in str(err.value)
    assert message in str(err.value)


def test_invalid_json_and_non_objects(tmp_path, repos):
    with pytest.raises(ManifestError, match=r"tasks.jsonl:1:\d+: invalid JSON"):
        load_manifest(write(tmp_path, ["{not json"]))
    with pytest.raises(ManifestError, match="expected a JSON object"):
        load_manifest(write(tmp_path, ["[1, 2]"]))


def test_duplicate_ids(tmp_path, repos):
    _, commit = repos
    with pytest.raises(ManifestError, match="duplicate id 'x' \\(first on line 1\\)") as err:
        load_manifest(write(tmp_path, [row(commit, task_id="x"), row(commit, task_id="x")]))
    assert err.value.line == 2 and err.value.field == "task_id"


def test_checked_against_the_file_at_the_commit(tmp_path, repos):
    root, commit = repos
    resolve = repo_resolver(root)
    cases = [
        (row(commit, original_line="    if x <= lo:", mutated_line="    if x > lo:"), "original_line", "the file has '    if x < lo:'"),
        (row(commit, mutated_line="    if x >>> lo:"), "mutated_line", "does not compile"),
        (row("f" * 40), "commit", "is not a commit"),
        (row(commit, bug_location="calc.py:99"), "bug_location", "lines"),
        (row(commit, bug_location="nope.py:1"), "bug_location", "no file"),
        (row(commit, repo="missing"), "repo", "no repository 'missing'"),
        (row(commit, repo="../calc"), "repo", "must name an entry"),
    ]
    for bad, field, message in cases:
        with pytest.raises(ManifestError) as err:
            load_manifest(write(tmp_path, [bad]), resolve_repo=resolve)
        assert err.value.field == field and message in str(err.value), (bad, str(err.value))


@pytest.mark.parametrize("command", [
    "python -m pytest test_calc.py",
    "python -m pytest tests/test_a.py::TestX::test_y[1-2] --tb=short -v",
    "python -m pytest -q tests tests/unit/test_b.py::test_c",
])
def test_allowed_test_commands(command):
    parse_test_command(command)


@pytest.mark.parametrize("command, reason", [
    ("pytest tests", "python -m pytest"),
    ("python -m unittest tests", "python -m pytest"),
    ("python -m pytest tests | cat", "not a test path"),
    ("python -m pytest tests; rm -rf /", "not a test path"),
    ("python -m pytest $(evil)", "not a test path"),
    ("python -m pytest -p no:randomly tests", "not allowed"),
    ("python -m pytest -c other.ini tests", "not allowed"),
    ("python -m pytest --rootdir=/ tests", "not allowed"),
    ("python -m pytest -o addopts= tests", "not allowed"),
    ("python -m pytest -x tests", "not allowed"),
    ("python -m pytest ../outside.py", "'..'"),
    ("python -m pytest /abs/test_x.py", "absolute"),
    ("python -m pytest -q", "names no test"),
    ("python -m pytest 'unclosed", "cannot split"),
])
def test_refused_test_commands(command, reason):
    with pytest.raises(ValueError, match=reason.replace("$", "\\$").replace("(", "\\(")):
        parse_test_command(command)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_test_command_parser_never_crashes(suffix):
    try:
        cmd = parse_test_command("python -m pytest " + suffix)
    except ValueError:
        return
    assert cmd.selection and all(not s.startswith("-") for s in cmd.selection)
