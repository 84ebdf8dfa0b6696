"""Issue-structure signals for real bug reports (issue 14): pure functions ``(graph, query) -> SignalScores``.

* ``literals.literal_scores``: string constants of the code (error messages,
  option names) that the issue quotes verbatim;
* ``frames.frame_scores``: traceback frames (path + line number) resolved to
  the definitions that enclose them, the innermost frame weighted most;
* ``dotted.dotted_scores``: dotted API names and the issue's own import
  statements resolved through the module table, ``__init__`` re-exports and
  base classes to definitions.

Each signal scores definitions (a per-symbol array) and lets them vote for
their files (``SignalScores.file``). The small per-graph indexes they need
live in ``index.py``, memoised per graph object (never in ``graph.cache``).
The composer (``conf/method``) decides how they are weighted; nothing here is
a registered method.
"""
from __future__ import annotations

from .index import SignalScores

__all__ = ["SignalScores"]
