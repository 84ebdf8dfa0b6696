"""What a name or expression in edited code stands for, as the static screen sees it.

``fold_constant`` evaluates string-building expressions of constants (so
``"__e" + "q__"`` is judged as ``__eq__``), ``attribute_chain`` spells an
attribute chain rooted at a name, ``import_aliases`` maps the names a module's
imports bind to their dotted origin.
"""
from __future__ import annotations

import ast
import itertools
from collections.abc import Mapping

FOLD_LIMIT = 4096  # characters: longer constants are not built (and never needed to name anything)
FOLD_METHODS = frozenset({"join", "decode", "encode", "lower", "upper", "replace", "strip", "lstrip", "rstrip",
                           "format", "casefold", "swapcase", "title", "capitalize"})


def fold_constant(node: ast.AST, depth: int = 0, env=None):
    """The constant a string-building expression evaluates to (``"__e" + "q__"``, ``"__qe__"[::-1]``,
    ``"".join([...])``, ``"%s" % x``, f-strings, ``bytes([...]).decode()``, ``chr(95)``, ``map(chr, ...)``);
    ``None`` when it is not built from constants alone. Only these pure operations are evaluated. ``env``: names
    to one of the constants they can hold (``_u = "_" * 2``; :func:`constant_names`), read as that value."""
    if depth > 40:
        return None
    d = depth + 1
    try:
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes, int)) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name) and env is not None:
            return env.get(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            value = fold_constant(node.operand, d, env)
            return -value if isinstance(value, int) else None
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [fold_constant(e, d, env) for e in node.elts]
            return None if any(i is None for i in items) else items
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult, ast.Mod)):
            left, right = fold_constant(node.left, d, env), fold_constant(node.right, d, env)
            if left is None or right is None or isinstance(left, list) and isinstance(node.op, ast.Mod):
                return None
            if isinstance(node.op, ast.Mult) and (isinstance(left, int) and isinstance(right, int)):
                return left * right if abs(left * right) < 10**9 else None
            if isinstance(node.op, ast.Mod) and isinstance(right, list):
                right = tuple(right)
            value = {ast.Add: lambda: left + right, ast.Mult: lambda: left * right,
                     ast.Mod: lambda: left % right}[type(node.op)]()
            return value if not isinstance(value, (str, bytes, list)) or len(value) <= FOLD_LIMIT else None
        if isinstance(node, ast.Subscript):
            value = fold_constant(node.value, d, env)
            if not isinstance(value, (str, bytes, list)):
                return None
            sl = node.slice
            if isinstance(sl, ast.Slice):
                parts = [None if p is None else fold_constant(p, d, env) for p in (sl.lower, sl.upper, sl.step)]
                if any(p is not None and not isinstance(p, int) for p in parts):
                    return None
                return value[slice(*parts)]
            index = fold_constant(sl, d, env)
            return value[index] if isinstance(index, int) else None
        if isinstance(node, ast.JoinedStr):
            out = []
            for v in node.values:
                if isinstance(v, ast.FormattedValue):
                    if v.format_spec is not None:
                        return None
                    inner = fold_constant(v.value, d, env)
                    if inner is None:
                        return None
                    out.append(str(inner))
                else:
                    out.append(str(v.value))
            return "".join(out)
        if isinstance(node, ast.Call) and not node.keywords:
            args = [fold_constant(a, d, env) for a in node.args]
            if isinstance(node.func, ast.Attribute) and node.func.attr in FOLD_METHODS:
                target = fold_constant(node.func.value, d, env)
                if isinstance(target, (str, bytes)) and all(a is not None for a in args):
                    value = getattr(target, node.func.attr)(*args)
                    return value if len(value) <= FOLD_LIMIT else None
                return None
            if isinstance(node.func, ast.Name):
                name = node.func.id
                if name == "map" and len(node.args) == 2 and isinstance(node.args[0], ast.Name) \
                        and node.args[0].id == "chr" and isinstance(args[1], list):
                    return [chr(c) for c in args[1]]
                if name in {"chr", "str", "bytes", "bytearray", "list", "tuple", "reversed", "sorted"} and \
                        all(a is not None for a in args) and len(args) <= 1:
                    value = {"chr": chr, "str": str, "bytes": bytes, "bytearray": bytes, "list": list,
                             "tuple": list, "reversed": lambda x: list(reversed(x)), "sorted": sorted}[name](*args)
                    return value if not isinstance(value, (str, bytes, list)) or len(value) <= FOLD_LIMIT else None
    except (TypeError, ValueError, IndexError, OverflowError, MemoryError, UnicodeError, KeyError, AttributeError,
            ZeroDivisionError):  # `n % 0` of two constants (found by the round-10 site-packages scan)
        return None  # AttributeError: `"text".decode()` (Python 2 code) names a method str does not have
    return None


CHOICES_LIMIT = 8  # candidate values kept per name
COMBOS_LIMIT = 64  # combinations of candidate values tried per expression


def _stores(target: ast.AST, value: ast.AST, out: dict[str, list[ast.AST]]) -> None:
    if isinstance(target, ast.Name):
        out.setdefault(target.id, []).append(value)
    elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) and len(
            target.elts) == len(value.elts):  # `_a, _b = "__", "eq"`
        for t, v in zip(target.elts, value.elts):
            _stores(t, v, out)


def constant_names(tree: ast.AST) -> dict[str, list]:
    """Every constant value a name can be given by a store of a foldable expression, anywhere in the module
    (``_u = "_" * 2``, ``_e = "eq"``; ``_u = "_"; _u = _u + "_"`` gives ``_u`` both ``"_"`` and ``"__"``;
    ``+=`` and ``:=`` count as stores): red-team rounds 6 and 7 kept the pieces of ``"__eq__"`` and
    ``"__globals__"`` in such names, out of a fold's sight. Each use of the name is then folded with each of its
    values (:func:`fold_choices`), so a value one store gives and a later one replaces is still judged. Stores of
    anything else (a call, a parameter, a loop) add no value: the constants a name can hold are judged whatever else
    it can hold."""
    exprs: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                _stores(target, node.value, exprs)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            _stores(node.target, node.value, exprs)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            exprs.setdefault(node.target.id, []).append(
                ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value))
    env: dict[str, list] = {}
    for _ in range(4):  # names built from names: `_d = _u + "eq" + _u` after `_u = "__"`
        changed = False
        for name, values in exprs.items():
            for value in values:
                for folded in fold_choices(value, env):
                    if not _name_value(folded):
                        continue
                    known = env.setdefault(name, [])
                    if folded not in known and len(known) < CHOICES_LIMIT:
                        known.append(folded)
                        changed = True
        if not changed:
            break
    return env


def _name_value(value: object) -> bool:
    return isinstance(value, (str, bytes)) or (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, list) and all(isinstance(v, str) for v in value))


def fold_choices(node: ast.AST, env: dict[str, list]) -> list:
    """The distinct constants ``node`` folds to, one per combination of the values its names can hold (``env``:
    :func:`constant_names`); at most ``COMBOS_LIMIT`` combinations are tried."""
    names = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in env})
    if not names:
        value = fold_constant(node, env={})
        return [] if value is None else [value]
    out: list = []
    for combo in itertools.islice(itertools.product(*(env[n] for n in names)), COMBOS_LIMIT):
        value = fold_constant(node, env=dict(zip(names, combo)))
        if value is not None and value not in out:
            out.append(value)
    return out


def attribute_chain(node: ast.AST) -> str | None:
    """``a.b.c`` for an attribute chain rooted at a name, else ``None``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def mangled_class(name: str) -> str | None:
    """The class part of a name-mangled private name written out by hand (``_UserList__cast`` -> ``UserList``), or
    ``None``: a name CPython makes from ``__cast`` inside ``class UserList`` (leading underscores of the class name
    dropped). A dunder (``__x__``) is never mangled, so a name ending in ``__`` is none."""
    if len(name) < 5 or name[0] != "_" or name[1] == "_" or name.endswith("__"):
        return None
    cut = name.find("__", 2)
    return name[1:cut] if cut > 1 and len(name) > cut + 2 else None


def foreign_private(name: str, enclosing: str | None) -> bool:
    """``name`` is another class's mangled private name: it has the mangled shape and is not the one the innermost
    enclosing class ``enclosing`` itself makes (``_Foo__bar`` written inside ``class Foo`` or ``class _Foo`` is the
    same name as ``__bar`` there)."""
    if mangled_class(name) is None:
        return False
    own = (enclosing or "").lstrip("_")
    return not (own and name.startswith(f"_{own}__"))


def is_private(name: str) -> bool:
    """A name CPython mangles inside a class body: ``__x`` that is no dunder."""
    return name.startswith("__") and not name.endswith("__") and len(name) > 2


def import_aliases(tree: ast.AST) -> dict[str, str]:
    """Local names bound by imports anywhere in the module -> their dotted origin (the last one walked to; see
    :func:`import_origins` for every one)."""
    return {name: origins[-1] for name, origins in import_origins(tree).items()}


def _binding_counts(tree: ast.AST) -> dict[str, int]:
    """How many places in the file bind each name (assignment and loop targets, parameters, ``def``/``class``,
    imports, ``except … as``, ``match`` captures, ``global``/``nonlocal``), scopes not told apart."""
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        names: list = []
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names = [node.id]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.asname or a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names = [node.name]
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names = [node.name]
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names = list(node.names)
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    return counts


def assigned_aliases(tree: ast.AST, aliases: Mapping[str, str]) -> dict[str, str]:
    """The names (not bound by an import) that a plain assignment, a walrus, or a ``for`` over a literal list, tuple
    or set binds to an imported name or an attribute chain rooted at one -> its dotted origin: ``_m = uuid``,
    ``_enc = json.encoder``, ``for _m in [json]``. Red-team round 47 set ``_m.NAMESPACE_URL`` through such an alias,
    which no rule followed; the screen judges what is set or deleted through them (only that: a name bound to a
    library object once and to a fallback elsewhere, ``get_current_greenlet = greenlet.getcurrent`` or ``int``, is
    read as itself). Only a name the file binds once (the screen does not tell scopes apart)."""
    pairs: list[tuple[str, ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            pairs += [(t.id, node.value) for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name) and node.value:
            pairs.append((node.target.id, node.value))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and isinstance(node.target, ast.Name) \
                and isinstance(node.iter, (ast.List, ast.Tuple, ast.Set)):
            pairs += [(node.target.id, element) for element in node.iter.elts]
    found: dict[str, str] = {}
    bound = _binding_counts(tree)
    changed = True
    while changed:  # (chains: `_a = json; _b = _a`)
        changed = False
        for name, value in pairs:
            chain = attribute_chain(value)
            head = chain.split(".")[0] if chain is not None else None
            # (a name bound once in the whole file only: the screen does not follow scopes, and a local ``m`` of
            # one function is no alias another function's ``m = json`` made; helper 139's honest hunt)
            if name in aliases or name in found or head is None or head == name or bound.get(name, 0) != 1:
                continue
            origin = aliases.get(head) or found.get(head)
            if origin is not None:
                found[name] = origin + chain[len(head):]
                changed = True
    return found


def import_origins(tree: ast.AST) -> dict[str, list[str]]:
    """Local names bound by imports anywhere in the module -> every dotted origin they are imported from, in walk
    order (``import sys`` at the top and ``import json as sys`` in a def: both)."""
    out: dict[str, list[str]] = {}

    def add(name: str, origin: str) -> None:
        origins = out.setdefault(name, [])
        if origin in origins:
            origins.remove(origin)
        origins.append(origin)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                add(a.asname or a.name.split(".")[0], a.name if a.asname else a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            for a in node.names:
                if a.name != "*":  # relative ones too: `from . import compat` makes `compat` a module
                    add(a.asname or a.name, f"{base}.{a.name}" if node.module else base + a.name)
    return out
