"""The shape of ``beacon.retrieval``: no import cycle (beyond the registry's lazy loading of its methods),
small modules, one owner of per-graph state, and no git."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "beacon" / "retrieval"
MODULES = sorted(PACKAGE.glob("*.py"))
ALL_MODULES = sorted(PACKAGE.rglob("*.py"))  # subpackages (signals_real) follow the same rules


def _module_level_imports(path: Path) -> set[str]:
    """Sibling modules imported at module level (function-level imports are the registry's lazy loading;
    ``if TYPE_CHECKING:`` blocks import types only)."""
    out = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
    return out


def test_no_import_cycle_inside_retrieval():
    graph = {p.stem: _module_level_imports(p) for p in MODULES}
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            pytest.fail("import cycle: " + " -> ".join(path[path.index(name):] + (name,)))
        if name in done:
            return
        for dep in sorted(graph.get(name, ())):
            visit(dep, path + (name,))
        done.add(name)

    for name in graph:
        visit(name, ())


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_are_small_and_documented(path):
    text = path.read_text()
    assert len(text.splitlines()) <= 300, f"{path.name}: {len(text.splitlines())} lines"
    assert ast.get_docstring(ast.parse(text)), f"{path.name}: no module docstring"


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_indexes_touches_the_graph_memo_and_nothing_runs_git(path):
    text = path.read_text()
    if path.name != "indexes.py":
        assert "graph.cache" not in text, f"{path.name}: per-graph state belongs in GraphIndexes"
    for word in ("run_git", "subprocess", "GitSource"):
        assert word not in text, f"{path.name}: retrieval never runs git ({word})"
