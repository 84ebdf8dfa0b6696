"""Incremental rebuilds equal cold builds on a real repository, under real and random edits.

psf/requests (from the shared git bundle): one long-lived ``GraphBuilder``
walks the last first-parent commits before a SWE-bench tag (real edits:
bodies, signatures, new and deleted files), and then takes random one-line
body edits (hypothesis) that add calls to real functions. After every step
the graph must equal a cold build node for node and edge for edge; a body
edit must reparse and re-resolve one file, reuse the resolution tables and
splice its edges into the previous CSR arrays.
"""
from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from beacon.graph import CodebaseGraph, GraphBuilder

TAG = "swebench/psf__requests-2317"  # the clone_requests fixture's tag
# requests' source has regex strings such as "\*" that ast.parse warns about: not ours to fix
pytestmark = pytest.mark.filterwarnings("ignore:invalid escape sequence:DeprecationWarning")
COMMITS = 30  # reaches back past commits that add definitions (interface edits)


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True)
    return done.stdout.strip()


@pytest.fixture(scope="module")
def requests_repo(tmp_path_factory, clone_requests) -> Path:
    return clone_requests(tmp_path_factory)


def cold(root: Path) -> CodebaseGraph:
    return CodebaseGraph.from_repo(root)  # no cache dir: everything parsed and resolved afresh


def test_walking_real_commits_matches_cold_builds(requests_repo, tmp_path, same_graph):
    commits = git(requests_repo, "rev-list", "--first-parent", f"-n{COMMITS}", TAG).split()[::-1]
    builder = GraphBuilder(requests_repo, cache_dir=tmp_path / "cache")
    kinds = set()
    try:
        for commit in commits:
            git(requests_repo, "checkout", "-q", commit)
            graph = builder.build()
            same_graph(graph, cold(requests_repo))
            kinds.add((bool(builder.last_reparsed), builder.last_tables_rebuilt, len(graph.symbols)))
    finally:
        git(requests_repo, "checkout", "-q", TAG)
    # the walk took body-only edits (tables reused) and interface edits that add definitions
    assert (True, False) in {k[:2] for k in kinds}
    assert len({k[2] for k in kinds if k[1]}) >= 3


def _edit_sites(text: str) -> list[tuple[int, int]]:
    """(line, indent) of the first statement of every function body that does not start with a docstring."""
    sites = []
    for fn in ast.walk(ast.parse(text)):
        if isinstance(fn, ast.FunctionDef) and fn.body:
            first = fn.body[0]
            on_own_line = first.lineno > fn.lineno  # not `def f(): return 1`
            if on_own_line and (not isinstance(first, ast.Expr) or not isinstance(first.value, ast.Constant)):
                sites.append((first.lineno, first.col_offset))
    return sites


@pytest.fixture(scope="module")
def edit_files(requests_repo) -> tuple[list[str], list[str]]:
    """Files with a function to edit, and the function names of the package (what the edits call)."""
    files, names = [], set()
    for path in sorted((requests_repo / "requests").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if _edit_sites(text):
            files.append(path.relative_to(requests_repo).as_posix())
        names |= {n.name for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef)}
    return files, sorted(names)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_body_edits_match_cold_builds(requests_repo, edit_files, same_graph, data):
    files, names = edit_files
    # no disk cache: it would outlive the example, and a repeated edit would then not be reparsed
    builder = GraphBuilder(requests_repo)
    builder.build()
    originals: dict[str, str] = {}
    try:
        for _ in range(data.draw(st.integers(1, 3), label="edits")):
            rel = data.draw(st.sampled_from(files), label="file")
            path = requests_repo / rel
            text = path.read_text(encoding="utf-8")
            originals.setdefault(rel, text)
            # sites of the current text, so that a second edit of a file stays valid Python
            line, indent = data.draw(st.sampled_from(_edit_sites(text)), label="site")
            callee = data.draw(st.sampled_from(names), label="callee")
            lines = text.splitlines(keepends=True)
            lines.insert(line - 1, " " * indent + f"{callee}()\n")  # a call: this file's edges change
            path.write_text("".join(lines), encoding="utf-8")
            graph = builder.build()
            assert builder.last_reparsed == [rel]
            assert builder.last_resolved == [rel]
            assert not builder.last_tables_rebuilt  # a body edit keeps every interface
            assert builder.last_spliced  # and the other files' edges are reused as they are
            same_graph(graph, cold(requests_repo))
    finally:
        for rel, text in originals.items():
            (requests_repo / rel).write_text(text, encoding="utf-8")
