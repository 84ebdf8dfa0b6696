"""The TMPDIR guard of ``tests/conftest.py`` (see its docstring), run on a small suite in a real pytest subprocess
on two xdist workers: a test that leaves a ``beacon-*`` folder fails the session and is named; nothing is left."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SUITE = {
    "test_clean.py": """
import tempfile

def test_clean_a():
    with tempfile.TemporaryDirectory(prefix="beacon-fine-"):
        pass

def test_clean_b():
    pass
""",
    "test_leaky.py": """
import tempfile

def test_leaves_a_folder():
    tempfile.mkdtemp(prefix="beacon-junit-")
""",
}


def suite(tmp_path: Path, files: dict[str, str]) -> subprocess.CompletedProcess:
    pytest.importorskip("xdist")
    tests = tmp_path / "suite"
    tests.mkdir()
    shutil.copy(ROOT / "tests" / "conftest.py", tests / "conftest.py")
    for name, text in files.items():
        (tests / name).write_text(text)
    outer = tmp_path / "outer"
    outer.mkdir()
    env = {**os.environ, "TMPDIR": str(outer), "PYTHONPATH": str(ROOT)}
    for name in ("PYTEST_DEBUG_TEMPROOT", "BEACON_TESTS_OUTER_TMPDIR"):
        env.pop(name, None)
    env.pop("PYTEST_ADDOPTS", None)
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", str(tests)],
                         cwd=tests, env=env, capture_output=True, text=True, timeout=300)
    # The guard's folders are gone, and so is anything left in them; pytest's own tmp_path root stays.
    assert sorted(p.name for p in outer.iterdir() if not p.name.startswith("pytest-of-")) == [], out.stdout
    return out


def test_a_leaking_test_fails_the_session_and_is_named(tmp_path):
    out = suite(tmp_path, SUITE)
    assert out.returncode == 1, out.stdout
    assert "3 passed, 1 error" in out.stdout, out.stdout[-3000:]
    assert "1 temporary folder(s) left in TMPDIR" in out.stdout
    assert "(first seen after test_leaky.py::test_leaves_a_folder)" in out.stdout

