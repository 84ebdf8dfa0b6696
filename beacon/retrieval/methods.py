"""Imports every built-in method module so that the registry is complete."""
from . import bca, hashed, lexical, oracle  # noqa: F401
