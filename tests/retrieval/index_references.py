"""Plain references for the per-graph index builders: the per-symbol code they replaced (main 6285162;
``log_votes``, ``FileIndex.by_name`` and the literal index: main d193831).

The fast builders compute per distinct string (path, qualname part, name)
and gather, or per file; these walk every symbol. The ``previous_*`` functions
are the per-distinct-string builders of main d193831 that the shared name
codes (``term_rows.symbol_names``) replaced, kept so that the benchmark
times the step against the code it replaced. Tests compare the two on small
random graphs, and ``experiments/benchmarks/index_builders.py`` times them in
one process.
"""
from __future__ import annotations

import re
from collections import defaultdict
from functools import lru_cache
from pathlib import PurePosixPath

import numpy as np
import scipy.sparse as sp

from beacon.graph.codebase import CodebaseGraph
from beacon.repo.history import ChangeLog
from beacon.retrieval.commit_log import similar_commits, votes
from beacon.retrieval.file_index import file_index
from beacon.retrieval.hashed import DIMENSIONS, _normalise, _slot
from beacon.retrieval.masks import PERIPHERAL_DIRS, VENDOR_DIRS
from beacon.retrieval.neighbors import call_neighbors
from beacon.retrieval.signals_real.index import graph_index
from beacon.retrieval.signals_real.literals import (_OPTION, _PLACEHOLDER, _WORD, MIN_CHARS, MIN_TOKEN_CHARS,
                                                    MIN_WORDS, LiteralIndex, _owners_by_line)
from beacon.retrieval.stemmed import _SUFFIXES, MIN_STEM, _stem_map, bm25_weights, stem as fast_stem
from beacon.retrieval.term_rows import Table, count_rows, distinct, keys_after, known, qualname_parts
from beacon.retrieval.text import term_index, terms


@lru_cache(maxsize=1 << 18)  # as the replaced code, so that timings compare like with like
def stem(term: str) -> str:
    if "_" in term or not term.isalpha():
        return term
    word = term
    changed = True
    while changed:
        changed = False
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM:
                if suffix == "s" and word.endswith(("ss", "us", "is")):
                    continue
                word = word[: -len(suffix)] + ("i" if suffix == "ies" else "")
                changed = True
                break
    if word.endswith("y") and len(word) > MIN_STEM:
        word = word[:-1] + "i"
    return word


def name_field(graph: CodebaseGraph) -> sp.csr_matrix:
    stems, _ = _stem_map(graph)
    rows, cols = [], []
    for i, s in enumerate(graph.symbols):
        for t in terms(f"{s.path.replace('/', ' ').replace('.py', '')} {s.qualname.replace('.', ' ')}"):
            j = stems.get(stem(t))
            if j is not None:
                rows.append(i)
                cols.append(j)
    found = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(graph.symbols), len(stems)))
    found.sum_duplicates()
    return found


def module_docstring(graph: CodebaseGraph, path: str) -> str:
    text = "".join(graph.file_lines(path)[:60]).lstrip()
    for q in ('"""', "'''"):
        for prefix in ("", "r", "u"):
            if text.startswith(prefix + q):
                end = text.find(q, len(prefix) + 3)
                return text[len(prefix) + 3:end] if end > 0 else ""
    return ""


def context_matrix(graph: CodebaseGraph, ctx_weight: float) -> sp.csc_matrix:
    index = term_index(graph)
    n, m = len(graph.symbols), len(index.vocab)
    rows, cols = [], []
    for i, s in enumerate(graph.symbols):
        for t in terms(s.name):
            j = index.vocab.get(t)
            if j is not None:
                rows.append(i)
                cols.append(j)
    names = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, m))
    fidx = file_index(graph)
    mod_rows, mod_cols = [], []
    for f, path in enumerate(fidx.paths):
        for t in terms(module_docstring(graph, path)):
            j = index.vocab.get(t)
            if j is not None:
                mod_rows.append(f)
                mod_cols.append(j)
    moddoc = sp.csr_matrix((np.ones(len(mod_rows)), (mod_rows, mod_cols)), shape=(len(fidx.paths), m))
    member = sp.csr_matrix((np.ones(n), (np.arange(n), fidx.file_of)), shape=(n, len(fidx.paths)))
    expanded = index.tf + ctx_weight * (call_neighbors(graph) @ names + member @ moddoc)
    return bm25_weights(sp.csr_matrix(expanded), 1.2, 0.4)


def build_file_index(graph: CodebaseGraph) -> tuple:
    """(paths, file_of, module_node, by_name, by_stem) as the replaced builder made them."""
    paths = tuple(sorted({s.path for s in graph.symbols}))
    pos = {p: i for i, p in enumerate(paths)}
    file_of = np.fromiter((pos[s.path] for s in graph.symbols), dtype=np.int64, count=len(graph.symbols))
    module_node = np.full(len(paths), -1, dtype=np.int64)
    names: dict[str, list[int]] = {}
    for i, s in enumerate(graph.symbols):
        if s.kind == "module":
            module_node[pos[s.path]] = i
        else:
            names.setdefault(s.name, []).append(i)
    by_stem: dict[str, list[int]] = {}
    for i, p in enumerate(paths):
        by_stem.setdefault(p.rsplit("/", 1)[-1].rsplit(".", 1)[0], []).append(i)
    return paths, file_of, module_node, {k: np.asarray(v, dtype=np.int64) for k, v in names.items()}, by_stem


def packable(graph: CodebaseGraph) -> np.ndarray:
    return np.fromiter((not s.is_test and s.kind != "module" for s in graph.symbols), dtype=bool,
                       count=len(graph.symbols))


def under(graph: CodebaseGraph, folders: frozenset[str]) -> np.ndarray:
    return np.fromiter((any(part in folders for part in s.path.split("/")[:-1]) for s in graph.symbols),
                       dtype=bool, count=len(graph.symbols))


def vendored_and_peripheral(graph: CodebaseGraph) -> tuple[np.ndarray, np.ndarray]:
    return under(graph, VENDOR_DIRS), under(graph, PERIPHERAL_DIRS)


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip()


def hashed_vectors(graph: CodebaseGraph) -> np.ndarray:
    index = term_index(graph)
    slots = [_slot(t) for t in sorted(index.vocab, key=index.vocab.get)]
    rows = np.arange(len(slots))
    cols = np.fromiter((s for s, _ in slots), dtype=np.int64, count=len(slots))
    signs = np.fromiter((g for _, g in slots), dtype=np.float64, count=len(slots))
    projection = sp.csr_matrix((signs, (rows, cols)), shape=(len(slots), DIMENSIONS))
    logtf = index.tf.copy()
    logtf.data = 1.0 + np.log(logtf.data)
    return _normalise(np.asarray((logtf @ projection).todense()))


def path_name_nodes(graph: CodebaseGraph) -> dict[tuple[str, str], list[int]]:
    """(path, ``Symbol.name``) -> its non-module nodes, as ``log_votes`` built it per graph."""
    found: dict[tuple[str, str], list[int]] = {}
    for i, s in enumerate(graph.symbols):
        if s.kind != "module":
            found.setdefault((s.path, s.name), []).append(i)
    return found


def log_votes(graph: CodebaseGraph, log: ChangeLog, query: str, k: int, max_files: int,
              ) -> tuple[np.ndarray, np.ndarray]:
    """``commit_log.log_votes`` with main d193831's lookup: the (path, name) table (the rest is unchanged)."""
    table = path_name_nodes(graph)
    pos = {p: i for i, p in enumerate(file_index(graph).paths)}
    return votes(graph, log, similar_commits(log, query, k, max_files=max_files), pos,
                 lambda path, name: np.asarray(table.get((path, name), []), dtype=np.int64))


def previous_name_field(graph: CodebaseGraph, stems: dict[str, int]) -> sp.csr_matrix:
    """``stemmed._name_field`` of main d193831."""
    files = file_index(graph)
    parts, n_parts = qualname_parts([s.qualname for s in graph.symbols])
    part_codes, distinct_parts = distinct(parts)
    table = Table(known(stems, [p.replace("/", " ").replace(".py", "") for p in files.paths], fast_stem)
                  + known(stems, distinct_parts, fast_stem))
    keys, rows = keys_after(files.file_of, len(files.paths) + part_codes, n_parts)
    found = count_rows(rows, keys, table, (len(graph.symbols), len(stems)))
    found.sum_duplicates()
    return found


def previous_name_rows(graph: CodebaseGraph, fidx, vocab: dict[str, int]) -> sp.csr_matrix:
    """``expansion._name_rows`` of main d193831."""
    n = len(graph.symbols)
    parts, n_parts = qualname_parts([s.qualname for s in graph.symbols])
    last, distinct_last = distinct(np.asarray(parts, dtype=object)[np.cumsum(n_parts) - 1])
    module = np.fromiter((s.kind == "module" for s in graph.symbols), dtype=bool, count=n)
    keys = np.where(module, len(distinct_last) + fidx.file_of, last)
    table = Table(known(vocab, [part.split("#", 1)[0] for part in distinct_last])
                  + known(vocab, [PurePosixPath(p).stem for p in fidx.paths]))
    return count_rows(np.arange(n, dtype=np.int64), keys, table, (n, len(vocab)))


def previous_by_name(graph: CodebaseGraph) -> dict[str, np.ndarray]:
    """``FileIndex.by_name`` of main d193831 (``_definitions_by_name``)."""
    names: dict[str, list[int]] = {}
    symbols = graph.symbols
    for i in np.flatnonzero(~file_index(graph).is_module).tolist():
        names.setdefault(symbols[i].qualname.rsplit(".", 1)[-1].split("#", 1)[0], []).append(i)
    return {k: np.asarray(v, dtype=np.int64) for k, v in names.items()}


def fragments(literal: str) -> list[str]:
    """``literals.fragments`` of main d193831 (every constant split and normalised)."""
    out = []
    for piece in _PLACEHOLDER.split(literal):
        piece = " ".join(piece.lower().split()).strip(" :,.;'\"()[]")
        if len(piece) >= MIN_CHARS and len(_WORD.findall(piece)) >= MIN_WORDS:
            out.append(piece)
        elif " " not in piece and len(piece) >= MIN_TOKEN_CHARS and _OPTION.fullmatch(piece):
            out.append(piece)
    return out


def literal_index(graph: CodebaseGraph) -> LiteralIndex:
    """``literals._build`` of main d193831: owners painted (``_owners_by_line``, unchanged) for every line up to
    the file's last constant."""
    index = graph_index(graph)
    holders: dict[str, set[int]] = defaultdict(set)
    pieces: dict[str, list[str]] = {}
    for path in index.paths:
        module = index.module_node.get(path)
        source = graph.files.get(path)
        if module is None or graph.symbols[module].is_test or source is None:
            continue
        owners = None
        for line, value in source.literals:
            if len(value) < MIN_TOKEN_CHARS:
                continue
            frags = pieces.get(value)
            if frags is None:
                frags = pieces[value] = fragments(value)
            if not frags:
                continue
            if owners is None:
                owners = _owners_by_line(index, path, max(line for line, _ in source.literals))
            owner = int(owners[line])
            if owner >= 0:
                for frag in frags:
                    holders[frag].add(owner)
    phrases: dict[str, dict[str, list[int]]] = defaultdict(dict)
    tokens: dict[str, list[int]] = {}
    files: dict[str, int] = {}
    for frag, nodes in holders.items():
        ordered = sorted(nodes)
        files[frag] = len({int(index.file_of[n]) for n in ordered})
        if " " in frag:
            phrases[_WORD.findall(frag)[0]][frag] = ordered
        else:
            tokens[frag] = ordered
    return LiteralIndex(dict(phrases), tokens, files)
