"""Mutation operators: named single-line rewrites, each proposing edits for one AST node.

Each operator looks at one AST node and proposes edits as byte-column spans of
that node's physical line (``col_offset`` is a UTF-8 byte offset), so the
mutated line keeps the original indentation, spacing and trailing comment;
the file is never re-rendered with ``ast.unparse``. :mod:`beacon.tasks.mutate`
decides which nodes they see.
"""
from __future__ import annotations

import ast
from typing import Callable

Edit = tuple[int, int, str, str]  # start byte, end byte, replacement, description


def _span(src: bytes, node: ast.AST) -> str:
    return src[node.col_offset:node.end_col_offset].decode("utf-8")


def _op_span(src: bytes, start: int, end: int) -> tuple[int, int]:
    """The operator token between two operands: the gap minus whitespace and parentheses."""
    gap = src[start:end]
    keep = [i for i, b in enumerate(gap) if b not in b" \t()"]
    if not keep:
        raise ValueError(f"no operator token between columns {start} and {end} of {src!r}")
    return start + keep[0], start + keep[-1] + 1


_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Dict, ast.Set,
          ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# Operators that bind at least as tightly as ``+``/``-``: ``x OP y + 1`` needs no parentheses.
_TIGHT_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult)


def _wrapped(src: bytes, node: ast.expr, *, additive: bool = False) -> str:
    """Source of ``node``, parenthesised unless it is an atom (or, with ``additive``, may stand left of ``+ 1``)."""
    text = _span(src, node)
    if isinstance(node, _ATOMS):
        return text
    if additive and (isinstance(node, ast.BinOp) and isinstance(node.op, _TIGHT_BINOPS)
                     or isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not)
                     or isinstance(node, ast.Await)):
        return text
    return f"({text})"


def _int_value(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_value(node.operand)
        return None if inner is None or not isinstance(node.operand, ast.Constant) else -inner
    return None


# --- operators -------------------------------------------------------------------------------

_CMP_TEXT = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
             ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
_CMP_SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}


def _compare_swaps(node: ast.AST, src: bytes, table: dict, want_none: bool = False) -> list[Edit]:
    if not isinstance(node, ast.Compare):
        return []
    operands = [node.left, *node.comparators]
    edits = []
    for i, op in enumerate(node.ops):
        if type(op) not in table:
            continue
        if want_none and not any(isinstance(o, ast.Constant) and o.value is None for o in operands[i:i + 2]):
            continue
        start, end = _op_span(src, operands[i].end_col_offset, operands[i + 1].col_offset)
        new = _CMP_TEXT[table[type(op)]]
        edits.append((start, end, new, f"{src[start:end].decode()} -> {new}"))
    return edits


def comparison_swap(node: ast.AST, src: bytes) -> list[Edit]:
    """``<``↔``<=``, ``>``↔``>=``, ``==``↔``!=``."""
    return _compare_swaps(node, src, _CMP_SWAP)


def none_check_swap(node: ast.AST, src: bytes) -> list[Edit]:
    """``is None``↔``is not None``."""
    return _compare_swaps(node, src, {ast.Is: ast.IsNot, ast.IsNot: ast.Is}, want_none=True)


def membership_swap(node: ast.AST, src: bytes) -> list[Edit]:
    """``in``↔``not in``."""
    return _compare_swaps(node, src, {ast.In: ast.NotIn, ast.NotIn: ast.In})


def boolean_flip(node: ast.AST, src: bytes) -> list[Edit]:
    """``True``↔``False``; every ``and`` of one BoolOp ↔ ``or``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        new = str(not node.value)
        return [(node.col_offset, node.end_col_offset, new, f"{node.value} -> {new}")]
    if not isinstance(node, ast.BoolOp):
        return []
    old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
    text, last = b"", node.col_offset
    for left, right in zip(node.values, node.values[1:]):
        start, end = _op_span(src, left.end_col_offset, right.col_offset)
        text += src[last:start] + new.encode()
        last = end
    text += src[last:node.end_col_offset]
    return [(node.col_offset, node.end_col_offset, text.decode("utf-8"), f"{old} -> {new}")]


_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}
_ARITH_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
               ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult}


def arithmetic_swap(node: ast.AST, src: bytes) -> list[Edit]:
    """``+``↔``-``, ``*``↔``/``, ``//``→``/``, ``%``→``//``, ``**``→``*`` (also augmented ``+=``…)."""
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITH_SWAP:
        left, right, suffix = node.left, node.right, ""
    elif isinstance(node, ast.AugAssign) and type(node.op) in _ARITH_SWAP:
        left, right, suffix = node.target, node.value, "="
    else:
        return []
    start, end = _op_span(src, left.end_col_offset, right.col_offset)
    new = _ARITH[_ARITH_SWAP[type(node.op)]] + suffix
    return [(start, end, new, f"{src[start:end].decode()} -> {new}")]


def condition_inversion(node: ast.AST, src: bytes) -> list[Edit]:
    """``if x:``→``if not x:`` (and ``while``, ternary tests); ``not x``→``x``."""
    if not isinstance(node, (ast.If, ast.While, ast.IfExp)):
        return []
    test = node.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        new = _wrapped(src, test.operand)
    else:
        new = "not " + _wrapped(src, test)
    return [(test.col_offset, test.end_col_offset, new, f"{_span(src, test)} -> {new}")]


def constant_change(node: ast.AST, src: bytes) -> list[Edit]:
    """Integer literal ``n``→``n+1`` (booleans excluded)."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        new = str(node.value + 1)
        return [(node.col_offset, node.end_col_offset, new, f"{_span(src, node)} -> {new}")]
    return []


def return_value_swap(node: ast.AST, src: bytes) -> list[Edit]:
    """``return True``↔``return False``; ``return x``→``return None``."""
    if not isinstance(node, ast.Return) or node.value is None:
        return []
    value = node.value
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        new = str(not value.value)
    elif isinstance(value, ast.Constant) and value.value is None:
        return []
    else:
        new = "None"
    return [(value.col_offset, value.end_col_offset, new, f"return {_span(src, value)} -> return {new}")]


def _shift(node: ast.expr, src: bytes, delta: int) -> str:
    """Source text of ``node`` plus ``delta``, folding literal ``n``, ``x + n`` and ``x - n``."""
    value = _int_value(node)
    if value is not None:
        return str(value + delta)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) and _int_value(node.right) is not None \
            and isinstance(node.right, ast.Constant):
        sign = 1 if isinstance(node.op, ast.Add) else -1
        folded = node.right.value + sign * delta  # the new constant, under the same operator
        start, _ = _op_span(src, node.left.end_col_offset, node.right.col_offset)
        if folded == 0:
            return src[node.col_offset:start].decode("utf-8").rstrip()
        if folded > 0:
            return src[node.col_offset:node.right.col_offset].decode("utf-8") + str(folded)
    return f"{_wrapped(src, node, additive=True)} {'+' if delta > 0 else '-'} {abs(delta)}"


def off_by_one(node: ast.AST, src: bytes) -> list[Edit]:
    """``range(n)``→``range(n ± 1)`` (the stop argument); slice bounds ``a[:k]``→``a[:k ± 1]``."""
    bounds: list[ast.expr] = []
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
            and 1 <= len(node.args) <= 3 and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)):
        bounds.append(node.args[0] if len(node.args) == 1 else node.args[1])
    elif isinstance(node, ast.Slice):
        bounds.extend(b for b in (node.lower, node.upper) if b is not None)
    edits = []
    for bound in bounds:
        for delta in (1, -1):
            new = _shift(bound, src, delta)
            edits.append((bound.col_offset, bound.end_col_offset, new, f"{_span(src, bound)} -> {new}"))
    return edits


Operator = Callable[[ast.AST, bytes], list[Edit]]
# Order matters twice: it is the enumeration order within a line, and an identical
# mutated line is credited to the first operator that produces it.
OPERATORS: dict[str, Operator] = {
    "return_value_swap": return_value_swap,
    "condition_inversion": condition_inversion,
    "comparison_swap": comparison_swap,
    "none_check_swap": none_check_swap,
    "membership_swap": membership_swap,
    "boolean_flip": boolean_flip,
    "arithmetic_swap": arithmetic_swap,
    "off_by_one": off_by_one,
    "constant_change": constant_change,
}
