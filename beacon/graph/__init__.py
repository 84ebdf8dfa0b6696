"""The symbol graph: AST symbols, import-aware edges, CSR storage and a content-hash cache."""
from .build import GraphBuilder, scan
from .codebase import CodebaseGraph, SourceFile
from .symbols import EdgeType, Skipped, Symbol, is_test_path

__all__ = ["CodebaseGraph", "EdgeType", "GraphBuilder", "Skipped", "SourceFile", "Symbol", "is_test_path", "scan"]
