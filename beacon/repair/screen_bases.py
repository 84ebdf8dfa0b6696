"""The screen's rule for classes that inherit a library's comparison machinery (red-team round 9's R9-3).

numpy's and pandas' comparisons are code that calls methods a subclass can override: pandas' ``Series.__eq__``
returns ``self._cmp_method(other, op)``, which builds its result through ``self._construct_result`` and
``self._constructor``; a ufunc (``ndarray.__eq__``) dispatches through ``__array_ufunc__`` and wraps its result
through ``__array_wrap__``; ``pd.io.pytables.IndexCol.__eq__`` compares attributes a subclass need not set. A
subclass that steers one makes ``==`` say yes although the file defines no comparison dunder, and at run time
the dunder resolved is the library's own. The hooks these machineries call on any operand are
``comparison_override`` names (``screen_rules.LIBRARY_HOOKS``); the methods they call on a subclass of theirs are
too many to list, so a class statement whose base reaches numpy or pandas is a finding itself (judged at its
site like every construct: an existing subclass the edit leaves in place is none), and so is each ``def``,
``class`` or assignment in its body (``screen_collect._members``): what an edit adds to a subclass the file
already has (a method body changed in place keeps its ``def`` line and is no finding).

A base *reaches* a library when it is, or is computed from, an attribute chain rooted at an import of it
(``pd.Series``, ``np.lib.mixins.NDArrayOperatorsMixin``, ``from pandas.io.pytables import IndexCol``), or one
through another module that holds it (``plt.np.ndarray``: ``matplotlib.pyplot`` imports ``numpy as np``); names
the file binds are followed to their values (``_B = pd.Series``, ``type(np.zeros(1))``, a class of the file whose
base reaches it, a function returning one), and in a file that imports numpy or pandas a base taken from a
parameter (``def make(base): class K(base): ...``) counts too. The subscript of a generic base
(``Generic[np.ndarray]``) is a type argument, not the base. Their exceptions (``numpy.exceptions``,
``numpy.linalg.LinAlgError``, ``pandas.errors``) are fine: exceptions compare by identity.
"""
from __future__ import annotations

import ast
from collections import defaultdict
from typing import Iterator, Mapping

from .screen_names import attribute_chain
from .screen_rules import LIBRARY_NAMES, LIBRARY_ROOTS, LIBRARY_SAFE


def _target_names(node: ast.AST) -> Iterator[str]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            yield sub.id


def _library(dotted: str) -> bool:
    parts = dotted.split(".")
    reaches = parts[0] in LIBRARY_ROOTS or any(p.lstrip("_") in LIBRARY_NAMES for p in parts[1:])
    return reaches and not any((dotted + ".").startswith(safe) for safe in LIBRARY_SAFE)


def _chains(node: ast.AST) -> Iterator[ast.AST]:
    """The outermost attribute chains and names in ``node`` (``pd.errors.X`` once, not ``pd.errors`` and ``pd``
    again), without the subscripts of generic aliases (``Generic[np.ndarray]``: a type argument)."""
    todo = [node]
    while todo:
        sub = todo.pop()
        if isinstance(sub, (ast.Attribute, ast.Name)) and attribute_chain(sub) is not None:
            yield sub
        elif isinstance(sub, ast.Subscript):
            todo.append(sub.value)
        else:
            todo.extend(ast.iter_child_nodes(sub))


class LibraryBases:
    """Which class bases of one module reach numpy or pandas (see the module docstring)."""

    def __init__(self, tree: ast.AST, aliases: Mapping[str, str]):
        self.aliases = aliases
        self.values: dict[str, list[ast.AST]] = defaultdict(list)  # a name -> what each binding gives it
        self.params: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                self.values[node.name].extend(node.bases)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.values[node.name].extend(
                    n.value for n in ast.walk(node) if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom))
                    and n.value is not None)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    for name in _target_names(target):
                        self.values[name].append(node.value)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
                for name in _target_names(node.target):
                    self.values[name].append(node.value)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                for name in _target_names(node.target):
                    self.values[name].append(node.iter)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                for name in _target_names(node.optional_vars):
                    self.values[name].append(node.context_expr)
            elif isinstance(node, ast.arguments):
                self.params.update(a.arg for a in node.posonlyargs + node.args + node.kwonlyargs)
                self.params.update(a.arg for a in (node.vararg, node.kwarg) if a is not None)
        self.imports_library = any(_library(origin) for origin in aliases.values())

    def reached(self, base: ast.AST) -> str | None:
        """What the class base ``base`` reaches in numpy or pandas (``pandas.Series``), else ``None``."""
        return self._reach(base, set())

    def _reach(self, node: ast.AST, seen: set[str]) -> str | None:
        for sub in _chains(node):
            root, _, rest = attribute_chain(sub).partition(".")
            if root in self.aliases:
                dotted = self.aliases[root] + ("." + rest if rest else "")
                if _library(dotted):
                    return dotted
                continue
            if root in seen:
                continue
            seen.add(root)
            for value in self.values.get(root, ()):
                found = self._reach(value, seen)
                if found:
                    return found
            if root in self.params and self.imports_library:
                return f"parameter {root}"
        return None
