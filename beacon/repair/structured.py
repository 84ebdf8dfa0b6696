"""Structured output: the JSON schema of each JSON edit format, and whether a run sends it.

A provider that can constrain decoding (``structured_output = "json_schema"``
on its class: OpenAI-compatible ``response_format``, Ollama ``format``, the
llama.cpp grammar behind ``local_llm``) is sent the schema of the requested
edit format, so even a tiny model's answer is well-formed JSON of the right
shape. The schemas mirror what :func:`beacon.repair.edits.parse_edit`
accepts -- the edit object or ``{"abstain": true, "reason"?}`` -- but they
are only a decoding aid: the answer is parsed just as strictly either way,
so a server that ignores the schema yields ``no_patch``/``invalid_patch``,
never a pass.

The setting (``provider.structured_output``) is ``auto`` (send the schema
when the provider and format allow it) or ``off`` (never; how every run
before structured output was made, so archived runs reproduce with it).
What was decided is a :class:`StructuredOutput`, recorded in every row; its
schema is part of the prompt's identity (:attr:`beacon.repair.prompt.Prompt.sha256`).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from .edits import FORMATS

SETTINGS = ("auto", "off")
MODE_JSON_SCHEMA = "json_schema"
MODE_OFF = "off"
MODE_NOT_JSON = "none (format is not JSON)"
MODE_CANNOT = "none (provider cannot constrain)"

_ABSTAIN = {
    "type": "object",
    "properties": {"abstain": {"type": "boolean", "enum": [True]}, "reason": {"type": "string"}},
    "required": ["abstain"],
    "additionalProperties": False,
}
_EDITS = {
    "exact_edit": {
        "type": "object",
        "properties": {"path": {"type": "string", "minLength": 1},
                       "search": {"type": "string", "minLength": 1},
                       "replace": {"type": "string"}},
        "required": ["path", "search", "replace"],
        "additionalProperties": False,
    },
    "line_span": {
        "type": "object",
        "properties": {"path": {"type": "string", "minLength": 1},
                       "start_line": {"type": "integer", "minimum": 1},
                       "end_line": {"type": "integer", "minimum": 1},
                       "replacement": {"type": "string"}},
        "required": ["path", "start_line", "end_line", "replacement"],
        "additionalProperties": False,
    },
}
assert set(_EDITS) | {"diff"} == set(FORMATS)


def response_schema(edit_format: str) -> dict[str, Any] | None:
    """The JSON schema of an answer in ``edit_format`` (a fresh dict), or None for ``diff``.

    ``enum: [true]`` rather than ``const: true``: both mean the same, and
    ``enum`` is understood by more of the grammar converters servers use.
    """
    if edit_format not in FORMATS:
        raise ValueError(f"unknown edit format {edit_format!r}; known formats: {', '.join(FORMATS)}")
    if edit_format not in _EDITS:
        return None
    # json round trip: callers get their own copy, never the module's constants.
    return json.loads(json.dumps({"title": f"beacon_{edit_format}", "oneOf": [_EDITS[edit_format], _ABSTAIN]}))


def schema_sha256(schema: dict[str, Any]) -> str:
    """SHA-256 of the schema's canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class StructuredOutput:
    """What a run does for one edit format: the setting, the mode used and the schema sent (if any)."""

    setting: str
    mode: str
    schema: dict[str, Any] | None = None

    def record(self) -> dict[str, Any]:
        """The row field ``structured_output``."""
        return {"setting": self.setting, "mode": self.mode,
                "schema_sha256": schema_sha256(self.schema) if self.schema is not None else None}


def decide(setting: str, provider_mode: str | None, edit_format: str) -> StructuredOutput:
    """The structured output of an attempt: ``provider_mode`` is the provider class's
    ``structured_output`` attribute (None when it cannot constrain decoding)."""
    if setting not in SETTINGS:
        raise ValueError(f"provider.structured_output {setting!r}: expected one of {', '.join(SETTINGS)}")
    if setting == "off":
        return StructuredOutput(setting, MODE_OFF)
    schema = response_schema(edit_format)
    if schema is None:
        return StructuredOutput(setting, MODE_NOT_JSON)
    if provider_mode != MODE_JSON_SCHEMA:
        return StructuredOutput(setting, MODE_CANNOT)
    return StructuredOutput(setting, MODE_JSON_SCHEMA, schema)
