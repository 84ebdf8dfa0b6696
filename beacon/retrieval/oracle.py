"""``target_file``: an ORACLE control that is told where the bug is.

It takes the location explicitly (``target="pkg/mod.py"`` or
``"pkg/mod.py:42"``) and never reads task data by itself. With a line, the
innermost symbol containing it comes first, then its enclosing symbols, then
the rest of the file in source order; without one, the file's symbols in
source order. Results from it are harness controls, not retrieval results,
and its contexts carry a note saying so.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..graph.codebase import CodebaseGraph
from ..repo.history import NO_INPUTS, RepoInputs
from .base import RankThenPack

ORACLE_NOTE = "oracle control: the target location was given to the method"


@dataclass
class TargetFile(RankThenPack):
    target: str | None = None
    notes: tuple[str, ...] = field(default=(ORACLE_NOTE,))

    def rank(self, graph: CodebaseGraph, query: str, inputs: RepoInputs = NO_INPUTS):
        if not self.target:
            raise ValueError("method 'target_file' is an oracle control and needs target='path.py[:line]'")
        path, _, line_text = self.target.partition(":")
        if path not in graph.files:
            raise ValueError(f"target_file: {path!r} is not an indexed file of the graph")
        nodes = [i for i, s in enumerate(graph.symbols) if s.path == path and self.eligible(graph, i)]
        if line_text:
            try:
                line = int(line_text)
            except ValueError:
                raise ValueError(f"target_file: line in {self.target!r} must be an integer") from None
            around = [i for i in nodes if graph.symbols[i].start_line <= line <= graph.symbols[i].end_line]
            around.sort(key=lambda i: graph.symbols[i].end_line - graph.symbols[i].start_line)
            nodes = around + [i for i in nodes if i not in around]
        return [(n, float(len(nodes) - k)) for k, n in enumerate(nodes)]
