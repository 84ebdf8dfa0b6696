"""Pinned sdists: real pip (offline, ``--no-index --find-links``), hash checks, safe import, reproducible commits."""
from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.repo.git import open_source, run_git
from beacon.repo.pypi import (PinConflictError, SdistError, SdistHashMismatch, SdistPin, UnsafeArchiveError,
                              _clean_name, fetch_sdist, import_archive, materialize_pin, read_archive)
from beacon.repo.snapshot import materialize

# A PEP 517 backend inside the sdist (backend-path), so pip prepares metadata with no network and no setuptools.
BACKEND = '''import os
def get_requires_for_build_wheel(config_settings=None):
    return []
def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = os.path.join(metadata_directory, "demo-1.0.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w") as fh:
        fh.write("Metadata-Version: 2.1\\nName: demo\\nVersion: 1.0\\n")
    return "demo-1.0.dist-info"
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    raise RuntimeError("tests never build wheels")
'''
FILES = {
    "PKG-INFO": b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n",
    "pyproject.toml": b'[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n',
    "backend.py": BACKEND.encode(),
    "demo/__init__.py": b"def add(a, b):\n    return a + b\n",
    "tests/test_demo.py": b"from demo import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    "run.sh": b"#!/bin/sh\necho demo\n",
}
EXECUTABLE = {"run.sh"}
# FILES imported with the message "fixed\n": pinned, so any change to the import format (identity, date,
# modes, paths) shows up here, as it would change every commit pinned in a manifest.
FIXED_COMMIT = "e6ae79b9ee3b693543c3e11caa17e3e5fee123e4"


def make_sdist(path: Path, *, files: dict[str, bytes] = FILES, top: str = "demo-1.0", mtime: int = 1_700_000_000,
               file_mode: int = 0o644, exec_mode: int = 0o755, uid: int = 1000, reverse: bool = False) -> Path:
    """A gzip tarball laid out like an sdist; mtimes, owners, permission bits and member order are parameters."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tar:
        names = sorted(files, reverse=reverse)
        dirs = sorted({"/".join(n.split("/")[:i]) for n in names for i in range(1, n.count("/") + 1)})
        for member in [top] + [f"{top}/{d}" for d in dirs]:
            info = tarfile.TarInfo(member)
            info.type, info.mode, info.mtime, info.uid = tarfile.DIRTYPE, 0o755, mtime, uid
            tar.addfile(info)
        for name in names:
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size, info.mtime, info.uid, info.uname = len(files[name]), mtime, uid, f"user{uid}"
            info.mode = exec_mode if name in EXECUTABLE else file_mode
            tar.addfile(info, io.BytesIO(files[name]))
    return path


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    """A find-links directory holding demo-1.0.tar.gz (what pip sees instead of an index)."""
    links = tmp_path_factory.mktemp("links")
    make_sdist(links / "demo-1.0.tar.gz")
    return links


def offline(links: Path) -> list[str]:
    return ["--no-index", "--find-links", str(links)]


def pin_for(links: Path) -> SdistPin:
    return SdistPin("demo", "1.0", sha(links / "demo-1.0.tar.gz"))


def test_pip_download_is_hash_checked_and_cached(index, tmp_path):
    pin = pin_for(index)
    cached = fetch_sdist(pin, tmp_path / "cache", pip_args=offline(index))
    assert cached == tmp_path / "cache" / "demo-1.0.tar.gz" and sha(cached) == pin.sha256
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == ["demo-1.0.tar.gz"]  # no pip leftovers
    # Cached: pip is not run again (an empty find-links dir would make it fail).
    empty = tmp_path / "empty"
    empty.mkdir()
    assert fetch_sdist(pin, tmp_path / "cache", pip_args=offline(empty)) == cached


def test_hash_mismatch_names_pin_and_hashes_and_keeps_nothing(index, tmp_path):
    wrong = SdistPin("demo", "1.0", "0" * 64)
    with pytest.raises(SdistHashMismatch) as err:
        fetch_sdist(wrong, tmp_path / "cache", pip_args=offline(index))
    actual = sha(index / "demo-1.0.tar.gz")
    assert err.value.actual == actual and err.value.expected == "0" * 64
    assert "demo==1.0" in str(err.value) and actual in str(err.value) and "0" * 64 in str(err.value)
    assert list((tmp_path / "cache").iterdir()) == []
    with pytest.raises(SdistHashMismatch):
        materialize_pin(wrong, tmp_path / "repos", cache_dir=tmp_path / "cache", pip_args=offline(index))
    assert not (tmp_path / "repos" / "demo.git").exists()


def test_a_cached_file_with_another_hash_is_never_used(index, tmp_path):
    pin = pin_for(index)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "demo-1.0.tar.gz").write_bytes(b"tampered")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SdistError, match="pip download failed"):
        fetch_sdist(pin, cache, pip_args=offline(empty))
    assert not (cache / "demo-1.0.tar.gz").exists()
    (cache / "demo-1.0.tar.gz").write_bytes(b"tampered")
    assert sha(fetch_sdist(pin, cache, pip_args=offline(index))) == pin.sha256


def _materialize_in_subprocess(pin: SdistPin, repos: Path, cache: Path, links: Path, umask: int) -> str:
    code = ("import os, sys; os.umask(int(sys.argv[1]));"
            "from beacon.repo.pypi import SdistPin, materialize_pin;"
            "print(materialize_pin(SdistPin('demo', '1.0', sys.argv[2]), sys.argv[3], cache_dir=sys.argv[4],"
            " pip_args=['--no-index', '--find-links', sys.argv[5]])[1])")
    out = subprocess.run([sys.executable, "-c", code, str(umask), pin.sha256, str(repos), str(cache), str(links)],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_commit_is_reproducible_across_dirs_umask_and_mtimes(index, tmp_path):
    pin = pin_for(index)
    first = _materialize_in_subprocess(pin, tmp_path / "a" / "repos", tmp_path / "a" / "cache", index, 0o022)
    # A second cache whose copy of the same sdist has another mtime; another umask; other directories.
    (tmp_path / "b" / "cache").mkdir(parents=True)
    copy = tmp_path / "b" / "cache" / "demo-1.0.tar.gz"
    copy.write_bytes((index / "demo-1.0.tar.gz").read_bytes())
    os.utime(copy, (1, 1))
    second = _materialize_in_subprocess(pin, tmp_path / "b" / "repos", tmp_path / "b" / "cache", index, 0o077)
    assert first == second
    modes = run_git(["ls-tree", "-r", first], git_dir=tmp_path / "a" / "repos" / "demo.git").decode()
    assert "100755 blob" in next(line for line in modes.splitlines() if line.endswith("\trun.sh"))
    assert {line.split()[0] for line in modes.splitlines()} == {"100644", "100755"}


def test_tree_ignores_archive_mtimes_owners_group_bits_and_order(tmp_path):
    a = make_sdist(tmp_path / "a.tar.gz")
    b = make_sdist(tmp_path / "b.tar.gz", mtime=42, uid=0, file_mode=0o664, exec_mode=0o775, reverse=True)
    c = make_sdist(tmp_path / "c.tar.gz", file_mode=0o600, exec_mode=0o700)  # owner-only bits: same modes
    assert len({sha(a), sha(b), sha(c)}) == 3
    commits = {import_archive(p, tmp_path / f"{p.stem}.git", "refs/tags/1.0", "fixed\n") for p in (a, b, c)}
    assert commits == {FIXED_COMMIT}
    changed = make_sdist(tmp_path / "d.tar.gz", files={**FILES, "demo/__init__.py": b"def add(a, b):\n    return a - b\n"})
    assert import_archive(changed, tmp_path / "d.git", "refs/tags/1.0", "fixed\n") not in commits


def test_second_call_is_idempotent_and_offline(index, tmp_path):
    pin = pin_for(index)
    git_dir, commit = materialize_pin(pin, tmp_path / "repos", cache_dir=tmp_path / "cache", pip_args=offline(index))
    (tmp_path / "cache" / "demo-1.0.tar.gz").unlink()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert materialize_pin(pin, tmp_path / "repos", cache_dir=tmp_path / "cache",
                           pip_args=offline(empty)) == (git_dir, commit)
    assert run_git(["rev-parse", "refs/tags/1.0", "HEAD"], git_dir=git_dir).decode().split() == [commit, commit]
    # The same version from another archive is a conflict, not a silent second tree.
    other = tmp_path / "other"
    make_sdist(other / "demo-1.0.tar.gz", files={**FILES, "extra.txt": b"x\n"})
    with pytest.raises(PinConflictError, match="different sdist"):
        materialize_pin(pin_for(other), tmp_path / "repos", cache_dir=tmp_path / "cache2", pip_args=offline(other))


def test_materialized_repo_opens_and_snapshots_and_its_tests_run(index, tmp_path):
    pin = pin_for(index)
    git_dir, commit = materialize_pin(pin, tmp_path / "repos", cache_dir=tmp_path / "cache", pip_args=offline(index))
    source = open_source(git_dir)
    assert source.resolve_commit("1.0") == commit
    tree = materialize(source, commit, tmp_path / "tree")
    got = {p.relative_to(tree).as_posix(): p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    assert got == FILES
    assert os.access(tree / "run.sh", os.X_OK) and not os.access(tree / "demo" / "__init__.py", os.X_OK)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=tree,
                         capture_output=True, text=True)
    assert run.returncode == 0 and "1 passed" in run.stdout


def _tar_with(path: Path, *members: tuple[tarfile.TarInfo, bytes | None]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        top = tarfile.TarInfo("demo-1.0")
        top.type = tarfile.DIRTYPE
        tar.addfile(top)
        ok = tarfile.TarInfo("demo-1.0/ok.py")
        ok.size = 2
        tar.addfile(ok, io.BytesIO(b"x\n"))
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _info(name: str, type_: bytes = tarfile.REGTYPE, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = type_, linkname
    return info


UNSAFE = {
    "absolute": (_info("/etc/evil"), b"x"),
    "dotdot": (_info("demo-1.0/../evil.py"), b"x"),
    "dotgit": (_info("demo-1.0/.git/config"), b"x"),
    "symlink_out": (_info("demo-1.0/link", tarfile.SYMTYPE, "../../etc/passwd"), None),
    "symlink_abs": (_info("demo-1.0/link", tarfile.SYMTYPE, "/etc/passwd"), None),
    "hardlink_out": (_info("demo-1.0/hard", tarfile.LNKTYPE, "/etc/passwd"), None),
    "hardlink_missing": (_info("demo-1.0/hard", tarfile.LNKTYPE, "demo-1.0/nope.py"), None),
    "device": (_info("demo-1.0/dev", tarfile.CHRTYPE), None),
    "fifo": (_info("demo-1.0/fifo", tarfile.FIFOTYPE), None),
    "second_top": (_info("other-1.0/x.py"), b"x"),
    "duplicate": (_info("demo-1.0/ok.py"), b"y"),
    "control_char": (_info("demo-1.0/a\nb.py"), b"x"),
}


@pytest.mark.parametrize("case", sorted(UNSAFE))
def test_unsafe_members_are_refused(case, tmp_path):
    archive = _tar_with(tmp_path / "bad.tar.gz", UNSAFE[case])
    with pytest.raises(UnsafeArchiveError):
        import_archive(archive, tmp_path / "demo.git", "refs/tags/1.0", "fixed\n")
    assert not (tmp_path / "demo.git").exists()


def test_links_inside_the_tree_are_kept(tmp_path):
    archive = _tar_with(tmp_path / "ok.tar.gz", (_info("demo-1.0/sub/link.py", tarfile.SYMTYPE, "../ok.py"), None),
                        (_info("demo-1.0/hard.py", tarfile.LNKTYPE, "demo-1.0/ok.py"), None))
    entries = {e.path: (e.mode, e.data) for e in read_archive(archive)}
    assert entries == {"ok.py": ("100644", b"x\n"), "hard.py": ("100644", b"x\n"), "sub/link.py": ("120000", b"../ok.py")}


SEGMENT = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF, blacklist_characters="/\\\x7f"), min_size=1,
                  max_size=8).filter(lambda s: s not in (".", "..") and s.lower() != ".git")


@settings(max_examples=200, deadline=None)
@given(st.lists(SEGMENT, min_size=1, max_size=5), st.integers(0, 5))
def test_member_names_split_and_dotdot_anywhere_is_refused(parts, where):
    assert _clean_name("/".join(parts), Path("x.tar.gz")) == parts
    assert _clean_name("./" + "//".join(parts) + "/", Path("x.tar.gz")) == parts
    bad = parts[:where] + [".."] + parts[where:]
    with pytest.raises(UnsafeArchiveError):
        _clean_name("/".join(bad), Path("x.tar.gz"))


@pytest.mark.parametrize("field,kwargs", [
    ("sha256", {"sha256": "ABC"}), ("sha256", {"sha256": "D" * 64}), ("name", {"name": "bad name"}),
    ("version", {"version": "1..0"}), ("version", {"version": "1.0 ; rm"}), ("name", {"name": ""}),
])
def test_bad_pins_name_the_field(field, kwargs):
    with pytest.raises(ValueError, match=f"field '{field}'"):
        SdistPin(**{"name": "demo", "version": "1.0", "sha256": "a" * 64, **kwargs})
