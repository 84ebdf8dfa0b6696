"""The host's integrity check and cleanup on a checkout the code under test has made hostile (red-team F6-F8).

Without the sandbox the checkout is writable, so after a run it may hold a FIFO, a link, a huge sparse file, a
tree deeper than Python's recursion limit or a name that is not UTF-8 where a control file belongs. Each must read
as a changed control file, quickly, without blocking, following the link, reading the file or crashing.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from beacon.repair.controls import protected_changes, snapshot_protected
from beacon.repair.process import remove_tree


@pytest.fixture
def pristine(tmp_path):
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")
    (root / "tests" / "conftest.py").write_text("")
    return root, snapshot_protected(root, extra=["tests/test_a.py"])


def changes_within(root, protected, seconds=5.0):
    start = time.monotonic()
    found = protected_changes(root, protected)
    assert time.monotonic() - start < seconds
    return found


def test_a_fifo_in_place_of_a_conftest_is_named_not_opened(pristine):
    root, protected = pristine
    (root / "tests" / "conftest.py").unlink()
    os.mkfifo(root / "tests" / "conftest.py")  # opening it for reading would block forever
    [found] = changes_within(root, protected)
    assert found.startswith("tests/conftest.py was modified: not a regular file (p")


def test_a_link_or_a_huge_sparse_file_is_named_not_read(pristine, tmp_path):
    root, protected = pristine
    secret = tmp_path / "host-secret"
    secret.write_text("")  # same bytes as the pristine conftest: followed, the link would hash equal
    (root / "tests" / "conftest.py").unlink()
    (root / "tests" / "conftest.py").symlink_to(secret)
    with open(root / "tests" / "test_a.py", "r+b") as fh:
        fh.truncate(1 << 40)  # 1 TiB, sparse: hashing it would take hours
    found = changes_within(root, protected)
    assert found[0].startswith("tests/conftest.py was modified: not a regular file (l")
    assert found[1] == f"tests/test_a.py was modified: too large ({1 << 40} bytes)"


def test_a_deep_tree_and_a_name_that_is_not_utf8_neither_crash_nor_reach_a_row(pristine):
    root, protected = pristine
    deep = root / "tests"
    for _ in range(1200):  # deeper than the recursion limit of os.walk, os.makedirs and shutil.rmtree
        deep = deep / "d"
        deep.mkdir()
    (deep / "conftest.py").write_text("")
    odd = os.fsencode(root / "tests") + b"/\xff"
    os.mkdir(odd)
    open(odd + b"/conftest.py", "w").close()
    found = changes_within(root, protected)
    assert f"tests/{'d/' * 1200}conftest.py was added (pytest would load it)" in found
    assert "tests/\\xff/conftest.py was added (pytest would load it)" in found
    json.dumps(found).encode("utf-8")  # every message is valid UTF-8 (rows are canonical JSON)
    remove_tree(root)  # shutil.rmtree alone raises RecursionError here
    assert not root.exists()
