"""A registry of named factories: ``@registry.register(name)``, lookup, construction with checked parameters.

Retrieval methods and model providers both use it, so names are validated the
same way: a name is a non-empty string, a duplicate is refused (two factories
can never silently shadow each other), an unknown name lists the known ones,
and parameters are checked against the factory's signature *before* the call,
so a ``TypeError`` raised inside a constructor is a bug that surfaces as
itself instead of being reported as a bad parameter.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Generic, Mapping, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class UnknownNameError(KeyError):
    """No factory is registered under the name; the message lists the known names."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


class Registry(Generic[F]):
    """Factories of one kind (``kind`` names it in messages, ``plural`` in the list of known names).

    ``error`` is raised for a bad or duplicate name, ``unknown`` for a name not
    registered, ``bad_params`` for parameters the factory does not take;
    ``builtins`` imports the modules that register the built-in factories and
    runs before every lookup.
    """

    def __init__(self, kind: str, plural: str, *, error: type[Exception] = ValueError,
                 unknown: type[KeyError] = UnknownNameError, bad_params: type[Exception] = TypeError,
                 builtins: Callable[[], object] | None = None):
        self.kind, self.plural = kind, plural
        self.error, self.unknown, self.bad_params = error, unknown, bad_params
        self._builtins = builtins
        self.entries: dict[str, F] = {}

    def register(self, name: str) -> Callable[[F], F]:
        """Decorator: register the factory under ``name``; a duplicate name is an error."""
        if not isinstance(name, str) or not name:
            raise self.error(f"{self.kind} name must be a non-empty str, got {name!r}")

        def deco(factory: F) -> F:
            if name in self.entries:
                raise self.error(f"{self.kind} {name!r} is already registered by {self.entries[name]!r}")
            self.entries[name] = factory
            return factory

        return deco

    def names(self) -> list[str]:
        """Every registered name, sorted (built-ins included)."""
        if self._builtins is not None:
            self._builtins()
        return sorted(self.entries)

    def factory(self, name: str) -> F:
        known = self.names()
        try:
            return self.entries[name]
        except KeyError:
            raise self.unknown(f"unknown {self.kind} {name!r}; known {self.plural}: {', '.join(known)}") from None

    def make(self, name: str, params: Mapping[str, Any], /, **fixed: Any) -> Any:
        """``factory(**fixed, **params)``; ``params`` (the user's) are checked against its signature first."""
        factory = self.factory(name)
        try:
            inspect.signature(factory).bind(**fixed, **params)
        except TypeError as exc:
            raise self.bad_params(f"{self.kind} {name!r}: bad parameters {sorted(params)}: {exc}") from None
        return factory(**fixed, **params)
