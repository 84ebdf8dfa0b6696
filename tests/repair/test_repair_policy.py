"""Editable-path policy, and the whole pipeline from model text to verdict on a real repo."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from beacon.repair.controls import snapshot_protected
from beacon.repair.edits import Abstain, apply_edit, check_python_syntax, parse_edit
from beacon.repair.errors import EditError, EditSyntaxError
from beacon.repair.policy import EditPolicy, PolicyViolation, check_edit
from beacon.repair.pytest_runner import run_pytest, verify_run

FILES = {"pkg/__init__.py": "", "pkg/calc.py": "def add(a, b):\n    return a - b\n",
         "tests/conftest.py": "", "tests/test_calc.py": "from pkg.calc import add\n\ndef test_add():\n"
         "    assert add(2, 3) == 5\n", "pyproject.toml": "[tool.pytest.ini_options]\n", "README.md": "hi\n"}
PROTECTED = {"tests/test_calc.py": "0" * 64}


def exact(path: str) -> str:
    return f'{{"path": "{path}", "search": "x", "replace": "y"}}'


@pytest.mark.parametrize("path, message", [
    ("tests/conftest.py", "conftest.py files control pytest"),
    ("conftest.py", "conftest.py files control pytest"),
    ("pyproject.toml", "configuration files"),
    ("tests/test_calc.py", "protected by the task"),
    ("pkg/new.py", "creating new files"),
    ("README.md", "only Python source files"),
    ("pytest.py", "replace pytest itself"),
    ("_pytest/main.py", "replace pytest itself"),
])
def test_default_policy_forbids(path, message):
    with pytest.raises(PolicyViolation, match=message):
        check_edit(parse_edit(exact(path), "exact_edit"), EditPolicy(), FILES, protected=PROTECTED)


def test_editable_list_and_file_count():
    check_edit(parse_edit(exact("pkg/calc.py"), "exact_edit"), EditPolicy(), FILES, protected=PROTECTED)
    only_init = EditPolicy(editable=frozenset({"pkg/__init__.py"}))
    with pytest.raises(PolicyViolation, match="only pkg/__init__.py may be edited"):
        check_edit(parse_edit(exact("pkg/calc.py"), "exact_edit"), only_init, FILES)
    two = ("--- a/pkg/calc.py\n+++ b/pkg/calc.py\n@@ -1 +1 @@\n-def add(a, b):\n+def add(a, c):\n"
           "--- a/pkg/__init__.py\n+++ b/pkg/__init__.py\n@@ -0,0 +1 @@\n+X = 1\n")
    with pytest.raises(PolicyViolation, match="touches 2 files"):
        check_edit(parse_edit(two, "diff"), EditPolicy(), FILES)
    check_edit(parse_edit(two, "diff"), EditPolicy(max_files=2), FILES)
    new = parse_edit("--- /dev/null\n+++ b/pkg/util.py\n@@ -0,0 +1 @@\n+X = 1\n", "diff")
    check_edit(new, EditPolicy(allow_new_files=True), FILES)
    check_edit(Abstain(), EditPolicy(editable=frozenset()), FILES)
    assert issubclass(PolicyViolation, EditError)  # scored like any other unusable edit


REPO = {
    "pkg/__init__.py": "",
    "pkg/calc.py": "def add(a, b):\n    return a - b\n",
    "tests/test_calc.py": "from pkg.calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}


def pipeline(pristine: Path, workdir: Path, answer: str, fmt: str):
    """What the harness does with one answer: parse, police, apply, compile, write, run, verify."""
    files = {str(p.relative_to(pristine)): p.read_text() for p in pristine.rglob("*.py")}
    protected = snapshot_protected(pristine, extra=["tests/test_calc.py"])
    edit = parse_edit(answer, fmt)
    if isinstance(edit, Abstain):
        return "abstain"
    check_edit(edit, EditPolicy(), files, protected=protected)
    new_files = apply_edit(edit, files)
    check_python_syntax(new_files)
    checkout = workdir / "checkout"
    shutil.copytree(pristine, checkout)
    for rel, text in new_files.items():
        (checkout / rel).write_text(text)
    run = run_pytest(checkout, ["tests"], protected=protected, sandbox="auto", report_dir=workdir / "report")
    return verify_run(run, ["tests/test_calc.py::test_add"])


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    root = tmp_path_factory.mktemp("pipeline") / "repo"
    for rel, text in REPO.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_pipeline_scores_a_real_fix_as_pass_and_a_wrong_fix_as_fail(pristine, tmp_path):
    fix = '```json\n{"path": "pkg/calc.py", "search": "a - b", "replace": "a + b"}\n```'
    verdict = pipeline(pristine, tmp_path / "good", fix, "exact_edit")
    assert verdict.passed, verdict.reasons
    wrong = "```diff\n--- a/pkg/calc.py\n+++ b/pkg/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a * b\n```"
    verdict = pipeline(pristine, tmp_path / "bad", wrong, "diff")
    assert not verdict.passed and verdict.outcomes == {"tests/test_calc.py::test_add": "failed"}


def test_pipeline_stops_before_running_on_bad_answers(pristine, tmp_path):
    assert pipeline(pristine, tmp_path, '{"abstain": true}', "diff") == "abstain"
    with pytest.raises(PolicyViolation):
        pipeline(pristine, tmp_path, '{"path": "tests/test_calc.py", "search": "5", "replace": "-1"}', "exact_edit")
    with pytest.raises(EditSyntaxError):
        pipeline(pristine, tmp_path, '{"path": "pkg/calc.py", "search": "a - b", "replace": "a +"}', "exact_edit")
    assert not (tmp_path / "checkout").exists()  # nothing was run
