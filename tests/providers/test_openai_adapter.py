"""The OpenAI-compatible adapter against a real loopback server."""
from __future__ import annotations

import hashlib
import json
import time

import pytest

from beacon.providers import (
    OpenAIProvider,
    ProviderConfigError,
    ProviderConnectionError,
    ProviderHTTPError,
    ProviderRefused,
    ProviderResponseError,
    prompt_sha256,
)

KEY = "sk-test-Zq9SECRETvalue1234567890"
FAST = {"backoff_base_s": 0.001, "backoff_max_s": 0.01}
ROUTE = "/v1/chat/completions"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_body_fields_hashes_and_normalised_fields(openai_server):
    p = OpenAIProvider("gpt-test", base_url=openai_server.base_url, **FAST)
    c = p.complete("fix the bug ✓", max_tokens=64, temperature=0.2, seed=7)

    (req,) = openai_server.received
    assert (req.method, req.path) == ("POST", ROUTE)
    assert req.headers["content-type"] == "application/json"
    assert req.json() == {"model": "gpt-test", "messages": [{"role": "user", "content": "fix the bug ✓"}],
                          "max_tokens": 64, "temperature": 0.2, "seed": 7}
    # The body on the wire is the canonical encoding, and is what was hashed.
    assert req.body == json.dumps(req.json(), sort_keys=True, separators=(",", ":"),
                                  ensure_ascii=False).encode()
    assert c.request_sha256 == sha(req.body)
    assert c.response_sha256 == sha(openai_server.sent[0])
    assert (c.text, c.input_tokens, c.output_tokens) == ("patched", 11, 7)
    assert (c.stop_reason, c.raw_stop_reason, c.truncated, c.usable) == ("stop", "stop", False, True)
    assert c.model == "test-model-0613"  # what the service reported, not what was asked
    assert c.model_digest is None and c.server_authenticated is False
    assert c.raw["attempts"] == 1 and c.raw["system_fingerprint"] == "fp_test"
    assert c.latency_s > 0


def test_hashes_are_reproducible(openai_server):
    p = OpenAIProvider("gpt-test", base_url=openai_server.base_url)
    a = p.complete("same prompt", max_tokens=10)
    b = OpenAIProvider("gpt-test", base_url=openai_server.base_url).complete("same prompt", max_tokens=10)
    c = p.complete("other prompt", max_tokens=10)
    assert a.request_sha256 == b.request_sha256 != c.request_sha256
    assert a.response_sha256 == b.response_sha256
    assert prompt_sha256("same prompt") == sha("same prompt".encode("utf-8"))


def test_seed_none_is_not_sent(openai_server):
    OpenAIProvider("m", base_url=openai_server.base_url).complete("p", max_tokens=5, seed=None)
    assert "seed" not in openai_server.received[0].json()


def test_authorization_only_when_key_set_and_key_never_leaks(openai_server, monkeypatch):
    p = OpenAIProvider("m", base_url=openai_server.base_url, api_key_env="BEACON_TEST_KEY")
    c0 = p.complete("p", max_tokens=5)
    assert "authorization" not in openai_server.received[0].headers
    assert c0.server_authenticated is False

    monkeypatch.setenv("BEACON_TEST_KEY", KEY)
    c1 = p.complete("p", max_tokens=5)
    assert openai_server.received[1].headers["authorization"] == f"Bearer {KEY}"
    assert c1.server_authenticated is True
    for text in (repr(c1), json.dumps(c1.raw), json.dumps(c1.to_dict()), repr(p), repr(vars(p))):
        assert KEY not in text
    # The key only enters the headers: request hashes do not depend on it.
    assert c0.request_sha256 == c1.request_sha256


def test_remote_base_url_needs_key_and_https(monkeypatch):
    with pytest.raises(ProviderConfigError, match="BEACON_TEST_KEY is not set"):
        OpenAIProvider("m", base_url="https://api.example.invalid/v1", api_key_env="BEACON_TEST_KEY")
    monkeypatch.setenv("BEACON_TEST_KEY", KEY)
    with pytest.raises(ProviderConfigError, match="unencrypted") as err:
        OpenAIProvider("m", base_url="http://api.example.invalid/v1", api_key_env="BEACON_TEST_KEY")
    assert KEY not in str(err.value)
    OpenAIProvider("m", base_url="https://api.example.invalid/v1", api_key_env="BEACON_TEST_KEY")


@pytest.mark.parametrize("bad", ["ftp://127.0.0.1/v1", "127.0.0.1:8080", "http://u:pw@127.0.0.1/v1",
                                 "http://127.0.0.1:99999/v1", "http://127.0.0.1/v1?x=1"])
def test_bad_base_urls(bad):
    with pytest.raises(ProviderConfigError, match="base_url"):
        OpenAIProvider("m", base_url=bad)


def test_retries_429_then_succeeds(make_server, reply, openai_body):
    srv = make_server()
    srv.on("POST", ROUTE, reply(429, {"error": "slow down"}), reply(503, b"busy"), reply(200, openai_body("ok")))
    c = OpenAIProvider("m", base_url=srv.url + "/v1", **FAST).complete("p", max_tokens=5)
    assert c.text == "ok" and c.raw["attempts"] == 3
    assert len(srv.received) == 3
    assert len({r.body for r in srv.received}) == 1  # every retry re-sends the same bytes
    assert c.response_sha256 == sha(srv.sent[-1])


def test_retry_after_is_honoured_up_to_the_cap(make_server, reply, openai_body):
    srv = make_server()
    srv.on("POST", ROUTE, reply(429, b"{}", headers={"Retry-After": "5"}), reply(200, openai_body()))
    p = OpenAIProvider("m", base_url=srv.url + "/v1", retry_after_cap_s=0.3, **FAST)
    p.complete("p", max_tokens=5)
    gap = srv.received[1].at - srv.received[0].at
    assert 0.3 <= gap < 2.0  # waited the capped Retry-After, not the 1 ms backoff nor 5 s


def test_persistent_5xx_gives_up_with_status(make_server, reply):
    srv = make_server()
    srv.on("POST", ROUTE, reply(500, b"internal kaboom"))
    p = OpenAIProvider("m", base_url=srv.url + "/v1", max_retries=3, **FAST)
    with pytest.raises(ProviderHTTPError, match="HTTP 500: internal kaboom") as err:
        p.complete("p", max_tokens=5)
    assert (err.value.status, err.value.attempts) == (500, 4)
    assert len(srv.received) == 4


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_other_4xx_is_not_retried(make_server, reply, monkeypatch, status):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    srv = make_server()
    # Real services echo the rejected key; it must not reach the message.
    srv.on("POST", ROUTE, reply(status, {"error": {"message": f"Incorrect API key provided: {KEY}"}}))
    with pytest.raises(ProviderHTTPError) as err:
        OpenAIProvider("m", base_url=srv.url + "/v1", **FAST).complete("p", max_tokens=5)
    assert err.value.status == status and len(srv.received) == 1
    assert KEY not in str(err.value) and "Incorrect API key provided: ***" in str(err.value)


def test_finish_reason_length_is_truncated_and_unusable(make_server, reply, openai_body):
    srv = make_server()
    srv.on("POST", ROUTE, reply(200, openai_body("def f(:", finish_reason="length")))
    c = OpenAIProvider("m", base_url=srv.url + "/v1").complete("p", max_tokens=5)
    assert (c.stop_reason, c.truncated, c.usable) == ("length", True, False)


def test_missing_usage_and_model_are_reported_as_such(make_server, reply, openai_body):
    body = openai_body(prompt_tokens=None)
    del body["model"]
    srv = make_server()
    srv.on("POST", ROUTE, reply(200, body))
    c = OpenAIProvider("asked-for", base_url=srv.url + "/v1").complete("p", max_tokens=5)
    assert (c.input_tokens, c.output_tokens) == (None, None)
    assert c.model == "asked-for" and c.raw["model_reported"] is False


@pytest.mark.parametrize("body, match", [
    (b"{not json", "not JSON"),
    (b"[1, 2]", "expected an object"),
    (b'{"choices": []}', r"no choices\[0\]"),
    (b'{"choices": [{"message": {"content": 3}}]}', "expected a string"),
    (b'{"error": {"message": "model overloaded"}}', "model overloaded"),
])
def test_malformed_success_bodies(make_server, reply, body, match):
    srv = make_server()
    srv.on("POST", ROUTE, reply(200, body))
    with pytest.raises(ProviderResponseError, match=match):
        OpenAIProvider("m", base_url=srv.url + "/v1", **FAST).complete("p", max_tokens=5)
    assert len(srv.received) == 1  # a malformed answer is not retried


def test_connection_refused_retries_then_fails(closed_port):
    p = OpenAIProvider("m", base_url=f"http://127.0.0.1:{closed_port}/v1", max_retries=2, **FAST)
    with pytest.raises(ProviderConnectionError, match=f"after 3 attempts.*127.0.0.1:{closed_port}"):
        p.complete("p", max_tokens=5)


def test_timeout_is_a_connection_error(make_server, reply, openai_body):
    srv = make_server()
    srv.on("POST", ROUTE, reply(200, openai_body(), delay_s=0.5))
    p = OpenAIProvider("m", base_url=srv.url + "/v1", timeout_s=0.1, max_retries=0)
    start = time.monotonic()
    with pytest.raises(ProviderConnectionError, match="timed out"):
        p.complete("p", max_tokens=5)
    assert time.monotonic() - start < 0.45


def test_redirect_is_refused_not_followed(make_server, reply, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    target, origin = make_server(), make_server()
    origin.on("POST", ROUTE, reply(302, b"", headers={"Location": target.url + ROUTE}))
    with pytest.raises(ProviderRefused, match="302 redirecting to .*never followed"):
        OpenAIProvider("m", base_url=origin.url + "/v1", **FAST).complete("p", max_tokens=5)
    assert len(origin.received) == 1 and target.received == []


def test_loopback_ignores_proxy_environment(openai_server, make_server, monkeypatch):
    proxy = make_server()
    monkeypatch.setenv("http_proxy", proxy.url)
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    OpenAIProvider("m", base_url=openai_server.base_url).complete("p", max_tokens=5)
    assert proxy.received == [] and len(openai_server.received) == 1


@pytest.mark.parametrize("kwargs", [{"max_tokens": 0}, {"max_tokens": True}, {"max_tokens": 5, "temperature": -1},
                                    {"max_tokens": 5, "seed": 1.5}])
def test_bad_call_arguments_send_nothing(openai_server, kwargs):
    with pytest.raises(ValueError):
        OpenAIProvider("m", base_url=openai_server.base_url).complete("p", **kwargs)
    assert openai_server.received == []


def test_int_and_float_temperature_send_identical_bytes(openai_server):
    p = OpenAIProvider("m", base_url=openai_server.base_url)
    assert p.complete("p", max_tokens=5, temperature=0).request_sha256 == \
        p.complete("p", max_tokens=5, temperature=0.0).request_sha256
    assert openai_server.received[0].body == openai_server.received[1].body
