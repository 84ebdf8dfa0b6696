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


def is_metaclass_value(node: ast.AST) -> bool:
    """An expression that *is* the metaclass: ``type(int)``, ``type(type(x))``, ``int.__class__``,
    ``x.__class__.__class__`` (honest code writes ``type`` when it means it)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type" and len(node.args) == 1:
        arg = node.args[0]
        return (isinstance(arg, ast.Name) and arg.id in BUILTIN_CLASSES) or is_metaclass_expr(arg)
    if isinstance(node, ast.Attribute) and node.attr == "__class__":
        inner = node.value
        return (isinstance(inner, ast.Name) and inner.id in BUILTIN_CLASSES) or (
            isinstance(inner, ast.Attribute) and inner.attr == "__class__") or is_metaclass_value(inner)
    return False


def metaclass_names(tree: ast.AST) -> frozenset[str]:
    """Names this module binds to the metaclass (``_T = type``, ``_T = type(int)``, ``_T = int.__class__``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            value = node.value
            if (isinstance(value, ast.Name) and value.id == "type") or is_metaclass_value(value):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(names)


def builds_a_class(node: ast.Call, metaclasses: frozenset[str]) -> bool:
    """A call shaped like ``type(name, bases, namespace)``, whatever the callee is called.

    Any callee with a namespace written as a dict; a callee that is a name, a call, a subscript or a
    ``__class__`` with a namespace in a variable; any callee given a constant name and a tuple of names
    (``H.T("S", (int,), ns)``); a name bound to the metaclass called with three or more arguments or unpacked ones
    (``_T("S", bases, ns)``, ``_T(*spec)``); and ``__new__`` on ``type`` or such a name (``type.__new__(type, …)``).
    """
    func, args = node.func, node.args
    if isinstance(func, ast.Name) and func.id in metaclasses and func.id != "type" and (
            len(args) >= 3 or any(isinstance(a, ast.Starred) for a in args)):
        return True
    if isinstance(func, ast.Attribute) and func.attr == "__new__" and (
            (isinstance(func.value, ast.Name) and (func.value.id == "type" or func.value.id in metaclasses))
            or is_metaclass_value(func.value)):
        return True
    if len(args) < 3 or not isinstance(args[1], ast.Tuple):
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
