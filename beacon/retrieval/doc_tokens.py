"""Every symbol document's words, assembled from the per-file words computed with each parse (``doc_tokens``).

A symbol's document (see ``text``) is a header (its path and qualified name) and its own lines (those of its
span not inside a nested definition), without import statements. The own lines' words depend only on a file's
text and definitions, so ``beacon.graph.words.file_words`` computes them when the file is parsed (cached with
the parse by content hash, saved with the graph): per definition, its words numbered within the file, and the
file's distinct words. Here the graph's documents are put together without a Python step per word: the files'
distinct words and the headers are tokenised as one byte string and numbered by one integer factorisation of
their exact ``uint64`` keys, each file's codes are mapped to those numbers, headers and bodies are interleaved
into document order by array arithmetic, and a last factorisation numbers the words by first occurrence in
document order.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import chain, repeat

import numpy as np

from ..factorize import factorize
from ..graph.codebase import CodebaseGraph
from ..graph.word_terms import file_terms
from ..graph.words import FileWords, file_words, first_occurrences, joined_runs, scan_runs, word_keys


@dataclass
class WordTerms:
    """The words' terms: ``ids[ptr[c]:ptr[c + 1]]`` are word ``c``'s terms in order, numbered by first occurrence
    walking the words in order (so by first occurrence in document order); ``vocab[t]`` is term ``t``."""
    ptr: np.ndarray
    ids: np.ndarray
    vocab: list[str]


@dataclass
class DocWords:
    """Document-order word occurrences: ``codes[doc_ptr[i]:doc_ptr[i + 1]]`` are symbol ``i``'s words,
    numbered by first occurrence; either ``words[c]`` is word ``c``'s run of identifier bytes (leading digits
    included, as ``text._IDENT`` matches them after the digits), or ``terms`` holds the words' terms."""
    codes: np.ndarray
    doc_ptr: np.ndarray
    words: list[bytes] | None
    terms: WordTerms | None = None


def _files_words(graph: CodebaseGraph) -> tuple[list[FileWords], np.ndarray]:
    """Each file's words (from its parse, or computed from its text and its symbols' spans when the graph does
    not carry them), and the symbols in the order the files' definitions list them."""
    files = list(graph.files.values())
    if all(f.words is not None for f in files):  # a built or loaded graph: its symbols are its files' definitions
        listed = chain.from_iterable(repeat(f.path, len(f.words.def_ptr) - 1) for f in files)
        if list(listed) == [s.path for s in graph.symbols]:
            return [f.words for f in files], np.arange(len(graph.symbols))
    by_path: dict[str, list[int]] = {}
    for i, s in enumerate(graph.symbols):
        by_path.setdefault(s.path, []).append(i)
    found, order = [], []
    for path, members in by_path.items():
        source = graph.files[path]
        words = source.words
        if words is None or len(words.def_ptr) != len(members) + 1:
            spans = [(graph.symbols[i].start_line, graph.symbols[i].end_line) for i in members]
            words = file_words(source.text, spans)
        found.append(words)
        order.extend(members)
    return found, np.asarray(order, dtype=np.int64)


def doc_words(graph: CodebaseGraph, *, with_terms: bool = True) -> DocWords:
    """Every symbol document's words in document order (the header's, then the own lines' in file order), and
    their terms from the files' parses (``with_terms=False``: the words' bytes instead, for ``text`` to split, as
    before the parse split them; kept for ``term_index_speed``'s before/after timing)."""
    symbols = graph.symbols
    n = len(symbols)
    found, order = _files_words(graph)
    where = {p: f"{p.replace('/', ' ').replace('.py', '')} " for p in graph.files}
    headers = "\n".join([where[s.path] + s.qualname for s in symbols])  # a dot separates runs as a space does
    # One text: the files' distinct words (each one run), then the headers one a line (header i on line i + 1);
    # the 16 spaces let ``word_keys`` read 16 bytes from any run's start.
    vocab = b" ".join([w.vocab for w in found])
    encoded = vocab + b"\n" + headers.encode("utf-8", "surrogatepass") + b" " * 16
    newlines, starts, ends = scan_runs(encoded)
    key_ids, _ = factorize(word_keys(encoded, starts, ends))  # one id per distinct word
    n_entries = int(np.searchsorted(starts, len(vocab)))
    sizes = np.fromiter((len(w.codes) for w in found), dtype=np.int64, count=len(found))
    n_words = np.fromiter((len(w.term_ptr) - 1 for w in found), dtype=np.int64, count=len(found))
    if int(n_words.sum()) != n_entries:
        raise ValueError(f"per-file words: {int(n_words.sum())} distinct words listed, {n_entries} found in them")
    # body words, definition by definition in ``order``: file-local codes -> the files' entries -> word ids
    entry = np.concatenate([w.codes for w in found] + [np.zeros(0, dtype=np.int32)], dtype=np.int64)
    entry += np.repeat(np.cumsum(n_words) - n_words, sizes)
    body = key_ids[entry]
    body_len = np.zeros(n, dtype=np.int64)
    body_len[order] = _lengths([w.def_ptr for w in found])
    # header words: header i's runs are those between newline i and newline i + 1
    head_doc = np.searchsorted(newlines, starts[n_entries:], side="right") - 1
    head_len = np.bincount(head_doc, minlength=n).astype(np.int64)
    doc_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(head_len + body_len, out=doc_ptr[1:])
    # document i: its header's words at doc_ptr[i], then its body's (stored in ``order``) after them
    head_at = np.arange(len(head_doc)) + np.repeat(doc_ptr[:-1] - (np.cumsum(head_len) - head_len), head_len)
    body_first = np.zeros(n, dtype=np.int64)
    body_first[order] = np.cumsum(body_len[order]) - body_len[order]  # where each body starts in ``body``
    body_at = np.arange(len(body)) + np.repeat((doc_ptr[:-1] + head_len - body_first)[order], body_len[order])
    ids = np.empty(int(doc_ptr[-1]), dtype=np.int64)
    ids[head_at] = key_ids[n_entries:]
    ids[body_at] = body
    # Numbered by first occurrence in document order. A word first occurs in a header or where its file's entry
    # first occurs (files number their words by first occurrence in the same order), so only those places are
    # factorised, and every occurrence takes its word's number by one gather.
    first = np.zeros(len(ids), dtype=bool)
    first[head_at] = True
    first[body_at[first_occurrences(entry)]] = True
    uniques = factorize(ids[first])[1]
    number = np.empty(len(key_ids) and int(key_ids.max()) + 1, dtype=np.int64)
    number[uniques] = np.arange(len(uniques))
    codes = number[ids]
    seen = first_occurrences(key_ids)[uniques]  # each word's first run in ``encoded``
    if not with_terms:
        return DocWords(codes, doc_ptr, [encoded[a:b] for a, b in zip(starts[seen].tolist(), ends[seen].tolist())])
    return DocWords(codes, doc_ptr, None, _word_terms(found, seen, n_entries, (encoded, starts, ends)))


def _word_terms(found: list[FileWords], seen: np.ndarray, n_entries: int,
                runs: tuple[bytes, np.ndarray, np.ndarray]) -> WordTerms:
    """Each word's terms, from its first entry in a file's distinct words (split with the parse): each word's
    terms are gathered (as runs of the files' term vocabularies, joined) and numbered by one factorisation of
    their exact keys, so by first occurrence walking the words in order (as splitting the words one by one
    would). ``seen[c]`` is word ``c``'s first run in ``runs`` (the files' distinct words, the first
    ``n_entries`` runs, then the headers): a word only in headers is split here."""
    encoded, starts, ends = runs
    empty = np.zeros(0, dtype=np.int32)
    entry_len = _lengths([w.term_ptr for w in found])
    header_only = np.flatnonzero(seen >= n_entries)
    extra_terms, extra_codes, extra_ptr = file_terms(joined_runs(encoded, starts[seen[header_only]],
                                                                 ends[seen[header_only]]))
    texts = [w.terms for w in found] + [extra_terms]
    blob = b" ".join(texts) + b" " * 16
    _, term_starts, term_ends = scan_runs(blob)
    text_end = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1)
    n_local = np.diff(np.searchsorted(term_starts, text_end), prepend=0)  # each text's terms
    # every file's (and the header-only words') term codes -> their runs in ``blob``
    local = np.concatenate([w.term_codes for w in found] + [extra_codes, empty], dtype=np.int64)
    local += np.repeat(np.cumsum(n_local) - n_local, [len(w.term_codes) for w in found] + [len(extra_codes)])
    # word c's terms: those of its first entry, or of its place among the header-only words
    in_file = seen < n_entries
    word_len = np.empty(len(seen), dtype=np.int64)
    word_start = np.empty(len(seen), dtype=np.int64)
    word_len[in_file] = entry_len[seen[in_file]]
    word_start[in_file] = (np.cumsum(entry_len) - entry_len)[seen[in_file]]
    word_len[header_only] = np.diff(extra_ptr)
    word_start[header_only] = len(local) - len(extra_codes) + extra_ptr[:-1]
    ptr = np.zeros(len(seen) + 1, dtype=np.int64)
    np.cumsum(word_len, out=ptr[1:])
    gather = np.arange(int(ptr[-1])) + np.repeat(word_start - ptr[:-1], word_len)
    refs = local[gather]  # the words' terms in order, as runs of ``blob``: only these are keyed
    ids, _ = factorize(word_keys(blob, term_starts[refs], term_ends[refs]))
    first = refs[first_occurrences(ids)]  # each term's first run in that order
    vocab = joined_runs(blob, term_starts[first], term_ends[first])
    return WordTerms(ptr, ids.astype(np.int64, copy=False), vocab.decode("ascii").split(" ") if vocab else [])


def _lengths(ptrs: list[np.ndarray]) -> np.ndarray:
    """The lengths of the ranges each offset array in ``ptrs`` delimits, concatenated (one ``np.diff``)."""
    steps = np.diff(np.concatenate(ptrs + [np.zeros(0, dtype=np.int32)], dtype=np.int64))
    kept = np.ones(len(steps), dtype=bool)
    kept[np.cumsum([len(p) for p in ptrs], dtype=np.int64)[:-1] - 1] = False  # the steps between two arrays
    return steps[kept]
