"""A real model on this machine: llama-cpp-python's OpenAI-compatible server, started by us.

The ``local_llm`` provider starts ``python -m llama_cpp.server`` on 127.0.0.1
(lazily, at the first call; one server per provider instance; killed on
:meth:`LocalLLMProvider.close` or at exit) with a GGUF model -- a packaged one
by label (:mod:`beacon.providers.local_models`: SmolLM2-135M-Instruct, the
default, or Gemma 3 270M), or any file through ``model_path`` -- and talks to
it through the ``openai`` adapter, so the HTTP code, request hashing and
response parsing are the same as for any OpenAI-compatible service. A JSON
schema is sent as ``response_format: {"type": "json_object", "schema": ...}``,
which llama-cpp-python's server compiles into a grammar that constrains
decoding.

Token counts are the model's own, never cl100k estimates:

* Before sending, the prompt is tokenized by the server (``/extras/tokenize``)
  and the chat template's overhead is added. The server cannot tokenize chat
  messages, so the overhead is measured once per server start: a one-token
  chat completion of a probe message, whose ``usage.prompt_tokens`` minus the
  probe's own token count is what the template adds. A prompt whose
  ``tokens + max_tokens`` does not fit ``n_ctx`` is *not sent*; the call
  returns an unusable :class:`Completion` (``context_overflow: ...``) so the
  run records the overflow as an outcome instead of crashing.
* After the answer, ``usage.prompt_tokens`` (the count the model really saw)
  becomes ``input_tokens``; if it shows the prompt did not fit after all (the
  server would have shortened ``max_tokens`` silently) the completion is
  marked unusable too.

A request that runs past ``timeout_s`` raises :class:`LocalLLMTimeout`, whose
message says "timed out" so the repair harness scores the attempt ``timeout``
(as it does for the openai and ollama adapters). The server is then killed --
llama.cpp would otherwise keep generating the abandoned answer and block the
next request -- and restarted at the next call.
"""
from __future__ import annotations

import dataclasses
import importlib.metadata
import sys
import threading
from pathlib import Path
from typing import Any

from ..digests import sha256_file
from . import transport
from .base import (
    Completion,
    ProviderConfigError,
    ProviderConnectionError,
    ProviderResponseError,
    canonical_json,
    check_call_args,
    check_extra_args,
    sha256_hex,
)
from .local_models import chat_format_for, model_path_for
from .llama_server import LocalServer, LocalServerError, check_loopback_host, free_port
from .openai import OpenAIProvider
from .registry import register_provider

DEFAULT_SERVER_COMMAND = (
    "{python}", "-m", "llama_cpp.server", "--model", "{model_path}", "--host", "{host}",
    "--port", "{port}", "--n_ctx", "{n_ctx}", "--n_threads", "{n_threads}",
    "--n_threads_batch", "{n_threads}", "--seed", "{seed}",
)
# A short, plain probe: its tokens are unambiguous, so usage - tokenize(probe)
# is exactly what the chat template adds around a user message.
_PROBE = "Hello"
_FILE_DIGESTS: dict[tuple[str, int, int], str] = {}


class LocalLLMTimeout(ProviderConnectionError):
    """A request to the local server ran past ``timeout_s`` (the server was stopped)."""


def default_model_path(label: str = "smollm2-135m-instruct", cache_dir: str | None = None) -> Path:
    """The GGUF of the packaged model ``label`` (:mod:`beacon.providers.local_models`)."""
    return model_path_for(label, cache_dir)


def file_sha256(path: Path) -> str:
    """SHA-256 of a (large) file, cached per (path, size, mtime) for the life of the process."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _FILE_DIGESTS:
        _FILE_DIGESTS[key] = sha256_file(path)
    return _FILE_DIGESTS[key]


def llama_cpp_version() -> str | None:
    try:
        return importlib.metadata.version("llama_cpp_python")
    except importlib.metadata.PackageNotFoundError:
        return None


def _positive_int(name: str, value: Any, provider: str, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ProviderConfigError(f"{provider}: {name} must be an int >= {low}, got {value!r}")
    return value


@register_provider("local_llm")
class LocalLLMProvider:
    """Completions from a GGUF model served by a llama.cpp server this provider starts."""

    structured_output = "json_schema"  # llama.cpp grammar from the schema (response_format json_object)

    def __init__(
        self,
        model: str = "smollm2-135m-instruct",
        *,
        model_path: str | None = None,
        model_cache_dir: str | None = None,
        chat_format: str | None = None,
        n_ctx: int = 8192,
        host: str = "127.0.0.1",
        port: int = 0,
        n_threads: int = 2,
        seed: int = 0,
        context_margin: int = 0,
        startup_timeout_s: float = 120.0,
        timeout_s: float = 600.0,
        server_command: list[str] | tuple[str, ...] | None = None,
        name: str = "local_llm",
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ProviderConfigError(f"{name}: model must be a non-empty label, got {model!r}")
        self.name = name
        self.model = model
        self.host = check_loopback_host(host, name)
        self.n_ctx = _positive_int("n_ctx", n_ctx, name)
        self.port = _positive_int("port", port, name, low=0)
        self.n_threads = _positive_int("n_threads", n_threads, name)
        self.seed = _positive_int("seed", seed, name, low=0)
        self.context_margin = _positive_int("context_margin", context_margin, name, low=0)
        for label, value in (("startup_timeout_s", startup_timeout_s), ("timeout_s", timeout_s)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ProviderConfigError(f"{name}: {label} must be a number > 0, got {value!r}")
        self.timeout_s = float(timeout_s)
        # An explicit file wins; otherwise the label names a packaged model (chunked ones are
        # assembled into model_cache_dir, default ~/.cache/beacon/models).
        self.model_path = Path(model_path).expanduser() if model_path else default_model_path(model, model_cache_dir)
        if not self.model_path.is_file():
            raise ProviderConfigError(f"{name}: model_path {str(self.model_path)!r} is not a file")
        # The packaged model's chat format unless one is given; None leaves the GGUF's own template.
        self.chat_format = chat_format or (None if model_path else chat_format_for(model))
        if self.chat_format is not None and not isinstance(self.chat_format, str):
            raise ProviderConfigError(f"{name}: chat_format must be a string or null, got {chat_format!r}")
        command = list(server_command) if server_command is not None else list(DEFAULT_SERVER_COMMAND)
        if server_command is None and self.chat_format:
            command += ["--chat_format", "{chat_format}"]
        if not command or not all(isinstance(part, str) and part for part in command):
            raise ProviderConfigError(f"{name}: server_command must be a non-empty list of strings, got {command!r}")
        self.default_command = server_command is None
        self.server = LocalServer(command, host=self.host, startup_wait_s=float(startup_timeout_s), provider=name)
        self._opener = transport.build_opener(use_env_proxies=False)  # loopback: never via a proxy
        self._lock = threading.Lock()  # one request at a time: llama.cpp serves them serially anyway
        self._chat: OpenAIProvider | None = None
        self._template_overhead: int | None = None
        self.startup_s: float | None = None

    def __repr__(self) -> str:
        return (f"LocalLLMProvider(name={self.name!r}, model={self.model!r}, "
                f"model_path={str(self.model_path)!r}, n_ctx={self.n_ctx})")

    # -- server lifecycle -------------------------------------------------------------

    def _ensure_server(self) -> OpenAIProvider:
        if self._chat is not None and self.server.running:
            return self._chat
        self._chat = None
        port = self.port or free_port(self.host)
        info = self.server.start({
            "python": sys.executable, "model_path": str(self.model_path), "host": self.host, "port": port,
            "n_ctx": self.n_ctx, "n_threads": self.n_threads, "seed": self.seed,
            "chat_format": self.chat_format or "",
        })
        self.startup_s = info.startup_s
        # No retries: a retried generation on a local server only doubles the wait.
        self._chat = OpenAIProvider(self.model, base_url=f"{info.base_url}/v1", timeout_s=self.timeout_s,
                                    max_retries=0, schema_format="json_object_schema", name=self.name)
        self._template_overhead = self._measure_template_overhead(self._chat)
        return self._chat

    def close(self) -> None:
        """Stop the server (it restarts at the next call)."""
        self._chat = None
        self.server.stop()

    def __enter__(self) -> LocalLLMProvider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- native token counts ----------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` by the model's own tokenizer (served by ``/extras/tokenize``)."""
        chat = self._ensure_server()
        url = f"{chat.base_url.removesuffix('/v1')}/extras/tokenize"
        resp = transport.request(self._opener, "POST", url, canonical_json({"input": text}), provider=self.name,
                                 timeout_s=self.timeout_s, policy=transport.RetryPolicy(max_retries=0))
        payload = transport.decode_json_object(resp.body, self.name, f"POST {url}")
        tokens = payload.get("tokens")
        if not isinstance(tokens, list):
            raise ProviderResponseError(f"{self.name}: POST {url} answered without a 'tokens' list")
        return len(tokens)

    def _measure_template_overhead(self, chat: OpenAIProvider) -> int:
        probe = chat.complete(_PROBE, max_tokens=1, temperature=0.0, seed=self.seed)
        if probe.input_tokens is None:
            raise ProviderResponseError(
                f"{self.name}: the server's chat completion reports no usage.prompt_tokens; "
                "cannot verify that prompts fit n_ctx"
            )
        overhead = probe.input_tokens - self.count_tokens(_PROBE)
        if overhead < 0:
            raise ProviderResponseError(
                f"{self.name}: chat usage.prompt_tokens {probe.input_tokens} is smaller than the probe's "
                f"own token count; the server's tokenizer and chat template disagree"
            )
        return overhead

    def prompt_tokens(self, prompt: str) -> int:
        """Native tokens of ``prompt`` as the model sees it: content + chat template."""
        self._ensure_server()
        assert self._template_overhead is not None
        return self.count_tokens(prompt) + self._template_overhead

    # -- completion -------------------------------------------------------------------

    def complete(self, prompt: str, *, max_tokens: int, temperature: float = 0.0, seed: int | None = 0,
                 response_schema: dict[str, Any] | None = None, stop: list[str] | None = None) -> Completion:
        check_call_args(self.name, prompt, max_tokens, temperature, seed)
        check_extra_args(self.name, response_schema, stop)
        with self._lock:
            return self._complete(prompt, max_tokens, temperature, seed,
                                  {"response_schema": response_schema, "stop": stop})

    def _complete(self, prompt: str, max_tokens: int, temperature: float, seed: int | None,
                  extra: dict[str, Any]) -> Completion:
        try:
            chat = self._ensure_server()
            predicted = self.prompt_tokens(prompt)
            body = chat.request_body(prompt, max_tokens=max_tokens, temperature=temperature, seed=seed, **extra)
            if predicted + max_tokens + self.context_margin > self.n_ctx:
                margin = f" + margin {self.context_margin}" if self.context_margin else ""
                return self._overflow(body, predicted, f"context_overflow: prompt {predicted} + max_tokens "
                                      f"{max_tokens}{margin} > n_ctx {self.n_ctx} (not sent)")
            result = chat.complete(prompt, max_tokens=max_tokens, temperature=temperature, seed=seed, **extra)
        except ProviderConnectionError as exc:
            raise self._connection_failure(exc) from None
        unusable = result.unusable_reason
        if result.input_tokens is not None and result.input_tokens + max_tokens > self.n_ctx:
            unusable = (f"context_overflow: server counted prompt {result.input_tokens} + max_tokens "
                        f"{max_tokens} > n_ctx {self.n_ctx} (predicted {predicted}); the server may "
                        "have shortened the answer")
        return dataclasses.replace(result, model=self.model_path.name, model_digest=self._digest(),
                                   raw=self._raw(result.raw, predicted), unusable_reason=unusable)

    def _connection_failure(self, exc: ProviderConnectionError) -> Exception:
        if self.server.proc is not None and self.server.proc.poll() is not None:
            code = self.server.proc.returncode
            tail = self.server.output_tail()
            self.close()
            return LocalServerError(f"{self.name}: the server died (exit code {code}) during a request; "
                                    f"its output ends with:\n{tail}")
        # The server is alive but did not answer in time; it keeps working on the
        # abandoned request, so kill it and start afresh at the next call.
        self.close()
        return LocalLLMTimeout(f"{self.name}: request timed out after {self.timeout_s:g} s "
                               f"(timeout_s); the server was stopped and restarts at the next call ({exc})")

    def _digest(self) -> str:
        return f"sha256:{file_sha256(self.model_path)}"

    def _raw(self, inner: dict[str, Any], predicted: int) -> dict[str, Any]:
        return {
            **inner,
            "model_label": self.model,
            "model_file": self.model_path.name,
            "prompt_tokens_predicted": predicted,
            "template_overhead_tokens": self._template_overhead,
            "llama_cpp_python": llama_cpp_version() if self.default_command else None,
            "server": {"n_ctx": self.n_ctx, "n_threads": self.n_threads, "seed": self.seed,
                       "context_margin": self.context_margin, "default_command": self.default_command,
                       **({"chat_format": self.chat_format} if self.chat_format else {})},
        }

    def _overflow(self, body: bytes, predicted: int, reason: str) -> Completion:
        return Completion(
            text="", input_tokens=predicted, output_tokens=0, stop_reason="error",
            raw_stop_reason="context_overflow", model=self.model_path.name, model_digest=self._digest(),
            request_sha256=sha256_hex(body), response_sha256=sha256_hex(b""), server_authenticated=False,
            truncated=False, latency_s=0.0, raw={**self._raw({}, predicted), "sent": False},
            unusable_reason=reason,
        )

