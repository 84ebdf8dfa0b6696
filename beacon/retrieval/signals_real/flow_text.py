"""The text half of the flow signal (``flow``): the snippet read with hops, star imports, and what a definition returns.

``flow_uses(text)`` is ``snippets.uses`` with one addition: a method called on
a value the reader tracks (a call, or a variable bound to one) is a *hop*, so
``z = Cls(1).method(2)`` binds ``z`` to ``Cls|method`` and ``z.other()`` is a
use of ``other`` on it (at most ``MAX_HOPS`` hops; ``self.m()`` in a class is
a hop on the class). ``star_imports(text)``:
the modules of ``from pkg import *`` lines. ``return_types(source)``: what a
definition's own source says it returns: its annotation, or, without one,
every ``return`` value read by the same reader over the body (so
``b = B(); return b.go()`` is ``B|go``, ``return self._make()`` is
``Self|_make``), ``Self`` for the receiver's own class. Pure text in, no
graph; ``flow`` resolves all of it.
"""
from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field

from .snippets import _FACTORY, MAX_CHARS, SnippetClass, Uses, _Reader, dotted, modules

HOP = "|"  # separates a value's head expression from the methods called on it: ``Cls|method|other``
MAX_HOPS = 3  # calls followed on one value; a longer chain is not tracked
_STAR = re.compile(r"(?m)^\s*(?:>>>\s*)?from\s+([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s+import\s+\*")
_SELF_TYPES = frozenset({"Self", "typing.Self", "typing_extensions.Self"})


def star_imports(query: str) -> list[str]:
    """The modules of the query's ``from pkg import *`` lines, in order."""
    return list(dict.fromkeys(_STAR.findall(query[:MAX_CHARS])))


@dataclass
class FlowUses(Uses):
    functions: set[str] = field(default_factory=set)  # names the snippet defines with ``def``: its own code


class _FlowReader(_Reader):
    """``snippets``' reader, plus: a method called on a tracked value is a hop (``x = a.m()`` binds ``x``)."""

    out: FlowUses

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if self.cls is None:
            self.out.functions.add(node.name)
        super().visit_FunctionDef(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def receiver(self, expr: ast.AST) -> str | None:
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
                and not _FACTORY.fullmatch(expr.func.attr):
            obj = expr.func.value
            tracked = obj.id in self.out.bindings or (obj.id == "self" and self.cls is not None) \
                if isinstance(obj, ast.Name) else isinstance(obj, ast.Call)
            if tracked:
                inner = self.receiver(obj)
                if inner is None or inner.count(HOP) >= MAX_HOPS:
                    return None
                return f"{inner}{HOP}{expr.func.attr}"
        return super().receiver(expr)


def flow_uses(text: str) -> FlowUses:
    """The uses of ``snippets.uses`` with hops: a ``receiver`` ``Cls|m|n`` is the value of ``Cls(...).m().n()``;
    and the functions the snippet defines."""
    out = FlowUses()
    for tree in modules(text):
        try:
            _FlowReader(out).visit(tree)
        except RecursionError:
            continue
    return out


def _annotation(expr: ast.AST | None) -> list[str]:
    """The class expressions a return annotation names (``Optional[X]``, ``X | None``, ``"X"``); [] for None."""
    if expr is None:
        return []
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        try:
            return _annotation(ast.parse(expr.value, mode="eval").body)
        except (SyntaxError, ValueError, RecursionError):
            return []
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
        return _annotation(expr.left) + _annotation(expr.right)
    if isinstance(expr, ast.Subscript) and dotted(expr.value) in ("Optional", "typing.Optional", "Union",
                                                                  "typing.Union"):
        inner = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        return [name for e in inner for name in _annotation(e)]
    name = dotted(expr)
    return [name] if name is not None and name != "None" else []


def _returned(reader: _FlowReader, value: ast.AST | None) -> str | None:
    """The value one ``return`` gives, as a chain in the callee's own namespace: ``self``, ``cls(...)``,
    ``type(self)(...)``, ``self.__class__(...)`` -> ``Self``; ``self.m(...)`` -> ``Self|m``; ``Cls(...)`` ->
    ``Cls``; ``b.go()`` after ``b = B()`` -> ``B|go``; ``helper(x)`` -> ``helper``; None for anything else."""
    if isinstance(value, ast.Name) and value.id == "self":
        return "Self"
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    if isinstance(func, ast.Name) and func.id == "cls":
        return "Self"
    if isinstance(func, ast.Call) and dotted(func.func) == "type":
        return "Self"
    if dotted(func) == "self.__class__":
        return "Self"
    return reader.receiver(value)


def return_types(source: str) -> list[str]:
    """What a definition's source says it returns: class expressions of its annotation, or without one the
    chains its ``return`` values are (``_returned``); ``Self`` is the receiver's own class. Empty when the
    source says nothing certain (a ``return`` of anything else, or none)."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    fn = next((s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if fn is None:
        return []
    found = _annotation(fn.returns)
    if fn.returns is not None:  # ``def scope(self: _T) -> _T``: a TypeVar on self is the receiver's class too
        first = [*fn.args.posonlyargs, *fn.args.args][:1]
        own = _annotation(first[0].annotation) if first and first[0].annotation is not None else []
        return ["Self" if name in _SELF_TYPES or name in own else name for name in found]
    reader = _FlowReader(FlowUses())  # its bindings: the body's locals (``b = B()``) as a reader sees them
    reader.cls = SnippetClass("Self", [])  # ``self`` and ``super()`` are the receiver's class
    try:
        for stmt in fn.body:
            reader.visit(stmt)
    except RecursionError:
        return []
    returns, stack = [], list(fn.body)
    while stack:  # the function's own returns: nested functions and classes return for themselves
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Return):
            returns.append(_returned(reader, node.value))
        stack.extend(ast.iter_child_nodes(node))
    if not returns or None in returns:
        return []
    return list(dict.fromkeys(r for r in returns if r is not None))
