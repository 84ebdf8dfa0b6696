"""The package layering of ``beacon/``, read from the source: no cycles between packages, no Hydra in the core.

The graph is built from the AST of every module, so an import inside a
function (the usual way to hide a cycle) counts like one at the top. A node is
a package directly under ``beacon`` (``beacon.repair``) or a top-level module
(``beacon.tokens``); an edge ``a -> b`` means some module of ``a`` imports
something of ``b``. Nothing is imported, so a broken module cannot hide an edge.
"""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

BEACON = Path(__file__).resolve().parents[1] / "beacon"


def module_name(path: Path, root: Path = BEACON) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, root: Path = BEACON) -> list[tuple[str, int]]:
    """Every module (and ``module.name``) that ``path`` imports, at any depth, with its line."""
    name = module_name(path, root)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, node.lineno))
            # ``from beacon import repair`` imports a package through its parent
            found += [(f"{target}.{alias.name}", node.lineno) for alias in node.names if alias.name != "*"]
    return found


def node_of(module: str) -> str | None:
    """``beacon.repair.edits`` -> ``beacon.repair``; ``None`` outside beacon and for ``beacon`` itself."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "beacon" and len(parts) > 1 else None


def package_graph(root: Path = BEACON) -> dict[str, dict[str, list[str]]]:
    """``graph[a][b]``: the ``file:line`` of every import that makes package ``a`` depend on ``b``."""
    graph: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(root.rglob("*.py")):
        source = node_of(module_name(path, root))
        for target, line in imports(path, root):
            dest = node_of(target)
            if not source or not dest or dest == source:
                continue
            where = root.parent / dest.replace(".", "/")
            site = f"{path.relative_to(root.parent)}:{line}"
            # not ``beacon.__version__`` and the like; ``from ..x import y`` names ``x`` and ``x.y``: one site
            if (where.is_dir() or where.with_suffix(".py").is_file()) and site not in graph[source][dest]:
                graph[source][dest].append(site)
    return graph


def find_cycle(graph: dict[str, dict[str, list[str]]]) -> list[str] | None:
    """One cycle as a closed path ``[a, b, …, a]``, or ``None``; depth-first, deterministic."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, {})):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def describe(cycle: list[str], graph: dict[str, dict[str, list[str]]]) -> str:
    return "\n".join(f"  {a} -> {b}  ({', '.join(graph[a][b][:3])})" for a, b in zip(cycle, cycle[1:]))


def test_no_import_cycle_between_packages():
    graph = package_graph()
    assert {"beacon.repair", "beacon.tasks", "beacon.data"} <= set(graph)  # the walk saw the tree
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle between beacon packages:\n" + describe(cycle, graph)


def test_find_cycle_reports_the_cycle():
    graph = {"a": {"b": ["a.py:1"]}, "b": {"c": ["b.py:2"]}, "c": {"a": ["c.py:3"]}, "d": {"a": ["d.py:4"]}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert "c -> a  (c.py:3)" in describe(find_cycle(graph), graph)
    assert find_cycle({"a": {"b": ["x"]}, "b": {}}) is None


def test_late_imports_count(tmp_path):
    """An import inside a function is an edge like any other (that is how cycles used to hide)."""
    root = tmp_path / "beacon"
    (root / "low").mkdir(parents=True)
    (root / "high").mkdir()
    (root / "low" / "__init__.py").write_text("def f():\n    from ..high import thing\n")
    (root / "high" / "__init__.py").write_text("from beacon.low import f\n")
    graph = package_graph(root)
    assert graph["beacon.low"]["beacon.high"] == ["beacon/low/__init__.py:2"]
    assert find_cycle(graph) == ["beacon.high", "beacon.low", "beacon.high"]


def test_data_types_stay_low_and_task_producers_high():
    graph = package_graph()
    pipeline = {"beacon.graph", "beacon.retrieval", "beacon.context", "beacon.repair", "beacon.localize",
                "beacon.providers", "beacon.artifacts", "beacon.tasks"}
    low = {dest: where for dest, where in graph["beacon.data"].items() if dest in pipeline}
    assert not low, f"beacon.data (manifests, queries, unified diffs) imports pipeline packages: {low}"
    importers = {src: deps["beacon.tasks"] for src, deps in graph.items() if "beacon.tasks" in deps}
    assert not importers, f"task producers (beacon.tasks) sit on top; imported by {importers}"


# The recipe loader reads conf/method YAML with OmegaConf's merge, the same merge Hydra
# applies to a ``defaults:`` list, so a recipe means the same inside and outside a Hydra job.
# It is the one core module allowed omegaconf; nothing in the core imports Hydra.
OMEGACONF_ALLOWED = {"beacon/retrieval/recipes.py"}


def test_core_never_imports_hydra():
    offenders = [f"{path.relative_to(BEACON.parent)}:{line} imports {target}"
                 for path in sorted(BEACON.rglob("*.py")) for target, line in imports(path)
                 if target.split(".")[0] == "hydra"
                 or (target.split(".")[0] == "omegaconf"
                     and str(path.relative_to(BEACON.parent)) not in OMEGACONF_ALLOWED)]
    assert not offenders, ("the core (beacon/) must not import Hydra, nor omegaconf outside the recipe loader:\n"
                           + "\n".join(offenders))


def test_retrieval_never_runs_git():
    git = {"subprocess", "beacon.repo.git"}
    offenders: dict[str, list[str]] = defaultdict(list)
    for path in sorted((BEACON / "retrieval").rglob("*.py")):
        for target, line in imports(path):
            if target in git or any(target.startswith(g + ".") for g in git):
                offenders[module_name(path)].append(f"{path.relative_to(BEACON.parent)}:{line} imports {target}")
    assert not offenders, "beacon.retrieval must not run git (history comes from beacon.repo):\n" + "\n".join(
        line for lines in offenders.values() for line in lines)
