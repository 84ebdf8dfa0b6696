"""Method recipes: ``conf/method/<name>.yaml`` is where a method's parameters live; ``method_params`` reads them.

The one method resolver. Every runner (localization and repair, grid cells
and single runs) and every benchmark configures a method as
``method_params(name, overrides)``: the recipe's ``params`` with the
overrides (a Hydra ``method.params`` or a caller's own) on top. So a grid
cell, a ``method=<name>`` job and a repair attempt run the same recipe;
class defaults are never what decides.

A recipe may extend others of the group with Hydra's ``defaults:`` list
(``defaults: [hybrid, _self_]``): the listed recipes are merged first, in
order, then the file's own keys, as Hydra composes ``method=<name>``.
"""
from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path

import yaml
from omegaconf import DictConfig, ListConfig, OmegaConf

CONF_DIR = Path(__file__).resolve().parents[2] / "conf" / "method"


class RecipeError(ValueError):
    """A ``conf/method/*.yaml`` is missing or malformed; the message names the file and key."""


def recipe_path(name: str) -> Path:
    return CONF_DIR / f"{name}.yaml"


def _load_plain(path: Path) -> object:
    """A recipe file as plain YAML (PyYAML's C loader when built: ~0.2 ms a file against OmegaConf's ~8 ms). Only
    for ``composer:`` and ``defaults:``, which are plain strings; parameters are read by OmegaConf (``_compose``),
    whose loader reads numbers such as ``1e-3`` as floats where YAML 1.1 reads a string."""
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return {} if data is None else data  # as OmegaConf.load reads an empty file


def _own(name: str, seen: tuple[str, ...], load) -> tuple[Path, object, list[str]]:
    """Recipe ``name``'s own keys (``load``ed, ``defaults`` removed) and the recipes it lists in ``defaults:``, in
    order; every structural error named with its file (a cycle, a missing recipe, a malformed list)."""
    path = recipe_path(name)
    if name in seen:
        raise RecipeError(f"{path}: defaults: cycle {' -> '.join((*seen, name))}")
    if not path.is_file():
        where = f" (listed in defaults: of {recipe_path(seen[-1])})" if seen else ""
        raise RecipeError(f"no recipe for retrieval method {name!r}: expected {path}{where}")
    own = load(path)
    if not isinstance(own, (DictConfig, dict)):
        raise RecipeError(f"{path}: expected a mapping with name and params")
    defaults = own.pop("defaults", None)
    entries = list(defaults) if isinstance(defaults, (ListConfig, list)) else ([] if defaults is None else None)
    if entries is None or not all(isinstance(e, str) for e in entries):
        raise RecipeError(f"{path}: defaults: expected a list of recipe names (and _self_), got {defaults!r}")
    if "_self_" in entries and entries[-1] != "_self_":
        raise RecipeError(f"{path}: defaults: _self_ must come last (the file's own keys override its bases)")
    return path, own, [e for e in entries if e != "_self_"]


def _compose(name: str, seen: tuple[str, ...], memo: dict[str, DictConfig] | None = None) -> DictConfig:
    """Recipe ``name`` merged over its ``defaults:``; ``memo`` keeps each recipe composed once within one call
    that composes many (the group's bases are shared, and loading a YAML file costs ~5 ms)."""
    if memo is not None and name in memo:
        return memo[name]  # composed without a cycle below it; merges never change their inputs
    _, own, bases = _own(name, seen, OmegaConf.load)
    merged = OmegaConf.create({})
    for base in bases:
        merged = OmegaConf.merge(merged, _compose(base, (*seen, name), memo))
    composed = OmegaConf.merge(merged, own)
    if memo is not None:
        memo[name] = composed
    return composed


def _composer(name: str, seen: tuple[str, ...], memo: dict[str, tuple[bool, object]]) -> tuple[bool, object]:
    """``(set, value)`` of the ``composer:`` that ``_compose(name)`` would hold: the file's own when it has the key,
    else that of the last base in ``defaults:`` order that sets one (a later merge wins)."""
    if name not in memo:
        _, own, bases = _own(name, seen, _load_plain)
        found: tuple[bool, object] = (False, None)
        for base in bases:
            below = _composer(base, (*seen, name), memo)
            if below[0]:
                found = below
        memo[name] = (True, own["composer"]) if "composer" in own else found
    return memo[name]


def recipe_composers() -> dict[str, str | None]:
    """Every recipe's name and the composer it configures (``composer:``, its own or inherited), by name.

    Read from the files' ``composer:`` and ``defaults:`` keys alone (``_composer``), not by composing every recipe
    with OmegaConf: this runs when ``beacon.retrieval.methods`` is imported, in every process, and the full
    composition took ~0.5 s of each start (tests/retrieval/test_recipes.py checks the two agree on every recipe)."""
    memo: dict[str, tuple[bool, object]] = {}
    return {p.stem: _composer(p.stem, (), memo)[1] for p in sorted(CONF_DIR.glob("*.yaml"))}


def blend_recipes() -> list[str]:
    """The names of the recipes that configure the composer of signals (``composer: blend``), sorted."""
    return sorted(name for name, composer in recipe_composers().items() if composer == "blend")


@lru_cache(maxsize=None)
def _recipe_params(name: str) -> tuple[tuple[str, object], ...]:
    conf = _compose(name, ())
    if conf.get("name") != name:
        raise RecipeError(f"{recipe_path(name)}: name: expected {name!r}, got {conf.get('name')!r}")
    params = OmegaConf.to_container(conf.get("params") or OmegaConf.create({}), resolve=True)
    if not isinstance(params, dict):
        raise RecipeError(f"{recipe_path(name)}: params: expected a mapping, got {params!r}")
    return tuple(params.items())


def method_params(name: str, overrides: dict | None = None) -> dict:
    """The parameters of method ``name``: its recipe's ``params``, then ``overrides`` on top."""
    params = copy.deepcopy(dict(_recipe_params(name)))  # the memo is shared: callers may change theirs
    for key, value in (overrides or {}).items():
        if isinstance(value, dict) and isinstance(params.get(key), dict):
            params[key] = {**params[key], **value}
        else:
            params[key] = value
    return params
