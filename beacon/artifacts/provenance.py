"""What code and which packages produced a run: git commit + dirty flag, installed versions."""
from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from .errors import CodeStateError

# git must not prompt, read user config, or take the index lock (runs in a
# sweep call this concurrently on the same checkout).
_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}


def _git(repo_root: Path, *args: str) -> str:
    cmd = ["git", "-C", str(repo_root), *args]
    try:
        proc = subprocess.run(cmd, capture_output=True, env={**os.environ, **_GIT_ENV})
    except FileNotFoundError:
        raise CodeStateError(f"{repo_root}: git is not installed; cannot record the code commit") from None
    if proc.returncode != 0:
        raise CodeStateError(f"{repo_root}: `{' '.join(cmd[3:])}` failed: "
                             f"{proc.stderr.decode(errors='replace').strip()} "
                             "(expected a git checkout with at least one commit)")
    return proc.stdout.decode()


def code_state(repo_root: Path | str) -> dict[str, object]:
    """``{"commit": <40-hex HEAD>, "dirty": bool}`` for the checkout at ``repo_root``.

    ``dirty`` means uncommitted changes (staged or not) to *tracked* files;
    untracked files (outputs, caches) do not count. Raises ``CodeStateError``
    when ``repo_root`` is not a git checkout: an unknown commit is recorded
    only if the caller decides so explicitly.
    """
    root = Path(repo_root)
    commit = _git(root, "rev-parse", "--verify", "HEAD").strip()
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": bool(status.strip())}


def package_versions(names: Iterable[str]) -> dict[str, str | None]:
    """Installed version of each distribution name, sorted by name; ``None`` for one not installed.

    A missing optional package (an extra that this run does not use) is a
    fact worth recording, not an error.
    """
    versions: dict[str, str | None] = {}
    for name in sorted(set(names)):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions
