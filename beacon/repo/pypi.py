"""Pinned PyPI sdists as reproducible git repositories.

A pin is ``name==version`` plus the SHA-256 of its sdist. The sdist is fetched
with pip into a cache directory (default ``~/.cache/beacon/sdists``); a cached
file with the pinned hash is reused without any network. pip runs in
hash-checking mode (``--require-hashes``), so an archive with another hash is
refused before anything inside it is read or executed. pip cannot download an
sdist without preparing its metadata: it runs the sdist's PEP 517
``prepare_metadata_for_build_wheel`` hook in an isolated build environment
(fetching the build backend, e.g. ``flit_core``, from the same index); no
wheel is built and nothing is installed.

The archive is then imported, never extracted, into a bare repository
``<repos_dir>/<name>.git`` as one commit tagged ``<version>``: members are
read from the tar stream and streamed to ``git fast-import`` in sorted path
order, the single top-level directory stripped, modes normalised to
100644/100755 (symlinks 120000), with a fixed author, committer, date and
message and no user or system git config. The commit hash therefore depends
only on the archive's paths, bytes and executable bits, so it can be pinned
in a task manifest. Unsafe members (absolute paths, ``..``, ``.git``, links
leaving the tree, devices) are refused.
"""
from __future__ import annotations

import fcntl
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from ..digests import sha256_file
from .git import _GIT_ENV, GitError, run_git

DEFAULT_CACHE = Path("~/.cache/beacon/sdists")
MAX_UNPACKED_BYTES = 1 << 30  # an sdist larger than this unpacked is refused (archive bomb)
_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_VERSION = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.+!_-]*[A-Za-z0-9])?")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_IDENTITY = "Beacon <beacon@localhost> 946684800 +0000"  # 2000-01-01T00:00:00Z: fixed, so commits reproduce


class SdistError(RuntimeError):
    """An sdist could not be fetched or imported."""


class SdistHashMismatch(SdistError):
    def __init__(self, pin: "SdistPin", actual: str | None, where: str):
        self.pin, self.expected, self.actual = pin, pin.sha256, actual
        super().__init__(f"{pin}: sdist sha256 mismatch ({where}): expected {pin.sha256}, got {actual or 'unknown'}; "
                         "the file was not used or kept")


class UnsafeArchiveError(SdistError):
    """An archive member would land outside the tree or is not a plain file, directory or inner link."""


class PinConflictError(SdistError):
    """The repository already holds this version, imported from a different sdist."""


@dataclass(frozen=True)
class SdistPin:
    name: str
    version: str
    sha256: str

    def __post_init__(self) -> None:
        for field, value, pattern, expected in (
            ("name", self.name, _NAME, "a PyPI project name (letters, digits, '.', '_', '-')"),
            ("version", self.version, _VERSION, "a release version such as 26.2.0"),
            ("sha256", self.sha256, _SHA256, "64 lowercase hex digits (the sdist's SHA-256 on PyPI)"),
        ):
            if not isinstance(value, str) or not pattern.fullmatch(value) or ".." in value:
                raise ValueError(f"pypi pin field '{field}': expected {expected}, got {value!r}")

    def __str__(self) -> str:
        return f"{self.name}=={self.version}"

    @property
    def message(self) -> str:
        """The fixed commit message; it records the sdist hash the tree came from."""
        return f"{self} from its PyPI sdist\n\nsdist-sha256: {self.sha256}\n"


def _cached_names(pin: SdistPin) -> list[str]:
    stems = {pin.name, pin.name.lower(), re.sub(r"[-_.]+", "_", pin.name).lower(), pin.name.replace("-", "_")}
    return [f"{stem}-{pin.version}{ext}" for stem in sorted(stems) for ext in (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")]


def cached_sdist(pin: SdistPin, cache_dir: Path | str | None = None) -> Path | None:
    """The sdist of ``pin`` already in the cache with the pinned hash, else ``None`` (never downloads)."""
    cache = Path(cache_dir or DEFAULT_CACHE).expanduser()
    for name in _cached_names(pin):
        if (cache / name).is_file() and sha256_file(cache / name) == pin.sha256:
            return cache / name
    return None


def fetch_sdist(pin: SdistPin, cache_dir: Path | str | None = None, *, pip_args: Sequence[str] = (),
                python: str | None = None) -> Path:
    """The verified sdist of ``pin`` in ``cache_dir``, downloaded with pip only when not cached.

    ``pip_args`` are appended to ``pip download`` (e.g. ``--no-index --find-links DIR``).
    A cached file under the pin's name with another hash is removed and fetched again.
    """
    cache = Path(cache_dir if cache_dir is not None else DEFAULT_CACHE).expanduser()
    cache.mkdir(parents=True, exist_ok=True)
    for name in _cached_names(pin):
        candidate = cache / name
        if candidate.is_file():
            if sha256_file(candidate) == pin.sha256:
                return candidate
            candidate.unlink()  # not the pinned archive: never used, never kept
    tmp = Path(tempfile.mkdtemp(dir=cache, prefix=".pip-"))
    try:
        req = tmp / "requirements.txt"
        req.write_text(f"{pin.name}=={pin.version} --hash=sha256:{pin.sha256}\n", encoding="utf-8")
        out = tmp / "download"
        cmd = [python or sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", pin.name,
               "--require-hashes", "--disable-pip-version-check", "-r", str(req), "-d", str(out), *pip_args]
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
        if proc.returncode != 0:
            got = re.search(r"\bGot\s+([0-9a-f]{64})", proc.stderr + proc.stdout)
            if got or "DO NOT MATCH THE HASHES" in proc.stderr:
                raise SdistHashMismatch(pin, got.group(1) if got else None, "pip download")
            tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-8:])
            raise SdistError(f"{pin}: pip download failed (exit {proc.returncode}):\n{tail}")
        files = sorted(out.iterdir()) if out.is_dir() else []
        if len(files) != 1 or not files[0].name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")):
            raise SdistError(f"{pin}: expected pip to save one sdist tarball, got {[f.name for f in files]}")
        actual = sha256_file(files[0])
        if actual != pin.sha256:  # pip checked already; a second look costs nothing
            raise SdistHashMismatch(pin, actual, str(files[0].name))
        target = cache / files[0].name
        os.replace(files[0], target)
        return target
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@dataclass(frozen=True)
class _Entry:
    path: str  # relative to the stripped top-level directory
    mode: str  # git mode
    data: bytes


def _clean_name(raw: str, archive: Path) -> list[str]:
    if raw.startswith("/") or "\\" in raw or any(ord(c) < 32 or ord(c) == 127 for c in raw):
        raise UnsafeArchiveError(f"{archive}: member {raw!r}: absolute path, backslash or control character")
    parts = [p for p in raw.split("/") if p not in ("", ".")]
    if ".." in parts or any(p.lower() == ".git" for p in parts):
        raise UnsafeArchiveError(f"{archive}: member {raw!r}: '..' or '.git' path component")
    return parts


def read_archive(archive: Path | str) -> list[_Entry]:
    """The files of an sdist tarball below its single top-level directory, sorted by path, all checked."""
    archive = Path(archive)
    entries: dict[str, _Entry] = {}
    tops: set[str] = set()
    total = 0
    try:
        tar = tarfile.open(archive, mode="r:*")
    except (tarfile.TarError, OSError) as exc:
        raise SdistError(f"{archive}: not a readable tar archive: {exc}") from None
    with tar:
        for member in tar:
            parts = _clean_name(member.name, archive)
            if not parts:
                continue
            tops.add(parts[0])
            if len(tops) > 1:
                raise UnsafeArchiveError(f"{archive}: more than one top-level entry ({', '.join(sorted(tops))})")
            rel = "/".join(parts[1:])
            if not rel:
                if not member.isdir():
                    raise UnsafeArchiveError(f"{archive}: top-level entry {member.name!r} is not a directory")
                continue
            if member.isdir():
                continue
            if member.issym():
                target = member.linkname
                joined = posixpath.normpath(posixpath.join(posixpath.dirname(rel), target))
                if target.startswith("/") or joined == ".." or joined.startswith("../"):
                    raise UnsafeArchiveError(f"{archive}: symlink {member.name!r} -> {target!r} leaves the tree")
                entry = _Entry(rel, "120000", target.encode("utf-8", "surrogateescape"))
            elif member.islnk():
                linked = "/".join(_clean_name(member.linkname, archive)[1:])
                if linked not in entries or entries[linked].mode == "120000":
                    raise UnsafeArchiveError(f"{archive}: hard link {member.name!r} -> {member.linkname!r} "
                                             "does not name an earlier regular file of the tree")
                entry = _Entry(rel, entries[linked].mode, entries[linked].data)
            elif member.isreg():
                total += member.size
                if total > MAX_UNPACKED_BYTES:
                    raise UnsafeArchiveError(f"{archive}: unpacks to more than {MAX_UNPACKED_BYTES} bytes")
                data = tar.extractfile(member).read()
                entry = _Entry(rel, "100755" if member.mode & 0o111 else "100644", data)
            else:
                raise UnsafeArchiveError(f"{archive}: member {member.name!r} is a device, fifo or other special file")
            if rel in entries:
                raise UnsafeArchiveError(f"{archive}: member {member.name!r} appears twice")
            entries[rel] = entry
    if not entries:
        raise SdistError(f"{archive}: no files below a top-level directory")
    return [entries[p] for p in sorted(entries)]


def _fast_import_stream(entries: Iterable[_Entry], ref: str, message: str) -> Iterable[bytes]:
    msg = message.encode("utf-8")
    yield (f"commit {ref}\nauthor {_IDENTITY}\ncommitter {_IDENTITY}\ndata {len(msg)}\n").encode() + msg + b"\n"
    for e in entries:
        quoted = '"' + e.path.replace('"', '\\"') + '"'
        yield f"M {e.mode} inline ".encode() + quoted.encode("utf-8", "surrogateescape") + b"\n"
        yield f"data {len(e.data)}\n".encode() + e.data + b"\n"
    yield b"\ndone\n"


def import_archive(archive: Path | str, git_dir: Path | str, ref: str, message: str) -> str:
    """Commit the sdist's tree to ``ref`` of the bare repository ``git_dir`` (created if needed)."""
    entries = read_archive(archive)
    git_dir = Path(git_dir)
    if not (git_dir / "HEAD").is_file():
        run_git(["init", "--quiet", "--bare", "--template=", str(git_dir)])
    env = {**os.environ, **_GIT_ENV}
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(["git", f"--git-dir={git_dir}", "fast-import", "--quiet", "--done"],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err, env=env)
        try:
            for chunk in _fast_import_stream(entries, ref, message):
                proc.stdin.write(chunk)
        except BrokenPipeError:
            pass  # the exit status and stderr below say why
        finally:
            proc.stdin.close()
        if proc.wait() != 0:
            err.seek(0)
            raise GitError(f"{git_dir}: git fast-import of {archive} failed: {err.read().decode(errors='replace')}")
    return run_git(["rev-parse", "--verify", f"{ref}^{{commit}}"], git_dir=git_dir).decode().strip()


def materialize_pin(pin: SdistPin, repos_dir: Path | str, *, cache_dir: Path | str | None = None,
                    pip_args: Sequence[str] = (), python: str | None = None) -> tuple[Path, str]:
    """``(repos_dir/<name>.git, commit)`` for ``pin``; a repeated call returns at once, offline."""
    repos = Path(repos_dir)
    repos.mkdir(parents=True, exist_ok=True)
    git_dir = repos / f"{pin.name}.git"
    ref = f"refs/tags/{pin.version}"
    # Parallel jobs of one sweep materialize the same pins: one at a time per repository.
    with open(repos / f".{pin.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (git_dir / "HEAD").is_file():
            try:
                commit = run_git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], git_dir=git_dir).decode().strip()
            except GitError:
                commit = None
            if commit:
                body = run_git(["cat-file", "commit", commit], git_dir=git_dir).decode("utf-8", "replace")
                if f"\nsdist-sha256: {pin.sha256}\n" not in body:
                    raise PinConflictError(f"{git_dir}: tag {pin.version} was imported from a different sdist than "
                                           f"{pin} sha256 {pin.sha256}; remove {git_dir} to re-import")
                return git_dir, commit
        archive = fetch_sdist(pin, cache_dir, pip_args=pip_args, python=python)
        commit = import_archive(archive, git_dir, ref, pin.message)
        run_git(["update-ref", "--no-deref", "HEAD", commit], git_dir=git_dir)
        return git_dir, commit


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m beacon.repo.pypi",
                                     description="Materialize a pinned PyPI sdist as a git repository.")
    parser.add_argument("requirement", help="name==version")
    parser.add_argument("--sha256", required=True, help="the sdist's SHA-256")
    parser.add_argument("--repos-dir", required=True, type=Path)
    parser.add_argument("--cache-dir", type=Path, default=None, help=f"sdist cache (default {DEFAULT_CACHE})")
    args = parser.parse_args(argv)
    name, sep, version = args.requirement.partition("==")
    if not sep:
        parser.error(f"requirement {args.requirement!r}: expected name==version")
    try:
        git_dir, commit = materialize_pin(SdistPin(name, version, args.sha256.lower()), args.repos_dir,
                                          cache_dir=args.cache_dir)
    except (ValueError, SdistError, GitError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{git_dir} {commit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
