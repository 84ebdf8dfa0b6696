"""Mutation operators on small snippets, and a property test over generated function bodies."""
from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings, strategies as st

from beacon.tasks.mutate import compiles, mutations
from beacon.tasks.operators import OPERATORS


def body(*lines: str) -> str:
    return "def f(a, b, c, xs, k, n):\n" + "".join(f"    {line}\n" for line in lines)


def mutated(text: str, operator: str | None = None) -> list[str]:
    return [m.mutated_line for m in mutations("m.py", text) if operator is None or m.operator == operator]


@pytest.mark.parametrize("operator, line, expected", [
    ("comparison_swap", "return a < b", ["    return a <= b"]),
    ("comparison_swap", "return a >= b == c", ["    return a > b == c", "    return a >= b != c"]),
    ("comparison_swap", "return (a) != (b)", ["    return (a) == (b)"]),
    ("none_check_swap", "return a is None", ["    return a is not None"]),
    ("none_check_swap", "return None is not a", ["    return None is a"]),
    ("none_check_swap", "return a is b", []),
    ("membership_swap", "return a in xs", ["    return a not in xs"]),
    ("membership_swap", "return a  not   in xs", ["    return a  in xs"]),
    ("boolean_flip", "x = True", ["    x = False"]),
    ("boolean_flip", "x = a and (b or c)", ["    x = a or (b or c)", "    x = a and (b and c)"]),
    ("arithmetic_swap", "x = a + b * c", ["    x = a - b * c", "    x = a + b / c"]),
    ("arithmetic_swap", "a //= 2", ["    a /= 2"]),
    ("condition_inversion", "if a: pass", ["    if not a: pass"]),
    ("condition_inversion", "while a < b: pass", ["    while not (a < b): pass"]),
    ("condition_inversion", "if not (a or b): pass", ["    if (a or b): pass"]),
    ("condition_inversion", "x = a if b else c", ["    x = a if not b else c"]),
    ("constant_change", "x = a + 41", ["    x = a + 42"]),
    ("constant_change", "x = True", []),
    ("return_value_swap", "return True", ["    return False"]),
    ("return_value_swap", "return a + b", ["    return None"]),
    ("return_value_swap", "return None", []),
    ("off_by_one", "for i in range(n): pass", ["    for i in range(n + 1): pass", "    for i in range(n - 1): pass"]),
    ("off_by_one", "for i in range(k, len(xs) - 1): pass",
     ["    for i in range(k, len(xs)): pass", "    for i in range(k, len(xs) - 2): pass"]),
    ("off_by_one", "x = xs[:k]", ["    x = xs[:k + 1]", "    x = xs[:k - 1]"]),
    ("off_by_one", "x = xs[a or b:]", ["    x = xs[(a or b) + 1:]", "    x = xs[(a or b) - 1:]"]),
])
def test_each_operator_produces_the_expected_lines(operator, line, expected):
    text = body(line)
    assert mutated(text, operator) == expected
    assert all(compiles(m.apply(text)) for m in mutations("m.py", text))


def test_indentation_comments_and_the_rest_of_the_line_are_kept():
    text = "class C:\n    def m(self, a):\n        if a < 1:  # keep < this\n            return 0\n"
    found = [m for m in mutations("m.py", text) if m.line == 3]
    assert {m.mutated_line for m in found} == {
        "        if not (a < 1):  # keep < this", "        if a <= 1:  # keep < this",
        "        if a < 2:  # keep < this"}
    assert all(m.original_line == "        if a < 1:  # keep < this" for m in found)
    tabs = "def g(a):\n\tif a:\n\t\treturn 0\n"
    assert mutated(tabs, "condition_inversion") == ["\tif not a:"]
    unicode = body('x = "ü" + "é" if a < b else "ß"')
    assert "    x = \"ü\" - \"é\" if a < b else \"ß\"" in mutated(unicode, "arithmetic_swap")


def test_only_function_bodies_are_mutated():
    text = '''"""Module doc: a < b."""
import os
from x import y as z
X = 1 + 2
if X < 3:
    Y = True


@decorate(1 < 2, flag=True)
def f(a=1, b=a < 2, *, c: int = 3) -> bool:
    """Docstring with 1 < 2 and True."""
    import re
    global G
    return a < b


class C:
    LIMIT = 5 > 4

    @property
    def g(self, d=True):
        "also a docstring"
        x = (1 +
             2)
        y = f"{1 + 2}"
        return [
            True]
'''
    found = mutations("m.py", text)
    assert {m.line for m in found} == {text.split("\n").index("    return a < b") + 1}
    assert all(compiles(m.apply(text)) for m in found)


def test_apply_checks_the_original_line_and_a_broken_mutant_does_not_compile():
    text = body("return a < b")
    m = mutations("m.py", text)[0]
    with pytest.raises(ValueError, match="expected"):
        m.apply(text.replace("a < b", "a < c"))
    assert not compiles(body("return a <"))


def test_order_is_line_then_operator_then_column():
    text = body("x = a < b < c", "return True")
    found = mutations("m.py", text)
    order = list(OPERATORS)
    keys = [(m.line, order.index(m.operator), m.variant) for m in found]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert [m.variant for m in found if m.operator == "comparison_swap"] == [0, 1]
    # an identical mutated line is credited to the first operator only
    assert [m.operator for m in found if m.line == 3] == ["return_value_swap"]


# --- property: every candidate differs in exactly one line and compiles --------------------------

NAMES = st.sampled_from(["a", "b", "c", "xs", "k", "n", "len(xs)", "xs[k]", "a.b"])
LEAVES = st.one_of(NAMES, st.integers(0, 9).map(str), st.sampled_from(["True", "False", "None"]))


def _combine(children):
    binop = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "//", "%", "<", "<=", "==", "!=", "is",
                                                 "is not", "in", "not in", "and", "or"]), children)
    return st.one_of(
        binop.map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        children.map(lambda e: f"(not {e})"),
        st.tuples(children, children, children).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.tuples(NAMES, children).map(lambda t: f"{t[0]}[:{t[1]}]"),
        children.map(lambda e: f"range({e})"),
    )


EXPRS = st.recursive(LEAVES, _combine, max_leaves=6)
STATEMENTS = st.one_of(
    EXPRS.map(lambda e: f"x = {e}"),
    EXPRS.map(lambda e: f"return {e}"),
    EXPRS.map(lambda e: f"if {e}:\n        x = 1"),
    EXPRS.map(lambda e: f"while {e}:\n        break"),
    EXPRS.map(lambda e: f"for i in {e}:\n        pass"),
    EXPRS.map(lambda e: f"x += {e}  # note"),
    EXPRS.map(lambda e: f"assert {e}, 'msg'"),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(STATEMENTS, min_size=1, max_size=5))
def test_every_candidate_differs_in_exactly_one_line_and_compiles(statements):
    text = body('"""doc"""', *statements)
    ast.parse(text)
    original = text.split("\n")
    for m in mutations("m.py", text):
        new = m.apply(text).split("\n")
        changed = [i for i, (x, y) in enumerate(zip(original, new)) if x != y]
        assert len(new) == len(original) and changed == [m.line - 1], m
        assert "\n" not in m.mutated_line and m.mutated_line != m.original_line
        assert len(m.mutated_line) - len(m.mutated_line.lstrip()) == len(m.original_line) - len(m.original_line.lstrip())
        assert compiles(m.apply(text)), m
