"""One test-path predicate for the graph and the miners: old-layout ``testsuite/`` folders, ``test.py`` as source.

Old flask and werkzeug kept their tests in ``flask/testsuite/``, ``werkzeug/testsuite/`` (modules such as
``basic.py``, with no ``test_`` prefix), and ``werkzeug/test.py`` is the test *client*, library code. Before
the fix the graph indexed testsuite code as retrieval candidates, the miners took testsuite files as gold,
and the commit miner counted ``test.py`` as a test (never gold; a commit changing it plus one other file
became a one-file task). Each test below builds a real git repository and runs the real graph builder,
retrieval method and miners on it.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import beacon.tasks.changelog as changelog
import beacon.tasks.mine as mine
from beacon.graph import CodebaseGraph, is_test_path
from beacon.repo.git import open_source
from beacon.retrieval import assemble_context
from beacon.tasks.changelog import mine_changelog
from beacon.tasks.mine import MineFilters, mine_repository
from tests.tasks.test_changelog import changes
from tests.tasks.test_mine import CORE, commit, edit, new_repo

ROOT = Path(__file__).resolve().parents[2]
# An old-layout test module: under testsuite/, named like the code it tests.
SUITE = '''"""Tests of the core helpers."""
from pkg.core import add


def check_add_negative_numbers():
    assert add(-1, -2) == -3
'''
# werkzeug/test.py in small: a test client, library code that other code imports.
CLIENT = '''"""A client for testing applications."""


def open_client(app):
    return app


def build_environ(path):
    return {"PATH_INFO": path}
'''
FIX = "-   Fix ``add`` returning a wrong sum when both numbers are negative. :issue:`77`"


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A repository with a ``pkg/testsuite/`` folder and ``pkg/test.py``; one commit per case."""
    work = new_repo(tmp_path_factory)
    c = {"root": commit(work, "Initial import of the package", {
        "pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/test.py": CLIENT,
        "pkg/testsuite/__init__.py": "", "pkg/testsuite/basic.py": SUITE, "CHANGES.rst": changes()})}
    # an existing testsuite function changes: the old predicate made this a task with testsuite gold
    c["suite_only"] = commit(work, "Check add with more negative numbers in the basic suite", {
        "pkg/testsuite/basic.py": edit(work, "pkg/testsuite/basic.py", "add(-1, -2) == -3", "add(-1, -5) == -6")})
    c["source_and_suite"] = commit(work, "Fix add for negative numbers and test it in the suite", {
        "pkg/core.py": edit(work, "pkg/core.py", "    return a + b", "    return b + a"),
        "pkg/testsuite/basic.py": (work / "pkg/testsuite/basic.py").read_text() + "\n\ndef check_more():\n    pass\n",
        "CHANGES.rst": changes(FIX)})
    c["client_only"] = commit(work, "The test client builds an environ with a query string", {
        "pkg/test.py": edit(work, "pkg/test.py", '{"PATH_INFO": path}', '{"PATH_INFO": path, "QUERY_STRING": ""}')})
    c["client_and_core"] = commit(work, "Box.get and the test client open agree on missing keys", {
        "pkg/test.py": edit(work, "pkg/test.py", "    return app\n", "    return app or None\n"),
        "pkg/core.py": edit(work, "pkg/core.py", "        return self.data[key]", "        return self.data.get(key)")})
    return work, c


@pytest.mark.parametrize("path, expected", [
    ("flask/testsuite/basic.py", True),
    ("werkzeug/testsuite/__init__.py", True),
    ("werkzeug/testsuite/test.py", True),
    ("werkzeug/test.py", False),  # the test client
    ("src/werkzeug/test.py", False),
    ("jinja2/tests.py", False),  # jinja's template tests ("is defined"): library code
    ("pkg/testsuites.py", False),
])
def test_is_test_path_old_layouts(path, expected):
    assert is_test_path(path) is expected


def test_the_miners_use_the_graphs_predicate():
    # one predicate: a file is gold for a miner exactly when the graph may rank it
    assert mine.is_test_path is is_test_path and changelog.is_test_path is is_test_path


def test_graph_does_not_offer_testsuite_code_as_candidates(repo):
    work, _ = repo
    graph = CodebaseGraph.from_repo(work)
    flags = {s.id: s.is_test for s in graph.symbols}
    assert flags["pkg/testsuite/basic.py::check_add_negative_numbers"] is True
    assert flags["pkg/testsuite/basic.py::<module>"] is True
    assert flags["pkg/test.py::build_environ"] is False and flags["pkg/core.py::add"] is False
    # the query names the testsuite function's words; the ranking and the packed context still hold none of it
    result = assemble_context(graph, "check add negative numbers basic suite; client build environ", "bm25",
                              budget=2000)
    ranked = [sid for sid, _ in result.ranking]
    assert ranked and not any(sid.startswith("pkg/testsuite/") for sid in ranked)
    assert "pkg/test.py::build_environ" in ranked
    assert "testsuite" not in result.context.render()


def test_commit_changing_only_a_testsuite_file_is_not_a_task(repo):
    work, c = repo
    result = mine_repository(open_source(work), "demo/lib", MineFilters(cap=None))
    assert c["suite_only"] not in {t["commit"] for t in result.tasks}
    assert result.counts["skip:no_non_test_py_file"] == 1  # suite_only (CHANGES.rst is not Python)


def test_source_plus_testsuite_is_a_one_file_task(repo):
    work, c = repo
    tasks = {t["commit"]: t for t in mine_repository(open_source(work), "demo/lib", MineFilters(cap=None)).tasks}
    t = tasks[c["source_and_suite"]]
    assert t["file"] == "pkg/core.py" and t["gold_functions"] == ["pkg/core.py::add"]
    assert "testsuite" not in t["patch"]


def test_test_py_is_source_for_the_miner(repo):
    work, c = repo
    result = mine_repository(open_source(work), "demo/lib", MineFilters(cap=None))
    tasks = {t["commit"]: t for t in result.tasks}
    # alone it is a task with its own gold; with another source file it is a two-file commit, not a task
    assert tasks[c["client_only"]]["gold_functions"] == ["pkg/test.py::build_environ"]
    assert c["client_and_core"] not in tasks and result.counts["skip:several_non_test_py_files"] == 1
    assert set(tasks) == {c["source_and_suite"], c["client_only"]}


def test_changelog_gold_leaves_testsuite_files_out(repo):
    work, c = repo
    tasks = {t["commit"]: t for t in mine_changelog(open_source(work), "demo/lib", MineFilters(cap=None)).tasks}
    t = tasks[c["source_and_suite"]]
    assert t["files"] == ["pkg/core.py"] and t["gold_functions"] == ["pkg/core.py::add"]
    assert "testsuite" not in t["patch"]



@pytest.mark.parametrize("name", ["mined_tasks", "changelog_tasks", "changelog_tasks_2"])
def test_committed_sets_hold_no_test_file_in_their_gold(name):
    # v1 of these sets had flask/werkzeug testsuite files as gold (8 mined tasks had nothing else)
    rows = [json.loads(ln) for ln in (ROOT / "experiments" / "data" / f"{name}.jsonl").read_text().splitlines()]
    for r in rows:
        files = [f for f in re.findall(r"^\+\+\+ b/(\S+)", r["patch"], re.M)]
        assert files and not any(is_test_path(f) for f in files), r["instance_id"]
        assert not any(is_test_path(g.split("::")[0]) for g in r["gold_functions"]), r["instance_id"]
