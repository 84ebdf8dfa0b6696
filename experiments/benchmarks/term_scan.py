"""The term index's documents as ``beacon.retrieval.doc_tokens`` built them before each file's words were computed
with its parse (commit d193831): every file's text and every header tokenised as one byte string at query time,
the owner of every line painted over the whole graph. Kept as the "before" of ``term_index_speed`` (timed in the
same process as the per-file assembly); equal to it byte for byte (checked there).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from beacon.graph.codebase import CodebaseGraph
from beacon.graph.words import import_lines, scan_runs, word_keys
from beacon.retrieval.doc_tokens import DocWords


def scanned_doc_words(graph: CodebaseGraph) -> DocWords:
    """``doc_tokens.doc_words`` from one tokenisation of the graph's text (no per-file words)."""
    symbols = graph.symbols
    paths = list(graph.files)
    texts = [graph.files[p].text for p in paths]
    where = {p: f"{p.replace('/', ' ').replace('.py', '')} " for p in paths}
    headers = "\n".join([where[s.path] + s.qualname.replace(".", " ") for s in symbols])
    # One text: the files, then the headers, separated by newlines (no run crosses a separator).
    parts = [t.encode("utf-8", "surrogatepass") for t in texts]
    # (the 16 spaces after the headers let ``_word_keys`` read 16 bytes from any run's start)
    encoded = b"\n".join([*parts, headers.encode("utf-8", "surrogatepass") + b" " * 16])
    newlines, starts, ends = scan_runs(encoded)
    line_start = np.concatenate([[0], newlines + 1, [len(encoded) + 1]])
    # Global line number of each file's first line (the newlines before it); a file's lines are those
    # ``file_lines`` gives (no empty line after a final newline).
    file_start = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, parts), dtype=np.int64, count=len(parts)) + 1, out=file_start[1:])
    first = np.searchsorted(newlines, file_start).tolist()
    first_line = dict(zip(paths, first))
    n_lines = {p: first[k + 1] - first[k] + 1 - (t.endswith("\n") or not t) for k, (p, t) in enumerate(zip(paths, texts))}
    last_lines = {first_line[p] + n_lines[p] - 1 for p, t in zip(paths, texts) if t and not t.endswith("\n")}
    header_line = first[-1]  # headers[i] is line header_line + i

    owner = np.full(len(line_start) - 1, -1, dtype=np.int64)
    span_end = np.zeros(len(symbols), dtype=np.int64)
    for i, s in enumerate(symbols):  # definitions come in pre-order: children overwrite parents
        base = first_line[s.path]
        end = base + min(s.end_line, n_lines[s.path])
        owner[base + s.start_line - 1:end] = i
        span_end[i] = end
    owner[header_line:] = -1
    owner[import_lines(encoded, line_start, owner, span_end, last_lines)] = -1  # in no document

    # Segments of consecutive runs in one document: each run of lines of one owner, and each header.
    cuts = np.flatnonzero(owner[1:] != owner[:-1]) + 1
    run_first = np.concatenate([[0], cuts])
    n = len(symbols)
    seg_doc = np.concatenate([np.arange(n), owner[run_first]])
    seg_line = np.concatenate([np.arange(n) + header_line, run_first])
    order = np.lexsort((seg_line, np.repeat([0, 1], [n, len(run_first)]), seg_doc))
    order = order[seg_doc[order] >= 0]
    # where each segment's runs start and end (searched in line order: sorted keys search faster)
    head = np.searchsorted(starts, line_start[header_line:header_line + n + 1])
    body = np.searchsorted(starts, line_start[np.concatenate([run_first, [len(owner)]])])
    seg_a = np.concatenate([head[:-1], body[:-1]])[order]
    seg_len = np.concatenate([np.diff(head), np.diff(body)])[order]
    total = int(seg_len.sum())
    gather = np.arange(total, dtype=np.int64) + np.repeat(seg_a - (np.cumsum(seg_len) - seg_len), seg_len)
    doc_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(seg_doc[order], weights=seg_len, minlength=n).astype(np.int64), out=doc_ptr[1:])
    # keys in file order (reading the text in order), numbered by first occurrence in document order
    codes, _ = pd.factorize(word_keys(encoded, starts, ends)[gather])
    grown = np.maximum.accumulate(codes) if total else codes
    seen = gather[np.flatnonzero(np.concatenate([[True], grown[1:] > grown[:-1]]))] if total else codes
    words = [encoded[a:b] for a, b in zip(starts[seen].tolist(), ends[seen].tolist())]
    return DocWords(codes.astype(np.int64, copy=False), doc_ptr, words)
