"""The method registry: ``@register_method(name)`` and lookup by name."""
from __future__ import annotations

from typing import Callable, TypeVar

from .recipes import method_params

T = TypeVar("T")
_METHODS: dict[str, Callable[..., object]] = {}


class UnknownMethodError(KeyError):
    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


def register_method(name: str) -> Callable[[T], T]:
    """Register a method factory (usually a class) under ``name``; duplicates are refused."""

    def deco(factory: T) -> T:
        if name in _METHODS:
            raise ValueError(f"retrieval method {name!r} is already registered by {_METHODS[name]!r}")
        _METHODS[name] = factory  # type: ignore[assignment]
        return factory

    return deco


def known_methods() -> list[str]:
    """Every registered method name, sorted."""
    from . import methods  # noqa: F401  (registers the built-in methods)

    return sorted(_METHODS)


def get_method(name: str, **params: object):
    """An instance of the method registered as ``name``, configured with ``params``."""
    from . import methods  # noqa: F401  (registers the built-in methods)

    try:
        factory = _METHODS[name]
    except KeyError:
        known = ", ".join(sorted(_METHODS))
        raise UnknownMethodError(f"unknown retrieval method {name!r}; known methods: {known}") from None
    try:  # the recipe (conf/method/<name>.yaml) with the caller's params on top: the one resolver
        return factory(name=name, **method_params(name, params))
    except TypeError as exc:
        raise TypeError(f"retrieval method {name!r}: bad parameters {sorted(params)}: {exc}") from None


def method_names() -> list[str]:
    from . import methods  # noqa: F401

    return sorted(_METHODS)
