"""Versioned repair prompts: templates are files in ``beacon/repair/prompts``.

A prompt is identified by its version and the SHA-256 of the templates it
used, so a changed template can never silently masquerade as the old one.
The ``line_span`` format needs the ``line_span_contract`` renderer (the model
must see numbered lines and the harness the file hashes); ``FORMAT_RENDERER``
says which renderer each format requires, if any.

A prompt sent with a JSON schema that constrains the answer
(:mod:`beacon.repair.structured`) is a different request from the same text
without one, so the schema is part of the prompt's identity:
:attr:`Prompt.sha256` is the provider's ``request_key`` -- the text's SHA-256
when no schema is sent (as for every run before structured output), else
the hash of text and schema.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..providers.base import request_key
from .edits import FORMATS
from .structured import StructuredOutput

PROMPT_VERSION = "v1"
FORMAT_RENDERER = {"line_span": "line_span_contract"}


@dataclass(frozen=True)
class Prompt:
    text: str
    version: str
    edit_format: str
    template_sha256: str
    structured: StructuredOutput | None = None

    @property
    def response_schema(self) -> dict[str, Any] | None:
        return self.structured.schema if self.structured is not None else None

    @property
    def sha256(self) -> str:
        """The recorded identity: text, plus the schema when one constrains the answer."""
        return request_key(self.text, self.response_schema)


def _template(name: str) -> str:
    return resources.files("beacon.repair").joinpath("prompts", name).read_text(encoding="utf-8")


def build_prompt(query: str, context: str, edit_format: str, version: str = PROMPT_VERSION,
                 structured: StructuredOutput | None = None) -> Prompt:
    if edit_format not in FORMATS:
        raise ValueError(f"unknown edit format {edit_format!r}; known formats: {', '.join(FORMATS)}")
    main = _template(f"repair-{version}.txt")
    instructions = _template(f"format-{edit_format}-{version}.txt")
    digest = hashlib.sha256((main + "\0" + instructions).encode("utf-8")).hexdigest()
    text = main.format(query=query.strip(), context=context or "(no code was retrieved)\n",
                       format_instructions=instructions.strip())
    return Prompt(text, version, edit_format, digest, structured)
