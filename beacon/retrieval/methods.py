"""Registers every built-in method: the algorithm classes, and one ``Blend`` per blend recipe.

A recipe with ``composer: blend`` (``conf/method/<name>.yaml``, directly or
through its ``defaults:``) is a configuration of the composer
(``beacon.retrieval.blend``): it is registered under its file name, so adding
a blend variant is adding a YAML file.
"""
from __future__ import annotations

from . import bca, hashed, lexical, oracle, perron, repomap  # noqa: F401  (their @register_method classes)
from .blend import Blend
from .recipes import blend_recipes
from .registry import register_method

for _name in blend_recipes():
    register_method(_name)(Blend)
