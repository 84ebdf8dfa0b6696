"""Imports every built-in method module so that the registry is complete."""
from . import bca, hashed, lexical, oracle  # noqa: F401
from . import perron  # noqa: F401
from . import hybrid, repomap  # noqa: F401
from . import history  # noqa: F401
from . import expansion  # noqa: F401
from . import combined, commit_log  # noqa: F401
