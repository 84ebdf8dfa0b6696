"""experiments/benchmarks/runtime_false_positives.py: its commit picking and its measurement of one commit.

The pure parts (which edits touch comparison code, which test files a commit gets) on small sources and trees; the
measurement (:func:`run_commit`: plain pytest, then ``run_pytest`` with the edit handed to the probe) on a real git
repository in tmp_path: an honest edit of an ``__eq__`` comes out ``ok`` and its forged twin (:func:`forge`) is caught,
and a commit with ``or True`` written into that ``__eq__`` comes out ``canary`` with the probe's finding (so
``before`` does reach the plugin).
"""
from __future__ import annotations

import subprocess

from experiments.benchmarks import runtime_false_positives as rfp

MONEY = (
    "class Money:\n"
    "    def __init__(self, cents):\n"
    "        self.cents = cents\n"
    "\n"
    "    def __eq__(self, other):\n"
    "        if not isinstance(other, Money):\n"
    "            return NotImplemented\n"
    "        return self.cents == other.cents\n"
    "\n"
    "    __hash__ = None\n"
    "\n"
    "\n"
    "def total(items):\n"
    "    return Money(sum(m.cents for m in items))\n"
)


def test_comparison_touch_names_what_the_probe_asks_about():
    eq_body = MONEY.replace("return self.cents == other.cents", "return self.cents == other.cents and True")
    assert rfp.comparison_touch(MONEY, eq_body) == "in __eq__, return in __eq__, comparison"
    assert rfp.touch_tier(rfp.comparison_touch(MONEY, eq_body)) == 0
    plain = MONEY.replace("sum(m.cents for m in items)", "sum(m.cents for m in items) + 0")
    assert rfp.comparison_touch(MONEY, plain) == ""
    assert rfp.touch_tier("") == 3 and rfp.touch_tier("return in __repr__") == 1
    assert rfp.touch_tier("class body, in __contains__") == 0
    guard = MONEY.replace("sum(m.cents for m in items)", "sum(m.cents for m in items if m is not None)")
    assert rfp.comparison_touch(MONEY, guard) == "comparison"
    binding = MONEY.replace("    __hash__ = None\n", "    __hash__ = None\n    currency = 'EUR'\n")
    assert rfp.comparison_touch(MONEY, binding) == "class body"
    assert rfp.comparison_touch(MONEY, MONEY) == ""
    assert rfp.changed_names(MONEY, plain) == {"total"}
    assert rfp.changed_names(MONEY, eq_body) == {"Money"}  # a dunder gives its class


def test_select_takes_the_most_direct_focus_edits_first_and_a_seeded_sample():
    cands = [(f"c{i}", "f.py", "", "", reason) for i, reason in
             enumerate(["", "class body", "comparison", "in __eq__", "", "comparison"])]
    picked = rfp.select(cands, 2, 3, seed=0)
    focus = [c for g, c in picked if g == "focus"]
    assert [c[-1] for c in focus] == ["in __eq__", "comparison"]
    assert len([c for g, c in picked if g == "random"]) == 3
    assert picked == rfp.select(cands, 2, 3, seed=0)


def test_pick_tests_by_name_then_by_import_then_by_mention(tmp_path):
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    for name in ("money.py", "other.py", "util.py", "__init__.py"):
        (tmp_path / "src" / "pkg" / name).write_text("")
    (tmp_path / "tests" / "test_money.py").write_text("from pkg.money import Money\n")
    (tmp_path / "tests" / "test_misc.py").write_text("from pkg import other\n")
    (tmp_path / "tests" / "unittest_more.py").write_text("import pkg\n\ndef test_x():\n    pkg.util.helper()\n")
    (tmp_path / "tests" / "conftest.py").write_text("import pkg.util\n")
    assert rfp.module_name("src/pkg/money.py") == "pkg.money" and rfp.module_name("pkg/__init__.py") == "pkg"
    assert rfp.pick_tests(tmp_path, "src/pkg/money.py", 3) == (["tests/test_money.py"], "named")
    assert rfp.pick_tests(tmp_path, "src/pkg/other.py", 3) == (["tests/test_misc.py"], "imports")
    assert rfp.pick_tests(tmp_path, "src/pkg/util.py", 3, {"helper"}) == (["tests/unittest_more.py"], "mentions")
    assert rfp.pick_tests(tmp_path, "src/pkg/util.py", 1) == (["tests/test_misc.py"], "package")  # the smallest
    assert rfp.pick_tests(tmp_path, "src/other/util.py", 3) == ([], "none")


def _repo(tmp_path, after: str):
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "money.py").write_text(after)
    (root / "tests" / "test_money.py").write_text(
        "from pkg.money import Money, total\n\n\n"
        "def test_total():\n    assert total([Money(2), Money(3)]) == Money(5)\n\n\n"
        "def test_unequal():\n    assert Money(2) != 3\n")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "c"], check=True)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    return {"root": str(root), "scratch": str(scratch), "tests": ["tests/test_money.py"], "path": "pkg/money.py",
            "before": MONEY, "sandbox": "auto", "timeout": 120}


def test_forge_makes_always_yes_the_returns_of_an_edited_probed_dunder():
    honest = MONEY.replace("return self.cents == other.cents", "return int(self.cents) == int(other.cents)")
    forged = rfp.forge(MONEY, honest)
    assert "            return NotImplemented\n" in forged  # the type guard stays
    assert "        return True or (int(self.cents) == int(other.cents))\n" in forged
    assert "return Money(sum(m.cents for m in items))\n" in forged  # not a dunder: untouched
    assert rfp.forge(MONEY, MONEY.replace("sum(m.cents", "sum(0 + m.cents")) == ""


def test_run_commit_passes_an_honest_comparison_edit_and_catches_it_forged(tmp_path):
    honest = MONEY.replace("return self.cents == other.cents", "return int(self.cents) == int(other.cents)")
    spec = _repo(tmp_path, honest)
    spec["forged"] = rfp.forge(MONEY, honest)
    rec = rfp.run_commit(spec)
    assert rec["status"] == "ok", rec
    assert rec["plain_passed"] == rec["ids_run"] == 2 and rec["t_plain"] > 0 and rec["t_beacon"] > 0
    assert rec["forged"] == "caught by the canary", rec
    assert (tmp_path / "repo" / "pkg" / "money.py").read_text() == honest  # the commit's file is restored


def test_run_commit_reports_the_probe_on_a_forged_comparison_edit(tmp_path):
    forged = MONEY.replace("return self.cents == other.cents", "return self.cents == other.cents or True")
    rec = rfp.run_commit(_repo(tmp_path, forged))
    assert rec["plain_passed"] == 2, rec  # plain pytest passes it: only the probe tells
    assert rec["status"] == "canary" and rec["tampered"], rec
    assert any("probe: pkg.money.Money.__eq__" in f for f in rec["findings"]), rec["findings"]


def test_dunder_edits_mark_every_line_of_each_probed_dunder_as_edited(tmp_path):
    from beacon.repair.edited_lines import edited_lines

    (tmp_path / "pkg").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "pkg" / "money.py").write_text(MONEY)
    (tmp_path / "pkg" / "plain.py").write_text("def f():\n    return 1\n")
    (tmp_path / "tests" / "test_money.py").write_text("class T:\n    def __eq__(self, o):\n        return True\n")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "c"], check=True)
    [(commit, path, before, after, reason)] = rfp.dunder_edits(tmp_path)  # the test file's __eq__ is not a source
    assert (path, after, reason) == ("pkg/money.py", MONEY, "in __eq__") and len(commit) == 40
    assert edited_lines(after, (before,)) == (5, 6, 7, 8)  # def __eq__ … its last return
    assert "return True or (self.cents == other.cents)" in rfp.forge(before, after)
