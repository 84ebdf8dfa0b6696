"""The README's library example and command line, run as written."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from beacon.graph import CodebaseGraph
from beacon.retrieval import assemble_context
from beacon.tokens import count_tokens

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_library_example(tmp_path):
    repo = tmp_path / "client"
    repo.mkdir()
    (repo / "retry.py").write_text(
        "import random\n\n\n"
        "def retry_delay(attempt, base=0.25, cap=30.0):\n"
        '    """Delay before the next retry: capped exponential backoff with jitter."""\n'
        "    return min(cap, base * 2 ** attempt) * random.uniform(0.5, 1.0)\n"
    )
    (repo / "client.py").write_text(
        "from retry import retry_delay\n\n\n"
        "def fetch(url, attempts=3):\n"
        "    for attempt in range(attempts):\n"
        "        wait = retry_delay(attempt)\n"
        "    return url, wait\n"
    )
    # --- as in the README ---
    graph = CodebaseGraph.from_repo(Path(repo))
    result = assemble_context(graph, "Where is retry delay computed?", "bm25", budget=2000)
    print(result.context.render())
    assert result.context.total_tokens <= 2000
    # ---
    assert result.ranking[0][0] == "retry.py::retry_delay"
    assert count_tokens(result.context.render()) == result.context.total_tokens


def test_context_command_runs_offline_on_the_project_itself():
    out = subprocess.run(
        [sys.executable, "-m", "beacon", "context", "beacon",
         "Where is the token budget enforced when packing snippets?", "--method", "bm25", "--budget", "2000"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    summary = next(line for line in out.stderr.splitlines() if line.startswith("# method="))
    tokens = int(summary.split("tokens=")[1].split()[0])
    assert 0 < tokens <= 2000
    assert count_tokens(out.stdout) == tokens
    assert "### context/pack.py" in out.stdout


def test_readme_starts_with_the_two_commands():
    lines = [ln for ln in (REPO_ROOT / "README.md").read_text().splitlines() if ln.strip()]
    commands = [ln for ln in lines[:12] if ln.startswith(("pip install", "python -m"))]
    assert commands[0] == "pip install -e '.[dev]' && python -m experiments.control"
    assert commands[1] == "python -m pytest -q -n 2"
    # CI runs the README's test command, as written
    ci = [ln for ln in (REPO_ROOT / ".ci" / "run").read_text().splitlines() if ln.strip()]
    assert ci[-1] == commands[1]


def test_cli_reports_unknown_method(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    out = subprocess.run([sys.executable, "-m", "beacon", "context", str(tmp_path), "q", "--method", "nope"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "known methods" in out.stderr
