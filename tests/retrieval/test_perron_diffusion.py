"""Perron's walk: transition matrix, softmax prior, PPR against a direct solve, specificity."""
from __future__ import annotations

import mmap
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from hypothesis import given, settings, strategies as st

from beacon.graph import CodebaseGraph, EdgeType
from beacon.graph.codebase import csr_from_pairs
from beacon.retrieval.diffusion import (
    DiffusionNotConverged, Prior, global_pagerank, global_rank_for, personalized_pagerank, softmax_prior, specificity,
)
from beacon.retrieval.transition import (
    EdgeWeights, TransitionFileError, build_transition, load_transition, save_transition, transition_for,
)


@st.composite
def graphs(draw, min_nodes=1, max_nodes=24, ring=False):
    n = draw(st.integers(min_nodes, max_nodes))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n))
    if ring:  # every node calls the next one: no dangling rows
        pairs += [(i, (i + 1) % n) for i in range(n)]
    src = np.array([p[0] for p in pairs], dtype=np.int64)
    dst = np.array([p[1] for p in pairs], dtype=np.int64)
    weights = EdgeWeights(call=draw(st.sampled_from([1.0, 0.3])), caller=draw(st.sampled_from([0.0, 0.5, 2.0])))
    return build_transition(n, csr_from_pairs(src, dst, n), weights)


def similarities(n):
    finite = st.floats(-2, 30, allow_nan=False)
    return st.lists(st.one_of(finite, st.just(0.0)), min_size=n, max_size=n).map(np.array)


def direct_solve(t, prior, beta):
    """π (I − β(T + d p0ᵀ)) = (1 − β) p0, solved with a sparse LU factorisation."""
    n = t.n
    p0 = prior.dense()
    d = t.dangling.astype(np.float64)
    g = t.matrix + sp.csr_matrix(np.outer(d, p0))
    a = (sp.identity(n, format="csc") - beta * g.T).tocsc()
    return spla.spsolve(a, (1 - beta) * p0)


@settings(max_examples=60, deadline=None)
@given(graphs(), st.data(), st.sampled_from([0.5, 0.85, 0.95]))
def test_ppr_matches_a_direct_sparse_solve_and_sums_to_one(t, data, beta):
    prior = softmax_prior(data.draw(similarities(t.n)), top_k=data.draw(st.integers(1, 8)))
    result = personalized_pagerank(t, prior, beta=beta, tol=1e-13, max_iter=5000)
    assert result.converged and result.dropped == 0.0
    assert np.abs(result.pi - direct_solve(t, prior, beta)).sum() <= 1e-8
    assert abs(result.pi.sum() - 1.0) <= 1e-12 and (result.pi >= 0).all()


@settings(max_examples=40, deadline=None)
@given(graphs(min_nodes=2, ring=True))
def test_uniform_prior_without_dangling_rows_is_global_pagerank(t):
    assert not t.dangling.any()
    fallback = softmax_prior(np.zeros(t.n))  # all-zero similarities: the uniform fallback
    assert fallback.fallback and np.allclose(fallback.weights, 1 / t.n)
    query = personalized_pagerank(t, fallback, tol=1e-13, max_iter=5000)
    glob = global_pagerank(t, tol=1e-13, max_iter=5000)
    assert np.abs(query.pi - glob.pi).sum() <= 1e-10
    assert query.prior_fallback == fallback.fallback


@settings(max_examples=40, deadline=None)
@given(graphs(min_nodes=3), st.data())
def test_pruned_iteration_stays_within_its_reported_error_bound(t, data):
    prior = softmax_prior(data.draw(similarities(t.n)), top_k=3)
    exact = personalized_pagerank(t, prior, tol=1e-13, max_iter=5000)
    pruned = personalized_pagerank(t, prior, tol=1e-6, prune=1e-3)
    # renormalising after pruning at most doubles the raw L1 error
    assert np.abs(pruned.pi - exact.pi).sum() <= 2 * pruned.error_bound(0.85) + 1e-12


@settings(max_examples=60, deadline=None)
@given(graphs(min_nodes=2), st.data())
def test_damping_never_raises_a_hub_above_a_non_hub_with_equal_pi_query(t, data):
    pi_global = global_pagerank(t, tol=1e-12).pi
    pi_query = np.array(data.draw(st.lists(st.floats(1e-9, 1.0), min_size=t.n, max_size=t.n)))
    hub = int(np.argmax(pi_global))
    other = data.draw(st.integers(0, t.n - 1).filter(lambda v: v != hub))
    pi_query[hub] = pi_query[other]
    gamma = data.draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]))
    spec = specificity(pi_query, pi_global, gamma=gamma)
    assert spec[hub] <= spec[other]
    if pi_global[hub] > pi_global[other] and gamma > 0:
        order = list(np.lexsort((np.arange(t.n), -spec)))
        assert order.index(hub) > order.index(other)


def test_softmax_prior_formula_in_float64():
    s = np.array([0.0, 0.9, 0.5, 1.0, -1.0])
    prior = softmax_prior(s, top_k=2, temperature=0.05, normalize=False)
    assert prior.nodes.tolist() == [1, 3] and prior.fallback is None
    z = np.exp(np.array([0.9, 1.0]) / 0.05 - 1.0 / 0.05)
    assert np.allclose(prior.weights, z / z.sum(), rtol=0, atol=1e-15)
    assert prior.weights.dtype == np.float64


def test_softmax_prior_is_stable_for_huge_scores_and_handles_nan_and_inf():
    huge = softmax_prior(np.array([1e308, 5e307, np.nan, -np.inf]), normalize=False, temperature=1e-3)
    assert np.isfinite(huge.weights).all() and huge.nodes.tolist() == [0] and huge.weights[0] == 1.0
    inf = softmax_prior(np.array([3.0, np.inf, np.inf, np.nan]))
    assert inf.nodes.tolist() == [1, 2] and inf.weights.tolist() == [0.5, 0.5]
    dead = softmax_prior(np.array([np.nan, -np.inf, 0.0]))
    assert dead.fallback and dead.nodes.tolist() == [0, 1, 2]


def test_softmax_prior_merges_duplicate_nodes_and_breaks_ties_by_node():
    prior = softmax_prior(np.array([0.2, 1.0, 0.7]), nodes=np.array([4, 2, 4]), n=6, top_k=5)
    assert prior.nodes.tolist() == [2, 4]  # node 4 keeps its best score, 0.7
    tied = softmax_prior(np.array([1.0, 1.0, 1.0, 1.0]), top_k=2)
    assert tied.nodes.tolist() == [0, 1] and tied.weights.tolist() == [0.5, 0.5]
    with pytest.raises(ValueError, match="temperature"):
        softmax_prior(np.ones(3), temperature=0.0)


def test_non_convergence_warns_and_is_reported():
    n = 40
    ring = build_transition(n, csr_from_pairs(np.arange(n), (np.arange(n) + 1) % n, n), EdgeWeights(1.0, 0.0))
    prior = Prior(n, np.array([0]), np.array([1.0]))
    with pytest.warns(DiffusionNotConverged, match="did not converge"):
        result = personalized_pagerank(ring, prior, tol=1e-12, max_iter=3)
    assert not result.converged and result.iterations == 3 and result.residual > 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert personalized_pagerank(ring, prior, tol=1e-10, max_iter=1000).converged


def test_transition_rows_are_stochastic_and_dangling_rows_are_empty():
    n = 4  # 0 -> 1, 0 -> 2, 1 -> 2; node 3 is isolated
    t = build_transition(n, csr_from_pairs(np.array([0, 0, 1, 2]), np.array([1, 2, 2, 2]), n), EdgeWeights(1.0, 0.5))
    dense = t.matrix.toarray()
    assert t.dangling.tolist() == [False, False, False, True]
    assert np.allclose(dense[:3].sum(axis=1), 1.0) and dense[3].sum() == 0 and np.diag(dense).sum() == 0
    # row 1: calls 2 (λ_call = 1), is called by 0 (λ_caller = 0.5)
    assert np.allclose(dense[1], [0.5 / 1.5, 0, 1 / 1.5, 0])


def _maps_a_file(array) -> bool:
    while array is not None:
        if isinstance(array, (np.memmap, mmap.mmap)):
            return True
        array = getattr(array, "base", None)
    return False


def test_saved_transition_loads_memory_mapped_without_copies(tmp_path):
    rng = np.random.default_rng(3)
    n = 300
    t = build_transition(n, csr_from_pairs(rng.integers(0, n, 2000), rng.integers(0, n, 2000), n))
    save_transition(t, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.npy", "data.npy", "indices.npy", "indptr.npy"]
    loaded = load_transition(tmp_path)
    m = loaded.matrix
    for name, part in (("data", m.data), ("indices", m.indices), ("indptr", m.indptr)):
        on_disk = np.load(tmp_path / f"{name}.npy", mmap_mode="r")
        assert _maps_a_file(part) and not part.flags.writeable, name
        assert np.array_equal(part, on_disk)
    assert isinstance(loaded.dangling, np.memmap)
    prior = softmax_prior(rng.random(n), top_k=10)
    a = personalized_pagerank(t, prior, tol=1e-12, max_iter=1000)
    b = personalized_pagerank(loaded, prior, tol=1e-12, max_iter=1000)
    assert np.array_equal(a.pi, b.pi)


def test_load_names_missing_or_mismatched_files(tmp_path):
    with pytest.raises(TransitionFileError, match="data.npy: missing"):
        load_transition(tmp_path)
    t = build_transition(3, csr_from_pairs(np.array([0]), np.array([1]), 3))
    save_transition(t, tmp_path)
    np.save(tmp_path / "indptr.npy", np.asarray(t.matrix.indptr, dtype=np.int64))
    with pytest.raises(TransitionFileError, match="inconsistent"):
        load_transition(tmp_path)


def test_graph_transition_and_global_rank_are_cached_per_parameters(tmp_path):
    (tmp_path / "m.py").write_text("def a():\n    b()\n\n\ndef b():\n    c()\n\n\ndef c():\n    return 1\n")
    graph = CodebaseGraph.from_repo(tmp_path)
    t = transition_for(graph)
    assert transition_for(graph) is t and transition_for(graph, EdgeWeights(caller=0.0)) is not t
    g = global_rank_for(graph)
    assert global_rank_for(graph) is g and g.converged and abs(g.pi.sum() - 1) < 1e-12
    a, b = graph.index["m.py::a"], graph.index["m.py::b"]
    assert t.matrix[a, b] > 0 and t.matrix[b, a] > 0  # call and caller directions
    assert len(graph.edges[EdgeType.CALLS][1]) == 2
