"""Traceback source lines read as code: the ``frames`` gap of the flow signal (``flow``).

Python prints each frame's source line under it::

    File ".../pkg/schema.py", line 120, in load
        return self._do_load(data, partial=partial)

``frames`` resolves the frame itself to the definition holding it; the line
says what that definition calls next, which is often where the bug is one
frame further (or in a frame the paste cut off). ``frame_uses(query)`` pairs
each frame (``query_features``' frames, in order) with the uses of its source
line, read by ``flow_text``'s reader with ``self`` standing for the frame's
class (``Self``): ``self._do_load`` is a use of ``_do_load`` on it,
``helper(x)`` a call of ``helper``. ``frame_definitions`` resolves them in the
graph: ``Self`` is the class of the frame's method (its members found in it
or its bases, ``dotted.member``), any other name as the frame's file writes it
(its definitions, its imports, the module table); a called name gives
functions and methods only (a class instantiated is ``receivers``' business).
A frame outside the graph (another library) gives nothing. Pure functions; the
text half needs no graph.
"""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from ..query_features import Frame, query_features
from .dotted import member
from .flow_text import HOP, ITEM, FlowUses, _FlowReader
from .frames import resolve_frame
from .snippets import MAX_CHARS, SnippetClass, Use

if TYPE_CHECKING:
    from .flow import Flow

# the pattern query_features reads frames with: its matches, in order, are its frames
_FRAME_AT = re.compile(r'File "([^"\n]+)", line (\d+)(?:, in ([^\s\n]+))?')
_SKIP = ("File ", "^", "~", "Traceback", "During handling", "The above exception")


def source_lines(query: str) -> list[tuple[Frame, str]]:
    """Each frame with the source line printed under it (an indented line that is not another frame, a
    ``^^^`` marker or a traceback header); frames without one are left out."""
    query = query[:MAX_CHARS]
    out = []
    for frame, m in zip(query_features(query).frames, _FRAME_AT.finditer(query)):
        end = query.find("\n", m.end())
        if end < 0:
            continue
        nxt = query.find("\n", end + 1)
        line = query[end + 1:nxt if nxt >= 0 else len(query)]
        text = line.strip()
        if line[:1] in (" ", "\t") and text and not text.startswith(_SKIP):
            out.append((frame, text))
    return out


def _parse(line: str) -> ast.Module | None:
    """One source line parsed (``if f(x):`` and other block openers get a ``pass`` body); None if it fails."""
    for text in (line, line + " pass"):
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return None


def frame_uses(query: str, gaps: frozenset[str] = frozenset()) -> list[tuple[Frame, list[Use]]]:
    """Each frame with the uses its source line makes, ``self`` read as ``Self`` (see the module docstring)."""
    out = []
    for frame, line in source_lines(query):
        tree = _parse(line)
        if tree is None:
            continue
        reader = _FlowReader(FlowUses(), gaps)
        reader.cls = SnippetClass("Self", [])
        try:
            reader.visit(tree)
        except RecursionError:
            continue
        out.append((frame, reader.out.uses))
    return out


def frame_definitions(flow: Flow, use: Use, path: str, owner: int | None) -> list[int]:
    """What one source-line use names, the line written in ``path`` inside a method of class ``owner``."""
    head, *hops = use.receiver.split(HOP)
    head, _, item = head.partition(ITEM)
    index = int(item) if item.isdigit() else None
    if head == "Self":
        start = {owner} if owner is not None and index is None else set()
    else:
        nodes = flow._in_file(path, head)
        if not use.attr and not hops and index is None:  # a call of a name the file defines or imports
            return [n for n in nodes if flow._kind(n) != "class"]
        start = flow._start(nodes, None, index)
    if not use.attr:
        return []
    classes = flow._follow(start, hops)
    return sorted({n for c in classes if (n := member(flow.graph, c, [use.attr])) is not None})


def resolved_frames(flow: Flow, query: str) -> list[tuple[Use, list[int]]]:
    """Every source-line use that names definitions (a use naming the same definitions from several frames
    once), leaving out the uses the snippet reader already has (a source line is pasted code too: ``flow``
    reads it once)."""
    graph, out, seen = flow.graph, [], set()
    for frame, uses in frame_uses(query, flow.gaps):
        for node in resolve_frame(graph, frame):
            path, owner = graph.symbols[node].path, flow._owner(node)
            for use in uses:
                nodes = frame_definitions(flow, use, path, owner) if use not in flow.read.uses else []
                if nodes and (use, tuple(nodes)) not in seen:
                    seen.add((use, tuple(nodes)))
                    out.append((use, nodes))
    return out
