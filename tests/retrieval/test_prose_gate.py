"""The composer's ``prose`` gate (``prose_gate``): parameters in place of the recipe's for reports that paste no code.

A real graph of a tiny repository: an empty gate scores every report as the recipe does; with a gate, a
prose-only report is scored exactly as the recipe with those parameters and a report with pasted code
exactly as the recipe; parameters the gate must not switch (its own, the name, candidates, packing,
inputs) and bad values are refused naming the method.
"""
from __future__ import annotations

import pytest

from beacon.retrieval import get_method
from beacon.retrieval.recipes import method_params
from beacon.retrieval.report_parts import pastes_code

FILES = {
    "pkg/__init__.py": "",
    "pkg/cache.py": ("def evict_stale_cache_entries(cache, now):\n"
                     "    \"\"\"Drop entries whose expiry passed.\"\"\"\n"
                     "    return {k: v for k, v in cache.items() if v.expiry > now}\n"),
    "pkg/retry.py": ("def retry_request(send, attempts):\n"
                     "    \"\"\"Retry a request until the cache answers; each retry waits longer.\"\"\"\n"
                     "    for attempt in range(attempts):\n"
                     "        if send(attempt):\n"
                     "            return attempt\n"),
}
PROSE = "Stale cache entries are never evicted\n\nA retry does not help: the entries stay in the cache.\n"
CODE = PROSE + "\n```python\nfrom pkg.cache import evict_stale_cache_entries\nevict_stale_cache_entries({}, 0)\n```\n"


@pytest.fixture(scope="module")
def graph(graph_of):
    return graph_of(FILES, "prose_gate")


def _total(graph, name, query, overrides=None):
    return get_method(name, **method_params(name, overrides or {})).scores(graph, query).total


def test_the_reports_are_one_prose_one_with_code():
    assert not pastes_code(PROSE) and pastes_code(CODE)


def test_an_empty_gate_scores_every_report_as_the_recipe(graph):
    for query in (PROSE, CODE, ""):
        assert (_total(graph, "hybrid_follow", query, {"prose": {}}).tobytes()
                == _total(graph, "hybrid_follow", query).tobytes())


def test_the_gate_scores_prose_with_its_parameters_and_code_with_the_recipe(graph):
    gate = {"prose": {"w_name": 2.0, "w_file": 0.25}}
    on_prose = _total(graph, "hybrid_follow", PROSE, gate)
    assert on_prose.tobytes() == _total(graph, "hybrid_follow", PROSE, {"w_name": 2.0, "w_file": 0.25}).tobytes()
    assert on_prose.tobytes() != _total(graph, "hybrid_follow", PROSE).tobytes()  # the gate did switch
    assert _total(graph, "hybrid_follow", CODE, gate).tobytes() == _total(graph, "hybrid_follow", CODE).tobytes()


def test_the_recipe_is_hybrid_follow_with_the_prose_weights():
    assert method_params("hybrid_prose_name") == {**method_params("hybrid_follow"), "prose": {"w_name": 0.75}}


@pytest.mark.parametrize("bad", [{"prose": {"name": "x"}}, {"prose": {"candidates": "symbols"}},
                                 {"prose": {"prose": {}}}, {"prose": {"w_history": 1.0}}, {"prose": {"no_such": 1}},
                                 {"prose": {"w_name": -1.0}}, {"prose": {"fusion": "nope"}}, {"prose": [1]}])
def test_bad_gates_are_refused_naming_the_method(bad):
    with pytest.raises(ValueError, match="hybrid_follow"):
        get_method("hybrid_follow", **method_params("hybrid_follow", bad))
