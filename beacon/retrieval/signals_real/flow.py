"""The issue's pasted code followed further: bare function calls, star imports, and values through return types.

``receivers`` resolves what a snippet does with *classes*; a session like ::

    >>> from pkg import *
    >>> y = func(x)                 # a bare call of a function the package exports
    >>> z = Cls(1).method(2)
    >>> w = z.other()               # needs the return type of Cls.method
    >>> y.plot()                    # needs the return type of func

reaches most of its code through functions and the values they return. This
signal reads the snippet with ``snippets``' reader, extended so that a call on
a value is one more *hop* (``z`` above is ``Cls`` then ``method``; ``w`` is
``Cls`` then ``method``, ``other``; at most ``MAX_HOPS``), and resolves:

* a called name (``func(...)``, ``p.func(...)``, ``mod.Cls.method(...)``) by
  the issue's imports (``dotted.imports``), then as written in full
  (``pkg.mod.func``), then through each ``from pkg import *``
  (``pkg.func`` through the module table and ``__init__`` re-exports,
  ``dotted.resolve``, and a package's own ``from .core import *``: the
  definition ``func`` of a module the package imports), then, for a called
  name the issue never imports, the graph's top-level functions and classes
  of that name (at most ``MAX_DEFS``; Python builtins and the snippet's own
  ``def`` functions are never guessed). A function so named is a *call use*; a class is
  left to ``receivers``, which counts it already;
* a value's class: a class's instance is the class; a function's or method's
  value is its *return class*, read from its definition's source lines at
  query time (only for the few callees a snippet uses): the return annotation
  (``-> Cls``, ``-> "Cls"``, ``Optional[Cls]``, ``Cls | None``, ``Self``, a
  TypeVar that also annotates ``self``) or,
  without one, a body whose every ``return`` gives ``Cls(...)``, ``self``,
  ``cls(...)`` or ``type(self)(...)`` (the last three: the receiver's own class,
  so a method inherited from a base returns the subclass), or another call's
  value (``return helper(x)``, ``return self._make()``, ``b = B(); return
  b.go()``: followed in turn, at most ``MAX_DEPTH`` callees deep). A name is
  looked up in the callee's file: its own definitions, then the names its
  module imports (``imports`` edges), then ``dotted.resolve``;
* an attribute used on a value whose class came through a return type
  (``y.plot``, ``z.other``, ``Cls(1).method(2).other()``) by ``dotted.member``
  in that class or its bases.

Uses that ``receivers`` already counts (an attribute on a class expression
with no hop, a class instantiated) are skipped, so the two weights do not
count one use twice. ``dotted`` counts every imported name once; a call use
counts only the imported functions the code actually calls, so it is a
separate vote on purpose. The text half (the reader, star imports, return
types read from source) is ``flow_text``. Each use's definitions share one vote and vote for
their files (``index.scores``).
"""
from __future__ import annotations

import builtins
from functools import cached_property

from ...graph.codebase import CodebaseGraph
from ...graph.symbols import EdgeType
from .dotted import _imported, member, resolve
from .flow_text import HOP, flow_uses, return_types, star_imports
from .index import SignalScores, graph_index
from .names import definitions
from .receivers import Resolver, use_scores
from .snippets import Use

MAX_DEFS = 8  # a bare name defined more often than this is too common to guess, as in receivers
MAX_CLASSES = 8  # return classes kept per value
MAX_DEPTH = 4  # callees followed through returns of other calls (``return helper(x)``)
_BUILTINS = frozenset(dir(builtins))


class Flow(Resolver):
    """One issue's flow uses resolved in one graph (memoised per head and per callee); class expressions,
    snippet classes and the issue's imports as ``receivers.Resolver`` resolves them."""

    def __init__(self, graph: CodebaseGraph, query: str) -> None:
        super().__init__(graph, query)
        self.read = flow_uses(query)  # the same snippet classes and bindings, with hops
        self.stars = star_imports(query)
        self._heads: dict[str, list[int]] = {}
        self._returns: dict[tuple[int, int | None], list[int]] = {}
        self._depth = 0

    @cached_property
    def _index(self):
        return graph_index(self.graph)

    def _kind(self, node: int) -> str:
        return self.graph.symbols[node].kind

    def _callable(self, node: int) -> bool:
        return self._kind(node) in ("class", "function", "method")

    def heads(self, expr: str) -> list[int]:
        """The classes and functions a dotted head names (see the module docstring)."""
        if expr in self._heads:
            return self._heads[expr]
        head, _, rest = expr.partition(".")
        if head in self.read.classes and not rest:
            found = self.classes(expr)  # a snippet class: its graph bases
        elif head in self.aliases:
            found = self._resolve(f"{self.aliases[head]}.{rest}".rstrip("."))
        elif head in self.read.functions:
            found = []  # the snippet's own function, whatever the package defines by that name
        else:  # written in full (``pkg.mod.func``), then through each star import, then by name
            found = [n for n in self._resolve(expr) if self._callable(n)]  # a module of that name does not stop it
            found = found or [n for pkg in self.stars for n in self._resolve(f"{pkg}.{expr}")]
            if not found and not rest and head not in _BUILTINS and Use(head) in self.read.uses:  # called
                found = [int(n) for n in definitions(self.graph, head)
                         if self._kind(int(n)) == "class" or self._top_level(int(n))]
                found = found if len(found) <= MAX_DEFS else []
        found = sorted({n for n in found if self._callable(n)})
        self._heads[expr] = found
        return found

    def _resolve(self, name: str) -> list[int]:
        """``dotted.resolve``, and a name a package re-exports by its own star import (``from .core import *``
        in ``__init__``: an ``imports`` edge to the module ``core``, whose definition ``name`` is)."""
        found = resolve(self.graph, name)
        prefix, _, last = name.rpartition(".")
        if found or not prefix:
            return found
        out = []
        for module in resolve(self.graph, prefix):
            if self._kind(module) != "module":
                continue
            for target in self.graph.neighbors(module, EdgeType.IMPORTS):
                if self._kind(int(target)) == "module":
                    node = self._index.qualnames.get(self.graph.symbols[int(target)].path, {}).get(last)
                    out += [node] if node is not None else []
        return sorted(set(out))

    def _top_level(self, node: int) -> bool:
        s = self.graph.symbols[node]
        return s.kind == "function" and "." not in s.qualname

    def _owner(self, node: int) -> int | None:
        """The class a method is defined in (its ``Self`` when called on the class itself)."""
        s = self.graph.symbols[node]
        if s.kind != "method":
            return None
        return self._index.qualnames.get(s.path, {}).get(s.qualname.rsplit(".", 1)[0])

    def _in_file(self, path: str, expr: str) -> list[int]:
        """The classes and functions an expression written in ``path`` names: its definitions, its imports,
        the module table."""
        head, _, rest = expr.partition(".")
        local = self._index.qualnames.get(path, {}).get(head)
        module = self._index.module_node.get(path)
        found = [local] if local is not None else (_imported(self.graph, module, head) if module is not None else [])
        if rest:
            found = [n for n in (member(self.graph, f, rest.split(".")) for f in found) if n is not None]
        if not found:
            found = resolve(self.graph, expr)
        return sorted({n for n in found if self._callable(n)})

    def _start(self, nodes: list[int], owner: int | None = None) -> set[int]:
        """The classes of the values a head's definitions give: a class itself, a function's return classes."""
        out: set[int] = set()
        for node in nodes:
            out.update([node] if self._kind(node) == "class" else self.returns(node, owner))
        return out

    def _follow(self, classes: set[int], hops: list[str]) -> set[int]:
        """The return classes of calling ``hops`` in turn, each on the classes the previous one gave."""
        for hop in hops:
            nxt: set[int] = set()
            for cls in sorted(classes):
                found = member(self.graph, cls, [hop])
                if found is not None and self._kind(found) in ("function", "method"):
                    nxt.update(self.returns(found, cls))
            classes = nxt
        return classes

    def returns(self, node: int, receiver: int | None) -> list[int]:
        """The classes a function or method returns, ``receiver`` being the class it was looked up on; a callee
        that returns another call's value is followed (a cycle, or more than ``MAX_DEPTH`` deep, gives nothing)."""
        key = (node, receiver)
        if key in self._returns:
            return self._returns[key]
        if self._depth >= MAX_DEPTH:
            return []  # not memoised: reached from higher up, the same callee may be followed
        self._returns[key] = []  # while it is being read: a recursive callee returns nothing known
        self._depth += 1
        out: set[int] = set()
        path = self.graph.symbols[node].path
        own = receiver if receiver is not None else self._owner(node)
        for chain in return_types(self.graph.source(node)):
            head, *hops = chain.split(HOP)
            start = ({own} if own is not None else set()) if head == "Self" else self._start(self._in_file(path, head))
            out.update(self._follow(start, hops))
        self._depth -= 1
        self._returns[key] = sorted(out) if len(out) <= MAX_CLASSES else []
        return self._returns[key]

    def values(self, chain: str) -> tuple[list[int], bool]:
        """The classes a value has (``Cls|m|n``: the return class of ``n`` on the return class of ``m`` on
        ``Cls``) and whether a return type was followed to get them."""
        head, *hops = chain.split(HOP)
        prefix = head.rpartition(".")[0]
        owners = [n for n in self.heads(prefix) if self._kind(n) == "class"] if prefix else []
        nodes = self.heads(head)  # ``Cls.build()``: a method called on a class returns ``Self`` as ``Cls``
        out = self._start(nodes, owners[0] if len(owners) == 1 else None)
        followed = bool(hops) or any(self._kind(n) != "class" for n in nodes)
        return sorted(self._follow(out, hops)), followed

    def definitions(self, use: Use) -> list[int]:
        """What a flow use names: a called function (no attribute), or the attribute on a value's class when
        a return type was followed to reach it; [] for what ``receivers`` counts."""
        if not use.attr:
            return [n for n in self.heads(use.receiver) if self._kind(n) != "class"] if HOP not in use.receiver else []
        classes, followed = self.values(use.receiver)
        if not followed:
            return []
        return sorted({n for c in classes if (n := member(self.graph, c, [use.attr])) is not None})


def flow_scores(graph: CodebaseGraph, query: str) -> SignalScores:
    return use_scores(graph, Flow(graph, query))


def written(use: Use) -> str:
    """A flow use as the snippet writes it: ``Cls(..).m(..).n`` for ``Use("Cls|m", "n")``."""
    head, *hops = use.receiver.split(HOP)
    text = head + "(..)" + "".join(f".{h}(..)" for h in hops)
    return f"{text}.{use.attr}" if use.attr else text
