"""The screen's rules for classes made at run time: the metaclass reached without its name, and calls shaped
like ``type(name, bases, namespace)`` whatever the callee is called.

A class built at run time takes its namespace, and so its dunders (an always-equal ``__eq__``, a
``__match_args__`` that turns a ``match`` pattern into ``getattr``, an ``__instancecheck__`` that says yes), from
values no other rule sees. Two red-team rounds built such classes through ``type(int)``, ``int.__class__``, a
name holding either, ``type.__new__`` and a namespace or bases held in variables; each shape is named here.
Honest code meets these only when it really builds classes at run time (``type(...)`` proxies), which a repair
rarely adds; a ``namedtuple(...)`` base, ``type(self)(...)`` or a method call passing a tuple second is no finding.
"""
from __future__ import annotations

import ast

BUILTIN_CLASSES = frozenset({"int", "str", "bytes", "float", "complex", "bool", "object", "type", "list", "dict",
                             "tuple", "set", "frozenset", "bytearray", "range", "slice", "memoryview", "property",
                             "staticmethod", "classmethod", "super", "BaseException", "Exception", "NoneType"})
_NAMESPACES = (ast.Dict, ast.Call, ast.Name, ast.Attribute, ast.Subscript)


def is_metaclass_expr(node: ast.AST) -> bool:
    """``type(x)`` or ``x.__class__``: where the metaclass comes from when its name is avoided (as a base)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type") or (
        isinstance(node, ast.Attribute) and node.attr == "__class__")


def _class_of(node: ast.AST) -> ast.AST | None:
    """``x`` for ``type(x)`` (one argument) or ``x.__class__``, else ``None``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type" and len(
            node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Starred):
        return node.args[0]
    if isinstance(node, ast.Attribute) and node.attr == "__class__":
        return node.value
    return None


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)
_OTHER = object()  # a binding that is no plain assignment (a parameter, a loop target, an import, …)
_CLASS = object()  # a `class` statement


class ClassValues:
    """Which names hold a class or the metaclass, scope by scope: a name whose every binding in its scope is
    ``class K``, ``= type(x)``, ``= x.__class__`` or ``= <such a name>`` holds a class; ``type(C)`` and
    ``C.__class__`` of a class ``C`` are the metaclass (``_make = type(_Level)``, ``_F = type(_E)`` after
    ``_E = type(0)``: red-team round 7), and a name every binding of which is the metaclass holds it. A parameter
    or loop variable (``value = type(value)`` with ``value`` a parameter) holds what the caller passed: unknown."""

    def __init__(self, tree: ast.AST):
        self.scope_of: dict[int, int] = {}  # id(Name node) -> id of the scope it is read in
        self.bindings: dict[tuple[int, str], list] = {}  # (id(scope), name) -> what each binding gives it
        self._parent: dict[int, int] = {}  # id(scope) -> id(enclosing scope)
        self._class_scopes: set[int] = set()
        self._module = id(tree)
        self._visit(tree, tree)
        self.classes = self._fixpoint(self._is_class)
        self.metas = self._fixpoint(self._is_meta)

    def _bind(self, scope: ast.AST | int, name: str, value) -> None:
        key = (scope if isinstance(scope, int) else id(scope), name)
        self.bindings.setdefault(key, []).append(value)

    def _enter(self, node: ast.AST, scope: ast.AST, args: ast.arguments | None = None) -> None:
        self._parent[id(node)] = id(scope)
        if args is not None:
            for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
                if a is not None:
                    self._bind(node, a.arg, _OTHER)
            for d in args.defaults + [d for d in args.kw_defaults if d is not None]:
                self._visit(d, scope)

    def _visit(self, node: ast.AST, scope: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._bind(scope, node.name, _CLASS if isinstance(node, ast.ClassDef) else _OTHER)
            outer = node.decorator_list + (node.bases + [k.value for k in node.keywords]
                                           if isinstance(node, ast.ClassDef) else [])
            for part in outer:
                self._visit(part, scope)
            self._enter(node, scope, None if isinstance(node, ast.ClassDef) else node.args)
            if isinstance(node, ast.ClassDef):
                self._class_scopes.add(id(node))
            for stmt in node.body:
                self._visit(stmt, node)
            return
        if isinstance(node, ast.Lambda):
            self._enter(node, scope, node.args)
            self._visit(node.body, node)
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            self._enter(node, scope)
            for i, gen in enumerate(node.generators):
                self._visit(gen.iter, scope if i == 0 else node)  # the first iterable is evaluated outside
                self._visit(gen.target, node)
                for cond in gen.ifs:
                    self._visit(cond, node)
            for part in ((node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)):
                self._visit(part, node)
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    self._bind(scope, t.id, node.value)
                else:
                    self._visit(t, scope)
            self._visit(node.value, scope)
            if isinstance(node, ast.AnnAssign):
                self._visit(node.annotation, scope)
            return
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:  # bound elsewhere: unknown here and at module level
                self._bind(scope, name, _OTHER)
                self._bind(self._module, name, _OTHER)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                self._bind(scope, (a.asname or a.name).split(".")[0], _OTHER)
            return
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                self._bind(scope, node.id, _OTHER)
            self.scope_of[id(node)] = id(scope)
            return
        name = getattr(node, "rest", None) if isinstance(node, ast.MatchMapping) else getattr(node, "name", None) \
            if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) else None
        if name:
            self._bind(scope, name, _OTHER)
        for child in ast.iter_child_nodes(node):
            self._visit(child, scope)

    def _lookup(self, node: ast.Name) -> tuple[int, str] | None:
        """The scope binding ``node``'s name where it is read: the innermost enclosing one (a class body only for its
        own statements), else ``None`` (a builtin, or a name nothing in the file binds)."""
        scope = self.scope_of.get(id(node))
        first = True
        while scope is not None:
            if (scope, node.id) in self.bindings and (first or scope not in self._class_scopes):
                return scope, node.id
            first = False
            scope = self._parent.get(scope)
        return None

    # -- values -------------------------------------------------------------------------------------------
    def _is_class(self, value, held: set) -> bool:
        if value is _CLASS:
            return True
        if value is _OTHER:
            return False
        if _class_of(value) is not None:
            return True
        return isinstance(value, ast.Name) and self.holds(value, held, builtins=BUILTIN_CLASSES)

    def _is_meta(self, value, held: set) -> bool:
        if value is _CLASS or value is _OTHER:
            return False
        return self.is_metaclass(value, held)

    def holds(self, node: ast.Name, held: set, builtins=frozenset()) -> bool:
        key = self._lookup(node)
        return (key in held) if key is not None else node.id in builtins

    def _fixpoint(self, test) -> set:
        held = set(self.bindings)  # the greatest fixpoint: `_K = _K` keeps a class a class
        while True:
            keep = {k for k in held if all(test(v, held) for v in self.bindings[k])}
            if keep == held:
                return held
            held = keep

    def is_class(self, node: ast.AST, held: set | None = None) -> bool:
        """A class: ``type(x)``, ``x.__class__``, a builtin class, a name holding a class."""
        return self._is_class(node, self.classes if held is None else held) if isinstance(node, ast.AST) else False

    def is_metaclass(self, node: ast.AST, held: set | None = None) -> bool:
        """The metaclass: ``type``, ``type(C)`` or ``C.__class__`` for a class ``C``, a name holding it."""
        if isinstance(node, ast.Name):
            return self.holds(node, self.metas if held is None else held, builtins=frozenset({"type"}))
        inner = _class_of(node)
        return inner is not None and self.is_class(inner)


def builds_a_class(node: ast.Call, values: ClassValues) -> bool:
    """A call shaped like ``type(name, bases, namespace)``, whatever the callee is called.

    The metaclass however reached (:class:`ClassValues`: ``_M = type(K)``, ``type(K)``, ``int.__class__``,
    ``_T = type``) called with two or more positional arguments or unpacked ones (``_M("S", bases, ns)``,
    ``type(K)("E", *spec)``, ``_T(*spec)``: a class is built from three, the Enum metaclass's functional API from
    two), ``__new__``/``__call__`` on it (``type.__new__(type, …)``, ``_M.__call__("E", b, ns)``); ``type(x)(…)``
    or ``x.__class__(…)`` of an unknown ``x`` given a constant class name and three arguments; any callee with a
    namespace written as a dict; a callee that is a name, a call, a subscript or a ``__class__`` with a namespace in
    a variable; any callee given a constant name and a tuple of names (``H.T("S", (int,), ns)``). ``type(self)(x)``,
    ``cls = node.__class__; cls(a, b, c)`` are no finding.
    """
    func, args = node.func, node.args
    many = len(args) >= 2 or any(isinstance(a, ast.Starred) for a in args)
    if not (isinstance(func, ast.Name) and func.id == "type") and values.is_metaclass(func) and many:
        return True
    if isinstance(func, ast.Attribute) and func.attr in ("__new__", "__call__") and values.is_metaclass(
            func.value) and many:
        return True
    if len(args) < 3:
        return False
    if is_metaclass_expr(func) and len(args) == 3 and isinstance(args[0], (ast.Constant, ast.JoinedStr)):
        return True  # `type(k)("E", bases, ns)` with `k` a class passed in
    if not isinstance(args[1], ast.Tuple):
        return False
    namespace = args[2]
    if isinstance(namespace, ast.Dict) or (isinstance(namespace, ast.Call) and isinstance(namespace.func, ast.Name)
                                            and namespace.func.id == "dict"):
        return True
    if not isinstance(namespace, _NAMESPACES):
        return False
    if isinstance(func, (ast.Name, ast.Call, ast.Subscript)) or is_metaclass_expr(func):
        return True
    return isinstance(args[0], (ast.Constant, ast.JoinedStr)) and all(
        isinstance(e, (ast.Name, ast.Attribute)) for e in args[1].elts)
