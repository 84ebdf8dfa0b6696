"""Each file's words, computed with its parse (and cached with it): the per-file half of the term index.

A symbol's document (``beacon.retrieval.text``) is a header (its path and qualified name) and its own lines: the
lines of its span not inside a nested definition, without import statements. Everything but the header depends
only on the file's text and its definitions' spans, so ``file_words`` computes it once per file content, when
the file is parsed: the runs of identifier bytes on each definition's own lines, in document order, numbered by
first occurrence in the file, and the file's distinct words. ``beacon.retrieval.doc_tokens`` assembles the whole
graph's documents from these arrays; the helpers here (one scan of a byte string, exact ``uint64`` word keys,
the import-line rule) serve both that assembly and the per-file step.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..factorize import factorize
from .word_terms import code_dtype, file_terms

# Bytes that can be part of an identifier keep their value, every other byte becomes a space: the identifiers
# ``beacon.retrieval.text._IDENT`` finds are these runs (UTF-8, so no non-ASCII character joins a run) with
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


def scan_runs(encoded: bytes, block: int = 1 << 21) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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


def word_keys(text: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
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
        code = factorize(keys[group])[0].astype(np.int64)
        for c in range(1, chunks):
            left = np.minimum(lens[group] - 8 * c, 8)
            chunk = factorize(window[starts[group] + 8 * c] & _LOW_BYTES[left])[0].astype(np.int64)
            code = factorize(code * (int(chunk.max()) + 1) + chunk)[0].astype(np.int64)
        keys[group] = np.uint64((0xF8 + chunks) << 56) | code.astype(np.uint64)
    long = longer[size > 4]
    if len(long):
        ids: dict[bytes, int] = {}
        found = [ids.setdefault(text[a:b], len(ids)) for a, b in zip(starts[long].tolist(), ends[long].tolist())]
        keys[long] = _TAG_LONG | np.asarray(found, dtype=np.uint64)
    return keys


def import_lines(encoded: bytes, line_start: np.ndarray, owner: np.ndarray, span_end: np.ndarray,
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


@dataclass(slots=True, eq=False)
class FileWords:
    """One file's document words: ``codes[def_ptr[k]:def_ptr[k + 1]]`` are the words of definition ``k``'s own
    lines (imports removed) in file order, numbered by first occurrence in that order (definition by definition);
    word ``c`` is the ``c``-th of the space-separated runs of ``vocab`` (runs of two or more identifier bytes,
    leading digits included). Word ``c``'s terms are ``term_codes[term_ptr[c]:term_ptr[c + 1]]``, numbers of the
    space-separated ``terms`` (``word_terms.file_terms``)."""
    vocab: bytes
    codes: np.ndarray  # ``word_terms.code_dtype``
    def_ptr: np.ndarray  # int32, one more than the definitions
    terms: bytes
    term_codes: np.ndarray  # ``word_terms.code_dtype``
    term_ptr: np.ndarray  # int32, one more than the words

    # how ``CodebaseGraph.save`` stores the fields: byte strings (never holding a newline), and arrays (as int32)
    TEXTS = ("vocab", "terms")
    ARRAYS = ("codes", "def_ptr", "term_codes", "term_ptr")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, FileWords) and all(getattr(self, f) == getattr(other, f) for f in self.TEXTS)
                and all(np.array_equal(getattr(self, f), getattr(other, f)) for f in self.ARRAYS))


def line_count(text: str) -> int:
    """The number of lines ``CodebaseGraph.file_lines`` gives (no empty line after a final newline)."""
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def file_words(text: str, spans: list[tuple[int, int]]) -> FileWords:
    """The words of each definition's own lines; ``spans`` are the definitions' (first, last) lines, 1-based, in
    pre-order (a nested definition after its parent, so its lines overwrite the parent's)."""
    # the text, a separator newline (the last line's end when the text lacks one), and the 16 bytes of padding
    # ``word_keys`` reads past a run's start
    encoded = text.encode("utf-8", "surrogatepass") + b"\n" + b" " * 16
    newlines, starts, ends = scan_runs(encoded)
    line_start = np.concatenate([[0], newlines + 1, [len(encoded) + 1]])
    n_lines = line_count(text)
    owner = np.full(len(line_start) - 1, -1, dtype=np.int64)
    span_end = np.zeros(len(spans), dtype=np.int64)
    for k, (first, last) in enumerate(spans):
        end = span_end[k] = min(last, n_lines)
        owner[first - 1:end] = k
    last_lines = {n_lines - 1} if text and not text.endswith("\n") else set()
    owner[import_lines(encoded, line_start, owner, span_end, last_lines)] = -1
    run_owner = owner[np.searchsorted(line_start, starts, side="right") - 1]
    kept = np.flatnonzero(run_owner >= 0)
    order = kept[np.argsort(run_owner[kept], kind="stable")]  # definition by definition, each in file order
    def_ptr = np.zeros(len(spans) + 1, dtype=np.int32)
    np.cumsum(np.bincount(run_owner[kept], minlength=len(spans)), out=def_ptr[1:])
    codes, _ = factorize(word_keys(encoded, starts, ends)[order])
    seen = order[first_occurrences(codes)]
    vocab = joined_runs(encoded, starts[seen], ends[seen])
    return FileWords(vocab, codes.astype(code_dtype(len(seen))), def_ptr, *file_terms(vocab))


def joined_runs(text: bytes, starts: np.ndarray, ends: np.ndarray) -> bytes:
    """The runs ``text[starts[k]:ends[k]]``, space-separated, by one gather (a byte follows every run in ``text``)."""
    if not len(starts):
        return b""
    lens = ends - starts + 1  # each run and the byte after it, which becomes the separator
    cut = np.cumsum(lens)
    gathered = np.frombuffer(text, dtype=np.uint8)[np.arange(int(cut[-1])) + np.repeat(starts - (cut - lens), lens)]
    gathered[cut - 1] = ord(" ")
    return gathered[:-1].tobytes()


def first_occurrences(codes: np.ndarray) -> np.ndarray:
    """Positions of each code's first occurrence, for codes numbered by first occurrence (0, 1, 2, ... in order)."""
    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    grown = np.maximum.accumulate(codes)
    return np.flatnonzero(np.concatenate([[True], grown[1:] > grown[:-1]]))
