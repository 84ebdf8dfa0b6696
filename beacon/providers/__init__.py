"""Model adapters behind one :class:`Provider` protocol.

``make_provider(name, **config)`` builds any registered adapter ("replay",
"openai", "ollama", "local_llm", plus whatever other modules register with
``@register_provider``). Every adapter returns a :class:`Completion` carrying
native token counts, a normalised stop reason, the service-reported model
identity and SHA-256 hashes of the exact request and response bodies.
"""
from __future__ import annotations

from .base import (
    STOP_REASONS,
    Completion,
    PromptTooLong,
    Provider,
    ProviderConfigError,
    ProviderConnectionError,
    ProviderError,
    ProviderHTTPError,
    ProviderRefused,
    ProviderResponseError,
    canonical_json,
    prompt_sha256,
)
from .registry import PROVIDERS, UnknownProviderError, make_provider, register_provider
from .replay import (  # noqa: I001  (importing the adapters registers them)
    PartialRecordingWarning,
    Recorder,
    RecordingFormatError,
    ReplayMismatch,
    ReplayMiss,
    ReplayProvider,
    load_recordings,
)
from .openai import OpenAIProvider
from .ollama import OllamaProvider
from .local_llm import LocalLLMProvider
from .oracle import OracleProvider, render_repair

__all__ = [
    "PROVIDERS",
    "STOP_REASONS",
    "Completion",
    "LocalLLMProvider",
    "OllamaProvider",
    "OpenAIProvider",
    "OracleProvider",
    "PartialRecordingWarning",
    "PromptTooLong",
    "Provider",
    "ProviderConfigError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderHTTPError",
    "ProviderRefused",
    "ProviderResponseError",
    "Recorder",
    "RecordingFormatError",
    "ReplayMismatch",
    "ReplayMiss",
    "ReplayProvider",
    "UnknownProviderError",
    "canonical_json",
    "load_recordings",
    "render_repair",
    "make_provider",
    "prompt_sha256",
    "register_provider",
]
