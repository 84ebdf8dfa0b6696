"""Pinned snapshots: a git repository (working tree, bare or bundle) at a commit -> a fresh tree."""
from .git import GitError, GitSource, open_source
from .snapshot import materialize, replace_line

__all__ = ["GitError", "GitSource", "materialize", "open_source", "replace_line"]
