"""Issue-structure signals for real bug reports (issue 14): pure functions ``(graph, query) -> SignalScores``.

* ``literals.literal_scores``: string constants of the code (error messages,
  option names) that the issue quotes verbatim;
* ``frames.frame_scores``: traceback frames (path + line number) resolved to
  the definitions that enclose them, the innermost frame weighted most;
* ``dotted.dotted_scores``: dotted API names and the issue's own import
  statements resolved through the module table, ``__init__`` re-exports and
  base classes to definitions;
* ``errors.error_scores``: names that pasted error messages quote or call
  (``AttributeError: 'X' object has no attribute 'y'``);
* ``names.name_scores``: names the issue writes as code; both share a name's
  unit among the definitions bearing it (``names.shared_scores``: specificity);
* ``receivers.receiver_scores``: the pasted code read like a reader
  (``snippets``: variables bound to classes, the snippet's own classes) and
  resolved through imports, re-exports and base classes to the methods used;
* ``flow.flow_scores``: the same code followed further: functions it calls
  (through imports and ``from pkg import *``), and values through the return
  types of the functions and methods that produce them (``y = f(); y.m()``);
* ``usesites``: from the definitions those name one step to other files:
  their users, the users of named exception classes, their callees sharing
  the issue's terms, their overriders (``user_scores``, ``error_user_scores``,
  ``callee_scores``, ``overrider_scores``);
* ``qualified.qualified_scores``: ``Class.member`` names with no module in
  front, resolved through the class (and its bases) to the member.
* ``tests_bridge.tests_scores``: the project's own tests that best match the
  report, voting for the definitions they call, their imports and the source
  file their path mirrors (``GraphIndexes.test_bridge``).

Each signal scores definitions (a per-symbol array) and lets them vote for
their files (``SignalScores.file``). The per-graph indexes they need are
typed members of ``GraphIndexes`` (``issue_graph``, built in ``index.py``;
``issue_literals``, built in ``literals.py``). The composer weighs them in its
issue stage (``stages.issue``: ``w_literal``, ``w_frame``, ``w_dotted``,
``w_error``, ``w_names``, ``w_receiver``, ``w_flow``, ``w_users``, ``w_error_users``, ``w_callees``,
``w_overriders``, ``w_qualified``, ``w_tests`` of a recipe, e.g. ``conf/method/hybrid_issue.yaml``).
"""
from __future__ import annotations

from .index import SignalScores

__all__ = ["SignalScores"]
