"""The offline control benchmark's inputs: a tiny real git repository and its task manifest.

``make_control_repo(dest)`` writes a small package with a real pytest suite,
commits it with fixed author, committer and dates (so the commit hash is the
same on every machine and can be pinned), and writes a JSONL manifest of
three single-line mutations, each killed by the suite, each with a
developer-style report that does not reveal the line. Results on it are
HARNESS CONTROLS: they show the pipeline scores a known repair as a pass.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

_FILES = {
    "textkit/__init__.py": '"""textkit: small text and number helpers."""\n',
    "textkit/numbers.py": '''"""Number helpers."""


def clamp(value, low, high):
    """Limit value to the closed interval [low, high]."""
    if low > high:
        raise ValueError("low must not exceed high")
    if value < low:
        return low
    if value > high:
        return high
    return value


def moving_average(values, window):
    """Averages of each run of `window` consecutive values."""
    if window <= 0:
        raise ValueError("window must be positive")
    out = []
    for start in range(len(values) - window + 1):
        chunk = values[start:start + window]
        out.append(sum(chunk) / window)
    return out
''',
    "textkit/strings.py": '''"""String helpers."""
import re


def slugify(text, separator="-"):
    """Lower-case words joined by `separator`; punctuation dropped."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return separator.join(words)


def truncate(text, limit, suffix="..."):
    """Cut text to at most `limit` characters, marking the cut with `suffix`."""
    if len(text) <= limit:
        return text
    return text[:limit - len(suffix)] + suffix
''',
    "tests/test_numbers.py": '''from textkit.numbers import clamp, moving_average


def test_clamp_inside():
    assert clamp(5, 0, 10) == 5


def test_clamp_edges():
    assert clamp(-3, 0, 10) == 0
    assert clamp(12, 0, 10) == 10
    assert clamp(10, 0, 10) == 10


def test_moving_average():
    assert moving_average([1, 2, 3, 4], 2) == [1.5, 2.5, 3.5]
    assert moving_average([1, 2, 3], 3) == [2.0]
''',
    "tests/test_strings.py": '''from textkit.strings import slugify, truncate


def test_slugify():
    assert slugify("Hello, World!") == "hello-world"
    assert slugify("a b", separator="_") == "a_b"


def test_truncate():
    assert truncate("short", 10) == "short"
    assert truncate("exact", 5) == "exact"
    assert truncate("abcdefghij", 8) == "abcde..."
''',
}

_TASKS = [
    {"bug_location": "textkit/numbers.py:9", "mutation_type": "return_value_swap",
     "original_line": "        return low", "mutated_line": "        return high",
     "test_command": "python -m pytest tests/test_numbers.py -q",
     "dev_report": "clamp(-3, 0, 10) gives 10; values below the range should come back as the lower bound."},
    {"bug_location": "textkit/numbers.py:20", "mutation_type": "off_by_one",
     "original_line": "    for start in range(len(values) - window + 1):",
     "mutated_line": "    for start in range(len(values) - window):",
     "test_command": "python -m pytest tests/test_numbers.py -q",
     "dev_report": "moving_average drops the final window: averaging [1, 2, 3] with window 3 gives an empty list."},
    {"bug_location": "textkit/strings.py:13", "mutation_type": "comparison_swap",
     "original_line": "    if len(text) <= limit:", "mutated_line": "    if len(text) < limit:",
     "test_command": "python -m pytest tests/test_strings.py -q",
     "dev_report": "truncate() shortens text that already fits exactly within the limit."},
]
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Beacon Control", "GIT_AUTHOR_EMAIL": "control@beacon.invalid",
    "GIT_COMMITTER_NAME": "Beacon Control", "GIT_COMMITTER_EMAIL": "control@beacon.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00+0000", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00+0000",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **_GIT_ENV}
    out = subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def make_control_repo(dest: Path | str, *, budget: int = 2000) -> tuple[Path, Path]:
    """Create ``dest/repos/textkit`` (a git repo) and ``dest/tasks.jsonl``; returns both paths."""
    dest = Path(dest)
    repo = dest / "repos" / "textkit"
    if not (repo / ".git").exists():
        repo.mkdir(parents=True, exist_ok=True)
        for rel, text in _FILES.items():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(text, encoding="utf-8")
        _git(repo, "init", "-q", "-b", "main")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", "textkit: number and string helpers")
    commit = _git(repo, "rev-parse", "HEAD")
    manifest = dest / "tasks.jsonl"
    rows = [{"repo": "textkit", "commit": commit, "token_budget": budget, **t} for t in _TASKS]
    manifest.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    return repo, manifest
