"""What every row type shares: declared field types, absent fields, ``to_json`` and a validating ``from_json``.

A row type is a dataclass whose fields are declared with :func:`need` (a
reader requires the field) or :func:`may` (a field that rows of an earlier
schema, or rows of a task that was never prepared, do not have). An absent
field holds :data:`ABSENT` and is left out of ``to_json()``, so a row read
from disk is written back with exactly the keys it had: ``from_json`` and
``to_json`` are inverses, and the bytes on disk (``RunWriter`` writes
canonical JSON, keys sorted) never depend on the Python side.
"""
from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any, ClassVar


class RecordError(ValueError):
    """A row that is not shaped like its type; the message names the file, line and field."""


class _Absent:
    _instance: ClassVar[_Absent | None] = None

    def __new__(cls) -> _Absent:  # one instance, so ``is ABSENT`` and ``==`` agree after copies
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self):  # pickling (multiprocessing) keeps the singleton
        return (_Absent, ())


ABSENT: Any = _Absent()
NULL = type(None)


def need(*types: type) -> Any:
    """A field every row of the type has; ``types`` are the JSON types its value may take (``NULL`` for null)."""
    return dataclasses.field(metadata={"types": types, "required": True})


def may(*types: type) -> Any:
    """A field a row may lack (left out of ``to_json`` while it holds ``ABSENT``)."""
    return dataclasses.field(default=ABSENT, metadata={"types": types, "required": False})


def type_text(types: tuple[type, ...]) -> str:
    return " or ".join("null" if t is NULL else t.__name__ for t in types)


def check_value(name: str, value: Any, types: tuple[type, ...], where: str) -> Any:
    """``value`` as the field holds it (an Enum member for an Enum type); RecordError when it has another type."""
    for t in types:
        if isinstance(t, type) and issubclass(t, Enum):
            if isinstance(value, str):
                try:
                    return t(value)
                except ValueError:
                    raise RecordError(f"{where}: field '{name}': {value!r} is not one of "
                                      f"{', '.join(m.value for m in t)}") from None
            continue
        if t is float and isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, t) and (t is bool or not isinstance(value, bool)):
            return value
    raise RecordError(f"{where}: field '{name}': expected {type_text(types)}, got {value!r}")


class Row:
    """Base of the row types: ``to_json`` in field order, ``from_json`` that validates."""

    # Shown in the message about a missing field: what the row should look like.
    SHAPE: ClassVar[str] = "a record"

    def to_json(self) -> dict[str, Any]:
        """The row as written to ``records.jsonl`` (absent fields left out, enums as their strings)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is ABSENT:
                continue
            out[f.name] = value.value if isinstance(value, Enum) else value
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "<row>"):
        """The row of ``data``; ``where`` (``file:line``) starts every error message."""
        if not isinstance(data, dict):
            raise RecordError(f"{where}: expected a JSON object, got {type(data).__name__}")
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name not in data:
                if f.metadata["required"]:
                    raise RecordError(f"{where}: field '{f.name}' is missing; expected {cls.SHAPE}")
                continue
            values[f.name] = check_value(f.name, data[f.name], f.metadata["types"], where)
        unknown = sorted(set(data) - set(values))
        if unknown:
            raise RecordError(f"{where}: field '{unknown[0]}' is not a field of {cls.SHAPE} "
                              f"(schema fields: {', '.join(f.name for f in dataclasses.fields(cls))})")
        row = cls(**values)
        row.check(where)
        return row

    def check(self, where: str) -> None:
        """Rules between fields (a subclass adds its own); field types were checked already."""
