"""Snippets, contexts, renderers and exact-budget packing."""
from .pack import block_cost, pack, snippet_for
from .render import get_renderer, register_renderer, renderer_names
from .snippet import Context, Snippet

__all__ = ["Context", "Snippet", "block_cost", "get_renderer", "pack", "register_renderer", "renderer_names", "snippet_for"]
