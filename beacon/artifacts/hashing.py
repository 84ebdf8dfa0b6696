"""Canonical JSON, file hashes and the config hash that decides whether two runs are the same run.

Canonical JSON is ``json.dumps`` with sorted keys, ``separators=(",", ":")``,
``ensure_ascii=False`` (UTF-8 bytes), and ``allow_nan=False``. Only plain JSON
values are accepted (dict with ``str`` keys, list/tuple, str, int, float,
bool, None): anything else is refused with the path of the offending field
rather than silently stringified, because a value whose text depends on
``repr`` would make hashes drift between Python versions.

Config hash exclusion rule (``config_hash``): in every mapping at any depth
(including mappings nested inside lists) a key is dropped, together with its
whole subtree, when

* the key is in ``EXCLUDED_KEYS`` (``cache_dir``, ``hydra``, ``launcher``,
  ``log_level``, ``num_workers``, ``output_dir``, ``progress``, ``repos_dir``,
  ``run_dir``, ``verbose``, ``workers``), or
* the key, lower-cased, ends with one of ``EXCLUDED_SUFFIXES``
  (``_dir``, ``_path``).

What remains is hashed as ``sha256(canonical_json(remaining))``. Types matter:
``2000`` and ``2000.0`` are different configs. File *contents* that matter
(task manifests, snapshots) are not part of the config hash; they are the
run's ``inputs`` (name → sha256), checked separately on resume.
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from ..digests import sha256_bytes
from .errors import CanonicalJSONError

EXCLUDED_KEYS: frozenset[str] = frozenset({
    "output_dir", "run_dir", "cache_dir", "repos_dir", "hydra", "launcher",
    "progress", "workers", "num_workers", "log_level", "verbose",
})
EXCLUDED_SUFFIXES: tuple[str, ...] = ("_dir", "_path")


def check_json_value(value: Any, where: str = "$") -> None:
    """Raise ``CanonicalJSONError`` naming the field (``$.a[2].b``) if ``value`` is not plain, finite JSON."""
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CanonicalJSONError(f"{where}: {value!r} is not allowed (expected a finite number)")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise CanonicalJSONError(f"{where}: key {key!r} is {type(key).__name__}; expected str")
            check_json_value(item, f"{where}.{key}")
        return
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            check_json_value(item, f"{where}[{i}]")
        return
    raise CanonicalJSONError(
        f"{where}: {type(value).__name__} is not a JSON value "
        "(expected dict, list, str, int, float, bool or None; convert it first)")


def canonical_json(value: Any) -> str:
    """The one text of ``value``: sorted keys, no spaces, no NaN/inf, non-ASCII kept as is."""
    check_json_value(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_json_bytes(value: Any) -> bytes:
    try:
        return canonical_json(value).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise CanonicalJSONError(f"a string holds {exc.object[exc.start:exc.end]!r}, a lone surrogate with "
                                 "no UTF-8 form; decode its source with errors='replace' first") from None


def is_excluded(key: str, exclude: Iterable[str] = EXCLUDED_KEYS,
                exclude_suffixes: Iterable[str] = EXCLUDED_SUFFIXES) -> bool:
    lowered = key.lower()
    return key in frozenset(exclude) or any(lowered.endswith(s) for s in exclude_suffixes)


def scientific_view(config: Any, *, exclude: Iterable[str] = EXCLUDED_KEYS,
                    exclude_suffixes: Iterable[str] = EXCLUDED_SUFFIXES) -> Any:
    """``config`` with the excluded keys removed at every depth (see the module docstring)."""
    keys, suffixes = frozenset(exclude), tuple(exclude_suffixes)

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items()
                    if not (isinstance(k, str) and is_excluded(k, keys, suffixes))}
        if isinstance(value, (list, tuple)):
            return [strip(v) for v in value]
        return value

    return strip(config)


def config_hash(scientific_config: dict, *, exclude: Iterable[str] = EXCLUDED_KEYS,
                exclude_suffixes: Iterable[str] = EXCLUDED_SUFFIXES) -> str:
    """Hex SHA-256 of the canonical JSON of ``scientific_config`` minus excluded keys.

    ``exclude`` *replaces* the default key set; to add keys pass
    ``EXCLUDED_KEYS | {"my_key"}``. Stable across key order and across runs
    that differ only in paths, launchers, worker counts or progress display.
    """
    if not isinstance(scientific_config, dict):
        raise CanonicalJSONError(
            f"config_hash expects a dict (plain container; for OmegaConf use "
            f"OmegaConf.to_container(cfg, resolve=True)), got {type(scientific_config).__name__}")
    view = scientific_view(scientific_config, exclude=exclude, exclude_suffixes=exclude_suffixes)
    return sha256_bytes(canonical_json_bytes(view))


def hash_rule(exclude: Iterable[str] = EXCLUDED_KEYS,
              exclude_suffixes: Iterable[str] = EXCLUDED_SUFFIXES) -> dict[str, list[str]]:
    """The exclusion rule as stored in ``run.json``, so ``verify`` can recompute the hash later."""
    return {"excluded_keys": sorted(exclude), "excluded_suffixes": list(exclude_suffixes)}


def config_differences(old: Any, new: Any, where: str = "") -> list[str]:
    """Dotted paths where two configs differ, for an actionable mismatch message."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new)):
            path = f"{where}.{key}" if where else key
            if key not in old or key not in new:
                out.append(f"{path} ({'added' if key not in old else 'removed'})")
            else:
                out.extend(config_differences(old[key], new[key], path))
        return out
    return [] if old == new and type(old) is type(new) else [f"{where or '<root>'} ({old!r} -> {new!r})"]
