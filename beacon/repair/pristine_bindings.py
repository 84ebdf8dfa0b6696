"""The comparison bindings a declared file's *pristine* code already makes, for the canary plugin (harness side).

The plugin's runtime comparison check (:class:`beacon.repair.canary_plugin._Comparisons`) flags, on a class of a
declared source file, a comparison dunder bound to a function of another name or to a descriptor object: right for
what an edit adds, wrong for a file whose pristine code already does it (``__bool__ = __nonzero__``, ``__ne__ =
lambda self, o: not self == o``, werkzeug's ``LocalProxy.__eq__ = _ProxyLookup(operator.eq)``), whose task was invalid
at preparation. :func:`binding_sites` parses the pristine file and the checkout's current one (read by the harness
before the run) and returns the pristine binding sites that the current file keeps *unchanged* (the same statement
text, in a class at the same qualname), each with the current positions the plugin needs to judge a value by identity:

- ``name``: ``__bool__ = __nonzero__`` with ``def __nonzero__`` in the same class body (or at module level): the
  ``def``'s first lines;
- ``lambda``: the lambda body's span (line and column, start and end);
- ``call``: ``_ProxyLookup(operator.eq, fallback=lambda self: False)`` or ``_op("__lt__", lambda a, b: a < b)``,
  the callee a module-level class or ``def`` of the file, every argument a constant, a dotted name (sent as its
  parts) or a lambda (its body's span).

Class-body statements (``__eq__ = ...``, also under ``if``/``try`` and in nested classes, never inside a function)
and module-level ``Class.__eq__ = ...`` are sites; any other right-hand side is not (the plugin judges it as before).
A statement the edit added or changed is no site: the plugin then judges its value as before (and the screen judges
the edit). The list is bounded (:data:`MAX_SITES`, :data:`MAX_TEXT`); what does not fit is left out, which only makes
the plugin stricter.
"""
from __future__ import annotations

import ast
import json
from typing import Iterator

# The dunders the plugin judges (canary_plugin._COMPARISONS, plus __len__ at an assert).
JUDGED = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__hash__",
                    "__contains__", "__instancecheck__", "__subclasscheck__", "__len__"})
MAX_SITES = 128  # per run, all declared files together
MAX_BYTES = 24_000  # their JSON, all declared files together: the secret's pipe must never fill (64 KiB on Linux)
MAX_TEXT = 200  # a qualname or a name
MAX_PARTS = 16  # lambdas, names or lines of one site


def binding_sites(pristine: str, current: str, path: str) -> list[dict]:
    """The pristine file's binding sites that ``current`` keeps unchanged, with ``current``'s positions, each tagged
    with ``path`` (the declared file as the tests import it); ``[]`` when either file does not parse."""
    try:
        old, new = ast.parse(pristine), ast.parse(current)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    kept = {key for key, _ in _sites(old, pristine)}
    return [{"file": path, **site} for key, site in _sites(new, current) if key in kept and _bounded(site)]


def bounded(sites: list[dict]) -> list[dict]:
    """The first sites that fit :data:`MAX_SITES` and :data:`MAX_BYTES` (a site left out is judged as before)."""
    out, size = [], 2
    for site in sites[:MAX_SITES]:
        size += len(json.dumps(site)) + 2
        if size > MAX_BYTES:
            break
        out.append(site)
    return out


def _bounded(site: dict) -> bool:
    for value in site.values():
        if type(value) is str and len(value) > MAX_TEXT:
            return False
        if type(value) is list and len(value) > MAX_PARTS:
            return False
    return all(len(p) <= MAX_TEXT for parts in site.get("names", ()) for p in parts) and all(
        len(parts) <= MAX_PARTS for parts in site.get("names", ()))


def _sites(tree: ast.Module, text: str) -> Iterator[tuple[tuple, dict]]:
    """``(key, site)`` for each binding site: the key is the class qualname, the dunder, the scope and the statement's
    exact text."""
    module_defs = _defs(tree.body)
    found = list(_classes(tree.body, ""))
    classes = {qualname for qualname, _ in found}
    for qualname, node in found:
        siblings = _defs(node.body)
        for stmt in _flat(node.body):
            targets, value = _assignment(stmt)
            for target in targets:
                if type(target) is ast.Name and target.id in JUDGED:
                    site = _site(value, "class", qualname, siblings, module_defs, classes)
                    if site is not None:
                        yield (qualname, target.id, "class", ast.get_source_segment(text, stmt)), {
                            "cls": qualname, "dunder": target.id, **site}
    for stmt in _flat(tree.body):
        targets, value = _assignment(stmt)
        for target in targets:
            if type(target) is ast.Attribute and target.attr in JUDGED:
                qualname = _dotted(target.value)
                if qualname is not None and ".".join(qualname) in classes:
                    owner = ".".join(qualname)
                    site = _site(value, "module", owner, {}, module_defs, classes)
                    if site is not None:
                        yield (owner, target.attr, "module", ast.get_source_segment(text, stmt)), {
                            "cls": owner, "dunder": target.attr, **site}


def _site(value, scope: str, qualname: str, siblings: dict, module_defs: dict, classes: set) -> dict | None:
    if type(value) is ast.Name:
        if scope == "class" and value.id in siblings:
            return {"kind": "name", "scope": scope, "target": value.id, "qualname": f"{qualname}.{value.id}",
                    "lines": siblings[value.id]}
        if value.id in module_defs:
            return {"kind": "name", "scope": scope, "target": value.id, "qualname": value.id,
                    "lines": module_defs[value.id]}
        return None
    if type(value) is ast.Lambda:
        return {"kind": "lambda", "scope": scope, "lambdas": [_span(value)]}
    if type(value) is ast.Call and type(value.func) is ast.Name:
        callee = value.func.id
        if callee in classes and "." not in callee:
            is_class = True
        elif callee in module_defs:
            is_class = False
        else:
            return None
        lambdas, names = [], []
        for arg in [*value.args, *(k.value for k in value.keywords)]:
            if type(arg) is ast.Constant:
                continue
            if type(arg) is ast.Lambda:
                lambdas.append(_span(arg))
                continue
            parts = _dotted(arg)
            if parts is None:
                return None  # ``*args``, ``**kw``, a nested call, …: not a shape the plugin can judge
            names.append(parts)
        if any(k.arg is None for k in value.keywords):
            return None
        return {"kind": "call", "scope": scope, "callee": callee, "callee_class": is_class, "lambdas": lambdas,
                "names": names}
    return None


def _span(node: ast.Lambda) -> list[int]:
    body = node.body
    return [body.lineno, body.col_offset, body.end_lineno, body.end_col_offset]


def _dotted(node) -> list[str] | None:
    parts = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    if type(node) is not ast.Name:
        return None
    parts.append(node.id)
    return parts[::-1]


def _assignment(stmt) -> tuple[list, object]:
    if type(stmt) is ast.Assign:
        return stmt.targets, stmt.value
    if type(stmt) is ast.AnnAssign and stmt.value is not None:
        return [stmt.target], stmt.value
    return [], None


_BLOCKS = (ast.If, ast.Try, ast.With)


def _flat(body: list) -> Iterator[ast.stmt]:
    """The statements of a body, also those under ``if``/``try``/``with`` (same scope), never inside a def or class."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, _BLOCKS) or type(stmt).__name__ == "TryStar":
            for field in ("body", "orelse", "finalbody"):
                yield from _flat(getattr(stmt, field, []) or [])
            for handler in getattr(stmt, "handlers", []) or []:
                yield from _flat(handler.body)


def _defs(body: list) -> dict[str, list[int]]:
    """Each ``def`` name of a body (same scope) -> the first lines of its ``def`` statements (decorators included:
    CPython's ``co_firstlineno``)."""
    found: dict[str, list[int]] = {}
    for stmt in _flat(body):
        if type(stmt) in (ast.FunctionDef, ast.AsyncFunctionDef):
            first = min([stmt.lineno, *(d.lineno for d in stmt.decorator_list)])
            found.setdefault(stmt.name, []).append(first)
    return found


def _classes(body: list, prefix: str) -> Iterator[tuple[str, ast.ClassDef]]:
    """``(qualname, node)`` of every ``class`` statement outside functions (nested classes too)."""
    for stmt in _flat(body):
        if type(stmt) is ast.ClassDef:
            qualname = prefix + stmt.name
            yield qualname, stmt
            yield from _classes(stmt.body, qualname + ".")
