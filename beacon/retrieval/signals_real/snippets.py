"""The code an issue pastes, parsed into what a reader tracks: which names hold which classes, and what is used on them.

``code_blocks(text)`` finds the pasted code: fenced blocks (one that starts with a
``>>>`` prompt is a session and keeps only its prompt lines), indented blocks (4 spaces or a
tab) and ``>>>``/``...`` doctest lines anywhere, prompts stripped.
``modules(text)`` parses each block with ``ast.parse``; a block that does not
parse (a traceback pasted into the same fence, an elided ``...`` line) is cut
into top-level chunks (a line at the block's own indentation and the deeper
lines after it), each parsed alone, and a chunk that still fails is parsed
line by line, so whatever parses is kept and nothing raises.

``uses(text)`` walks the parsed code in order, like a reader, and returns
``Uses``: the snippet's own classes (``class MySchema(Schema):`` with its base
expressions and the methods it defines) and ``Use`` records, each an
expression naming a class and an attribute path used on it:

* ``x = Cls(...)``, ``x = mod.Cls(...)``, ``x: Cls``, ``def f(x: Cls)``,
  ``with Cls(...) as x``, ``x = Cls.from_y(...)`` (a ``from``-factory) bind
  ``x`` to the class expression (a loop variable or any other assignment
  unbinds it); ``x.m(...)``/``x.attr`` is then a use of ``m``/``attr`` on it,
  as are ``Cls().m()``, ``Cls.m`` and ``MySchema().dump()``;
* inside a snippet class, ``self.m`` and ``super().m`` are uses on the class,
  and each method it defines is an *override*: a use of that name on the
  class (``receivers`` resolves a snippet class's members in its bases).

Class expressions are kept as the dotted text the snippet writes (``Cls``,
``mod.Cls``); resolving them through the imports and the graph is
``receivers``. Pure text in, no graph.
"""
from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field

_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
_PROMPT = re.compile(r"^\s*(?:>>>|\.\.\.)(?: |$)(.*)$")
_INDENTED = re.compile(r"(?m)(?:^(?: {4}|\t).*(?:\n|$))+")
_FACTORY = re.compile(r"from_?[A-Za-z0-9_]*|create|new")
MAX_CHARS = 200_000  # longer texts are cut: issue bodies are far shorter, and parsing stays bounded


@dataclass(frozen=True)
class Use:
    """``attr`` used on the class that ``receiver`` (a dotted class expression of the snippet) names;
    ``attr`` empty: the class itself is used (instantiated, annotated, bound)."""

    receiver: str
    attr: str = ""


@dataclass
class SnippetClass:
    name: str
    bases: list[str]  # dotted base expressions as written
    methods: set[str] = field(default_factory=set)


@dataclass
class Uses:
    classes: dict[str, SnippetClass] = field(default_factory=dict)
    uses: list[Use] = field(default_factory=list)  # distinct, in reading order
    bindings: dict[str, str] = field(default_factory=dict)  # variable -> class expression (last binding)
    _seen: set[Use] = field(default_factory=set, repr=False)

    def add(self, use: Use) -> None:
        if use not in self._seen:
            self._seen.add(use)
            self.uses.append(use)


def _doctest(lines: list[str]) -> list[str]:
    return [m.group(1) for m in map(_PROMPT.match, lines) if m]


def _fenced(body: str) -> str:
    """A session (first line a prompt) keeps its prompt lines; otherwise prompts are stripped in place."""
    lines = [ln for ln in body.split("\n") if ln.strip()]
    if lines and _PROMPT.match(lines[0]):
        return "\n".join(_doctest(lines))
    return textwrap.dedent("\n".join(m.group(1) if (m := _PROMPT.match(ln)) else ln for ln in body.split("\n")))


def code_blocks(text: str) -> list[str]:
    """The pasted code blocks of ``text``, dedented, doctest prompts stripped, in order (see the module doc)."""
    text = text[:MAX_CHARS].replace("\r\n", "\n")
    blocks = [_fenced(body) for body in _FENCE.findall(text)]
    prose = _FENCE.sub("\n", text)
    blocks += [textwrap.dedent(m.group(0)) for m in _INDENTED.finditer(prose)]
    session = _doctest(prose.split("\n"))
    if session:
        blocks.append("\n".join(session))
    return [b for b in blocks if b.strip()]


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _chunks(block: str) -> list[str]:
    """Top-level chunks: a line at the block's least indentation and the deeper lines after it."""
    lines = [ln for ln in block.split("\n") if ln.strip()]
    if not lines:
        return []
    least = min(len(ln) - len(ln.lstrip()) for ln in lines)
    out: list[list[str]] = []
    for ln in lines:
        if len(ln) - len(ln.lstrip()) <= least or not out:
            out.append([])
        out[-1].append(ln)
    return [textwrap.dedent("\n".join(c)) for c in out]


def modules(text: str) -> list[ast.Module]:
    """Every block parsed; an unparseable block by its chunks, an unparseable chunk by its lines."""
    out = []
    for block in code_blocks(text):
        tree = _parse(block)
        if tree is not None:
            out.append(tree)
            continue
        for chunk in _chunks(block):
            tree = _parse(chunk)
            if tree is not None:
                out.append(tree)
                continue
            out += [t for t in (_parse(ln.strip()) for ln in chunk.split("\n")) if t is not None]
    return out


def dotted(expr: ast.AST) -> str | None:
    """``a.b.C`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        return ".".join([expr.id, *reversed(parts)])
    return None


class _Reader(ast.NodeVisitor):
    """Walks statements in order; ``self.out.bindings`` is the reader's memory of what each name holds."""

    def __init__(self, out: Uses) -> None:
        self.out = out
        self.cls: SnippetClass | None = None  # the snippet class whose body is being read

    def receiver(self, expr: ast.AST) -> str | None:
        """The class expression ``expr`` evaluates to (an instance or the class itself; ``super()`` is the
        snippet class, whose members resolve in its bases); None when the reader cannot tell."""
        if isinstance(expr, ast.Call):
            func = expr.func
            if isinstance(func, ast.Name) and func.id == "super" and self.cls is not None:
                return self.cls.name
            if isinstance(func, ast.Attribute) and _FACTORY.fullmatch(func.attr):
                inner = self.receiver(func.value)  # Cls.from_y(...) builds a Cls
                if inner is not None:
                    return inner
            expr = func
        name = dotted(expr)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if head == "self" and self.cls is not None:
            return self.cls.name if not rest else None
        if head in self.out.bindings:
            return self.out.bindings[head] if not rest else None
        return name

    def bind(self, target: ast.AST, value: ast.AST | None) -> None:
        if isinstance(target, ast.Name) and value is not None:
            found = self.receiver(value)
            if found is not None and (isinstance(value, ast.Call) or found in self.out.classes):
                self.out.bindings[target.id] = found
                return
        self.unbind(target)

    def unbind(self, target: ast.AST) -> None:
        """Names (re)bound to something the reader cannot follow (``a, b = f()``, a loop variable)."""
        for name in ast.walk(target):
            if isinstance(name, ast.Name):
                self.out.bindings.pop(name.id, None)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for target in node.targets:
            self.bind(target, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
        name = dotted(node.annotation)
        if isinstance(node.target, ast.Name) and name is not None:
            self.out.bindings[node.target.id] = name
            self.out.add(Use(name))

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for expr in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            if expr is not None:
                self.visit(expr)
        args = node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:  # def f(x: Cls) binds x like x: Cls
            name = dotted(arg.annotation) if arg.annotation is not None else None
            if name is not None:
                self.out.bindings[arg.arg] = name
                self.out.add(Use(name))
        for stmt in node.body:
            self.visit(stmt)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)
        self.unbind(node.target)
        for stmt in [*node.body, *node.orelse]:
            self.visit(stmt)

    visit_AsyncFor = visit_For

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, item.context_expr)
        for stmt in node.body:
            self.visit(stmt)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(expr)
        bases = [b for b in map(dotted, node.bases) if b is not None and b != "object"]
        cls = SnippetClass(node.name, bases)
        cls.methods = {s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.out.classes[node.name] = cls
        self.out.bindings.pop(node.name, None)
        for method in sorted(cls.methods):
            self.out.add(Use(node.name, method))  # an override names the base's method
        outer, self.cls = self.cls, cls
        for stmt in node.body:
            self.visit(stmt)
        self.cls = outer

    def visit_Attribute(self, node: ast.Attribute) -> None:
        found = self.receiver(node.value)
        if found is not None:
            self.out.add(Use(found, node.attr))
        self.visit(node.value)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, (ast.Name, ast.Attribute)):
            found = self.receiver(node.func)
            if found is not None:
                self.out.add(Use(found))  # Cls(...): the class itself (resolution keeps only classes)
        self.generic_visit(node)


def uses(text: str) -> Uses:
    """The snippet classes, bindings and uses of every code block of ``text`` (see the module docstring)."""
    out = Uses()
    for tree in modules(text):
        try:
            _Reader(out).visit(tree)
        except RecursionError:  # absurdly nested generated code: keep what was read
            continue
    return out
