"""Query understanding shared by the retrieval methods: what an issue text names explicitly.

``query_features(text)`` parses a problem statement (an issue, a commit
message) once and returns a frozen ``QueryFeatures`` (memoised per text):

* ``paths``: file paths as written (``src/click/core.py``, ``werkzeug\\routing.py``
  normalised to ``/``), from prose and from traceback frames;
* ``frames``: traceback frames ``File "x.py", line N, in f`` (innermost last,
  as Python prints them);
* ``dotted``: dotted names (``requests.sessions.Session.send``, ``Flask.add_url_rule``);
* ``code``: identifiers inside inline backticks or fenced/indented code blocks;
* ``calls``: identifiers written as a call, ``name(``;
* ``identifiers``: every identifier of the text, in first-occurrence order.

Every extracted item is a substring of the text (paths up to the
``\\`` -> ``/`` normalisation), so a method can trust that the query really
names it. Only the query is read; resolving the items against a graph is
``mentions.mention_weights``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A path: optional directories, a file name with a Python-ish extension; either separator.
_PATH = re.compile(r"(?<![\w./\\-])(?:[\w.-]+[/\\])*[\w-]+(?:\.[\w-]+)*\.pyi?(?![\w])")
_FRAME = re.compile(r'File "([^"\n]+)", line (\d+)(?:, in ([^\s\n]+))?')
_DOTTED = re.compile(r"(?<![\w.])[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
_INLINE = re.compile(r"`([^`\n]+)`")
_INDENTED = re.compile(r"(?m)^(?: {4}|\t)(.+)$")
# A name called: the identifier in front of ``(``. Anchored at the start of a run of identifier characters (a
# digit-led run skips its digits), so a long run with no ``(`` is scanned once, not once per character: the same
# matches as the unanchored ``([A-Za-z_][A-Za-z0-9_]*)\(`` (tests/retrieval/signals_real/test_long_text.py), in linear time.
_CALL = re.compile(r"(?<![A-Za-z0-9_])[0-9]*([A-Za-z_][A-Za-z0-9_]*)\(")
_EXTENSIONS = ("py", "pyi")
_MAX_FRAME_LINE = 10**9  # a line number beyond this is not a real frame


@dataclass(frozen=True)
class Frame:
    """One traceback frame: the file as printed, its line, and the function (``None`` if not printed)."""

    path: str
    line: int
    function: str | None


@dataclass(frozen=True)
class QueryFeatures:
    text: str
    paths: tuple[str, ...]
    frames: tuple[Frame, ...]
    dotted: tuple[str, ...]
    code: tuple[str, ...]
    calls: tuple[str, ...]
    identifiers: tuple[str, ...]

    @property
    def explicit_names(self) -> frozenset[str]:
        """Names the text marks as code: in backticks/code, called, dotted parts, frame functions."""
        names = set(self.code) | set(self.calls)
        for d in self.dotted:
            names.update(d.split("."))
        names.update(f.function for f in self.frames if f.function and _IDENT.fullmatch(f.function))
        return frozenset(names)

    @property
    def stems(self) -> frozenset[str]:
        """File stems of the mentioned paths (``core`` for ``src/click/core.py``)."""
        return frozenset(p.rsplit("/", 1)[-1].rsplit(".", 1)[0] for p in self.paths)


def _unique(items) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _normalise_path(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _code_regions(text: str) -> list[str]:
    regions = [m.group(1) for m in _FENCE.finditer(text)]
    prose = _FENCE.sub(" ", text)
    regions += [m.group(1) for m in _INLINE.finditer(prose)]
    regions += [m.group(1) for m in _INDENTED.finditer(prose)]
    return regions


@lru_cache(maxsize=4096)
def query_features(text: str) -> QueryFeatures:
    """Parse ``text`` (any string; never raises on content) into ``QueryFeatures``."""
    if not isinstance(text, str):
        raise TypeError(f"query must be a str, got {type(text).__name__}")
    frames = []
    for m in _FRAME.finditer(text):
        line = int(m.group(2)) if len(m.group(2)) < 10 else _MAX_FRAME_LINE
        func = m.group(3)
        frames.append(Frame(_normalise_path(m.group(1)), min(line, _MAX_FRAME_LINE),
                            func if func and _IDENT.fullmatch(func) else None))
    paths = [f.path for f in frames if f.path.rsplit(".", 1)[-1] in _EXTENSIONS]
    paths += [_normalise_path(m.group(0)) for m in _PATH.finditer(text)]
    dotted = [m.group(0) for m in _DOTTED.finditer(text)]
    # ``core.py`` or ``a/b.py`` are paths, not dotted names.
    dotted = [d for d in dotted if d.rsplit(".", 1)[-1] not in _EXTENSIONS]
    code: list[str] = []
    for region in _code_regions(text):
        code.extend(_IDENT.findall(region))
    calls = [m.group(1) for m in _CALL.finditer(text)]
    return QueryFeatures(
        text=text,
        paths=_unique(p for p in paths if p),
        frames=tuple(frames),
        dotted=_unique(dotted),
        code=_unique(code),
        calls=_unique(calls),
        identifiers=_unique(_IDENT.findall(text)),
    )
