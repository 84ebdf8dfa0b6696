"""Issue-structure signals for real bug reports (issue 14): pure functions ``(graph, query) -> SignalScores``.

* ``literals.literal_scores``: string constants of the code (error messages,
  option names) that the issue quotes verbatim;
* ``frames.frame_scores``: traceback frames (path + line number) resolved to
  the definitions that enclose them, the innermost frame weighted most;
* ``dotted.dotted_scores``: dotted API names and the issue's own import
  statements resolved through the module table, ``__init__`` re-exports and
  base classes to definitions.

Each signal scores definitions (a per-symbol array) and lets them vote for
their files (``SignalScores.file``). The per-graph indexes they need are
typed members of ``GraphIndexes`` (``issue_graph``, built in ``index.py``;
``issue_literals``, built in ``literals.py``). The composer weighs them in its
issue stage (``stages.issue``: ``w_literal``, ``w_frame``, ``w_dotted`` of a
recipe, e.g. ``conf/method/hybrid_real.yaml``).
"""
from __future__ import annotations

from .index import SignalScores

__all__ = ["SignalScores"]
