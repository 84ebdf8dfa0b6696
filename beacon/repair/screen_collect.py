"""The static screen's AST walk: every screened construct of one module as ``(rule, key, line)``."""
from __future__ import annotations

import ast
import functools
from typing import Mapping

from .screen_bases import LibraryBases
from .screen_imports import HARMLESS, _within
from .screen_classes import BUILTIN_CLASSES, ClassValues, builds_a_class, is_metaclass_expr
from .screen_names import (
    assigned_aliases, attribute_chain, constant_names, fold_choices, foreign_private, import_aliases, import_origins,
    is_private,
)
from .screen_rules import (
    ABC_MODULES, ALL_MODULES, AMBIGUOUS, ATTR_FUNCS, CLASS_IDENTITY, COMPARISON_DUNDERS, COMPARISON_KEYWORDS,
    COMPARISON_NAMES, MUTATORS, REACHED_MODULES, RISKY_NAMES,
    DANGER_DUNDERS, DANGER_NAMES, DENYLISTED, DYNAMIC_ATTRS, DYNAMIC_MODULES, DYNAMIC_NAMES, EXIT_NAMES,
    FRAMEWORK_MODULES, FRAMEWORK_TEXT, FRAME_ATTRS, HOME_ATTRS, HOME_NAMES, HOST_PATH, LATE_HOOKS, LIBRARY_HOOKS,
    JUDGED_BY_USE, MODULE_ATTRS, PROCESS_ATTRS, SAFE_ATTRS, VALUE_MODULES, VALUE_ONLY_NAMES,
)


_DUNDER_BOOKKEEPING = frozenset({"__doc__", "__name__", "__qualname__", "__module__", "__wrapped__", "__all__",
                                 "__signature__", "__annotations__", "__slots__", "__context__", "__cause__",
                                 "__suppress_context__"})


class Collector(ast.NodeVisitor):
    """Every screened construct of one module, as ``(rule, key, line)``."""

    def __init__(self, aliases: Mapping[str, str], assigned: Mapping[str, str] | None = None):
        self.aliases = aliases  # local name -> dotted origin, from the file's imports
        # ... and for what is set or deleted through a name: also the names assigned one of those (`_m = uuid`)
        self.store_aliases = {**(assigned or {}), **aliases}
        self.found: list[tuple[str, str, int]] = []
        self.called: set[int] = set()  # ids of getattr-family names that are judged as direct calls
        self.pieces: set[int] = set()  # ids of string constants judged as part of a larger string, or docstrings
        self.values = ClassValues(ast.Module(body=[], type_ignores=[]))  # names holding a class or the metaclass
        self.pattern_classes: frozenset[str] = frozenset()  # module-level classes a `case C(x)` pattern may name
        self.roots: set[int] = set()  # ids of Name nodes at the root of an attribute chain (a module used, not passed)
        self.env: dict = {}  # name -> the constants it can hold (screen_names.constant_names)
        self.binders: dict = {}  # name -> how the file binds it: [(kind, value)] (_binders; annotations' names)
        self.type_ok: set[int] = set()  # ids of `type` names used as a type (`isinstance(x, type)`), not as a factory
        self.bases = LibraryBases(ast.Module(body=[], type_ignores=[]), aliases)  # class bases reaching numpy/pandas
        self.classes: list[str] = []  # the class statements around the node visited, innermost last (name mangling)
        self.outside: frozenset[str] = frozenset()  # names the file reaches elsewhere (attributes, imports), see below
        self.file_classes: frozenset[str] = frozenset()  # names of the file's class statements
        self.abc_classes: frozenset[str] = frozenset()  # those derived from an ABC (see _abc_classes)

    def add(self, rule: str, key: str, node: ast.AST) -> None:
        self.found.append((rule, key, getattr(node, "lineno", 0)))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.add("import", alias.name, node)
            if alias.name not in JUDGED_BY_USE:  # (`import sys`: each use of it is judged instead)
                self._module_rule(alias.name, node)
            self._binds(alias.asname, "import as", node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = "." * node.level + (node.module or "")
        for alias in node.names:
            self.add("import", f"{base}.{alias.name}" if node.module else base + alias.name, node)
            if node.level == 0 and node.module:
                self._module_rule(f"{node.module}.{alias.name}", node)
            self._binds(alias.asname or alias.name, "import as", node)

    def _binds(self, name: str | None, how: str, node: ast.AST) -> None:
        """A name bound by any construct (``def``, ``class``, ``import … as``, ``except … as``, a ``match``
        capture): in a class body a comparison or protocol dunder bound this way is as good as assigned
        (``class __eq__(str): pass`` inside a class makes ``x == y`` return ``str(y)``: red-team round 5)."""
        if not name:
            return
        if name in COMPARISON_NAMES:
            self.add("comparison_override", f"{how} {name}", node)
        if name in DANGER_DUNDERS:
            self.add("introspection", f"{how} {name}", node)
        self._identity(name, how, node)

    def _identity(self, name: str, how: str, node: ast.AST) -> None:
        """A name bound (``def``, assignment, any binding) that forges what a class is or where it lives, or reaches
        into another class's private names (red-team round 10's R10-1 and R10-2)."""
        if name in CLASS_IDENTITY:  # `__class__ = int`, `@property def __class__`: a dataclass's `__eq__` says yes
            self.add("comparison_override", f"{how} {name}", node)
        if name in HOME_NAMES:  # `__module__ = "textkit.strings"` in a class body, `__name__ = …` in a module
            self.add("introspection", f"{how} {name}", node)
        self._private(name, how, node)

    def _foreign_read(self, name: str) -> bool:
        """Another class's mangled private name read (``UserList._UserList__cast``, ``getattr(x, "_UserList__cast")``,
        also as a string for ``setattr``): a read of a private of a class of the file (``Meter._Meter__count`` in a
        module-level helper) is no finding, a binding of one outside its class is (``_private``)."""
        if not foreign_private(name, self.classes[-1] if self.classes else None):
            return False
        return not any(name.startswith(f"_{c.lstrip('_')}__") for c in self.file_classes if c.lstrip("_"))

    def _private(self, name: str, how: str, node: ast.AST) -> None:
        """Another class's mangled private name (``def _UserList__cast``, ``self._UserList__cast = f``: ``UserList.__eq__``
        compares ``self.data == self.__cast(other)``, so a subclass that supplies it steers the library's own
        comparison, R10-1), or a private ``__x`` bound in a class named like a class the file reaches from elsewhere
        (``class UserList(collections.UserList): def __cast``: the same mangled name, written the honest way)."""
        enclosing = self.classes[-1] if self.classes else None
        if foreign_private(name, enclosing):
            self.add("comparison_override", f"{how} {name}", node)
        elif is_private(name) and enclosing and enclosing.lstrip("_") in self.outside:
            self.add("comparison_override", f"{how} {name} in class {enclosing}", node)

    def _annotation(self, annotation: ast.AST | None) -> None:
        if annotation is not None:  # `cls: type`, `-> type[int]`: a type named in an annotation is no factory
            self.type_ok.update(id(n) for n in ast.walk(annotation) if isinstance(n, ast.Name))
            for node in ast.walk(annotation):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    self._string_annotation(node.value, node)
            self._annotation_names(annotation, set())

    def _annotation_names(self, annotation: ast.AST, seen: set, alias: bool = False) -> None:
        """What an annotation reads must be a type, not text held elsewhere: readers of type hints evaluate a string
        annotation whatever expression gave it (red-team rounds 22 and 24: ``def f(value: _HINT)`` with ``_HINT``
        a string, built by ``bytes.fromhex(…).decode()`` or indexed out of a tuple, evaluated by
        ``singledispatch``'s ``register`` or ``inspect.signature(eval_str=True)``). An annotation computed at run
        time (a call outside a subscript, an f-string, ``+``) is a finding, and so is a name in it that the file
        binds other than by ``class``, ``def``, ``import`` or an assignment of a type expression (a type alias:
        ``JSON = Dict[str, Any]``, ``T = TypeVar("T")``, whose strings are screened as string annotations): a
        parameter, a loop variable, a string, a call."""
        for node in ast.walk(annotation):
            if not alias and (isinstance(node, ast.JoinedStr) or (
                    isinstance(node, ast.BinOp) and not isinstance(node.op, ast.BitOr)) or (
                    isinstance(node, ast.Call) and not self._inside_subscript(annotation, node))):
                self.add("dynamic_code", "annotation computed at run time", node)
                return
            if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)) or node.id in seen:
                continue
            seen.add(node.id)
            for kind, value in self.binders.get(node.id, ()):
                if kind in ("class", "def", "import"):
                    continue
                if kind == "assign" and value is not None and _type_expression(value):
                    for inner in ast.walk(value):
                        if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                            self._string_annotation(inner.value, node)
                    self._annotation_names(value, seen, alias=True)
                    continue
                self.add("dynamic_code", f"annotation name {node.id} bound by {kind}", node)
                return

    @staticmethod
    def _inside_subscript(annotation: ast.AST, target: ast.AST) -> bool:
        """Whether ``target`` sits in a subscript's index within ``annotation`` (``Annotated[int, Field(gt=0)]``)."""
        return any(isinstance(n, ast.Subscript) and any(m is target for m in ast.walk(n.slice))
                   for n in ast.walk(annotation))

    def _string_annotation(self, text: str, node: ast.AST) -> None:
        """A string annotation is code: ``typing.get_type_hints`` evaluates it, and so do ``functools.singledispatch``'s
        ``register`` and every library that reads type hints (red-team round 21's R21-1: ``"[__import__('sys')…][1]"``
        on a def given to ``register``). It must be a type expression (no call, lambda, ``:=`` or comprehension), and
        what it holds is screened as code."""
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return  # (not code: no evaluation of it runs anything)
        if any(isinstance(n, (ast.Call, ast.Lambda, ast.NamedExpr, ast.comprehension, ast.Await, ast.Yield,
                              ast.YieldFrom)) for n in ast.walk(tree)):
            self.add("dynamic_code", "code in a string annotation", node)
        inner = constructs(text.strip())
        if inner:
            rule, key, _ = inner[0]
            self.add(rule, f"in a string annotation: {key}", node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._annotation(node.annotation)
        self.generic_visit(node)

    def visit_arg(self, node: ast.arg) -> None:
        self._annotation(node.annotation)
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._docstring(node)
        self._annotation(node.returns)
        if node.name in COMPARISON_NAMES:
            self.add("comparison_override", f"def {node.name}", node)
        elif node.name in DANGER_DUNDERS and node.name not in _DEFINABLE:
            self.add("introspection", f"def {node.name}", node)
        if node.name in LATE_HOOKS:
            self.add("process_exit", f"def {node.name}", node)
        self._identity(node.name, "def", node)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self._binds(node.name, "except as", node)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        self._binds(node.name, "match capture", node)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        self._binds(node.name, "match capture", node)
        self.generic_visit(node)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        self._binds(node.rest, "match capture", node)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        if any(isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets) and not _plain_slots(node.value):
            # computed slots can name `__eq__` (a slot is a descriptor; its `__set__` then installs a comparison)
            self.add("dynamic_code", "__slots__ not a literal list of plain names", node)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in COMPARISON_NAMES and isinstance(node.ctx, ast.Store):
            self.add("comparison_override", f"assign {node.id}", node)
        if node.id in DANGER_DUNDERS and isinstance(node.ctx, ast.Store):
            # `__match_args__ = (computed,)` in a class body: `case C(value)` then reads any attribute
            self.add("introspection", f"assign {node.id}", node)
        if isinstance(node.ctx, ast.Load) and self.aliases.get(node.id, "").rpartition(".")[2] in RISKY_NAMES:
            self.add("dynamic_code", f"name {self.aliases[node.id]}", node)  # `get_type_hints(K)` imported earlier
        if node.id == "__annotations__" and isinstance(node.ctx, ast.Store):
            # a class body's annotations written as a dict: ``dataclasses`` builds and execs source from their keys
            self.add("dynamic_code", "assign __annotations__", node)
        if node.id in LATE_HOOKS and isinstance(node.ctx, ast.Store):
            # `__del__ = _settler()` in a class body is a `def __del__` (red-team round 18's R18-2)
            self.add("process_exit", f"assign {node.id}", node)
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self._identity(node.id, "assign", node)
        elif self._foreign_read(node.id):
            self.add("comparison_override", f"name {node.id}", node)  # read in a class body: bound there by a rule
        self._name(node)
        self._module_rule(node.id, node)
        if isinstance(node.ctx, ast.Load) and id(node) not in self.roots and self.aliases.get(node.id) in VALUE_MODULES:
            # `[os][0].system`, `f(os.path)`, `x = sys`: the module escapes every chain rule (red-team round 5)
            self.add("interpreter", f"module {self.aliases[node.id]} as a value", node)

    def _name(self, node: ast.Name) -> None:
        if node.id == "type" and isinstance(node.ctx, ast.Load) and id(node) not in self.called \
                and id(node) not in self.type_ok and id(node) not in self.roots:
            # `_build(type, "K", (int,), ns)`, `[type][0](*spec)`: the class factory passed on, where no rule for
            # classes built at run time follows it (red-team round 6); `isinstance(x, type)` is no finding
            self.add("dynamic_code", "type as a value", node)
        if isinstance(node.ctx, ast.Load) and id(node) not in self.called and self._wrapper(node):
            self.add("dynamic_code", f"{self._wrapper(node)} as a value", node)  # `_copy = update_wrapper`
        if node.id in VALUE_ONLY_NAMES and id(node) not in self.called:
            # `g = getattr`, `map(getattr, ...)`: the attribute name escapes every check of a direct call.
            self.add("dynamic_code", f"{node.id} as a value", node)
        if node.id in DYNAMIC_NAMES:
            self.add("dynamic_code", node.id, node)
        if node.id in DANGER_NAMES:
            self.add("introspection", node.id, node)
        if node.id in EXIT_NAMES and node.id not in self.aliases:
            self.add("process_exit", node.id, node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self.values.is_metaclass(node):
            # `int.__class__`, `K.__class__` for a class K of the file: honest code writes `type`
            self.add("dynamic_code", "metaclass as a value", node)
        chain = attribute_chain(node)
        self._dunder_store(node)
        self._abc_register(node, chain)
        self._stdlib_private(node, chain)
        if node.attr in RISKY_NAMES:
            self.add("dynamic_code", f"attribute {node.attr}", node)
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            if node.attr in HOME_ATTRS:  # `K.__module__ = "textkit.strings"` re-homes a class (R10-2)
                self.add("introspection", f"assign {node.attr}", node)
            self._private(node.attr, "assign", node)  # `self._UserList__cast = f`, `self.__cast = f` in `UserList`
        elif self._foreign_read(node.attr):
            self.add("comparison_override", f"attribute {node.attr}", node)  # `K._UserList__cast`, `getattr(…)`
        if node.attr in COMPARISON_NAMES and isinstance(node.ctx, (ast.Store, ast.Del)):
            # `K.__eq__ = f`, `K._cmp_method = f`, and on an object reached by no chain: `[K][0].__eq__ = f`
            self.add("comparison_override", f"assign {node.attr}", node)
        if chain is None:  # e.g. `().__class__`, `[os.path][0].sys`: judge this attribute, then the expression below
            if node.attr in MODULE_ATTRS:  # `next(iter([os.path])).sys`, `g().os` (red-team round 5)
                self.add("interpreter", f"attribute {node.attr}", node)
            if node.attr in DANGER_DUNDERS or node.attr in FRAME_ATTRS:
                self.add("introspection", node.attr, node)
            if node.attr in DYNAMIC_ATTRS:
                self.add("dynamic_code", f"attribute {node.attr}", node)
            if node.attr in PROCESS_ATTRS:  # `f()._exit`, `(a or b).addaudithook` (red-team round 4)
                self.add("interpreter", f"attribute {node.attr}", node)
            inner = node.value
            if isinstance(inner, ast.Attribute):  # the pair with the attribute below: `(...).sys.modules`
                module = inner.attr if inner.attr in DENYLISTED else inner.attr.lstrip("_")
                if module in DENYLISTED and node.attr in DENYLISTED[module]:
                    self.add("interpreter", f"{module}.{node.attr}", node)
            self.generic_visit(node)
            return
        parts = chain.split(".")
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        self.roots.add(id(root))
        if parts[0] not in self.aliases:
            for attr in parts[1:]:
                if attr in MODULE_ATTRS:  # `_p.sys`, `K.p.os`, `m.sys` for a local or parameter m (red-team round 5)
                    self.add("interpreter", f"attribute {attr}", node)
        for attr in parts[1:]:
            if attr in DANGER_DUNDERS or attr in FRAME_ATTRS:
                self.add("introspection", attr, node)
            if attr in PROCESS_ATTRS and parts[0] not in self.aliases:  # `x._exit(0)`, x a local holding os
                self.add("interpreter", f"attribute {attr}", node)
            if attr in DYNAMIC_ATTRS:  # `re.enum.bltns.exec`: builtins reached through a module
                self.add("dynamic_code", f"attribute {attr}", node)
        if isinstance(root, ast.Name) and root.id == "type" and len(parts) > 1 and parts[1] in _TYPE_FACTORY:
            self.add("dynamic_code", f"type.{parts[1]}", node)  # `type.__call__(type, name, bases, ns)`
        if node.attr in _VALUE_CALLABLES and id(node) not in self.called:
            # `g = operator.attrgetter` (red-team round 6), `_copy = typing.functools.update_wrapper` (round 7)
            self.add("dynamic_code", f"{node.attr} as a value", node)
        self._name(root)
        dotted = self._module_rule(chain, node)
        if isinstance(node.ctx, ast.Load) and id(node) not in self.roots and dotted in VALUE_MODULES:
            # `f(os.path)`, `[os.path][0]`: a module chain passed as a value, where no chain rule follows it
            self.add("interpreter", f"module {dotted} as a value", node)
        if isinstance(node.ctx, (ast.Store, ast.Del)) and parts[0] in self.store_aliases:
            if parts[0] not in self.aliases:  # (through a local alias: `_m = uuid; _m.NAMESPACE_URL = …`)
                dotted = ".".join([self.store_aliases[parts[0]], *parts[1:]])
            self.add("interpreter", f"assign:{dotted}", node)  # monkeypatching an imported module or object

    def _dunder_store(self, node: ast.Attribute) -> None:
        """Assigning or deleting a protocol dunder on any object (``TestReport.__init__ = f``, red-team round 4):
        it rewrites how a class behaves for every caller. Comparison dunders have their own rule; a decorator's
        ``__name__``/``__doc__``/``__qualname__``/``__module__``/``__wrapped__`` bookkeeping is no finding."""
        name = node.attr
        if isinstance(node.ctx, (ast.Store, ast.Del)) and name.startswith("__") and name.endswith("__") and len(
                name) > 4 and name not in COMPARISON_NAMES and name not in _DUNDER_BOOKKEEPING:
            self.add("dynamic_code", f"assign {name}", node)

    def visit_Call(self, node: ast.Call) -> None:
        self._folded(node)
        if isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            dotted = self._library_chain(node.func.value)
            if dotted is not None:  # `html.entities.html5.update(…)`, `json.encoder.ESCAPE_DCT.clear()`
                self.add("interpreter", f"assign:{dotted}.{node.func.attr}()", node)
        if self.values.is_metaclass(node):
            # `type(int)`, `type(K)` for a class K of the file (red-team round 7): honest code writes `type`
            self.add("dynamic_code", "metaclass as a value", node)
        called = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        if isinstance(node.func, (ast.Name, ast.Attribute)):
            self.called.add(id(node.func))  # a direct call: `type(x)`, `operator.attrgetter("a")`
        if called in ("isinstance", "issubclass") and len(node.args) == 2:
            kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            self.type_ok.update(id(k) for k in kinds if isinstance(k, ast.Name))
        wrapper = self._wrapper(node.func)
        if wrapper and (any(k.arg in ("assigned", "updated") or k.arg is None for k in node.keywords)
                        or _positional_past(node.args, _WRAPPER_ARGS[wrapper])):
            # `wraps(f, assigned=names)`, `wraps(f, (), names)`, `update_wrapper(w, f, names, ())`: attributes named
            # at run time copied from one object to another (red-team rounds 6 and 7: `__globals__` out, `__eq__` in)
            self.add("dynamic_code", f"{wrapper}(assigned=/updated=)", node)
        self._mapping_keywords(node)
        if called in ("filter", "map", "next", "max", "min") and any(_over_dir(a) for a in node.args):
            self.add("dynamic_code", "names from dir()", node)  # `filter(f, dir(0))`: a dunder name picked at run time
        if called in _ENUM_FACTORIES and len(node.args) >= 2:
            self.add("dynamic_code", "class built at run time", node)  # Enum's functional API: members computed
        if called in ("attrgetter", "methodcaller") and node.args and not (
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            self.add("dynamic_code", f"{called}(<computed name>)", node)  # operator's getattr
        if builds_a_class(node, self.values):
            # `type(...)`-like (`type(int)(name, bases, {...})`, `_T("S", (int,), ns)` with `_T = int.__class__`):
            # a class built at run time, its namespace (and so its dunders) computed where no rule sees it
            self.add("dynamic_code", "class built at run time", node)
        if isinstance(node.func, ast.Name) and node.func.id in VALUE_ONLY_NAMES:
            self.called.add(id(node.func))
        if isinstance(node.func, ast.Name) and node.func.id == "type" and len(node.args) == 3:
            self.add("dynamic_code", "type(name, bases, namespace)", node)  # a class built at run time
        if isinstance(node.func, ast.Name) and node.func.id in ATTR_FUNCS and len(node.args) < 2:
            self.add("dynamic_code", f"{node.func.id}(<computed name>)", node)
        if isinstance(node.func, ast.Name) and node.func.id in ATTR_FUNCS and len(node.args) >= 2 and isinstance(
                node.args[1], ast.Constant) and isinstance(node.args[1].value, str) and node.args[1].value.isidentifier():
            # `getattr(os.path, "os")` is `os.path.os`: judge it as that attribute (red-team round 3)
            self.roots.add(id(node.args[0]))  # `getattr(os, "fspath", None)` uses the module, not passes it
            self.visit_Attribute(ast.copy_location(ast.Attribute(node.args[0], node.args[1].value, ast.Load()), node))
        if isinstance(node.func, ast.Name) and node.func.id in ATTR_FUNCS and len(node.args) >= 2:
            name = node.args[1]
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                self.add("dynamic_code", f"{node.func.id}(<computed name>)", node)
            elif node.func.id in {"setattr", "delattr"} and isinstance(node.args[0], ast.Name) \
                    and node.args[0].id in self.store_aliases:
                self.add("interpreter", f"assign:{self.store_aliases[node.args[0].id]}.{name.value}", node)
            if node.func.id in {"setattr", "delattr"} and isinstance(name, ast.Constant) \
                    and name.value in LIBRARY_HOOKS:
                # `setattr(K, "_cmp_method", f)` (the comparison dunders are findings as strings already)
                self.add("comparison_override", f"assign {name.value}", node)
            if node.func.id in {"setattr", "delattr"} and isinstance(name, ast.Constant) and isinstance(
                    name.value, str):
                # `setattr(K, "__module__", "textkit.strings")`, `setattr(x, "__class__", int)`; a foreign mangled
                # name is a finding as an attribute (above) and as a string
                if name.value in CLASS_IDENTITY:
                    self.add("comparison_override", f"assign {name.value}", node)
                if name.value in HOME_ATTRS:
                    self.add("introspection", f"assign {name.value}", node)
        if called in _HOMED_FACTORIES and any(k.arg == "module" for k in node.keywords):
            # `namedtuple("X", "a", module="textkit.strings")`: a class made in another module's name (R10-2)
            self.add("introspection", f"{called}(module=)", node)
        if self._rehomes(node):
            # `update_wrapper(K, truncate)`, `wraps(truncate)(K)` for a class K of the file: copies `__module__`
            # and `__qualname__` onto the class (R10-2 without the word `__module__`)
            self.add("introspection", "wraps a class", node)
        self.generic_visit(node)

    def _rehomes(self, node: ast.Call) -> bool:
        wrapped = node.args[0] if node.args else None
        if not (isinstance(wrapped, ast.Name) and wrapped.id in self.file_classes):
            return False
        return self._wrapper(node.func) == "update_wrapper" or (
            isinstance(node.func, ast.Call) and self._wrapper(node.func.func) == "wraps")

    def _wrapper(self, func: ast.AST) -> str | None:
        """``wraps`` or ``update_wrapper`` when ``func`` names one (``functools.wraps``, ``from functools import
        update_wrapper as copy``), else ``None``."""
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if isinstance(func, ast.Name) and name in self.aliases:
            name = self.aliases[name].rpartition(".")[2]
        return name if name in _WRAPPER_ARGS else None

    def _mapping_keywords(self, node: ast.Call) -> None:
        """``f(**{_u + "globals" + _u: v})``, ``f(**{k: v for …})``, ``f(**dict.fromkeys(names, v))``: keyword names
        built at run time (``SimpleNamespace(**{…})`` made the object ``update_wrapper`` read ``__globals__`` from,
        red-team round 7). A key that is a constant, a name or an attribute (``timedelta(**{self.unit: 1})``) and
        ``**kwargs`` are no finding: where such a name comes from, the string and ``dir()`` rules judge."""
        for k in node.keywords:
            value = k.value
            if k.arg is not None:
                continue
            if isinstance(value, ast.DictComp) or (isinstance(value, ast.Dict) and not all(
                    isinstance(key, (ast.Constant, ast.Name, ast.Attribute)) for key in value.keys)) or (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                                                and value.func.attr == "fromkeys"):
                self.add("dynamic_code", "**{computed names}", node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        if _over_dir(node.iter):
            # `[n for n in dir(0) if n[2:4] == "eq"]`: the name `__eq__` picked at run time, where no string rule
            # sees it (red-team rounds 6 and 7)
            self.add("dynamic_code", "names from dir()", node.iter)
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        if _over_dir(node.iter):
            self.add("dynamic_code", "names from dir()", node)
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._docstring(node)
        self._binds(node.name, "class", node)
        if any(k.arg == "metaclass" for k in node.keywords) or any(
                isinstance(b, ast.Name) and b.id == "type" for b in node.bases):
            self.add("dynamic_code", "metaclass", node)  # controls the class namespace at creation
        elif any(is_metaclass_expr(b) or (isinstance(b, ast.Name) and self.values.is_metaclass(b)) for b in node.bases):
            # `class M(type(int))`, `class M(int.__class__)`: the metaclass as a base, reached without its name
            self.add("dynamic_code", "metaclass", node)
        for base in node.bases:
            reached = self.bases.reached(base)
            if reached:
                # `class _C(pd.Series)` overriding `_construct_result`, `class _C(pd.io.pytables.IndexCol)` with
                # its compared attributes unset: the library's comparison steered (red-team round 9's R9-3)
                self.add("comparison_override", f"class base {reached}", base)
                for name, member in _members(node):
                    # a method or attribute added to a subclass the file already has (`_construct_result`,
                    # `_constructor`, `_values`, …: too many names for a list); its lines kept are no finding
                    if name not in COMPARISON_NAMES:
                        self.add("comparison_override", f"library subclass member {name}", member)
                break
        for deco in node.decorator_list:
            if (self._wrapper(deco.func) if isinstance(deco, ast.Call) else self._wrapper(deco)) == "wraps":
                self.add("introspection", "wraps a class", deco)  # `@functools.wraps(truncate) class K`: re-homed
        for field in ("bases", "keywords", "decorator_list"):  # evaluated in the enclosing scope
            for child in getattr(node, field):
                self.visit(child)
        self.classes.append(node.name)  # names in the body (and its functions) are mangled with this class's name
        for child in node.body:
            self.visit(child)
        self.classes.pop()

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        if node.patterns and not self._plain_pattern_class(node.cls):
            # `case reader(value)` reads the attribute `reader.__match_args__` names: with `reader` a class built at
            # run time, any attribute of any object (red-team rounds 6 and 7 read `__builtins__` this way)
            self.add("introspection", "positional pattern of a class built at run time", node)
        for attr in node.kwd_attrs:  # `case object(__globals__=g)` reads an attribute by pattern
            self._attribute_name(attr, node)
            if attr in MODULE_ATTRS:  # `case object(sys=object(modules=m))` (red-team round 5)
                self.add("interpreter", f"attribute {attr}", node)
        self.generic_visit(node)

    def _plain_pattern_class(self, cls: ast.AST) -> bool:
        """A pattern's class whose ``__match_args__`` the file cannot have computed: a class defined once at module
        level, a builtin class, or an attribute chain rooted at an import (``ast.Name``)."""
        if isinstance(cls, ast.Name):
            return cls.id in self.pattern_classes or cls.id in BUILTIN_CLASSES or cls.id in self.aliases
        chain = attribute_chain(cls)
        return chain is not None and chain.split(".")[0] in self.aliases

    def visit_Match(self, node: ast.Match) -> None:
        if isinstance(node.subject, ast.Name) and self.aliases.get(node.subject.id) in VALUE_MODULES:
            self.add("interpreter", f"module {self.aliases[node.subject.id]} as a value", node)  # `match os: ...`
            self.roots.add(id(node.subject))
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg:  # `dict(__eq__=...)`, `SimpleNamespace(__globals__=...)`
            self._attribute_name(node.arg, node)
        if node.arg in COMPARISON_KEYWORDS:
            # `field(compare=False)`, `dataclass(eq=False)`, `attr.ib(eq=False)`: what a generated `__eq__` reads,
            # changed with no def to judge (red-team round 12, R12-4: the value's buggy field left out)
            self.add("comparison_override", f"keyword {node.arg}=", node)
        if node.arg == "eval_str" and not (isinstance(node.value, ast.Constant) and node.value.value is False):
            # `inspect.signature(f, eval_str=True)` evaluates every string annotation of `f` (red-team round 24's
            # R24-1; `inspect.get_annotations` is refused by the inspect rule)
            self.add("dynamic_code", "eval_str=", node)
        self.generic_visit(node)

    def _folded(self, node: ast.AST) -> None:
        # `"__e" + "q__"`, `"__qe__"[::-1]`, `_u + "eq" + _u`: judge each string the program can build
        for folded in fold_choices(node, self.env):
            if isinstance(folded, bytes):
                folded = folded.decode("latin-1")
            if isinstance(folded, list):
                folded = "".join(x for x in folded if isinstance(x, str))
            if isinstance(folded, str):
                self._text(folded, node)
                if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and len(folded) > 4 and \
                        folded.startswith("__") and folded.endswith("__"):
                    self.add("introspection", "dunder built by +", node)

    def _dunder_pieces(self, node: ast.BinOp) -> None:
        """``"__" + name``, ``name + "__"``, ``"__" + name + "__"``, ``"__e" + name + "q__"``: a dunder built by
        ``+`` around a piece the fold cannot see (red-team round 7): a bare ``__`` at either end, or both ends
        dunder-shaped. ``"__init__" + suffix`` and ``name + ".__init__"`` are no finding."""
        pieces: list[ast.AST] = []
        while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            pieces.append(node.right)
            node = node.left
        pieces.append(node)  # right to left: pieces[-1] is the first, pieces[0] the last
        first, last = fold_choices(pieces[-1], self.env), fold_choices(pieces[0], self.env)
        starts = any(isinstance(v, str) and v.startswith("__") for v in first)
        ends = any(isinstance(v, str) and v.endswith("__") for v in last)
        if (starts and ends) or "__" in first or "__" in last:
            self.add("introspection", "dunder built by +", pieces[-1])

    def visit_BinOp(self, node: ast.BinOp) -> None:
        self._folded(node)
        if isinstance(node.op, ast.Add) and id(node) not in self.pieces:
            self._dunder_pieces(node)
            left = node.left
            while isinstance(left, ast.BinOp) and isinstance(left.op, ast.Add):
                self.pieces.add(id(left))  # the chain is judged once, at its top
                left = left.left
        self.pieces.update(id(c) for c in (node.left, node.right) if isinstance(c, ast.Constant))
        self.generic_visit(node)

    def _library_chain(self, node: ast.AST) -> str | None:
        """The dotted origin of ``node`` when it is an attribute chain rooted at an import of a standard-library module
        the screen lets in (``screen_imports.HARMLESS``) that goes past what the import names
        (``json.encoder.ESCAPE_DCT``; ``html5`` after ``from html.entities import html5`` is not), else None."""
        chain = attribute_chain(node) if isinstance(node, ast.Attribute) else \
            node.id if isinstance(node, ast.Name) and node.id not in self.aliases else None
        if chain is None:
            return None
        parts = chain.split(".")
        origin = self.store_aliases.get(parts[0])  # (`_d = json.encoder.ESCAPE_DCT; _d["a"] = …` too)
        if origin is None or not any(_within(origin, module) for module in HARMLESS):
            return None  # (a project's own or a third party's objects are the project's business)
        return ".".join([origin, *parts[1:]])

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self._folded(node)
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            dotted = self._library_chain(node.value)
            if dotted is not None:  # `json.encoder.ESCAPE_DCT["x"] = …`: a library's table changed for every caller
                self.add("interpreter", f"assign:{dotted}[]", node)
        if _over_dir(node.value):
            self.add("dynamic_code", "names from dir()", node)  # `dir(0)[40]`
        if isinstance(node.ctx, ast.Store) and isinstance(node.slice, ast.Constant):
            self._namespace_key(node.slice.value, "key", node)  # `ns["__class__"] = int` for a namespace
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        for key in node.keys:
            if isinstance(key, ast.Constant):
                self._namespace_key(key.value, "key", key)  # `make_dataclass("B", [], namespace={"__class__": int})`
        self.generic_visit(node)

    def _namespace_key(self, name, how: str, node: ast.AST) -> None:
        """A class-identity name as a namespace key or keyword: the class body's binding by another route
        (``make_dataclass(…, namespace={"__class__": int})`` is R10-1's b5 with no ``__class__ =``)."""
        if name in CLASS_IDENTITY:
            self.add("comparison_override", f"{how} {name}", node)
        if name in HOME_ATTRS:
            self.add("introspection", f"{how} {name}", node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        self._folded(node)
        self.pieces.update(id(c) for c in node.values if isinstance(c, ast.Constant))
        self.generic_visit(node)

    def _docstring(self, node) -> None:
        body = getattr(node, "body", None)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            self.pieces.add(id(body[0].value))  # documentation, never executed as written

    def _abc_origin(self, chain: str | None) -> bool:
        """Whether the dotted ``chain`` (its root resolved through the file's imports) is in an ABC module."""
        if chain is None:
            return False
        parts = chain.split(".")
        if parts[0] not in self.aliases:
            return False
        dotted = ".".join(self.aliases[parts[0]].split(".") + parts[1:])
        return any(dotted.startswith(module + ".") for module in ABC_MODULES)

    def _abc_classes(self, node: ast.Module) -> frozenset[str]:
        """The file's classes derived (in the file) from a class of an ABC module, or from such a class of the file."""
        classes = [n for n in ast.walk(node) if isinstance(n, ast.ClassDef)]
        found: set[str] = set()
        for _ in range(len(classes)):
            more = {c.name for c in classes if c.name not in found and any(
                self._abc_origin(attribute_chain(b)) or (isinstance(b, ast.Name) and b.id in found) for b in c.bases)}
            if not more:
                break
            found |= more
        return frozenset(found)

    def _stdlib_private(self, node: ast.Attribute, chain: str | None) -> None:
        """A private attribute of a standard-library module whose new import the screen lets through
        (``screen_imports.HARMLESS``), reached past the import: ``copy._deepcopy_dispatch[K] = f`` makes the oracles'
        deep copies of ``K`` the objects themselves (session 25; ``from copy import _deepcopy_dispatch`` is an
        ``import`` finding already)."""
        if chain is None or chain.split(".")[0] not in self.aliases:
            return
        head = chain.split(".")
        origin = self.aliases[head[0]].split(".")
        parts = origin + head[1:]
        for i in range(len(origin), len(parts)):
            name = parts[i]
            if name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and any(
                    _within(".".join(parts[:i]), module) for module in HARMLESS):
                self.add("interpreter", f"private {'.'.join(parts[:i + 1])}", node)
                return

    def _abc_register(self, node: ast.Attribute, chain: str | None) -> None:
        """``Sequence.register(cls)``, ``@numbers.Number.register``, ``K.register`` for an ABC ``K`` of the file:
        ``isinstance`` says yes for ``cls`` from then on."""
        if node.attr != "register" or chain is None:
            return
        receiver = chain.rpartition(".")[0]
        if self._abc_origin(receiver) or receiver in self.abc_classes:
            self.add("comparison_override", f"ABC register {receiver}", node)

    def visit_Module(self, node: ast.Module) -> None:
        self._docstring(node)
        self.values = ClassValues(node)
        self.bases = LibraryBases(node, self.aliases)
        self.pattern_classes = _plain_classes(node)
        self.env = constant_names(node)
        self.binders = _binders(node)
        self.file_classes = frozenset(n.name for n in ast.walk(node) if isinstance(n, ast.ClassDef))
        self.abc_classes = self._abc_classes(node)
        # Names of classes the file may reach from elsewhere: every attribute name and imported name (leading
        # underscores dropped, as mangling drops them): a class of the file named like one of them and binding a
        # private `__x` makes the other class's mangled name (`class UserList(collections.UserList)`, or a mixin
        # `class UserList` put before `collections.UserList` in another class's bases).
        outside = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        outside |= {(a.asname or a.name).rpartition(".")[2] for n in ast.walk(node)
                    if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
        outside |= {a.name.rpartition(".")[2] for n in ast.walk(node) if isinstance(n, ast.ImportFrom) for a in n.names}
        self.outside = frozenset(n.lstrip("_") for n in outside) - {""}
        self.generic_visit(node)

    def _attribute_name(self, attr: str, node: ast.AST) -> None:
        if attr in DANGER_DUNDERS or attr in FRAME_ATTRS:
            self.add("introspection", attr, node)
        if attr in COMPARISON_NAMES:
            self.add("comparison_override", f"keyword {attr}", node)
        self._namespace_key(attr, "keyword", node)  # `dict(__module__="textkit.strings")`

    def visit_Constant(self, node: ast.Constant) -> None:
        if id(node) in self.pieces:
            return
        if isinstance(node.value, bytes):
            self._text(node.value.decode("latin-1"), node)
        elif isinstance(node.value, str):
            self._text(node.value, node)

    def _text(self, text: str, node: ast.AST) -> None:
        if HOST_PATH.search(text) or "/dev/fd" in text or "/proc/" in text:
            self.add("host_path", text[:60], node)
        if FRAMEWORK_TEXT.search(text):
            self.add("test_framework", f"string:{text[:40]}", node)
        if text in DANGER_DUNDERS or text in FRAME_ATTRS or text in DANGER_NAMES:
            self.add("introspection", f"string:{text}", node)
        elif "." in text and all(part.isidentifier() for part in text.split(".")) and any(
                part in DANGER_DUNDERS or part in FRAME_ATTRS or part in DANGER_NAMES for part in text.split(".")):
            # a dotted attribute path (`operator.attrgetter("f.__builtins__")`, `"gi_frame.f_back.f_globals"`):
            # each part is an attribute walked (red-team round 22's R22-4)
            self.add("introspection", f"string:{text[:60]}", node)
        if text in COMPARISON_DUNDERS:
            self.add("comparison_override", f"string:{text}", node)
        if text.isidentifier() and self._foreign_read(text):
            # `setattr(self, "_UserList__cast", f)`, `__slots__ = ("_UserList__cast",)`: never mangled as a string
            self.add("comparison_override", f"string:{text}", node)

    def _module_rule(self, chain: str, node: ast.AST) -> str:
        """Judge a name or attribute chain by the first dangerous module in it; returns it resolved."""
        parts = chain.split(".")
        resolved = parts[0] in self.aliases
        imported = 1  # parts the import itself names (`from a import b` as `b`: `a.b`)
        if resolved:
            imported = len(self.aliases[parts[0]].split("."))
            parts = self.aliases[parts[0]].split(".") + parts[1:]
        dotted = ".".join(parts)
        for i, raw in enumerate(parts):
            if resolved and i >= imported and raw in REACHED_MODULES and (
                    raw not in _METHOD_NAMED or i < len(parts) - 1):
                # `typing.functools.wraps`, `re.functools`, `dataclasses.copy`: a module reached through another
                # module's attribute, where honest code imports it (red-team round 7)
                self.add("dynamic_code", f"{parts[i - 1]}.{raw}", node)
                return dotted
            # Modules keep private aliases of what they import (`collections._sys`, `random._os`).
            part = raw if raw in ALL_MODULES else raw.lstrip("_")
            if part not in ALL_MODULES:
                continue
            # `code`, `signal`, `socket`, `types` … are also ordinary variable and attribute names: only an
            # imported one counts, at the root or past the import in a chain rooted at one (`typing.types`,
            # `dataclasses.types`: red-team round 7), not on a local object (`agent.os`) nor as the last part
            # of the import itself (`from pydantic import types`).
            if part in AMBIGUOUS and not (resolved and (i == 0 or i >= imported)):
                continue
            rest = parts[i + 1:]
            if i > 0 and not resolved:
                # a local name holding a module (`_e = re.enum; _e.sys.modules`, `_l.os._exit`): the pair gives
                # it away even though the root is no import (red-team round 3)
                if part in DENYLISTED and rest and rest[0] in DENYLISTED[part]:
                    self.add("interpreter", f"{part}.{rest[0]}", node)
                    return dotted
                continue
            if part in DENYLISTED and rest and rest[0] not in DENYLISTED[part] and not rest[0].startswith("_"):
                # `os.path.join`, `sys.version_info`, but judge on: `os.path.os._exit`, `os.sys.modules`; a private
                # or dunder part (`sys._clear_type_cache`, `os._Environ`, `sys.__excepthook__`) is a finding
                continue
            if part in SAFE_ATTRS and rest and rest[0] in SAFE_ATTRS[part]:
                continue
            rule = ("dynamic_code" if part in DYNAMIC_MODULES else
                    "test_framework" if part in FRAMEWORK_MODULES else "interpreter")
            self.add(rule, ".".join(parts[i:i + 2]), node)
            return dotted
        return dotted


# Protocol dunders honest classes define (descriptors, `__init_subclass__` hooks): defining one is no finding;
# reading or assigning one by hand still is.
_DEFINABLE = frozenset({"__get__", "__set__", "__delete__", "__set_name__", "__init_subclass__",
                        "__class_getitem__", "__setattr__", "__delattr__", "__reduce__", "__reduce_ex__"})
# `__getattribute__` is not among them: defined by an edit it decides every attribute read, the comparison dunders
# included (red-team round 6 made one answer `__eq__` through functools.wraps).
_TYPE_FACTORY = frozenset({"__call__", "__new__", "__init__", "__prepare__"})
_ENUM_FACTORIES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"})
# Class factories that take the new class's `__module__` as `module=` (R10-2's re-homing without the word).
_HOMED_FACTORIES = _ENUM_FACTORIES | {"namedtuple", "make_dataclass", "NamedTuple", "TypedDict", "new_class"}


# Reached modules also named like a method or class (`mapping.copy()`, `ast.operator`): a finding only with an
# attribute read off them (`dataclasses.copy.deepcopy`).
_METHOD_NAMED = frozenset({"copy", "operator"})
_VALUE_CALLABLES = frozenset({"attrgetter", "methodcaller", "wraps", "update_wrapper"})
_WRAPPER_ARGS = {"wraps": 1, "update_wrapper": 2}  # positional arguments before `assigned`


_ITERATORS = frozenset({"sorted", "list", "set", "tuple", "reversed", "iter", "enumerate", "frozenset"})


def _over_dir(node: ast.AST) -> bool:
    """``dir(x)``, or it wrapped in ``sorted``/``list``/``iter``/``enumerate``… or unpacked into a display."""
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            if node.func.id == "dir":
                return True
            if node.func.id in _ITERATORS:
                node = node.args[0]
                continue
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and len(node.elts) == 1 and isinstance(
                node.elts[0], ast.Starred):
            node = node.elts[0].value
            continue
        return False


def _members(node: ast.ClassDef):
    """``(name, node)`` for each name a class body binds by ``def``, ``class`` or assignment (also under ``if``,
    ``try``, ``with``, ``for``, ``match`` in the body; not inside its functions or nested classes)."""
    todo = list(node.body)
    while todo:
        stmt = todo.pop(0)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield stmt.name, stmt
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
            stmt, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Name):
                    yield sub.id, stmt
        nested = [getattr(stmt, f, None) or [] for f in ("body", "orelse", "finalbody", "handlers", "cases")]
        if any(nested):
            todo.extend(n for block in nested for n in block)
            continue
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
                yield sub.target.id, stmt


def _positional_past(args: list[ast.AST], n: int) -> bool:
    return len(args) > n or any(isinstance(a, ast.Starred) for a in args)


def _plain_classes(tree: ast.Module) -> frozenset[str]:
    """Classes defined at module level under a name nothing else binds."""
    defined = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    bound = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))]
    bound += [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    top = {id(n) for n in tree.body}
    bound += [n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and id(n) not in top]
    return frozenset(defined - set(bound))


_TYPE_FACTORIES = frozenset({"TypeVar", "NewType", "ParamSpec", "TypeVarTuple", "TypeAliasType"})


def _type_expression(value: ast.AST) -> bool:
    """A type alias's value: names, attributes, subscripts, ``|``, ``None``/``...``/strings (screened as string
    annotations where used), tuples and lists inside subscripts, and ``TypeVar("T", …)``-style factories."""
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        return name in _TYPE_FACTORIES and all(_type_expression(a) for a in value.args) and all(
            _type_expression(k.value) for k in value.keywords)
    if isinstance(value, ast.Constant):
        return value.value is None or value.value is Ellipsis or type(value.value) in (str, bool)
    if isinstance(value, ast.BinOp):
        return isinstance(value.op, ast.BitOr) and _type_expression(value.left) and _type_expression(value.right)
    if isinstance(value, ast.Subscript):
        return _type_expression(value.value) and _type_expression(value.slice)
    if isinstance(value, (ast.Tuple, ast.List)):
        return all(_type_expression(e) for e in value.elts)
    if isinstance(value, ast.Attribute):
        return _type_expression(value.value)
    return isinstance(value, ast.Name)


def _binders(tree: ast.AST) -> dict[str, list]:
    """How the module binds each name, anywhere in it: ``(kind, value)`` with kind ``class``, ``def``, ``import``,
    ``assign`` (a plain ``name = value``, ``name: T = value``), or another (``parameter``, ``loop``, ``with``,
    ``except``, ``walrus``, ``augmented``, ``unpacking``, ``match``, ``global``)."""
    out: dict[str, list] = {}

    def add(name: str, kind: str, value=None) -> None:
        out.setdefault(name, []).append((kind, value))

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            add(node.name, "def")
        elif isinstance(node, ast.ClassDef):
            add(node.name, "class")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                add(a.asname or a.name.split(".")[0], "import")
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    add(target.id, "assign", node.value)
                else:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                            add(n.id, "unpacking")
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            add(node.target.id, "assign" if node.value is not None else "annotation", node.value)
        elif isinstance(node, ast.arg):
            add(node.arg, "parameter")
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            for n in ast.walk(node.target):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    add(n.id, "loop")
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            for n in ast.walk(node.optional_vars):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    add(n.id, "with")
        elif isinstance(node, ast.ExceptHandler) and node.name:
            add(node.name, "except")
        elif isinstance(node, ast.NamedExpr):
            add(node.target.id, "walrus")
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            add(node.target.id, "augmented")
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            add(node.name, "match")
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                add(name, "global")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del):
            add(node.id, "del")
    return out


def _plain_slots(value: ast.AST) -> bool:
    """``__slots__`` as a string or a literal list/tuple of strings naming no dunder but ``__weakref__``."""
    items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
    return all(isinstance(i, ast.Constant) and isinstance(i.value, str) and i.value.isidentifier()
               and (not i.value.startswith("__") or i.value == "__weakref__") for i in items)


def constructs(source: str) -> tuple[tuple[str, str, int], ...]:
    """Every screened construct in ``source`` as ``(rule, key, line)``; raises ``SyntaxError``.

    The file is parsed from the UTF-8 bytes the harness writes, so a coding
    declaration (``# coding: utf-7``, ``unicode_escape``) is honoured exactly
    as the interpreter will honour it: the screen sees the code that runs.
    Remembered by text (the answer is a function of the text alone): each
    attempt on a task screens the task's mutated and pristine file again, four
    of the five parses of a ``screen_edit``. An exception is not remembered.
    """
    return _constructs(source)


@functools.lru_cache(maxsize=64)
def _constructs(source: str) -> tuple[tuple[str, str, int], ...]:
    data = source.encode("utf-8")
    tree = ast.parse(data)
    aliases = import_aliases(tree)
    collector = Collector(aliases, assigned_aliases(tree, aliases))
    collector.visit(tree)
    for name, origins in import_origins(tree).items():
        # One name imported from two places, one of them a module whose uses the rules judge: the uses are judged
        # under one origin only, so the other hides them (red-team round 24's R24-2: `import json as sys` in a def
        # that never runs made every top-level `sys.modules` read as `json.modules`).
        roots = {origin.lstrip(".").split(".")[0] for origin in origins}
        if len(origins) > 1 and roots & (ALL_MODULES | JUDGED_BY_USE):
            line = next((n.lineno for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                         and any((a.asname or a.name.split(".")[0]) == name for a in n.names)), 1)
            collector.found.append(("interpreter", f"{name} imported from {' and '.join(sorted(origins))}", line))
    return tuple(collector.found)
