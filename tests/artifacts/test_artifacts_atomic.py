"""Atomic writes (never through a symlink) and safe figure/table labels."""
from __future__ import annotations

import os

import pytest

from beacon.artifacts import atomic_write_bytes, atomic_write_text, safe_label
from beacon.artifacts.atomic import TEMP_PREFIX


def test_writes_and_replaces_without_leftovers(tmp_path):
    path = tmp_path / "out.txt"
    assert atomic_write_text(path, "one\r\n") == path
    assert path.read_bytes() == b"one\r\n"  # newlines written exactly as given
    atomic_write_bytes(path, b"two")
    assert path.read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_new_file_mode_follows_umask(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "f", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "f").stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize("target_kind", ["file", "dangling", "folder"])
def test_symlink_at_destination_is_replaced_not_followed(tmp_path, target_kind):
    target = tmp_path / "target"
    if target_kind == "file":
        target.write_text("precious")
    elif target_kind == "folder":
        target.mkdir()
    link = tmp_path / "out.json"
    link.symlink_to(target)
    atomic_write_text(link, "new")
    assert not link.is_symlink() and link.read_text() == "new"
    if target_kind == "file":
        assert target.read_text() == "precious"
    elif target_kind == "folder":
        assert target.is_dir() and not any(target.iterdir())
    else:
        assert not target.exists()


def test_failures_leave_no_temp_file(tmp_path):
    with pytest.raises(TypeError, match="expects bytes"):
        atomic_write_bytes(tmp_path / "f", "text")
    with pytest.raises(FileNotFoundError, match="create it first"):
        atomic_write_text(tmp_path / "missing" / "f", "x")
    (tmp_path / "dir").mkdir()
    with pytest.raises(IsADirectoryError):
        atomic_write_text(tmp_path / "dir", "x")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(TEMP_PREFIX)]


@pytest.mark.parametrize("label", ["fig_budget-sweep", "table 2.v1", "Abbildung_ü", "a.b"])
def test_safe_labels_pass_unchanged(label):
    assert safe_label(label) == label


@pytest.mark.parametrize("label, reason", [
    ("", "empty"), ("   ", "empty"), ("a/b", "separator"), ("/abs", "separator"), ("a\\b", "separator"),
    ("..", r"'\.\.'"), ("../up", "separator"), ("a..b", r"'\.\.'"), (".", r"'\.'"),
    ("a\x00b", "U\\+0000"), ("tab\tbed", "U\\+0009"), ("new\nline", "U\\+000A"),
    ("rtl\u202eabc", "U\\+202E"), ("x" * 201, "longer than 200"), (None, "must be a str"),
])
def test_unsafe_labels_refused(label, reason):
    with pytest.raises(ValueError, match=reason):
        safe_label(label)
