"""Beacon: a reproducible laboratory for code-context retrieval under token budgets."""
__version__ = "0.1.0"
