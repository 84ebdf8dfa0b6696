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

``GAPS`` are shapes the reader follows only when asked (``gap_set``, the
composer's ``flow_gaps``; none by default, so the signal is unchanged):
``tuples`` (``a, b = Cls(), Other()`` element-wise; ``fig, ax = f()`` binds
``fig`` to item 0 of ``f``'s value, ``f#0``, read from a ``return x, y`` or a
``-> tuple[X, Y]``), ``attrs`` (an attribute of a tracked value is a hop,
``x.attr.m()`` is ``m`` on ``X|.attr``; ``attribute_types`` reads what a class
says an attribute holds: ``attr: T``, ``self.attr = Cls(...)``; a property's
value is its return), ``names`` (``obj = Cls(); return obj``: a returned
name bound earlier) and ``frames`` (a traceback's printed source lines,
``flow_frames``).
"""
from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field

from .snippets import _FACTORY, MAX_CHARS, SnippetClass, Use, Uses, _Reader, dotted, modules

HOP = "|"  # separates a value's head expression from the methods called on it: ``Cls|method|other``
MAX_HOPS = 3  # calls followed on one value; a longer chain is not tracked
# a line's own indentation only (``[^\S\n]*``), as ``dotted._FROM``: the same matches, in linear time
_STAR = re.compile(r"(?m)^[^\S\n]*(?:>>>\s*)?from\s+([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s+import\s+\*")
_SELF_TYPES = frozenset({"Self", "typing.Self", "typing_extensions.Self"})
GAPS = ("tuples", "attrs", "names", "frames")  # shapes followed only on request (``gap_set``)
ITEM = "#"  # ``f#1``: item 1 of the tuple a call gives (``tuples``)
ATTR = "."  # ``Cls|.attr``: an attribute hop (``attrs``)
_TUPLES = frozenset({"tuple", "Tuple", "typing.Tuple"})


def gap_set(spec: str) -> frozenset[str]:
    """``""`` (none), ``"all"`` or ``"+"``-separated names of ``GAPS``; anything else is an error naming them."""
    parts = set(GAPS) if spec == "all" else {p for p in spec.split("+") if p}
    unknown = parts - set(GAPS)
    if unknown:
        raise ValueError(f"flow_gaps: unknown {sorted(unknown)}; use '', 'all' or names of {GAPS} joined by '+'")
    return frozenset(parts)


def star_imports(query: str) -> list[str]:
    """The modules of the query's ``from pkg import *`` lines, in order."""
    return list(dict.fromkeys(_STAR.findall(query[:MAX_CHARS])))


@dataclass
class FlowUses(Uses):
    functions: set[str] = field(default_factory=set)  # names the snippet defines with ``def``: its own code


class _FlowReader(_Reader):
    """``snippets``' reader, plus: a method called on a tracked value is a hop (``x = a.m()`` binds ``x``)."""

    out: FlowUses

    def __init__(self, out: FlowUses, gaps: frozenset[str] = frozenset()) -> None:
        super().__init__(out)
        self.gaps = gaps

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if self.cls is None:
            self.out.functions.add(node.name)
        super().visit_FunctionDef(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def _tracked(self, obj: ast.AST) -> bool:
        """Whether the reader knows the value ``obj`` is: a bound name, ``self`` in a class, a call (with
        ``attrs``: an attribute of such a value)."""
        if isinstance(obj, ast.Name):
            return obj.id in self.out.bindings or (obj.id == "self" and self.cls is not None)
        if isinstance(obj, ast.Attribute) and "attrs" in self.gaps:
            return self._tracked(obj.value)
        return isinstance(obj, ast.Call)

    def _hop(self, obj: ast.AST, step: str) -> str | None:
        inner = self.receiver(obj)
        if inner is None or inner.count(HOP) >= MAX_HOPS:
            return None
        return f"{inner}{HOP}{step}"

    def receiver(self, expr: ast.AST) -> str | None:
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
                and not _FACTORY.fullmatch(expr.func.attr) and self._tracked(expr.func.value):
            return self._hop(expr.func.value, expr.func.attr)
        if "attrs" in self.gaps and isinstance(expr, ast.Attribute) and self._tracked(expr.value):
            return self._hop(expr.value, ATTR + expr.attr)
        return super().receiver(expr)

    def visit_Call(self, node: ast.Call) -> None:
        """As ``snippets``' reader, but ``x.attr(...)`` is not also a use of the value ``X|.attr`` itself."""
        found = self.receiver(node.func) if isinstance(node.func, (ast.Name, ast.Attribute)) else None
        if found is not None and not found.rsplit(HOP, 1)[-1].startswith(ATTR):
            self.out.add(Use(found))
        self.generic_visit(node)

    def bind(self, target: ast.AST, value: ast.AST | None) -> None:
        if "tuples" in self.gaps and isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, ast.AST) \
                and not any(isinstance(e, ast.Starred) for e in target.elts):
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                for t, v in zip(target.elts, value.elts):  # a, b = Cls(), Other(): element-wise
                    self.bind(t, v if not isinstance(v, ast.Starred) else None)
                return
            found = self.receiver(value) if isinstance(value, ast.Call) else None
            if found is not None and ITEM not in found.rsplit(HOP, 1)[-1]:  # fig, ax = f(): items of its value
                for i, t in enumerate(target.elts):
                    if isinstance(t, ast.Name):
                        self.out.bindings[t.id] = f"{found}{ITEM}{i}"
                    else:
                        self.unbind(t)
                return
        if "attrs" in self.gaps and isinstance(target, ast.Name) and isinstance(value, ast.Attribute):
            found = self.receiver(value)  # y = x.attr
            if found is not None and HOP in found:
                self.out.bindings[target.id] = found
                return
        super().bind(target, value)


def flow_uses(text: str, gaps: frozenset[str] = frozenset()) -> FlowUses:
    """The uses of ``snippets.uses`` with hops: a ``receiver`` ``Cls|m|n`` is the value of ``Cls(...).m().n()``;
    and the functions the snippet defines (``gaps``: see the module docstring)."""
    out = FlowUses()
    for tree in modules(text):
        try:
            _FlowReader(out, gaps).visit(tree)
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
    ``Cls``; ``b.go()`` after ``b = B()`` -> ``B|go``; ``helper(x)`` -> ``helper``; with ``names`` a name
    bound earlier (``obj = Cls(); return obj``), with ``attrs`` ``self.attr`` -> ``Self|.attr``; None for
    anything else."""
    if isinstance(value, ast.Name) and value.id == "self":
        return "Self"
    if isinstance(value, ast.Name) and "names" in reader.gaps:
        return reader.out.bindings.get(value.id)
    if isinstance(value, ast.Attribute) and "attrs" in reader.gaps:
        found = reader.receiver(value)
        return found if found is not None and HOP in found else None
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


def _item(value: ast.AST | None, item: int | None) -> ast.AST | None:
    """``value`` itself (``item`` None), or its ``item``-th element when it is a tuple that long (else None)."""
    if item is None:
        return value
    if isinstance(value, ast.Tuple) and item < len(value.elts) and not isinstance(value.elts[item], ast.Starred):
        return value.elts[item]
    return None


def _body_reader(body: list[ast.stmt], gaps: frozenset[str]) -> _FlowReader | None:
    """A reader that has read ``body`` (its bindings: the locals, ``b = B()``), ``self`` the receiver's class."""
    reader = _FlowReader(FlowUses(), gaps)
    reader.cls = SnippetClass("Self", [])  # ``self`` and ``super()`` are the receiver's class
    try:
        for stmt in body:
            reader.visit(stmt)
    except RecursionError:
        return None
    return reader


def _own(body: list[ast.stmt], kind: type | tuple[type, ...]) -> list:
    """The nodes of ``kind`` in ``body``, nested functions and classes left out (they are their own scope)."""
    out, stack = [], list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, kind):
            out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return out


def _first_def(source: str, kind: type | tuple[type, ...]) -> ast.AST | None:
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return next((s for s in tree.body if isinstance(s, kind)), None)


def return_types(source: str, gaps: frozenset[str] = frozenset(), item: int | None = None) -> list[str]:
    """What a definition's source says it returns: class expressions of its annotation, or without one the
    chains its ``return`` values are (``_returned``); ``Self`` is the receiver's own class. Empty when the
    source says nothing certain (a ``return`` of anything else, or none). ``item``: the ``item``-th element
    of the tuple it returns (``-> tuple[X, Y]``, ``return x, y``; ``tuples`` in ``gaps``)."""
    fn = _first_def(source, (ast.FunctionDef, ast.AsyncFunctionDef))
    if fn is None or (item is not None and "tuples" not in gaps):
        return []
    if fn.returns is not None:  # ``def scope(self: _T) -> _T``: a TypeVar on self is the receiver's class too
        annotation = fn.returns
        if item is not None:
            tup = isinstance(annotation, ast.Subscript) and dotted(annotation.value) in _TUPLES \
                and isinstance(annotation.slice, ast.Tuple)
            annotation = _item(annotation.slice, item) if tup else None
        found = _annotation(annotation)
        first = [*fn.args.posonlyargs, *fn.args.args][:1]
        own = _annotation(first[0].annotation) if first and first[0].annotation is not None else []
        return ["Self" if name in _SELF_TYPES or name in own else name for name in found]
    reader = _body_reader(fn.body, gaps)
    if reader is None:
        return []
    returns = [_returned(reader, _item(node.value, item)) for node in _own(fn.body, ast.Return)]
    if not returns or None in returns:
        return []
    return list(dict.fromkeys(r for r in returns if r is not None))


def is_property(source: str) -> bool:
    """Whether a method's source decorates it with a ``*property`` (``property``, ``cached_property``, ...)."""
    fn = _first_def(source, (ast.FunctionDef, ast.AsyncFunctionDef))
    return fn is not None and any((dotted(d) or "").rsplit(".", 1)[-1].endswith("property")
                                  for d in fn.decorator_list)


def attribute_types(source: str, name: str, gaps: frozenset[str] = frozenset()) -> list[str]:
    """What a class's source says its attribute ``name`` holds, as chains in the class's namespace: an
    annotation (``name: T`` in the body, ``self.name: T`` in a method) or, without one, every value its
    methods assign (``self.name = Cls(...)``, read like a return; ``None`` skipped). A class-level
    ``name = Cls(...)`` is left out: often a descriptor (a field), whose instances hold something else.
    Empty when one value is unknown."""
    cls = _first_def(source, ast.ClassDef)
    if cls is None:
        return []
    values: list[str | None] = []
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            return _annotation(stmt.annotation)
    for fn in (s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))):
        reader = None
        for node in _own(fn.body, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not any(isinstance(t, ast.Attribute) and t.attr == name and dotted(t.value) == "self"
                       for t in targets):
                continue
            if isinstance(node, ast.AnnAssign):
                return _annotation(node.annotation)
            if isinstance(node.value, ast.Constant) and node.value.value is None:
                continue
            reader = reader or _body_reader(fn.body, gaps)
            values.append(_returned(reader, node.value) if reader is not None else None)
    if not values or None in values:
        return []
    return list(dict.fromkeys(v for v in values if v is not None))
