"""The learned file reranker diagnostic (``experiments/benchmarks/file_rerank_fit.py``): its features on a real
graph, its listwise fit and its gate."""
from __future__ import annotations

import textwrap

import numpy as np

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval.file_index import file_index
from beacon.retrieval.recipes import method_params
from beacon.retrieval.registry import get_method
from experiments.benchmarks import file_rerank_fit as fr

FILES = {
    "pkg/__init__.py": "",
    "pkg/parse/__init__.py": "",
    "pkg/parse/reader.py": '''\
        def read_header(stream):
            """Read the header line of a stream."""
            return stream.readline()


        def read_body(stream):
            return stream.read()
        ''',
    "pkg/parse/writer.py": '''\
        def write_header(stream, header):
            stream.write(header)
        ''',
    "pkg/net.py": '''\
        def fetch(url):
            return url
        ''',
}


def _graph(tmp_path) -> CodebaseGraph:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(textwrap.dedent(text))
    return CodebaseGraph.from_repo(tmp_path)


def test_features_follow_the_methods_file_order(tmp_path):
    graph = _graph(tmp_path)
    m = get_method("hybrid_follow", **method_params("hybrid_follow", {}))
    query = "read_header fails on an empty stream header"
    head, rest, feats = fr.file_features(m, graph, query, k=2)
    nodes, _ = m.ranked_nodes(graph, query)
    order = list(dict.fromkeys(file_index(graph).paths[f] for f in file_index(graph).file_of[nodes]))
    assert head + rest == order
    assert head == ["pkg/parse/reader.py", "pkg/parse/writer.py"] and rest == ["pkg/net.py"]
    first, second = feats
    assert first["total"] == 1.0 and first["rank"] == 1.0 and first["depth"] == 2.0 and second["rank"] == 0.5
    assert np.isclose(first["n_defs"], np.log1p(2))  # read_header, read_body
    assert first["c_sym"] == 1.0 and 0 < second["c_sym"] < 1.0  # over the component's maximum
    # each is the other's folder evidence (pkg/parse/); net.py is past the head
    assert first["fold_sum"] == second["total"] and second["fold_sum"] == first["total"]
    assert first["fold_n"] == np.log1p(1)


def _task(gold_index: int, values: list[tuple[float, float]], structured: bool = False) -> dict:
    head = [f"f{i}.py" for i in range(len(values))]
    feats = [{"a": a, "b": b} | ({"c_literal": 1.0} if structured and i == 0 else {}) for i, (a, b) in enumerate(values)]
    return {"id": "t", "gold": [head[gold_index]], "head": head, "rest": ["z.py"], "feats": feats}


def test_the_fit_learns_the_feature_that_marks_gold_and_the_gate_keeps_structured_orders():
    rng = np.random.default_rng(0)
    tasks = []
    for _ in range(40):
        gold = int(rng.integers(0, 4))
        values = [(1.0 if i == gold else 0.0, float(rng.random())) for i in range(4)]
        tasks.append(_task(gold, values))
    w = fr.fit(tasks, ["a", "b"], l2=0.01)
    assert w[0] > 1.0 and abs(w[1]) < w[0] / 4
    orders = fr.file_orders(tasks, ["a", "b"], w)
    assert all(order[0] == t["gold"][0] and order[-1] == "z.py" for t, order in zip(tasks, orders))
    assert fr.accuracy(tasks, orders, 1) == [1.0] * len(tasks)
    structured = _task(2, [(0.0, 0.0), (0.0, 0.0), (1.0, 0.0)], structured=True)
    assert fr.structured(structured) and not fr.structured(tasks[0])
    assert fr.file_orders([structured], ["a", "b"], w, gate=True)[0][0] == "f0.py"  # kept
    assert fr.file_orders([structured], ["a", "b"], w, gate=False)[0][0] == "f2.py"  # reordered
