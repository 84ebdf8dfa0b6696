"""Data types and their parsers, low in the stack: task manifests, queries, unified diffs.

Nothing here imports a pipeline package (graph, retrieval, repair, localize,
tasks); the pipeline and the task producers import from here.
"""
from .manifest import ManifestError, Task, TestCommand, load_manifest, parse_test_command, repo_resolver
from .queries import QUERY_TYPES, Query, build_query

__all__ = ["QUERY_TYPES", "Query", "build_query", "ManifestError", "Task", "TestCommand", "load_manifest", "parse_test_command", "repo_resolver"]
