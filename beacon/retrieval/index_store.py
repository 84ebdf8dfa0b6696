"""``IndexStore``: a graph's retrieval indexes saved on disk, memory-mapped on load, keyed by the graph's content.

A graph loaded through the snapshot cache carries the store's root folder
(``indexes.attach_store``); ``indexes_for`` then fills its ``GraphIndexes`` from
``<root>/<digest[:2]>/<digest>/v<INDEX_FORMAT>/`` and writes every stored
member through to that folder as soon as it is built, so the second process on
a graph pays a load instead of a build. ``digest`` is ``graph_digest(graph)``,
a hash of what every index is computed from (files' texts, symbols, edges);
``INDEX_FORMAT`` changes whenever a builder's output or this layout changes,
so a file from another graph or another builder is never found, let alone
trusted.

One member is one folder: its arrays as ``.npy`` files plus ``meta.json``
(member, family key, digest, format, kind, shapes, dtypes and a CRC-32 of
every array). It is written into a private temporary folder and renamed into
place, so readers never see half a member and of two concurrent writers one
wins whole. Opening a store reads only the members' ``meta.json`` (``entries``); a member's
arrays are read when it is first used (``load_entry``), so a method pays for
the members it uses, not for all of them. Each member is then checked against
its ``meta.json`` (format, digest, shapes, dtypes, checksums, CSR/CSC
structure); a member that fails is reported with an ``IndexStoreWarning``
naming the folder and the fault, moved away, and rebuilt by its accessor,
never used.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import uuid
import warnings
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from ..graph.codebase import CodebaseGraph

# Bump when any stored member's builder changes its output, or this layout changes. 2: idf weights and hashed
# vectors computed through ``libm`` (the C library), so a store written by numpy's AVX-512 loops is not reused.
INDEX_FORMAT = 2
_SPARSE = {cls.__name__: cls for cls in (sp.csr_matrix, sp.csc_matrix, sp.csr_array, sp.csc_array)}


LAST_USED = "last_used"  # a stamp in each graph's folder, its mtime the last time a process opened the store


def touch_last_used(graph_folder: Path) -> None:
    """Mark a graph's store as used now (``index_prune`` evicts the least recently used stores first)."""
    stamp = graph_folder / LAST_USED
    try:
        stamp.touch()
    except OSError:  # a read-only cache is still usable; it is only never pruned by recency
        pass


class IndexStoreWarning(UserWarning):
    """A stored index member was unreadable, stale or corrupt; it is rebuilt instead."""


def graph_digest(graph: CodebaseGraph) -> str:
    """A hash of everything an index is built from: each file's text hash, every symbol's fields, every edge."""
    h = hashlib.blake2b(digest_size=20)
    for f in sorted(graph.files.values(), key=lambda f: f.path):
        h.update(f"{f.path}\0{f.text_sha256}\0{f.module}\n".encode())
    h.update("\n".join(
        f"{s.id}\0{s.kind}\0{s.path}\0{s.qualname}\0{s.start_line}\0{s.end_line}\0{s.start_byte}\0"
        f"{s.end_byte}\0{s.is_test}\0{s.parent}" for s in graph.symbols).encode())
    for etype in sorted(graph.edges, key=lambda e: e.label):
        indptr, indices = graph.edges[etype]
        h.update(f"\0{etype.label}\0".encode())
        h.update(np.ascontiguousarray(indptr, dtype=np.int64).tobytes())
        h.update(np.ascontiguousarray(indices, dtype=np.int32).tobytes())
    return h.hexdigest()


# -- codec: a member value <-> (kind, JSON extras, named arrays) -------------------
def _encode(value: Any) -> tuple[str, dict, dict[str, np.ndarray]]:
    # lazily: these modules import indexes, which imports this one
    from .signals_real.literals import LiteralIndex, first_word as _first_word
    from .text import TermIndex

    if isinstance(value, np.ndarray):
        return "array", {}, {"array": value}
    if type(value).__name__ in _SPARSE:
        return "sparse", {"class": type(value).__name__, "shape": list(value.shape)}, \
            {"data": value.data, "indices": value.indices, "indptr": value.indptr}
    if isinstance(value, TermIndex):
        _, extra, arrays = _encode(value.tf)
        return "term_index", {**extra, "vocab": list(value.vocab)}, \
            {**arrays, "vocab_ids": np.fromiter(value.vocab.values(), np.int64, len(value.vocab)),
             "doc_len": value.doc_len}
    if isinstance(value, LiteralIndex):  # fragment -> holding nodes (CSR rows, fragments sorted) and file counts
        frags = sorted(value.files)
        rows = [value.tokens[f] if f in value.tokens else value.phrases[_first_word(f)][f] for f in frags]
        indptr = np.zeros(len(frags) + 1, dtype=np.int64)
        np.cumsum([len(r) for r in rows], out=indptr[1:])
        nodes = np.fromiter((n for r in rows for n in r), np.int64, int(indptr[-1]))
        return "literal_index", {"fragments": frags}, \
            {"indptr": indptr, "nodes": nodes, "files": np.fromiter((value.files[f] for f in frags), np.int64, len(frags))}
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], dict):  # stem map: (vocab, matrix)
        _, extra, arrays = _encode(value[1])
        return "vocab_matrix", {**extra, "vocab": list(value[0])}, \
            {**arrays, "vocab_ids": np.fromiter(value[0].values(), np.int64, len(value[0]))}
    raise TypeError(f"index store: cannot save a {type(value).__name__} (no codec for it)")


def _sparse(extra: dict, arrays: dict[str, np.ndarray]):
    shape = tuple(extra["shape"])
    major = shape[0] if extra["class"].startswith("csr") else shape[1]
    indptr, indices, data = arrays["indptr"], arrays["indices"], arrays["data"]
    if len(indptr) != major + 1 or int(indptr[0]) != 0 or int(indptr[-1]) != len(indices) \
            or len(indices) != len(data) or np.any(np.diff(indptr) < 0):
        raise ValueError(f"inconsistent {extra['class']} structure for shape {shape}")
    minor = shape[1] if major == shape[0] else shape[0]
    if len(indices) and (int(indices.min()) < 0 or int(indices.max()) >= minor):
        raise ValueError(f"{extra['class']} indices out of range [0, {minor})")
    return _SPARSE[extra["class"]]((data, indices, indptr), shape=shape)


def _decode(kind: str, extra: dict, arrays: dict[str, np.ndarray]) -> Any:
    from .text import TermIndex

    if kind == "array":
        return arrays["array"]
    if kind == "sparse":
        return _sparse(extra, arrays)
    if kind == "literal_index":
        return _literal_index(extra["fragments"], arrays)
    vocab = dict(zip(extra["vocab"], arrays["vocab_ids"].tolist()))
    if len(vocab) != len(extra["vocab"]):
        raise ValueError("vocabulary has duplicate terms")
    if kind == "term_index":
        return TermIndex(vocab, _sparse(extra, arrays), arrays["doc_len"])
    if kind == "vocab_matrix":
        return vocab, _sparse(extra, arrays)
    raise ValueError(f"unknown member kind {kind!r}")


def _literal_index(frags: list[str], arrays: dict[str, np.ndarray]):
    from .signals_real.literals import LiteralIndex, first_word

    indptr, nodes, files = arrays["indptr"], arrays["nodes"], arrays["files"]
    if len(indptr) != len(frags) + 1 or len(files) != len(frags) or int(indptr[0]) != 0 \
            or int(indptr[-1]) != len(nodes) or np.any(np.diff(indptr) <= 0) or len(set(frags)) != len(frags):
        raise ValueError("inconsistent literal index (fragments, row pointers, nodes, file counts)")
    phrases: dict[str, dict[str, list[int]]] = {}
    tokens: dict[str, list[int]] = {}
    bounds = indptr.tolist()
    all_nodes = nodes.tolist()
    for i, frag in enumerate(frags):
        held = all_nodes[bounds[i]:bounds[i + 1]]
        if " " in frag:
            phrases.setdefault(first_word(frag), {})[frag] = held
        else:
            tokens[frag] = held
    return LiteralIndex(phrases, tokens, dict(zip(frags, files.tolist())))


def _crc(array: np.ndarray) -> int:
    return zlib.crc32(memoryview(np.ascontiguousarray(array)).cast("B"))


class IndexStore:
    """The saved members of one graph's indexes (see the module docstring)."""

    def __init__(self, root: Path | str, digest: str):
        self.digest = digest
        self.folder = Path(root) / digest[:2] / digest / f"v{INDEX_FORMAT}"

    @staticmethod
    def _entry(name: str, key: Any) -> str:
        return name if key is None else f"{name}@{hashlib.sha1(repr(key).encode()).hexdigest()[:16]}"

    def save(self, name: str, key: Any, value: Any) -> None:
        """Write one member (``key`` is its family key, None for a plain member) atomically; first writer wins."""
        target = self.folder / self._entry(name, key)
        if (target / "meta.json").is_file():
            return
        kind, extra, arrays = _encode(value)
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".tmp-{os.getpid()}-{uuid.uuid4().hex}"
        tmp.mkdir()
        try:
            meta = {"member": name, "key": None if key is None else repr(key), "digest": self.digest,
                    "format": INDEX_FORMAT, "kind": kind, **extra, "arrays": {}}
            for label, array in arrays.items():
                array = np.ascontiguousarray(array)
                with open(tmp / f"{label}.npy", "wb") as fh:
                    np.save(fh, array, allow_pickle=False)
                meta["arrays"][label] = {"shape": list(array.shape), "dtype": array.dtype.str, "crc32": _crc(array)}
            (tmp / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
            os.rename(tmp, target)  # atomic; fails if another writer's member is already in place
        except OSError:
            if not (target / "meta.json").is_file():
                raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def entries(self) -> dict[tuple[str, Any], Path]:
        """Every member's ``(name, key)`` and folder, from its ``meta.json`` only (its arrays are not read yet).

        A member whose ``meta.json`` is unreadable, stale or names another member is reported, moved away
        and left out.
        """
        found: dict[tuple[str, Any], Path] = {}
        if not self.folder.is_dir():
            return found
        touch_last_used(self.folder.parent)
        for entry in sorted(self.folder.iterdir()):
            if entry.name.startswith("."):
                continue
            try:
                name, key = self._identify(self._meta(entry), entry)
            except (OSError, ValueError, KeyError, TypeError, SyntaxError) as exc:
                self._reject(entry, exc)
                continue
            found[(name, key)] = entry
        return found

    def load_entry(self, entry: Path) -> Any | None:
        """The checked value of the member in ``entry``, or None (reported, moved away) if it is unsound."""
        try:
            return self._load_member(entry)[2]
        except (OSError, ValueError, KeyError, TypeError, SyntaxError) as exc:
            self._reject(entry, exc)
            return None

    def load(self) -> dict[tuple[str, Any], Any]:
        """Every sound member as ``{(name, key): value}``; an unsound one is reported, moved away and skipped."""
        loaded = {ident: self.load_entry(entry) for ident, entry in self.entries().items()}
        return {ident: value for ident, value in loaded.items() if value is not None}

    def _reject(self, entry: Path, exc: Exception) -> None:
        warnings.warn(IndexStoreWarning(f"{entry}: {exc}; discarded, the index is rebuilt"), stacklevel=4)
        self._discard(entry)

    @staticmethod
    def _meta(entry: Path) -> dict:
        return json.loads((entry / "meta.json").read_text(encoding="utf-8"))

    def _identify(self, meta: dict, entry: Path) -> tuple[str, Any]:
        if meta.get("format") != INDEX_FORMAT or meta.get("digest") != self.digest:
            raise ValueError(f"stale: format {meta.get('format')!r} digest {meta.get('digest')!r}, expected "
                             f"format {INDEX_FORMAT} digest {self.digest}")
        name = meta["member"]
        key = None if meta["key"] is None else ast.literal_eval(meta["key"])
        if entry.name != self._entry(name, key):
            raise ValueError(f"folder name does not match member {name!r} key {meta['key']!r}")
        return name, key

    def _load_member(self, entry: Path) -> tuple[str, Any, Any]:
        meta = self._meta(entry)
        name, key = self._identify(meta, entry)
        arrays = {}
        for label, spec in meta["arrays"].items():
            # an empty array cannot be memory-mapped
            mode = "r" if np.prod(spec["shape"], dtype=np.int64) else None
            array = np.load(entry / f"{label}.npy", mmap_mode=mode, allow_pickle=False)
            if list(array.shape) != spec["shape"] or array.dtype.str != spec["dtype"]:
                raise ValueError(f"{label}.npy: shape {list(array.shape)} dtype {array.dtype.str}, "
                                 f"expected {spec['shape']} {spec['dtype']}")
            if _crc(array) != spec["crc32"]:
                raise ValueError(f"{label}.npy: CRC-32 mismatch (file corrupted)")
            arrays[label] = np.asarray(array)  # a plain view of the mapping: no memmap subclass on every slice
        return name, key, _decode(meta["kind"], meta, arrays)

    def _discard(self, entry: Path) -> None:
        trash = self.folder / f".bad-{os.getpid()}-{uuid.uuid4().hex}"
        try:
            os.rename(entry, trash)  # out of the way at once, so the rebuilt member can take its place
        except OSError:
            return
        shutil.rmtree(trash, ignore_errors=True)
