"""Every symbol document's words, from one tokenisation of the whole graph's text (``doc_tokens``).

A symbol's document (see ``text``) is a header (its path and qualified name) and its own lines (those of its
span not inside a nested definition), without import statements. Building each document as a string and
tokenising it costs a Python step per symbol and line; here every file's text and every header go into one
byte string that is tokenised once (identifier runs found by a byte translate and numpy), the owner of every
line is painted once, and a document is a list of token ranges of that string, gathered into document order
by array slicing. Words are keyed exactly by their bytes packed into one ``uint64`` (runs of at most 8 bytes,
about 90% of them), or by a tagged id from an exact factorisation of the longer runs, so a single integer
factorisation numbers the distinct words by their first occurrence in document order.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..graph.codebase import CodebaseGraph

# Bytes that can be part of an identifier keep their value, every other byte becomes a space: the
# identifiers ``text._IDENT`` finds are these runs (UTF-8, so no non-ASCII character joins a run) with
# leading digits removed.
WORD_BYTES = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == ord("_")) else ord(" ") for c in range(256))
IMPORT_LINE = re.compile(r"\s*(?:from\s+[\w.]+\s+)?import\s")
_IMPORT = re.compile(rb"import")
_SPACES = b" \t\r\x0b\x0c\x1c\x1d\x1e\x1f"  # the ASCII bytes ``\s`` matches (no newline inside a line)
_SPACE_BYTE = np.zeros(256, dtype=bool)  # ``\s`` bytes, the newline, and every non-ASCII byte
_SPACE_BYTE[list(_SPACES + b"\n")] = True
_SPACE_BYTE[0x80:] = True
# Masks keeping the first ``k`` bytes of a little-endian ``uint64`` (k = 0..8).
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
# Keys of runs longer than 8 bytes carry a top byte that no packed run has (runs hold ASCII bytes only).
_TAG_LONG = np.uint64(0xFF << 56)  # runs of over 32 bytes; 0xF8 + chunks tags the runs of 2-4 chunks


@dataclass
class DocWords:
    """Document-order word occurrences: ``codes[doc_ptr[i]:doc_ptr[i + 1]]`` are symbol ``i``'s words,
    numbered by first occurrence; ``words[c]`` is word ``c``'s run of identifier bytes (leading digits
    included, as ``text._IDENT`` matches them after the digits)."""
    codes: np.ndarray
    doc_ptr: np.ndarray
    words: list[bytes]


def _scan(encoded: bytes, block: int = 1 << 21) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions of the newlines, and start and end offsets of the runs of two or more identifier bytes (a
    one-byte run, ``x`` or ``1`` or ``_``, has no term: ``split_identifier`` keeps parts of two or more characters).

    Blocks of about ``block`` bytes, cut after a newline (no run crosses one), keep the byte-sized temporaries
    small: first-touching fresh memory for text-sized arrays costs more than the scan itself.
    """
    newlines, starts, ends = [], [], []
    pos = 0
    while pos < len(encoded):
        cut = encoded.find(b"\n", pos + block)
        cut = len(encoded) if cut < 0 else cut + 1
        chunk = encoded[pos:cut]
        newlines.append(np.flatnonzero(np.frombuffer(chunk, dtype=np.uint8) == ord("\n")) + pos)
        word = np.frombuffer(chunk.translate(WORD_BYTES), dtype=np.uint8) != ord(" ")
        edges = np.flatnonzero(word[1:] != word[:-1]) + 1  # alternating starts and ends
        if word[0]:
            edges = np.concatenate([[0], edges])
        if len(edges) % 2:
            edges = np.append(edges, len(word))
        longer = edges[1::2] - edges[0::2] > 1
        starts.append(edges[0::2][longer] + pos)
        ends.append(edges[1::2][longer] + pos)
        pos = cut
    empty = [np.zeros(0, dtype=np.int64)]
    return tuple(np.concatenate(part or empty) for part in (newlines, starts, ends))


def _word_keys(text: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """One ``uint64`` per run, equal for two runs exactly when their bytes are equal (``text`` ends in 16 spaces;
    the bytes after a run are masked off, so the text need not be translated)."""
    # every (unaligned) 8-byte window of the text: a gather reads a run's first 8 bytes
    window = np.ndarray(shape=(len(text) - 7,), dtype="<u8", buffer=text, offset=0, strides=(1,))
    lens = ends - starts
    keys = window[starts] & _LOW_BYTES[np.minimum(lens, 8)]
    # Longer runs by length class (9-16, 17-24, 25-32 bytes): their 8-byte chunks numbered exactly by chained
    # integer factorisations, under a tag byte per class; the few longer ones through a dict.
    longer = np.flatnonzero(lens > 8)
    size = (lens[longer] + 7) // 8  # chunks
    for chunks in (2, 3, 4):
        group = longer[size == chunks]
        if not len(group):
            continue
        code = pd.factorize(keys[group])[0].astype(np.int64)
        for c in range(1, chunks):
            left = np.minimum(lens[group] - 8 * c, 8)
            chunk = pd.factorize(window[starts[group] + 8 * c] & _LOW_BYTES[left])[0].astype(np.int64)
            code = pd.factorize(code * (int(chunk.max()) + 1) + chunk)[0].astype(np.int64)
        keys[group] = np.uint64((0xF8 + chunks) << 56) | code.astype(np.uint64)
    long = longer[size > 4]
    if len(long):
        ids: dict[bytes, int] = {}
        found = [ids.setdefault(text[a:b], len(ids)) for a, b in zip(starts[long].tolist(), ends[long].tolist())]
        keys[long] = _TAG_LONG | np.asarray(found, dtype=np.uint64)
    return keys


def _import_lines(encoded: bytes, line_start: np.ndarray, owner: np.ndarray, span_end: np.ndarray,
                  last_lines: set[int]) -> np.ndarray:
    """Global numbers of the lines dropped from their owner's document as imports: a line matching
    ``IMPORT_LINE`` and, after one that opens a parenthesis it does not close, the owner's following
    lines up to one holding ``)`` (``text``'s line-by-line rule, replayed over each owner's own lines;
    ``span_end[i]`` is the line after symbol ``i``'s span)."""
    def line(k: int) -> str:
        chunk = encoded[line_start[k]:line_start[k + 1]]  # ends in the newline (the corpus separator too)
        if k in last_lines:  # a file's last line without a newline of its own
            chunk = chunk[:-1]
        return chunk.decode("utf-8", "surrogatepass")

    at = np.fromiter((m.start() for m in _IMPORT.finditer(encoded)), dtype=np.int64)
    # ``\s`` (or the line start) must come before the word and ``\s`` after it; a non-ASCII byte may be part of one
    data = np.frombuffer(encoded, dtype=np.uint8)
    before = (at == 0) | _SPACE_BYTE[data[np.maximum(at - 1, 0)]]
    at = at[before & _SPACE_BYTE[data[np.minimum(at + 6, len(data) - 1)]]]
    hits = (np.searchsorted(line_start, at, side="right") - 1).tolist()
    at = at.tolist()
    dropped: list[int] = []
    consumed: dict[int, int] = {}  # owner -> the last of its lines an open import consumed
    for k, a in zip(hits, at):
        mine = int(owner[k])
        if mine < 0 or k <= consumed.get(mine, -1) or (dropped and dropped[-1] == k):
            continue
        # Cheap necessary condition first: only spaces (any non-ASCII byte may be one) or ``from`` before it.
        before = encoded[line_start[k]:a].lstrip(_SPACES)
        if before and not before.startswith(b"from") and before[0] < 0x80:
            continue
        if not IMPORT_LINE.match(text := line(k)):
            continue
        dropped.append(k)
        if "(" in text and ")" not in text:
            j, end = k + 1, int(span_end[mine])
            while j < end:
                if owner[j] == mine:
                    dropped.append(j)
                    if ")" in line(j):
                        break
                j += 1
            consumed[mine] = j
    return np.asarray(sorted(set(dropped)), dtype=np.int64)


def doc_words(graph: CodebaseGraph) -> DocWords:
    """Every symbol document's words in document order (the header's, then the own lines' in file order)."""
    symbols = graph.symbols
    paths = list(graph.files)
    texts = [graph.files[p].text for p in paths]
    where = {p: f"{p.replace('/', ' ').replace('.py', '')} " for p in paths}
    headers = "\n".join([where[s.path] + s.qualname.replace(".", " ") for s in symbols])
    # One text: the files, then the headers, separated by newlines (no run crosses a separator).
    parts = [t.encode("utf-8", "surrogatepass") for t in texts]
    # (the 16 spaces after the headers let ``_word_keys`` read 16 bytes from any run's start)
    encoded = b"\n".join([*parts, headers.encode("utf-8", "surrogatepass") + b" " * 16])
    newlines, starts, ends = _scan(encoded)
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
    owner[_import_lines(encoded, line_start, owner, span_end, last_lines)] = -1  # in no document

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
    codes, _ = pd.factorize(_word_keys(encoded, starts, ends)[gather])
    grown = np.maximum.accumulate(codes) if total else codes
    seen = gather[np.flatnonzero(np.concatenate([[True], grown[1:] > grown[:-1]]))] if total else codes
    words = [encoded[a:b] for a, b in zip(starts[seen].tolist(), ends[seen].tolist())]
    return DocWords(codes.astype(np.int64, copy=False), doc_ptr, words)
