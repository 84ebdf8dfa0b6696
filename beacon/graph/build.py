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
"""
from __future__ import annotations

import hashlib
import os
import pickle
from collections import Counter
from pathlib import Path

import numpy as np

from .codebase import CodebaseGraph, SourceFile, csr_from_pairs
from .parse import PARSER_VERSION, FileParse, ParseFailure, parse_source
from .resolve import Resolver, module_names
from .symbols import EdgeType, Skipped, Symbol, is_test_path, symbol_id

DEFAULT_MAX_FILE_BYTES = 1 << 20
_PRUNED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})


def scan(root: Path, max_file_bytes: int) -> tuple[list[str], list[Skipped]]:
    """Relative POSIX paths of indexable ``.py`` files, and what was skipped."""
    root = root.resolve()
    found: list[str] = []
    skipped: list[Skipped] = []
    for folder, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(folder)
        rel_dir = here.relative_to(root)
        kept = []
        for name in sorted(dirnames):
            if name.startswith(".") or name in _PRUNED_DIRS:
                continue
            full = here / name
            if full.is_symlink():
                skipped.append(Skipped((rel_dir / name).as_posix(), _symlink_reason(full, root, "directory")))
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            full = here / name
            rel = (rel_dir / name).as_posix()
            if full.is_symlink():
                skipped.append(Skipped(rel, _symlink_reason(full, root, "file")))
                continue
            try:
                size = full.stat().st_size
            except OSError as exc:
                skipped.append(Skipped(rel, f"unreadable: {exc.strerror}"))
                continue
            if size > max_file_bytes:
                skipped.append(Skipped(rel, f"too large: {size} bytes > limit {max_file_bytes}"))
                continue
            found.append(rel)
    found.sort()
    skipped.sort(key=lambda s: s.path)
    return found, skipped


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


class GraphBuilder:
    """Builds graphs of one directory, reusing work between ``build()`` calls."""

    def __init__(self, root: Path, *, cache_dir: Path | str | None = None,
                 max_file_bytes: int = DEFAULT_MAX_FILE_BYTES):
        self.root = Path(root)
        if not self.root.is_dir():
            raise NotADirectoryError(f"{self.root}: not a directory")
        self.cache_dir = Path(cache_dir) / f"parse-v{PARSER_VERSION}" if cache_dir else None
        self.max_file_bytes = max_file_bytes
        self._stat_hash: dict[str, tuple[tuple[int, int, int], str]] = {}
        self._parses: dict[str, FileParse | str] = {}  # sha -> parse | skip reason
        self._symbols: dict[str, tuple[str, list[Symbol]]] = {}
        self._resolved: dict[str, tuple[str, np.ndarray, Counter]] = {}
        self._fingerprint: bytes | None = None
        self.last_reparsed: list[str] = []
        self.last_resolved: list[str] = []

    def build(self) -> CodebaseGraph:
        paths, skipped = scan(self.root, self.max_file_bytes)
        self.last_reparsed = []
        parses: dict[str, FileParse] = {}
        hashes: dict[str, str] = {}
        for rel in paths:
            sha, outcome = self._parse(rel)
            if isinstance(outcome, str):
                skipped.append(Skipped(rel, outcome))
                continue
            parses[rel] = outcome
            hashes[rel] = sha
        skipped.sort(key=lambda s: s.path)
        return self._assemble(paths, parses, hashes, skipped)

    # -- parsing -----------------------------------------------------------
    def _parse(self, rel: str) -> tuple[str, FileParse | str]:
        full = self.root / rel
        try:
            st = full.stat()
            sig = (st.st_size, st.st_mtime_ns, st.st_ino)
            known = self._stat_hash.get(rel)
            if known and known[0] == sig and known[1] in self._parses:
                return known[1], self._parses[known[1]]
            data = full.read_bytes()
        except OSError as exc:
            return "", f"unreadable: {exc.strerror}"
        sha = hashlib.sha256(data).hexdigest()
        self._stat_hash[rel] = (sig, sha)
        if sha not in self._parses:
            self._parses[sha] = self._load_or_parse(sha, data)
            self.last_reparsed.append(rel)
        return sha, self._parses[sha]

    def _load_or_parse(self, sha: str, data: bytes) -> FileParse | str:
        cached = self.cache_dir / sha[:2] / f"{sha}.pkl" if self.cache_dir else None
        if cached is not None and cached.exists():
            try:
                with open(cached, "rb") as fh:
                    return pickle.load(fh)
            except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
                pass  # a corrupt cache entry is recomputed and overwritten below
        try:
            outcome: FileParse | str = parse_source(data)
        except ParseFailure as exc:
            outcome = str(exc)
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            tmp = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
            with open(tmp, "wb") as fh:
                pickle.dump(outcome, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, cached)
        return outcome

    # -- resolution and assembly --------------------------------------------
    def _assemble(self, paths: list[str], parses: dict[str, FileParse],
                  hashes: dict[str, str], skipped: list[Skipped]) -> CodebaseGraph:
        order = sorted(parses)
        fp = hashlib.sha256()
        for rel in paths:  # package structure depends on every scanned path
            fp.update(rel.encode() + b"\0")
        for rel in order:
            fp.update(rel.encode() + b"\0" + parses[rel].interface())
        fingerprint = fp.digest()
        if fingerprint != self._fingerprint:
            self._resolved.clear()
            self._fingerprint = fingerprint
        resolver = None
        modules = module_names(paths)
        self.last_resolved = []
        symbols: list[Symbol] = []
        edge_parts: list[np.ndarray] = []
        stats: Counter = Counter()
        files: dict[str, SourceFile] = {}
        for rel in order:
            parse, sha = parses[rel], hashes[rel]
            symbols.extend(self._file_symbols(rel, sha, parse))
            files[rel] = SourceFile(rel, sha, parse.text_sha256, modules[rel], parse.text)
            known = self._resolved.get(rel)
            if known is None or known[0] != sha:
                if resolver is None:
                    resolver = Resolver(parses, paths)
                resolution = resolver.resolve_file(rel)
                arr = np.array(resolution.edges, dtype=np.int64).reshape(-1, 3)
                known = (sha, arr, resolution.stats)
                self._resolved[rel] = known
                self.last_resolved.append(rel)
            edge_parts.append(known[1])
            stats.update(known[2])
        all_edges = np.concatenate(edge_parts) if edge_parts else np.zeros((0, 3), dtype=np.int64)
        n = len(symbols)
        edges = {}
        for etype in EdgeType:
            sel = all_edges[all_edges[:, 0] == etype]
            edges[etype] = csr_from_pairs(sel[:, 1], sel[:, 2], n)
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
