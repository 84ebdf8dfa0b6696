"""The generic registry behind retrieval methods and providers: names, duplicates, unknown names, parameters."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from beacon.registry import Registry, UnknownNameError


class BadConfig(ValueError):
    pass


def make_registry(loaded: list[int]) -> Registry:
    return Registry("widget", "widgets", error=BadConfig, bad_params=BadConfig, builtins=lambda: loaded.append(1))


def test_register_lookup_and_make_checks_parameters_before_the_call():
    loaded: list[int] = []
    reg = make_registry(loaded)

    @reg.register("w")
    @dataclass
    class Widget:
        name: str
        size: int = 1

    assert reg.make("w", {"size": 3}, name="w") == Widget("w", 3)
    assert reg.names() == ["w"] and loaded  # built-ins load before every lookup
    with pytest.raises(BadConfig, match=r"widget 'w': bad parameters \['colour'\]: .*colour"):
        reg.make("w", {"colour": "red"}, name="w")


def test_a_type_error_inside_the_factory_is_not_a_bad_parameter():
    reg = make_registry([])

    @reg.register("broken")
    def broken(size: int = 1):
        return len(size)  # a bug: TypeError from inside

    with pytest.raises(TypeError, match="has no len"):
        reg.make("broken", {"size": 2})


def test_names_are_validated_and_unique():
    reg = make_registry([])
    reg.register("a")(int)
    with pytest.raises(BadConfig, match="widget 'a' is already registered by <class 'int'>"):
        reg.register("a")(str)
    with pytest.raises(BadConfig, match="non-empty str"):
        reg.register("")
    with pytest.raises(UnknownNameError) as err:
        reg.factory("b")
    assert str(err.value) == "unknown widget 'b'; known widgets: a"
