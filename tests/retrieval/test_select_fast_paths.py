"""The steady-state fast paths of selection equal the plain computations they replace.

Each fast path (lazy partial sorts, the packer's own token count, vectorised
greedy coverage, named-first and loose-path lookups, per-graph caches) is
checked against a direct, obviously correct computation on real graphs built
from small trees; the per-graph caches are checked to follow a rebuilt graph.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from beacon.context import pack
from beacon.graph import GraphBuilder
from beacon.retrieval import assemble_context
from beacon.retrieval.base import ranking_ids
from beacon.retrieval.bca import BCA
from beacon.retrieval.hashed import hashed_similarity
from beacon.retrieval.lexical import named_first
from beacon.retrieval.mentions import _LOOSE_SKIP, LOOSE_PREFIX_CHARS, MIN_NAME_CHARS, _path_words, loose_path_matches
from beacon.retrieval.normalise import best_first, best_first_lazily, top_k
from beacon.retrieval.query_features import query_features
from beacon.retrieval.registry import get_method, known_methods
from beacon.retrieval.stemmed import stem
from beacon.retrieval.text import identifiers, term_index
from beacon.tokens import count_tokens

from .conftest import write_tree

FILES = {
    "shop/__init__.py": "",
    "shop/cart.py": (
        "from shop.pricing import price_of\n\n\n"
        "class Cart:\n    \"\"\"A shopping cart.\"\"\"\n\n    def __init__(self):\n        self.items = []\n\n"
        "    def add_item(self, item):\n        self.items.append(item)\n\n"
        "    def total(self):\n        return sum(price_of(i) for i in self.items)\n"
    ),
    "shop/pricing.py": (
        "RATES = {'book': 5}\n\n\ndef price_of(item):\n    return RATES.get(item, 0) * discount(item)\n\n\n"
        "def discount(item):\n    return 0.5 if item == 'book' else 1.0\n"
    ),
    "shop/shell_completion.py": "def complete(words):\n    return sorted(words)\n\n\ndef total():\n    return 0\n",
    "shop/debug/__init__.py": "def debugger_page(cart):\n    return repr(cart.total())\n",
    "docs/examples/checkout.py": "from shop.cart import Cart\n\n\ndef checkout():\n    return Cart().total()\n",
    "tests/test_cart.py": "from shop.cart import Cart\n\n\ndef test_total():\n    assert Cart().total() == 0\n",
}
WORDS = ["cart", "Cart.total", "total", "price_of", "pricing", "discount", "debugger", "completions", "shell",
         "add_item", "checkout", "book", "items", "shop", "Cart", "page", "the", "examples", "debug"]
queries = st.lists(st.sampled_from(WORDS), min_size=0, max_size=8).map(" ".join)


@pytest.fixture(scope="module")
def graph(graph_of):
    return graph_of(FILES, "shop")


# -- partial sorts -----------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=60), st.integers(0, 70), st.integers(1, 70))
def test_top_k_and_lazy_order_equal_the_full_sort(raw, k, head):
    values = np.asarray(raw, dtype=np.float64) / 4  # few distinct values: many ties
    nodes = np.arange(len(values), dtype=np.int64)[::-1].copy()  # not in node order
    full = nodes[np.lexsort((nodes, -values))]
    assert list(best_first(nodes, values)) == full.tolist()
    assert list(best_first_lazily(nodes, values, head)) == full.tolist()
    kept = top_k(nodes, values, k)
    assert best_first(kept, values[np.isin(nodes, kept)])[:k].tolist() == full[:k].tolist()


# -- the packer's count ------------------------------------------------------
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.permutations(range(24)), st.integers(0, 400), st.sampled_from(["default", "compact", "line_span_contract"]))
def test_packed_count_is_the_count_of_the_rendered_context(graph, order, budget, renderer):
    """The packer hands its sum of block counts to the context: it must be the whole render's exact count."""
    ranked = [n % len(graph.symbols) for n in order]
    context = pack(graph, ranked, budget, renderer)
    assert context.known_tokens is not None
    assert context.total_tokens == count_tokens(context.render()) <= budget


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(queries, st.integers(0, 500), st.sampled_from(["perron", "perron_no_specificity"]))
def test_frontier_count_is_the_count_of_the_rendered_context(graph, query, budget, name):
    context = get_method(name).select(graph, query, budget)
    assert context.total_tokens == count_tokens(context.render()) <= budget


# -- select equals retrieve --------------------------------------------------
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(queries, st.sampled_from([0, 60, 200, 2000]))
def test_select_packs_what_retrieve_packs_for_every_method(graph, query, budget):
    """``select`` sorts lazily and skips the ids; its context is ``retrieve``'s, for every registered method."""
    for name in known_methods():
        params = {"target": "shop/cart.py"} if name == "target_file" else {}
        method = get_method(name, **params)
        if method.needs():
            continue  # history inputs: covered by the method tests that build git histories
        result = assemble_context(graph, query, name, budget=budget, **params)
        assert method.select(graph, query, budget) == result.context, name
        assert result.ranking == [(graph.symbols[n].id, float(s)) for n, s in method.rank(graph, query)], name


# -- BCA ---------------------------------------------------------------------
def _greedy_by_list_scan(graph, query, candidates, sim, coverage_weight):
    """The greedy coverage order as a plain scan over a list (the definition)."""
    index = term_index(graph)
    q_cols, _ = index.query_vector(query)
    q_set = {int(c) for c in q_cols}
    tf = index.tf
    covers = {c: {int(j) for j in tf.indices[tf.indptr[c]:tf.indptr[c + 1]]} & q_set for c in candidates}
    covered: set[int] = set()
    remaining = list(candidates)
    ranking = []
    while remaining:
        best, best_gain = None, -np.inf
        for c in remaining:
            gain = float(sim[c]) + coverage_weight * len(covers[c] - covered) / max(len(q_set), 1)
            if gain > best_gain:
                best, best_gain = c, gain
        remaining.remove(best)
        covered |= covers[best]
        ranking.append((best, best_gain))
    return ranking


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(queries, st.permutations(range(20)), st.sampled_from([0.0, 0.5, 2.0]), st.booleans())
def test_greedy_coverage_equals_the_list_scan(graph, query, order, weight, flat):
    candidates = [n % len(graph.symbols) for n in order]
    candidates = list(dict.fromkeys(candidates))
    sim = np.zeros(len(graph.symbols)) if flat else hashed_similarity(graph, query)  # flat: all gains tie
    method = BCA("bca", coverage_weight=weight)
    assert method.greedy_coverage(graph, query, candidates, sim) == _greedy_by_list_scan(
        graph, query, candidates, sim, weight)


# -- named first and loose path words ----------------------------------------
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(queries)
def test_named_first_equals_the_per_node_test(graph, query):
    named = identifiers(query)
    dotted = {w for w in query.replace("(", " ").replace(")", " ").split() if "." in w}

    def is_named(node):
        s = graph.symbols[node]
        return (len(s.name) >= 3 and s.name in named) or s.qualname in dotted

    ranking = list(range(len(graph.symbols)))[::-1]
    expected = [n for n in ranking if is_named(n)] + [n for n in ranking if not is_named(n)]
    assert named_first(graph, query, np.asarray(ranking)).tolist() == expected


def _loose_by_file(graph, query):
    """Loose path matches file by file (the definition in ``loose_path_matches``' docstring)."""
    words = {w.lower() for w in query_features(query).identifiers if len(w) >= MIN_NAME_CHARS}
    stems = {stem(w) for w in words}

    def hit(word):
        if len(word) < MIN_NAME_CHARS or word in _LOOSE_SKIP:
            return False
        return stem(word) in stems or (len(word) >= LOOSE_PREFIX_CHARS and any(w.startswith(word) for w in words))

    out = []
    for path in sorted({s.path for s in graph.symbols}):
        name, folders = _path_words(path)
        parts = [p for p in name.split("_") if p] if "_" in name else []
        out.append(float(hit(name)) + 0.5 * sum(map(hit, parts)) + 0.5 * sum(map(hit, folders)))
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(queries)
def test_loose_path_matches_equal_the_per_file_test(graph, query):
    assert loose_path_matches(graph, query).tolist() == _loose_by_file(graph, query)


# -- per-graph caches follow the graph ---------------------------------------
def test_caches_follow_a_rebuilt_graph(tmp_path):
    """Symbol ids and path words are per graph: a rebuild after an edit sees the new files and symbols."""
    root = write_tree(tmp_path / "repo", FILES)
    builder = GraphBuilder(root, cache_dir=tmp_path / "cache")
    before = builder.build()
    query = "the checkout debugger in the billing module"
    ranking = [(n, 1.0) for n in range(len(before.symbols))]
    assert ranking_ids(before, ranking) == [(s.id, 1.0) for s in before.symbols]
    assert "shop/billing.py" not in dict(zip(sorted({s.path for s in before.symbols}),
                                             loose_path_matches(before, query)))

    write_tree(root, {"shop/billing.py": "def invoice(cart):\n    return cart.total()\n"})
    after = builder.build()
    assert len(after.symbols) > len(before.symbols)
    assert ranking_ids(after, [(n, 1.0) for n in range(len(after.symbols))]) == [(s.id, 1.0) for s in after.symbols]
    loose = dict(zip(sorted({s.path for s in after.symbols}), loose_path_matches(after, query)))
    assert loose["shop/billing.py"] == 1.0
    assert loose_path_matches(after, query).tolist() == _loose_by_file(after, query)
    # the old graph's answers did not change
    assert loose_path_matches(before, query).tolist() == _loose_by_file(before, query)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from([-1.5, -0.0, 0.0, 0.25, 1.0, 2.0]), min_size=64, max_size=64))
def test_neighbor_max_equals_the_sparse_row_max(graph, raw):
    from beacon.retrieval.neighbors import call_neighbors, neighbor_max

    score = np.resize(np.asarray(raw), len(graph.symbols))
    adj = call_neighbors(graph)
    assert adj.nnz  # the tree has calls
    expected = np.asarray(adj.multiply(score[None, :]).max(axis=1).todense()).ravel()
    assert neighbor_max(graph, score).tolist() == expected.tolist()
