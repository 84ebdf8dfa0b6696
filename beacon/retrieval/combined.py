"""``hybrid_all``: every signal that won on the mined tune split, in one fixed blend.

``hybrid`` (symbol/file/name BM25, mentions, call neighbours), ``hybrid_prf``'s
additions (caller-expanded documents, pseudo-relevance feedback, demoted
``examples/``/``docs/``), ``hybrid_history``'s priors (recently changed files and
functions, from commits reachable from the base only) and one more, the loose
path match (``mentions.loose_path_matches``: prose that says "the debugger" or
"completion" names ``debug/__init__.py`` or ``shell_completion.py``)::

    score(v) = hybrid_history-with-hybrid_prf(v) + w_loose_path · P̂(f(v))

(``P̂``: divided by its maximum over the candidates; tests get 0). The classes
compose by cooperative ``super()``: ``HybridHistory`` adds its priors to
``HybridPRF``'s scores, which extend ``Hybrid``'s; each part keeps its own
constants, so ``w_loose_path = 0`` with ``w_history = w_function = 0`` is
exactly ``hybrid_prf``. Constants: ``conf/method/hybrid_all.yaml``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..graph.codebase import CodebaseGraph
from ..repo.history import NO_INPUTS, RepoInputs
from .expansion import HybridPRF
from .history import HybridHistory
from .hybrid import HybridScores
from .file_index import file_index
from .mentions import loose_path_matches
from .masks import packable, test_files
from .normalise import unit_scale
from .registry import register_method


@register_method("hybrid_all")
@dataclass
class HybridAll(HybridHistory, HybridPRF):
    """``hybrid_history`` + ``hybrid_prf``'s additions + loose path-word matches."""

    w_loose_path: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if not np.isfinite(self.w_loose_path) or self.w_loose_path < 0:
            raise ValueError(f"{self.name}: w_loose_path must be finite and >= 0, got {self.w_loose_path!r}")

    def scores(self, graph: CodebaseGraph, query: str, inputs: RepoInputs = NO_INPUTS) -> HybridScores:
        base = super().scores(graph, query, inputs)
        if not self.w_loose_path:
            return base
        index = file_index(graph)
        cand = packable(graph)
        loose = loose_path_matches(graph, query)
        loose[test_files(graph)] = 0.0
        parts = dict(base.components, loose_path=loose[index.file_of])
        total = base.total + self.w_loose_path * unit_scale(parts["loose_path"], cand)
        total[~cand] = 0.0
        file_total = np.zeros(len(index.paths))
        np.maximum.at(file_total, index.file_of, total)
        return HybridScores(total, parts, file_total)
