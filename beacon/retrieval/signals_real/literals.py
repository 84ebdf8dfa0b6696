"""String literals of the code that an issue quotes: error messages, warnings, option names.

A bug report often pastes the message the program printed (``ValueError:
Invalid value for 'x'``) or names an option (``--ignore-local-config``,
``max_line_length``). Both are string constants in the code, usually in the
very function that has to change. The index (once per graph) holds every
string constant of every non-test file cut into *fragments*: pieces between
format placeholders (``{name}``, ``%s``, ``%(x)r``), lower-cased, whitespace
collapsed. A fragment is matchable when it is a phrase (at least
``MIN_WORDS`` words and ``MIN_CHARS`` characters) or an option-like token
(``MIN_TOKEN_CHARS`` characters with ``-`` or ``_``, matched as a whole token).
Docstrings are left out: they paraphrase the code, and an issue that quotes
documentation points at the docs, not at the definition.

The fragments come from the graph (``SourceFile.fragments``: the rules live in
``beacon.graph.literal_fragments`` and are applied by the graph build's parse,
which is cached by file content), so building this index parses nothing and
cuts no constant; it finds each fragment's holders and counts their files.

A fragment found in the issue scores the innermost definition holding the
constant with ``words / files`` (longer phrases are more specific, an option
token counts as one word; a fragment in many files says little), once per
definition and fragment.
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from itertools import chain

import numpy as np

from ...factorize import factorize
from ...graph.codebase import CodebaseGraph
# The fragment rules, and their names as this module had them (tests and benchmarks import them from here).
from ...graph.literal_fragments import (MIN_CHARS, MIN_TOKEN_CHARS, MIN_WORDS, OPTION as _OPTION,  # noqa: F401
                                        OPTION_IN_TEXT,
                                        PLACEHOLDER as _PLACEHOLDER, WORD as _WORD, FileFragments, file_fragments,
                                        fragments, normalise)
from ..indexes import indexes_for
from .index import GraphIndex, SignalScores, graph_index, scores

_TOKEN = re.compile(r"[a-z0-9][a-z0-9_-]*[a-z0-9]")


def first_word(phrase: str) -> str:
    """The key a phrase is filed under in ``LiteralIndex.phrases`` (its first word)."""
    return _WORD.search(phrase).group()


@dataclass(frozen=True)
class LiteralIndex:
    phrases: dict[str, dict[str, list[int]]]  # first word -> phrase -> nodes holding it
    tokens: dict[str, list[int]]  # option-like token -> nodes
    files: dict[str, int]  # fragment -> number of files holding it


def _owners_by_line(index: GraphIndex, path: str, lines: int) -> np.ndarray:
    """Per line 1..``lines`` of ``path``: ``index.at_line(path, line)`` (-1 for None), for every line at once.

    Spans are painted widest first, so the narrowest span holding a line wins; of equal widths the first
    in ``index.spans`` order wins (painted last), as in ``at_line``.
    """
    owner = np.full(lines + 1, index.module_node.get(path, -1), dtype=np.int64)
    spans = index.spans.get(path, ())
    for i in sorted(range(len(spans)), key=lambda i: (spans[i][0] - spans[i][1], -i)):
        start, end, node = spans[i]
        owner[max(start, 0):end + 1] = node
    return owner


def _owners(graph: CodebaseGraph, index: GraphIndex, asked: list[tuple[str, list[int]]]) -> list[list[int]]:
    """``_owners_by_line`` at the ``asked`` lines of each path only, for every path at once.

    The lines asked for are numbered across paths in one sorted array (path ``k``'s line ``x`` is the key
    ``k * stride + x``), each span covers a run of it (two ``searchsorted``), and only the spans that
    cover some asked line are painted, over those runs, in ``_owners_by_line``'s order (widest first,
    of equal widths the later node first), so each asked line ends with the same owner.
    """
    spans = [index.spans.get(path, ()) for path, _ in asked]
    flat = np.fromiter(chain.from_iterable(chain.from_iterable(spans)), dtype=np.int64,
                       count=3 * sum(map(len, spans))).reshape(-1, 3)
    start, end, node = flat[:, 0], flat[:, 1], flat[:, 2]
    if len(flat) and end.min() < 0:  # a negative end paints from the far end of the file's array: the plain loop
        return [_owners_by_line(index, path, max(line for line, _ in graph.files[path].literals))[lines].tolist()
                for path, lines in asked]
    stride = max(max(lines) for _, lines in asked) + 2
    path_of = np.repeat(np.arange(len(asked), dtype=np.int64), [len(found) for found in spans])
    keys = [np.asarray(lines, dtype=np.int64) + k * stride for k, (_, lines) in enumerate(asked)]
    grid, where = np.unique(np.concatenate(keys), return_inverse=True)
    owner = np.repeat(np.array([index.module_node.get(path, -1) for path, _ in asked], dtype=np.int64),
                      np.bincount(grid // stride, minlength=len(asked)))
    base = path_of * stride
    lo = np.searchsorted(grid, base + np.maximum(start, 0), side="left")
    hi = np.searchsorted(grid, base + np.minimum(end, stride - 1), side="right")
    live = np.flatnonzero(lo < hi)
    for i in live[np.lexsort((-node[live], start[live] - end[live]))].tolist():  # widest first, later node first
        owner[lo[i]:hi[i]] = node[i]
    found = owner[where.ravel()].tolist()
    bounds = np.cumsum([0] + [len(lines) for _, lines in asked]).tolist()
    return [found[bounds[k]:bounds[k + 1]] for k in range(len(asked))]


def _file_fragments(graph: CodebaseGraph, index: GraphIndex) -> list[tuple[str, FileFragments]]:
    """The fragments of each non-test file that has some, in ``index.paths`` order (a graph not built by the
    parser, without ``SourceFile.fragments``, has its constants cut here)."""
    found = []
    for path in index.paths:
        module = index.module_node.get(path)
        source = graph.files.get(path)
        if module is None or graph.symbols[module].is_test or source is None:
            continue
        frags = source.fragments if source.fragments is not None else file_fragments(source.literals)
        if frags.lines:
            found.append((path, frags))
    return found


def _build(graph: CodebaseGraph) -> LiteralIndex:
    """Each fragment's holders (the innermost definitions of the lines holding it, ``_owners``) and their file
    count, over arrays of (fragment, holder) pairs; the dicts in order of each fragment's first occurrence
    (path by path, constants in order), as the index store saves them."""
    index = graph_index(graph)
    per_file = _file_fragments(graph, index)
    if not per_file:
        return LiteralIndex({}, {}, {})
    # Fragments numbered across files in order of first occurrence (each file's names are in that order), and
    # the number of each occurrence's fragment, path by path.
    number, names = factorize(np.fromiter(chain.from_iterable(f.names for _, f in per_file), dtype=object,
                                             count=sum(len(f.names) for _, f in per_file)))
    names = names.tolist()
    occurrences = [len(f.which) for _, f in per_file]
    first_name = np.cumsum([0] + [len(f.names) for _, f in per_file[:-1]])
    code = number[np.fromiter(chain.from_iterable(f.which for _, f in per_file), dtype=np.int64,
                              count=sum(occurrences)) + np.repeat(first_name, occurrences)].astype(np.int64)
    owners = _owners(graph, index, [(path, frags.lines) for path, frags in per_file])
    owner = np.fromiter(chain.from_iterable(owners), dtype=np.int64, count=len(code))
    held = owner >= 0  # a line without an owner (none in a file with a module node) holds nothing
    code, owner = code[held], owner[held]
    # Each fragment's distinct holders, ascending: one sort of (fragment, holder) keys.
    n_nodes = max(len(graph.symbols), 1)
    pairs = np.unique(code * n_nodes + owner)
    frag_of, node = np.divmod(pairs, n_nodes)
    bounds = np.searchsorted(frag_of, np.arange(len(names) + 1)).tolist()
    # and the number of distinct files holding it
    n_files = max(len(index.paths), 1)
    in_file = np.unique(frag_of * n_files + index.file_of[node])
    counts = np.bincount(in_file // n_files, minlength=len(names)).tolist()
    # fragments in order of their first occurrence with a holder (the order of the dicts built from them)
    present, first = np.unique(code, return_index=True)
    order = present[np.argsort(first, kind="stable")].tolist()
    nodes = node.tolist()
    phrases: dict[str, dict[str, list[int]]] = defaultdict(dict)
    tokens: dict[str, list[int]] = {}
    files: dict[str, int] = {}
    for k in order:
        frag = names[k]
        files[frag] = counts[k]
        if " " in frag:
            phrases[first_word(frag)][frag] = nodes[bounds[k]:bounds[k + 1]]
        else:
            tokens[frag] = nodes[bounds[k]:bounds[k + 1]]
    return LiteralIndex(dict(phrases), tokens, files)


def literal_index(graph: CodebaseGraph) -> LiteralIndex:
    """The graph's ``LiteralIndex`` (built once per graph, kept in ``GraphIndexes.issue_literals`` and saved
    in the graph's index store)."""
    ix = indexes_for(graph)
    if ix.issue_literals is None:
        ix.issue_literals = _build(graph)
    return ix.issue_literals


def matched_fragments(graph: CodebaseGraph, query: str) -> list[str]:
    """The code's fragments that ``query`` contains, sorted (phrases as substrings, tokens as whole tokens)."""
    lit = literal_index(graph)
    text = normalise(query)
    words = set(_WORD.findall(text))
    found = [p for w in sorted(words & lit.phrases.keys()) for p in lit.phrases[w] if p in text]
    found += [t for t in set(_TOKEN.findall(text)) | set(OPTION_IN_TEXT.findall(text)) if t in lit.tokens]
    return sorted(set(found))


def literal_scores(graph: CodebaseGraph, query: str) -> SignalScores:
    lit = literal_index(graph)
    symbol = np.zeros(len(graph.symbols))
    for frag in matched_fragments(graph, query):
        nodes = lit.tokens.get(frag) or lit.phrases[first_word(frag)][frag]
        words = 1 if frag in lit.tokens else len(_WORD.findall(frag))  # an option name is one word
        symbol[nodes] += words / lit.files[frag]
    return scores(graph, symbol)
