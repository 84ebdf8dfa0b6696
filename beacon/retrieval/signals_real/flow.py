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

With ``gaps`` (``flow_text.GAPS``; the composer's ``flow_gaps``, none by
default) it also follows tuple items (``fig, ax = f()``; ``a, b = A(), B()``,
whose uses ``receivers`` does not see, so they count here), attributes as
hops (a property's return, or what the class and its bases assign to
``self.attr``: ``flow_text.attribute_types``), returned names bound earlier,
and traceback source lines (``flow_frames``).
"""
from __future__ import annotations

import builtins
from functools import cached_property

from ...graph.codebase import CodebaseGraph
from ...graph.symbols import EdgeType
from .dotted import MAX_BASES, _imported, member, resolve
from .flow_frames import resolved_frames
from .flow_text import ATTR, HOP, ITEM, attribute_types, flow_uses, is_property, return_types, star_imports
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

    def __init__(self, graph: CodebaseGraph, query: str, gaps: frozenset[str] = frozenset()) -> None:
        super().__init__(graph, query)
        self.gaps, self.query = gaps, query
        self.counted = set(self.read.uses)  # what ``receivers`` reads (and counts when it resolves)
        self.read = flow_uses(query, gaps)  # the same snippet classes and bindings, with hops
        self.stars = star_imports(query)
        self._heads: dict[str, list[int]] = {}
        self._returns: dict[tuple[int, int | None, int | None], list[int]] = {}
        self._attrs: dict[tuple[int, str], list[int]] = {}
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

    def _start(self, nodes: list[int], owner: int | None = None, item: int | None = None) -> set[int]:
        """The classes of the values a head's definitions give: a class itself, a function's return classes
        (``item``: of the tuple item it returns)."""
        out: set[int] = set()
        for node in nodes:
            if self._kind(node) != "class":
                out.update(self.returns(node, owner, item))
            elif item is None:
                out.add(node)
        return out

    def _follow(self, classes: set[int], hops: list[str]) -> set[int]:
        """The return classes of calling ``hops`` in turn, each on the classes the previous one gave (``.attr``:
        the attribute's class; ``m#i``: item ``i`` of what ``m`` returns)."""
        for hop in hops:
            name, _, item = hop.partition(ITEM)
            index = int(item) if item.isdigit() else None
            nxt: set[int] = set()
            for cls in sorted(classes):
                if name.startswith(ATTR):
                    nxt.update(self.attribute(cls, name[len(ATTR):]) if index is None else [])
                    continue
                found = member(self.graph, cls, [name])
                if found is not None and self._kind(found) in ("function", "method"):
                    nxt.update(self.returns(found, cls, index))
            classes = nxt
        return classes

    def attribute(self, cls: int, name: str) -> list[int]:
        """The classes attribute ``name`` of a ``cls`` instance holds: a property's return classes, or what
        the first of ``cls`` and its bases that assigns the attribute says (``flow_text.attribute_types``)."""
        if (cls, name) not in self._attrs:  # memoised: a class's source is parsed once per attribute
            self._attrs[cls, name] = []  # while it is being read: an attribute typed by itself gives nothing
            self._attrs[cls, name] = self._attribute(cls, name)
        return self._attrs[cls, name]

    def _attribute(self, cls: int, name: str) -> list[int]:
        found = member(self.graph, cls, [name])
        if found is not None:
            ok = self._kind(found) == "method" and is_property(self.graph.source(found))
            return self.returns(found, cls) if ok else []
        queue, seen = [cls], {cls}
        while queue and len(seen) <= MAX_BASES:
            cur = queue.pop(0)
            chains = attribute_types(self.graph.source(cur), name, self.gaps)
            if chains:
                return self._chains(chains, self.graph.symbols[cur].path, cls)
            for base in map(int, self.graph.neighbors(cur, EdgeType.INHERITS)):
                if base not in seen:
                    seen.add(base)
                    queue.append(base)
        return []

    def _chains(self, chains: list[str], path: str, own: int | None) -> list[int]:
        """The classes chains written in ``path`` give (``Self``: ``own``), at most ``MAX_CLASSES``."""
        out: set[int] = set()
        for chain in chains:
            head, *hops = chain.split(HOP)
            head, _, item = head.partition(ITEM)
            index = int(item) if item.isdigit() else None
            start = ({own} if own is not None and index is None else set()) if head == "Self" \
                else self._start(self._in_file(path, head), None, index)
            out.update(self._follow(start, hops))
        return sorted(out) if len(out) <= MAX_CLASSES else []

    def returns(self, node: int, receiver: int | None, item: int | None = None) -> list[int]:
        """The classes a function or method returns (``item``: the item of the tuple it returns), ``receiver``
        being the class it was looked up on; a callee that returns another call's value is followed (a cycle,
        or more than ``MAX_DEPTH`` deep, gives nothing)."""
        key = (node, receiver, item)
        if key in self._returns:
            return self._returns[key]
        if self._depth >= MAX_DEPTH:
            return []  # not memoised: reached from higher up, the same callee may be followed
        self._returns[key] = []  # while it is being read: a recursive callee returns nothing known
        self._depth += 1
        path = self.graph.symbols[node].path
        own = receiver if receiver is not None else self._owner(node)
        self._returns[key] = self._chains(return_types(self.graph.source(node), self.gaps, item), path, own)
        self._depth -= 1
        return self._returns[key]

    def values(self, chain: str) -> tuple[list[int], bool]:
        """The classes a value has (``Cls|m|n``: the return class of ``n`` on the return class of ``m`` on
        ``Cls``) and whether a return type was followed to get them."""
        head, *hops = chain.split(HOP)
        head, _, item = head.partition(ITEM)
        prefix = head.rpartition(".")[0]
        owners = [n for n in self.heads(prefix) if self._kind(n) == "class"] if prefix else []
        nodes = self.heads(head)  # ``Cls.build()``: a method called on a class returns ``Self`` as ``Cls``
        out = self._start(nodes, owners[0] if len(owners) == 1 else None, int(item) if item.isdigit() else None)
        followed = bool(hops or item) or any(self._kind(n) != "class" for n in nodes)
        return sorted(self._follow(out, hops)), followed

    def definitions(self, use: Use) -> list[int]:
        """What a flow use names: a called function (no attribute), or the attribute on a value's class when
        a return type was followed to reach it; [] for what ``receivers`` counts."""
        if not use.attr:
            plain = HOP not in use.receiver and ITEM not in use.receiver
            return [n for n in self.heads(use.receiver) if self._kind(n) != "class"] if plain else []
        classes, followed = self.values(use.receiver)
        if not followed and (not self.gaps or use in self.counted):  # a tuple-bound class: receivers missed it
            return []
        return sorted({n for c in classes if (n := member(self.graph, c, [use.attr])) is not None})


    def resolved(self) -> list[tuple[Use, list[int]]]:
        """``Resolver.resolved``, plus (``frames``) the uses of traceback source lines (``flow_frames``)."""
        found = super().resolved()
        return found + resolved_frames(self, self.query) if "frames" in self.gaps else found


def flow_scores(graph: CodebaseGraph, query: str, gaps: frozenset[str] = frozenset()) -> SignalScores:
    return use_scores(graph, Flow(graph, query, gaps))


def written(use: Use) -> str:
    """A flow use as the snippet writes it: ``Cls(..).m(..).n`` for ``Use("Cls|m", "n")`` (``f(..)[1]`` for a
    tuple item ``f#1``, ``x(..).attr`` for an attribute hop ``x|.attr``)."""
    def step(seg: str) -> str:
        name, _, item = seg.partition(ITEM)
        return (name if name.startswith(ATTR) else f"{name}(..)") + (f"[{item}]" if item else "")
    head, *hops = use.receiver.split(HOP)
    text = step(head) + "".join(h if h.startswith(ATTR) else f".{step(h)}" for h in hops)
    return f"{text}.{use.attr}" if use.attr else text
