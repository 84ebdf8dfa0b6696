"""The one exception of a paper build: the runs given to it cannot be used as they are."""
from __future__ import annotations


class BuildInputError(Exception):
    """The runs given to the build cannot be used as they are; the message says what to do."""
