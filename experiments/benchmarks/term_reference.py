"""The term index as ``beacon.retrieval.text`` built it before ``doc_tokens`` (one string per symbol document,
tokenised and factorised as objects): the reference the fast path must equal byte for byte, kept for the
property tests and for ``term_index_speed``'s before/after timing in one process."""
from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from beacon.graph.codebase import CodebaseGraph
from beacon.graph.words import IMPORT_LINE, WORD_BYTES
from beacon.retrieval.text import TermIndex, split_identifier


def without_imports(lines: list[str]) -> str:
    kept: list[str] = []
    in_import = False
    for line in lines:
        if in_import:  # inside a parenthesised multi-line import
            in_import = ")" not in line
            continue
        if "import" in line and IMPORT_LINE.match(line):
            in_import = "(" in line and ")" not in line
            continue
        kept.append(line)
    return "".join(kept)


def own_documents(graph: CodebaseGraph) -> list[str]:
    """Per symbol: path + qualname + its own lines (not those of nested definitions), imports removed."""
    docs = [""] * len(graph.symbols)
    by_path: dict[str, list[int]] = {}
    for i, s in enumerate(graph.symbols):
        by_path.setdefault(s.path, []).append(i)
    for path, nodes in by_path.items():
        lines = graph.file_lines(path)
        owner = np.full(len(lines), -1, dtype=np.int64)
        for i in nodes:  # definitions come in pre-order: children overwrite parents
            s = graph.symbols[i]
            owner[s.start_line - 1:s.end_line] = i
        cuts = (np.flatnonzero(owner[1:] != owner[:-1]) + 1).tolist()
        runs: dict[int, list[tuple[int, int]]] = {}
        for a, b in zip([0, *cuts], [*cuts, len(lines)]) if lines else ():
            runs.setdefault(int(owner[a]), []).append((a, b))
        where = f"{path.replace('/', ' ').replace('.py', '')} "
        for i in nodes:
            spans = runs.get(i, ())
            body = "".join(["".join(lines[a:b]) for a, b in spans])
            if "import" in body:
                body = without_imports([line for a, b in spans for line in lines[a:b]])
            docs[i] = f"{where}{graph.symbols[i].qualname.replace('.', ' ')}\n{body}"
    return docs


def word_runs(docs: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Every document's runs of identifier bytes in one flat object array, and each document's offsets in it."""
    encoded = [doc.encode("utf-8", "surrogatepass") for doc in docs]
    text = b" ".join(encoded).translate(WORD_BYTES)
    runs = text.split()
    flat = np.empty(len(runs), dtype=object)
    flat[:] = runs
    word = np.frombuffer(text, dtype=np.uint8) != ord(" ")
    starts = np.flatnonzero(word[1:] & ~word[:-1]) + 1
    if len(word) and word[0]:
        starts = np.concatenate([[0], starts])
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)) + 1, out=offsets[1:])
    return flat, np.searchsorted(starts, offsets).astype(np.int64)


def reference_term_index(graph: CodebaseGraph) -> TermIndex:
    """The term index from ``own_documents`` (not memoised on the graph)."""
    flat, doc_ptr = word_runs(own_documents(graph))
    word_ids, words = pd.factorize(flat)
    vocab: dict[str, int] = {}
    word_terms: list[int] = []
    word_ptr = [0]
    for word in words:
        word = word.lstrip(b"0123456789").decode("ascii")
        word_terms.extend(vocab.setdefault(t, len(vocab)) for t in split_identifier(word) if word)
        word_ptr.append(len(word_terms))
    splits = sp.csr_matrix((np.ones(len(word_terms)), np.asarray(word_terms, dtype=np.int64),
                            np.asarray(word_ptr, dtype=np.int64)), shape=(len(words), len(vocab)))
    occurrences = sp.csr_matrix((np.ones(len(flat)), word_ids, doc_ptr), shape=(len(doc_ptr) - 1, len(words)))
    counts = (occurrences @ splits).tocsr()
    counts.sort_indices()
    tf = sp.csr_matrix(
        (counts.data.astype(np.float64), counts.indices.astype(np.int64), counts.indptr.astype(np.int64)),
        shape=(len(graph.symbols), len(vocab)),
    )
    return TermIndex(vocab, tf, np.asarray(tf.sum(axis=1)).ravel())


def same_index(a: TermIndex, b: TermIndex) -> bool:
    """Byte-identical: vocabulary with its numbering, and every array of the matrix and lengths."""
    return (list(a.vocab.items()) == list(b.vocab.items()) and a.tf.shape == b.tf.shape
            and all(x.dtype == y.dtype and x.tobytes() == y.tobytes() for x, y in
                    [(a.tf.data, b.tf.data), (a.tf.indices, b.tf.indices), (a.tf.indptr, b.tf.indptr),
                     (a.doc_len, b.doc_len)]))
