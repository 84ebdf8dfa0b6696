"""Registers every method named by a recipe: ``conf/method/<name>.yaml`` says which composer it configures.

A recipe's ``composer`` (its own or inherited through ``defaults:``) is one of
``COMPOSERS``: the blend of signals (``blend``) or a distinct algorithm (BCA,
Perron/PPR, the repo map, the target-file oracle). Every recipe is registered
under its file name, so a variant or an ablation of any of them is a YAML file.
"""
from __future__ import annotations

from .bca import BCA
from .blend import Blend
from .oracle import TargetFile
from .perron import Perron
from .recipes import RecipeError, recipe_composers, recipe_path
from .registry import register_method
from .repomap import RepoMap

COMPOSERS = {"blend": Blend, "bca": BCA, "perron": Perron, "repomap": RepoMap, "target_file": TargetFile}

for _name, _composer in recipe_composers().items():
    if _composer not in COMPOSERS:
        raise RecipeError(f"{recipe_path(_name)}: composer: expected one of {', '.join(COMPOSERS)}, got {_composer!r}")
    register_method(_name)(COMPOSERS[_composer])
