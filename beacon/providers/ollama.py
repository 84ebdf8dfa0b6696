"""A local Ollama server through its native API (``POST /api/generate``).

This adapter exists for runs that must stay on the machine, so it is strict:

* only loopback hosts (127.0.0.0/8, ::1, localhost) are accepted, checked at
  construction, before any connection; redirects and proxies are never used;
* cloud models are refused, both by name (``*-cloud``, ``*:cloud*``) and when
  the server reports a remote model (``remote_host``/``remote_model``);
* the model's digest is taken from the server (``/api/show``, else
  ``/api/tags``), so a record names the exact weights that answered;
* a ``response_schema`` is sent as ``format`` (Ollama constrains decoding to
  that JSON schema); stop strings go into ``options.stop``;
* prompts that may not fit ``num_ctx`` are refused before sending (Ollama would
  otherwise silently drop the start of the prompt), and an answer whose native
  prompt count reached the context limit is marked not usable.
"""
from __future__ import annotations

import math
from typing import Any

from ..tokens import count_tokens
from . import transport
from .base import (
    Completion,
    PromptTooLong,
    ProviderConfigError,
    ProviderRefused,
    ProviderResponseError,
    canonical_json,
    check_call_args,
    check_extra_args,
    sha256_hex,
)
from .registry import register_provider

DEFAULT_BASE_URL = "http://127.0.0.1:11434"
_DONE_REASONS = {"stop": "stop", "length": "length"}
_REMOTE_KEYS = ("remote_host", "remote_model")
_DURATIONS = ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration")


def is_cloud_model_name(model: str) -> bool:
    name = model.lower()
    return name.endswith("-cloud") or ":cloud" in name


def _full_name(model: str) -> str:
    # Ollama lists "llama3" as "llama3:latest".
    return model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


@register_provider("ollama")
class OllamaProvider:
    """Completions from a model served by a local Ollama."""

    structured_output = "json_schema"  # can constrain decoding to a JSON schema (format)

    def __init__(
        self,
        model: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        num_ctx: int = 8192,
        context_margin: int = 256,
        margin_fraction: float = 0.1,
        timeout_s: float = 600.0,
        max_retries: int = 2,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 30.0,
        retry_after_cap_s: float = 60.0,
        keep_alive: str | None = None,
        name: str = "ollama",
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ProviderConfigError(f"{name}: model must be a non-empty string, got {model!r}")
        parts = transport.parse_base_url(base_url, name)
        if not transport.is_loopback_host(parts.hostname or ""):
            raise ProviderRefused(
                f"{name}: base_url {base_url!r} is not a loopback address; the Ollama adapter only "
                "talks to a server on this machine (127.0.0.1, ::1 or localhost). For a remote "
                "server use the 'openai' provider against its OpenAI-compatible endpoint"
            )
        if is_cloud_model_name(model):
            raise ProviderRefused(
                f"{name}: model {model!r} is an Ollama cloud model (runs on ollama.com, not here); "
                "pull and name a local model instead"
            )
        for field_name, value, low in (("num_ctx", num_ctx, 1), ("context_margin", context_margin, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ProviderConfigError(f"{name}: {field_name} must be an int >= {low}, got {value!r}")
        if not 0 <= margin_fraction < 1:
            raise ProviderConfigError(f"{name}: margin_fraction must be in [0, 1), got {margin_fraction!r}")
        self.name = name
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.num_ctx = num_ctx
        self.context_margin = context_margin
        self.margin_fraction = margin_fraction
        self.timeout_s = timeout_s
        self.keep_alive = keep_alive
        self.policy = transport.RetryPolicy(max_retries, backoff_base_s, backoff_max_s, retry_after_cap_s)
        self._opener = transport.build_opener(use_env_proxies=False)
        self._identity: dict[str, Any] | None = None  # digest + details, fetched once

    def __repr__(self) -> str:
        return f"OllamaProvider(name={self.name!r}, model={self.model!r}, base_url={self.base_url!r})"

    # -- identity -----------------------------------------------------------------

    def _call(self, method: str, path: str, body: bytes | None) -> tuple[dict[str, Any], transport.HttpResponse]:
        url = f"{self.base_url}{path}"
        resp = transport.request(self._opener, method, url, body, provider=self.name,
                                 timeout_s=self.timeout_s, policy=self.policy)
        return transport.decode_json_object(resp.body, self.name, f"{method} {url}"), resp

    def _refuse_remote(self, obj: dict[str, Any], where: str) -> None:
        remote = {k: obj[k] for k in _REMOTE_KEYS if obj.get(k)}
        if remote:
            raise ProviderRefused(
                f"{self.name}: {where} reports that {self.model!r} runs remotely ({remote}); "
                "cloud models are refused -- use a model whose weights are local"
            )

    def model_identity(self) -> dict[str, Any]:
        """The server-reported digest and details of ``model`` (fetched once, then cached).

        The cache lives as long as this provider: re-pulling the model mid-run
        is not detected, which is why a run should build a fresh provider.
        """
        if self._identity is not None:
            return self._identity
        show, _ = self._call("POST", "/api/show", canonical_json({"model": self.model}))
        self._refuse_remote(show, "/api/show")
        digest = show.get("digest") if isinstance(show.get("digest"), str) else None
        if digest is None:
            tags, _ = self._call("GET", "/api/tags", None)
            models = tags.get("models")
            if not isinstance(models, list):
                raise ProviderResponseError(f"{self.name}: GET /api/tags has no 'models' list")
            wanted = _full_name(self.model)
            entry = next((m for m in models if isinstance(m, dict) and wanted in
                          (_full_name(str(m.get("name", ""))), _full_name(str(m.get("model", ""))))), None)
            if entry is None:
                raise ProviderResponseError(
                    f"{self.name}: model {self.model!r} is not listed by {self.base_url}/api/tags; "
                    f"run `ollama pull {self.model}`"
                )
            self._refuse_remote(entry, "/api/tags")
            digest = entry.get("digest")
            if not isinstance(digest, str) or not digest:
                raise ProviderResponseError(f"{self.name}: /api/tags lists {self.model!r} without a digest")
        details = show.get("details") if isinstance(show.get("details"), dict) else {}
        self._identity = {"digest": digest, "details": details}
        return self._identity

    # -- generation ---------------------------------------------------------------

    def reserved_tokens(self, estimate: int) -> int:
        """Safety margin on top of a cl100k estimate: the model's own tokenizer and
        chat template can produce more tokens than cl100k counts."""
        return self.context_margin + math.ceil(estimate * self.margin_fraction)

    def request_body(self, prompt: str, *, max_tokens: int, temperature: float, seed: int | None,
                     response_schema: dict[str, Any] | None = None, stop: list[str] | None = None) -> bytes:
        """The exact bytes POSTed to /api/generate (their SHA-256 is ``request_sha256``)."""
        options: dict[str, Any] = {"num_ctx": self.num_ctx, "num_predict": max_tokens,
                                   "temperature": float(temperature)}  # 0 and 0.0 must hash alike
        if seed is not None:
            options["seed"] = seed
        if stop:
            options["stop"] = list(stop)
        body: dict[str, Any] = {"model": self.model, "prompt": prompt, "stream": False, "raw": False,
                                "options": options}
        if response_schema is not None:
            body["format"] = response_schema
        if self.keep_alive is not None:
            body["keep_alive"] = self.keep_alive
        return canonical_json(body)

    def complete(self, prompt: str, *, max_tokens: int, temperature: float = 0.0, seed: int | None = 0,
                 response_schema: dict[str, Any] | None = None, stop: list[str] | None = None) -> Completion:
        check_call_args(self.name, prompt, max_tokens, temperature, seed)
        check_extra_args(self.name, response_schema, stop)
        estimate = count_tokens(prompt)
        reserve = self.reserved_tokens(estimate)
        if estimate + reserve + max_tokens > self.num_ctx:
            raise PromptTooLong(
                f"{self.name}: prompt is ~{estimate} tokens (cl100k) + {reserve} safety margin + "
                f"max_tokens {max_tokens} > num_ctx {self.num_ctx}; lower the context budget or "
                "max_tokens, or raise num_ctx (within what the model and memory allow)"
            )
        identity = self.model_identity()
        body = self.request_body(prompt, max_tokens=max_tokens, temperature=temperature, seed=seed,
                                 response_schema=response_schema, stop=stop)
        payload, resp = self._call("POST", "/api/generate", body)
        self._refuse_remote(payload, "/api/generate")
        return self._completion(payload, body, resp, identity, estimate, reserve,
                                constrained=response_schema is not None)

    def _completion(self, payload: dict[str, Any], body: bytes, resp: transport.HttpResponse,
                    identity: dict[str, Any], estimate: int, reserve: int, *,
                    constrained: bool = False) -> Completion:
        where = f"{self.name}: POST {self.base_url}/api/generate"
        if payload.get("done") is not True:
            raise ProviderResponseError(f"{where}: response is not final (done={payload.get('done')!r})")
        text = payload.get("response")
        if not isinstance(text, str):
            raise ProviderResponseError(f"{where}: 'response' is {type(text).__name__}, expected a string")
        model = payload.get("model")
        if not isinstance(model, str) or not model:
            raise ProviderResponseError(f"{where}: response does not name its model")
        if _full_name(model) != _full_name(self.model):
            # The digest was looked up for the requested name; it would be a lie
            # to attach it to an answer from another model.
            raise ProviderResponseError(
                f"{where}: asked for model {self.model!r} but the server answered as {model!r}"
            )
        done_reason = payload.get("done_reason") if isinstance(payload.get("done_reason"), str) else None
        stop = _DONE_REASONS.get(done_reason, "unknown") if done_reason else "unknown"
        prompt_count = _count(payload.get("prompt_eval_count"))
        output_count = _count(payload.get("eval_count"))
        unusable = None
        # Ollama keeps only the end of a prompt that does not fit; a native
        # count at the limit means the model may not have seen all of it.
        if prompt_count is not None and prompt_count >= self.num_ctx - self.context_margin:
            unusable = (f"prompt_eval_count {prompt_count} reached num_ctx {self.num_ctx} - margin "
                        f"{self.context_margin}: the prompt may have been truncated by the server")
        elif prompt_count is not None and output_count is not None and prompt_count + output_count > self.num_ctx:
            unusable = (f"prompt_eval_count {prompt_count} + eval_count {output_count} exceeds num_ctx "
                        f"{self.num_ctx}: the server shifted the context during generation")
        raw: dict[str, Any] = {
            "base_url": self.base_url,
            "attempts": resp.attempts,
            "num_ctx": self.num_ctx,
            "estimated_prompt_tokens_cl100k": estimate,
            "reserved_tokens": reserve,
            "details": identity["details"],
            **{k: payload[k] for k in _DURATIONS if k in payload},
        }
        if constrained:
            raw["structured_output"] = {"mode": "json_schema", "sent_as": "format"}
        return Completion(
            text=text,
            input_tokens=prompt_count,
            output_tokens=output_count,
            stop_reason=stop,
            raw_stop_reason=done_reason,
            model=model,
            model_digest=identity["digest"],
            request_sha256=sha256_hex(body),
            response_sha256=sha256_hex(resp.body),
            server_authenticated=False,  # a local Ollama has no authentication
            truncated=stop == "length",
            latency_s=resp.latency_s,
            raw=raw,
            unusable_reason=unusable,
        )
