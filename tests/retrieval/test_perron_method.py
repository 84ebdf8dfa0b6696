"""Perron, ppr and the ablations on small real repositories: hubs, test nodes, registry, diagnostics."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from beacon.graph import CodebaseGraph
from beacon.localize import hub_nodes, hub_suppression_index, mean_reciprocal_rank, recall_at_budget, reciprocal_rank
from beacon.retrieval import assemble_context, get_method, method_names
from beacon.retrieval.diffusion import global_rank_for
from beacon.tokens import count_tokens

REPO_ROOT = Path(__file__).resolve().parents[2]
METHODS = ["ppr", "perron", "perron_no_specificity", "perron_no_frontier"]
QUERY = "parsing the config file fails: validate config keys and defaults"


def _module(name: str, functions: dict[str, str]) -> str:
    lines = ["from shop.log import log_event\n"]
    for fn, body in functions.items():
        lines.append(f"\n\ndef {fn}(value):\n    log_event('{fn}')\n{body}")
    return "".join(lines)


def hub_repo() -> dict[str, str]:
    """A shop where ``log_event`` is called by almost every function."""
    files = {
        "shop/__init__.py": "",
        "shop/log.py": "def log_event(message, level='info'):\n    print(level, message)\n",
        "shop/config.py": _module("config", {
            "load_config": "    text = read_config_text(value)\n    return merge_config_defaults(parse_config(text))\n",
            "parse_config": "    keys = split_config_keys(value)\n    check_config_types(keys)\n    return validate_config(keys)\n",
            "split_config_keys": "    return [k.strip() for k in value.split(',')]\n",
            "validate_config": "    if not value:\n        config_error(value)\n    return apply_config_defaults(value)\n",
            "apply_config_defaults": "    return merge_config_defaults({k: None for k in value})\n",
            "merge_config_defaults": "    return dict(value)\n",
            "check_config_types": "    if not all(isinstance(k, str) for k in value):\n        config_error(value)\n",
            "config_error": "    raise ValueError(value)\n",
            "read_config_text": "    return str(value)\n",
        }),
        "tests/test_config.py": (
            "from shop.config import parse_config, load_config\n\n\n"
            "def test_parse_config_keys():\n    assert parse_config('a,b')\n\n\n"
            "def test_load_config():\n    assert load_config('a') is not None\n"
        ),
    }
    verbs = ["create", "cancel", "ship", "refund", "audit", "export"]
    for area in ["orders", "users", "payments", "stock", "invoices", "coupons", "carts", "reviews", "refunds",
                 "emails", "reports", "sessions"]:
        fns = {}
        for verb in verbs:
            fns[f"{verb}_{area}"] = f"    return total_{area}(value)\n"
        fns[f"total_{area}"] = "    return value\n"
        files[f"shop/{area}.py"] = _module(area, fns)
    return files


@pytest.fixture(scope="module")
def graph(graph_of):
    return graph_of(hub_repo(), "shop")


HUB = "shop/log.py::log_event"


@pytest.mark.parametrize("suffix", ["", "_push"])  # the power iteration, and the push solver of issue 17
def test_ppr_ranks_the_logging_hub_high_and_perron_damps_it(graph, suffix):
    ppr = [sid for sid, _ in assemble_context(graph, QUERY, "ppr" + suffix, budget=400).ranking]
    perron = [sid for sid, _ in assemble_context(graph, QUERY, "perron" + suffix, budget=400).ranking]
    assert HUB in ppr[:5]
    assert HUB not in perron[:5]
    assert perron[0].startswith("shop/config.py::")
    pi_global = global_rank_for(graph).pi
    assert graph.index[HUB] in hub_nodes(pi_global, 0.05)  # it is the global hub
    top = lambda ranking: [graph.index[sid] for sid in ranking]  # noqa: E731
    assert hub_suppression_index(top(perron), pi_global, hub_share=0.05) > hub_suppression_index(
        top(ppr), pi_global, hub_share=0.05)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("renderer", ["default", "breadcrumbs"])
def test_every_budget_fits_exactly_and_tests_are_never_packed(graph, method, renderer):
    for budget in (0, 3, 25, 60, 140, 333, 800, 5000):
        result = assemble_context(graph, QUERY, method, budget=budget, renderer=renderer)
        ctx = result.context
        assert count_tokens(ctx.render()) == ctx.total_tokens <= budget
        assert not any(graph.symbol(sid).is_test or graph.symbol(sid).kind == "module" for sid in ctx.symbol_ids)
        assert not any(graph.symbol(sid).is_test for sid, _ in result.ranking)


def test_test_nodes_carry_the_walk(graph):
    """The tests call parse_config/load_config: their prior mass flows into the code they exercise."""
    method = get_method("ppr")
    scored = method.scores(graph, "test parse config keys")
    test_node = graph.index["tests/test_config.py::test_parse_config_keys"]
    assert scored.pi_query[test_node] > 0
    assert scored.pi_query[graph.index["shop/config.py::parse_config"]] > 0
    assert "tests/test_config.py::test_parse_config_keys" not in [sid for sid, _ in method.rank(graph, "test parse config keys")]
    with pytest.raises(ValueError, match="never packed"):
        get_method("perron", include_tests=True)


@pytest.mark.parametrize("method", METHODS)
def test_identical_inputs_give_identical_packs(tmp_path, method):
    contexts = []
    for copy in ("a", "b"):
        root = tmp_path / copy
        for rel, text in hub_repo().items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        g = CodebaseGraph.from_repo(root)
        result = assemble_context(g, QUERY, method, budget=500, renderer="breadcrumbs")
        contexts.append((result.context.render(), result.ranking))
    assert contexts[0] == contexts[1]


def test_frontier_keeps_context_connected_around_the_anchor(graph):
    ctx = assemble_context(graph, QUERY, "perron", budget=260).context
    ids = ctx.symbol_ids
    assert ids and ids[0].startswith("shop/config.py::")
    assert all(sid.startswith("shop/config.py::") for sid in ids)


def test_uniform_fallback_is_stated_in_the_context_notes(graph):
    result = assemble_context(graph, "zzzz qqqq", "perron", budget=300)
    assert any("uniform" in note for note in result.context.notes)


def test_hashed_similarity_and_bad_parameters(graph):
    result = assemble_context(graph, QUERY, "perron", budget=300, similarity="hashed")
    assert result.ranking and result.context.total_tokens <= 300
    with pytest.raises(ValueError, match="similarity"):
        get_method("perron", similarity="dense")


def test_registered_with_configs():
    assert set(METHODS) <= set(method_names())
    for name in METHODS:
        text = (REPO_ROOT / "conf" / "method" / f"{name}.yaml").read_text()
        assert f"name: {name}\n" in text
        params = text.split("params: {", 1)[1].rsplit("}", 1)[0]
        fields = {kv.split(":")[0].strip() for kv in params.split(",")}
        method = get_method(name)
        assert all(hasattr(method, f) for f in fields), name


def test_diagnostics(graph):
    result = assemble_context(graph, QUERY, "perron", budget=400)
    gold = ["shop/config.py::parse_config", "shop/config.py::validate_config"]
    assert 0 <= recall_at_budget(result.context, gold) <= 1
    assert recall_at_budget(result.context, [result.context.symbol_ids[0]]) == 1.0
    assert recall_at_budget(result.context, ["shop/orders.py::ship_orders"]) == 0.0
    with pytest.raises(ValueError, match="empty"):
        recall_at_budget(result.context, [])
    assert reciprocal_rank(["x", "y", "z"], {"z"}) == pytest.approx(1 / 3)
    assert reciprocal_rank([("x", 1.0), ("y", 0.5)], {"y", "x"}) == 1.0
    assert reciprocal_rank(["x"], {"q"}) == 0.0
    assert mean_reciprocal_rank([(["a", "b"], {"b"}), (["a"], {"a"}), ([], {"a"})]) == pytest.approx(0.5)
    pi = np.array([0.5, 0.1, 0.1, 0.05, 0.25])
    assert hub_nodes(pi, 0.4).tolist() == [0, 4]
    assert hub_suppression_index([0, 1, 2, 3], pi, k=2, hub_share=0.2) == 0.5
    assert hub_suppression_index([1, 2], pi, k=10, hub_share=0.2) == 1.0
    assert np.isnan(hub_suppression_index([], pi))


def test_recall_counts_containment_with_a_graph(tmp_path):
    (tmp_path / "m.py").write_text("class Box:\n    def open(self):\n        return 1\n\n    def close(self):\n        return 2\n")
    g = CodebaseGraph.from_repo(tmp_path)
    from beacon.context import pack

    ctx = pack(g, [g.index["m.py::Box"]], budget=1000)
    assert recall_at_budget(ctx, ["m.py::Box.open"]) == 0.0
    assert recall_at_budget(ctx, ["m.py::Box.open"], g) == 1.0
