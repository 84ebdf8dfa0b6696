"""Rankings are the same bytes whichever CPU kernels numpy's BLAS and ufuncs pick.

OpenBLAS chooses a dot/gemv kernel per CPU (``OPENBLAS_CORETYPE`` forces
one), and its kernels add in different orders; numpy dispatches ufunc loops
per CPU feature level (``NPY_DISABLE_CPU_FEATURES`` turns levels off). A
reviewer on another machine must get the rankings of the archive, so each
process below runs under different kernels and every score must agree to
the last bit (``float.hex``), not just to a tolerance. Before the push
solver's extrapolation and the hashed cosine stopped calling BLAS,
``perron_push``, ``ppr_push``, ``vector`` and ``bca`` differed here.
Transcendental functions go through ``libm`` (the C library), whose answers
are tested here against ``math`` and, on a CPU without AVX-512, against
numpy's byte for byte.
"""
from __future__ import annotations

import json
import math
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from beacon.retrieval.anderson import _combine, _dots, _least_squares, _solve

ROOT = Path(__file__).resolve().parents[2]
METHODS = ("perron_push", "ppr_push", "vector", "bca", "hybrid_fn", "perron", "hybrid_follow")
QUERIES = (
    "personalized pagerank push residual does not converge with anderson extrapolation in float32",
    "BM25 scores of the query terms: idf is negative for a term in every document",
    "the hashed vector cosine of a symbol and the query",
)


def _cpu_tables() -> tuple[list, dict]:
    """numpy's dispatched feature names and this CPU's features (``numpy._core`` from numpy 2, ``numpy.core`` before)."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:
        from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    return list(__cpu_dispatch__), dict(__cpu_features__)


# Kernels unlike the default of any current x86-64 CPU: OpenBLAS's generic SSE3 kernels, and numpy's baseline loops
# (every feature it dispatches on turned off, in this numpy's own names: ``X86_V3 X86_V4 …`` in numpy 2.4).
VARIANTS = ({}, {"OPENBLAS_CORETYPE": "Prescott", "NPY_DISABLE_CPU_FEATURES": " ".join(_cpu_tables()[0])})

SCRIPT = r"""
import json, sys
import numpy as np
from beacon.graph import CodebaseGraph
from beacon.retrieval import assemble_context
from beacon.retrieval.recipes import method_params
from beacon.retrieval.diffusion import global_pagerank, softmax_prior
from beacon.retrieval.push import warm_pagerank
from beacon.retrieval.transition import EdgeWeights, build_transition
from beacon.graph.codebase import csr_from_pairs

root, methods, queries = sys.argv[1], sys.argv[2].split(","), json.loads(sys.argv[3])
graph = CodebaseGraph.from_repo(root)
out = {}
for m in methods:
    for i, q in enumerate(queries):
        r = assemble_context(graph, q, m, budget=2000, **method_params(m))
        out[f"{m}/{i}"] = [[sid, float(s).hex()] for sid, s in r.ranking]
# The solver alone on a larger power-law walk, where the extrapolation runs several steps.
rng = np.random.default_rng(5)
n = 20_000
w = lambda a: (lambda v: (v / v.sum())[rng.permutation(n)])(np.arange(1, n + 1, dtype=np.float64) ** (-1 / (a - 1)))
src, dst = rng.choice(n, 10 * n, p=w(2.5)), rng.choice(n, 10 * n, p=w(2.1))
t = build_transition(n, csr_from_pairs(src[src != dst], dst[src != dst], n), EdgeWeights())
glob = global_pagerank(t)
sim = np.zeros(n)
sim[rng.choice(n, 200, replace=False)] = rng.gamma(2.0, 2.0, 200)
for precision in ("float32", "float64"):
    d = warm_pagerank(t, softmax_prior(sim), glob.pi, eps=1e-5, tol=1e-4 if precision == "float32" else 1e-6,
                      precision=precision)
    out[f"warm/{precision}"] = [d.iterations, d.pi.tobytes().hex()]
print(json.dumps(out))
"""


def _run(tree: Path, env_extra: dict[str, str]) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES")}
    env.update(env_extra)
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tree), ",".join(METHODS), json.dumps(QUERIES)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="the kernel names are x86-64's")
def test_rankings_are_the_same_bytes_under_other_blas_and_simd_kernels(tmp_path):
    tree = tmp_path / "retrieval"  # a real package: Beacon's own retrieval code, copied so nothing else is read
    shutil.copytree(ROOT / "beacon" / "retrieval", tree, ignore=shutil.ignore_patterns("__pycache__"))
    runs = [_run(tree, v) for v in VARIANTS]
    base = runs[0]
    assert set(base) == {f"{m}/{i}" for m in METHODS for i in range(len(QUERIES))} | {"warm/float32", "warm/float64"}
    assert all(base[f"{m}/0"] for m in METHODS)  # every method ranked something for the first query
    assert base["warm/float32"][0] >= 2 and base["warm/float64"][0] >= 2  # the extrapolation ran
    for variant, run in zip(VARIANTS[1:], runs[1:]):
        differ = sorted(k for k in base if run[k] != base[k])
        assert not differ, f"under {variant}: {differ}"


# ---- the BLAS-free pieces agree with numpy's BLAS/LAPACK within rounding -------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**31), st.sampled_from([np.float32, np.float64]))
def test_dots_and_combinations_equal_blas_within_rounding(k, seed, dtype):
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((k, 500)).astype(dtype)
    v = rng.standard_normal(500).astype(dtype)
    gamma = rng.standard_normal(k)
    got = _dots(rows, v, np.empty(500, dtype=dtype))
    tol = 1e-3 if dtype is np.float32 else 1e-10
    assert got.dtype == np.float64 and np.allclose(got, rows.astype(np.float64) @ v, rtol=tol, atol=tol * 30)
    out = _combine(gamma, rows, np.empty(500, dtype=dtype), np.empty(500, dtype=dtype))
    assert out.dtype == dtype
    assert np.allclose(out, np.einsum("i,ij->j", gamma.astype(dtype), rows), rtol=tol, atol=tol)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 8), st.integers(0, 2**31))
def test_solve_matches_lapack_on_well_conditioned_systems(k, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((k, k)) + k * np.eye(k)  # diagonally dominant enough to be well conditioned
    b = rng.standard_normal(k)
    got = np.array(_solve(a.tolist(), b.tolist()))
    assert np.allclose(got, np.linalg.solve(a, b), rtol=1e-9, atol=1e-9)
    assert np.allclose(a @ got, b, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(0, 2**31), st.booleans())
def test_least_squares_minimises_the_residual_even_when_the_differences_repeat(k, seed, repeat):
    rng = np.random.default_rng(seed)
    dg = rng.standard_normal((k, 50))
    if repeat and k > 1:
        dg[1] = dg[0]  # a singular Gram matrix: the Tikhonov term keeps it solvable
    g = rng.standard_normal(50)
    gamma = _least_squares(dg @ dg.T, dg @ g)
    assert np.all(np.isfinite(gamma))
    best = np.linalg.lstsq(dg.T, g, rcond=None)[0]
    assert np.linalg.norm(g - gamma @ dg) <= np.linalg.norm(g - best @ dg) * (1 + 1e-6) + 1e-9
    assert _least_squares(np.zeros((k, k)), np.zeros(k)).tolist() == [0.0] * k


# ---- libm: numpy's transcendental functions, computed by the C library --------------------------------------------

def _has_avx512() -> bool:
    return bool(_cpu_tables()[1].get("AVX512F"))


EDGES = np.array([0.0, -0.0, -1.0, -2.0, 1.0, np.inf, -np.inf, np.nan, 1e-300, 5.0, 709.0, 710.0, -800.0, 1e200])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 3000))
def test_libm_is_the_c_library_value_by_value(seed, size):
    import math

    from beacon.retrieval import libm

    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.random(size) * 50, rng.integers(0, 300, size).astype(float)])  # floats and counts

    def each(function, values):
        return np.array([function(v) for v in values.tolist()], dtype=np.float64).tobytes()

    assert libm.log(x + 1).tobytes() == each(math.log, x + 1)
    assert libm.log1p(x).tobytes() == each(math.log1p, x)
    assert libm.exp(-x).tobytes() == each(math.exp, -x)
    assert libm.power(x, 0.7).tobytes() == each(lambda v: math.pow(v, 0.7), x)
    assert libm.log(x.reshape(2, -1) + 1).shape == (2, size)


def test_libm_keeps_numpys_answers_at_the_edges():
    from beacon.retrieval import libm

    with np.errstate(all="ignore"):
        for ours, theirs in ((libm.log, np.log), (libm.log1p, np.log1p), (libm.exp, np.exp)):
            assert np.array_equal(ours(EDGES), theirs(EDGES), equal_nan=True), ours.__name__
        for p in (0.7, -1.0, 2.0, 0.5, 0.0, 1.0, 3.0, -0.5):
            ours, theirs = libm.power(EDGES, p), np.power(EDGES, p)
            # numpy's special cases (NaN, infinities, zeros) are kept; a finite power is the C library's
            # ``pow``, where numpy's AVX-512 loop may round the last bit otherwise (1e-300 ** 0.7 on Xeon, 1 ulp)
            special = ~np.isfinite(theirs) | (theirs == 0)
            assert np.array_equal(ours[special], theirs[special], equal_nan=True), p
            assert ours[~special].tobytes() == np.array([math.pow(v, p) for v in EDGES[~special]]).tobytes(), p
    assert libm.log([]).shape == (0,) and float(libm.exp(0.0)) == 1.0


@pytest.mark.skipif(_has_avx512(), reason="numpy's AVX-512 loops round differently: that is why libm exists")
def test_without_avx512_libm_is_numpy_byte_for_byte():
    from beacon.retrieval import libm

    rng = np.random.default_rng(3)
    x = np.concatenate([rng.random(50_000) * 100 + 1e-3, rng.integers(1, 500, 50_000).astype(float)])
    assert libm.log(x).tobytes() == np.log(x).tobytes()
    assert libm.log1p(x).tobytes() == np.log1p(x).tobytes()
    assert libm.exp(-x / 7).tobytes() == np.exp(-x / 7).tobytes()
    for p in (0.7, 1.3, 0.5, 2.0):
        assert libm.power(x, p).tobytes() == np.power(x, p).tobytes(), p


# Calls whose result numpy lets the CPU decide: BLAS/LAPACK kernels, and transcendental loops with AVX-512 variants.
CPU_DEPENDENT = {"exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "power", "float_power", "dot", "vdot",
                 "inner", "einsum", "matmul", "tensordot", "solve", "lstsq", "inv", "pinv", "cholesky", "qr", "svd"}


def test_ranking_code_makes_no_cpu_dependent_numpy_call():
    """A static guard: ``np.<name>(…)``/``np.linalg.<name>(…)`` with a name above, anywhere in ``beacon/retrieval``
    but ``libm.py``, fails here (use ``libm``, or an elementwise product and a numpy sum)."""
    import ast

    found = []
    for path in sorted((ROOT / "beacon" / "retrieval").rglob("*.py")):
        if path.name == "libm.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CPU_DEPENDENT:
                base = node.func.value
                if isinstance(base, ast.Attribute) and base.attr == "linalg":
                    base = base.value
                if isinstance(base, ast.Name) and base.id in {"np", "numpy"}:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: np.{node.func.attr}")
    assert not found, found
