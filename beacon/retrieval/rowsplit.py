"""A CSR mat-vec split into row blocks on a persistent thread pool: the same bytes as ``matrix @ x``, on two cores.

scipy's ``csr_matvec`` releases the GIL, and each output entry is one row's
dot product summed in the same order whichever rows run beside it, so
``RowSplit`` (the rows cut into blocks of about equal stored entries,
claimed in turn by the calling thread and the threads of a pool kept for the
process) returns ``matrix @ x`` byte for byte: the ``push`` solver's records
do not depend on ``threads``. On the 100k-node benchmark graph (1.9M float32
entries) two threads take ~0.6× one thread's time (issue 17).

``threads`` is a solver option (``Perron.threads``, the ``perron_push`` /
``ppr_push`` recipes): a positive integer, or ``"auto"`` (``auto_threads``),
the default, which must not oversubscribe a sweep that already runs jobs side
by side on the cores.
"""
from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp
from scipy.sparse._sparsetools import csr_matvec

MAX_AUTO_THREADS = 2  # measured: a third thread on a 1.9M-entry mat-vec gains little (memory bandwidth)


def auto_threads(environ: Mapping[str, str] | None = None, cores: int | None = None) -> int:
    """``threads: auto``: 1 inside a job with sibling jobs on the same cores, else ``min(2, cores)``.

    * ``SUBMITIT_EXECUTOR=local``: submitit's local executor runs the sweep's
      jobs side by side on this machine, each unaware of the others: 1.
    * ``OMP_NUM_THREADS``: the thread share a launcher gave the job (joblib's
      loky workers, i.e. Hydra's ``local`` launcher, get ``cores // n_jobs``;
      Ray workers get their task's ``num_cpus``; a user may set it): at most that.
    * ``cores`` (default ``len(os.sched_getaffinity(0))``, which SLURM's
      cgroups and ``taskset`` restrict to the job's CPUs): at most that.
    """
    env = os.environ if environ is None else environ
    if cores is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if env.get("SUBMITIT_EXECUTOR") == "local":
        return 1
    cap = MAX_AUTO_THREADS
    omp = env.get("OMP_NUM_THREADS", "").strip()
    if omp.isdigit() and int(omp) >= 1:
        cap = min(cap, int(omp))
    return max(1, min(cap, cores))


def resolve_threads(setting: int | str) -> int:
    """A ``threads`` option as a count: a positive integer as given, ``"auto"`` by ``auto_threads``."""
    if setting == "auto":
        return auto_threads()
    if isinstance(setting, bool) or not isinstance(setting, int) or setting < 1:
        raise ValueError(f"threads must be a positive integer or 'auto', got {setting!r}")
    return setting


_POOLS: dict[tuple[int, int], ThreadPoolExecutor] = {}  # (pid, workers) -> pool; a forked child starts its own
_POOLS_LOCK = threading.Lock()


def pool(workers: int) -> ThreadPoolExecutor:
    """The process's pool of ``workers`` threads, started on first use and kept (threads start once)."""
    key = (os.getpid(), workers)
    with _POOLS_LOCK:
        found = _POOLS.get(key)
        if found is None:
            found = _POOLS[key] = ThreadPoolExecutor(workers, thread_name_prefix="beacon-matvec")
            # Start all the threads now (they inherit this thread's CPU affinity): each task waits at a barrier
            # for the others, so no thread can take two of them.
            barrier = threading.Barrier(workers)
            for f in [found.submit(barrier.wait, 10) for _ in range(workers)]:
                f.result()
    return found


class RowSplit:
    """``matrix @ x`` for a CSR ``matrix``: its rows in ``chunks`` blocks of about equal stored entries, claimed in
    turn by the calling thread and ``threads − 1`` pool threads.

    Claimed, not dealt: a pool thread that waits for a core (others' jobs on a
    shared machine) leaves its blocks to the calling thread, so a busy second
    core costs little more than one thread would (``chunks = 4·threads``).
    """

    def __init__(self, matrix: sp.csr_matrix, threads: int = 1, chunks: int | None = None) -> None:
        if matrix.format != "csr" or threads < 1:
            raise ValueError(f"RowSplit needs a CSR matrix and threads >= 1, got {matrix.format!r}, {threads!r}")
        self.matrix = matrix
        self.threads = threads
        indptr = np.asarray(matrix.indptr)
        pieces = 1 if threads == 1 else (chunks or 4 * threads)
        targets = np.linspace(0, int(indptr[-1]), pieces + 1)[1:-1]
        cuts = np.searchsorted(indptr, targets).tolist()
        bounds = sorted({0, matrix.shape[0], *cuts})
        self.blocks = list(zip(bounds[:-1], bounds[1:]))  # [start, stop) row ranges, in order
        self._pool = pool(threads - 1) if threads > 1 and len(self.blocks) > 1 else None

    def _claim(self, x: np.ndarray, out: np.ndarray, claims: itertools.count) -> None:
        """Multiply the blocks this thread claims (``next`` on a shared counter is atomic under the GIL)."""
        m = self.matrix
        for i in claims:
            if i >= len(self.blocks):
                return
            start, stop = self.blocks[i]
            part = out[start:stop]
            part.fill(0)  # csr_matvec adds into its output; `matrix @ x` starts from zeros too
            csr_matvec(stop - start, m.shape[1], m.indptr[start:stop + 1], m.indices, m.data, x, part)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        if self._pool is None:
            return self.matrix @ x
        if x.dtype != self.matrix.dtype or x.shape != (self.matrix.shape[1],):
            raise ValueError(f"RowSplit: x must be {self.matrix.dtype}[{self.matrix.shape[1]}], got {x.dtype}{x.shape}")
        x = np.ascontiguousarray(x)
        out = np.empty(self.matrix.shape[0], dtype=x.dtype)
        claims = itertools.count()
        helpers = [self._pool.submit(self._claim, x, out, claims) for _ in range(self.threads - 1)]
        self._claim(x, out, claims)
        for f in helpers:
            f.result()  # a helper may still be inside its last block
        return out
