"""Files that cannot be indexed are recorded in ``graph.skipped``, never fatal, never followed."""
from __future__ import annotations

import os

import pytest

from beacon.graph import CodebaseGraph, EdgeType

GOOD = {
    "pkg/__init__.py": "",
    "pkg/good.py": "from .other import g\n\ndef f():\n    return g()\n",
    "pkg/other.py": "def g():\n    return 1\n",
}


def reasons(graph: CodebaseGraph) -> dict[str, str]:
    return {s.path: s.reason for s in graph.skipped}


def assert_good_indexed(g: CodebaseGraph) -> None:
    for path in GOOD:
        assert path in g.files
    assert g.has_edge("pkg/good.py::f", "pkg/other.py::g", EdgeType.CALLS)


def test_syntax_error_reason_names_the_line(make_repo):
    root = make_repo({**GOOD, "pkg/broken.py": "def ok():\n    pass\n\ndef bad(:\n    pass\n"})
    g = CodebaseGraph.from_repo(root)
    r = reasons(g)
    assert set(r) == {"pkg/broken.py"}
    assert "syntax error" in r["pkg/broken.py"] and "line 4" in r["pkg/broken.py"]
    assert "pkg/broken.py" not in g.files
    assert not any(s.path == "pkg/broken.py" for s in g.symbols)
    assert g.stats["files_skipped"] == 1 and g.stats["files_indexed"] == 3
    assert_good_indexed(g)


def test_indentation_error_is_skipped(make_repo):
    g = CodebaseGraph.from_repo(make_repo({**GOOD, "indent.py": "def f():\nreturn 1\n"}))
    assert "line 2" in reasons(g)["indent.py"]
    assert_good_indexed(g)


def test_non_utf8_bytes_are_skipped(make_repo):
    g = CodebaseGraph.from_repo(make_repo({**GOOD, "latin.py": b"x = '\xe9\xff'\n"}))
    assert reasons(g)["latin.py"].startswith("undecodable")
    assert_good_indexed(g)


def test_unknown_encoding_cookie_is_skipped(make_repo):
    g = CodebaseGraph.from_repo(make_repo({**GOOD, "cookie.py": b"# -*- coding: no-such-codec -*-\nx = 1\n"}))
    assert reasons(g)["cookie.py"].startswith("undecodable")
    assert_good_indexed(g)


def test_nul_byte_is_skipped(make_repo):
    g = CodebaseGraph.from_repo(make_repo({**GOOD, "nul.py": b"x = 1\x00\ny = 2\n"}))
    assert "null" in reasons(g)["nul.py"].lower()
    assert_good_indexed(g)


def test_file_over_size_limit_is_skipped_but_limit_is_inclusive(make_repo):
    body = "x = 1\n" * 100  # 600 bytes
    root = make_repo({**GOOD, "big.py": body + "y = 2\n", "exact.py": body})
    g = CodebaseGraph.from_repo(root, max_file_bytes=600)
    r = reasons(g)
    assert set(r) == {"big.py"}
    assert "too large" in r["big.py"] and "606" in r["big.py"] and "600" in r["big.py"]
    assert "exact.py" in g.files
    assert_good_indexed(g)


def test_too_deep_expression_is_skipped_not_fatal(make_repo):
    deep = "def big():\n    return " + "+".join(["1"] * 100_000) + "\n"
    g = CodebaseGraph.from_repo(make_repo({**GOOD, "deep.py": deep}))
    # Either indexed or skipped with a reason; never an exception.
    assert "deep.py" in g.files or "deep.py" in reasons(g)
    assert_good_indexed(g)


@pytest.fixture
def linked_repo(make_repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ext.py").write_text("def ext():\n    pass\n")
    (outside / "extdir").mkdir()
    (outside / "extdir" / "hidden.py").write_text("def hidden():\n    pass\n")
    root = make_repo(GOOD)
    os.symlink(outside / "ext.py", root / "outside_file.py")
    os.symlink(outside / "extdir", root / "outside_dir")
    os.symlink("self_loop.py", root / "self_loop.py")          # loops onto itself
    os.symlink("loop_b.py", root / "loop_a.py")                # a -> b -> a
    os.symlink("loop_a.py", root / "loop_b.py")
    os.symlink("..", root / "pkg" / "up")                      # directory loop via the parent
    os.symlink(".", root / "pkg" / "here")                     # directory loop onto itself
    os.symlink("pkg/good.py", root / "dup.py")                  # duplicate of an inside file
    os.symlink("missing.py", root / "broken.py")                # dangling
    return root


def test_symlinks_are_recorded_and_never_followed(linked_repo):
    g = CodebaseGraph.from_repo(linked_repo)
    r = reasons(g)
    assert set(r) == {"outside_file.py", "outside_dir", "self_loop.py", "loop_a.py", "loop_b.py",
                      "pkg/up", "pkg/here", "dup.py", "broken.py"}
    assert "outside" in r["outside_file.py"] and "outside" in r["outside_dir"]
    for loop in ("self_loop.py", "loop_a.py", "loop_b.py"):
        assert "loop" in r[loop], (loop, r[loop])
    assert "broken" in r["broken.py"]
    for path in ("pkg/up", "pkg/here", "dup.py"):
        assert "not followed" in r[path], (path, r[path])
    # nothing behind a link was indexed
    assert set(g.files) == set(GOOD)
    assert not any("ext" in s.qualname or "hidden" in s.qualname for s in g.symbols)
    assert_good_indexed(g)


def test_directory_symlink_loop_is_recorded(make_repo):
    root = make_repo(GOOD)
    os.symlink("dir_b", root / "dir_a")
    os.symlink("dir_a", root / "dir_b")
    g = CodebaseGraph.from_repo(root)
    assert_good_indexed(g)  # never fatal (this part holds today)
    r = reasons(g)
    assert "loop" in r.get("dir_a", "") and "loop" in r.get("dir_b", "")


def test_symlinked_root_is_fine(linked_repo, tmp_path):
    alias = tmp_path / "alias_of_root"
    os.symlink(linked_repo, alias)
    g = CodebaseGraph.from_repo(alias)
    assert set(g.files) == set(GOOD)


def test_everything_at_once_is_never_fatal(linked_repo):
    (linked_repo / "syntax.py").write_text("def (:\n")
    (linked_repo / "bytes.py").write_bytes(b"\xff\xfe\x00x")
    (linked_repo / "nul.py").write_bytes(b"\x00")
    (linked_repo / "big.py").write_text("x = 1\n" * 1000)
    g = CodebaseGraph.from_repo(linked_repo, max_file_bytes=4000)
    r = reasons(g)
    assert {"syntax.py", "bytes.py", "nul.py", "big.py"} <= set(r)
    assert g.stats["files_skipped"] == len(g.skipped) == 13
    assert [s.path for s in g.skipped] == sorted(s.path for s in g.skipped)
    assert_good_indexed(g)


def test_hidden_and_cache_dirs_are_not_indexed(make_repo):
    g = CodebaseGraph.from_repo(make_repo({
        **GOOD,
        ".venv/lib/site.py": "def x():\n    pass\n",
        "pkg/__pycache__/junk.py": "def y():\n    pass\n",
        "notes.txt": "def z(): pass\n",
    }))
    assert set(g.files) == set(GOOD)


def test_missing_root_is_a_clear_error(tmp_path):
    with pytest.raises(NotADirectoryError, match="not a directory"):
        CodebaseGraph.from_repo(tmp_path / "nope")


def test_compile_warnings_never_skip_a_file_nor_leak(make_repo, tmp_path):
    # Invalid escape sequences and `is` with a literal warn at compile time; under
    # warnings-as-errors they must not turn a valid file into a "syntax error".
    import warnings

    root = make_repo({**GOOD, "esc.py": 'def f(x):\n    return "\\*" if x is 1 else "\\d"\n'})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("error")
        g = CodebaseGraph.from_repo(root, cache_dir=tmp_path / "cache")
    assert g.skipped == [] and "esc.py::f" in g.index
    assert caught == []
    assert_good_indexed(g)
