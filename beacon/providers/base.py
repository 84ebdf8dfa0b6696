"""The Provider protocol, the Completion record and the provider error hierarchy.

Every model adapter (replay, OpenAI-compatible, Ollama, oracle, ...) returns a
:class:`Completion`: the text plus everything needed to audit and reproduce the
call later -- native token counts, a normalised stop reason, the model identity
the *service* reported, and SHA-256 hashes of the exact request body sent and
the exact response bytes received.

A completion that hit the output-token limit is truncated; truncated output
must never be scored as a patch, so callers gate on :attr:`Completion.usable`.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields
from typing import Any, Protocol, runtime_checkable

from ..digests import sha256_bytes

sha256_hex = sha256_bytes  # the providers' name for it (request and response digests)

# Normalised stop reasons. Adapters map their service's vocabulary onto these
# and keep the service's own word in ``raw_stop_reason``.
STOP_REASONS = frozenset({"stop", "length", "content_filter", "tool_calls", "error", "unknown"})


class ProviderError(RuntimeError):
    """Base class: a model call could not produce a trustworthy completion."""


class ProviderConfigError(ProviderError, ValueError):
    """The provider was configured wrongly (bad URL, missing key, unknown name, ...)."""


class ProviderHTTPError(ProviderError):
    """The service answered with an HTTP error status (after any retries)."""

    def __init__(self, message: str, *, status: int, url: str, attempts: int = 1) -> None:
        super().__init__(message)
        self.status = status
        self.url = url
        self.attempts = attempts


class ProviderConnectionError(ProviderError):
    """The service could not be reached or timed out (after any retries)."""


class ProviderResponseError(ProviderError):
    """The service answered 2xx but the body is not what its wire format promises."""


class ProviderRefused(ProviderError):
    """A safety policy forbids this call: non-loopback host, redirect, cloud model, ..."""


class PromptTooLong(ProviderError):
    """The prompt (plus requested output) does not fit the model's context window."""


def prompt_sha256(prompt: str) -> str:
    """SHA-256 hex digest of the UTF-8 encoding of ``prompt``."""
    return sha256_bytes(prompt.encode("utf-8"))


def request_key(prompt: str, response_schema: dict[str, Any] | None = None) -> str:
    """The identity under which a call is recorded and replayed.

    Without a schema it is :func:`prompt_sha256` -- exactly the key of every
    run recorded before structured output existed, so those still replay. A
    schema changes what the model may answer, so it is part of the key: the
    SHA-256 of the prompt, a NUL, the marker ``json_schema`` and the schema's
    canonical JSON.
    """
    if response_schema is None:
        return prompt_sha256(prompt)
    return sha256_hex(prompt.encode("utf-8") + b"\0json_schema\0" + canonical_json(response_schema))


def canonical_json(obj: Any) -> bytes:
    """The one JSON encoding Beacon sends: sorted keys, no spaces, UTF-8.

    Request bodies are built with this so the same request always hashes the
    same (``request_sha256``), whatever dict order the adapter used.
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


@dataclass(frozen=True)
class Completion:
    """One model answer plus the provenance needed to audit and replay it.

    ``input_tokens``/``output_tokens`` are the service's native counts (None
    when it did not report them); they are *not* Beacon's cl100k counts.
    ``server_authenticated`` is True when the request carried credentials the
    service accepted, False when it was sent without any, None when unknown.
    ``unusable_reason`` is set by an adapter that received a well-formed answer
    it nevertheless cannot vouch for (e.g. the prompt filled the context window).
    """

    text: str
    input_tokens: int | None
    output_tokens: int | None
    stop_reason: str
    raw_stop_reason: str | None
    model: str
    model_digest: str | None
    request_sha256: str
    response_sha256: str
    server_authenticated: bool | None
    truncated: bool
    latency_s: float
    raw: dict[str, Any] = field(default_factory=dict, hash=False)
    unusable_reason: str | None = None

    def __post_init__(self) -> None:
        if self.stop_reason not in STOP_REASONS:
            raise ValueError(
                f"Completion.stop_reason {self.stop_reason!r} is not one of {sorted(STOP_REASONS)}; "
                "map the service's value and keep it in raw_stop_reason"
            )
        # A "length" stop that is not flagged truncated would let a cut-off
        # patch through the ``usable`` gate; refuse the inconsistent record.
        if self.stop_reason == "length" and not self.truncated:
            raise ValueError("Completion.stop_reason is 'length' but truncated is False")
        if not (isinstance(self.latency_s, (int, float)) and math.isfinite(self.latency_s)
                and self.latency_s >= 0):
            raise ValueError(f"Completion.latency_s must be a finite number >= 0, got {self.latency_s!r}")

    @property
    def usable(self) -> bool:
        """True only for a complete, normally stopped answer that may be scored."""
        return not self.truncated and self.stop_reason == "stop" and self.unusable_reason is None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict of every field (``usable`` is derived, not stored)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


COMPLETION_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Completion))


@runtime_checkable
class Provider(Protocol):
    """A model adapter: one prompt in, one :class:`Completion` out.

    ``seed=None`` means "do not send a seed"; adapters for services without
    seeds ignore it. ``temperature`` defaults to greedy decoding.

    Adapters that can constrain decoding to a JSON schema set the class
    attribute ``structured_output = "json_schema"`` and accept
    ``response_schema=`` (and ``stop=``, a list of stop strings) in
    ``complete``; callers pass those keywords only when they are set, so an
    adapter without them keeps working.
    """

    name: str

    def complete(
        self, prompt: str, *, max_tokens: int, temperature: float = 0.0, seed: int | None = 0
    ) -> Completion: ...


def check_call_args(provider: str, prompt: str, max_tokens: int, temperature: float,
                    seed: int | None) -> None:
    """Reject bad arguments before anything is sent or looked up."""
    if not isinstance(prompt, str):
        raise TypeError(f"{provider}: prompt must be str, got {type(prompt).__name__}")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ValueError(f"{provider}: max_tokens must be a positive int, got {max_tokens!r}")
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) \
            or not math.isfinite(temperature) or temperature < 0:
        raise ValueError(f"{provider}: temperature must be a finite number >= 0, got {temperature!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ValueError(f"{provider}: seed must be an int or None, got {seed!r}")


def check_extra_args(provider: str, response_schema: Any, stop: Any) -> None:
    """Reject a malformed schema or stop list before anything is sent or looked up."""
    if response_schema is not None and not isinstance(response_schema, dict):
        raise ValueError(f"{provider}: response_schema must be a JSON schema object or None, "
                         f"got {type(response_schema).__name__}")
    if stop is not None and (not isinstance(stop, (list, tuple))
                             or not all(isinstance(s, str) and s for s in stop)):
        raise ValueError(f"{provider}: stop must be a list of non-empty strings or None, got {stop!r}")
