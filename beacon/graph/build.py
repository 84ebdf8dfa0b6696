"""Build a ``CodebaseGraph`` from a directory, reusing work by content hash.

The steps live in their own modules: ``scan`` (which files, what is skipped),
``parse_store`` (parses by content hash: disk cache, process pool),
``tables`` and ``resolve`` (edges against the whole repository), ``edges``
(per-file sorted edges → CSR). ``GraphBuilder`` ties them together with three
layers of reuse, all keyed by content, never by trust in timestamps:

* on disk (``cache_dir``): each file's parse, keyed by the SHA-256 of its
  bytes and the parser version — a warm build reparses nothing;
* in memory (a long-lived ``GraphBuilder``): the same parses, plus each
  file's resolved edges and the repository-wide resolution tables, keyed by
  the fingerprint of every file's *interface* (definitions, module-level and
  class bindings, bases). Editing a function body keeps all interfaces, so a
  rebuild reparses and re-resolves only the edited file and rebuilds no table;
* ``(size, mtime_ns, inode)`` only decides whether a file must be re-read
  and re-hashed; the hash, not the stat, decides reuse.

Speed (see ``experiments/benchmarks/graph_build.py``):

* the cyclic garbage collector is paused during a build: a build allocates
  millions of long-lived objects (AST nodes, parses, symbols) and no garbage
  cycles, so the collector's repeated scans of the growing heap are pure
  overhead (they nearly doubled the cold build time);
* an incremental rebuild repeats only cheap per-file bookkeeping: the scan
  takes one ``lstat`` per file, interfaces are memoised per content hash,
  module names per path list, symbols per file, and the CSR arrays are
  the last build's per-file sorted edges with the changed files spliced in,
  checked in one pass.
"""
from __future__ import annotations

import gc
import hashlib
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np

from .codebase import CodebaseGraph, SourceFile
from .edges import EdgeAssembler, sorted_pairs_by_type
from .parse import FileParse
from .parse_store import POOL_MIN_BYTES, ParseStore, default_workers
from .resolve import Resolver, module_names
from .scan import scan, scan_with_stats
from .symbols import Skipped, Symbol, is_test_path, symbol_id
from .tables import RepoTables

__all__ = ["DEFAULT_MAX_FILE_BYTES", "POOL_MIN_BYTES", "GraphBuilder", "default_workers", "scan"]

DEFAULT_MAX_FILE_BYTES = 1 << 20


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic GC (reference counting still frees everything a build drops)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class GraphBuilder:
    """Builds graphs of one directory, reusing work between ``build()`` calls.

    ``workers`` caps the process pool used to parse many uncached files
    (default: the CPUs available; ``1`` parses in this process). The pool uses
    ``multiprocessing``'s default start method; with ``spawn`` or
    ``forkserver`` the calling script needs the usual
    ``if __name__ == "__main__":`` guard.
    """

    def __init__(self, root: Path, *, cache_dir: Path | str | None = None,
                 max_file_bytes: int = DEFAULT_MAX_FILE_BYTES, workers: int | None = None):
        self.root = Path(root)
        if not self.root.is_dir():
            raise NotADirectoryError(f"{self.root}: not a directory")
        self._store = ParseStore(cache_dir, workers)
        self.cache_dir = self._store.cache_dir
        self.workers = self._store.workers
        self.max_file_bytes = max_file_bytes
        self._stat_hash: dict[str, tuple[tuple[int, int, int], str]] = {}
        self._parses: dict[str, FileParse | str] = {}  # sha -> parse | skip reason
        self._interfaces: dict[str, bytes] = {}  # sha -> parse.interface()
        self._modules: tuple[list[str], dict[str, str]] | None = None  # paths -> module names
        self._symbols: dict[str, tuple[str, list[Symbol]]] = {}
        self._files: dict[str, SourceFile] = {}
        # rel -> (sha, per edge type sorted unique (source, target) pairs, stats)
        self._resolved: dict[str, tuple[str, tuple[np.ndarray, ...], Counter]] = {}
        self._fingerprint: bytes | None = None
        self._tables: RepoTables | None = None  # valid for self._fingerprint
        self._edges = EdgeAssembler()
        self.last_reparsed: list[str] = []
        self.last_resolved: list[str] = []
        self.last_tables_rebuilt = False  # whether the last build rebuilt the resolution tables

    @property
    def last_spliced(self) -> bool:
        """Whether the last build spliced changed files' edges into the previous CSR concatenation."""
        return self._edges.last_spliced

    def build(self) -> CodebaseGraph:
        with _gc_paused():
            return self._build()

    def _build(self) -> CodebaseGraph:
        paths, skipped, stats = scan_with_stats(self.root, self.max_file_bytes)
        self.last_reparsed = []
        found: list[tuple[str, str]] = []  # (rel, sha)
        todo: dict[str, bytes] = {}  # sha -> bytes: in neither the memory nor the disk cache
        for rel in paths:
            st = stats[rel]
            sig = (st.st_size, st.st_mtime_ns, st.st_ino)
            known = self._stat_hash.get(rel)
            if known and known[0] == sig and known[1] in self._parses:
                found.append((rel, known[1]))
                continue
            try:
                with open(self.root / rel, "rb") as fh:
                    data = fh.read()
            except OSError as exc:
                skipped.append(Skipped(rel, f"unreadable: {exc.strerror}"))
                continue
            sha = hashlib.sha256(data).hexdigest()
            self._stat_hash[rel] = (sig, sha)
            if sha not in self._parses and sha not in todo:
                cached = self._store.load(sha)
                if cached is None:
                    todo[sha] = data
                    self.last_reparsed.append(rel)  # only what is really parsed, not disk-cache hits
                else:
                    self._parses[sha] = cached
            found.append((rel, sha))
        self._parses.update(self._store.parse_all(todo))
        parses: dict[str, FileParse] = {}
        hashes: dict[str, str] = {}
        for rel, sha in found:
            outcome = self._parses[sha]
            if isinstance(outcome, str):
                skipped.append(Skipped(rel, outcome))
                continue
            parses[rel] = outcome
            hashes[rel] = sha
        skipped.sort(key=lambda s: s.path)
        return self._assemble(paths, parses, hashes, skipped)

    def _interface(self, sha: str, parse: FileParse) -> bytes:
        found = self._interfaces.get(sha)
        if found is None:
            found = self._interfaces[sha] = parse.interface()
        return found

    # -- resolution and assembly --------------------------------------------
    def _assemble(self, paths: list[str], parses: dict[str, FileParse],
                  hashes: dict[str, str], skipped: list[Skipped]) -> CodebaseGraph:
        order = sorted(parses)
        fp = hashlib.sha256()
        # package structure depends on every scanned path (one update per list: faster, same digest)
        fp.update(b"".join(rel.encode() + b"\0" for rel in paths))
        fp.update(b"".join(rel.encode() + b"\0" + self._interface(hashes[rel], parses[rel]) for rel in order))
        fingerprint = fp.digest()
        if fingerprint != self._fingerprint:
            self._resolved.clear()
            self._tables = None
            self._fingerprint = fingerprint
        if self._modules is None or self._modules[0] != paths:
            self._modules = (paths, module_names(paths))
        modules = self._modules[1]
        resolver = None
        self.last_resolved = []
        self.last_tables_rebuilt = False
        symbols: list[Symbol] = []
        pair_parts: list[tuple[np.ndarray, ...]] = []
        file_stats: list[Counter] = []
        files: dict[str, SourceFile] = {}
        for rel in order:
            parse, sha = parses[rel], hashes[rel]
            symbols.extend(self._file_symbols(rel, sha, parse))
            source = self._files.get(rel)
            if source is None or source.sha256 != sha or source.module != modules[rel]:
                source = self._files[rel] = SourceFile(rel, sha, parse.text_sha256, modules[rel], parse.text,
                                                      tuple(parse.literals), parse.words, parse.fragments)
            files[rel] = source
            known = self._resolved.get(rel)
            if known is None or known[0] != sha:
                if resolver is None:
                    resolver = self._resolver(parses, paths, modules)
                resolution = resolver.resolve_file(rel)
                known = (sha, sorted_pairs_by_type(resolution.edges), resolution.stats)
                self._resolved[rel] = known
                self.last_resolved.append(rel)
            pair_parts.append(known[1])
            file_stats.append(known[2])
        stats: dict[str, int] = {}
        for counts in file_stats:  # a plain sum: Counter.update is several times slower
            for key, value in counts.items():
                stats[key] = stats.get(key, 0) + value
        n = len(symbols)
        edges = self._edges.assemble(pair_parts, n)
        stats["files_indexed"] = len(order)
        stats["files_skipped"] = len(skipped)
        stats["symbols"] = n
        return CodebaseGraph(
            symbols=symbols, files=files, edges=edges, skipped=skipped,
            stats=dict(sorted(stats.items())), root=str(self.root),
        )

    def _resolver(self, parses: dict[str, FileParse], paths: list[str], modules: dict[str, str]) -> Resolver:
        """A resolver for this build, on the tables of the current fingerprint (built if missing)."""
        if self._tables is None:
            self._tables = RepoTables.build(parses, paths, modules)
            self.last_tables_rebuilt = True
        return Resolver(parses, paths, self._tables)

    def _file_symbols(self, rel: str, sha: str, parse: FileParse) -> list[Symbol]:
        known = self._symbols.get(rel)
        if known is not None and known[0] == sha:
            return known[1]
        data = np.frombuffer(parse.text.encode("utf-8"), dtype=np.uint8)
        newline_ends = np.flatnonzero(data == 10) + 1  # byte just past each "\n"
        starts = np.concatenate(([0], newline_ends))
        total = len(data)

        def byte_span(first: int, last: int) -> tuple[int, int]:
            # whole lines: from the start of `first` to just past the end of `last`
            return int(starts[first - 1]), int(starts[last]) if last < len(starts) else total

        test = is_test_path(rel)
        found = []
        for d in parse.defs:
            start_byte, end_byte = byte_span(d.start_line, d.end_line)
            parent = None if d.parent < 0 else symbol_id(rel, parse.defs[d.parent].qualname)
            found.append(Symbol(
                id=symbol_id(rel, d.qualname), kind=d.kind, path=rel, qualname=d.qualname,
                start_line=d.start_line, end_line=d.end_line,
                start_byte=start_byte, end_byte=end_byte, is_test=test, parent=parent,
            ))
        self._symbols[rel] = (sha, found)
        return found
