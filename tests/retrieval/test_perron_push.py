"""Forward push and the push-warm-started iteration: the error bounds they state, against a direct solve."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from hypothesis import given, settings, strategies as st

from beacon.graph.codebase import csr_from_pairs
from beacon.retrieval.diffusion import DiffusionNotConverged, Prior, global_pagerank, softmax_prior
from beacon.retrieval.anderson import _walk_step, anderson_pagerank
from beacon.retrieval.push import push_pagerank, warm_pagerank
from beacon.retrieval.transition import EdgeWeights, build_transition

EPS = st.sampled_from([1e-2, 1e-3, 1e-4, 1e-6])
BETA = st.sampled_from([0.5, 0.85, 0.95])


@st.composite
def directed(draw, max_nodes=24):
    """Any call graph: dangling rows, self-calls, caller weights unlike call weights."""
    n = draw(st.integers(1, max_nodes))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n))
    src = np.array([p[0] for p in pairs], dtype=np.int64)
    dst = np.array([p[1] for p in pairs], dtype=np.int64)
    weights = EdgeWeights(call=draw(st.sampled_from([1.0, 0.3])), caller=draw(st.sampled_from([0.0, 0.5, 2.0])))
    return build_transition(n, csr_from_pairs(src, dst, n), weights)


@st.composite
def undirected(draw, max_nodes=24):
    """A symmetric 0/1 adjacency with a ring through every node (no dangling rows): T is the simple walk."""
    n = draw(st.integers(2, max_nodes))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    pairs += [(i, (i + 1) % n) for i in range(n)]
    src = np.array([a for a, b in pairs] + [b for a, b in pairs], dtype=np.int64)
    dst = np.array([b for a, b in pairs] + [a for a, b in pairs], dtype=np.int64)
    return build_transition(n, csr_from_pairs(src, dst, n), EdgeWeights(call=1.0, caller=0.0))


def direct_solve(t, prior, beta):
    """π (I − β(T + d p0ᵀ)) = (1 − β) p0, solved with a sparse LU factorisation."""
    p0 = prior.dense()
    g = t.matrix + sp.csr_matrix(np.outer(t.dangling.astype(np.float64), p0))
    a = (sp.identity(t.n, format="csc") - beta * g.T).tocsc()
    return np.atleast_1d(spla.spsolve(a, (1 - beta) * p0))


def a_prior(data, n):
    sims = data.draw(st.lists(st.floats(0, 30, allow_nan=False), min_size=n, max_size=n))
    return softmax_prior(np.array(sims), top_k=data.draw(st.integers(1, 8)))


@settings(max_examples=80, deadline=None)
@given(directed(), st.data(), EPS, BETA)
def test_push_bounds_hold_on_any_graph(t, data, eps, beta):
    prior = a_prior(data, t.n)
    exact = direct_solve(t, prior, beta)
    result = push_pagerank(t, prior, beta=beta, eps=eps)
    err = exact - result.pi
    assert result.converged and result.method == "push"
    assert (err >= -1e-12).all()  # p never overestimates
    assert abs(err.sum() - result.residual) <= 1e-9  # ‖π − p‖₁ = ‖r‖₁ exactly
    assert result.error_bound(beta) == result.residual
    assert result.residual < eps * t.push_degree.sum() + 1e-15
    per_node = (1 - beta) * eps * t.push_degree + beta * result.residual
    assert (err <= per_node + 1e-12).all()
    assert result.touched >= len(prior.nodes) and result.pushes >= result.iterations


@settings(max_examples=80, deadline=None)
@given(undirected(), st.data(), EPS, BETA)
def test_push_keeps_the_acl_per_node_bound_on_undirected_walks(t, data, eps, beta):
    assert not t.dangling.any()
    prior = a_prior(data, t.n)
    result = push_pagerank(t, prior, beta=beta, eps=eps)
    err = direct_solve(t, prior, beta) - result.pi
    assert (err >= -1e-12).all()
    assert (err < eps * t.push_degree + 1e-12).all()  # π(v) − p(v) < eps·deg(v)


@settings(max_examples=60, deadline=None)
@given(directed(), st.data(), BETA, st.sampled_from([1e-3, 1e-6, 1e-10]), st.sampled_from([0, 1, 3]))
def test_warm_started_iteration_is_within_the_power_iterations_bound(t, data, beta, tol, depth):
    prior = a_prior(data, t.n)
    glob = global_pagerank(t, beta=beta).pi
    result = warm_pagerank(t, prior, glob, beta=beta, eps=1e-3, tol=tol, max_iter=5000, depth=depth)
    exact = direct_solve(t, prior, beta)
    assert result.converged and result.method == ("push+power" if depth == 0 else "push+anderson")
    # β·tol/(1 − β) bounds the raw iterate; the final clip/renormalisation at most doubles it
    assert np.abs(result.pi - exact).sum() <= 2 * result.error_bound(beta) + 1e-9
    assert abs(result.pi.sum() - 1.0) <= 1e-12 and (result.pi >= 0).all()


@settings(max_examples=60, deadline=None)
@given(directed(), st.data(), BETA, st.integers(1, 5))
def test_anderson_bound_holds_from_any_start(t, data, beta, depth):
    """``‖f(x_k) − π*‖₁ ≤ β·‖g_k‖₁/(1 − β)`` whatever the start and the extrapolation did."""
    prior = a_prior(data, t.n)
    raw = np.array(data.draw(st.lists(st.floats(0, 1, allow_nan=False), min_size=t.n, max_size=t.n))) + 1e-9
    result = anderson_pagerank(t, prior, raw / raw.sum(), beta=beta, tol=1e-8, max_iter=5000, depth=depth)
    exact = direct_solve(t, prior, beta)
    assert result.converged and result.method == "anderson"
    assert np.abs(result.pi - exact).sum() <= 2 * result.error_bound(beta) + 1e-9
    assert abs(result.pi.sum() - 1.0) <= 1e-12 and (result.pi >= 0).all()


def test_anderson_needs_fewer_mat_vecs_on_a_power_law_call_graph():
    rng = np.random.default_rng(7)
    n = 5000
    t = _power_law_walk(n, 10, rng)
    glob = global_pagerank(t).pi
    sim = np.zeros(n)
    sim[rng.choice(n, 200, replace=False)] = rng.gamma(2.0, 2.0, 200)
    prior = softmax_prior(sim)
    exact = direct_solve(t, prior, 0.85)
    plain = warm_pagerank(t, prior, glob, eps=1e-5, tol=1e-6, depth=0)
    fast = warm_pagerank(t, prior, glob, eps=1e-5, tol=1e-6, depth=3)
    assert fast.iterations < plain.iterations
    for walk in (plain, fast):
        assert np.abs(walk.pi - exact).sum() <= 2 * walk.error_bound(0.85)
    with pytest.warns(DiffusionNotConverged, match="did not converge"):
        capped = anderson_pagerank(t, prior, prior.dense(), tol=1e-12, max_iter=2)
    assert not capped.converged and capped.iterations == 2
    with pytest.raises(ValueError, match="depth"):
        anderson_pagerank(t, prior, prior.dense(), depth=-1)


def _power_law(n, alpha, rng):
    w = np.arange(1, n + 1, dtype=np.float64) ** (-1.0 / (alpha - 1.0))
    return (w / w.sum())[rng.permutation(n)]


def _power_law_walk(n, calls_per_node, rng):
    """The walk of a Chung–Lu call graph like the benchmark's: callers ∝ rank^-2/3, callees ∝ rank^-10/11."""
    src = rng.choice(n, calls_per_node * n, p=_power_law(n, 2.5, rng))
    dst = rng.choice(n, calls_per_node * n, p=_power_law(n, 2.1, rng))
    keep = src != dst
    return build_transition(n, csr_from_pairs(src[keep], dst[keep], n), EdgeWeights())


def test_push_is_local_and_warns_when_capped():
    n = 2000  # a long path: mass from node 0 cannot get far before it falls below eps·deg
    path = build_transition(n, csr_from_pairs(np.arange(n - 1), np.arange(1, n), n), EdgeWeights(1.0, 1.0))
    prior = Prior(n, np.array([0]), np.array([1.0]))
    result = push_pagerank(path, prior, eps=1e-4)
    assert result.converged and result.touched < 100  # whatever n is
    # ACL's work bound: Σ deg(u) over pushes ≤ 1/((1 − β)·eps); every node here has degree ≤ 2
    assert result.pushes <= 1 / ((1 - 0.85) * 1e-4)
    with pytest.warns(DiffusionNotConverged, match="did not converge"):
        capped = push_pagerank(path, prior, eps=1e-12, max_rounds=3)
    assert not capped.converged and capped.iterations == 3
    with pytest.raises(ValueError, match="eps"):
        push_pagerank(path, prior, eps=0.0)


def test_perron_with_the_warm_solver_ranks_like_the_power_iteration(tmp_path):
    from beacon.graph import CodebaseGraph
    from beacon.retrieval import get_method

    src = "".join(f"def f{i}(x):\n    return f{i + 1}(x) + {i}\n\n\n" for i in range(30)) + "def f30(x):\n    return x\n"
    (tmp_path / "chain.py").write_text(src)
    (tmp_path / "util.py").write_text("from chain import f3, f17\n\n\ndef helper():\n    return f3(1) + f17(2)\n")
    graph = CodebaseGraph.from_repo(tmp_path)
    query = "helper returns the wrong sum of f3 and f17"
    for name in ("perron", "ppr"):
        power = get_method(name, tol=1e-12, max_iter=5000).retrieve(graph, query, 600)
        warm = get_method(name, solver="push", push_eps=1e-4, tol=1e-12, max_iter=5000).retrieve(graph, query, 600)
        assert [s for s, _ in warm.ranking] == [s for s, _ in power.ranking]
        assert warm.context.render() == power.context.render()
    with pytest.raises(ValueError, match="solver"):
        get_method("perron", solver="lanczos")
    with pytest.raises(ValueError, match="prune"):
        get_method("perron", solver="push", prune=1e-3)


@settings(max_examples=60, deadline=None)
@given(directed(), st.data(), EPS, BETA)
def test_the_free_first_step_is_the_walk_step(t, data, eps, beta):
    """Push keeps ``(1 − β)·r = (1 − β)·p0 + β·p·G − p``, so ``f(p) = p + (1 − β)·r`` needs no mat-vec."""
    from beacon.retrieval.push import _forward_push

    prior = a_prior(data, t.n)
    p, r, rounds, pushes, converged = _forward_push(t, prior, beta, eps, 10_000)
    assert converged and pushes >= rounds
    np.testing.assert_allclose(p + (1 - beta) * r, _walk_step(t, p, prior, beta), rtol=0, atol=1e-12)
    glob = global_pagerank(t, beta=beta).pi
    with_step = warm_pagerank(t, prior, glob, beta=beta, eps=eps, tol=1e-9, max_iter=5000,
                              global_step=t.transposed @ glob)
    assert with_step.rounds <= rounds and with_step.pushes <= pushes  # its push stops early on big frontiers
    assert np.abs(with_step.pi - direct_solve(t, prior, beta)).sum() <= 2 * with_step.error_bound(beta) + 1e-9


@pytest.mark.parametrize("eps", [1e-3, 1e-5])
def test_the_push_tests_a_small_frontiers_targets_as_it_would_test_every_node(eps, monkeypatch):
    """A round tests either all n nodes or only the ones that received mass: the same active set, the same bytes."""
    from beacon.retrieval import push

    rng = np.random.default_rng(11)
    n = 4000
    t = _power_law_walk(n, 6, rng)
    sim = np.zeros(n)
    sim[rng.choice(n, 60, replace=False)] = rng.gamma(2.0, 2.0, 60)
    sim[t.dangling_nodes[:5]] = 10.0  # seeds whose pushes teleport back to the prior
    prior = softmax_prior(sim)
    runs = []
    for fraction in (0.0, np.inf):  # every round tests all nodes / only its targets
        monkeypatch.setattr(push, "_DENSE_FRACTION", fraction)
        runs.append(push._forward_push(t, prior, 0.85, eps, 10_000))
    (p, r, rounds, pushes, converged), other = runs
    assert converged and rounds > 3
    assert p.tobytes() == other[0].tobytes() and r.tobytes() == other[1].tobytes()
    assert (rounds, pushes) == other[2:4]
    assert (r < eps * t.push_degree).all()


@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_the_push_solver_is_deterministic_byte_for_byte(precision):
    rng = np.random.default_rng(3)
    n = 3000
    src, dst = rng.integers(0, n, 8 * n), rng.integers(0, n, 8 * n)
    keep = src != dst
    sim = np.zeros(n)
    sim[rng.choice(n, 100, replace=False)] = rng.gamma(2.0, 2.0, 100)
    runs = []
    for _ in range(2):  # everything rebuilt from the same input
        t = build_transition(n, csr_from_pairs(src[keep], dst[keep], n), EdgeWeights())
        glob = global_pagerank(t).pi
        runs.append(warm_pagerank(t, softmax_prior(sim), glob, eps=1e-5, tol=1e-2, global_step=t.transposed @ glob,
                                  precision=precision))
    assert runs[0].pi.tobytes() == runs[1].pi.tobytes()
    assert (runs[0].iterations, runs[0].pushes, runs[0].rounds, runs[0].touched) == (
        runs[1].iterations, runs[1].pushes, runs[1].rounds, runs[1].touched)


@pytest.mark.parametrize("beta", [0.5, 0.85])
def test_a_graph_of_dangling_nodes_keeps_the_prior(beta):
    """No edges: every step teleports back to p0, so π = p0 (push converges geometrically to it)."""
    n = 40
    t = build_transition(n, csr_from_pairs(np.array([], dtype=np.int64), np.array([], dtype=np.int64), n))
    assert t.dangling.all()
    prior = Prior(n, np.array([3, 17]), np.array([0.25, 0.75]))
    pushed = push_pagerank(t, prior, beta=beta, eps=1e-9)
    assert pushed.converged and np.abs(pushed.pi - prior.dense()).sum() == pytest.approx(pushed.residual, abs=1e-12)
    warm = warm_pagerank(t, prior, global_pagerank(t, beta=beta).pi, beta=beta, eps=1e-3, tol=1e-10)
    np.testing.assert_allclose(warm.pi, prior.dense(), rtol=0, atol=1e-9)


def test_an_empty_seed_is_refused_and_no_similarity_falls_back_to_uniform():
    n = 30
    t = build_transition(n, csr_from_pairs(np.arange(n - 1), np.arange(1, n), n))
    empty = Prior(n, np.array([], dtype=np.int64), np.array([]))
    with pytest.raises(ValueError, match="empty seed"):
        push_pagerank(t, empty)
    with pytest.raises(ValueError, match="empty seed"):
        warm_pagerank(t, empty, global_pagerank(t).pi)
    prior = softmax_prior(np.zeros(n))  # a query that matches nothing
    assert prior.fallback and len(prior.nodes) == n
    walk = warm_pagerank(t, prior, global_pagerank(t).pi, tol=1e-10)
    assert walk.prior_fallback == prior.fallback
    np.testing.assert_allclose(walk.pi, global_pagerank(t).pi, rtol=0, atol=1e-8)


@settings(max_examples=60, deadline=None)
@given(undirected(), st.data(), BETA, st.sampled_from([1e-2, 1e-4, 1e-6]), st.integers(1, 4))
def test_the_free_stopping_test_is_the_residual_of_the_returned_iterates_preimage(t, data, beta, tol, depth):
    """The returned ``x = f(x̄)`` with ``‖f(x̄) − x̄‖₁`` = the reported residual, so ``‖f(x) − x‖₁ ≤ β·residual``.

    A seed on every node keeps π* and every iterate near it positive, so the final clip changes nothing.
    """
    prior = softmax_prior(np.array(data.draw(st.lists(st.floats(1, 2), min_size=t.n, max_size=t.n))), top_k=t.n)
    raw = np.array(data.draw(st.lists(st.floats(0.5, 1), min_size=t.n, max_size=t.n)))
    result = anderson_pagerank(t, prior, raw / raw.sum(), beta=beta, tol=tol, max_iter=5000, depth=depth)
    assert result.converged and result.residual <= tol
    step = _walk_step(t, result.pi, prior, beta)
    assert np.abs(step - result.pi).sum() <= beta * result.residual + 1e-12


@settings(max_examples=60, deadline=None)
@given(directed(), st.data(), BETA, st.sampled_from([1e-2, 1e-3, 1e-4]), st.sampled_from([1, 3]))
def test_float32_iterations_stay_within_the_bound_with_their_rounding_allowance(t, data, beta, tol, depth):
    prior = a_prior(data, t.n)
    glob = global_pagerank(t, beta=beta).pi
    result = warm_pagerank(t, prior, glob, beta=beta, eps=1e-3, tol=tol, max_iter=5000, depth=depth,
                           global_step=t.transposed @ glob, precision="float32")
    exact = direct_solve(t, prior, beta)
    assert result.converged and result.pi.dtype == np.float64
    assert result.dropped > 0  # the rounding allowance, part of error_bound
    assert np.abs(result.pi - exact).sum() <= 2 * result.error_bound(beta) + 1e-9
    wide = warm_pagerank(t, prior, glob, beta=beta, eps=1e-3, tol=tol, max_iter=5000, depth=depth)
    assert wide.dropped == 0.0


def test_float32_precision_is_checked():
    t = build_transition(30, csr_from_pairs(np.arange(29), np.arange(1, 30), 30))
    prior = Prior(30, np.array([0]), np.array([1.0]))
    with pytest.raises(ValueError, match="precision"):
        anderson_pagerank(t, prior, prior.dense(), precision="float16")
    with pytest.raises(ValueError, match="tol >= 1e-05"):
        anderson_pagerank(t, prior, prior.dense(), tol=1e-8, precision="float32")
    walk = t.walk32
    assert walk.matrix.dtype == np.float32 and t.max_in_entries == 2  # a path walked both ways
    np.testing.assert_array_equal(walk.order[walk.rank], np.arange(30))  # a relabelling of the nodes
    # the same Tᵀ, relabelled: position i is node order[i]
    np.testing.assert_array_equal(walk.matrix.toarray(),
                                  t.transposed.toarray()[np.ix_(walk.order, walk.order)].astype(np.float32))
    np.testing.assert_array_equal(walk.order[walk.dangling], t.dangling_nodes)
    x = np.linspace(1.0, 2.0, 30)
    x /= x.sum()
    step32 = _walk_step(t, x.astype(np.float32), prior, 0.85)  # in walk32's order, mapped back
    assert step32.dtype == np.float32
    np.testing.assert_allclose(step32, _walk_step(t, x, prior, 0.85), rtol=1e-6, atol=1e-8)
    from beacon.retrieval import get_method

    with pytest.raises(ValueError, match="precision"):
        get_method("perron", precision="float32")  # float32 belongs to the push solver
    assert get_method("perron_push").precision == "float32"
