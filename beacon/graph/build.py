"""Build a ``CodebaseGraph`` from a directory, with a content-hash cache.

Three layers of reuse, all keyed by content, never by trust in timestamps:

* on disk (``cache_dir``): each file's parse, keyed by the SHA-256 of its
  bytes and the parser version — a warm build reparses nothing;
* in memory (a long-lived ``GraphBuilder``): the same parses, plus each
  file's resolved edges, keyed by its hash and the fingerprint of every
  file's *interface* (definitions, module-level bindings, bases). Editing a
  function body keeps all interfaces, so a rebuild reparses and re-resolves
  only the edited file;
* ``(size, mtime_ns, inode)`` only decides whether a file must be re-read
  and re-hashed; the hash, not the stat, decides reuse.

Files that cannot be indexed are recorded in ``graph.skipped`` with the
reason: syntax errors, undecodable bytes, files over ``max_file_bytes``,
symlinks (never followed: outside the repository, looping, or duplicates of
a file inside it).

Speed (see ``experiments/benchmarks/graph_build.py``):

* the cyclic garbage collector is paused during a build: a build allocates
  millions of long-lived objects (AST nodes, parses, symbols) and no garbage
  cycles, so the collector's repeated scans of the growing heap are pure
  overhead (they nearly doubled the cold build time);
* a cold build with much uncached source parses in a process pool
  (``workers``, default: the CPUs this process may use). Workers return each
  parse pickled, which is also the disk-cache format, so the pool adds one
  ``pickle.loads`` per file (about 4% of the parse time on sympy). The
  result is identical to a serial build;
* an incremental rebuild repeats only cheap per-file bookkeeping: the scan
  takes one ``lstat`` per file, interfaces are memoised per content hash,
  module names per path list, and each file's resolved edges are kept sorted
  per edge type, so the CSR arrays are concatenations checked in one pass
  rather than a global sort.
"""
from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import pickle
import stat
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np

from .codebase import CodebaseGraph, SourceFile, csr_from_pairs
from .parse import PARSER_VERSION, FileParse, ParseFailure, parse_source
from .resolve import Resolver, module_names
from .symbols import EdgeType, Skipped, Symbol, is_test_path, symbol_id

DEFAULT_MAX_FILE_BYTES = 1 << 20
# Below this much source to parse, starting worker processes costs more than
# it saves (sequential parsing runs at roughly 3 MB/s).
POOL_MIN_BYTES = 2 << 20
_PRUNED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})
_EDGE_TYPES = tuple(EdgeType)
_EDGE_VALUES = np.array([int(e) for e in _EDGE_TYPES])  # per-file pairs come in this order


def default_workers() -> int:
    """The number of CPUs this process may run on (the default pool size)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not available on macOS and Windows
        return os.cpu_count() or 1


def scan(root: Path, max_file_bytes: int) -> tuple[list[str], list[Skipped]]:
    """Relative POSIX paths of indexable ``.py`` files, and what was skipped."""
    found, skipped, _ = _scan(Path(root), max_file_bytes)
    return found, skipped


def _scan(root: Path, max_file_bytes: int) -> tuple[list[str], list[Skipped], dict[str, os.stat_result]]:
    """``scan`` plus each found file's ``lstat`` (which ``build`` reuses).

    Same rules as ``os.walk(followlinks=False)``, but with ``os.scandir``,
    strings and one ``lstat`` per file instead of ``Path`` objects and two
    syscalls: this walk runs on every rebuild. Unreadable directories are
    left out, as ``os.walk`` does.
    """
    root = root.resolve()
    found: list[str] = []
    skipped: list[Skipped] = []
    stats: dict[str, os.stat_result] = {}
    pending = [(str(root), "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir()  # follows symlinks, as os.walk does
            except OSError:
                is_dir = False
            if is_dir:
                if name.startswith(".") or name in _PRUNED_DIRS:
                    continue
                if entry.is_symlink():
                    skipped.append(Skipped(prefix + name, _symlink_reason(Path(entry.path), root, "directory")))
                    continue
                pending.append((entry.path, prefix + name + "/"))
            elif not name.endswith(".py") and entry.is_symlink() and not os.path.exists(entry.path):
                # A link that cannot be resolved (a loop such as dir_a -> dir_b -> dir_a, or a
                # dangling link) is neither a file nor a folder: record it rather than drop it.
                skipped.append(Skipped(prefix + name, _symlink_reason(Path(entry.path), root, "unresolvable")))
            elif name.endswith(".py"):
                rel = prefix + name
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError as exc:
                    skipped.append(Skipped(rel, f"unreadable: {exc.strerror}"))
                    continue
                if stat.S_ISLNK(st.st_mode):
                    skipped.append(Skipped(rel, _symlink_reason(Path(entry.path), root, "file")))
                    continue
                if st.st_size > max_file_bytes:
                    skipped.append(Skipped(rel, f"too large: {st.st_size} bytes > limit {max_file_bytes}"))
                    continue
                found.append(rel)
                stats[rel] = st
    found.sort()
    skipped.sort(key=lambda s: s.path)
    return found, skipped, stats


def _symlink_reason(full: Path, root: Path, what: str) -> str:
    try:
        target = full.resolve(strict=True)
    except RuntimeError:
        return f"symlink loop ({what}); not followed"
    except OSError as exc:
        if "loop" in str(exc).lower() or getattr(exc, "errno", None) == 40:
            return f"symlink loop ({what}); not followed"
        return f"broken symlink ({what}); not followed"
    if not target.is_relative_to(root):
        return f"symlink pointing outside the repository ({what}); not followed"
    return f"symlink to {target.relative_to(root).as_posix()} inside the repository ({what}); not followed"


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


def _parse_outcome(data: bytes) -> FileParse | str:
    try:
        return parse_source(data)
    except ParseFailure as exc:
        return str(exc)


def _parse_pickled(data: bytes) -> bytes:
    """Worker side of the pool: the parse, pickled as it is stored in the disk cache."""
    return pickle.dumps(_parse_outcome(data), protocol=pickle.HIGHEST_PROTOCOL)


def _sorted_pairs_by_type(edges: list[tuple[int, int, int]]) -> tuple[np.ndarray, ...]:
    """Per edge type, the ``(source, target)`` pairs sorted and without duplicates."""
    arr = np.array(edges, dtype=np.int64).reshape(-1, 3)
    if len(arr) > 1:
        arr = arr[np.lexsort((arr[:, 2], arr[:, 1], arr[:, 0]))]
        keep = np.ones(len(arr), dtype=bool)
        keep[1:] = np.any(arr[1:] != arr[:-1], axis=1)
        arr = arr[keep]
    lo = np.searchsorted(arr[:, 0], _EDGE_VALUES, side="left")
    hi = np.searchsorted(arr[:, 0], _EDGE_VALUES, side="right")
    # contiguous copies: concatenating strided views is several times slower
    return tuple(np.ascontiguousarray(arr[a:b, 1:]) for a, b in zip(lo, hi))


def _csr(parts: list[np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray]:
    """``csr_from_pairs`` of the concatenated per-file pairs, without the global sort.

    Each file's pairs are sorted, and for most edge types every source lies in
    the file's own range of symbols, so the concatenation in file order is
    already sorted and duplicate-free; checking that is one pass. Otherwise
    (decorator edges start anywhere) fall back to the general function.
    """
    pairs = np.concatenate(parts) if parts else np.zeros((0, 2), dtype=np.int64)
    src, dst = pairs[:, 0], pairs[:, 1]
    if len(src) == 0:
        return csr_from_pairs(src, dst, n)
    key = src * n + dst
    if not np.all(key[1:] > key[:-1]):
        return csr_from_pairs(src, dst, n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst.astype(np.int32)


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
        self.cache_dir = Path(cache_dir) / f"parse-v{PARSER_VERSION}" if cache_dir else None
        self.max_file_bytes = max_file_bytes
        self.workers = default_workers() if workers is None else workers
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1:
            raise ValueError(f"workers must be a positive integer or None, got {workers!r}")
        self._stat_hash: dict[str, tuple[tuple[int, int, int], str]] = {}
        self._parses: dict[str, FileParse | str] = {}  # sha -> parse | skip reason
        self._interfaces: dict[str, bytes] = {}  # sha -> parse.interface()
        self._modules: tuple[list[str], dict[str, str]] | None = None  # paths -> module names
        self._symbols: dict[str, tuple[str, list[Symbol]]] = {}
        self._files: dict[str, SourceFile] = {}
        # rel -> (sha, per edge type sorted unique (source, target) pairs, stats)
        self._resolved: dict[str, tuple[str, tuple[np.ndarray, ...], Counter]] = {}
        self._fingerprint: bytes | None = None
        self.last_reparsed: list[str] = []
        self.last_resolved: list[str] = []

    def build(self) -> CodebaseGraph:
        with _gc_paused():
            return self._build()

    def _build(self) -> CodebaseGraph:
        paths, skipped, stats = _scan(self.root, self.max_file_bytes)
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
                cached = self._load_cached(sha)
                if cached is None:
                    todo[sha] = data
                    self.last_reparsed.append(rel)  # only what is really parsed, not disk-cache hits
                else:
                    self._parses[sha] = cached
            found.append((rel, sha))
        self._parse_all(todo)
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

    # -- parsing -----------------------------------------------------------
    def _cache_path(self, sha: str) -> Path:
        return self.cache_dir / sha[:2] / f"{sha}.pkl"

    def _load_cached(self, sha: str) -> FileParse | str | None:
        if self.cache_dir is None:
            return None
        try:
            with open(self._cache_path(sha), "rb") as fh:
                return pickle.load(fh)
        except FileNotFoundError:
            return None
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
            return None  # a corrupt cache entry is recomputed and overwritten

    def _store(self, sha: str, blob: bytes) -> None:
        cached = self._cache_path(sha)
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            fh.write(blob)
        os.replace(tmp, cached)

    def _use_pool(self, todo: dict[str, bytes]) -> bool:
        return (
            self.workers > 1
            and len(todo) > 1
            and sum(map(len, todo.values())) >= POOL_MIN_BYTES
            # daemonic processes (multiprocessing.Pool workers) may not have children
            and not multiprocessing.current_process().daemon
        )

    def _parse_all(self, todo: dict[str, bytes]) -> None:
        """Parse the contents in ``todo`` into ``self._parses`` and the disk cache."""
        if not self._use_pool(todo):
            for sha, data in todo.items():
                outcome = _parse_outcome(data)
                if self.cache_dir is not None:
                    self._store(sha, pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL))
                self._parses[sha] = outcome
            return
        # Largest files first, so that no worker is left with a big file at the end.
        shas = sorted(todo, key=lambda s: len(todo[s]), reverse=True)
        # At most one worker per MiB of source: starting a process costs ~10-300 ms.
        total = sum(map(len, todo.values()))
        workers = min(self.workers, len(shas), max(2, total >> 20))
        chunk = max(1, len(shas) // (workers * 16))
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(),
                                 initializer=gc.disable) as pool:
            blobs = pool.map(_parse_pickled, [todo[s] for s in shas], chunksize=chunk)
            for sha, blob in zip(shas, blobs):
                if self.cache_dir is not None:
                    self._store(sha, blob)
                self._parses[sha] = pickle.loads(blob)

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
            self._fingerprint = fingerprint
        if self._modules is None or self._modules[0] != paths:
            self._modules = (paths, module_names(paths))
        modules = self._modules[1]
        resolver = None
        self.last_resolved = []
        symbols: list[Symbol] = []
        pair_parts: list[tuple[np.ndarray, ...]] = []
        file_stats: list[Counter] = []
        files: dict[str, SourceFile] = {}
        for rel in order:
            parse, sha = parses[rel], hashes[rel]
            symbols.extend(self._file_symbols(rel, sha, parse))
            source = self._files.get(rel)
            if source is None or source.sha256 != sha or source.module != modules[rel]:
                source = self._files[rel] = SourceFile(rel, sha, parse.text_sha256, modules[rel], parse.text)
            files[rel] = source
            known = self._resolved.get(rel)
            if known is None or known[0] != sha:
                if resolver is None:
                    resolver = Resolver(parses, paths)
                resolution = resolver.resolve_file(rel)
                known = (sha, _sorted_pairs_by_type(resolution.edges), resolution.stats)
                self._resolved[rel] = known
                self.last_resolved.append(rel)
            pair_parts.append(known[1])
            file_stats.append(known[2])
        stats: dict[str, int] = {}
        for counts in file_stats:  # a plain sum: Counter.update is several times slower
            for key, value in counts.items():
                stats[key] = stats.get(key, 0) + value
        n = len(symbols)
        edges = {etype: _csr([p[t] for p in pair_parts], n) for t, etype in enumerate(_EDGE_TYPES)}
        stats["files_indexed"] = len(order)
        stats["files_skipped"] = len(skipped)
        stats["symbols"] = n
        return CodebaseGraph(
            symbols=symbols, files=files, edges=edges, skipped=skipped,
            stats=dict(sorted(stats.items())), root=str(self.root),
        )

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
