"""The task-set audit: its per-task checks on a graph built here, and its leak checks on the committed sets."""
from __future__ import annotations

from pathlib import Path

import pytest

from beacon.graph.codebase import CodebaseGraph
from beacon.localize.gold import Gold
from experiments.benchmarks import task_audit
from experiments.benchmarks.localize_real_sets import MINED
from beacon.localize.instances import Instance

ROOT = Path(__file__).resolve().parents[2]


def _task(which="tune", iid="demo__lib-1", query="Fix the parser when the input is empty", patch="", **extra):
    return task_audit.Task(which, Instance(iid, "demo/lib", "0" * 40, query, patch, extra))


def test_unrankable_demoted_and_over_budget_gold_on_a_graph(tmp_path):
    files = {
        "lib/core.py": "def add(a, b):\n    return a + b\n\n\ndef big():\n" + "    x = 1\n" * 40,
        "lib/old.py": 'def speak():\n    print "py2 only"\n',  # skipped by the graph (syntax error)
        "lib/tests/test_core.py": "def test_add():\n    assert True\n",
        "lib/packages/six.py": "def wraps(f):\n    return f\n",
        "README.rst": "Demo\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    graph = CodebaseGraph.from_repo(tmp_path)
    fn = {"lib/core.py::add", "lib/core.py::big", "lib/old.py::speak", "lib/tests/test_core.py::test_add",
          "lib/packages/six.py::wraps"}

    def gold(*units):
        return Gold("demo", tuple(sorted({u.partition("::")[0] for u in units})), units=tuple(sorted(units)),
                    kinds={u: "function" for u in units if u in fn})

    # a py2 file and a test file: nothing rankable; the metrics still score the task (a certain miss)
    t = _task()
    task_audit.check_gold(t, graph, gold("lib/old.py::speak", "lib/tests/test_core.py::test_add"))
    assert {"no_rankable_file", "no_rankable_function"} <= set(t.flags)
    assert any("skipped" in d for d in t.flags["gold_file_unrankable"])
    assert any("test" in d for d in t.flags["gold_file_unrankable"])
    # vendored gold is rankable but demoted; a function longer than the budget can never be packed whole
    t = _task()
    task_audit.check_gold(t, graph, gold("lib/packages/six.py::wraps", "lib/core.py::big"), budget=50)
    assert "no_rankable_file" not in t.flags and "no_rankable_function" not in t.flags
    assert t.flags["gold_file_demoted"] == ["lib/packages/six.py: vendored"]
    assert t.flags["gold_function_over_budget"][0].startswith("lib/core.py::big")
    assert "no_packable_function" not in t.flags  # wraps fits
    # a non-Python gold file is not in the graph; a module-only change has no gold function
    t = _task()
    task_audit.check_gold(t, graph, gold("README.rst", "lib/core.py::<module>"))
    assert t.flags["gold_file_unrankable"] == ["README.rst: not_in_graph"] and "no_gold_function" in t.flags


def test_query_checks():
    assert task_audit.content_words("Partially revert ab84f9be5740d4649d734e73b84f17f85e52ffc9") == ["Partially",
                                                                                                   "revert"]
    t = _task(query="Close redirect responses (#88)")
    task_audit.check_queries(t)
    assert "short_query" in t.flags
    t = _task(query="Fix werkzeug.serving when the reloader runs in test.py", gold_files=None)
    t.gold_files = ("src/werkzeug/serving.py", "src/werkzeug/test.py", "src/werkzeug/__init__.py")
    task_audit.check_queries(t)
    assert t.flags["query_names_gold_file"] == ["module werkzeug.serving", "name test.py"]
    real = _task(which="real", query=t.inst.problem_statement)
    real.gold_files = t.gold_files
    task_audit.check_queries(real)
    assert "query_names_gold_file" not in real.flags  # an issue naming its file is how users write


def test_leak_pairs_by_fix_change_and_query():
    patch = "--- a/lib/core.py\n+++ b/lib/core.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    a = _task("tune", "demo__lib-a", "Make x two for the parser", patch, commit="a" * 40)
    b = _task("clog_test", "demo__lib-cl-a", "``x`` is now two", patch.replace("@@ -1", "@@ -7"), commit="a" * 40)
    c = _task("test", "demo__lib-c", "Make x two for the parser!", "--- a/y.py\n+++ b/y.py\n-y\n+z\n")
    pairs = {(kind, x.id, y.id) for kind, x, y, _ in task_audit.leak_pairs([a, b, c])}
    assert pairs == {("same_fix", a.id, b.id), ("same_change", a.id, b.id), ("near_query", a.id, c.id)}
    assert task_audit.half("real") == "tune" and task_audit.family("clog2_test") == "clog2"


@pytest.mark.skipif(not (ROOT / MINED).exists(), reason="no committed task sets")
def test_committed_sets_known_leaks(monkeypatch):
    monkeypatch.chdir(ROOT)  # the set paths are relative to the repository
    sets = ["tune", "test", "clog_tune", "clog_test", "clog2_tune", "clog2_test"]
    tasks, pairs = task_audit.audit(sets, graphs=False)
    assert len(tasks) == sum(len(task_audit.instances(s)) for s in sets) and not any(
        "duplicate_id" in t.flags for t in tasks)
    cross = {(kind, a.id, b.id) for kind, a, b, _ in pairs if task_audit.half(a.which) != task_audit.half(b.which)}
    # the committed sets were re-mined with duplicate_change / change_shared (README, mining: task audit): no pair of
    # any kind (same fix, same base and gold, same change, near-identical query) crosses halves any more; the v2 leaks
    # this found before (flask-4f815015b803 / -637eae548935, click-cl-7b22cdac4777 / -cl-da4a18276003) are gone
    assert cross == set()
    assert any(kind == "same_change" for kind, _, _, _ in pairs)  # same-half pairs are still seen, so the check can fire
