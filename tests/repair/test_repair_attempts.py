"""Scored attempts end to end on a real generated repository, real pytest, every outcome."""
from __future__ import annotations

import dataclasses
import json
import re
import subprocess

import pytest

from beacon.providers import OracleProvider, render_repair
from beacon.records import OUTCOMES
from beacon.repair.attempt import AttemptSpec, run_attempt
from beacon.repair.control import make_control_repo
from beacon.repair.prepare import RunSettings, prepare_task
from beacon.repair.sandbox import find_bwrap
from beacon.repair.task_policy import source_file_problems
from beacon.data import load_manifest, repo_resolver
from beacon.data.manifest import Task

SETTINGS = RunSettings(allow_local_execution=True, timeout_s=20)


@pytest.fixture(scope="module")
def control(tmp_path_factory):
    root = tmp_path_factory.mktemp("control")
    _, manifest = make_control_repo(root)
    resolve = repo_resolver(root / "repos")
    tasks = load_manifest(manifest, resolve_repo=resolve)
    return root, resolve, tasks


@pytest.fixture(scope="module")
def prepared(control, tmp_path_factory):
    root, resolve, tasks = control
    task = tasks[0]  # clamp: "        return low" -> "        return high"
    return prepare_task(task, resolve(task.repo), tmp_path_factory.mktemp("work"), SETTINGS)


def attempt(prepared, answer: str | None, fmt="exact_edit", method="bm25", budget=2000, slot="x", settings=SETTINGS):
    spec = AttemptSpec(method, budget, "vague", fmt, "scripted")
    if answer is None:  # the known repair
        task = prepared.task
        answer = render_repair(task.path, prepared.mutated_text, task.line, task.repair_line, fmt)
    row, timings = run_attempt(prepared, spec, lambda p, s: OracleProvider(answer), settings,
                               dry_run=False, slot=slot)
    return row.to_json()


def exact(search, replace, path="textkit/numbers.py"):
    return "```json\n" + json.dumps({"path": path, "search": search, "replace": replace}) + "\n```"


def test_preconditions_hold_and_ids_are_recorded(prepared):
    assert prepared.valid and prepared.invalid_reason is None
    assert prepared.original_ids == ("tests/test_numbers.py::test_clamp_edges", "tests/test_numbers.py::test_clamp_inside",
                                      "tests/test_numbers.py::test_moving_average")
    assert prepared.mutant["failing_ids"] == ["tests/test_numbers.py::test_clamp_edges"]
    assert "return high" in prepared.mutated_text.splitlines()[8]
    # retrieval indexes the mutated snapshot
    assert "        return high" in prepared.graph.source("textkit/numbers.py::clamp").splitlines()


@pytest.mark.parametrize("fmt", ["diff", "exact_edit", "line_span"])
def test_known_repair_passes_in_every_format(prepared, fmt):
    record = attempt(prepared, None, fmt=fmt, slot=fmt)
    assert record["outcome"] == "pass", record["outcome_detail"]
    assert record["covers_bug_line"] and record["tests"]["outcomes"] == {"passed": 3}
    assert record["repair"]["textkit/numbers.py"]["diff_lines_changed"] == 1


def test_a_repair_that_differs_from_the_pristine_file_passes_the_plain_run_too(prepared):
    # (the known repair restores the pristine file: no oracle of calls there, so no plain run; this one differs)
    record = attempt(prepared, exact("    if value < low:\n        return high", "    if value < low:\n        return max(value, low)"),
                     slot="plain")
    assert record["outcome"] == "pass", record["outcome_detail"]
    assert record["checks"]["oracle"]["ran"] and record["checks"]["oracle"]["checked"] >= 1
    assert record["checks"]["plain"] == {"ran": True, "passed": True, "tampered": False, "outcomes": {"passed": 3},
                                         "exit_code": 0, "timed_out": False, "canaries_ok": True,
                                         "integrity_violations": 0, "limits_hit": []}
    assert record["checks"]["replay"]["ran"]
    # the mutant itself: refused by the full run, so no plain run
    record = attempt(prepared, exact("Limit value to the closed interval [low, high].", "Clamp value into [low, high]."),
                     slot="plain-mutant")
    assert record["outcome"] == "test_fail" and record["checks"]["plain"] == {"ran": False}


@pytest.mark.parametrize("answer, outcome, detail", [
    ('{"abstain": true, "reason": "not enough context"}', "abstain", "not enough context"),
    ("I think the bug is in clamp but I am not sure.", "no_patch", None),
    ("```json\n{\"path\": \"textkit/numbers.py\", \"search\": 1}\n```", "invalid_patch", "search"),
    (exact("        return nothing_like_this", "x"), "invalid_patch", "does not occur"),
    (exact("def test_clamp_inside():\n    assert clamp(5, 0, 10) == 5",
           "def test_clamp_inside():\n    assert True", path="tests/test_numbers.py"), "unauthorized_path", "protected"),
    (exact("x", "y", path="tests/conftest.py"), "unauthorized_path", "conftest"),
    (exact("        return high\n    if value > high:", "        return low\n    if value > high:")[:-4] + "(\n```",
     "invalid_patch", None),
    (exact("        return high\n    if value > high:", "        return (low\n    if value > high:"), "syntax_error", "line"),
    (exact("        return high\n    if value > high:", "        return low + 1\n    if value > high:"), "test_fail",
     "test_clamp_edges"),
    (exact("        return high\n    if value > high:", "        while True: pass\n    if value > high:"), "timeout", "timed out"),
])
def test_every_outcome(prepared, answer, outcome, detail):
    # the endless loop waits out the timeout: 5 s, not the 20 s the other runs may need on a loaded machine
    settings = dataclasses.replace(SETTINGS, timeout_s=5) if outcome == "timeout" else SETTINGS
    record = attempt(prepared, answer, slot=outcome, settings=settings)
    assert record["outcome"] == outcome, record["outcome_detail"]
    if detail:
        assert detail in (record["outcome_detail"] or "")
    assert record["outcome"] in OUTCOMES


def test_object_addresses_are_not_in_the_detail(prepared):
    # pytest's failure text shows ``<object object at 0x7f…>``, another address in every run: the row would not
    # regenerate (the session 51 review)
    record = attempt(prepared, exact("        return high\n    if value > high:",
                                     "        return object()\n    if value > high:"), slot="address")
    assert record["outcome"] == "test_fail" and "object object at 0x?>" in record["outcome_detail"], record
    assert not re.search(r"0x[0-9a-fA-F]{4,}", record["outcome_detail"]), record["outcome_detail"]


def test_outcome_detail_is_bounded():
    # its test ids come from the run's report, which the code under test can forge with huge names (red-team
    # round 6: a 4.2 MB row); failure messages are already cut where the reasons are built
    from beacon.repair.attempt import DETAIL_CAP, _bounded

    detail = "tests/test_a.py::" + "x" * 100_000 + ": missing from the report"
    cut = _bounded(detail)
    assert len(cut) < DETAIL_CAP + 40 and cut.startswith(detail[:DETAIL_CAP]) and cut.endswith("more characters)")
    assert _bounded("short") == "short" and _bounded(None) is None


def test_diff_with_mode_change_is_unauthorized(prepared):
    task = prepared.task
    diff = render_repair(task.path, prepared.mutated_text, task.line, task.repair_line, "diff")
    diff = diff.replace("```diff\n", "```diff\nold mode 100644\nnew mode 100755\n")
    record = attempt(prepared, diff, fmt="diff", slot="mode")
    assert record["outcome"] == "unauthorized_path" and "mode" in record["outcome_detail"]


def test_line_span_outside_the_rendered_context_is_refused(prepared):
    answer = '```json\n{"path": "textkit/numbers.py", "start_line": 9, "end_line": 9, "replacement": "        return low"}\n```'
    record = attempt(prepared, answer, fmt="line_span", method="no_retrieval", slot="nospan")
    assert record["outcome"] == "invalid_patch" and "not inside one rendered span" in record["outcome_detail"]


def test_truncated_completion_never_becomes_a_patch(prepared):
    from beacon.providers.base import Completion

    class Truncating:
        name = "truncating"

        def complete(self, prompt, *, max_tokens, temperature=0.0, seed=0):
            good = OracleProvider(render_repair(prepared.task.path, prepared.mutated_text, prepared.task.line,
                                                prepared.task.repair_line, "exact_edit")).complete(prompt, max_tokens=max_tokens)
            return Completion(**{**good.__dict__, "stop_reason": "length", "truncated": True})

    spec = AttemptSpec("bm25", 2000, "vague", "exact_edit", "truncating")
    record = run_attempt(prepared, spec, lambda p, s: Truncating(), SETTINGS, dry_run=False, slot="trunc")[0].to_json()
    assert record["outcome"] == "invalid_patch" and "unusable" in record["outcome_detail"]


def test_records_are_deterministic_and_path_free(prepared, tmp_path):
    a = attempt(prepared, None, slot="d1")
    b = attempt(prepared, None, slot="d2")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert str(prepared.work) not in json.dumps(a) and "/tmp/" not in json.dumps(a)


def test_dry_run_has_null_scores_and_runs_nothing(control, tmp_path):
    root, resolve, tasks = control
    prepared_dry = prepare_task(tasks[1], resolve(tasks[1].repo), tmp_path / "w", RunSettings())
    assert prepared_dry.baseline == {} and prepared_dry.original_ids == ()
    spec = AttemptSpec("bm25", 2000, "dev_report", "diff", "oracle")
    record = run_attempt(prepared_dry, spec, lambda p, s: pytest.fail("no model in a dry run"), RunSettings(),
                         dry_run=True, slot="dry")[0].to_json()
    assert record["outcome"] is None and record["response"] is None and record["prompt_tokens"] > 0
    assert "moving_average drops the final window" in record["prompt"]
    with pytest.raises(PermissionError, match="allow_local_execution"):
        run_attempt(prepared_dry, spec, lambda p, s: None, RunSettings(), dry_run=False, slot="no")


def write_repo(tmp_path, files):
    repo = tmp_path / "repos" / "r"
    repo.mkdir(parents=True)
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_GLOBAL": "/dev/null", "PATH": "/usr/bin:/bin"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    return repo_resolver(tmp_path / "repos"), commit


def task_for(commit, **kw):
    base = dict(repo="r", commit=commit, bug_location="m.py:2", mutation_type="constant_change",
                original_line="    return 1", mutated_line="    return 2", token_budget=1000,
                test_command="python -m pytest test_m.py", task_id="t")
    base.update(kw)
    return Task(**base)


@pytest.mark.parametrize("files, reason", [
    ({"m.py": "def f():\n    return 1\n", "test_m.py": "from m import f\n\ndef test_f():\n    assert f() == 3\n"},
     "original suite does not pass"),
    ({"m.py": "def f():\n    return 1\n", "test_m.py": "from m import f\n\ndef test_f():\n    assert f() > 0\n"},
     "mutant survives"),
    ({"m.py": "def f():\n    return 1\n", "test_m.py": "# no tests here\n"}, "no test ids"),
    # a suite that passes only with hash randomization off (the order of a set of strings at PYTHONHASHSEED=0): the
    # plain run's seed would refuse every repair but the pristine file (the session 51 review's h01)
    ({"m.py": "def f():\n    return 1\n", "test_m.py": (
        "from m import f\n\ndef test_f():\n    assert f() == 1\n    assert list({'apple', 'banana', 'cherry', 'date', "
        "'elder', 'fig', 'grape', 'hazel'}) == ['banana', 'fig', 'cherry', 'apple', 'date', 'elder', 'grape', "
        "'hazel']\n")}, "original suite does not pass with hash randomization on (PYTHONHASHSEED=2928525981"),
])
def test_invalid_tasks_say_why(tmp_path, files, reason):
    resolve, commit = write_repo(tmp_path, files)
    task = task_for(commit)
    prepared = prepare_task(task, resolve("r"), tmp_path / "w", SETTINGS)
    assert not prepared.valid and reason in prepared.invalid_reason


@pytest.mark.skipif(find_bwrap()[0] is None, reason="needs a working bubblewrap")
@pytest.mark.parametrize("test_body, hint", [
    ("    open('out.txt', 'w').write('x')\n", "the sandbox's checkout is read-only"),
    ("    assert open('/proc/self/status').read()\n", "the sandbox mounts no /proc"),
    ("    open('/dev/stdout', 'w').write('x')\n", "the sandbox has no /dev/stdout"),
])
def test_an_original_suite_the_sandbox_breaks_is_invalid_with_the_reason(tmp_path, test_body, hint):
    resolve, commit = write_repo(tmp_path, {
        "m.py": "def f():\n    return 1\n",
        "test_m.py": "from m import f\n\ndef test_f():\n    assert f() == 1\n" + test_body})
    settings = RunSettings(allow_local_execution=True, timeout_s=20, sandbox="required")
    prepared = prepare_task(task_for(commit), resolve("r"), tmp_path / "w", settings)
    assert not prepared.valid
    assert "original suite does not pass" in prepared.invalid_reason and f"(in the sandbox: {hint}" in \
        prepared.invalid_reason, prepared.invalid_reason


def test_declared_file_policy(tmp_path):
    resolve, commit = write_repo(tmp_path, {
        "m.py": "def f():\n    return 1\n",
        "helpers_plugin.py": "def g():\n    return 1\n",
        "conftest.py": "pytest_plugins = ['helpers_plugin']\n",
        "check_m.py": "def f():\n    return 1\n",
        "pytest.ini": "[pytest]\npython_files = check_*.py test_*.py\n",
        "tests/util.py": "def f():\n    return 1\n",
        "test_m.py": "from m import f\n\ndef test_f():\n    assert f() == 1\n",
    })
    tree = tmp_path / "repos" / "r"
    assert source_file_problems(task_for(commit), tree) == []
    cases = {
        "helpers_plugin.py": "pytest plugin", "conftest.py": "conftest", "check_m.py": "python_files",
        "tests/util.py": "test directory", "test_m.py": "selected by the test command",
    }
    for path, why in cases.items():
        problems = source_file_problems(task_for(commit, bug_location=f"{path}:1"), tree)
        assert any(why in p for p in problems), (path, problems)
    (tree / "link.py").symlink_to(tree / "m.py")
    assert any("symlink" in p for p in source_file_problems(task_for(commit, bug_location="link.py:1"), tree))


def test_lines_changed_are_aligned_not_positional():
    """A line inserted at the top is one changed line, not every line after it (the count was positional)."""
    from beacon.repair.edited_lines import lines_changed as _changed
    old = "\n".join(f"line {i}" for i in range(10))
    assert _changed(old, "import os\n" + old) == 1
    assert _changed(old, old.replace("line 4", "line four")) == 1
    assert _changed(old, old.replace("line 4\n", "")) == 1
    assert _changed(old, old) == 0


def test_lines_changed_counts_inserted_lines_wherever_they_go():
    from hypothesis import given, settings, strategies as st
    from beacon.repair.edited_lines import lines_changed as _changed

    @settings(max_examples=150, deadline=None, derandomize=True, database=None)
    @given(lines=st.lists(st.integers(0, 10**6).map(lambda n: f"x = {n}"), min_size=1, max_size=30, unique=True),
           at=st.integers(0, 30), added=st.integers(1, 4))
    def check(lines, at, added):
        at = min(at, len(lines))
        new = lines[:at] + [f"new {k}" for k in range(added)] + lines[at:]
        assert _changed("\n".join(lines), "\n".join(new)) == added
        assert _changed("\n".join(lines), "\n".join(lines)) == 0

    check()
