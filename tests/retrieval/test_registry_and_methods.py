"""The method registry and what each built-in method does on a small real repository."""
from __future__ import annotations

from pathlib import Path

import pytest

from beacon.retrieval import UnknownMethodError, assemble_context, get_method, method_names, register_method
from beacon.retrieval.bca import closure
from beacon.retrieval.lexical import bm25_scores
from beacon.retrieval.oracle import ORACLE_NOTE

REPO_ROOT = Path(__file__).resolve().parents[2]

FILES = {
    "net/__init__.py": "",
    "net/backoff.py": (
        '"""Backoff policies."""\n\n\n'
        "def compute_retry_delay(attempt, base=0.5):\n"
        '    """Exponential retry delay in seconds."""\n'
        "    return jitter(base * 2 ** attempt)\n\n\n"
        "def jitter(value):\n"
        "    return value * 0.9\n"
    ),
    "net/session.py": (
        "from .backoff import compute_retry_delay\n\n\n"
        "class Session:\n"
        "    def send(self, request):\n"
        "        return self.transport(request)\n\n"
        "    def transport(self, request):\n"
        "        return request\n\n"
        "    def retry(self, request, attempt):\n"
        "        wait = compute_retry_delay(attempt)\n"
        "        return self.send(request), wait\n"
    ),
    "net/log.py": "def log(message):\n    print(message)\n",
    "tests/test_backoff.py": (
        "from net.backoff import compute_retry_delay\n\n\n"
        "def test_retry_delay():\n    assert compute_retry_delay(0) > 0\n"
    ),
}


ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def graph(graph_of):
    return graph_of(FILES, "repo")


def test_duplicate_names_are_refused():
    with pytest.raises(ValueError, match="already registered"):
        register_method("bm25")(object)


def test_unknown_name_lists_known_methods():
    with pytest.raises(UnknownMethodError) as err:
        get_method("bm52")
    assert "bm52" in str(err.value) and "bm25" in str(err.value) and "bca" in str(err.value)


def test_bad_parameters_name_the_method():
    with pytest.raises(TypeError, match="'bm25'"):
        get_method("bm25", depth=3)


def test_every_method_has_a_config_and_every_config_a_method():
    conf = REPO_ROOT / "conf" / "method"
    files = {p.stem: p for p in conf.glob("*.yaml")}
    assert set(method_names()) == set(files), "conf/method/*.yaml must match the registry"
    for name, path in files.items():
        lines = [ln for ln in path.read_text().splitlines() if ln.startswith("name:")]
        assert lines == [f"name: {name}"], path


def test_required_methods_are_registered():
    required = {"no_retrieval", "bm25", "keyword_map", "vector", "embedding", "bca", "bca_d1", "bca_d5",
                "bca_no_closure", "bca_no_scoring", "target_file", "compact_bm25", "grounded_bm25"}
    assert required <= set(method_names())


def test_bm25_ranks_the_function_that_mentions_the_query(graph):
    result = assemble_context(graph, "Where is retry delay computed?", "bm25", budget=2000)
    assert result.ranking[0][0] == "net/backoff.py::compute_retry_delay"
    assert "net/backoff.py::compute_retry_delay" in result.context.symbol_ids
    scores = bm25_scores(graph, "retry delay")
    assert scores[graph.index["net/log.py::log"]] == 0


def test_no_retrieval_is_empty(graph):
    result = assemble_context(graph, "retry delay", "no_retrieval", budget=5000)
    assert result.context.render() == "" and result.ranking == []


def test_keyword_map_scores_distinct_overlap(graph):
    result = assemble_context(graph, "retry delay retry", "keyword_map", budget=5000)
    scores = dict(result.ranking)
    assert scores["net/backoff.py::compute_retry_delay"] == 2.0  # distinct terms: retry, delay
    assert "net/log.py::log" not in scores
    whole = dict(assemble_context(graph, "compute_retry_delay", "keyword_map", budget=5000).ranking)
    assert whole["net/backoff.py::compute_retry_delay"] == 4.0  # compute, retry, delay + the name


def test_vector_and_embedding_are_the_same_method(graph):
    a = assemble_context(graph, "retry delay session", "vector", budget=3000)
    b = assemble_context(graph, "retry delay session", "embedding", budget=3000)
    assert a.ranking == b.ranking and a.context.render() == b.context.render()
    recipe = (ROOT / "conf" / "method" / "vector.yaml").read_text()
    assert "NOT a pretrained embedding" in recipe and get_method("embedding").w_hashed == 1.0


def test_bca_closure_reaches_callees_without_lexical_match(graph):
    seed = graph.index["net/backoff.py::compute_retry_delay"]
    reached = {graph.symbols[i].id for i in closure(graph, [seed], depth=1)}
    assert "net/backoff.py::jitter" in reached  # no query term in jitter
    assert "net/session.py::Session.retry" in reached  # a caller
    deeper = {graph.symbols[i].id for i in closure(graph, [seed], depth=2)}
    assert "net/session.py::Session.send" in deeper and "net/session.py::Session.send" not in reached


def test_bca_variants_differ_as_documented(graph):
    query = "retry delay"
    full = {i for i, _ in assemble_context(graph, query, "bca", budget=5000).ranking}
    seeds = {i for i, _ in assemble_context(graph, query, "bca_no_closure", budget=5000).ranking}
    shuffled = [i for i, _ in assemble_context(graph, query, "bca_no_scoring", budget=5000).ranking]
    assert seeds < full
    assert "net/backoff.py::jitter" in full and "net/backoff.py::jitter" not in seeds
    assert set(shuffled) == full
    assert shuffled == [i for i, _ in assemble_context(graph, query, "bca_no_scoring", budget=5000).ranking]


def test_target_file_is_an_oracle_that_needs_the_target(graph):
    with pytest.raises(ValueError, match="oracle"):
        assemble_context(graph, "anything", "target_file", budget=1000)
    result = assemble_context(graph, "anything", "target_file", budget=1000, target="net/session.py:11")
    assert result.ranking[0][0] == "net/session.py::Session.retry"
    assert ORACLE_NOTE in result.context.notes
    with pytest.raises(ValueError, match="not an indexed file"):
        assemble_context(graph, "x", "target_file", budget=1000, target="nope.py")


def test_grounded_bm25_puts_verbatim_names_first(graph):
    query = "Exponential delay too long when the Session is used"
    plain = assemble_context(graph, query, "compact_bm25", budget=5000)
    grounded = assemble_context(graph, query, "grounded_bm25", budget=5000)
    assert plain.ranking[0][0] == "net/backoff.py::compute_retry_delay"
    assert grounded.ranking[0][0] == "net/session.py::Session"  # named verbatim
    assert sorted(grounded.ranking) == sorted(plain.ranking)  # same candidates, reordered
    assert grounded.context.render().startswith("# net/session.py:")  # Session, or its module


def test_tests_are_candidates_only_when_asked(graph):
    default = assemble_context(graph, "test retry delay", "bm25", budget=5000)
    assert not any(i.startswith("tests/") for i, _ in default.ranking)
    with_tests = assemble_context(graph, "test retry delay", "bm25", budget=5000, include_tests=True)
    assert any(i.startswith("tests/") for i, _ in with_tests.ranking)


def test_budget_must_be_a_non_negative_integer(graph):
    for bad in (-1, 1.5, True, "100"):
        with pytest.raises(ValueError, match="budget"):
            assemble_context(graph, "x", "bm25", budget=bad)
