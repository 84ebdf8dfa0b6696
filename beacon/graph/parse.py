"""Parse one Python file into definitions and *unresolved* references.

The result depends only on the file's bytes (never on its path or on other
files), so it can be cached by content hash. Resolving references to symbols
in other files is ``beacon.graph.resolve``'s job.

A reference target is a *chain*: ``foo()`` -> ``("foo",)``, ``a.b.c()`` ->
``("a", "b", "c")``, ``super().m()`` -> ``("super()", "m")``; a receiver that
is not a plain name (``f().g()``, ``x[0].g()``) starts with ``"?"``.
"""
from __future__ import annotations

import ast
import hashlib
import re
import tokenize
import warnings
from dataclasses import dataclass, field
from io import BytesIO

from .literal_fragments import FileFragments, file_fragments
from .words import FileWords, file_words

# 4: LOCAL bindings; outcomes independent of warning filters. 5: `@(` decorator spans.
# 6: string constants (``FileParse.literals``). 7: bases through ``with_metaclass(M, *bases)``
# and subscripts (``Base[T]`` -> ``Base``), see ``base_chains``. 8: each definition's document
# words (``FileParse.words``). 9: the terms of each file's words (``FileWords.terms``).
# 10: each file's literal fragments (``FileParse.fragments``).
PARSER_VERSION = 10

Chain = tuple[str, ...]

# Binding of a name assigned inside a function (parameter, assignment target,
# loop/with/except variable): it shadows module-level names and imports, so
# resolution must not follow the same name to a module-level definition.
LOCAL = ("local",)


@dataclass(frozen=True, slots=True)
class ImportRef:
    """``import a.b`` / ``from ..x import y``; ``level`` counts leading dots."""

    level: int
    module: str | None
    name: str | None


@dataclass(slots=True)
class Def:
    kind: str  # module | class | function | method
    qualname: str
    start_line: int
    end_line: int
    parent: int  # index of the enclosing Def; -1 for the module


@dataclass(slots=True)
class FileParse:
    """Everything resolution needs from one file, keyed by local def index."""

    text: str  # indexed text: decoded, newlines normalised to "\n"
    text_sha256: str
    line_count: int
    defs: list[Def] = field(default_factory=list)
    # per def index: name -> local def index | ImportRef | ("alias", chain) | LOCAL
    bindings: dict[int, dict[str, object]] = field(default_factory=dict)
    calls: list[tuple[int, Chain]] = field(default_factory=list)
    assigns: list[tuple[int, Chain]] = field(default_factory=list)
    imports: list[tuple[int, ImportRef]] = field(default_factory=list)
    bases: list[tuple[int, Chain]] = field(default_factory=list)
    decorators: list[tuple[int, Chain]] = field(default_factory=list)
    # (line, value) of every string constant but docstrings, f-string parts included, in ``ast.walk`` order:
    # error messages and option names an issue may quote (``retrieval.signals_real.literals``). Collected
    # here because this parse is cached by content hash; a second parse per file for them cost more than
    # the whole graph build.
    literals: list[tuple[int, str]] = field(default_factory=list)
    # The words of each definition's own lines (``words.file_words``): the per-file half of the term index,
    # computed here so that it is cached by content hash with the parse.
    words: FileWords | None = None
    # The matchable fragments of ``literals`` (``literal_fragments.file_fragments``), for the literal index:
    # computed here so that they are cached by content hash with the parse.
    fragments: FileFragments | None = None

    def interface(self) -> bytes:
        """What other files' resolution can depend on: names, kinds, bindings, bases.

        Line numbers and function bodies are left out, so editing a body keeps
        the interface and lets other files' resolved edges be reused.
        """
        parts = [repr([(d.kind, d.qualname, d.parent) for d in self.defs])]
        parts.append(repr(sorted((k, sorted(v.items(), key=str)) for k, v in self.bindings.items() if self.defs[k].kind in ("module", "class"))))
        parts.append(repr(self.bases))
        return hashlib.sha256("\n".join(parts).encode()).digest()


class ParseFailure(Exception):
    """The file cannot be indexed; the message is the recorded skip reason."""


_NEWLINES = re.compile(r"\r\n?")


def decode_source(data: bytes) -> str:
    """Decode per PEP 263 (UTF-8 by default) and normalise newlines."""
    try:
        encoding, _ = tokenize.detect_encoding(BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise ParseFailure(f"undecodable: {exc}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return _NEWLINES.sub("\n", text)


def chain_of(expr: ast.expr) -> Chain:
    names: list[str] = []
    while isinstance(expr, ast.Attribute):
        names.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        names.append(expr.id)
    elif (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "super"
    ):
        names.append("super()")
    else:
        names.append("?")
    names.reverse()
    return tuple(names)


def base_chains(base: ast.expr) -> list[Chain]:
    """The chains of the classes one base expression of a ``class`` statement names.

    A plain base is its chain; a subscripted one (``Generic[T]``, ``Base[int]``)
    names the class it subscripts. ``with_metaclass(Meta, *bases)`` -- the
    py2/3 idiom of six, future and many projects' own ``_compat`` modules
    (sometimes imported as ``_with_metaclass``) --
    builds a throwaway class whose bases are the arguments after the metaclass,
    so those are the real bases. Any other call (a factory such as
    ``declarative_base()``) names no class this file can resolve: no chain.
    """
    while isinstance(base, ast.Subscript):
        base = base.value
    if isinstance(base, ast.Call):
        if chain_of(base.func)[-1].lstrip("_") != "with_metaclass":  # also a private `_with_metaclass`
            return []
        return [c for arg in base.args[1:] if not isinstance(arg, ast.Starred) for c in base_chains(arg)]
    chain = chain_of(base)
    return [] if chain[0] == "?" else [chain]


_FUNC_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)
_SKIP_EXPR_WALK = (ast.Name, ast.Constant, ast.Attribute)


class _Extractor:
    def __init__(self, result: FileParse):
        self.r = result
        self.seen: dict[str, int] = {}
        self._lines: list[str] | None = None
        self.not_local: dict[int, set[str]] = {}  # per function: `global`/`nonlocal` names

    def bind_local(self, owner: int, name: str) -> None:
        # Only function scopes: a module or class body's own names are the
        # bindings resolution must see. Imports and nested defs take precedence.
        if self.r.defs[owner].kind in ("function", "method") and name not in self.not_local.get(owner, ()):
            self.r.bindings[owner].setdefault(name, LOCAL)

    def unique(self, qualname: str) -> str:
        # Redefinitions (property setters, version branches) keep distinct ids.
        count = self.seen.get(qualname, 0) + 1
        self.seen[qualname] = count
        return qualname if count == 1 else f"{qualname}#{count}"

    def decorator_line(self, deco: ast.expr) -> int:
        """Line of the decorator's ``@``.

        Usually the expression's first line, but a parenthesised decorator
        (``@(`` newline ``deco`` newline ``)``, PEP 614) starts earlier; the
        lines in between hold only brackets, comments or blanks, so the nearest
        line starting with ``@`` is the one.
        """
        if self._lines is None:
            self._lines = self.r.text.split("\n")
        line = deco.lineno
        while line > 1 and not self._lines[line - 1].lstrip().startswith("@"):
            line -= 1
        return line

    def add_def(self, kind: str, qualname: str, node: ast.AST, parent: int) -> int:
        decorators = getattr(node, "decorator_list", ())
        start = min([node.lineno] + [self.decorator_line(d) for d in decorators])
        self.r.defs.append(Def(kind, qualname, start, node.end_lineno or node.lineno, parent))
        index = len(self.r.defs) - 1
        self.r.bindings[index] = {}
        return index

    def body(self, stmts: list[ast.stmt], owner: int) -> None:
        r = self.r
        for node in stmts:
            if isinstance(node, _FUNC_TYPES) or isinstance(node, ast.ClassDef):
                self.definition(node, owner)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        ref = ImportRef(0, alias.name, None)
                        r.bindings[owner][alias.asname] = ref
                    else:
                        ref = ImportRef(0, alias.name, None)
                        head = alias.name.split(".", 1)[0]
                        r.bindings[owner][head] = ImportRef(0, head, None)
                    r.imports.append((owner, ref))
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    ref = ImportRef(node.level, node.module, alias.name)
                    r.imports.append((owner, ref))
                    if alias.name != "*":
                        r.bindings[owner][alias.asname or alias.name] = ref
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                self.not_local.setdefault(owner, set()).update(node.names)
            else:
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                    self.assignment(node, owner)
                self.statement_parts(node, owner)

    def statement_parts(self, node: ast.stmt, owner: int) -> None:
        """Walk a statement's expressions; recurse into nested statement bodies."""
        for name in node._fields:
            value = getattr(node, name)
            if isinstance(value, list):
                if not value:
                    continue
                first = value[0]
                if isinstance(first, ast.stmt):
                    self.body(value, owner)
                elif isinstance(first, (ast.excepthandler, ast.match_case)):
                    for item in value:
                        extra = getattr(item, "type", None) or getattr(item, "guard", None)
                        if extra is not None:
                            self.expression(extra, owner)
                        if isinstance(getattr(item, "name", None), str):  # except E as name
                            self.bind_local(owner, item.name)
                        self.body(item.body, owner)
                else:
                    for item in value:
                        if isinstance(item, ast.AST):
                            self.expression(item, owner)
            elif isinstance(value, ast.AST):
                self.expression(value, owner)

    def expression(self, expr: ast.AST, owner: int) -> None:
        calls = self.r.calls
        local_scope = self.r.defs[owner].kind in ("function", "method")
        stack = [expr]
        pop, push, children = stack.pop, stack.extend, ast.iter_child_nodes
        while stack:
            node = pop()
            if isinstance(node, _SKIP_EXPR_WALK):
                if isinstance(node, ast.Attribute):
                    push((node.value,))
                elif local_scope and isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    self.bind_local(owner, node.id)  # x = …, for x in …, with … as x, (x := …)
                continue
            if isinstance(node, ast.Call):
                calls.append((owner, chain_of(node.func)))
            elif local_scope and isinstance(node, ast.arg):
                self.bind_local(owner, node.arg)  # lambda parameters
            push(children(node))

    def assignment(self, node: ast.Assign | ast.AnnAssign, owner: int) -> None:
        values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        for value in values:
            if isinstance(value, (ast.Name, ast.Attribute)):
                chain = chain_of(value)
                if chain[0] == "?":
                    continue
                self.r.assigns.append((owner, chain))
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                # `alias = other` in a module or class body re-binds a name.
                if len(values) == 1 and self.r.defs[owner].kind in ("module", "class"):
                    for target in targets:
                        if isinstance(target, ast.Name):
                            self.r.bindings[owner][target.id] = ("alias", chain)

    def definition(self, node: ast.AST, owner: int) -> None:
        r = self.r
        owner_def = r.defs[owner]
        is_class = isinstance(node, ast.ClassDef)
        if is_class:
            kind = "class"
        else:
            kind = "method" if owner_def.kind == "class" else "function"
        qual = self.unique(node.name if owner_def.kind == "module" else f"{owner_def.qualname}.{node.name}")
        # Decorators, defaults, annotations and bases run in the enclosing scope.
        for deco in node.decorator_list:
            self.expression(deco, owner)
        if is_class:
            for base in node.bases:
                self.expression(base, owner)
            for kw in node.keywords:
                self.expression(kw.value, owner)
        else:
            args = node.args
            for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
                self.expression(default, owner)
        index = self.add_def(kind, qual, node, owner)
        r.bindings[owner][node.name] = index
        if not is_class:
            args = node.args
            for arg in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
                if arg is not None:
                    self.bind_local(index, arg.arg)
        for deco in node.decorator_list:
            target = deco.func if isinstance(deco, ast.Call) else deco
            chain = chain_of(target)
            if chain[0] != "?":
                r.decorators.append((index, chain))
        if is_class:
            for base in node.bases:
                r.bases.extend((index, chain) for chain in base_chains(base))
        self.body(node.body, index)


_DOCSTRING_OWNERS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def string_constants(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, value) of every ``str`` constant of ``tree`` except docstrings, in ``ast.walk`` order.

    One walk: ``ast.walk`` visits a body's owner before the body, so each docstring is known before it is seen.
    """
    docs: set[int] = set()
    out = []
    for node in ast.walk(tree):
        kind = type(node)
        if kind is ast.Constant:
            if type(node.value) is str and id(node) not in docs:
                out.append((node.lineno, node.value))
        elif kind in _DOCSTRING_OWNERS and node.body:
            first = node.body[0]
            if type(first) is ast.Expr and type(first.value) is ast.Constant:
                docs.add(id(first.value))
    return out


def parse_source(data: bytes, *, literals: bool = True) -> FileParse:
    """Parse file bytes; raise ``ParseFailure`` with the skip reason on failure.

    ``literals=False`` leaves ``FileParse.literals`` empty and ``FileParse.words`` and ``FileParse.fragments``
    unset, for callers that only need definitions (gold units, agent scoring): collecting them is a quarter of
    the parse time. The graph build always collects them.
    """
    text = decode_source(data)
    try:
        # Compile-time warnings (invalid escape sequences, `is` with a literal)
        # must not depend on the caller's filters: under `-W error` they become
        # SyntaxErrors, and the file would be skipped and cached as broken.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except SyntaxError as exc:
        raise ParseFailure(f"syntax error: line {exc.lineno}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ParseFailure(f"cannot parse: {type(exc).__name__}: {exc}") from None
    line_count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    result = FileParse(
        text=text,
        text_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        line_count=line_count,
    )
    result.defs.append(Def("module", "<module>", 1, max(line_count, 1), -1))
    result.bindings[0] = {}
    try:
        _Extractor(result).body(tree.body, 0)
        if literals:
            result.literals = string_constants(tree)
    except RecursionError:
        raise ParseFailure("cannot index: nesting too deep") from None
    if literals:
        result.words = document_words(result)
        result.fragments = file_fragments(result.literals)
    return result


def document_words(result: FileParse) -> FileWords:
    """The words of each definition's own lines (graph builds only: ``parse_source(literals=True)``)."""
    return file_words(result.text, [(d.start_line, d.end_line) for d in result.defs])
