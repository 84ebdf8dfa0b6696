"""Dotted API names and the issue's own imports resolved to definitions through the graph.

An issue names API the way its users write it: ``marshmallow.fields.DateTime``,
``from sqlfluff.core import Linter``, ``astroid.nodes.Call.infer`` or, after
``from marshmallow import fields``, just ``fields.Nested``. ``names(query)``
collects those as absolute dotted names: the dotted names of the text, the
``import``/``from ... import`` statements (an alias maps to what it imports,
so ``fields.Nested`` above becomes ``marshmallow.fields.Nested``).

``resolve(graph, name)`` walks a name like the interpreter would: the longest
prefix that is a module of the graph (``GraphIndex.module_file``; packages
are their ``__init__``), then the rest as a qualname in that file; a first
part that the module only *imports* (a re-export in ``__init__``: an
``imports`` edge from the module to a definition elsewhere) continues in the
file that defines it; a method missing from a class is looked up in its base
classes (``inherits`` edges, breadth first). A name that ends on a module
names the module node. The first part must be a top-level module of the
graph (a package name) or an alias, so ordinary prose (``e.g.``) resolves to
nothing.

Each resolved definition scores 1 (shared when a name is ambiguous); the
definitions vote for their files.
"""
from __future__ import annotations

import re

import numpy as np

from ...graph.codebase import CodebaseGraph
from ...graph.symbols import EdgeType
from ..query_features import query_features
from .index import SignalScores, graph_index, scores

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED = rf"{_IDENT}(?:\.{_IDENT})*"
# Statements start after a line's own indentation (``[^\S\n]*``, not ``\s*``, which would scan every following blank
# line from each line start: quadratic on a report of many empty lines); the matches are the same.
_FROM = re.compile(rf"(?m)^[^\S\n]*(?:>>>\s*)?from\s+({_DOTTED})\s+import\s+\(?([^)\n]+)")
_IMPORT = re.compile(rf"(?m)^[^\S\n]*(?:>>>\s*)?import\s+({_DOTTED}(?:\s+as\s+{_IDENT})?(?:\s*,\s*{_DOTTED}(?:\s+as\s+{_IDENT})?)*)")
_AS = re.compile(rf"({_DOTTED})(?:\s+as\s+({_IDENT}))?")
MAX_BASES = 8  # base classes searched for an inherited method


def imports(query: str) -> dict[str, str]:
    """Local name -> absolute dotted name, from the query's import statements (relative imports skipped)."""
    out: dict[str, str] = {}
    for m in _FROM.finditer(query):
        for part in m.group(2).split(","):
            found = _AS.fullmatch(part.strip().rstrip("\\").strip())
            if found and "." not in found.group(1):
                out[found.group(2) or found.group(1)] = f"{m.group(1)}.{found.group(1)}"
    for m in _IMPORT.finditer(query):
        for part in m.group(1).split(","):
            found = _AS.fullmatch(part.strip())
            if found:
                name = found.group(1)
                out[found.group(2) or name.split(".")[0]] = name if found.group(2) else name.split(".")[0]
    return out


def names(query: str) -> list[str]:
    """The absolute dotted names the query uses, in first-occurrence order (see the module docstring)."""
    aliases = imports(query)
    out = list(aliases.values())
    for d in query_features(query).dotted:
        head, _, rest = d.partition(".")
        out.append(f"{aliases[head]}.{rest}" if head in aliases and aliases[head] != head else d)
    return list(dict.fromkeys(out))


def _imported(graph: CodebaseGraph, module_node: int, name: str) -> list[int]:
    return [int(n) for n in graph.neighbors(module_node, EdgeType.IMPORTS)
            if graph.symbols[int(n)].qualname.rsplit(".", 1)[-1] == name]


def member(graph: CodebaseGraph, node: int, rest: list[str]) -> int | None:
    """``rest`` (a qualname tail) under definition ``node``, searching base classes for the first missing part."""
    index = graph_index(graph)
    queue, seen = [node], {node}
    while queue and len(seen) <= MAX_BASES:
        cur = graph.symbols[queue.pop(0)]
        found = index.qualnames.get(cur.path, {}).get(".".join([cur.qualname, *rest]))
        if found is not None:
            return found
        for base in graph.neighbors(graph.index[cur.id], EdgeType.INHERITS):
            if int(base) not in seen:
                seen.add(int(base))
                queue.append(int(base))
    return None


def resolve(graph: CodebaseGraph, name: str) -> list[int]:
    """The definitions (or the module node) a dotted name names; empty when it names nothing in the graph."""
    index = graph_index(graph)
    parts = name.split(".")
    # no module name has more parts than the deepest module: a long chain (``a.a.a…`` in a pasted dump) is not
    # joined once per prefix, which is quadratic in its length
    for cut in range(min(len(parts), index.module_depth), 0, -1):
        path = index.module_file.get(".".join(parts[:cut]))
        if path is not None:
            break
    else:
        return []
    module, rest = index.module_node.get(path), parts[cut:]
    if not rest:
        return [module] if module is not None else []
    direct = index.qualnames.get(path, {}).get(rest[0])
    heads = [direct] if direct is not None else (_imported(graph, module, rest[0]) if module is not None else [])
    out = []
    for head in heads:
        found = head if len(rest) == 1 else member(graph, head, rest[1:])
        if found is None and len(rest) > 1:
            found = head  # the class is named even when its member is not found
        if found is not None:
            out.append(found)
    return sorted(set(out))


def dotted_scores(graph: CodebaseGraph, query: str) -> SignalScores:
    symbol = np.zeros(len(graph.symbols))
    for name in names(query):
        nodes = resolve(graph, name)
        for node in nodes:
            symbol[node] += 1.0 / len(nodes)
    return scores(graph, symbol)
