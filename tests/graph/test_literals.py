"""``FileParse.literals`` / ``SourceFile.literals``: every string constant but docstrings, collected by the cached parse."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from hypothesis import given, settings, strategies as st

from beacon.graph import CodebaseGraph
from beacon.graph.parse import decode_source, parse_source, string_constants


def _reference(text: str) -> list[tuple[int, str]]:
    """The plain two-walk version: docstring ids first, then every other ``str`` constant."""
    tree = ast.parse(text)
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


SOURCE = textwrap.dedent('''\
    """Module docstring."""
    OPTION = "--ignore-local-config"


    class Field:
        """Class docstring."""
        default = b"bytes are not text"

        def check(self, value):
            """Method docstring."""
            "a second string statement is not a docstring"
            if value is None:
                raise ValueError(f"Field {self!r} may not be null: expected {value:>10}")


    async def fetch():
        42
        return "fetched"
    ''')


def test_messages_and_options_are_kept_docstrings_and_bytes_are_not():
    found = parse_source(SOURCE.encode()).literals
    values = [v for _, v in found]
    assert "--ignore-local-config" in values and "fetched" in values
    assert "a second string statement is not a docstring" in values
    assert "Field " in values and " may not be null: expected " in values  # f-string parts
    assert not any("docstring." in v for v in values) and all(isinstance(v, str) for v in values)
    assert (2, "--ignore-local-config") in found and (18, "fetched") in found
    assert found == _reference(SOURCE)
    assert parse_source(SOURCE.encode(), literals=False).literals == []  # callers that need definitions only


def test_the_graph_carries_them_and_a_saved_graph_loads_them(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "field.py").write_text(SOURCE)
    graph = CodebaseGraph.from_repo(tmp_path / "src")
    assert graph.files["field.py"].literals == tuple(_reference(SOURCE))
    loaded = CodebaseGraph.load(graph.save(tmp_path / "saved"))
    assert loaded.files["field.py"].literals == graph.files["field.py"].literals


def test_every_file_of_a_real_tree_equals_the_reference(tmp_path_factory, clone_requests):
    tree: Path = clone_requests(tmp_path_factory)
    checked = 0
    for path in sorted(tree.rglob("*.py")):
        if ".git" in path.parts:
            continue
        data = path.read_bytes()
        assert parse_source(data).literals == _reference(decode_source(data)), path
        checked += 1
    assert checked > 30


_NAME = st.sampled_from(["a", "b", "value", "self"])
_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@st.composite
def _body(draw, depth: int = 0) -> list[str]:
    lines = []
    if draw(st.booleans()):
        lines.append(repr(draw(_TEXT)))  # a docstring, or a plain string statement when not first
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["assign", "expr", "fstring", "bytes", "def", "class"] if depth < 2
                                    else ["assign", "expr", "fstring", "bytes"]))
        if kind == "assign":
            lines.append(f"{draw(_NAME)} = {draw(_TEXT)!r}")
        elif kind == "expr":
            lines.append(repr(draw(_TEXT)))
        elif kind == "fstring":
            literal = draw(_TEXT).replace("{", "{{").replace("}", "}}")
            lines.append(f"{draw(_NAME)} = f{literal!r} f'{{{draw(_NAME)}!r}}'")
        elif kind == "bytes":
            lines.append(f"{draw(_NAME)} = {draw(_TEXT).encode()!r}")
        else:
            head = "def f(self):" if kind == "def" else "class C:"
            inner = draw(_body(depth + 1)) or ["pass"]
            lines += [head] + ["    " + line for line in inner]
    return lines


@settings(max_examples=150, deadline=None)
@given(_body())
def test_string_constants_equal_the_two_walk_reference(lines):
    text = "\n".join(lines) + "\n"
    assert string_constants(ast.parse(text)) == _reference(text)
