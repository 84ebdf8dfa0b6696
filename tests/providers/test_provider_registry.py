"""Completion invariants, the Provider protocol and the provider registry."""
from __future__ import annotations

import dataclasses
import hashlib

import pytest

from beacon.providers import (
    PROVIDERS,
    Completion,
    OllamaProvider,
    OpenAIProvider,
    Provider,
    ProviderConfigError,
    ProviderRefused,
    ReplayProvider,
    UnknownProviderError,
    canonical_json,
    make_provider,
    prompt_sha256,
    register_provider,
)


def completion(**kw) -> Completion:
    base = dict(text="t", input_tokens=1, output_tokens=1, stop_reason="stop", raw_stop_reason="stop", model="m",
                model_digest=None, request_sha256="a" * 64, response_sha256="b" * 64,
                server_authenticated=None, truncated=False, latency_s=0.0)
    return Completion(**{**base, **kw})


@pytest.mark.parametrize("kw, usable", [
    ({}, True),
    ({"stop_reason": "length", "truncated": True}, False),
    ({"truncated": True}, False),  # e.g. an adapter that saw the output budget exhausted
    ({"stop_reason": "content_filter"}, False),
    ({"stop_reason": "unknown"}, False),
    ({"unusable_reason": "prompt filled the context"}, False),
])
def test_usable_gate(kw, usable):
    assert completion(**kw).usable is usable


def test_completion_invariants():
    with pytest.raises(ValueError, match="truncated is False"):
        completion(stop_reason="length")
    with pytest.raises(ValueError, match="not one of"):
        completion(stop_reason="eos")
    with pytest.raises(ValueError, match="latency_s"):
        completion(latency_s=float("nan"))
    c = completion()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.text = "x"  # type: ignore[misc]
    assert hash(c) == hash(completion())  # hashable although raw is a dict
    assert "usable" not in c.to_dict()


def test_hash_helpers():
    assert prompt_sha256("é") == hashlib.sha256("é".encode("utf-8")).hexdigest()
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'.encode("utf-8")
    with pytest.raises(ValueError):
        canonical_json({"x": float("inf")})


def test_builtin_providers_satisfy_protocol(tmp_path):
    (tmp_path / "r.jsonl").write_text("")
    built = [
        make_provider("replay", recordings=tmp_path / "r.jsonl"),
        make_provider("openai", model="m", base_url="http://127.0.0.1:1/v1"),
        make_provider("ollama", model="m", num_ctx=4096),
    ]
    assert [type(p) for p in built] == [ReplayProvider, OpenAIProvider, OllamaProvider]
    assert all(isinstance(p, Provider) for p in built)
    assert {"replay", "openai", "ollama"} <= set(PROVIDERS)


def test_make_provider_errors():
    with pytest.raises(UnknownProviderError, match="unknown provider 'nope'; known providers: .*ollama"):
        make_provider("nope")
    with pytest.raises(ProviderConfigError, match="provider 'openai': bad parameters"):
        make_provider("openai", model="m", base_url="http://127.0.0.1:1/v1", tempreature=0.1)
    with pytest.raises(ProviderRefused):  # real constructor errors pass through unchanged
        make_provider("ollama", model="m", base_url="http://10.1.2.3:11434")


def test_register_provider_refuses_duplicates(monkeypatch):
    monkeypatch.setattr("beacon.providers.registry.PROVIDERS", dict(PROVIDERS))
    from beacon.providers import registry

    @registry.register_provider("echo-test")
    class Echo:
        def __init__(self, name: str = "echo-test") -> None:
            self.name = name

        def complete(self, prompt, *, max_tokens, temperature=0.0, seed=0):
            raise NotImplementedError

    assert isinstance(registry.make_provider("echo-test"), Echo)
    with pytest.raises(ProviderConfigError, match="already registered"):
        registry.register_provider("echo-test")(Echo)
    with pytest.raises(ProviderConfigError, match="already registered"):
        register_provider("openai")(Echo)
