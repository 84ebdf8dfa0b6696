"""The issue stage's scale switch (``issue_scale``: ``normalise.evidence_scale``; not registered in a recipe: docs/localization_real.md).

On the small real store repository of ``test_issue_stage`` (built from real files in a temp git repo): the default
``max`` is today's stage bit for bit; ``saturate`` and ``absolute`` follow their formulas over the signals' own raw
scores; and hypothesis properties of the scale function (in ``[0, 1]``, order kept, never above ``max``, and
stronger evidence never lifts less).
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
from beacon.retrieval.masks import packable
from beacon.retrieval.normalise import ISSUE_SCALES, evidence_scale
from beacon.retrieval.recipes import method_params
from beacon.retrieval.stages import ISSUE as SIGNALS

from tests.retrieval.signals_real.test_issue_stage import ISSUE, QUOTED, build_store

QUERY = (ISSUE + "\nThen store.Cart.total fails: TypeError: format_price() missing 1 required positional "
                 "argument: 'value'\n```\ncart = Cart()\ncart.add('x', 1)\n```\n")


@pytest.fixture(scope="module")
def store(git_repo, tmp_path_factory) -> CodebaseGraph:
    return build_store(git_repo, tmp_path_factory.mktemp("store_scale"))


@pytest.mark.parametrize("name", ["hybrid_code", "hybrid_follow", "hybrid_real"])
def test_the_default_scale_is_todays_stage_bit_for_bit(store, name):
    today = get_method(name, **method_params(name))
    explicit = get_method(name, **method_params(name, {"issue_scale": "max", "issue_conf": 7.0}))
    assert today.issue_scale == "max"
    for query in (QUERY, QUOTED, "cart total"):
        assert explicit.scores(store, query).total.tobytes() == today.scores(store, query).total.tobytes()
        assert explicit.rank(store, query) == today.rank(store, query)


@pytest.mark.parametrize("how,conf", [("saturate", 1.0), ("saturate", 0.25), ("absolute", 1.0)])
def test_a_calibrated_scale_adds_the_signals_by_their_raw_evidence(store, how, conf):
    params = method_params("hybrid_follow", {"issue_scale": how, "issue_conf": conf})
    got = get_method("hybrid_follow", **params).scores(store, QUERY).total
    base = get_method("hybrid_prf", **method_params("hybrid_prf")).scores(store, QUERY).total
    cand, file_of = packable(store), file_index(store).file_of
    expected = np.where(cand, base / base[cand].max(), 0.0)
    fired = 0
    for name, signal in SIGNALS.items():
        if not params.get(f"w_{name}"):
            continue
        found = signal(store, QUERY)
        fired += bool(found.symbol.any())
        if how == "saturate":
            lift = (found.symbol / (found.symbol.max() + conf) if found.symbol.max() > 0 else 0 * found.symbol) + (
                found.file / (found.file.max() + conf) if found.file.max() > 0 else 0 * found.file)[file_of]
        else:
            lift = np.clip(found.symbol, 0, 1) + np.clip(found.file, 0, 1)[file_of]
        expected = expected + params[f"w_{name}"] * np.where(cand, lift, 0.0)
    assert fired >= 4  # the formula is checked on several signals that fire
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_an_unknown_scale_is_an_error_naming_it():
    with pytest.raises(ValueError, match="issue_scale must be one of"):
        Blend(name="bad", issue_scale="softmax")
    with pytest.raises(ValueError, match="issue_conf must be finite and >= 0"):
        Blend(name="bad", issue_conf=-1.0)


evidence = arrays(np.float64, st.integers(1, 30), elements=st.floats(0.0, 50.0, allow_nan=False))


@settings(max_examples=200, deadline=None)
@given(x=evidence, conf=st.floats(0.01, 10.0), how=st.sampled_from(ISSUE_SCALES))
def test_the_scale_is_in_unit_range_and_keeps_the_order(x, conf, how):
    y = evidence_scale(x, how, conf)
    assert y.shape == x.shape and np.all(y >= 0) and np.all(y <= 1 + 1e-12)
    order = np.argsort(x, kind="stable")
    assert np.all(np.diff(y[order]) >= -1e-12)  # more evidence never scores less
    assert np.all(y[x == 0] == 0)
    if how == "saturate":  # max times a factor below 1: never above max
        assert np.all(y <= evidence_scale(x, "max") + 1e-12)
    if how == "absolute":  # the raw shares themselves, capped
        assert np.all(y <= x)


@settings(max_examples=200, deadline=None)
@given(x=evidence, conf=st.floats(0.01, 10.0), factor=st.floats(1.0, 100.0))
def test_stronger_evidence_never_lifts_its_top_target_less(x, conf, factor):
    for how in ("saturate", "absolute"):
        assert evidence_scale(x * factor, how, conf).max() >= evidence_scale(x, how, conf).max() - 1e-12
    assert evidence_scale(x * factor, "max").max() == evidence_scale(x, "max").max()  # max ignores the strength
