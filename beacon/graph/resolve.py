"""Resolve each file's references against the whole repository.

Call resolution is import-aware, in this order: ``self.``/``cls.`` to the
enclosing class and then its bases; ``super().`` to the bases; names bound in
the enclosing function scopes and the module (definitions, ``import`` and
``from … import`` with relative levels and aliases, module-level aliases,
re-exports through packages); attributes of resolved modules and classes.
What is still unresolved falls back to a unique simple name among the
repository's definitions; everything else is *counted* (external: builtins and
modules outside the repository; unresolved: the rest), never guessed.
"""
from __future__ import annotations

import builtins
from collections import Counter
from dataclasses import dataclass

from .parse import LOCAL, Chain, FileParse, ImportRef
from .symbols import EdgeType
from .tables import RepoTables, module_names

EXTERNAL = -2  # a target outside the repository (stdlib, third party, builtins)
_MAX_DEPTH = 12
_BUILTINS = frozenset(dir(builtins))
__all__ = ["EXTERNAL", "Resolution", "Resolver", "RepoTables", "module_names"]


@dataclass
class Resolution:
    """Per file: edges as (type, global source index, global target index)."""

    edges: list[tuple[int, int, int]]
    stats: Counter


class Resolver:
    """Resolves files' references; the per-repository tables may be shared (see ``RepoTables``).

    The memo tables (module attributes, class bases) read bindings, which may
    change between builds without changing the tables: a ``Resolver`` lives
    for one build.
    """

    def __init__(self, parses: dict[str, FileParse], package_paths: list[str],
                 tables: RepoTables | None = None):
        self.parses = parses
        self.tables = tables = tables or RepoTables.build(parses, package_paths)
        self.paths = tables.paths
        self.offset = tables.offset
        self.owner_path = tables.owner_path
        self.size = tables.size
        self.module_of = tables.module_of
        self.path_of_module = tables.path_of_module
        self.by_name = tables.by_name
        self._module_attr: dict[tuple[str, str], int | None] = {}
        self._bases: dict[int, list[int]] = {}
        self._base_chains: dict[str, dict[int, list[Chain]]] = {}  # path -> class (local id) -> its base chains

    # -- helpers -----------------------------------------------------------
    def _def(self, g: int):
        path = self.owner_path[g]
        return path, g - self.offset[path], self.parses[path]

    def _kind(self, g: int) -> str:
        path, local, parse = self._def(g)
        return parse.defs[local].kind

    def _absolute(self, path: str, ref: ImportRef) -> str | None:
        if not ref.level:
            return ref.module or ""
        package = self.module_of[path].split(".")
        if not path.endswith("__init__.py"):
            package = package[:-1]
        if ref.level - 1 > len(package):
            # Above the repository root: an ImportError in Python. Without this,
            # the negative slice below wrapped around to a wrong package. (Up to
            # the root is allowed: the root may itself be a package directory.)
            return None
        if ref.level > 1:
            package = package[: len(package) - (ref.level - 1)]
        if ref.module:
            package = package + ref.module.split(".")
        return ".".join(package)

    def _module_symbol(self, module: str) -> int | None:
        path = self.path_of_module.get(module)
        return None if path is None else self.offset[path]

    def _bound(self, path: str, scope: int, value: object, depth: int) -> int | None:
        if isinstance(value, int):
            return self.offset[path] + value
        if isinstance(value, ImportRef):
            return self.resolve_import(path, value, depth + 1)
        if value == LOCAL:
            return None  # a function-local variable: its value is unknown
        return self.resolve_chain(path, scope, value[1], depth + 1)  # ("alias", chain)

    # -- lookups -----------------------------------------------------------
    def resolve_import(self, path: str, ref: ImportRef, depth: int = 0) -> int | None:
        if depth > _MAX_DEPTH:
            return None
        module = self._absolute(path, ref)
        if module is None:
            return None
        if ref.name is None:
            target = self._module_symbol(module)
            return EXTERNAL if target is None and ref.level == 0 else target
        if ref.name == "*":
            return self._module_symbol(module)
        owner = self.path_of_module.get(module)
        found = None if owner is None else self.module_attr(owner, ref.name, depth + 1)
        if found is None:
            # A submodule, also when the package has no module of its own (the
            # repository root, a folder without __init__.py): `from . import x`.
            found = self._module_symbol(f"{module}.{ref.name}" if module else ref.name)
        if found is None and owner is None and ref.level == 0:
            return EXTERNAL
        return found

    def module_attr(self, path: str, name: str, depth: int = 0) -> int | None:
        key = (path, name)
        if key in self._module_attr:
            return self._module_attr[key]
        if depth > _MAX_DEPTH:
            return None
        self._module_attr[key] = None  # cycle guard while resolving
        value = self.parses[path].bindings[0].get(name)
        found = None if value is None else self._bound(path, 0, value, depth)
        if found is None and path.endswith("__init__.py"):
            found = self._module_symbol(f"{self.module_of[path]}.{name}")
        self._module_attr[key] = found
        return found

    def bases(self, cls: int) -> list[int]:
        if cls in self._bases:
            return self._bases[cls]
        self._bases[cls] = []  # cycle guard
        path, local, parse = self._def(cls)
        parent = parse.defs[local].parent
        found = []
        for chain in self._chains_of(path, parse).get(local, ()):
            target = self.resolve_chain(path, parent, chain, 1)
            if target is not None and target >= 0 and self._kind(target) == "class":
                found.append(target)
        self._bases[cls] = found
        return found

    def _chains_of(self, path: str, parse: FileParse) -> dict[int, list[Chain]]:
        """``parse.bases`` grouped by class, in order, once per file: looking each class's bases up in the whole
        list was quadratic in a file's classes."""
        found = self._base_chains.get(path)
        if found is None:
            found = self._base_chains[path] = {}
            for owner, chain in parse.bases:
                found.setdefault(owner, []).append(chain)
        return found

    def member(self, cls: int, name: str, depth: int = 0, seen: set[int] | None = None) -> int | None:
        seen = set() if seen is None else seen
        if cls in seen or depth > _MAX_DEPTH:
            return None
        seen.add(cls)
        path, local, parse = self._def(cls)
        value = parse.bindings.get(local, {}).get(name)
        if value is not None:
            found = self._bound(path, local, value, depth)
            if found is not None:
                return found
        for base in self.bases(cls):
            found = self.member(base, name, depth + 1, seen)
            if found is not None:
                return found
        return None

    def _enclosing_class(self, parse: FileParse, scope: int) -> int | None:
        while scope >= 0:
            if parse.defs[scope].kind == "class":
                return scope
            scope = parse.defs[scope].parent
        return None

    def _attr(self, target: int, name: str, depth: int) -> int | None:
        if target == EXTERNAL:
            return EXTERNAL
        kind = self._kind(target)
        if kind == "module":
            return self.module_attr(self.owner_path[target], name, depth + 1)
        if kind == "class":
            return self.member(target, name, depth + 1)
        return None

    def resolve_chain(self, path: str, scope: int, chain: Chain, depth: int = 0) -> int | None:
        """Global index of what ``chain`` names from ``scope`` in ``path``; EXTERNAL; or None."""
        if depth > _MAX_DEPTH:
            return None
        parse = self.parses[path]
        head, rest = chain[0], chain[1:]
        target: int | None
        if head in ("self", "cls", "super()") and rest:
            # self/cls: the method's class; a bare name in class scope is not it.
            start = parse.defs[scope].parent if parse.defs[scope].kind != "class" else -1
            cls = self._enclosing_class(parse, start) if start >= 0 else None
            if cls is None:
                return None
            cls_g = self.offset[path] + cls
            if head == "super()":
                target = None
                for base in self.bases(cls_g):
                    target = self.member(base, rest[0], depth + 1)
                    if target is not None:
                        break
            else:
                target = self.member(cls_g, rest[0], depth + 1)
            rest = rest[1:]
        elif head in ("?", "super()", "self", "cls"):
            return None
        else:
            target = None
            value = None
            s = scope
            first = True
            while s > 0:
                kind = parse.defs[s].kind
                if first or kind != "class":  # class scopes are not visible to methods
                    value = parse.bindings[s].get(head)
                    if value is not None:
                        target = self._bound(path, s, value, depth)
                        break
                first = False
                s = parse.defs[s].parent
            else:
                target = self.module_attr(path, head, depth + 1)
            # A local that happens to be called `id` or `type` is not the builtin.
            if target is None and head in _BUILTINS and value != LOCAL:
                return EXTERNAL
        for name in rest:
            if target is None:
                return None
            target = self._attr(target, name, depth)
        return target

    # -- per file ----------------------------------------------------------
    def resolve_file(self, path: str) -> Resolution:
        parse = self.parses[path]
        base = self.offset[path]
        edges: list[tuple[int, int, int]] = []
        stats: Counter = Counter()
        for local, d in enumerate(parse.defs):
            if d.parent >= 0:
                edges.append((EdgeType.CONTAINS, base + d.parent, base + local))
        for owner, chain in parse.calls:
            stats["calls_total"] += 1
            target = self.resolve_chain(path, owner, chain)
            if target == EXTERNAL:
                stats["calls_external"] += 1
                continue
            if target is None:
                target = self._fallback(chain)
                if target is None:
                    stats["calls_unresolved"] += 1
                    continue
                stats["calls_fallback"] += 1
            else:
                stats["calls_resolved"] += 1
            edges.append((EdgeType.CALLS, base + owner, target))
        for owner, ref in parse.imports:
            target = self.resolve_import(path, ref)
            if target is not None and target >= 0:
                edges.append((EdgeType.IMPORTS, base + owner, target))
        for owner, chain in parse.assigns:
            target = self.resolve_chain(path, owner, chain)
            if target is not None and target >= 0:
                edges.append((EdgeType.ASSIGNS, base + owner, target))
        for local, d in enumerate(parse.defs):
            if d.kind == "class":
                for target in self.bases(base + local):
                    edges.append((EdgeType.INHERITS, base + local, target))
        for decorated, chain in parse.decorators:
            target = self.resolve_chain(path, parse.defs[decorated].parent, chain)
            if target is not None and target >= 0:
                edges.append((EdgeType.DECORATES, target, base + decorated))
        return Resolution(edges, stats)

    def _fallback(self, chain: Chain) -> int | None:
        name = chain[-1]
        if name.startswith("__") or (len(chain) == 1 and name in _BUILTINS):
            return None
        candidates = self.by_name.get(name)
        if candidates and len(candidates) == 1:
            return candidates[0]
        return None
