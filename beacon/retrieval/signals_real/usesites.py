"""From the definitions an issue names to the code in other files that uses, implements or is called by them.

The other issue signals score the definitions an issue *names* (``dotted``,
``names``, ``errors``, ``receivers``); the file to change is often where the
named thing is *used*: the module that imports and catches a library's
exception, the helper a named function delegates to, the subclass overriding
a named method. Here the named definitions are the *seeds* (``seeds``: per
definition the best of its resolutions by ``dotted``, ``names``,
``receivers``, the exception classes the text writes and the code-looking
identifiers of the prose (``short_help``, ``CliRunner``: commit messages name
functions without backticks), each shared ``1/k`` among the ``k`` definitions
a name names as in ``names.shared_scores``, so a rare name seeds 1 and ``get``
seeds little). Each seed's weight is shared ``1/k`` among its ``k`` targets
in **other files** (its own file already gets the named signals' votes);
tests and modules never seed; tests and vendored code are never targets (a
vendored library's internals are not where a fix goes). Four variants, each a
weight of the composer:

* ``users`` (``w_users``): definitions that call, import or assign a seed
  (reverse ``calls``/``imports``/``assigns`` edges; an import at the top of a
  module is owned by the module node, which votes for its file);
* ``error_users`` (``w_error_users``): the same, from seeds that are exception
  classes (a class whose name ends in ``Error``/``Exception``/``Warning`` or
  that inherits from one) or vendored, counting also the users of the seed's
  subclasses (``except TimeoutError`` is written where ``ReadTimeoutError`` is
  imported and caught);
* ``callees`` (``w_callees``): definitions a seed calls whose name shares at
  least ``MIN_SHARED`` terms with the issue (``iter_content`` ->
  ``stream_decode_response_unicode`` for an issue about ``decode_unicode``;
  dunders never); a callee's share is ``overlap / k``, ``overlap`` the fraction
  of its name's terms the issue uses, ``k`` the number of kept callees;
* ``overriders`` (``w_overriders``): subclasses of a seed class and, for a seed
  method, the methods of the same name in subclasses of its class (reverse
  ``inherits`` edges, one step).

The targets vote for their files (``index.scores``). What ``w_neighbor``
(lexical stage) lacks and this adds: it starts from *named* definitions only,
crosses files, and votes for files.
"""
from __future__ import annotations

import re

import numpy as np

from ...graph.codebase import CodebaseGraph
from ...graph.symbols import EdgeType
from ..masks import module_mask, vendored_mask
from ..query_features import query_features
from ..text import split_identifier, terms
from .dotted import dotted_scores
from .index import SignalScores, graph_index, scores
from .names import name_scores, shared_scores
from .receivers import receiver_scores

# A callee counts when its name shares at least this many terms with the issue: 1 let generic helpers in on dev
# (``dispatch_hook`` for an issue about hooks, requests-863) and one-word classes on tune (``Proxy``, httpx-c842c8ff)
MIN_SHARED = 2
_USES = (EdgeType.CALLS, EdgeType.IMPORTS, EdgeType.ASSIGNS)
_CODE_LIKE = re.compile(r"_|[a-z][A-Z]")
_ERROR_NAME = re.compile(r"(?:Error|Exception|Warning)$")
_ERROR_CLASS = re.compile(r"(?<![\w.])(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*(?:Error|Exception|Warning))\b")


def code_like(query: str) -> list[str]:
    """Identifiers of the prose that look like code (``short_help``, ``CliRunner``): a commit message or an issue
    names functions without backticks; plain words (``help``, ``Command``) are left to the other signals."""
    return [w for w in query_features(query).identifiers if _CODE_LIKE.search(w.strip("_"))]


def error_classes(query: str) -> list[str]:
    """Exception class names the issue writes (``DecodeError``, ``urllib3.exceptions.TimeoutError``: last part)."""
    return list(dict.fromkeys(_ERROR_CLASS.findall(query)))


def seeds(graph: CodebaseGraph, query: str) -> np.ndarray:
    """Per definition: how strongly the issue names it (the best of its resolutions, see the module
    docstring); 0 for tests and modules. Not memoised: about a millisecond on the dev graphs, so each variant
    resolves again and the per-query times stay honest."""
    parts = [dotted_scores(graph, query).symbol, name_scores(graph, query).symbol,
             receiver_scores(graph, query).symbol, shared_scores(graph, error_classes(query)).symbol,
             shared_scores(graph, code_like(query)).symbol]
    seed = np.max(parts, axis=0)
    seed[graph_index(graph).is_test | module_mask(graph)] = 0.0
    return seed


def _targets(graph: CodebaseGraph, nodes, etypes, reverse: bool) -> set[int]:
    out: set[int] = set()
    for node in nodes:
        for etype in etypes:
            out.update(int(n) for n in graph.neighbors(node, etype, reverse=reverse))
    return out


def _foreign(graph: CodebaseGraph, seed: int, targets) -> list[int]:
    """The targets in another file than ``seed``'s, neither tests nor vendored (a vendored library's own
    internals are not where a fix goes: the recipes already scale vendored code by ``vendored``)."""
    index = graph_index(graph)
    home, vendored = index.file_of[seed], vendored_mask(graph)
    return sorted(t for t in targets if index.file_of[t] != home and not index.is_test[t] and not vendored[t])


def _share(graph: CodebaseGraph, seed: np.ndarray, targets_of) -> SignalScores:
    """Each seed's weight shared by its ``k`` targets (``targets_of(seed)``: ``(target, w)``): ``seed·w/k`` each."""
    symbol = np.zeros(len(graph.symbols))
    for node in np.flatnonzero(seed):
        targets = targets_of(int(node))
        for t, w in targets:
            symbol[t] += seed[node] * w / len(targets)
    return scores(graph, symbol)


def _subclasses(graph: CodebaseGraph, node: int) -> set[int]:
    return {int(n) for n in graph.neighbors(node, EdgeType.INHERITS, reverse=True)}


def _is_error(graph: CodebaseGraph, node: int) -> bool:
    s = graph.symbols[node]
    if s.kind != "class":
        return False
    if _ERROR_NAME.search(s.qualname):
        return True
    return any(_ERROR_NAME.search(graph.symbols[int(b)].qualname)
               for b in graph.neighbors(node, EdgeType.INHERITS))


def user_scores(graph: CodebaseGraph, query: str) -> SignalScores:
    def users(node: int):
        return [(t, 1.0) for t in _foreign(graph, node, _targets(graph, [node], _USES, reverse=True))]
    return _share(graph, seeds(graph, query), users)


def error_user_scores(graph: CodebaseGraph, query: str) -> SignalScores:
    seed = seeds(graph, query)
    vendored = vendored_mask(graph)
    for node in np.flatnonzero(seed):
        if not (vendored[node] or _is_error(graph, int(node))):
            seed[node] = 0.0

    def users(node: int):
        family = {node} | (_subclasses(graph, node) if graph.symbols[node].kind == "class" else set())
        return [(t, 1.0) for t in _foreign(graph, node, _targets(graph, family, _USES, reverse=True) - family)]
    return _share(graph, seed, users)


def _name_terms(graph: CodebaseGraph, node: int) -> set[str]:
    name = graph.symbols[node].name
    return set(split_identifier(name)) - {name.strip("_").lower()}  # the parts, not the whole name it appends


def _gated(graph: CodebaseGraph, targets: list[int], issue: set[str]) -> list[tuple[int, float]]:
    """The targets whose name shares ``MIN_SHARED`` terms with the issue, each with the share of its terms it
    uses; dunders never (every class has ``__init__``: its terms say nothing)."""
    out = []
    for t in targets:
        name = graph.symbols[t].name
        if name.startswith("__") and name.endswith("__"):
            continue
        words = _name_terms(graph, t)
        shared = len(words & issue)
        if shared >= MIN_SHARED:
            out.append((t, shared / len(words)))
    return out


def callee_scores(graph: CodebaseGraph, query: str) -> SignalScores:
    issue = set(terms(query))

    def callees(node: int):
        return _gated(graph, _foreign(graph, node, _targets(graph, [node], (EdgeType.CALLS,), reverse=False)), issue)
    return _share(graph, seeds(graph, query), callees)


def overrider_scores(graph: CodebaseGraph, query: str) -> SignalScores:
    index = graph_index(graph)

    def overriders(node: int):
        s = graph.symbols[node]
        if s.kind == "class":
            found = _subclasses(graph, node)
        elif s.kind == "method" and s.parent in graph.index:
            found = set()
            for sub in _subclasses(graph, graph.index[s.parent]):
                c = graph.symbols[sub]
                m = index.qualnames.get(c.path, {}).get(f"{c.qualname}.{s.name}")
                if m is not None:
                    found.add(m)
        else:
            found = set()
        return [(t, 1.0) for t in _foreign(graph, node, found)]
    return _share(graph, seeds(graph, query), overriders)
