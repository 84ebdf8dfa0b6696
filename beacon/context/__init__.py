"""Snippets, contexts, renderers and exact-budget packing."""
from .pack import block_cost, pack, snippet_for
from .render import get_renderer, register_renderer, renderer_names
from .snippet import Context, Snippet
from . import breadcrumbs  # noqa: F401,E402  (registers the "breadcrumbs" renderer)

__all__ = ["Context", "Snippet", "block_cost", "get_renderer", "pack", "register_renderer", "renderer_names", "snippet_for"]
