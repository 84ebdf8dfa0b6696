"""The literal index as main 2cafce8 built it, kept as the reference for the build from parse-time fragments.

Main 2cafce8's ``literals._build`` cut each distinct string constant of the graph (``SourceFile.literals``) with
``fragments`` while building the index; ``beacon.retrieval.signals_real.literals`` now reads each file's fragments
from its parse (``SourceFile.fragments``). ``tests/graph/test_literal_fragments.py`` checks on a real tree that both
give the same index (in the same dict order, the bytes the index store saves), and
``experiments.benchmarks.index_builders`` times the two in one process.
"""
from __future__ import annotations

from collections import defaultdict

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval.signals_real.index import graph_index
from beacon.retrieval.signals_real.literals import MIN_TOKEN_CHARS, LiteralIndex, _owners, first_word, fragments


def literal_index(graph: CodebaseGraph) -> LiteralIndex:
    """``literals._build`` of main 2cafce8 (constants cut at index build, once per distinct value)."""
    index = graph_index(graph)
    pieces: dict[str, list[str]] = {}  # a value's fragments: many constants repeat
    asked: list[tuple[str, list[int]]] = []  # per path with such constants: their lines
    fragments_at: list[list[list[str]]] = []  # and their fragments
    for path in index.paths:
        module = index.module_node.get(path)
        source = graph.files.get(path)
        if module is None or graph.symbols[module].is_test or source is None:
            continue
        lines, found = [], []
        for line, value in source.literals:
            if len(value) < MIN_TOKEN_CHARS:  # no fragment is longer than its constant
                continue
            frags = pieces.get(value)
            if frags is None:
                frags = pieces[value] = fragments(value)
            if frags:
                lines.append(line)
                found.append(frags)
        if found:
            asked.append((path, lines))
            fragments_at.append(found)
    holders: dict[str, set[int]] = defaultdict(set)
    for owners, found in zip(_owners(graph, index, asked) if asked else (), fragments_at):
        for owner, frags in zip(owners, found):
            if owner >= 0:
                for frag in frags:
                    holders[frag].add(owner)
    file_of = index.file_of.tolist()
    phrases: dict[str, dict[str, list[int]]] = defaultdict(dict)
    tokens: dict[str, list[int]] = {}
    files: dict[str, int] = {}
    for frag, nodes in holders.items():
        ordered = sorted(nodes)
        files[frag] = len({file_of[n] for n in ordered})
        if " " in frag:
            phrases[first_word(frag)][frag] = ordered
        else:
            tokens[frag] = ordered
    return LiteralIndex(dict(phrases), tokens, files)
