"""No module or class body of the package binds the same name twice with ``def``/``class``/an assignment.

A later definition silently replaces the earlier one, and every caller of the first then runs the second: session 20
merged two branches that each added a module-level ``_resolved`` to ``canary_plugin.py`` (one took a class and a
name, the other dotted parts and a namespace), and the honest werkzeug proxy read ``tampered`` with a ``TypeError``.
``typing.overload`` stubs and property setters/deleters (``@x.setter``) are the intended exceptions. A plain
top-level assignment counts too (session 44 found ``_func_dict`` and ``_MAIN_THREAD`` bound twice in
``canary_plugin.py``, harmless only because both bindings had the same value); an annotated name without a value
binds nothing.
"""
from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "beacon"


def _redefined(body: list[ast.stmt]) -> list[str]:
    names = []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decorators = [ast.unparse(d) for d in node.decorator_list]
            if any(d.endswith(("overload", ".setter", ".deleter", ".register")) for d in decorators):
                continue
            names.append(node.name)
        elif isinstance(node, ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [target.id for target in node.targets if isinstance(target, ast.Name)]
            names += [element.id for target in node.targets if isinstance(target, ast.Tuple)
                      for element in target.elts if isinstance(element, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [name for name, count in Counter(names).items() if count > 1]


def test_no_name_is_defined_twice_in_one_body():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        bodies = [("<module>", tree.body)] + [(n.name, n.body) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
        for owner, body in bodies:
            found += [f"{path.relative_to(PACKAGE.parent)}: {owner}: {name}" for name in _redefined(body)]
    assert not found, found
