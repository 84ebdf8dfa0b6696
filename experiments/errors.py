"""Errors Beacon can name, and how each is told to a person: one line, what and where.

An error is *named* when Beacon knows what went wrong and where (a config
key, a file:line:column, a record field): a misspelt key, an unknown method,
a negative budget, a missing manifest field, a path that does not exist.
Entry points print a named error as a single line on stderr and exit with
status 2; anything else is a bug and keeps its traceback
(``experiments.cli``). ``HYDRA_FULL_ERROR=1`` shows the traceback of both.
"""
from __future__ import annotations

import dataclasses
import difflib
import os
from pathlib import Path


class UsageError(ValueError):
    """A wrong input, described by its message alone (key or file:line:column, value, what was expected)."""


def named_errors() -> tuple[type[BaseException], ...]:
    """The exception types whose message names what and where (imported lazily: the list spans the core)."""
    from omegaconf.errors import OmegaConfBaseException

    from beacon.artifacts.errors import ArtifactError
    from beacon.localize.instances import InstanceError
    from beacon.retrieval.registry import UnknownMethodError
    from beacon.data.manifest import ManifestError

    return (UsageError, OmegaConfBaseException, ManifestError, InstanceError, UnknownMethodError, ArtifactError)


def is_named(exc: BaseException) -> bool:
    return isinstance(exc, named_errors())


def full_error() -> bool:
    """Whether the user asked for every traceback (Hydra's own switch, so one variable serves both)."""
    return os.environ.get("HYDRA_FULL_ERROR", "") not in ("", "0")


def one_line(exc: BaseException) -> str:
    """``exc`` as one line: OmegaConf errors name the config key and the keys it expected."""
    from omegaconf.errors import ConfigKeyError, OmegaConfBaseException

    if isinstance(exc, OmegaConfBaseException):
        key = getattr(exc, "full_key", None) or getattr(exc, "key", None)
        first = str(getattr(exc, "msg", None) or exc).splitlines()[0].strip()
        text = f"config key '{key}': {first}" if key else first
        obj = getattr(exc, "object_type", None)
        if isinstance(exc, ConfigKeyError) and obj is not None and dataclasses.is_dataclass(obj):
            known = [f.name for f in dataclasses.fields(obj)]
            close = difflib.get_close_matches(str(getattr(exc, "key", "")), known, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            text += f"; {hint}expected one of: {', '.join(known)}"
        return text
    message = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    # Multi-line messages (e.g. a subprocess's stderr) are folded, never cut: the line must still say it all.
    return " | ".join(part.strip() for part in message.splitlines() if part.strip()) or type(exc).__name__


def require_path(key: str, value: str | None, resolved: Path, *, kind: str = "file", hint: str = "") -> Path:
    """``resolved`` (the config ``key``'s value made absolute) must exist as a ``kind``; else a UsageError naming the key."""
    ok = resolved.is_file() if kind == "file" else resolved.is_dir()
    if not ok:
        where = f"{value!r}" + (f" (resolved to {resolved})" if str(resolved) != str(value) else "")
        exists = " exists but is not a " + kind if resolved.exists() else " does not exist"
        raise UsageError(f"{key}={where}:{exists}; expected an existing {kind}{hint}")
    return resolved
