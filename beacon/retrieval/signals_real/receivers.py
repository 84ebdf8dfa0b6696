"""The issue's pasted code resolved through the graph the way a reader would: receiver types, snippet classes, bases.

A dotted name (``dotted``) only reaches code the issue spells out in full;
pasted code mostly reaches it through variables and the user's own classes::

    from marshmallow import Schema, fields
    class MySchema(Schema):
        created = fields.DateTime()
        def dump(self, obj): ...
    s = MySchema()
    s.load(data)

``snippets.uses`` reads that as uses (``MySchema`` with base ``Schema``,
``fields.DateTime``, ``dump`` and ``load`` on ``MySchema``); here each use is
resolved to graph definitions:

* a class expression by the issue's imports (``dotted.imports``: ``fields`` is
  ``marshmallow.fields``) and ``dotted.resolve`` (modules, ``__init__``
  re-exports); a bare name the issue never imports by the graph's classes of
  that name (``names.definitions``, shared; at most ``MAX_CLASSES``), as is
  the last part of a dotted expression whose head is not imported either
  (``nodes.Call`` without its import) when it is written as a class
  (CapWords); a name the issue imports from elsewhere (``numpy``) is not guessed;
* a snippet class by its bases, recursively (``class A(MySchema)``), so its
  members, overrides and ``super()`` calls resolve in the graph's base classes;
* an attribute used on a class by ``dotted.member``: the class's own
  definition or the first base class that has it (``s.load`` above is
  ``Schema.load``, found in ``marshmallow/schema.py``).

Only classes are receivers (a function or module named by a use is left to the
``dotted`` and ``names`` signals). Each use's definitions share one vote
(``1/k`` each of ``k``), each distinct use votes once, and definitions vote for
their files (``index.scores``), like ``dotted``.
"""
from __future__ import annotations

import numpy as np

from ...graph.codebase import CodebaseGraph
from .dotted import imports, member, resolve
from .index import SignalScores, scores
from .names import definitions
from .snippets import SnippetClass, Use, uses

MAX_CLASSES = 8  # a bare name defined as a class more often than this is too common to type a receiver


class Resolver:
    """Class expressions and uses of one issue's snippets, resolved in one graph (memoised per expression)."""

    def __init__(self, graph: CodebaseGraph, query: str) -> None:
        self.graph = graph
        self.aliases = imports(query)
        self.read = uses(query)
        self._classes: dict[str, list[int]] = {}

    def _is_class(self, node: int) -> bool:
        return self.graph.symbols[node].kind == "class"

    def _by_name(self, name: str) -> list[int]:
        nodes = [int(n) for n in definitions(self.graph, name) if self._is_class(int(n))]
        return nodes if len(nodes) <= MAX_CLASSES else []

    def classes(self, expr: str, seen: frozenset[str] = frozenset()) -> list[int]:
        """The graph classes a class expression of the snippet names (a snippet class: its bases')."""
        if expr in self._classes:
            return self._classes[expr]
        head, _, rest = expr.partition(".")
        snippet: SnippetClass | None = self.read.classes.get(head) if not rest else None
        if snippet is not None:
            found = sorted({n for base in snippet.bases if base not in seen | {expr}
                            for n in self.classes(base, seen | {expr})})
        else:
            absolute = f"{self.aliases[head]}.{rest}".rstrip(".") if head in self.aliases else expr
            found = [n for n in resolve(self.graph, absolute) if self._is_class(n)]
            if not found and head not in self.aliases:
                tail = expr.rsplit(".", 1)[-1]
                found = self._by_name(tail) if not rest or tail[:1].isupper() else []
        self._classes[expr] = found
        return found

    def definitions(self, use: Use) -> list[int]:
        """The definitions a use names: its classes (a snippet class's graph bases), or the member ``attr`` found
        in each (or its bases)."""
        cls = self.classes(use.receiver)  # a snippet class: its graph bases
        if not use.attr:
            return cls
        return sorted({n for c in cls if (n := member(self.graph, c, [use.attr])) is not None})

    def resolved(self) -> list[tuple[Use, list[int]]]:
        """Every use with the definitions it names (uses naming nothing left out), in reading order."""
        return [(use, nodes) for use in self.read.uses if (nodes := self.definitions(use))]


def use_scores(graph: CodebaseGraph, resolver: Resolver) -> SignalScores:
    """Each resolved use adds ``1 / k`` to each of its ``k`` definitions; definitions vote for their files."""
    symbol = np.zeros(len(graph.symbols))
    for _, nodes in resolver.resolved():
        symbol[nodes] += 1.0 / len(nodes)
    return scores(graph, symbol)


def receiver_scores(graph: CodebaseGraph, query: str) -> SignalScores:
    return use_scores(graph, Resolver(graph, query))


def explain(graph: CodebaseGraph, query: str) -> list[str]:
    """One line per resolved use: ``receiver.attr -> symbol ids`` (the diagnostic of ``localize_real_receivers``)."""
    out = []
    for use, nodes in Resolver(graph, query).resolved():
        written = f"{use.receiver}.{use.attr}" if use.attr else use.receiver
        out.append(f"{written} -> {', '.join(graph.symbols[n].id for n in nodes)}")
    return out
