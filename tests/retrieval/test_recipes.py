"""Method recipes (``conf/method/*.yaml``): the registry agrees with them, ``defaults:`` compose as in Hydra,
a blend variant is a YAML file and no Python, and a sweep varies a weight from the command line."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from beacon.graph import CodebaseGraph
from beacon.retrieval import get_method, method_names
from beacon.retrieval import recipes
from beacon.retrieval.blend import Blend
from beacon.retrieval.recipes import RecipeError, blend_recipes, method_params

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT.parent / "shared" / "data" / "swebench_lite_dev"


def test_every_registered_method_has_a_recipe_and_every_recipe_a_method():
    assert set(method_names()) == {p.stem for p in recipes.CONF_DIR.glob("*.yaml")}
    for name in method_names():
        method = get_method(name)  # configured by its recipe
        params = method_params(name)
        assert {k: getattr(method, k) for k in params} == params, name


def test_every_recipe_names_a_known_composer():
    from beacon.retrieval.methods import COMPOSERS

    composers = recipes.recipe_composers()
    assert set(composers.values()) <= set(COMPOSERS)
    assert {n for n, c in composers.items() if c != "blend"} == {
        "bca", "bca_d1", "bca_d5", "bca_no_closure", "bca_no_scoring", "perron", "perron_no_frontier",
        "perron_no_specificity", "perron_push", "ppr", "ppr_push", "repomap", "repomap_lexical", "target_file"}
    assert all(type(get_method(n)) is COMPOSERS[c] for n, c in composers.items())
    # Ablations are their base plus the switch: no copied parameters.
    assert method_params("ppr") == {**method_params("perron"), "use_specificity": False, "use_frontier": False}
    assert method_params("bca_d5") == {**method_params("bca"), "depth": 5}
    push = {"solver": "push", "push_eps": 2e-6, "tol": 1e-2, "precision": "float32", "threads": "auto"}
    assert method_params("perron_push") == {**method_params("perron"), **push}
    assert method_params("ppr_push") == {**method_params("ppr"), **push}


def test_blends_are_recipes_of_the_one_composer():
    blends = set(blend_recipes())
    assert blends == {"hybrid", "hybrid_prf", "hybrid_history", "hybrid_all", "hybrid_log", "history_only", "hybrid_rrf",
                      "hybrid_graph", "hybrid_stemmed", "bm25_file_rerank", "bm25", "compact_bm25", "grounded_bm25",
                      "keyword_map", "vector", "embedding", "no_retrieval", "hybrid_real", "hybrid_real_no_dotted",
                      "hybrid_real_no_literal", "hybrid_real_no_frame", "literal_only", "frame_only", "dotted_only",
                      "hybrid_issue", "error_only", "names_only", "receiver_only", "hybrid_code", "hybrid_title",
                      "bm25_title", "flow_only", "hybrid_flow", "usesites_only", "hybrid_uses", "local_only",
                      "hybrid_fn", "hybrid_follow", "hybrid_prose", "hybrid_prose_name",
                      "hybrid_flowgaps", "qualified_only", "tests_only", "hybrid_tests", "docs_only", "hybrid_docs",
                      "docctx_only", "hybrid_docctx", "hybrid_compound"}
    assert all(type(get_method(n)) is Blend for n in blends)
    assert not any(isinstance(get_method(n), Blend) for n in set(method_names()) - blends)


@pytest.mark.parametrize("name", sorted({p.stem for p in recipes.CONF_DIR.glob("*.yaml")}))
def test_defaults_compose_as_hydra_composes_them(name):
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base=None):
        cfg = compose(config_name="localize", overrides=[f"method={name}"])
    assert OmegaConf.to_container(cfg.method.params, resolve=True) == method_params(name)
    assert cfg.method.name == name


def test_overrides_go_on_top_and_the_memo_is_not_shared():
    p = method_params("hybrid_all", {"w_history": 0.5})
    assert p["w_history"] == 0.5 and p["w_loose_path"] == 1.0 and p["w_prf_sym"] == 0.15 and p["b"] == 0.4
    p["w_sym"] = 99.0
    assert method_params("hybrid_all")["w_sym"] == 1.0
    # A variant's own keys win over its bases: hybrid_log is hybrid_all (itself hybrid_prf + hybrid_history) + votes.
    assert method_params("hybrid_log") == {**method_params("hybrid_all"), "w_log_file": 0.1, "w_log_function": 0.1,
                                           "log_k": 20}
    assert method_params("history_only")["w_sym"] == 0.0 and method_params("history_only")["w_history"] == 0.25


@pytest.fixture
def conf_dir(tmp_path, monkeypatch):
    """A copy of conf/method that a test may add recipes to."""
    # The registry registers every recipe of CONF_DIR on its first lookup: done here, before the copy stands in for
    # it, so a recipe a test adds is never registered for the rest of the session (an order-dependent failure of
    # test_every_method_has_a_config_and_every_config_a_method on the same worker).
    method_names()
    target = tmp_path / "method"
    shutil.copytree(recipes.CONF_DIR, target)
    monkeypatch.setattr(recipes, "CONF_DIR", target)
    recipes._recipe_params.cache_clear()
    yield target
    recipes._recipe_params.cache_clear()


def _write(directory: Path, name: str, text: str) -> None:
    (directory / f"{name}.yaml").write_text(text)


def test_a_blend_variant_is_a_yaml_file(conf_dir, tmp_path):
    _write(conf_dir, "hybrid_no_name", "# ablation: hybrid without the name BM25\n"
                                       "defaults: [hybrid, _self_]\nname: hybrid_no_name\nparams: {w_name: 0.0}\n")
    assert "hybrid_no_name" in blend_recipes()
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "cookies.py").write_text("def parse_cookie(text):\n    return text.split(';')\n\n\n"
                                             "def dump_cookie(key, value):\n    return f'{key}={value}'\n")
    (root / "pkg" / "urls.py").write_text("def url_join(base, path):\n    return base + path\n")
    graph = CodebaseGraph.from_repo(root)
    variant = Blend(name="hybrid_no_name", **method_params("hybrid_no_name"))
    query = "cookie parsing drops the value"
    assert variant.rank(graph, query) == get_method("hybrid", w_name=0.0).rank(graph, query)
    assert asdict(variant) == asdict(get_method("hybrid", w_name=0.0)) | {"name": "hybrid_no_name"}


# Errors in a recipe's structure: both reads (method_params' composition, the composers' read at import) find them.
STRUCTURAL = [
    ({"a": "defaults: [b, _self_]\nname: a\nparams: {}\n", "b": "defaults: [a]\nname: b\nparams: {}\n"}, "cycle a -> b -> a"),
    ({"a": "defaults: [_self_, hybrid]\nname: a\nparams: {}\n"}, "_self_ must come last"),
    ({"a": "defaults: [nowhere, _self_]\nname: a\nparams: {}\n"}, "no recipe for retrieval method 'nowhere'"),
    ({"a": "defaults: hybrid\nname: a\nparams: {}\n"}, "defaults: expected a list of recipe names"),
    ({"a": "- name\n- params\n"}, "expected a mapping with name and params"),
]


@pytest.mark.parametrize("files, message", [
    ({"a": "name: b\nparams: {}\n"}, "name: expected 'a', got 'b'"),
    ({"a": "name: a\nparams: [1, 2]\n"}, "params: expected a mapping"),
])
def test_malformed_recipes_name_the_file_and_key(conf_dir, files, message):
    for name, text in files.items():
        _write(conf_dir, name, text)
    with pytest.raises(RecipeError, match=message) as info:
        method_params("a")
    assert str(conf_dir) in str(info.value)


@pytest.mark.parametrize("files, message", STRUCTURAL)
def test_the_composers_read_finds_the_same_structural_errors(conf_dir, files, message):
    for name, text in files.items():
        _write(conf_dir, name, text)
    for read in (recipes.recipe_composers, lambda: method_params("a")):
        with pytest.raises(RecipeError, match=message) as info:
            read()
        assert str(conf_dir) in str(info.value)


def test_the_composers_read_agrees_with_the_composition_on_every_recipe(conf_dir):
    # inheritance: the file's own key wins (also null), else the last base in defaults: order that sets one
    _write(conf_dir, "base_p", "name: base_p\ncomposer: perron\nparams: {}\n")
    _write(conf_dir, "base_none", "name: base_none\nparams: {}\n")
    _write(conf_dir, "two", "defaults: [bca, base_p, base_none, _self_]\nname: two\nparams: {}\n")
    _write(conf_dir, "own", "defaults: [base_p, _self_]\nname: own\ncomposer: bca\nparams: {}\n")
    _write(conf_dir, "cleared", "defaults: [base_p, _self_]\nname: cleared\ncomposer: null\nparams: {}\n")
    _write(conf_dir, "empty", "")
    composers = recipes.recipe_composers()
    assert composers == {name: recipes._compose(name, ()).get("composer") for name in composers}
    assert (composers["two"], composers["own"], composers["cleared"], composers["empty"]) == ("perron", "bca", None, None)
    assert len(composers) == len(list(conf_dir.glob("*.yaml"))) > 60


def test_an_unknown_method_has_no_recipe():
    with pytest.raises(RecipeError, match=r"no recipe for retrieval method 'hybird': expected .*hybird\.yaml"):
        method_params("hybird")


@pytest.mark.skipif(not (DEV / "instances.jsonl").exists(), reason=f"shared dev slice not present at {DEV}")
def test_a_sweep_varies_a_weight_from_the_command_line(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "experiments.localize", "-m", "method=hybrid_all", "method.params.w_history=0,1",
         "tasks=swebench_lite_dev", "tasks.limit=1", "budget=2000", f"cache_dir={tmp_path / 'cache'}",
         f"hydra.sweep.dir={tmp_path / 'sweep'}", "print_table=false"],
        cwd=ROOT, capture_output=True, text=True, timeout=900, env={**os.environ, "CI": "1"})
    assert out.returncode == 0, out.stderr[-3000:]
    rows = [json.loads(line) for p in sorted((tmp_path / "sweep").rglob("records.jsonl"))
            for line in p.read_text().splitlines() if line]
    assert sorted(r["method_params"]["w_history"] for r in rows) == [0, 1]
    assert all(r["error"] is None and r["method_params"]["w_loose_path"] == 1.0 for r in rows)
