"""OpenAI-compatible chat completions (api.openai.com, vLLM, llama.cpp server, ...).

One user message per call, ``POST {base_url}/chat/completions``. A
``response_schema`` is sent as ``response_format: {"type": "json_schema",
"json_schema": {"name", "schema"}}`` (OpenAI, vLLM, llama.cpp's own server);
``schema_format="json_object_schema"`` sends ``{"type": "json_object",
"schema": ...}`` instead, the form llama-cpp-python's server turns into a
grammar (its ``response_format`` type is ``text`` or ``json_object``). The API key is
read from an environment variable whose *name* is configured (never the key
itself), at call time, and is kept out of every Completion, ``raw`` dict,
repr and error message. Loopback servers may run without a key.
"""
from __future__ import annotations

import os
from typing import Any

from . import transport
from .base import (
    Completion,
    ProviderConfigError,
    ProviderResponseError,
    canonical_json,
    check_call_args,
    check_extra_args,
    sha256_hex,
)
from .registry import register_provider

# finish_reason -> normalised stop reason ("abort" is vLLM's cancelled request).
_FINISH_REASONS = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "abort": "error",
    "error": "error",
}


# How a JSON schema is put into the request body (see the module docstring).
SCHEMA_FORMATS = ("json_schema", "json_object_schema")
MODE = "json_schema"


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


@register_provider("openai")
class OpenAIProvider:
    """Chat completions against any OpenAI-compatible server."""

    structured_output = MODE  # can constrain decoding to a JSON schema (response_format)

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key_env: str = "OPENAI_API_KEY",
        timeout_s: float = 120.0,
        max_retries: int = 4,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 30.0,
        retry_after_cap_s: float = 60.0,
        allow_http: bool = False,
        schema_format: str = "json_schema",
        name: str = "openai",
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ProviderConfigError(f"{name}: model must be a non-empty string, got {model!r}")
        if schema_format not in SCHEMA_FORMATS:
            raise ProviderConfigError(f"{name}: schema_format must be one of {SCHEMA_FORMATS}, got {schema_format!r}")
        self.schema_format = schema_format
        parts = transport.parse_base_url(base_url, name)
        self.name = name
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.api_key_env = api_key_env
        self.timeout_s = timeout_s
        self.loopback = transport.is_loopback_host(parts.hostname or "")
        if not self.loopback:
            self._api_key()  # fail at construction, not on the first of many calls
            if parts.scheme != "https" and not allow_http:
                raise ProviderConfigError(
                    f"{name}: base_url {base_url!r} would send the API key unencrypted to a "
                    "non-loopback host; use https://, or pass allow_http=True for a trusted network"
                )
        self.policy = transport.RetryPolicy(max_retries, backoff_base_s, backoff_max_s, retry_after_cap_s)
        # Proxies from the environment apply to remote services only: a
        # loopback server must be reached directly.
        self._opener = transport.build_opener(use_env_proxies=not self.loopback)

    def __repr__(self) -> str:
        return (f"OpenAIProvider(name={self.name!r}, model={self.model!r}, base_url={self.base_url!r}, "
                f"api_key_env={self.api_key_env!r})")

    def _api_key(self) -> str | None:
        key = os.environ.get(self.api_key_env) or None
        if key is None and not self.loopback:
            raise ProviderConfigError(
                f"{self.name}: environment variable {self.api_key_env} is not set; export the API key "
                f"for {self.base_url} in it (or set api_key_env to the variable that holds it)"
            )
        return key

    def request_body(self, prompt: str, *, max_tokens: int, temperature: float, seed: int | None,
                     response_schema: dict[str, Any] | None = None, stop: list[str] | None = None) -> bytes:
        """The exact bytes POSTed for this call (their SHA-256 is ``request_sha256``).

        Without a schema or stop strings the body is byte-identical to the one
        sent before they existed (recorded request hashes stay comparable).
        """
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "max_tokens": max_tokens,
            "temperature": float(temperature),  # 0 and 0.0 must hash alike
        }
        if seed is not None:
            body["seed"] = seed
        if stop:
            body["stop"] = list(stop)
        if response_schema is not None:
            if self.schema_format == "json_object_schema":
                body["response_format"] = {"type": "json_object", "schema": response_schema}
            else:
                name = str(response_schema.get("title") or "answer")
                body["response_format"] = {"type": "json_schema",
                                           "json_schema": {"name": name, "schema": response_schema}}
        return canonical_json(body)

    def complete(self, prompt: str, *, max_tokens: int, temperature: float = 0.0, seed: int | None = 0,
                 response_schema: dict[str, Any] | None = None, stop: list[str] | None = None) -> Completion:
        check_call_args(self.name, prompt, max_tokens, temperature, seed)
        check_extra_args(self.name, response_schema, stop)
        key = self._api_key()
        body = self.request_body(prompt, max_tokens=max_tokens, temperature=temperature, seed=seed,
                                 response_schema=response_schema, stop=stop)
        secrets = (key,) if key else ()
        resp = transport.request(
            self._opener, "POST", self.url, body, provider=self.name, timeout_s=self.timeout_s,
            policy=self.policy, headers={"Authorization": f"Bearer {key}"} if key else {}, secrets=secrets,
        )
        payload = transport.decode_json_object(resp.body, self.name, f"POST {self.url}", secrets)
        return self._completion(payload, body, resp, authenticated=key is not None, secrets=secrets,
                                constrained=response_schema is not None)

    def _completion(self, payload: dict[str, Any], body: bytes, resp: transport.HttpResponse, *,
                    authenticated: bool, secrets: tuple[str, ...], constrained: bool = False) -> Completion:
        where = f"{self.name}: POST {self.url}"
        choices = payload.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise ProviderResponseError(f"{where}: response has no choices[0] object: "
                                        f"{transport.redact(str(payload)[:300], secrets)}")
        choice = choices[0]
        message = choice.get("message")
        if not isinstance(message, dict):
            raise ProviderResponseError(f"{where}: choices[0].message is missing or not an object")
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            raise ProviderResponseError(f"{where}: choices[0].message.content is {type(content).__name__}, expected a string")
        finish = choice.get("finish_reason")
        stop = _FINISH_REASONS.get(finish, "unknown") if isinstance(finish, str) else "unknown"
        usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
        reported_model = payload.get("model")
        raw: dict[str, Any] = {
            "base_url": self.base_url,
            "attempts": resp.attempts,
            "id": payload.get("id"),
            "system_fingerprint": payload.get("system_fingerprint"),
            "usage": usage,
            "n_choices": len(choices),
            # Without a reported model we fall back to the requested name, and say so.
            "model_reported": isinstance(reported_model, str) and bool(reported_model),
        }
        if constrained:
            # What was asked for, not a promise kept: a server may ignore it (the parse stays strict).
            raw["structured_output"] = {"mode": MODE, "sent_as": f"response_format ({self.schema_format})"}
        if message.get("refusal"):
            raw["refusal"] = message["refusal"]
        return Completion(
            text=content or "",
            input_tokens=_count(usage.get("prompt_tokens")),
            output_tokens=_count(usage.get("completion_tokens")),
            stop_reason=stop,
            raw_stop_reason=finish if isinstance(finish, str) else None,
            model=reported_model if raw["model_reported"] else self.model,
            model_digest=None,  # OpenAI-compatible servers report no weights digest
            request_sha256=sha256_hex(body),
            response_sha256=sha256_hex(resp.body),
            server_authenticated=authenticated,
            truncated=stop == "length",
            latency_s=resp.latency_s,
            raw=transport.scrub(raw, secrets),
        )

