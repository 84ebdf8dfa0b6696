"""What a project module does when it is imported, for the judge of new project imports (``screen_imports``).

Two questions about a module read at the task's commit, answered from its syntax tree:

- :func:`dead_statements`: which of its ``if`` branches no Python 3 runs (``if PY2:``), so that what they bind and the
  screened code they hold (werkzeug's ``exec('def reraise…')``) do not count. Red-team round 23 (R23-2) showed how a
  first version decided branches that run: a def called at the top level that sets ``compat.PY2 = True``, a star
  import, a walrus inside an assignment, a micro version assumed to be 0, a one-line ``if PY2: pass`` whose header
  line was taken for the branch. Now a test is decided only from ``sys.version_info`` over every Python 3 release
  shape (minor, micro, release level, serial), names hold what it gave only until a statement that may run any other
  code (a call that is not a ``sys`` string method or an unshadowed builtin of a few, a project or star import, a
  class, a decorator, a ``with``/``for``, an assignment to anything but names), and branches are statements.
- :func:`import_time_units`: the code that runs when the module is imported (its top-level statements, class bodies,
  decorators, default values, annotations, base classes; not function bodies), each with whether it is a *plain*
  assignment (names bound to constants, names and attribute chains of imported modules: nothing runs). Round 23
  (R23-3, R23-4) showed screened code there that the judge took for a def's business (``class _Setup:
  globals().update(…)``, ``def f(x=_setup())``, a top-level ``_setup()``) or for a harmless assignment
  (``_R: globals().update(…) = None``, ``_D = _Box[eval]`` running ``__class_getitem__``, a table updated with a
  tainted name).
"""
from __future__ import annotations

import ast
from itertools import product

# Every Python 3 release shape a version test is evaluated at: a branch is dead only when each of them skips it.
PYTHON3 = tuple((3, minor, micro, level, serial) for minor, micro, level, serial in product(
    range(0, 30), (0, 1, 9, 30), ("alpha", "beta", "candidate", "final"), (0, 1, 5)))
_COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
            ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
# Calls that run nothing but the interpreter's own code on builtin values (when the module has not rebound the name
# by then), and the `sys` attributes and string methods an inert expression may read.
_BUILTIN_CALLS = frozenset({"str", "any", "all", "hasattr", "getattr", "isinstance", "tuple", "int", "len", "bool"})
_SYS_VALUES = frozenset({"platform", "version", "version_info", "maxsize", "byteorder", "hexversion", "implementation",
                         "flags", "float_info", "pypy_version_info", "api_version"})
_STR_METHODS = frozenset({"lower", "upper", "startswith", "endswith", "split", "strip", "find", "replace", "name"})
_SYS = object()  # what ``import sys`` bound


class _State:
    """The names decided so far: ``values`` name -> its value at each of PYTHON3 (or _SYS), ``plain`` names that hold
    a builtin value (a string, a number: an operator on them runs nothing), ``rebound`` names stored so far."""

    def __init__(self):
        self.values: dict = {}
        self.plain: set = set()
        self.rebound: set = set()
        self.cleared = False

    def copy(self) -> "_State":
        other = _State()
        other.values, other.plain, other.rebound = dict(self.values), set(self.plain), set(self.rebound)
        return other

    def clear(self) -> None:
        self.values.clear()
        self.plain.clear()
        self.cleared = True

    def forget(self, names) -> None:
        for name in names:
            self.values.pop(name, None)
            self.plain.discard(name)
            self.rebound.add(name)


def stored(node: ast.AST) -> set[str]:
    """Every name a statement binds anywhere in it (targets, imports, defs, classes, walruses, ``except … as``)."""
    names = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
            names.add(child.id)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            names.update(alias.asname or alias.name.split(".")[0] for alias in child.names)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(child.name)
        elif isinstance(child, ast.ExceptHandler) and child.name:
            names.add(child.name)
        elif isinstance(child, (ast.MatchAs, ast.MatchStar)) and child.name:
            names.add(child.name)
    return names


def _value(node: ast.expr, state: _State, at: int, depth: int = 0):
    """``node``'s value at PYTHON3[at], from constants, ``sys.version_info`` and decided names; ValueError if not
    decided this way."""
    version = PYTHON3[at]
    if depth > 16:
        raise ValueError("too deep")
    if isinstance(node, ast.Constant) and type(node.value) in (int, bool, str):
        return node.value
    if isinstance(node, ast.Tuple):
        return tuple(_value(item, state, at, depth + 1) for item in node.elts)
    if isinstance(node, ast.Name) and node.id in state.values:
        held = state.values[node.id]
        return held if held is _SYS else held[at]
    if isinstance(node, ast.Attribute) and node.attr == "version_info" and _value(node.value, state, at) is _SYS:
        return version
    if isinstance(node, ast.Attribute) and node.attr in ("major", "minor", "micro"):
        if _value(node.value, state, at, depth + 1) is not version:
            raise ValueError("not version_info")
        return version[("major", "minor", "micro").index(node.attr)]
    if isinstance(node, ast.Subscript) and _value(node.value, state, at, depth + 1) is version:
        index = node.slice
        if isinstance(index, ast.Constant) and type(index.value) is int:
            return version[index.value]
        if isinstance(index, ast.Slice) and index.step is None and all(
                bound is None or (isinstance(bound, ast.Constant) and type(bound.value) is int)
                for bound in (index.lower, index.upper)):
            return version[slice(index.lower and index.lower.value, index.upper and index.upper.value)]
        raise ValueError("index")
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        return _COMPARE[type(node.ops[0])](_value(node.left, state, at, depth + 1),
                                          _value(node.comparators[0], state, at, depth + 1))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _value(node.operand, state, at, depth + 1)
    if isinstance(node, ast.BoolOp):
        parts = [bool(_value(item, state, at, depth + 1)) for item in node.values]
        return all(parts) if isinstance(node.op, ast.And) else any(parts)
    raise ValueError("not decided")


def _values(node: ast.expr, state: _State) -> tuple | None:
    try:
        return tuple(_value(node, state, at) for at in range(len(PYTHON3)))
    except (ValueError, TypeError, IndexError):
        return None


def _inert(node: ast.AST, state: _State) -> bool:
    """Whether evaluating ``node`` runs no code but the interpreter's own on builtin values: constants, names (a
    lookup runs nothing), displays of inert parts, operators on constants and on names holding builtin values, the
    ``sys`` values and their string methods, a few unshadowed builtins, lambdas without defaults."""
    if isinstance(node, ast.Constant) or (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_inert(e, state) for e in node.elts)
    if isinstance(node, ast.Lambda):
        return not node.args.defaults and not any(node.args.kw_defaults)
    if isinstance(node, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.BinOp)):
        leaves = ([node.left, *node.comparators] if isinstance(node, ast.Compare) else node.values
                  if isinstance(node, ast.BoolOp) else [node.operand] if isinstance(node, ast.UnaryOp)
                  else [node.left, node.right])
        return all(_builtin_valued(leaf, state) for leaf in leaves)
    return _builtin_valued(node, state)


def _builtin_valued(node: ast.AST, state: _State) -> bool:
    """An inert expression whose value is a builtin one (so operators on it run nothing)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in state.plain or (node.id in state.values and state.values[node.id] is not _SYS)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_builtin_valued(e, state) for e in node.elts)
    if isinstance(node, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.BinOp)):
        return _inert(node, state)
    if isinstance(node, ast.Subscript):
        return _builtin_valued(node.value, state) and _builtin_valued(node.slice, state)
    if isinstance(node, ast.Slice):
        return all(part is None or _builtin_valued(part, state) for part in (node.lower, node.upper, node.step))
    if isinstance(node, ast.Attribute):
        root = node.value
        if isinstance(root, ast.Name) and state.values.get(root.id) is _SYS:
            return node.attr in _SYS_VALUES
        return node.attr in _STR_METHODS | {"major", "minor", "micro"} and _builtin_valued(root, state)
    if isinstance(node, ast.Call) and not node.keywords:
        func = node.func
        if isinstance(func, ast.Name):
            ok = func.id in _BUILTIN_CALLS and func.id not in state.rebound
        else:
            ok = isinstance(func, ast.Attribute) and func.attr in _STR_METHODS and _builtin_valued(func.value, state)
        return ok and all(_builtin_valued(a, state) or (isinstance(a, ast.Name) and state.values.get(a.id) is _SYS)
                          for a in node.args)
    return False


def dead_statements(tree: ast.Module, project: frozenset[str] = frozenset()) -> dict[int, ast.stmt]:
    """The statements of the module's ``if`` branches (at its top level, also inside its ``try`` blocks) that no
    Python 3 runs, by ``id``. ``project``: the project's top-level packages (an import of one may run code that
    rebinds the module's names)."""
    never = {name for node in ast.walk(tree) if isinstance(node, (ast.Global, ast.Nonlocal)) for name in node.names}
    dead: dict[int, ast.stmt] = {}

    def gone(body: list) -> None:
        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.stmt):
                    dead[id(node)] = node

    def runs_project(node: ast.Import | ast.ImportFrom) -> bool:
        if isinstance(node, ast.ImportFrom):
            return node.level > 0 or (node.module or "").split(".")[0] in project or any(
                a.name == "*" for a in node.names)
        return any(a.name.split(".")[0] in project for a in node.names)

    def walk(body: list, state: _State) -> None:
        for node in body:
            if isinstance(node, ast.If):
                if not _inert(node.test, state) or stored(node.test):
                    state.clear()
                found = _values(node.test, state)
                taken = None if found is None or len({bool(v) for v in found}) != 1 else bool(found[0])
                if taken is None:
                    branches = [state.copy(), state.copy()]
                    walk(node.body, branches[0])
                    walk(node.orelse, branches[1])
                    if branches[0].cleared or branches[1].cleared:
                        state.clear()
                    state.forget(stored(node))
                else:
                    live, other = (node.body, node.orelse) if taken else (node.orelse, node.body)
                    gone(other)
                    walk(live, state)
            elif isinstance(node, ast.Try):
                state.forget(stored(node))  # (a block may stop anywhere: what it binds is unknown after it)
                parts = [node.body, node.orelse, node.finalbody, *[h.body for h in node.handlers]]
                copies = [state.copy() for _ in parts]
                for part, copy in zip(parts, copies):
                    walk(part, copy)
                if any(copy.cleared for copy in copies) or not all(
                        h.type is None or _inert(h.type, state) for h in node.handlers):
                    state.clear()
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                if runs_project(node):
                    state.clear()
                state.forget(stored(node))
                if isinstance(node, ast.Import) and any((a.name, a.asname) == ("sys", None) for a in node.names):
                    state.values["sys"] = _SYS
            elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets) \
                    and _inert(node.value, state):
                found = _values(node.value, state)
                builtin = _builtin_valued(node.value, state)
                if isinstance(node.value, ast.Name) and state.values.get(node.value.id) is _SYS:
                    found, builtin = _SYS, False
                state.forget(stored(node))
                for target in node.targets:
                    if target.id in never:
                        continue
                    if found is not None:
                        state.values[target.id] = found
                    if builtin:
                        state.plain.add(target.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.decorator_list and all(
                    _inert(d, state) for d in [*node.args.defaults, *filter(None, node.args.kw_defaults)]):
                state.forget(stored(node))  # (a def binds its name; its body runs later)
            elif isinstance(node, (ast.Pass, ast.Global, ast.Nonlocal)) or (
                    isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
                continue
            else:
                # a class, a decorated def, a call, an attribute or item store, a with/for/while, del, match …: it
                # may run code that rebinds anything (`from . import compat; compat.PY2 = True` in a helper)
                state.clear()
                state.forget(stored(node))

    walk(tree.body, _State())
    return dead


def dead_lines(tree: ast.Module, project: frozenset[str] = frozenset()) -> frozenset[int]:
    """The lines only dead statements hold (a line a live statement shares, ``if PY2: pass``'s, is not dead)."""
    dead = dead_statements(tree, project)
    lines = {line for node in dead.values() for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and id(node) not in dead:
            body = getattr(node, "body", None)
            end = (body[0].lineno - 1 if body and isinstance(body, list) and body[0].lineno > node.lineno
                   else node.lineno) if isinstance(body, list) else (node.end_lineno or node.lineno)
            lines -= set(range(node.lineno, end + 1))
    return frozenset(lines)


def future_annotations(tree: ast.Module) -> bool:
    return any(isinstance(n, ast.ImportFrom) and n.module == "__future__" and any(a.name == "annotations"
                                                                                 for a in n.names)
               for n in tree.body)


class Unit:
    """Code that runs when the module is imported: ``parts`` (expressions or statements) of the top-level statement
    ``top``; ``plain``: a plain assignment (nothing runs); ``binds``: the module-level names it binds (for a class
    body's statement: the class's name); ``runs``: whether it calls, subscripts, decorates or builds a class."""

    def __init__(self, top: ast.stmt, parts: list, plain: bool, binds: set[str], runs: bool, header: bool):
        self.top, self.parts, self.plain, self.binds, self.runs = top, parts, plain, binds, runs
        self.header = header  # a def's header or a class body's statement (a comparison dunder there is behaviour)
        self.lines = {line for part in parts for node in ast.walk(part) if hasattr(node, "lineno")
                      for line in (node.lineno,)}
        self.reads = {n.id for part in parts for n in ast.walk(part) if isinstance(n, ast.Name)
                      and isinstance(n.ctx, ast.Load)}


def _plain(node: ast.stmt, modules: set[str]) -> bool:
    """``name = value`` (or ``name: T = value``) where nothing runs: constants, names, displays of them, attribute
    chains of imported modules (``BUILTINS = builtins_mod.__name__``), ``-1``."""
    if isinstance(node, ast.Assign):
        targets, value, annotation = node.targets, node.value, None
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets, value, annotation = [node.target], node.value, node.annotation
    else:
        return False
    return all(isinstance(t, ast.Name) for t in targets) and _plain_value(value, modules) and (
        annotation is None or _plain_value(annotation, modules))


def _plain_value(node: ast.AST, modules: set[str]) -> bool:
    if isinstance(node, ast.Constant) or isinstance(node, ast.Name):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_plain_value(e, modules) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.Attribute):
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and root.id in modules
    return False


def _runs(parts: list) -> bool:
    return any(isinstance(n, (ast.Call, ast.Subscript, ast.BinOp, ast.Compare, ast.Await, ast.Yield, ast.YieldFrom,
                              ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.With, ast.For,
                              ast.AugAssign, ast.Delete, ast.Raise, ast.Assert, ast.Match))
               for part in parts for n in ast.walk(part))


def import_time_units(tree: ast.Module, top_level: list[ast.stmt]) -> list[Unit]:
    """The code of ``top_level`` (the module's live top-level statements, compound ones included) that runs when the
    module is imported."""
    evaluated = not future_annotations(tree)
    modules = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names}
    units: list[Unit] = []

    def header_parts(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list:
        args = node.args
        parts = [*node.decorator_list, *args.defaults, *filter(None, args.kw_defaults)]
        if evaluated:
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            parts += [a.annotation for a in every if a is not None and a.annotation is not None]
            parts += [node.returns] if node.returns is not None else []
        return parts

    def visit(node: ast.stmt, top: ast.stmt, in_class: str | None) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            parts = header_parts(node)
            if parts:
                units.append(Unit(top, parts, False, {in_class or node.name}, bool(node.decorator_list) or _runs(parts),
                                  True))
            return
        if isinstance(node, ast.ClassDef):
            parts = [*node.decorator_list, *node.bases, *[k.value for k in node.keywords]]
            units.append(Unit(top, parts, False, {in_class or node.name}, True, True))
            for child in node.body:
                visit(child, top, in_class or node.name)
            return
        if in_class is None and isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While, ast.AsyncWith,
                                                  ast.AsyncFor)):
            # (their bodies are top-level statements of their own; the header runs here)
            header = ([node.test] if isinstance(node, (ast.If, ast.While)) else
                      [i.context_expr for i in node.items] if isinstance(node, (ast.With, ast.AsyncWith)) else
                      [node.iter, node.target] if isinstance(node, (ast.For, ast.AsyncFor)) else
                      [h.type for h in node.handlers if h.type is not None])
            if header:
                units.append(Unit(top, header, False, set(), True, False))
            return
        plain = _plain(node, modules)
        binds = {in_class} if in_class else stored(node)
        units.append(Unit(top, [node], plain, binds, not plain and _runs([node]) or isinstance(
            node, (ast.With, ast.For, ast.While, ast.If, ast.Try)), in_class is not None))

    for node in top_level:
        visit(node, node, None)
    return units
