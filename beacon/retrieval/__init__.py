"""Retrieval methods behind one registry, and ``assemble_context``."""
from .base import Method, MissingInputError, RankThenPack, RetrievalResult, assemble_context
from .registry import UnknownMethodError, get_method, method_names, register_method

__all__ = ["Method", "MissingInputError", "RankThenPack", "RetrievalResult", "UnknownMethodError",
           "assemble_context", "get_method", "method_names", "register_method"]
