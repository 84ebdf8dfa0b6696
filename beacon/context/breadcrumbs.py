"""``breadcrumbs``: a whole-context renderer that groups snippets by file under their enclosing definitions.

Per file, in order of first appearance::

    ### pkg/shapes.py
    class Circle:
        ...
        def area(self):
            return pi * self.r ** 2

    def helper():
        ...

A method appears under a line for its class, followed by an elided-members
marker (``...`` at member indentation), and its own lines keep their
indentation. Siblings under the same class share one class line; a ``...``
separates them when source lines lie between them. Snippets covered by another
selected snippet (a method inside a selected class) are shown once.

A ``Snippet`` carries no outline of its file, so enclosing lines are
breadcrumbs derived from the qualified name: the parent of a ``method`` is a
class, the parent of a nested ``function`` a ``def``; deeper or ambiguous
ancestors are ``class`` when capitalised and ``def`` otherwise. Their
indentation divides the snippet's own evenly across its ancestors.

Token accounting: each file section starts with ``#`` and ends with a newline,
so under cl100k_base's pre-tokenisation no token spans two sections and the
context's count is the sum of its sections' counts. Inside a section, the
header, each breadcrumb line, marker and snippet body is a chunk ending with a
newline; when no chunk's first line is blank (always, except for a module
snippet whose file begins with a blank line) the section's count is the sum of
its chunks' counts (``is_aligned``). ``section_chunks`` is public so packers
can count marginal costs exactly and cheaply. Headers, breadcrumb lines and markers are part of the rendered text,
so their cost is always counted.
"""
from __future__ import annotations

from typing import Sequence

from .render import register_context_renderer
from .snippet import Snippet

MARKER = "..."


def _lead(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _ancestors(s: Snippet) -> list[tuple[str, str]]:
    """(keyword, name) of the enclosing definitions, outermost first."""
    if s.kind == "module":
        return []
    names = [part.split("#", 1)[0] for part in s.qualname.split(".")][:-1]
    found = []
    for depth, name in enumerate(names):
        if depth == len(names) - 1 and s.kind == "method":
            keyword = "class"
        elif depth == len(names) - 1 and s.kind == "function":
            keyword = "def"
        else:
            keyword = "class" if name[:1].isupper() else "def"
        found.append((keyword, name))
    return found


def _unit(s: Snippet, depth: int) -> str:
    lead = _lead(s.text.split("\n", 1)[0])
    if depth and lead and len(lead) % depth == 0:
        return lead[: len(lead) // depth]
    return "    "


def _body(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def visible(snippets: Sequence[Snippet]) -> list[Snippet]:
    """Snippets of one file in source order, without duplicates and without covered ones."""
    ordered = sorted({s.symbol_id: s for s in snippets}.values(), key=lambda s: (s.start_line, -s.end_line, s.symbol_id))
    kept: list[Snippet] = []
    for s in ordered:
        if not any(k.covers(s) for k in kept):
            kept.append(s)
    return kept


def section_chunks(path: str, snippets: Sequence[Snippet]) -> list[str]:
    """One file's section as chunks: the header, breadcrumb lines, markers and snippet bodies.

    The blank line closing a top-level group ends that group's last chunk, so
    every chunk ends with a newline; see ``is_aligned`` for when a chunk can
    be counted on its own.
    """
    chunks = [f"### {path}\n"]
    open_chain: list[tuple[str, str]] = []
    previous: Snippet | None = None
    for s in visible(snippets):
        chain = _ancestors(s)
        unit = _unit(s, len(chain))
        shared = 0
        while shared < min(len(chain), len(open_chain)) and chain[shared] == open_chain[shared]:
            shared += 1
        if previous is not None and shared == 0:
            chunks[-1] += "\n"  # a blank line before each new top-level group
        for depth in range(shared, len(chain)):
            keyword, name = chain[depth]
            signature = f"class {name}:" if keyword == "class" else f"def {name}(...):"
            chunks.append(f"{unit * depth}{signature}\n{unit * (depth + 1)}{MARKER}\n")
        if previous is not None and shared == len(chain) and chain and s.start_line > previous.end_line + 2:
            chunks.append(f"{unit * len(chain)}{MARKER}\n")  # siblings with source between them
        chunks.append(_body(s.text))
        open_chain, previous = chain, s
    chunks[-1] += "\n"
    return chunks


def is_aligned(chunk: str) -> bool:
    """May ``chunk`` be counted on its own when it follows a chunk that ends with a newline?

    Under cl100k_base's pre-tokenisation, a piece of text that ends with a
    newline ends a pre-token unless the text after it continues the
    whitespace run with another newline (a blank first line). So a chunk
    whose first line holds a non-space character and which ends with a
    newline shares no token with its neighbours (indentation included).
    """
    return chunk.endswith("\n") and bool(chunk.split("\n", 1)[0].strip())


def section_for(path: str, snippets: Sequence[Snippet]) -> str:
    """The rendered section of one file (all ``snippets`` must be from ``path``)."""
    return "".join(section_chunks(path, snippets))


@register_context_renderer("breadcrumbs")
def render_breadcrumbs(snippets: Sequence[Snippet]) -> str:
    by_path: dict[str, list[Snippet]] = {}
    for s in snippets:
        by_path.setdefault(s.path, []).append(s)
    return "".join(section_for(path, group) for path, group in by_path.items())
