"""The checkout's configured ``addopts``: the allowlisted ones reach pytest, the rest are dropped and recorded.

Real pytest runs (``run_pytest``, sandbox off: the rules do not depend on it) on tiny projects whose config
has ``addopts``; the filter and the reader also get a property test (``beacon.repair.addopts``).
"""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from beacon.repair import addopts as ao
from beacon.repair.addopts import ProjectConfigError, filter_addopts, read_addopts
from beacon.repair.controls import snapshot_protected
from beacon.repair.pytest_runner import run_pytest, verify_run
from repotools import write_tree

SLOW = (
    "import pytest\n\n"
    "def test_fast():\n    pass\n\n"
    "@pytest.mark.slow\ndef test_slow():\n    pass\n"
)


def run(root: Path, selection=("tests",), **kw):
    kw.setdefault("protected", snapshot_protected(root))
    kw.setdefault("report_dir", root.parent / f"{root.name}-report")
    kw.setdefault("sandbox", "off")
    return run_pytest(root, list(selection), **kw)


def names(result) -> list[str]:
    return sorted(tc.name for tc in result.report.testcases)


def test_marker_expression_deselects_and_drop_keeps_the_old_behaviour(tmp_path):
    """click's ``addopts = "-m 'not stress'"`` (pyproject, ini mode): the slow test is not run; ``drop`` runs it."""
    root = write_tree(tmp_path / "repo", {
        "pyproject.toml": "[tool.pytest.ini_options]\nmarkers = ['slow: slow']\naddopts = \"-m 'not slow'\"\n",
        "tests/test_a.py": SLOW,
    })
    kept = run(root)
    assert verify_run(kept, ["tests/test_a.py::test_fast"]).passed, kept.stdout
    assert names(kept) == ["test_fast"] and kept.canaries.ok
    assert kept.addopts == {"mode": "keep_safe", "source": "pyproject.toml [tool.pytest.ini_options]",
                            "configured": ["-m", "not slow"], "kept": ["-m", "not slow"], "dropped": [], "note": ""}
    # passed first, where pytest itself puts addopts (the task's flags come later and win)
    assert list(kept.argv[5:8]) == ["-m", "not slow", "-c"]
    dropped = run(root, project_addopts="drop")
    assert verify_run(dropped, ["tests/test_a.py::test_fast", "tests/test_a.py::test_slow"]).passed
    assert dropped.addopts["kept"] == [] and dropped.addopts["dropped"] == [
        {"option": "-m", "why": "project_addopts='drop'"}, {"option": "not slow", "why": "project_addopts='drop'"}]
    assert "-m" not in dropped.argv


def test_an_explicitly_selected_id_is_deselected_too(tmp_path):
    """pytest applies ``-m`` to explicitly given node ids as well; the harness does the same (the project's own
    run would not run it either), so a task selecting only a deselected test has an empty suite (invalid)."""
    root = write_tree(tmp_path / "repo", {
        "pytest.ini": "[pytest]\nmarkers = slow\naddopts = -m 'not slow'\n",
        "tests/test_a.py": SLOW,
    })
    result = run(root, ["tests/test_a.py::test_slow"])
    assert result.report is not None and names(result) == [] and result.canaries.ok
    verdict = verify_run(result, ["tests/test_a.py::test_slow"])
    assert not verdict.passed and any("missing from the report" in r for r in verdict.reasons)
    assert "1 deselected" in result.stdout


def test_strict_markers_turns_an_unknown_marker_into_a_collection_error(tmp_path):
    root = write_tree(tmp_path / "repo", {
        "pytest.ini": "[pytest]\naddopts = --strict-markers -ra\n",
        "tests/test_a.py": "import pytest\n\n@pytest.mark.unregistered\ndef test_a():\n    pass\n",
    })
    result = run(root)
    verdict = verify_run(result, ["tests/test_a.py::test_a"])
    assert not verdict.passed and result.exit_code != 0
    assert "'unregistered' not found in `markers` configuration option" in result.stdout
    assert result.addopts["kept"] == ["--strict-markers", "-r", "a"]
    assert verify_run(run(root, project_addopts="drop"), ["tests/test_a.py::test_a"]).passed


def test_a_plugin_to_load_is_dropped_and_recorded(tmp_path):
    """``-p someplugin`` would import the project's module as a plugin (here it would fail every run)."""
    root = write_tree(tmp_path / "repo", {
        "someplugin.py": "raise RuntimeError('someplugin was loaded')\n",
        "pytest.ini": "[pytest]\naddopts = -p someplugin -p no:randomly\n",
        "tests/test_a.py": "def test_a():\n    pass\n",
    })
    result = run(root)
    assert verify_run(result, ["tests/test_a.py::test_a"]).passed, result.stdout + result.stderr
    assert "someplugin" not in " ".join(result.argv)
    assert result.addopts["kept"] == ["-p", "no:randomly"]
    [dropped] = result.addopts["dropped"]
    assert dropped["option"] == "-p someplugin" and dropped["why"].startswith("loads a plugin")


def test_options_of_plugins_that_are_not_loaded_are_dropped_not_a_usage_error(tmp_path):
    """Autoload is off: pytest itself stops on ``--timeout=5`` ("unrecognized arguments"), the reason the runner
    used to clear addopts whole. Their values go with them instead of becoming test paths."""
    root = write_tree(tmp_path / "repo", {
        "setup.cfg": "[tool:pytest]\naddopts = --timeout=5 --cov=x --cov src -n 2 -x -v\n",
        "tests/test_a.py": "def test_a():\n    assert False\n\ndef test_b():\n    pass\n",
    })
    result = run(root)
    assert result.exit_code == 1 and "unrecognized arguments" not in result.stderr
    assert names(result) == ["test_a", "test_b"]  # -x dropped: the session went on after the first failure
    assert result.canaries.ok and result.addopts["kept"] == ["-v"]
    assert result.addopts["source"] == "setup.cfg [tool:pytest]"
    assert [d["option"] for d in result.addopts["dropped"]] == ["--timeout=5", "--cov=x", "--cov", "src", "-n 2",
                                                                "-x"]
    assert "must-fail canary" in result.addopts["dropped"][-1]["why"]


@pytest.mark.parametrize("files, where", [
    ({"pytest.ini": "[pytest]\nmarkers = slow\naddopts = -m 'not slow\n"}, "pytest.ini: [pytest] addopts (line 3)"),
    ({"pytest.toml": "[pytest]\naddopts = \"-q\"\n"}, "pytest.toml: [pytest] addopts"),
    ({"pyproject.toml": "[tool.pytest.ini_options]\naddopts = [1]\n"}, "pyproject.toml: [tool.pytest.ini_options] addopts"),
])
def test_a_malformed_addopts_is_an_error_naming_the_file_and_key(tmp_path, files, where):
    """pytest itself crashes on these (shlex's "No closing quotation", a TOML string where it wants a list), so the
    project's own run cannot start: the harness says where, and ``drop`` still runs (recording why nothing was read)."""
    root = write_tree(tmp_path / "repo", {**files, "tests/test_a.py": "def test_a():\n    pass\n"})
    with pytest.raises(ProjectConfigError, match=re.escape(where)):
        run(root)
    dropped = run(root, project_addopts="drop")
    assert verify_run(dropped, ["tests/test_a.py::test_a"]).passed
    assert dropped.addopts["note"].startswith("not read: " + where)


def test_disabling_a_plugin_the_harness_relies_on_is_refused(tmp_path):
    root = write_tree(tmp_path / "repo", {
        "pytest.ini": "[pytest]\naddopts = -p no:junitxml -pno:assertion -p no:beacon_canary_plugin -p no:doctest\n",
        "tests/test_a.py": "def test_a():\n    pass\n",
    })
    result = run(root)
    assert verify_run(result, ["tests/test_a.py::test_a"]).passed, result.stdout
    assert result.addopts["kept"] == ["-p", "no:doctest"]
    assert [d["option"] for d in result.addopts["dropped"]] == [
        "-p no:junitxml", "-p no:assertion", "-p no:beacon_canary_plugin"]


def test_doctest_modules_run_beside_the_canaries(tmp_path):
    """``--doctest-modules`` adds each selected module's doctests as items (the canaries still join a Module)."""
    root = write_tree(tmp_path / "repo", {
        "pytest.ini": "[pytest]\naddopts = --doctest-modules\n",
        "tests/test_a.py": '"""\n>>> 1 + 1\n2\n"""\n\ndef test_a():\n    pass\n\n'
                           'def helper():\n    """\n    >>> helper()\n    3\n    """\n    return 4\n',
    })
    result = run(root)
    ids = sorted(tc.node_id for tc in result.report.testcases)
    assert ids == ["tests/test_a.py::test_a", "tests/test_a.py::tests.test_a", "tests/test_a.py::tests.test_a.helper"]
    verdict = verify_run(result, ids)
    assert not verdict.passed and not verdict.tampered and result.canaries.ok
    assert verdict.outcomes["tests/test_a.py::tests.test_a.helper"] == "failed"


def test_the_tasks_flags_come_after_the_kept_addopts(tmp_path):
    root = write_tree(tmp_path / "repo", {
        "pytest.ini": "[pytest]\naddopts = --tb=long -W error::UserWarning\n",
        "tests/test_a.py": "import warnings\n\ndef test_a():\n    warnings.warn('x', UserWarning)\n",
    })
    result = run(root, flags=["--tb=short"])
    argv = list(result.argv)
    assert argv.index("--tb=long") < argv.index("--tb=short")
    verdict = verify_run(result, ["tests/test_a.py::test_a"])
    assert not verdict.passed and "UserWarning" in verdict.reasons[-1]  # -W error kept: the warning fails the test


def test_an_unknown_mode_is_refused(tmp_path):
    root = write_tree(tmp_path / "repo", {"tests/test_a.py": "def test_a():\n    pass\n"})
    with pytest.raises(ValueError, match="project_addopts"):
        run(root, project_addopts="keep")


# ---- the filter and the reader, on arbitrary input ----------------------------------------------------------

_PIECES = st.sampled_from([
    "-m", "-k", "-p", "-r", "-W", "-o", "-c", "-n", "-x", "-s", "-q", "-v", "-vx", "-ra", "-pno:x", "--tb", "--tb=",
    "--tb=short", "--cov", "--cov=x", "--doctest-modules", "--strict-markers", "--strict-config", "--ignore",
    "--deselect", "--durations", "--durations=3", "--", "-", "no:junitxml", "no:cacheprovider", "no:beacon",
    "tests", "not slow", "'", '"', "=", "-p=no:x", "--junitxml=/tmp/x", "-W=error", "--doctest-glob", "*.rst",
])


def _is_allowed(kept: list[str]) -> bool:
    """Every option in ``kept`` is on the allowlist, with its value where it takes one."""
    i = 0
    while i < len(kept):
        token = kept[i]
        if token in ao._FLAGS:
            i += 1
            continue
        name, eq, value = token.partition("=")
        if name.startswith("--") and eq and name in ao._VALUES:
            i += 1
        elif token in ao._VALUES and len(token) == 2 and i + 1 < len(kept):
            name, value = token, kept[i + 1]
            i += 2
        else:
            return False
        if ao._value_problem(name, value):
            return False
        if name == "-p" and not (value.startswith("no:") and value[3:] not in
                                 ao.BUILTIN_PLUGINS - ao.SAFE_TO_DISABLE and "beacon" not in value):
            return False
    return True


@example(tokens=["--ignore", "\x00"])  # a NUL in a separate value token was kept (hypothesis found it)
@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=12)), max_size=12))
def test_the_filter_never_raises_and_never_passes_an_option_off_the_allowlist(tokens):
    kept, dropped = filter_addopts(tokens)
    assert _is_allowed(kept), kept
    assert all(isinstance(o, str) and why for o, why in dropped)
    # idempotent: what is kept passes the filter again unchanged
    assert filter_addopts(kept) == (kept, [])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=8)),
                max_size=8).map(" ".join))
def test_the_reader_gives_options_or_a_project_config_error(text):
    """Whatever text the config's addopts holds: pytest's split of it, or ProjectConfigError naming the file."""
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "pytest.ini"
        config.write_text(f"[pytest]\naddopts = {text}\n", encoding="utf-8")
        try:
            options, source, _ = read_addopts(config, Path(folder))
        except ProjectConfigError as exc:
            assert str(exc).startswith("pytest.ini: [pytest] addopts (line 2): ")
            return
        kept, _ = filter_addopts(options)
        assert _is_allowed(kept)
        assert source in (None, "pytest.ini [pytest]")


def _control_task_with(root: Path, extra: dict[str, str]):
    """The control task (``beacon.repair.control``) with ``extra`` files committed beside it."""
    import json

    from beacon.data import load_manifest, repo_resolver
    from beacon.repair.control import _FILES, _TASKS, _git

    repo = write_tree(root / "repos" / "textkit", {**_FILES, **extra})
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "textkit")
    row = {"repo": "textkit", "commit": _git(repo, "rev-parse", "HEAD"), "token_budget": 2000, **_TASKS[0]}
    (root / "tasks.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    resolve = repo_resolver(root / "repos")
    task = load_manifest(root / "tasks.jsonl", resolve_repo=resolve)[0]
    return task, resolve(task.repo)


def test_a_task_whose_addopts_pytest_cannot_split_is_invalid_with_the_file_and_key(tmp_path):
    from beacon.repair.limits import NO_LIMITS
    from beacon.repair.prepare import RunSettings, prepare_task

    task, source = _control_task_with(tmp_path, {"pytest.ini": "[pytest]\naddopts = -m 'not slow\n"})
    settings = RunSettings(allow_local_execution=True, sandbox="off", limits=NO_LIMITS)
    prepared = prepare_task(task, source, tmp_path / "work", settings)
    assert not prepared.valid
    assert prepared.invalid_reason.startswith("project config: pytest.ini: [pytest] addopts (line 2): No closing "
                                              "quotation"), prepared.invalid_reason
    settings.project_addopts = "drop"
    assert prepare_task(task, source, tmp_path / "work-drop", settings).valid
