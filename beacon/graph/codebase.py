"""``CodebaseGraph``: symbols, typed edges as CSR arrays, sources, save/load.

Edges of each type are stored as two arrays, ``indptr`` (int64, n+1) and
``indices`` (int32), sorted by source then target, without duplicates. The
reverse direction is the transpose, built lazily. ``save`` writes ``.npy``
files that ``load`` opens with ``mmap_mode="r"``, plus JSON tables for nodes,
files and sources, so a loaded graph can render snippets without the repo, and each file's document words
and their terms (``words.file_words``, computed with the parse) as ``words.*`` files, so a loaded graph's term
index needs no tokenisation of its files and no identifier splitting, and each file's literal fragments
(``literal_fragments.file_fragments``, also computed with the parse) in ``fragments.json``, so a loaded graph's
literal index cuts no constant.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterator

import numpy as np
import scipy.sparse as sp

from .literal_fragments import FileFragments
from .symbols import EdgeType, Skipped, Symbol
from .words import FileWords

# 2: literals.json (each file's string constants). 3: parser 7 (bases through `with_metaclass(...)`
# and `Base[T]`): graphs saved before it lack those edges. 4: words.* (each file's document words).
# 5: words.terms, words.term_codes.npy, words.term_ptr.npy (the words' terms). 6: fragments.json (each
# file's literal fragments). 7: is_test_path knows `testsuite/` (old flask/werkzeug tests were candidates).
GRAPH_SCHEMA = 7
_WORDS_FILES = (*(f"words.{name}" for name in FileWords.TEXTS),
                *(f"words.{name}.npy" for name in (*FileWords.ARRAYS, "sizes")))
_NODE_COLUMNS = ("id", "kind", "path", "qualname", "start_line", "end_line",
                 "start_byte", "end_byte", "is_test", "parent")


class StaleGraphError(ValueError):
    """A saved graph was written by another schema version: rebuild it, do not read it."""


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: str
    sha256: str  # of the raw file bytes (the cache key)
    text_sha256: str  # of the indexed text (what renderers and edits pin)
    module: str
    text: str
    # (line, value) of each string constant but docstrings (``parse.string_constants``), for literal matching
    literals: tuple[tuple[int, str], ...] = ()
    # the words of each definition's own lines, for the term index (``beacon.retrieval.doc_tokens``); None
    # when the graph was not built by the parser (the term index then tokenises the text)
    words: FileWords | None = field(default=None, compare=False, repr=False)
    # the matchable fragments of ``literals`` (``literal_fragments.file_fragments``), for the literal index; None
    # when the graph was not built by the parser (the index then cuts ``literals`` itself)
    fragments: FileFragments | None = field(default=None, compare=False, repr=False)

    def lines(self) -> list[str]:
        return self.text.split("\n")


def csr_from_pairs(src: np.ndarray, dst: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted, de-duplicated CSR (indptr, indices) from edge endpoint arrays."""
    if len(src) == 0:
        return np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int32)
    key = np.unique(src.astype(np.int64) * n + dst.astype(np.int64))
    rows, cols = np.divmod(key, n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return indptr, cols.astype(np.int32)


@dataclass
class CodebaseGraph:
    symbols: list[Symbol]
    files: dict[str, SourceFile]
    edges: dict[EdgeType, tuple[np.ndarray, np.ndarray]]
    skipped: list[Skipped] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    root: str | None = None
    # Per-graph memo for retrieval indexes (BM25 matrices, vectors, …); never saved.
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    # -- construction ------------------------------------------------------
    @classmethod
    def from_repo(cls, path: Path | str, *, cache_dir: Path | str | None = None,
                  max_file_bytes: int | None = None) -> CodebaseGraph:
        """Index every ``.py`` file under ``path`` (see ``beacon.graph.build``)."""
        from .build import DEFAULT_MAX_FILE_BYTES, GraphBuilder

        limit = DEFAULT_MAX_FILE_BYTES if max_file_bytes is None else max_file_bytes
        return GraphBuilder(Path(path), cache_dir=cache_dir, max_file_bytes=limit).build()

    # -- nodes -------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.symbols)

    @property
    def index(self) -> dict[str, int]:
        found = self.cache.get("_index")
        if found is None:
            found = self.cache["_index"] = {s.id: i for i, s in enumerate(self.symbols)}
        return found

    def symbol(self, symbol_id: str) -> Symbol:
        try:
            return self.symbols[self.index[symbol_id]]
        except KeyError:
            raise KeyError(f"no symbol {symbol_id!r} in the graph") from None

    def source(self, symbol: Symbol | int | str) -> str:
        """The symbol's full source lines (decorators included), ending in a newline."""
        sym = self._as_symbol(symbol)
        chunk = "".join(self.file_lines(sym.path)[sym.start_line - 1:sym.end_line])
        return chunk if chunk.endswith("\n") or not chunk else chunk + "\n"

    def file_lines(self, path: str) -> list[str]:
        """The indexed text's lines, each with its newline (the last may lack one)."""
        key = ("_lines", path)
        found = self.cache.get(key)
        if found is None:
            text = self.files[path].text
            found = [line + "\n" for line in text.split("\n")]
            if text.endswith("\n") or not text:
                found.pop()
            else:
                found[-1] = found[-1][:-1]
            self.cache[key] = found
        return found

    def _as_symbol(self, symbol: Symbol | int | str) -> Symbol:
        if isinstance(symbol, Symbol):
            return symbol
        if isinstance(symbol, str):
            return self.symbol(symbol)
        return self.symbols[symbol]

    # -- edges -------------------------------------------------------------
    def matrix(self, etype: EdgeType, *, reverse: bool = False) -> sp.csr_matrix:
        """Adjacency of one edge type (row = source) as a scipy CSR matrix."""
        key = ("_matrix", int(etype), reverse)
        found = self.cache.get(key)
        if found is None:
            n = len(self.symbols)
            indptr, indices = self.edges[etype]
            data = np.ones(len(indices), dtype=np.float64)
            forward = sp.csr_matrix((data, indices, indptr), shape=(n, n), copy=False)
            found = forward.T.tocsr() if reverse else forward
            self.cache[key] = found
        return found

    def neighbors(self, node: int, etype: EdgeType, *, reverse: bool = False) -> np.ndarray:
        if not reverse:
            indptr, indices = self.edges[etype]
            return np.asarray(indices[indptr[node]:indptr[node + 1]])
        m = self.matrix(etype, reverse=True)
        return m.indices[m.indptr[node]:m.indptr[node + 1]]

    def edge_pairs(self, etype: EdgeType) -> Iterator[tuple[str, str]]:
        indptr, indices = self.edges[etype]
        for u in range(len(self.symbols)):
            for v in indices[indptr[u]:indptr[u + 1]]:
                yield self.symbols[u].id, self.symbols[int(v)].id

    def has_edge(self, src: str, dst: str, etype: EdgeType) -> bool:
        u, v = self.index[src], self.index[dst]
        return bool(np.any(self.neighbors(u, etype) == v))

    # -- persistence -------------------------------------------------------
    def save(self, directory: Path | str) -> Path:
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        for etype, (indptr, indices) in self.edges.items():
            _save_npy(out / f"{etype.label}.indptr.npy", np.asarray(indptr, dtype=np.int64))
            _save_npy(out / f"{etype.label}.indices.npy", np.asarray(indices, dtype=np.int32))
        rows = [[getattr(s, c) for c in _NODE_COLUMNS] for s in self.symbols]
        _write_json(out / "nodes.json", {"schema": GRAPH_SCHEMA, "columns": list(_NODE_COLUMNS), "rows": rows})
        files = [
            {"path": f.path, "sha256": f.sha256, "text_sha256": f.text_sha256, "module": f.module}
            for f in self.files.values()
        ]
        _write_json(out / "sources.json", {f.path: f.text for f in self.files.values()})
        _write_json(out / "literals.json", {f.path: f.literals for f in self.files.values()})
        _save_words(out, list(self.files.values()))
        _write_json(out / "fragments.json", {f.path: None if f.fragments is None else
                                             [f.fragments.names, f.fragments.lines, f.fragments.which]
                                             for f in self.files.values()})
        meta = {
            "schema": GRAPH_SCHEMA,
            "root": self.root,
            "files": files,
            "skipped": [[s.path, s.reason] for s in self.skipped],
            "stats": self.stats,
        }
        _write_json(out / "graph.json", meta)
        return out

    @classmethod
    def load(cls, directory: Path | str, *, mmap: bool = True) -> CodebaseGraph:
        src = Path(directory)
        meta = json.loads((src / "graph.json").read_text())
        if meta.get("schema") != GRAPH_SCHEMA:
            raise StaleGraphError(f"{src / 'graph.json'}: schema {meta.get('schema')!r}, expected {GRAPH_SCHEMA}")
        nodes = json.loads((src / "nodes.json").read_text())
        columns = nodes["columns"]
        symbols = [Symbol(**dict(zip(columns, row))) for row in nodes["rows"]]
        texts = json.loads((src / "sources.json").read_text())
        literals = json.loads((src / "literals.json").read_text())
        files = {
            f["path"]: SourceFile(f["path"], f["sha256"], f["text_sha256"], f["module"], texts[f["path"]],
                                  tuple((line, value) for line, value in literals[f["path"]]))
            for f in meta["files"]
        }
        _load_words(src, files)
        _load_fragments(src, files)
        mode = "r" if mmap else None
        edges = {
            etype: (
                np.load(src / f"{etype.label}.indptr.npy", mmap_mode=mode),
                np.load(src / f"{etype.label}.indices.npy", mmap_mode=mode),
            )
            for etype in EdgeType
        }
        return cls(
            symbols=symbols,
            files=files,
            edges=edges,
            skipped=[Skipped(p, r) for p, r in meta["skipped"]],
            stats=meta["stats"],
            root=meta["root"],
        )


def _save_words(out: Path, files: list[SourceFile]) -> None:
    """Every file's words, concatenated in file order (none if some file lacks them): each byte-string field as
    one file of the files' strings one a line (they never hold a newline), each array field as one array, and
    every file's array lengths."""
    found = [f.words for f in files]
    if not found or any(w is None for w in found):
        for name in _WORDS_FILES:
            (out / name).unlink(missing_ok=True)
        return
    empty = np.zeros(0, dtype=np.int32)
    for name in FileWords.ARRAYS:
        flat = np.concatenate([getattr(w, name) for w in found] + [empty]).astype(np.int32)
        _save_npy(out / f"words.{name}.npy", flat)
    sizes = [[len(getattr(w, name)) for name in FileWords.ARRAYS] for w in found]
    _save_npy(out / "words.sizes.npy", np.array(sizes, dtype=np.int64))
    for name in FileWords.TEXTS:
        tmp = out / f"words.{name}.tmp"
        tmp.write_bytes(b"\n".join(getattr(w, name) for w in found))
        os.replace(tmp, out / f"words.{name}")


def _load_words(src: Path, files: dict[str, SourceFile]) -> None:
    """Attach the saved words to ``files`` (in place: ``SourceFile`` is frozen, so each is replaced)."""
    if not (src / "words.vocab").is_file():
        return
    texts = {name: (src / f"words.{name}").read_bytes().split(b"\n") for name in FileWords.TEXTS}
    sizes = np.load(src / "words.sizes.npy")
    if any(len(t) != len(files) for t in texts.values()) or sizes.shape != (len(files), len(FileWords.ARRAYS)):
        raise StaleGraphError(f"{src / 'words.sizes.npy'}: words of {len(sizes)} files, expected {len(files)}")
    arrays = {name: np.split(np.load(src / f"words.{name}.npy"), np.cumsum(sizes[:, k])[:-1])
              for k, name in enumerate(FileWords.ARRAYS)}
    for k, (path, source) in enumerate(list(files.items())):
        fields = {name: texts[name][k] for name in texts} | {name: arrays[name][k] for name in arrays}
        files[path] = replace(source, words=FileWords(**fields))


def _load_fragments(src: Path, files: dict[str, SourceFile]) -> None:
    """Attach the saved literal fragments to ``files`` (in place, as ``_load_words``)."""
    saved = json.loads((src / "fragments.json").read_text())
    for path, source in list(files.items()):
        if path not in saved:
            raise StaleGraphError(f"{src / 'fragments.json'}: no entry for {path!r}, expected one per file")
        if saved[path] is not None:
            files[path] = replace(source, fragments=FileFragments(*map(tuple, saved[path])))


def _save_npy(path: Path, array: np.ndarray) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        np.save(fh, array)
    os.replace(tmp, path)


def _write_json(path: Path, payload: object) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(payload, separators=(",", ":")), encoding="utf-8")
    os.replace(tmp, path)
