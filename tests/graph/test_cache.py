"""Content-hash cache: warm builds reparse nothing; an edit reparses only that file.

Every incremental build is compared with a cold build of the same tree: the
cache may save work, never change the graph.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from beacon.graph import CodebaseGraph, EdgeType, GraphBuilder
from repotools import git

REPO = {
    "pkg/__init__.py": "from .a import f\n",
    "pkg/a.py": """
        from .b import g


        def f():
            return g() + 1


        class A:
            def m(self):
                return f()
    """,
    "pkg/b.py": """
        def g():
            return 1


        def h():
            return g()
    """,
    "pkg/c.py": """
        from .a import A


        class C(A):
            def run(self):
                return self.m()
    """,
    "main.py": """
        from pkg.a import f
        from pkg.b import h


        def main():
            return f() + h()
    """,
    "broken.py": "def (:\n",
}


def cold(root: Path) -> CodebaseGraph:
    return CodebaseGraph.from_repo(root)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (old, path)
    path.write_text(text.replace(old, new, 1))


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(REPO)


def test_cold_build_parses_every_indexable_file(repo, tmp_path):
    builder = GraphBuilder(repo, cache_dir=tmp_path / "cache")
    builder.build()
    assert sorted(builder.last_reparsed) == sorted(REPO)


def test_same_builder_rebuild_reparses_nothing(repo, tmp_path, same_graph):
    builder = GraphBuilder(repo, cache_dir=tmp_path / "cache")
    first = builder.build()
    second = builder.build()
    assert builder.last_reparsed == []
    assert builder.last_resolved == []
    same_graph(first, second)


def test_new_builder_with_same_cache_dir_reparses_nothing(repo, tmp_path, same_graph):
    cache = tmp_path / "cache"
    first = GraphBuilder(repo, cache_dir=cache).build()
    builder = GraphBuilder(repo, cache_dir=cache)
    second = builder.build()
    same_graph(first, second)
    assert builder.last_reparsed == []


def test_new_builder_after_one_line_edit_reparses_one_file(repo, tmp_path, same_graph):
    cache = tmp_path / "cache"
    GraphBuilder(repo, cache_dir=cache).build()
    edit(repo / "pkg/b.py", "return 1", "return 2")
    builder = GraphBuilder(repo, cache_dir=cache)
    graph = builder.build()
    same_graph(graph, cold(repo))
    assert builder.last_reparsed == ["pkg/b.py"]


def test_disk_cache_is_used_by_a_new_builder(repo, tmp_path, same_graph):
    # Independent of last_reparsed: a corrupt-free on-disk entry exists per distinct content.
    cache = tmp_path / "cache"
    first = GraphBuilder(repo, cache_dir=cache).build()
    entries = sorted(cache.rglob("*.pkl"))
    distinct = {f.sha256 for f in first.files.values()}
    assert len(entries) >= len(distinct)
    second = GraphBuilder(repo, cache_dir=cache).build()
    same_graph(first, second)
    assert sorted(cache.rglob("*.pkl")) == entries  # nothing new written


def test_one_line_body_edit_reparses_one_file_and_equals_cold(repo, tmp_path, same_graph):
    builder = GraphBuilder(repo, cache_dir=tmp_path / "cache")
    before = builder.build()
    edit(repo / "pkg/b.py", "return 1", "return 2")
    after = builder.build()
    assert builder.last_reparsed == ["pkg/b.py"]
    assert builder.last_resolved == ["pkg/b.py"]  # interfaces unchanged: others reused
    same_graph(after, cold(repo))
    assert after.files["pkg/b.py"].sha256 != before.files["pkg/b.py"].sha256
    assert "return 2" in after.source("pkg/b.py::g")


def test_edit_adding_lines_moves_spans(repo, tmp_path, same_graph):
    builder = GraphBuilder(repo, cache_dir=tmp_path / "cache")
    before = builder.build()
    edit(repo / "pkg/a.py", "def f():\n", "def f():\n    '''Now documented.'''\n")
    after = builder.build()
    assert builder.last_reparsed == ["pkg/a.py"]
    assert after.symbol("pkg/a.py::A").start_line == before.symbol("pkg/a.py::A").start_line + 1
    assert after.symbol("pkg/a.py::A").start_byte > before.symbol("pkg/a.py::A").start_byte
    same_graph(after, cold(repo))


def test_interface_edit_updates_other_files_edges(repo, tmp_path, same_graph):
    builder = GraphBuilder(repo, cache_dir=tmp_path / "cache")
    before = builder.build()
    assert before.has_edge("main.py::main", "pkg/b.py::h", EdgeType.CALLS)
    edit(repo / "pkg/b.py", "def h():", "def renamed():")
    after = builder.build()
    assert builder.last_reparsed == ["pkg/b.py"]
    assert "pkg/b.py::h" not in after.index
    assert not after.has_edge("main.py::main", "pkg/b.py::renamed", EdgeType.CALLS)
    same_graph(after, cold(repo))


def test_new_method_in_base_changes_self_resolution_elsewhere(repo, tmp_path, same_graph):
    builder = GraphBuilder(repo, cache_dir=tmp_path / "cache")
    builder.build()
    edit(repo / "pkg/a.py", "class A:\n", "class A:\n    def run(self):\n        pass\n\n")
    after = builder.build()
    assert after.has_edge("pkg/c.py::C.run", "pkg/a.py::A.m", EdgeType.CALLS)
    same_graph(after, cold(repo))


def test_add_delete_and_break_files(repo, tmp_path, same_graph):
    builder = GraphBuilder(repo, cache_dir=tmp_path / "cache")
    builder.build()
    (repo / "pkg/new.py").write_text("from .b import g\n\ndef n():\n    return g()\n")
    (repo / "main.py").unlink()
    (repo / "pkg/c.py").write_text("class C(:\n")  # now a syntax error
    (repo / "broken.py").write_text("def fixed():\n    pass\n")  # now parses
    after = builder.build()
    assert sorted(builder.last_reparsed) == ["broken.py", "pkg/c.py", "pkg/new.py"]
    assert [s.path for s in after.skipped] == ["pkg/c.py"]
    assert after.has_edge("pkg/new.py::n", "pkg/b.py::g", EdgeType.CALLS)
    same_graph(after, cold(repo))


def test_touch_without_change_reparses_nothing(repo, tmp_path):
    builder = GraphBuilder(repo, cache_dir=tmp_path / "cache")
    builder.build()
    st = os.stat(repo / "pkg/a.py")
    os.utime(repo / "pkg/a.py", ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    builder.build()
    assert builder.last_reparsed == []


def test_corrupt_cache_entry_is_recomputed(repo, tmp_path, same_graph):
    cache = tmp_path / "cache"
    first = GraphBuilder(repo, cache_dir=cache).build()
    for entry in cache.rglob("*.pkl"):
        entry.write_bytes(b"not a pickle")
    second = GraphBuilder(repo, cache_dir=cache).build()
    same_graph(first, second)


def test_copied_tree_with_same_cache_gives_same_graph(repo, tmp_path, same_graph):
    cache = tmp_path / "cache"
    GraphBuilder(repo, cache_dir=cache).build()
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy)
    warm = GraphBuilder(copy, cache_dir=cache).build()
    fresh = cold(copy)
    same_graph(warm, fresh)


# -- real git history ------------------------------------------------------------
@pytest.fixture
def history(repo) -> tuple[Path, list[str]]:
    """Three commits: the base tree, a one-line body edit, an interface edit."""
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    edit(repo / "pkg/b.py", "return 1", "return 10")
    git(repo, "commit", "-qam", "body edit")
    edit(repo / "pkg/a.py", "def f():", "def f(x=None):")
    (repo / "pkg/d.py").write_text("from .a import f\n\ndef d():\n    return f()\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "signature edit, new file")
    return repo, git(repo, "rev-list", "--reverse", "HEAD").split()


def test_walking_git_history_matches_cold_builds(history, tmp_path, same_graph):
    repo, commits = history
    builder = GraphBuilder(repo, cache_dir=tmp_path / "cache")
    expected_reparsed = [sorted(REPO), ["pkg/b.py"], ["pkg/a.py", "pkg/d.py"]]
    for commit, reparsed in zip(commits, expected_reparsed):
        git(repo, "checkout", "-q", commit)
        graph = builder.build()
        assert sorted(builder.last_reparsed) == reparsed, commit
        same_graph(graph, cold(repo))
    # back to the first commit: every content hash was seen before
    git(repo, "checkout", "-q", commits[0])
    graph = builder.build()
    assert builder.last_reparsed == []
    same_graph(graph, cold(repo))
    assert "pkg/d.py" not in graph.files
