"""Typed errors for model edits: a bad answer is a scored outcome, never a crash."""
from __future__ import annotations


class EditError(ValueError):
    """A model's edit could not be used; the message says what to fix."""


class EditParseError(EditError):
    """The answer text is not a well-formed edit in the requested format."""


class EditApplyError(EditError):
    """The edit is well-formed but does not fit the files it targets."""


class EditSyntaxError(EditError):
    """The edited Python file does not compile."""
