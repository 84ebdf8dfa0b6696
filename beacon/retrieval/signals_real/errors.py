"""Names quoted in the error messages an issue pastes.

Python's own messages name the code at fault: ``AttributeError:
'AsStringVisitor' object has no attribute 'visit_unknown'``, ``TypeError:
load() got an unexpected keyword argument 'partial'``, ``KeyError:
'field_name'``. An *error line* is an exception class (a dotted or plain
name ending in ``Error``, ``Exception``, ``Warning`` or ``Exit``) followed by
``:``, as Python prints it after a traceback or a user copies it into prose;
its message runs to the end of the line. From the message after the colon this signal takes
the quoted identifiers (``'x'``, ``"x"``, ```x```; a dotted one by its last
part) and the names written as calls (``load(``), and scores the definitions
they name with ``names.shared_scores`` (a name defined ``k`` times gives each
definition ``1/k``: a class quoted by the message is usually unique, a quoted
attribute often is not). The exception class itself is left to the dotted
and lexical signals: it is defined where the exceptions live, rarely where
the fix goes.
"""
from __future__ import annotations

import re

from ...graph.codebase import CodebaseGraph
from .index import SignalScores
from .names import shared_scores

_ERROR_LINE = re.compile(
    r"(?m)(?<![\w.])(?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*(?:Error|Exception|Warning|Exit):[ \t]*(.+)$")
_QUOTED = re.compile(r"""['"`]([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)['"`]""")
# anchored at the start of an identifier run, as ``query_features._CALL``: the same matches, in linear time
_CALLED = re.compile(r"(?<![A-Za-z0-9_])[0-9]*([A-Za-z_][A-Za-z0-9_]*)\(\)?")


def messages(query: str) -> list[str]:
    """The message of every error line, in order."""
    return [m.group(1).strip() for m in _ERROR_LINE.finditer(query)]


def error_names(query: str) -> list[str]:
    """The identifiers the error messages quote or call (per message: quoted ones, then called ones), once each."""
    out = []
    for message in messages(query):
        out += [q.rsplit(".", 1)[-1] for q in _QUOTED.findall(message)]
        out += _CALLED.findall(message)
    return list(dict.fromkeys(out))


def error_scores(graph: CodebaseGraph, query: str) -> SignalScores:
    return shared_scores(graph, error_names(query))
