"""Single-line mutants of function bodies: where the operators (:mod:`beacon.tasks.operators`) may look.

Only statements inside function bodies are visited: docstrings, decorators,
signatures, imports and class-level code are never touched. A simple
statement must lie on one physical line; for ``if``/``while``/``for``/``with`` only a header expression
that lies on the header's line is mutated (the body is visited on its own).
f-strings are skipped (their inner positions are unreliable before 3.12).

``mutations(path, text)`` lists candidates in a fixed order (line, operator
order of :data:`OPERATORS`, column); a mutated line produced by an earlier
operator on the same line is not repeated. Candidates are not compiled here:
callers check each mutated file with :func:`compiles` (discovery counts and
limits those checks).
"""
from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass
from typing import Iterator

from .operators import OPERATORS


@dataclass(frozen=True)
class Mutation:
    path: str
    line: int  # 1-based
    operator: str
    variant: int  # index among this operator's distinct edits of this line, by column
    original_line: str
    mutated_line: str
    description: str

    def apply(self, text: str) -> str:
        """``text`` with this mutation's line replaced (it must read ``original_line``)."""
        lines = text.split("\n")
        if lines[self.line - 1] != self.original_line:
            raise ValueError(f"{self.path}:{self.line}: expected {self.original_line!r}, found {lines[self.line - 1]!r}")
        lines[self.line - 1] = self.mutated_line
        return "\n".join(lines)


def compiles(text: str, path: str = "<mutant>") -> bool:
    """Whether ``text`` compiles as a module (warnings such as ``is`` with a literal ignored)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(text, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return False
    return True


# --- where operators may look ------------------------------------------------------------------

_SKIP_STMTS = (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Pass, ast.Break, ast.Continue)
_CHILD_BODIES = ("body", "orelse", "finalbody")


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _function_statements(body: list[ast.stmt], in_function: bool) -> Iterator[ast.stmt]:
    """Statements that belong to a function body (at any depth), docstrings left out."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = stmt.body[1:] if stmt.body and _is_docstring(stmt.body[0]) else stmt.body
            yield from _function_statements(inner, True)
            continue
        if isinstance(stmt, ast.ClassDef):  # class-level code is not a function body
            yield from _function_statements(stmt.body, False)
            continue
        if in_function:
            yield stmt
        for name in _CHILD_BODIES:
            yield from _function_statements(getattr(stmt, name, []), in_function)
        for child in getattr(stmt, "handlers", []) + getattr(stmt, "cases", []):
            yield from _function_statements(child.body, in_function)


def _expressions(node: ast.AST, line: int) -> Iterator[ast.AST]:
    """``node`` and its sub-expressions on ``line``; f-strings and lambda signatures skipped."""
    if isinstance(node, ast.JoinedStr):
        return
    if isinstance(node, ast.expr):
        if node.lineno != line or node.end_lineno != line:
            return
        yield node
    for name, value in ast.iter_fields(node):
        if isinstance(node, ast.Lambda) and name == "args":
            continue
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, ast.AST) and not isinstance(child, (ast.expr_context, ast.operator, ast.cmpop,
                                                                     ast.boolop, ast.unaryop)):
                yield from _expressions(child, line)


def _single_line(node: ast.AST, line: int) -> bool:
    return node.lineno == line and node.end_lineno == line


def _sites(tree: ast.Module) -> Iterator[tuple[int, list[ast.AST]]]:
    """(line, nodes the operators may rewrite) for each mutable statement or header."""
    for stmt in _function_statements(tree.body, False):
        line = stmt.lineno
        if isinstance(stmt, (ast.If, ast.While)):
            if _single_line(stmt.test, line):
                yield line, [stmt, *_expressions(stmt.test, line)]
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            if _single_line(stmt.iter, line):
                yield line, list(_expressions(stmt.iter, line))
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            items = [i.context_expr for i in stmt.items]
            if all(_single_line(e, line) for e in items):
                yield line, [n for e in items for n in _expressions(e, line)]
        elif isinstance(stmt, (ast.Try, ast.Match, *_SKIP_STMTS)) or _is_docstring(stmt):
            continue
        elif hasattr(ast, "TryStar") and isinstance(stmt, ast.TryStar):
            continue
        elif _single_line(stmt, line):
            parts = [stmt.target, stmt.value] if isinstance(stmt, ast.AnnAssign) else [stmt]
            nodes = [stmt] + [n for p in parts if p is not None for n in _expressions(p, line)]
            yield line, nodes


def mutations(path: str, text: str) -> list[Mutation]:
    """Every candidate of ``text`` (raises ``SyntaxError`` if it does not parse)."""
    tree = ast.parse(text, filename=path)
    lines = text.split("\n")
    by_line: dict[int, list[ast.AST]] = {}
    for line, nodes in _sites(tree):
        by_line.setdefault(line, []).extend(nodes)
    found: list[Mutation] = []
    for line in sorted(by_line):
        original = lines[line - 1]
        src = original.encode("utf-8")
        seen = {original}
        for name, operator in OPERATORS.items():
            edits = sorted({e for node in by_line[line] for e in operator(node, src)})
            variant = 0
            for start, end, new, description in edits:
                mutated = (src[:start] + new.encode("utf-8") + src[end:]).decode("utf-8")
                if mutated in seen:
                    continue
                seen.add(mutated)
                found.append(Mutation(path, line, name, variant, original, mutated, description))
                variant += 1
    return found
