"""The method registry: ``@register_method(name)`` and lookup by name (a :class:`beacon.registry.Registry`)."""
from __future__ import annotations

from typing import Callable, TypeVar

from ..registry import Registry, UnknownNameError
from .recipes import method_params

T = TypeVar("T")


class UnknownMethodError(UnknownNameError):
    """No retrieval method is registered under the name."""


def _builtins() -> None:
    from . import methods  # noqa: F401  (registers the built-in methods)


_REGISTRY: Registry[Callable[..., object]] = Registry(
    "retrieval method", "methods", error=ValueError, unknown=UnknownMethodError, bad_params=TypeError,
    builtins=_builtins)


def register_method(name: str) -> Callable[[T], T]:
    """Register a method factory (usually a class) under ``name``; duplicates are refused."""
    return _REGISTRY.register(name)  # type: ignore[return-value]


def known_methods() -> list[str]:
    """Every registered method name, sorted."""
    return _REGISTRY.names()


def get_method(name: str, **params: object):
    """An instance of the method registered as ``name``, configured with ``params``."""
    _REGISTRY.factory(name)  # an unknown name fails before its recipe is looked up
    # the recipe (conf/method/<name>.yaml) with the caller's params on top: the one resolver
    return _REGISTRY.make(name, method_params(name, params), name=name)


def method_names() -> list[str]:
    return _REGISTRY.names()
