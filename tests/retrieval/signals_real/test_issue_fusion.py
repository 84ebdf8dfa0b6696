"""The issue stage's fusion switches (``issue_fuse``, ``lift_cap``, ``lift_rank``, ``hop_backoff``: ``issue_fusion``;
not registered in a recipe: docs/localization_real.md "Did not help: bounding the issue lifts").

On the small real store repository of ``test_issue_stage`` (built from real files in a temp git repo): the neutral
values are today's stage bit for bit; each switch follows its formula over the signals' own scores; a bad value
is an error naming it; and hypothesis properties of ``fuse_lifts`` (never above the sum, never above the bound,
the neutral call is the plain sum).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval import get_method
from beacon.retrieval.blend import Blend
from beacon.retrieval.file_index import file_index
from beacon.retrieval.issue_fusion import HOPS, fuse_lifts, lift_bound
from beacon.retrieval.masks import packable
from beacon.retrieval.normalise import evidence_scale
from beacon.retrieval.recipes import method_params
from beacon.retrieval.stages import ISSUE as SIGNALS

from tests.retrieval.signals_real.test_issue_scale import QUERY
from tests.retrieval.signals_real.test_issue_stage import QUOTED, build_store

NEUTRAL = {"issue_fuse": "sum", "lift_cap": 0.0, "lift_rank": 0, "hop_backoff": 1.0}


@pytest.fixture(scope="module")
def store(git_repo, tmp_path_factory) -> CodebaseGraph:
    return build_store(git_repo, tmp_path_factory.mktemp("store_fusion"))


def _split(store, params):
    """The pre-issue total over its maximum and each weighted lift, computed here from the signals themselves."""
    off = {w: 0.0 for w in params if w.startswith("w_") and w[2:] in SIGNALS}
    base = get_method("hybrid_follow", **method_params("hybrid_follow", off)).scores(store, QUERY).total
    cand, file_of = packable(store), file_index(store).file_of
    s = np.where(cand, base / base[cand].max(), 0.0)
    lifts = {}
    for name, signal in SIGNALS.items():
        if params.get(f"w_{name}"):
            found = signal(store, QUERY)
            lifts[name] = params[f"w_{name}"] * np.where(
                cand, evidence_scale(found.symbol) + evidence_scale(found.file)[file_of], 0.0)
    return s, lifts, cand


@pytest.mark.parametrize("name", ["hybrid_code", "hybrid_follow", "hybrid_real"])
def test_the_neutral_values_are_todays_stage_bit_for_bit(store, name):
    today = get_method(name, **method_params(name))
    explicit = get_method(name, **method_params(name, NEUTRAL))
    assert (today.issue_fuse, today.lift_cap, today.lift_rank, today.hop_backoff) == tuple(NEUTRAL.values())
    for query in (QUERY, QUOTED, "cart total"):
        assert explicit.scores(store, query).total.tobytes() == today.scores(store, query).total.tobytes()
        assert explicit.rank(store, query) == today.rank(store, query)


@pytest.mark.parametrize("switch", [{"issue_fuse": "max"}, {"lift_cap": 0.3}, {"lift_rank": 2},
                                    {"lift_cap": 0.4, "lift_rank": 3, "issue_fuse": "max"}])
def test_max_and_the_bounds_follow_their_formulas(store, switch):
    params = method_params("hybrid_follow", {"w_callees": 0.5, **switch})
    got = get_method("hybrid_follow", **params).scores(store, QUERY).total
    s, lifts, cand = _split(store, params)
    assert sum(bool(x.any()) for x in lifts.values()) >= 3  # several signals fire: the fusion is exercised
    stacked = np.stack(list(lifts.values()))
    fused = stacked.max(axis=0) if switch.get("issue_fuse") == "max" else stacked.sum(axis=0)
    bound = switch.get("lift_cap") or np.inf
    if switch.get("lift_rank"):
        bound = min(bound, 1.0 - np.sort(s[cand])[::-1][switch["lift_rank"] - 1])
    np.testing.assert_allclose(got, s + np.minimum(fused, bound), rtol=0, atol=1e-12)
    if np.isfinite(bound):
        assert (got - s).max() <= bound + 1e-12


def test_the_backoff_damps_only_the_one_hop_signals_and_only_when_a_direct_one_fires(store):
    params = method_params("hybrid_follow", {"w_callees": 0.5, "w_users": 0.3, "hop_backoff": 0.25})
    got = get_method("hybrid_follow", **params).scores(store, QUERY).total
    s, lifts, _ = _split(store, params)
    assert any(x.any() for n, x in lifts.items() if n in HOPS) and any(x.any() for n, x in lifts.items()
                                                                        if n not in HOPS)
    expected = s + sum(x * (0.25 if n in HOPS else 1.0) for n, x in lifts.items())
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    only_hops = {n: x for n, x in lifts.items() if n in HOPS}  # nothing direct: nothing to back off from
    np.testing.assert_array_equal(fuse_lifts(only_hops, s, packable(store), hop_backoff=0.25),
                                  fuse_lifts(only_hops, s, packable(store)))


def test_a_bad_fusion_value_is_an_error_naming_it():
    with pytest.raises(ValueError, match="issue_fuse must be one of"):
        Blend(name="bad", issue_fuse="softmax")
    with pytest.raises(ValueError, match="lift_rank must be an integer >= 0"):
        Blend(name="bad", lift_rank=-1)
    with pytest.raises(ValueError, match="lift_rank must be an integer >= 0"):
        Blend(name="bad", lift_rank=2.5)
    for field in ("lift_cap", "hop_backoff"):
        with pytest.raises(ValueError, match=f"{field} must be finite and >= 0"):
            Blend(name="bad", **{field: -0.5})


lift = arrays(np.float64, 12, elements=st.floats(0.0, 2.0, allow_nan=False))


@settings(max_examples=200, deadline=None)
@given(lifts=st.lists(lift, min_size=1, max_size=4), base=arrays(np.float64, 12, elements=st.floats(0.0, 1.0)),
       fuse=st.sampled_from(["sum", "max"]), cap=st.sampled_from([0.0, 0.1, 0.5, 1.0]), rank=st.integers(0, 15),
       backoff=st.sampled_from([1.0, 0.5, 0.0]))
def test_the_fused_lift_is_at_most_the_sum_and_at_most_the_bound(lifts, base, fuse, cap, rank, backoff):
    names = ["literal", "callees", "frame", "users"][: len(lifts)]
    by_name = dict(zip(names, lifts))
    cand = np.ones(12, dtype=bool)
    got = fuse_lifts(by_name, base, cand, fuse, cap, rank, backoff) - base
    assert np.all(got >= -1e-12) and np.all(got <= np.sum(lifts, axis=0) + 1e-12)
    assert np.all(got <= lift_bound(base, cand, cap, rank) + 1e-12)
    if (fuse, cap, rank, backoff) == ("sum", 0.0, 0, 1.0):
        np.testing.assert_allclose(got, np.sum(lifts, axis=0), rtol=0, atol=1e-12)
