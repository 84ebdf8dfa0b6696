"""Read-only access to a git repository given as a working tree, a bare repository or a bundle.

Only the object database is read (``git --git-dir=…``): never the caller's
working tree, index or checked-out branch. A bundle cannot be read in place,
so it is cloned once (``--bare``, ``--mirror`` semantics) into a cache folder
keyed by the bundle's SHA-256; the bundle itself is never modified.
"""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..digests import sha256_file

FULL_HASH = re.compile(r"[0-9a-f]{40}")
# git must never prompt, read the user's config, or pick up hooks.
_GIT_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "LC_ALL": "C",
}


class GitError(RuntimeError):
    """A git command failed or a commit/path does not exist."""


def run_git(args: list[str], *, git_dir: Path | None = None, input: bytes | None = None,
            cwd: Path | str | None = None) -> bytes:
    cmd = ["git"] + ([f"--git-dir={os.path.abspath(git_dir)}"] if git_dir else []) + args
    if cwd is None and git_dir is not None and os.path.isdir(git_dir):
        # git reads .gitattributes from the current directory even with --git-dir: run inside the
        # object database so a caller's working directory cannot change diffs, numstat or blame.
        cwd = git_dir
    env = {**os.environ, **_GIT_ENV}
    proc = subprocess.run(cmd, input=input, capture_output=True, env=env, cwd=cwd)
    if proc.returncode != 0:
        raise GitError(f"{' '.join(cmd)}: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


@dataclass(frozen=True)
class GitSource:
    """A repository's object database, addressed by ``--git-dir``."""

    git_dir: Path
    origin: Path  # what the user pointed at (tree, bare repo or bundle)

    def resolve_commit(self, commit: str) -> str:
        """The full hash of ``commit`` (which must exist as a commit)."""
        out = run_git(["rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"], git_dir=self.git_dir)
        return out.decode().strip()

    def has_commit(self, commit: str) -> bool:
        try:
            self.resolve_commit(commit)
            return True
        except GitError:
            return False

    def read_file(self, commit: str, path: str) -> bytes:
        try:
            return run_git(["cat-file", "blob", f"{commit}:{path}"], git_dir=self.git_dir)
        except GitError:
            raise GitError(f"{self.origin}: no file {path!r} at commit {commit}") from None

    def archive(self, commit: str) -> bytes:
        """``git archive`` of ``commit`` as an uncompressed tar."""
        return run_git(["archive", "--format=tar", commit], git_dir=self.git_dir)


def open_source(path: Path | str, *, cache_dir: Path | str | None = None) -> GitSource:
    """Open a working tree, a bare repository or a ``.bundle`` file read-only."""
    path = Path(path).resolve()
    if path.is_file():
        cache = Path(cache_dir) if cache_dir else Path(tempfile.gettempdir()) / "beacon-bundles"
        target = cache / f"{path.stem}-{sha256_file(path)[:16]}.git"
        if not (target / "HEAD").exists():
            cache.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(dir=cache, prefix=".clone-"))
            try:
                run_git(["clone", "--quiet", "--mirror", str(path), str(tmp / "repo.git")])
                os.replace(tmp / "repo.git", target)
            except OSError:
                if not (target / "HEAD").exists():  # lost a race with another process: fine
                    raise
            finally:
                subprocess.run(["rm", "-rf", str(tmp)], check=False)
        return GitSource(target, path)
    if (path / ".git").exists():
        git_dir = Path(run_git(["rev-parse", "--absolute-git-dir"], git_dir=path / ".git").decode().strip())
        return GitSource(git_dir, path)
    if (path / "HEAD").is_file() and (path / "objects").is_dir():
        return GitSource(path, path)
    raise GitError(f"{path}: not a git working tree, bare repository or bundle")
