"""The per-graph index of the issue-structure signals: innermost definitions, module table, kept in the graph's GraphIndexes."""
from __future__ import annotations

import numpy as np

from beacon.retrieval.signals_real.index import graph_index, scores

from .conftest import node


def test_innermost_definition_and_module_table(shop):
    idx = graph_index(shop)
    assert idx.module_file["shop"] == "src/shop/__init__.py"
    assert idx.module_file["shop.fields"] == "src/shop/fields.py"
    line = shop.symbol("src/shop/fields.py::DateTime._deserialize").start_line + 2
    assert idx.at_line("src/shop/fields.py", line) == node(shop, "src/shop/fields.py::DateTime._deserialize")
    assert idx.at_line("src/shop/fields.py", 1) == node(shop, "src/shop/fields.py::<module>")
    assert idx.at_line("nowhere.py", 3) is None


def test_scores_drop_tests_and_vote_for_files(shop):
    idx = graph_index(shop)
    x = np.zeros(len(shop.symbols))
    x[node(shop, "tests/test_fields.py::test_null")] = 5.0
    x[node(shop, "src/shop/fields.py::Field.deserialize")] = 1.0
    x[node(shop, "src/shop/fields.py::DateTime")] = 2.0
    s = scores(shop, x)
    assert s.symbol[node(shop, "tests/test_fields.py::test_null")] == 0.0
    assert s.file[idx.paths.index("src/shop/fields.py")] == 3.0 and s.file.sum() == 3.0


def test_indexes_are_typed_members_of_the_graphs_indexes_built_once(shop):
    from beacon.retrieval.indexes import indexes_for
    from beacon.retrieval.signals_real.literals import literal_index

    shop.cache.clear()
    first, lits = graph_index(shop), literal_index(shop)
    ix = indexes_for(shop)
    assert ix.issue_graph is first and ix.issue_literals is lits
    assert graph_index(shop) is first and literal_index(shop) is lits  # built once per graph
    shop.cache.clear()  # the benchmarks' cold start drops them with every other index
    again = graph_index(shop)
    assert again is not first and again.module_file == first.module_file and again.paths == first.paths


def test_paths_match_by_graph_path_and_by_import_path(shop):
    idx = graph_index(shop)
    assert idx.match("/venv/lib/site-packages/shop/fields.py") == ["src/shop/fields.py"]  # src/ layout
    assert idx.match("C:\\work\\src\\shop\\cli.py") == ["src/shop/cli.py"]
    assert idx.match("shop/__init__.py") == ["src/shop/__init__.py"]
    assert idx.match("fields.py") == ["src/shop/fields.py"] and idx.match("other/fields.py") == []
