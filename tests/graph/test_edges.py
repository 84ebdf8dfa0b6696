"""``EdgeAssembler``: spliced rebuilds give the CSR arrays of a full concatenation (hypothesis)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.graph.codebase import csr_from_pairs
from beacon.graph.edges import EDGE_TYPES, EdgeAssembler, sorted_pairs_by_type

N = 40  # symbols


def file_edges(sources: range):
    """One file's edges: sources in its own range (sorted concatenations) or anywhere (the fallback)."""
    local = st.tuples(st.integers(0, len(EDGE_TYPES) - 1), st.sampled_from(sources), st.integers(0, N - 1))
    anywhere = st.tuples(st.integers(0, len(EDGE_TYPES) - 1), st.integers(0, N - 1), st.integers(0, N - 1))
    return st.lists(st.one_of(local, local, anywhere), max_size=12)


FILES = [range(i * 8, (i + 1) * 8) for i in range(N // 8)]
VERSION = st.tuples(*[file_edges(r) for r in FILES])


def expected(version) -> dict:
    out = {}
    for t, etype in enumerate(EDGE_TYPES):
        pairs = np.array([(s, d) for edges in version for (k, s, d) in edges if k == t], dtype=np.int64).reshape(-1, 2)
        out[etype] = csr_from_pairs(pairs[:, 0], pairs[:, 1], N)
    return out


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(VERSION, st.sets(st.integers(0, len(FILES) - 1))), min_size=1, max_size=5))
def test_spliced_assembly_equals_a_full_one(steps):
    assembler = EdgeAssembler()
    parts: list = [None] * len(FILES)
    for i, (version, changed) in enumerate(steps):
        for f in range(len(FILES)):
            if i == 0 or f in changed:  # unchanged files hand in the very same objects, as a builder does
                parts[f] = sorted_pairs_by_type(version[f])
            else:
                version = version[:f] + (steps[i - 1][0][f],) + version[f + 1:]
        steps[i] = (version, changed)
        got = assembler.assemble(list(parts), N)
        assert assembler.last_spliced == (i > 0)
        want = expected(version)
        for etype in EDGE_TYPES:
            assert np.array_equal(got[etype][0], want[etype][0]) and np.array_equal(got[etype][1], want[etype][1])
            assert got[etype][1].dtype == np.int32
