"""Task manifests (repair tasks); later: query builders and mutation operators."""
from .manifest import ManifestError, Task, TestCommand, load_manifest, parse_test_command, repo_resolver

__all__ = ["ManifestError", "Task", "TestCommand", "load_manifest", "parse_test_command", "repo_resolver"]
