"""Localization metrics against hand computations, and properties of the diff reader and rankings."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from beacon.localize.gold import Gold, gold_from_patch
from beacon.localize.hunks import PatchMismatchError
from beacon.localize.context_metrics import (
    ContextPrediction, auc_coverage, context_scores, edit_loc, parse_diff, redundancy, span_redundancy,
    trajectory_scores,
)
from beacon.localize.metrics import (
    acc_at_k, aggregate, budget_recall, mrr, rank_files, rank_functions, rank_modules, recall_at_k,
)
from repotools import fix_scene

# m.py line starts (bytes): 1:0 2:10 3:11 4:12 5:22 6:36 7:49 8:50 9:51 10:60, end 73
M_PY = "import os\n\n\ndef f(x):\n    y = x + 1\n    return y\n\n\ndef g():\n    return 2\n"
N_PY = "A = 1\n"


@pytest.fixture
def scene(tmp_path) -> tuple[Path, Gold]:
    """A real two-commit repo at its base commit, and the gold of the fix (lines 5 and 10 of m.py)."""
    repo, patch = fix_scene(tmp_path / "repo", {"m.py": M_PY, "n.py": N_PY},
                            {"m.py": M_PY.replace("x + 1", "x + 2").replace("return 2", "return 3")})
    return repo, gold_from_patch("scene", patch, repo)


def test_scene_gold(scene):
    repo, gold = scene
    assert gold.units == ("m.py::f", "m.py::g")
    assert gold.line_spans_init() == {"m.py": [(5, 5), (10, 10)]}
    assert gold.byte_spans(repo) == {"m.py": [(22, 36), (60, 73)]}


# -- rankings ------------------------------------------------------------------

def test_acc_recall_mrr_by_hand():
    gold = {"a", "b", "c"}
    ranked = ["a", "x", "b", "c", "a"]
    assert [acc_at_k(ranked, gold, k) for k in (1, 2, 3, 4, 5)] == [1.0, 0.0, 0.0, 1.0, 1.0]
    assert [recall_at_k(ranked, gold, k) for k in (1, 2, 4)] == [1 / 3, 1 / 3, 1.0]
    assert mrr(ranked, gold) == 1.0 and mrr(["x", "y", "b"], gold) == 1 / 3 and mrr(["x"], gold) == 0.0
    assert acc_at_k(["a", "a", "b"], {"a", "b"}, 2) == 1.0  # duplicates are dropped before cutting
    assert acc_at_k(ranked, set(), 3) is None and recall_at_k(ranked, [], 3) is None and mrr(ranked, []) is None
    with pytest.raises(ValueError, match="k must be"):
        acc_at_k(ranked, gold, 0)


def test_rank_helpers():
    ranked = ["a.py::<module>", "a.py::A.f", "b.py::g.inner", "a.py::A.h", "c.py", "a.py::A"]
    assert rank_files(ranked) == ["a.py", "b.py", "c.py"]
    assert rank_modules(ranked) == ["a.py::A", "b.py::g"]
    assert rank_functions(ranked) == ["a.py::A.f", "b.py::g.inner", "a.py::A.h", "a.py::A"]
    kinds = {"a.py::A": "class", "a.py::A.f": "method", "a.py::A.h": "method", "b.py::g": "function",
             "b.py::g.inner": "function"}
    assert rank_functions(ranked, kinds) == ["a.py::A.f", "b.py::g", "a.py::A.h"]


ids = st.sampled_from([f"f{i}.py::s{j}" for i in range(3) for j in range(4)])


@given(st.lists(ids, max_size=15), st.sets(ids, min_size=1, max_size=6))
def test_rankings_are_bounded_and_monotone_where_defined(ranked, gold):
    accs = [acc_at_k(ranked, gold, k) for k in range(1, 14)]
    recalls = [recall_at_k(ranked, gold, k) for k in range(1, 14)]
    assert all(0.0 <= r <= 1.0 for r in recalls) and all(a in (0.0, 1.0) for a in accs)
    assert recalls == sorted(recalls)
    # LocAgent's Acc@k is monotone once k >= |gold| (below that, a miss at rank k can undo a hit)
    tail = accs[len(gold) - 1:]
    assert tail == sorted(tail)
    assert all(a <= r or k < len(gold) for k, (a, r) in enumerate(zip(accs, recalls), 1))
    assert 0.0 <= mrr(ranked, gold) <= 1.0


# -- budget --------------------------------------------------------------------

def hand_gold() -> Gold:
    return Gold("h", paths=("a.py", "b.py", "new.py"), added=("new.py",),
                units=("a.py::A.f", "a.py::g", "b.py::<module>"),
                line_ranges=(("a.py", 3, 4), ("a.py", 10, 10), ("b.py", 1, 1)),
                kinds={"a.py::A.f": "method", "a.py::g": "function", "b.py::<module>": "module"},
                gold_spans={"a.py::A.f": ("a.py", 2, 5), "a.py::g": ("a.py", 9, 11), "b.py::<module>": ("b.py", 1, 3)})


def test_budget_recall_by_hand():
    gold = hand_gold()
    assert budget_recall([("a.py", 1, 6)], gold) == {"file": 0.5, "function": 0.5, "line": 0.5}
    full = budget_recall([("a.py", 1, 6), ("a.py", 9, 10), ("b.py", 1, 3)], gold)
    assert full == {"file": 1.0, "function": 0.5, "line": 1.0}  # g (9-11) is cut
    assert budget_recall([("a.py", 1, 6), ("a.py", 8, 12)], gold)["function"] == 1.0
    assert budget_recall([], Gold("e", ("new.py",), added=("new.py",))) == {
        "file": None, "function": None, "line": None}


def test_budget_recall_takes_packed_snippets(scene):
    from beacon.context import Snippet
    from beacon.graph import CodebaseGraph

    repo, gold = scene
    graph = CodebaseGraph.from_repo(repo)
    snippets = [Snippet.of(graph, graph.symbol("m.py::f"))]
    assert budget_recall(snippets, gold) == {"file": 1.0, "function": 0.5, "line": 0.5}


# -- ContextBench-style --------------------------------------------------------

def test_parse_diff_equals_gold_bytes(scene):
    repo, gold = scene
    patch = "--- a/m.py\n+++ b/m.py\n@@ -4,3 +4,3 @@\n def f(x):\n-    y = x + 1\n+    y = x + 2\n     return y\n"
    assert parse_diff(patch, repo) == {"m.py": [(22, 36)]}


def test_context_scores_by_hand(scene):
    repo, gold = scene
    pred = ContextPrediction(files=frozenset({"m.py", "n.py"}), symbols=frozenset({"m.py::f", "m.py::<module>"}),
                             line_spans={"m.py": ((4, 6),), "n.py": ((1, 1),), "ghost.py": ((1, 9),)})
    scores = context_scores(pred, gold, repo)
    assert scores == pytest.approx({
        "file_coverage": 1.0, "file_precision": 1 / 3,  # ghost.py is a predicted file with no lines
        "symbol_coverage": 0.5, "symbol_precision": 0.5,
        "line_coverage": 0.5, "line_precision": 0.25,
        "span_coverage": 14 / 27, "span_precision": 14 / 43,
    })
    empty = context_scores(ContextPrediction(), gold, repo)
    assert empty["file_coverage"] == 0.0 and empty["file_precision"] is None


def test_trajectory_scores_by_hand(scene):
    repo, gold = scene
    steps = [
        ContextPrediction(files=frozenset({"n.py"}), line_spans={"n.py": ((1, 1),)}),
        ContextPrediction(symbols=frozenset({"m.py::f"}), line_spans={"m.py": ((4, 6),)}),
        ContextPrediction(symbols=frozenset({"m.py::f", "m.py::g"}), line_spans={"m.py": ((5, 10),)}),
    ]
    span_curve = [0.0, 14 / 27, 1.0]
    assert trajectory_scores(steps, gold, repo) == pytest.approx({
        "auc_file": 0.75, "auc_symbol": 0.5, "auc_line": 0.5,
        "auc_span": (span_curve[0] + 2 * span_curve[1] + span_curve[2]) / 4,
        "redundancy_file": 1 / 3, "redundancy_symbol": 1 / 3,
        "redundancy_line": 2 / 10, "redundancy_span": 27 / 94,
    })


def test_auc_and_redundancy_edges():
    assert auc_coverage([]) is None and auc_coverage([0.4]) == 0.4 and auc_coverage([0.2, None]) is None
    assert auc_coverage([0.0, 1.0]) == 0.5 and auc_coverage([1.0, 1.0, 1.0]) == 1.0
    assert redundancy([]) is None and redundancy([{"a"}, {"a"}, {"a", "b"}]) == 2 / 4
    assert span_redundancy([{"f": [(0, 10)]}, {"f": [(5, 15)]}, {"f": [(0, 20)]}]) == (5 + 15) / 40


def test_edit_loc_by_hand(scene):
    repo, gold = scene
    model = ("--- a/m.py\n+++ b/m.py\n@@ -5,2 +5,2 @@\n     y = x + 1\n-    return y\n+    return y + 0\n"
             "@@ -9,2 +9,2 @@\n def g():\n-    return 2\n+    return 3\n")
    assert edit_loc(model, gold, repo) == {
        "editloc_file_recall": 1.0, "editloc_file_precision": 1.0,
        "editloc_symbol_recall": 1.0, "editloc_symbol_precision": 1.0,
        "editloc_line_recall": 0.5, "editloc_line_precision": 0.5,
    }
    assert edit_loc("", gold, repo)["editloc_line_recall"] == 0.0
    assert edit_loc("", gold, repo)["editloc_line_precision"] is None
    with pytest.raises(PatchMismatchError, match="scene"):
        edit_loc(model.replace("return y\n+", "return z\n+"), gold, repo)


# -- aggregate -----------------------------------------------------------------

def test_aggregate_means_counts_and_bootstrap():
    records = [{"instance_id": str(i), "m": v, "k": 1.0} for i, v in enumerate([1.0, 0.0, None, 1.0, True])]
    out = aggregate(records, ["m", "k"], resamples=2500, seed=3)
    assert out["m"]["mean"] == 0.75 and (out["m"]["n"], out["m"]["n_total"]) == (4, 5)
    values = np.array([1.0, 0.0, 1.0, 1.0])
    rng = np.random.default_rng(3)
    means = np.concatenate([values[rng.integers(0, 4, size=(b, 4))].mean(axis=1) for b in (1000, 1000, 500)])
    assert (out["m"]["ci_low"], out["m"]["ci_high"]) == tuple(np.percentile(means, [2.5, 97.5]))
    assert out["k"] == {"mean": 1.0, "ci_low": 1.0, "ci_high": 1.0, "n": 5, "n_total": 5}
    assert aggregate(records, ["m"], resamples=2500, seed=3) == {"m": out["m"]}  # deterministic


def test_aggregate_refuses_missing_and_bad_values():
    assert aggregate([{"m": None}], ["m"])["m"] == {"mean": None, "ci_low": None, "ci_high": None, "n": 0,
                                                    "n_total": 1}
    with pytest.raises(KeyError, match="record 1 .*'m'"):
        aggregate([{"m": 1.0}, {"instance_id": "x"}], ["m"])
    with pytest.raises(ValueError, match="finite number"):
        aggregate([{"m": float("nan")}], ["m"])
    with pytest.raises(ValueError, match="finite number"):
        aggregate([{"m": "0.5"}], ["m"])


# -- diff reader properties ----------------------------------------------------

def _git_diff(tmp: Path, old: str, new: str) -> str:
    (tmp / "a").mkdir(exist_ok=True)
    (tmp / "b").mkdir(exist_ok=True)
    (tmp / "a" / "t.txt").write_text(old)
    (tmp / "b" / "t.txt").write_text(new)
    done = subprocess.run(["git", "diff", "--no-index", "--no-color", "a/t.txt", "b/t.txt"], cwd=tmp,
                          capture_output=True)
    return done.stdout.decode().replace("a/a/t.txt", "a/t.txt").replace("b/b/t.txt", "b/t.txt")


def _old_side(patch: str) -> list[tuple[int, int]]:
    """Removed lines, plus the line above each pure insertion (line 1 at the top), read off the hunks."""
    lines = []
    for m in re.finditer(r"^@@ -(\d+)(?:,(\d+))? .*?@@.*\n((?:[ +\-\\].*\n?)*)", patch, re.M):
        start, count = int(m.group(1)), int(m.group(2) or 1)
        old, run = (start if count == 0 else start - 1), []
        for line in m.group(3).splitlines() + [" "]:
            tag = line[:1]
            if tag in "-+":
                run.append((tag, old))
                old += tag == "-"
                if tag == "-":
                    lines.append(old)
                continue
            if tag == "\\":
                continue
            if run and all(t == "+" for t, _ in run):
                lines.append(max(run[0][1], 1))
            run = []
            old += 1
    return sorted(set(lines))


def _bytes(text: str, lines: list[int]) -> list[tuple[int, int]]:
    starts = np.cumsum([0] + [len(x.encode()) for x in text.splitlines(True)])
    merged: list[list[int]] = []
    for n in lines:
        s, e = int(starts[n - 1]), int(starts[n])
        if merged and merged[-1][1] == s:
            merged[-1][1] = e
        else:
            merged.append([s, e])
    return [(s, e) for s, e in merged]


edits = st.lists(st.sampled_from(["keep", "keep", "keep", "drop", "change", "insert"]), min_size=1, max_size=30)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=edits, shift=st.integers(-4, 4))
def test_parse_diff_of_git_diff_is_the_old_side_lines(tmp_path, ops, shift):
    old_lines = [f"line {i}\n" for i in range(len(ops))]
    new_lines = []
    for i, op in enumerate(ops):
        new_lines += {"keep": [old_lines[i]], "drop": [], "change": [f"changed {i}\n"],
                      "insert": [old_lines[i], f"inserted {i}\n"]}[op]
    old, new = "".join(old_lines), "".join(new_lines)
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    (repo / "t.txt").write_text(old)
    patch = _git_diff(tmp_path, old, new)
    if not patch:
        return
    expected = {"t.txt": _bytes(old, _old_side(patch))}
    assert parse_diff(patch, repo) == expected
    # hunks stated a few lines off are found again: every line is unique
    moved = re.sub(r"^@@ -(\d+)", lambda m: f"@@ -{max(1, int(m.group(1)) + shift)}", patch, flags=re.M)
    assert parse_diff(moved, repo) == expected
