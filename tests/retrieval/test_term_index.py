"""``term_index`` counts every occurrence of every term of ``terms(doc)`` and numbers terms by first occurrence."""
from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings, strategies as st

from beacon.graph import CodebaseGraph
from beacon.retrieval.text import term_index, terms
from experiments.benchmarks.term_reference import own_documents

WORDS = st.sampled_from(["retry", "retry_delay", "RetryDelay", "HTTPError", "a_a", "x1", "_private", "the", "self",
                         "import_name", "fooBarBaz", "foo_foo", "delay", "9lives", "value", "naïveValue", "__init__",
                         "x9_", "42", "Δx_delay"])
LINE = st.lists(WORDS, min_size=1, max_size=6).map(" ".join)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bodies=st.lists(st.lists(LINE, min_size=1, max_size=4), min_size=1, max_size=4))
def test_term_index_equals_counting_terms_one_by_one(tmp_path, bodies):
    root = tmp_path / f"repo{abs(hash(str(bodies)))}"
    root.mkdir(exist_ok=True)  # hypothesis may run one example twice
    source = "".join(f"def f{i}():\n" + "".join(f"    {line}\n" for line in body) + "\n\n"
                     for i, body in enumerate(bodies))
    (root / "mod.py").write_text(f"import os\nfrom a import (b,\n    c)\n{source}")
    graph = CodebaseGraph.from_repo(root)
    index = term_index(graph)
    vocab: dict[str, int] = {}
    for i, doc in enumerate(own_documents(graph)):
        expected = Counter(vocab.setdefault(t, len(vocab)) for t in terms(doc))
        row = index.tf.getrow(i)
        assert dict(zip(row.indices.tolist(), row.data.tolist())) == expected
        assert index.doc_len[i] == sum(expected.values())
    assert list(index.vocab) == list(vocab) and index.vocab == vocab
