"""Shared fixtures for retrieval tests: small real repositories (plain trees or git histories) in tmp dirs."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from beacon.graph import CodebaseGraph


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def git(root: Path, *args: str, when: int = 0) -> str:
    """Run git in ``root`` with a fixed identity and a clock ``when`` minutes after a fixed epoch."""
    stamp = f"{1_700_000_000 + when * 60} +0000"
    env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp, "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_CONFIG_NOSYSTEM": "1"}
    out = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, env=env,
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def commit(root: Path, files: dict[str, str], message: str, when: int) -> str:
    """Write ``files``, commit them with ``message`` at minute ``when``; the new commit's hash."""
    write_tree(root, files)
    git(root, "add", *files, when=when)
    git(root, "commit", "-q", "-m", message, when=when)
    return git(root, "rev-parse", "HEAD")


@pytest.fixture(scope="session")
def graph_of(tmp_path_factory):
    """``graph_of(files, name)``: the graph of a fresh tree holding ``files``."""

    def build(files: dict[str, str], name: str = "repo") -> CodebaseGraph:
        return CodebaseGraph.from_repo(write_tree(tmp_path_factory.mktemp(name), files))

    return build


@pytest.fixture(scope="session")
def git_repo():
    """``git_repo.init(root)``, ``git_repo.commit(root, files, message, when)``, ``git_repo.git(root, *args)``."""

    class GitRepo:
        @staticmethod
        def init(root: Path) -> Path:
            root.mkdir(parents=True, exist_ok=True)
            git(root, "init", "-q")
            return root

        git = staticmethod(git)
        commit = staticmethod(commit)

    return GitRepo
