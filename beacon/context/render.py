"""Renderers: how a selected snippet is shown to a model.

Every rendered block starts with a non-whitespace character and ends with a
newline. Under cl100k_base's pre-tokenisation pattern no token can then span
two blocks, so the token count of a rendered context is exactly the sum of its
blocks' counts; packers rely on this, and ``Context.total_tokens`` still
counts the whole rendered string (tests check the two agree).

* ``default`` — ``### path:start-end qualname`` header, then the source lines;
* ``compact`` — ``# path:start`` (enough to find the span again in the
  index: path and first line identify the node), then the source lines;
* ``line_span_contract`` — header with the line range and the SHA-256 of the
  file's indexed text, then every source line numbered, so a model can answer
  with a line-span edit that the harness can check against the same text.
"""
from __future__ import annotations

from typing import Callable, Sequence

from .snippet import Snippet

Renderer = Callable[[Snippet], str]
ContextRenderer = Callable[[Sequence[Snippet]], str]
_RENDERERS: dict[str, Renderer] = {}
# Renderers that lay out a whole context (e.g. grouping by file); their blocks
# are not independent, so packers must count the whole rendered text.
_CONTEXT_RENDERERS: dict[str, ContextRenderer] = {}


def register_renderer(name: str) -> Callable[[Renderer], Renderer]:
    def deco(fn: Renderer) -> Renderer:
        if name in _RENDERERS:
            raise ValueError(f"renderer {name!r} is already registered")
        _RENDERERS[name] = fn
        return fn

    return deco


def register_context_renderer(name: str) -> Callable[[ContextRenderer], ContextRenderer]:
    def deco(fn: ContextRenderer) -> ContextRenderer:
        if name in _RENDERERS or name in _CONTEXT_RENDERERS:
            raise ValueError(f"renderer {name!r} is already registered")
        _CONTEXT_RENDERERS[name] = fn
        return fn

    return deco


def is_context_renderer(name: str) -> bool:
    return name in _CONTEXT_RENDERERS


def get_renderer(name: str) -> Renderer:
    """The per-snippet renderer ``name`` (blocks are token-aligned and additive)."""
    try:
        return _RENDERERS[name]
    except KeyError:
        kind = "a whole-context renderer, not per-snippet" if name in _CONTEXT_RENDERERS else "unknown"
        raise KeyError(f"renderer {name!r} is {kind}; per-snippet renderers: {', '.join(sorted(_RENDERERS))}") from None


def render_snippets(name: str, snippets: Sequence[Snippet]) -> str:
    """Render a whole context with renderer ``name`` (either kind)."""
    whole = _CONTEXT_RENDERERS.get(name)
    if whole is not None:
        return whole(snippets)
    if name not in _RENDERERS:
        known = ", ".join(renderer_names())
        raise KeyError(f"unknown renderer {name!r}; known renderers: {known}")
    render_one = _RENDERERS[name]
    return "".join(render_one(s) for s in snippets)


def renderer_names() -> list[str]:
    return sorted(set(_RENDERERS) | set(_CONTEXT_RENDERERS))


def _body(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


@register_renderer("default")
def render_default(s: Snippet) -> str:
    return f"### {s.path}:{s.start_line}-{s.end_line} {s.qualname}\n{_body(s.text)}\n"


@register_renderer("compact")
def render_compact(s: Snippet) -> str:
    return f"# {s.path}:{s.start_line}\n{_body(s.text)}"


@register_renderer("line_span_contract")
def render_line_span_contract(s: Snippet) -> str:
    lines = s.text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    width = len(str(s.end_line))
    numbered = "".join(
        f"{s.start_line + i:>{width}}| {line}\n" for i, line in enumerate(lines)
    )
    return (
        f"### {s.path} lines {s.start_line}-{s.end_line} {s.qualname} "
        f"sha256={s.file_sha256}\n{numbered}\n"
    )
