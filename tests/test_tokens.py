"""The tokenizer is the official cl100k_base, loaded offline and verified."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys

from hypothesis import given, settings, strategies as st

from beacon import tokens


def test_published_examples():
    # tiktoken's README and OpenAI's cookbook: "hello world" -> [15339, 1917]
    assert tokens.encode("hello world") == [15339, 1917]
    assert tokens.encode("tiktoken is great!") == [83, 1609, 5963, 374, 2294, 0]
    assert tokens.count_tokens("hello world") == 2
    assert tokens.encoding().name == "cl100k_base"


def test_bundled_file_hash_is_the_official_one():
    path = tokens._bundled_ranks_path()
    with open(path, "rb") as fh:
        assert hashlib.sha256(fh.read()).hexdigest() == tokens.CL100K_SHA256


def test_special_token_text_is_counted_as_plain_text():
    # Source code may contain these strings; they must not raise or count as 1.
    assert tokens.count_tokens("<|endoftext|>") > 1
    assert tokens.decode(tokens.encode("x = '<|endoftext|>'")) == "x = '<|endoftext|>'"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_round_trip_and_count(text):
    ids = tokens.encode(text)
    assert tokens.decode(ids) == text
    assert tokens.count_tokens(text) == len(ids)


def test_loads_with_network_denied(tmp_path):
    """No download: a fresh interpreter with proxies pointing nowhere and no tiktoken cache."""
    env = dict(os.environ)
    env.update(
        TIKTOKEN_CACHE_DIR=str(tmp_path / "empty-cache"),
        HTTPS_PROXY="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9",
        https_proxy="http://127.0.0.1:9", http_proxy="http://127.0.0.1:9",
    )
    code = "from beacon.tokens import encode; print(encode('hello world'))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[15339, 1917]"
    assert not (tmp_path / "empty-cache").exists()
