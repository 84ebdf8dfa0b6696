"""The provider registry: ``@register_provider(name)`` and ``make_provider(name, **config)``.

``PROVIDERS`` maps a config name (``conf/provider/<name>.yaml``) to a factory,
usually the adapter class. Other modules extend it with the decorator; names
are unique so two adapters can never silently shadow each other.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, TypeVar

from .base import Provider, ProviderConfigError

F = TypeVar("F", bound=Callable[..., Provider])

PROVIDERS: dict[str, Callable[..., Provider]] = {}


class UnknownProviderError(ProviderConfigError, KeyError):
    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


def register_provider(name: str) -> Callable[[F], F]:
    """Register a provider factory under ``name``; a duplicate name is an error."""
    if not isinstance(name, str) or not name:
        raise ProviderConfigError(f"provider name must be a non-empty str, got {name!r}")

    def deco(factory: F) -> F:
        if name in PROVIDERS:
            raise ProviderConfigError(
                f"provider {name!r} is already registered by {PROVIDERS[name]!r}; pick another name"
            )
        PROVIDERS[name] = factory
        return factory

    return deco


def make_provider(name: str, **config: Any) -> Provider:
    """An instance of the provider registered as ``name``, built from ``config``."""
    from . import local_llm, ollama, openai, oracle, replay  # noqa: F401  (register the built-in adapters)

    try:
        factory = PROVIDERS[name]
    except KeyError:
        known = ", ".join(sorted(PROVIDERS))
        raise UnknownProviderError(f"unknown provider {name!r}; known providers: {known}") from None
    # Check the parameters against the signature instead of catching TypeError
    # from the call, which would also hide genuine bugs inside the constructor.
    try:
        inspect.signature(factory).bind(**config)
    except TypeError as exc:
        raise ProviderConfigError(
            f"provider {name!r}: bad parameters {sorted(config)}: {exc}"
        ) from None
    return factory(**config)
