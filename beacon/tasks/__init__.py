"""Task manifests (repair tasks); later: query builders and mutation operators."""
from .manifest import ManifestError, Task, TestCommand, load_manifest, parse_test_command, repo_resolver
from .queries import QUERY_TYPES, Query, build_query

__all__ = ["QUERY_TYPES", "Query", "build_query", "ManifestError", "Task", "TestCommand", "load_manifest", "parse_test_command", "repo_resolver"]
