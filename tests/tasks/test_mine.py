"""Mining localization tasks from git history, against real git repositories built here (and the shared ones)."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from beacon.localize.gold import gold_from_patch
from beacon.localize.instances import SnapshotCache, find_repository, load_instances
from beacon.repo.git import open_source
from beacon.tasks.mine import MineFilters, change_key, is_test_path, mine_repository, split_of, strip_trailers
from experiments.mine import main as mine_main

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
DEV_INSTANCES = SHARED / "swebench_lite_dev" / "instances.jsonl"
COMMITTED = ROOT / "experiments" / "data" / "mined_tasks.jsonl"
TIME = [1_600_000_000]


def git(cwd, *args):
    TIME[0] += 60  # distinct, increasing commit times: the output order is by commit time
    stamp = f"{TIME[0]} +0000"
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
           "PATH": "/usr/bin:/bin", "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


CORE = '''"""Core."""
VERSION = "1"


def add(a, b):
    return a + b


def sub(a, b):
    return a - b


class Box:
    def __init__(self, data):
        self.data = data

    def get(self, key):
        return self.data[key]
'''


def commit(work: Path, message: str, files: dict[str, str]) -> str:
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", message)
    return git(work, "rev-parse", "HEAD")


def edit(work: Path, path: str, old: str, new: str) -> str:
    text = (work / path).read_text()
    assert old in text, (path, old)
    return text.replace(old, new, 1)


def new_repo(tmp_path_factory) -> Path:
    """An empty work tree ``demo__lib`` with git initialised on ``main``."""
    work = tmp_path_factory.mktemp("repos") / "demo__lib"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    return work


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """One repository with one commit per case; returns (work tree, {case: commit})."""
    work = new_repo(tmp_path_factory)
    c = {}
    c["root"] = commit(work, "Initial import of the library", {
        "lib/core.py": CORE, "lib/util.py": "def helper(x):\n    return x\n",
        "tests/test_core.py": "def test_add():\n    assert True\n", "README.md": "demo\n"})
    c["task_add"] = commit(work, "Fix add for negative numbers\n\nadd() lost the sign of b when a was negative.\n\n"
                                 "Signed-off-by: A <a@example.com>\nReviewed-by: B <b@example.com>", {
        "lib/core.py": edit(work, "lib/core.py", "    return a + b", "    return b + a"),
        "tests/test_core.py": "def test_add():\n    assert 1 + 1 == 2\n", "CHANGES.md": "fixed add\n"})
    git(work, "checkout", "-q", "-b", "side")
    c["side"] = commit(work, "Make sub symmetric in its argument order", {
        "lib/core.py": edit(work, "lib/core.py", "    return a - b", "    return -(b - a)")})
    git(work, "checkout", "-q", "main")
    c["other"] = commit(work, "Document the readme with a longer paragraph", {"README.md": "demo\nmore\n"})
    git(work, "merge", "-q", "--no-ff", "-m", "Merge branch side into main with the sub change", "side")
    c["merge"] = git(work, "rev-parse", "HEAD")
    c["two_files"] = commit(work, "Change add and helper together in one commit", {
        "lib/core.py": edit(work, "lib/core.py", "    return b + a", "    return (b + a)"),
        "lib/util.py": "def helper(x):\n    return (x)\n"})
    c["tests_only"] = commit(work, "Strengthen the test of add with one more case", {
        "tests/test_core.py": "def test_add():\n    assert 1 + 2 == 3\n"})
    c["module_only"] = commit(work, "Bump the version constant to two for the release", {
        "lib/core.py": edit(work, "lib/core.py", 'VERSION = "1"', 'VERSION = "2"')})
    c["new_function"] = commit(work, "Add a mul function next to add and sub", {
        "lib/core.py": (work / "lib/core.py").read_text() + "\n\ndef mul(a, b):\n    return a * b\n"})
    c["short"] = commit(work, "fix", {"lib/core.py": edit(work, "lib/core.py", "    return a * b", "    return b * a")})
    big = "".join(f"        x{i} = {i}\n" for i in range(30))
    c["big"] = commit(work, "Precompute thirty values in Box.__init__ for speed", {
        "lib/core.py": edit(work, "lib/core.py", "        self.data = data\n", f"        self.data = data\n{big}")})
    c["task_get"] = commit(work, "Box.get returns None for a missing key instead of raising KeyError", {
        "lib/core.py": edit(work, "lib/core.py", "        return self.data[key]", "        return self.data.get(key)")})
    return work, c


def mine(work: Path, **kw):
    filters = MineFilters(**{"cap": None, "max_changed_lines": 20, **kw})
    return mine_repository(open_source(work), "demo/lib", filters)


def by_commit(result) -> dict[str, dict]:
    return {t["commit"]: t for t in result.tasks}


def test_tasks_and_every_skip_reason(history):
    work, c = history
    result = mine(work)
    tasks = by_commit(result)
    assert set(tasks) == {c["task_add"], c["side"], c["task_get"]}
    counts = result.counts
    assert counts["seen"] == 12 and counts["tasks"] == 3
    assert counts["skip:merge"] == 1 and counts["skip:root_commit"] == 1
    assert counts["skip:several_non_test_py_files"] == 1  # two_files
    assert counts["skip:no_non_test_py_file"] == 2  # tests_only, other (README only)
    assert counts["skip:no_existing_function_changed"] == 2  # module_only, new_function
    assert counts["skip:message_too_short"] == 1 and counts["skip:diff_too_large"] == 1
    add = tasks[c["task_add"]]
    assert add["instance_id"] == f"demo__lib-{c['task_add'][:12]}" and add["repo"] == "demo/lib"
    assert add["base_commit"] == c["root"]
    assert add["problem_statement"] == "Fix add for negative numbers\n\nadd() lost the sign of b when a was negative."
    assert add["patch"].startswith("diff --git a/lib/core.py b/lib/core.py")
    assert "tests/" not in add["patch"] and "CHANGES" not in add["patch"]
    assert add["gold_functions"] == ["lib/core.py::add"] and add["split"] == split_of(add["instance_id"])
    assert tasks[c["task_get"]]["gold_functions"] == ["lib/core.py::Box.get"]
    assert [t["commit_time"] for t in result.tasks] == sorted(t["commit_time"] for t in result.tasks)


def test_filters_min_message_max_diff_and_exclusions(history):
    work, c = history
    loose = by_commit(mine(work, min_message_chars=1, max_changed_lines=1000))
    assert {c["short"], c["big"]} <= set(loose)
    assert loose[c["big"]]["gold_functions"] == ["lib/core.py::Box.__init__"]
    strict = by_commit(mine(work, min_message_chars=50))  # "Fix add for negative numbers…" is 75 chars
    assert c["task_add"] in strict and c["side"] not in strict
    excluded = mine(work, exclude_commits=frozenset({c["big"]}))  # as commit, and as the base of task_get
    assert set(by_commit(excluded)) == {c["task_add"], c["side"]} and excluded.counts["skip:excluded_commit"] == 2
    held = mine(work, exclude_functions=frozenset({"demo/lib:lib/core.py::Box.get"}))
    assert c["task_get"] not in by_commit(held) and held.counts["skip:held_out_function"] == 1


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """Twelve eligible commits (each edits one function), for the cap and the seed."""
    work = tmp_path_factory.mktemp("many") / "demo__many"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    funcs = "".join(f"def f{i}(x):\n    return x\n\n\n" for i in range(12))
    commit(work, "Initial import", {"m.py": funcs})
    for i in range(12):
        commit(work, f"Make f{i} add {i} to its argument before returning it", {"m.py": edit(work, "m.py", f"def f{i}(x):\n    return x\n",
                                                                         f"def f{i}(x):\n    return x + {i}\n")})
    return work


def test_cap_and_seed(many):
    def ids(**kw):
        result = mine_repository(open_source(many), "demo/many", MineFilters(**kw))
        return [t["instance_id"] for t in result.tasks], result.counts

    everything, _ = ids(cap=None)
    assert len(everything) == 12
    first, counts = ids(cap=4, seed=0)
    assert len(first) == 4 and set(first) <= set(everything) and counts["skip:not_examined_cap_reached"] == 8
    assert ids(cap=4, seed=0)[0] == first  # same seed, same sample
    assert any(set(ids(cap=4, seed=s)[0]) != set(first) for s in range(1, 6))  # another seed, another sample


def test_cli_dev_exclusion_output_loads_and_gold_matches(history, tmp_path):
    work, c = history
    # a "dev slice" instance based on root: commits at that base (as commit or base) and commits
    # touching its gold function (add) are never mined
    dev = tmp_path / "dev.jsonl"
    dev_patch = ("--- a/lib/core.py\n+++ b/lib/core.py\n@@ -5,2 +5,2 @@\n def add(a, b):\n"
                 "-    return a + b\n+    return int(a) + b\n")
    dev.write_text(json.dumps({"instance_id": "demo__lib-1", "repo": "demo/lib", "base_commit": c["root"],
                               "problem_statement": "add breaks on strings", "patch": dev_patch}) + "\n")
    out = tmp_path / "out" / "mined.jsonl"
    assert mine_main(["--repo", str(work), "--out", str(out), "--exclude-instances", str(dev), "--cap", "0",
                      "--max-changed-lines", "20", "--cache-dir", str(tmp_path / "bundles")]) == 0
    instances = load_instances(out)
    assert {i.extra["commit"] for i in instances} == {c["side"], c["task_get"]}
    stats = json.loads(out.with_suffix(".stats.json").read_text())
    assert stats["repositories"]["demo/lib"]["skip:excluded_commit"] == 1  # task_add (its base is root)
    assert stats["sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert stats["filters"]["exclude_functions"]["count"] == 1
    # the runner's path: repository found in the second of two folders, gold at the full snapshot
    cache = SnapshotCache(tmp_path / "cache", [tmp_path / "empty", work.parent])
    for inst in instances:
        gold = gold_from_patch(inst.instance_id, inst.patch, cache.snapshot(inst.repo, inst.base_commit))
        assert list(gold.functions) == inst.extra["gold_functions"] and gold.paths == ("lib/core.py",)
    with pytest.raises(FileNotFoundError, match="empty"):
        find_repository([tmp_path / "empty"], "demo/lib")


def test_localization_runner_on_mined_tasks_from_two_repos_dirs(history, tmp_path):
    work, _ = history
    out = tmp_path / "mined.jsonl"
    mine_main(["--repo", str(work), "--out", str(out), "--cap", "0", "--max-changed-lines", "20"])
    split = load_instances(out)[0].extra["split"]
    env = {**os.environ, "CI": "1"}
    proc = subprocess.run([sys.executable, "-m", "experiments.localize", "tasks=mined", f"tasks.instances={out}",
                           f"tasks.repos_dir={tmp_path / 'nothing'}", f"tasks.repos_dirs=[{work.parent}]",
                           f"tasks.split={split}", f"cache_dir={tmp_path / 'cache'}", f"hydra.run.dir={tmp_path / 'run'}",
                           "print_table=false"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(x) for x in (tmp_path / "run" / "run" / "records.jsonl").read_text().splitlines()]
    expected = {i.instance_id for i in load_instances(out) if i.extra["split"] == split}
    assert {r["instance_id"] for r in rows} == expected
    assert all(r["error"] is None and r["task_set"] == f"mined/{split}" for r in rows)


def test_strip_trailers_examples():
    msg = "Subject line\n\nBody text.\n\nSigned-off-by: A <a@b>\nFixes: #12\n  continued\n"
    assert strip_trailers(msg) == "Subject line\n\nBody text."
    squash = "Subject (#3)\n\n* part one\n\nCo-authored-by: X <x@y>\n\n* part two\n"
    assert strip_trailers(squash) == "Subject (#3)\n\n* part one\n\n* part two"
    assert strip_trailers("Fix: the subject is never a trailer") == "Fix: the subject is never a trailer"
    assert strip_trailers("Subject\n\nSee: not all trailers\nplain prose line") == \
        "Subject\n\nSee: not all trailers\nplain prose line"
    assert strip_trailers("Subject\n(cherry picked from commit abc123)\n") == "Subject"
    assert is_test_path("tests/x.py") and is_test_path("src/test_x.py") and is_test_path("conftest.py")
    assert not is_test_path("src/testament.py")


line = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=30)


@settings(max_examples=200, deadline=None)
@given(st.lists(line, min_size=1, max_size=8), st.lists(st.from_regex(r"[A-Z][a-z-]{0,8}: [a-z]{1,5}",
                                                                      fullmatch=True), min_size=1, max_size=3))
def test_strip_trailers_properties(lines, trailers):
    body = "\n".join(lines)
    once = strip_trailers(body)
    assert strip_trailers(once) == once  # stripping again changes nothing
    subject = lines[0].strip()
    if subject and ":" not in subject:
        # a trailer block appended after a blank line always goes, the subject always stays
        assert strip_trailers(subject + "\n\n" + "\n".join(trailers)) == subject


# -- the committed development set ---------------------------------------------------------------------------
def test_committed_mined_set_is_valid():
    instances = load_instances(COMMITTED)
    stats = json.loads(COMMITTED.with_suffix(".stats.json").read_text())
    assert stats["sha256"] == hashlib.sha256(COMMITTED.read_bytes()).hexdigest()
    assert len(instances) >= 300 and len({i.repo for i in instances}) >= 2
    assert {i.extra["split"] for i in instances} == {"tune", "test"}
    assert all(i.extra["split"] == split_of(i.instance_id) and i.extra["gold_functions"] for i in instances)
    if DEV_INSTANCES.exists():
        dev_bases = {i.base_commit for i in load_instances(DEV_INSTANCES)}
        assert not dev_bases & ({i.base_commit for i in instances} | {i.extra["commit"] for i in instances})


@pytest.mark.skipif(not (SHARED / "git_repos" / "encode__httpx.bundle").exists(), reason="shared bundles absent")
def test_committed_mined_set_remines_identically_for_httpx(tmp_path):
    committed = [json.loads(x) for x in COMMITTED.read_text().splitlines() if x]
    stats = json.loads(COMMITTED.with_suffix(".stats.json").read_text())
    f = stats["filters"]
    filters = MineFilters(f["min_message_chars"], f["max_changed_lines"], f["cap"], f["seed"])
    source = open_source(SHARED / "git_repos" / "encode__httpx.bundle", cache_dir=tmp_path)
    fresh = mine_repository(source, "encode/httpx", filters).tasks

    def strip(rows):  # the exclusion digests differ (no dev slice here); they cannot touch httpx; mined_by 3
        # (duplicate_change) skips nothing in httpx, so the v2 rows (mined_by 2) are otherwise the same
        return [{k: v for k, v in r.items() if k not in ("filters", "mined_by")} for r in rows]

    assert strip(fresh) == strip([r for r in committed if r["repo"] == "encode/httpx"])


def test_the_same_change_twice_is_one_task(tmp_path_factory):
    """A commit re-made on the same parent (as flask 637eae5/4f81501, in both halves of the v2 set) and a
    cherry-pick at another base: the miner keeps the first it draws and skips the rest (duplicate_change)."""
    work = new_repo(tmp_path_factory)
    root = commit(work, "Initial import of the library", {"lib/core.py": CORE})
    fix = {"lib/core.py": edit(work, "lib/core.py", "    return a + b", "    return b + a")}
    message = "Fix add for negative numbers when the first one is zero"
    first = commit(work, message, fix)
    git(work, "checkout", "-q", "-b", "again", root)
    again = commit(work, message, fix)  # the same parent, the same change, another commit
    git(work, "checkout", "-q", "-b", "maint", root)
    commit(work, "Make sub symmetric in its argument order on maint", {
        "lib/core.py": edit(work, "lib/core.py", "    return a - b", "    return -(b - a)")})
    git(work, "cherry-pick", "-x", first)  # another base, the same change
    picked = git(work, "rev-parse", "HEAD")
    git(work, "checkout", "-q", "main")
    git(work, "merge", "-q", "--no-ff", "-m", "Merge the same fix made again", "again")
    git(work, "merge", "-q", "--no-ff", "-m", "Merge the maintenance branch back", "maint")
    assert len({first, again, picked}) == 3
    result = mine(work)
    fixes = {first, again, picked} & set(by_commit(result))
    assert len(fixes) == 1 and result.counts["skip:duplicate_change"] == 2
    assert change_key(by_commit(result)[fixes.pop()]["patch"]).count("\n") == 3  # 2 headers, 1 -, 1 +
