"""Parse file contents once: a content-addressed disk cache and a process pool for cold builds.

Each parse is keyed by the SHA-256 of the file's bytes and stored under
``<cache_dir>/parse-v<PARSER_VERSION>/<sha[:2]>/<sha>.pkl`` (a ``FileParse``,
or the skip reason when the file cannot be indexed). Entries are written to a
temporary name and renamed, so concurrent builders never read half a file; a
corrupt entry is recomputed and overwritten.

A cold build with much uncached source parses in a process pool (``workers``,
default: the CPUs this process may use). Workers return each parse pickled,
which is also the disk-cache format, so the pool adds one ``pickle.loads`` per
file (about 4% of the parse time on sympy). The result is identical to a
serial parse.
"""
from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from .parse import PARSER_VERSION, FileParse, ParseFailure, parse_source

# Below this much source to parse, starting worker processes costs more than
# it saves (sequential parsing runs at roughly 3 MB/s).
POOL_MIN_BYTES = 2 << 20

Outcome = FileParse | str  # a parse, or the reason the file is skipped


def default_workers() -> int:
    """The number of CPUs this process may run on (the default pool size)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not available on macOS and Windows
        return os.cpu_count() or 1


def parse_outcome(data: bytes) -> Outcome:
    try:
        return parse_source(data)
    except ParseFailure as exc:
        return str(exc)


def _parse_pickled(data: bytes) -> bytes:
    """Worker side of the pool: the parse, pickled as it is stored in the disk cache."""
    return pickle.dumps(parse_outcome(data), protocol=pickle.HIGHEST_PROTOCOL)


class ParseStore:
    """Parses by content hash: the disk cache (when ``cache_dir`` is set) and the pool."""

    def __init__(self, cache_dir: Path | str | None, workers: int | None = None):
        self.cache_dir = Path(cache_dir) / f"parse-v{PARSER_VERSION}" if cache_dir else None
        self.workers = default_workers() if workers is None else workers
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1:
            raise ValueError(f"workers must be a positive integer or None, got {workers!r}")

    def _path(self, sha: str) -> Path:
        return self.cache_dir / sha[:2] / f"{sha}.pkl"

    def load(self, sha: str) -> Outcome | None:
        """The cached outcome for ``sha``, or None if there is none (or it is unreadable)."""
        if self.cache_dir is None:
            return None
        try:
            with open(self._path(sha), "rb") as fh:
                return pickle.load(fh)
        except FileNotFoundError:
            return None
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
            return None  # a corrupt cache entry is recomputed and overwritten

    def _store(self, sha: str, blob: bytes) -> None:
        if self.cache_dir is None:
            return
        cached = self._path(sha)
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

    def parse_all(self, todo: dict[str, bytes]) -> dict[str, Outcome]:
        """Parse the contents in ``todo`` (sha -> bytes), storing each in the disk cache."""
        if not self._use_pool(todo):
            out = {}
            for sha, data in todo.items():
                outcome = out[sha] = parse_outcome(data)
                if self.cache_dir is not None:
                    self._store(sha, pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL))
            return out
        # Largest files first, so that no worker is left with a big file at the end.
        shas = sorted(todo, key=lambda s: len(todo[s]), reverse=True)
        # At most one worker per MiB of source: starting a process costs ~10-300 ms.
        total = sum(map(len, todo.values()))
        workers = min(self.workers, len(shas), max(2, total >> 20))
        chunk = max(1, len(shas) // (workers * 16))
        out = {}
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(),
                                 initializer=gc.disable) as pool:
            blobs = pool.map(_parse_pickled, [todo[s] for s in shas], chunksize=chunk)
            for sha, blob in zip(shas, blobs):
                self._store(sha, blob)
                out[sha] = pickle.loads(blob)
        return out
