"""LocBench environment over real git snapshots: tools, errors as observations, budget, repeats, scoring."""
from __future__ import annotations

import json
import shutil
from dataclasses import dataclass

import pytest

from beacon.localize.env import LocBenchEnv, score_submission
from beacon.localize.repository import Repository, SnapshotError, ToolError
from repotools import commit_tree, git

FILES = {
    "pkg/__init__.py": "",
    "pkg/retry.py": '''
        """Retry helpers."""
        import time


        class RetryPolicy:
            def __init__(self, attempts):
                self.attempts = attempts

            def compute_retry_delay(self, attempt):
                return 2 ** attempt


        def sleep_between(policy, attempt):
            time.sleep(policy.compute_retry_delay(attempt))
        ''',
    "pkg/config.py": '''
        def load_config(path):
            with open(path) as fh:
                return fh.read()
        ''',
    "pkg/long.py": "".join(f"VALUE_{i} = {i}\n" for i in range(1, 301)),
    "pkg/nasty.py": 'DATA = "' + "a" * 40 + 'b"\n',
    "README.md": "compute_retry_delay is documented here\n",
    "data.bin": b"\x00\x01binary",
}


@dataclass(frozen=True)
class FakeGold:
    instance_id: str
    units: tuple[str, ...]
    gold_files: tuple[str, ...]

    def files(self) -> tuple[str, ...]:
        return self.gold_files


GOLD = FakeGold("demo-1", ("pkg/retry.py::RetryPolicy.compute_retry_delay", "pkg/retry.py::sleep_between"),
                ("pkg/retry.py",))


@pytest.fixture
def snapshot(tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret\n")
    return commit_tree(tmp_path / "repo", FILES, {"escape.py": str(outside), "alias.py": "pkg/config.py"})


@pytest.fixture
def repo(snapshot):
    return Repository(*snapshot)


def test_list_is_sorted_with_folder_slashes_and_hides_git(repo):
    root = repo.list("").text.splitlines()
    assert root == sorted(root)
    assert "pkg/" in root and "README.md" in root and "alias.py" in root
    assert not any(e.startswith(".git") for e in root)
    assert repo.list("pkg").text.splitlines() == [
        "pkg/__init__.py", "pkg/config.py", "pkg/long.py", "pkg/nasty.py", "pkg/retry.py"]


def test_read_numbers_lines_bounds_output_and_notes_eof(repo):
    out = repo.read("pkg/retry.py", 9, 2)
    assert out.text.splitlines() == ["pkg/retry.py lines 9-10 of 14",
                                     "     9      def compute_retry_delay(self, attempt):",
                                     "    10          return 2 ** attempt",
                                     "[4 more lines; continue with start=11]"]
    assert out.spans == (("pkg/retry.py", 9, 10),)
    capped = repo.read("pkg/long.py", 1, 1000)
    assert capped.spans == (("pkg/long.py", 1, 200),) and "[lines capped at 200]" in capped.text
    past = repo.read("pkg/long.py", 301)
    assert past.spans == () and "past the end of the file (300 lines)" in past.text
    assert repo.read("alias.py", 1).text.startswith("alias.py lines 1-3 of 3")  # a link inside is fine


@pytest.mark.parametrize("call, kind", [
    ({"tool": "read", "args": {"path": "../etc/passwd"}}, "bad_path"),
    ({"tool": "read", "args": {"path": "/etc/passwd"}}, "bad_path"),
    ({"tool": "read", "args": {"path": "escape.py"}}, "bad_path"),
    ({"tool": "grep", "args": {"pattern": "x", "path": "escape.py"}}, "bad_path"),
    ({"tool": "list", "args": {"path": ".git"}}, "bad_path"),
    ({"tool": "read", "args": {"path": "pkg/missing.py"}}, "not_found"),
    ({"tool": "read", "args": {"path": "pkg"}}, "not_a_file"),
    ({"tool": "read", "args": {"path": "data.bin"}}, "binary"),
    ({"tool": "list", "args": {"path": "README.md"}}, "not_a_directory"),
    ({"tool": "grep", "args": {"pattern": "(unclosed"}}, "bad_regex"),
    ({"tool": "grep", "args": {"pattern": "a" * 201}}, "bad_args"),
    ({"tool": "read", "args": {"path": "pkg/retry.py", "start": 0}}, "bad_args"),
    ({"tool": "read", "args": {"path": "pkg/retry.py", "start": True}}, "bad_args"),
    ({"tool": "read", "args": {}}, "bad_args"),
    ({"tool": "list", "args": {"path": "", "depth": 2}}, "bad_args"),
    ({"tool": "delete", "args": {}}, "unknown_tool"),
    ({"args": {}}, "bad_call"),
    ("read everything", "bad_call"),
])
def test_tool_errors_are_observations_that_count(repo, call, kind):
    env = LocBenchEnv(repo, GOLD, call_budget=5)
    obs = env.step(call)
    assert not obs["ok"] and obs["error"]["type"] == kind and obs["calls_used"] == 1 and not obs["done"]
    assert env.trajectory[0]["error"]["type"] == kind
    assert "secret" not in json.dumps(env.result())


def test_grep_hits_bounds_and_python_only(repo):
    out = repo.grep(r"compute_retry_delay")
    assert out.text.splitlines() == ["pkg/retry.py:9:     def compute_retry_delay(self, attempt):",
                                     "pkg/retry.py:14:     time.sleep(policy.compute_retry_delay(attempt))"]
    assert out.spans == (("pkg/retry.py", 9, 9), ("pkg/retry.py", 14, 14))  # README.md is not searched
    many = repo.grep(r"VALUE_\d+", "pkg", max_hits=3)
    assert len(many.spans) == 3 and "stopped at 3 hits" in many.text
    assert repo.grep("nothing_like_this").text == "(no matches)"
    assert repo.grep("documented", "README.md").spans == (("README.md", 1, 1),)  # an explicit file is searched


def test_catastrophic_pattern_times_out_as_a_tool_error(snapshot):
    repo = Repository(*snapshot, grep_timeout=0.5)
    with pytest.raises(ToolError) as info:
        repo.grep(r"(a+)+$", "pkg/nasty.py")
    assert info.value.kind == "timeout"
    repo.grep_timeout = 10.0
    assert repo.grep(r"a+b", "pkg/nasty.py").spans == (("pkg/nasty.py", 1, 1),)  # a fresh worker per call


def test_budget_exhaustion_ends_without_score(repo):
    env = LocBenchEnv(repo, GOLD, call_budget=3)
    for path in ("", "pkg", "nope"):
        obs = env.step({"tool": "list", "args": {"path": path}})
    assert obs["done"] and obs["reason"] == "call_budget_exhausted" and obs["calls_left"] == 0
    late = env.step({"tool": "submit", "args": {"files": ["pkg/retry.py"]}})
    assert late["error"]["type"] == "episode_done" and len(env.trajectory) == 3 and env.calls_used == 3
    score = env.result()["score"]
    assert score["submitted"] is False and score["reason"] == "call_budget_exhausted"
    assert score["files"]["recall"] == 0.0 and score["units"]["recall"] == 0.0


def test_first_repeat_ends_the_episode_by_default(repo):
    env = LocBenchEnv(repo, GOLD)
    env.step({"tool": "list", "args": {"path": "pkg"}})
    env.step({"tool": "list", "args": {"path": ""}})
    obs = env.step({"args": {"path": "pkg"}, "tool": "list"})  # same call, other key order
    assert obs["done"] and obs["reason"] == "repeated_call" and obs["error"]["type"] == "repeated_call"
    assert obs["output"] == "" and env.result()["repeats"] == 1


def test_repeat_limit_tolerates_that_many_repeats(repo):
    env = LocBenchEnv(repo, GOLD, repeat_limit=2)
    call = {"tool": "read", "args": {"path": "pkg/config.py"}}
    assert [env.step(call)["ok"] for _ in range(3)] == [True, True, True]
    obs = env.step(call)
    assert obs["reason"] == "repeated_call" and env.calls_used == 4


def test_submit_scores_by_set_overlap(repo):
    env = LocBenchEnv(repo, GOLD)
    obs = env.step({"tool": "submit", "args": {
        "files": ["./pkg/config.py"],
        "symbols": ["pkg/retry.py::RetryPolicy.compute_retry_delay", "pkg/config.py::load_config"]}})
    assert obs["ok"] and obs["done"] and obs["reason"] == "submitted"
    result = env.result()
    # files: config.py, then retry.py from the symbols -> 1 of 1 gold found, 1 of 2 predicted right
    assert result["submission"]["files"] == ["pkg/config.py", "pkg/retry.py"]
    assert result["score"]["files"] == {"recall": 1.0, "precision": 0.5, "hits": 1, "predicted": 2, "gold": 1}
    # units: 1 of the 2 gold units, 1 of the 2 predicted
    assert result["score"]["units"] == {"recall": 0.5, "precision": 0.5, "hits": 1, "predicted": 2, "gold": 2}
    assert result["trajectory"][-1]["submission"] == result["submission"]
    again = env.step({"tool": "submit", "args": {"files": ["pkg/retry.py"]}})
    assert again["error"]["type"] == "episode_done" and env.result()["submission"] == result["submission"]


def test_empty_submission_scores_zero_and_bad_submit_is_retryable(repo):
    env = LocBenchEnv(repo, GOLD)
    bad = env.step({"tool": "submit", "args": {"symbols": ["retry.compute_retry_delay"]}})
    assert bad["error"]["type"] == "bad_args" and not bad["done"]
    env.step({"tool": "submit", "args": {}})
    score = env.result()["score"]
    assert score["submitted"] and score["files"]["recall"] == 0.0 and score["files"]["precision"] == 0.0
    assert score["units"] == {"recall": 0.0, "precision": 0.0, "hits": 0, "predicted": 0, "gold": 2}


def test_submission_is_truncated_to_max_locations(repo):
    env = LocBenchEnv(repo, GOLD, max_locations=1)
    env.step({"tool": "submit", "args": {"files": ["pkg/retry.py", "pkg/config.py"],
                                         "symbols": ["pkg/retry.py::sleep_between", "pkg/retry.py::RetryPolicy"]}})
    sub = env.result()["submission"]
    assert sub == {"files": ["pkg/retry.py"], "symbols": ["pkg/retry.py::sleep_between"],
                   "dropped": {"files": 1, "symbols": 1}}
    assert score_submission(sub["files"], sub["symbols"], GOLD)["units"]["recall"] == 0.5


def test_trajectory_records_what_was_shown_cumulatively(repo):
    env = LocBenchEnv(repo, GOLD)
    env.step({"tool": "grep", "args": {"pattern": "time.sleep"}})
    env.step({"tool": "read", "args": {"path": "pkg/retry.py", "start": 4, "lines": 7}})
    env.step({"tool": "list", "args": {"path": "pkg"}})
    first, second, third = env.trajectory
    assert first["shown"]["symbols"] == ["pkg/retry.py::sleep_between"]
    assert second["shown"]["spans"] == [["pkg/retry.py", 4, 10]]
    assert second["shown"]["symbols"] == ["pkg/retry.py::<module>", "pkg/retry.py::RetryPolicy",
                                          "pkg/retry.py::RetryPolicy.__init__",
                                          "pkg/retry.py::RetryPolicy.compute_retry_delay"]
    assert third["shown"] == {"files": [], "spans": [], "symbols": []}
    assert third["seen"]["spans"] == [["pkg/retry.py", 4, 10], ["pkg/retry.py", 14, 14]]
    assert "pkg/retry.py::sleep_between" in third["seen"]["symbols"]


def test_results_are_deterministic_and_free_of_absolute_paths(snapshot, tmp_path):
    root, commit = snapshot
    clone = tmp_path / "elsewhere" / "clone"
    shutil.copytree(root, clone, symlinks=True)
    dumps = []
    for where in (root, clone):
        env = LocBenchEnv(Repository(where, commit), GOLD)
        env.step({"tool": "grep", "args": {"pattern": "def "}})
        env.step({"tool": "read", "args": {"path": "pkg/long.py"}})
        env.step({"tool": "submit", "args": {"files": ["pkg/retry.py"]}})
        dumps.append(json.dumps(env.result(), sort_keys=True))
    assert dumps[0] == dumps[1] and str(tmp_path) not in dumps[0]
    step = json.loads(dumps[0])["trajectory"][1]
    assert len(step["output"]) == 2000 < step["output_chars"]  # the record keeps a bounded prefix


def test_snapshot_is_never_written_and_must_match_its_commit(snapshot):
    root, commit = snapshot
    env = LocBenchEnv(Repository(root, commit), GOLD)
    env.step({"tool": "grep", "args": {"pattern": "def"}})
    env.step({"tool": "read", "args": {"path": "pkg/retry.py"}})
    assert git(root, "status", "--porcelain", "--untracked-files=all", "--ignored") == ""
    with pytest.raises(SnapshotError, match="HEAD is"):
        Repository(root, "0" * 40)
    (root / "pkg" / "config.py").write_text("changed = True\n")
    with pytest.raises(SnapshotError, match="differs"):
        Repository(root, commit)
    with pytest.raises(SnapshotError, match="40-hex"):
        Repository(root, "HEAD")


def test_odd_python_calls_are_recorded_not_raised(repo):
    env = LocBenchEnv(repo, GOLD)
    circular: dict = {"tool": "list"}
    circular["args"] = circular
    assert env.step(circular)["error"]["type"] == "bad_args"
    assert env.step({"tool": "read", "args": {"path": object()}})["error"]["type"] == "bad_args"
    huge = env.step({"tool": "read", "args": {"path": "x" * 100_000}})
    assert huge["error"]["type"] == "bad_path" and len(huge["error"]["message"]) < 200
    named = env.step({"tool": "y" * 100_000, "args": {}})
    assert named["error"]["type"] == "unknown_tool" and len(named["error"]["message"]) < 1100
    assert "truncated_call" in env.trajectory[0]["call"] and "truncated_call" in env.trajectory[2]["call"]
    json.dumps(env.result())
