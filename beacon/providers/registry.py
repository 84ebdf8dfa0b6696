"""The provider registry: ``@register_provider(name)`` and ``make_provider(name, **config)``.

``PROVIDERS`` maps a config name (``conf/provider/<name>.yaml``) to a factory,
usually the adapter class. Other modules extend it with the decorator; names
are unique so two adapters can never silently shadow each other.
"""
from __future__ import annotations

from typing import Any, Callable, TypeVar

from ..registry import Registry, UnknownNameError
from .base import Provider, ProviderConfigError

F = TypeVar("F", bound=Callable[..., Provider])


class UnknownProviderError(ProviderConfigError, UnknownNameError):
    """No provider is registered under the name."""


def _builtins() -> None:
    from . import local_llm, ollama, openai, oracle, replay  # noqa: F401  (register the built-in adapters)


_REGISTRY: Registry[Callable[..., Provider]] = Registry(
    "provider", "providers", error=ProviderConfigError, unknown=UnknownProviderError, bad_params=ProviderConfigError,
    builtins=_builtins)
PROVIDERS: dict[str, Callable[..., Provider]] = _REGISTRY.entries


def register_provider(name: str) -> Callable[[F], F]:
    """Register a provider factory under ``name``; a duplicate name is an error."""
    return _REGISTRY.register(name)


def make_provider(name: str, **config: Any) -> Provider:
    """An instance of the provider registered as ``name``, built from ``config``."""
    return _REGISTRY.make(name, config)
