"""The push solver's threaded mat-vec (``rowsplit``): the same bytes as one thread, and the ``threads: auto`` rule."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from beacon.graph.codebase import csr_from_pairs
from beacon.retrieval.diffusion import global_pagerank, softmax_prior
from beacon.retrieval.push import warm_pagerank
from beacon.retrieval.rowsplit import RowSplit, auto_threads, resolve_threads
from beacon.retrieval.transition import EdgeWeights, build_transition


def _power_law_transition(n: int, seed: int):
    rng = np.random.default_rng(seed)

    def weights(alpha):
        w = np.arange(1, n + 1, dtype=np.float64) ** (-1.0 / (alpha - 1.0))
        return (w / w.sum())[rng.permutation(n)]

    src, dst = rng.choice(n, 10 * n, p=weights(2.5)), rng.choice(n, 10 * n, p=weights(2.1))
    keep = src != dst
    return build_transition(n, csr_from_pairs(src[keep], dst[keep], n), EdgeWeights()), rng


def test_the_threaded_mat_vec_and_solve_are_byte_identical_to_one_thread():
    t, rng = _power_law_transition(20_000, 11)
    m = t.walk32.matrix  # the float32 Tᵀ the push solver multiplies by, hubs and all
    x = rng.random(t.n).astype(np.float32)
    one = (m @ x).tobytes()
    for threads, chunks in ((1, None), (2, None), (2, 2), (3, 7), (5, None)):
        split = RowSplit(m, threads, chunks)
        assert len(split.blocks) == (1 if threads == 1 else chunks or 4 * threads)
        assert split.blocks[0][0] == 0 and split.blocks[-1][1] == t.n
        assert split(x).tobytes() == one, threads
    sizes = [m.indptr[b] - m.indptr[a] for a, b in RowSplit(m, 2).blocks]
    assert max(sizes) - min(sizes) <= m.getnnz(axis=1).max()  # balanced by stored entries, not rows
    glob = global_pagerank(t)
    sim = np.zeros(t.n)
    sim[rng.choice(t.n, 200, replace=False)] = rng.gamma(2.0, 2.0, 200)
    prior = softmax_prior(sim)
    runs = [warm_pagerank(t, prior, glob.pi, eps=1e-5, tol=1e-2, global_step=t.transposed @ glob.pi,
                          precision="float32", threads=k) for k in (1, 2)]
    assert runs[0].iterations >= 2  # the threaded mat-vecs were used
    assert runs[0].pi.tobytes() == runs[1].pi.tobytes()
    assert (runs[0].iterations, runs[0].residual, runs[0].dropped) == (runs[1].iterations, runs[1].residual,
                                                                       runs[1].dropped)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.integers(1, 60), st.floats(0.0, 0.5), st.integers(1, 4), st.integers(1, 12),
       st.integers(0, 2**31))
def test_row_split_equals_the_one_thread_product_on_any_csr_matrix(rows, cols, density, threads, chunks, seed):
    rng = np.random.default_rng(seed)
    m = sp.random(rows, cols, density=density, format="csr", dtype=np.float32, random_state=rng)  # empty rows too
    x = rng.standard_normal(cols).astype(np.float32)
    split = RowSplit(m, threads, chunks)
    assert [a for a, _ in split.blocks[1:]] == [b for _, b in split.blocks[:-1]]  # contiguous, non-empty cover
    assert split(x).tobytes() == (m @ x).tobytes()


@pytest.mark.parametrize("environ, cores, expected", [
    ({}, 2, 2),  # a run of its own on a 2-core machine
    ({}, 16, 2),  # more cores: a third thread gains little
    ({}, 1, 1),  # pinned to one core (taskset, a one-CPU SLURM job)
    ({"OMP_NUM_THREADS": "1"}, 2, 1),  # joblib's loky worker (Hydra's local launcher, n_jobs=2 on 2 cores), Ray
    ({"OMP_NUM_THREADS": "8"}, 16, 2),
    ({"OMP_NUM_THREADS": "junk"}, 2, 2),  # not a count: ignored
    ({"SUBMITIT_EXECUTOR": "local"}, 2, 1),  # submitit's local executor: sibling jobs on the same machine
    ({"SUBMITIT_EXECUTOR": "slurm"}, 4, 2),  # a SLURM job owns the CPUs its affinity mask lists
])
def test_auto_threads_does_not_oversubscribe_a_sweep(environ, cores, expected):
    assert auto_threads(environ, cores) == expected


def test_threads_options_are_checked():
    from beacon.retrieval import get_method

    assert resolve_threads(3) == 3 and resolve_threads("auto") in (1, 2)
    for bad in (0, -1, "two", 1.5, True):
        with pytest.raises(ValueError, match="threads"):
            resolve_threads(bad)
    assert get_method("perron_push").threads == "auto" and get_method("ppr_push").threads == "auto"
    with pytest.raises(ValueError, match="threads"):
        get_method("perron_push", threads=0)
    with pytest.raises(ValueError, match="float32"):
        RowSplit(sp.eye(4, format="csr", dtype=np.float32), 2)(np.ones(4))  # float64 x: cast once, not per step
    with pytest.raises(ValueError, match="CSR"):
        RowSplit(sp.csc_matrix((3, 3), dtype=np.float32), 2)
