"""The Ollama adapter against a real loopback server speaking Ollama's native API."""
from __future__ import annotations

import hashlib
import socket

import pytest

from beacon.providers import (
    OllamaProvider,
    PromptTooLong,
    ProviderHTTPError,
    ProviderRefused,
    ProviderResponseError,
)
from beacon.tokens import count_tokens

FAST = {"backoff_base_s": 0.001, "backoff_max_s": 0.01}


def provider(srv, **kw) -> OllamaProvider:
    return OllamaProvider(kw.pop("model", srv.model), base_url=srv.url, **{**FAST, **kw})


def test_generate_request_identity_and_native_counts(ollama_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-ollama")
    p = provider(ollama_server, num_ctx=4096)
    c = p.complete("fix it", max_tokens=128, temperature=0.0, seed=3)

    paths = [(r.method, r.path) for r in ollama_server.received]
    assert paths == [("POST", "/api/show"), ("GET", "/api/tags"), ("POST", "/api/generate")]
    assert ollama_server.received[0].json() == {"model": ollama_server.model}
    gen = ollama_server.requests_to("/api/generate")[0]
    assert gen.json() == {"model": ollama_server.model, "prompt": "fix it", "stream": False, "raw": False,
                          "options": {"num_ctx": 4096, "num_predict": 128, "temperature": 0.0, "seed": 3}}
    assert all("authorization" not in r.headers for r in ollama_server.received)

    assert c.model_digest == ollama_server.digest
    assert (c.text, c.input_tokens, c.output_tokens) == ("patched", 20, 5)
    assert (c.stop_reason, c.raw_stop_reason, c.truncated, c.usable) == ("stop", "stop", False, True)
    assert c.server_authenticated is False and c.model == ollama_server.model
    assert c.request_sha256 == hashlib.sha256(gen.body).hexdigest()
    assert c.response_sha256 == hashlib.sha256(ollama_server.sent[-1]).hexdigest()
    assert c.raw["details"]["quantization_level"] == "Q4_K_M"
    assert "context" not in c.raw  # the KV token array is bulky and useless for audit

    # Identity is fetched once per provider; the second call only generates.
    p.complete("again", max_tokens=8, seed=None)
    assert ollama_server.received[-1].path == "/api/generate"
    assert len(ollama_server.requests_to("/api/show")) == 1
    assert "seed" not in ollama_server.received[-1].json()["options"]


def test_digest_from_api_show_when_reported(ollama_server, reply):
    ollama_server.on("POST", "/api/show", reply(200, {"details": {}, "digest": "sha256:abc123"}))
    c = provider(ollama_server).complete("p", max_tokens=8)
    assert c.model_digest == "sha256:abc123"
    assert ollama_server.requests_to("/api/tags") == []


def test_untagged_model_name_matches_latest(ollama_server, ollama_generate, reply):
    ollama_server.on("POST", "/api/generate", reply(200, ollama_generate(model="llama3:latest")))
    c = provider(ollama_server, model="llama3").complete("p", max_tokens=8)
    assert c.model_digest == "0" * 64 and c.model == "llama3:latest"


def test_model_not_pulled_is_an_error(ollama_server):
    with pytest.raises(ProviderResponseError, match="ollama pull mistral"):
        provider(ollama_server, model="mistral").complete("p", max_tokens=8)
    assert ollama_server.requests_to("/api/generate") == []


def test_done_reason_length_is_truncated(ollama_server, ollama_generate, reply):
    ollama_server.on("POST", "/api/generate", reply(200, ollama_generate("def f(", done_reason="length")))
    c = provider(ollama_server).complete("p", max_tokens=8)
    assert (c.stop_reason, c.truncated, c.usable) == ("length", True, False)


def test_missing_done_reason_is_not_usable(ollama_server, ollama_generate, reply):
    ollama_server.on("POST", "/api/generate", reply(200, ollama_generate(done_reason=None)))
    c = provider(ollama_server).complete("p", max_tokens=8)
    assert (c.stop_reason, c.raw_stop_reason, c.usable) == ("unknown", None, False)


@pytest.mark.parametrize("base_url", [
    "http://10.0.0.1:11434", "http://192.168.1.5:11434", "http://example.com:11434",
    "http://localhost.example.com:11434", "http://127.0.0.1.nip.io:11434", "http://0.0.0.0:11434",
    "http://[::ffff:127.0.0.1]:11434", "http://[2001:db8::1]:11434", "https://ollama.com",
])
def test_non_loopback_hosts_refused_without_connecting(base_url, monkeypatch):
    attempts = []

    def no_connect(*args, **kwargs):
        attempts.append(args)
        raise AssertionError("a connection was attempted")

    monkeypatch.setattr(socket, "create_connection", no_connect)
    monkeypatch.setattr(socket, "getaddrinfo", no_connect)
    with pytest.raises(ProviderRefused, match="not a loopback address"):
        OllamaProvider("qwen2.5-coder:7b", base_url=base_url)
    assert attempts == []


@pytest.mark.parametrize("base_url", ["http://127.0.0.1:11434", "http://127.8.9.10:1", "http://localhost:11434",
                                      "http://LOCALHOST:2", "http://[::1]:11434"])
def test_loopback_hosts_accepted(base_url):
    assert OllamaProvider("m", base_url=base_url).base_url == base_url


@pytest.mark.parametrize("model", ["gpt-oss:120b-cloud", "qwen3-coder:480b-cloud", "deepseek-v3.1:671b-CLOUD",
                                   "glm:cloud", "kimi:cloud-large"])
def test_cloud_model_names_refused(model, ollama_server):
    with pytest.raises(ProviderRefused, match="cloud model"):
        OllamaProvider(model, base_url=ollama_server.url)
    assert ollama_server.received == []


@pytest.mark.parametrize("route", ["/api/show", "/api/tags", "/api/generate"])
def test_server_reported_remote_model_refused(route, ollama_server, ollama_generate, reply):
    remote = {"remote_host": "https://ollama.com:443", "remote_model": "kimi-k2-thinking"}
    if route == "/api/show":
        ollama_server.on("POST", route, reply(200, {"details": {}, **remote}))
    elif route == "/api/tags":
        ollama_server.on("GET", route, reply(200, {"models": [
            {"name": ollama_server.model, "digest": "1" * 64, **remote}]}))
    else:
        ollama_server.on("POST", route, reply(200, ollama_generate(**remote)))
    with pytest.raises(ProviderRefused, match="runs remotely"):
        provider(ollama_server).complete("p", max_tokens=8)


def test_redirect_refused_and_target_untouched(make_server, ollama_server, reply):
    origin = make_server()
    origin.on("POST", "/api/show", reply(302, b"", headers={"Location": ollama_server.url + "/api/show"}))
    with pytest.raises(ProviderRefused, match="302.*never followed"):
        OllamaProvider(ollama_server.model, base_url=origin.url, **FAST).complete("p", max_tokens=8)
    assert ollama_server.received == []


def test_proxy_environment_is_never_used(ollama_server, make_server, monkeypatch):
    proxy = make_server()
    for var in ("http_proxy", "HTTP_PROXY", "all_proxy"):
        monkeypatch.setenv(var, proxy.url)
    provider(ollama_server).complete("p", max_tokens=8)
    assert proxy.received == []


def test_huge_prompt_refused_before_sending(ollama_server):
    prompt = "def f(x):\n    return x + 1\n" * 400
    assert count_tokens(prompt) > 2048
    with pytest.raises(PromptTooLong, match=r"num_ctx 2048.*raise num_ctx"):
        provider(ollama_server, num_ctx=2048).complete(prompt, max_tokens=64)
    assert ollama_server.received == []


def test_margin_and_max_tokens_count_towards_the_limit(ollama_server):
    prompt = "word " * 1000
    n = count_tokens(prompt)
    p = provider(ollama_server, num_ctx=n + 100 + 50, context_margin=100, margin_fraction=0.0)
    p.complete(prompt, max_tokens=50)  # exactly fits
    with pytest.raises(PromptTooLong):
        p.complete(prompt, max_tokens=51)


def test_native_prompt_count_near_limit_marks_unusable(ollama_server, ollama_generate, reply):
    ollama_server.on("POST", "/api/generate", reply(200, ollama_generate(prompt_eval_count=1900, eval_count=10)))
    c = provider(ollama_server, num_ctx=2048, context_margin=256).complete("short", max_tokens=8)
    assert c.stop_reason == "stop" and not c.truncated
    assert not c.usable and "prompt_eval_count 1900" in c.unusable_reason


def test_context_overflow_during_generation_marks_unusable(ollama_server, ollama_generate, reply):
    ollama_server.on("POST", "/api/generate", reply(200, ollama_generate(prompt_eval_count=1000, eval_count=1100)))
    c = provider(ollama_server, num_ctx=2048, context_margin=16).complete("short", max_tokens=1024)
    assert not c.usable and "shifted the context" in c.unusable_reason


@pytest.mark.parametrize("body, match", [
    (b"<html>oops</html>", "not JSON"),
    (b'{"model": "m", "done": false, "response": ""}', "not final"),
    (b'{"model": "m", "done": true}', "'response' is NoneType"),
    (b'{"error": "model requires more system memory"}', "more system memory"),
])
def test_malformed_generate_bodies(ollama_server, reply, body, match):
    ollama_server.on("POST", "/api/generate", reply(200, body))
    with pytest.raises(ProviderResponseError, match=match):
        provider(ollama_server).complete("p", max_tokens=8)


def test_http_error_from_server(ollama_server, reply):
    ollama_server.on("POST", "/api/show", reply(404, {"error": "model 'x' not found"}))
    with pytest.raises(ProviderHTTPError, match="404.*not found") as err:
        provider(ollama_server).complete("p", max_tokens=8)
    assert len(ollama_server.received) == 1 and err.value.status == 404


def test_answer_from_another_model_is_rejected(ollama_server, ollama_generate, reply):
    ollama_server.on("POST", "/api/generate", reply(200, ollama_generate(model="llama3:latest")))
    with pytest.raises(ProviderResponseError, match="server answered as 'llama3:latest'"):
        provider(ollama_server).complete("p", max_tokens=8)
