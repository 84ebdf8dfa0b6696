"""Real loopback HTTP servers that speak the OpenAI and Ollama wire formats.

Each test scripts its server: ``server.on(method, path, *replies)`` queues
replies for a route (the last one repeats), and ``server.received`` lists
exactly what arrived (method, path, headers, body bytes, arrival time), so
tests assert on the wire, not on the adapter's intentions.
"""
from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import pytest

_PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "no_proxy",
               "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@dataclass
class Reply:
    status: int = 200
    body: bytes | dict[str, Any] | list[Any] = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0

    def payload(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        return json.dumps(self.body).encode("utf-8")


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes
    at: float

    def json(self) -> Any:
        return json.loads(self.body)


class ScriptedServer:
    """A ThreadingHTTPServer on 127.0.0.1 (ephemeral port) answering from a script."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.sent: list[bytes] = []  # response bodies, in order
        self._routes: dict[tuple[str, str], list[Reply | Callable[[Received], Reply]]] = {}
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        # A short poll interval keeps shutdown() (hence fixture teardown) fast.
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def on(self, method: str, path: str, *replies: Reply | Callable[[Received], Reply]) -> None:
        with self._lock:
            self._routes[(method, path)] = list(replies)

    def requests_to(self, path: str) -> list[Received]:
        return [r for r in self.received if r.path == path]

    def _next_reply(self, req: Received) -> Reply:
        with self._lock:
            self.received.append(req)
            queue = self._routes.get((req.method, req.path))
            if not queue:
                return Reply(404, {"error": f"unscripted route {req.method} {req.path}"})
            reply = queue.pop(0) if len(queue) > 1 else queue[0]
        return reply(req) if callable(reply) else reply

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                req = Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()},
                               body, time.monotonic())
                reply = server._next_reply(req)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                data = reply.payload()
                with server._lock:
                    server.sent.append(data)
                try:
                    self.send_response(reply.status)
                    headers = {"Content-Type": "application/json", **reply.headers}
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests); nothing to report

            do_GET = do_POST = _serve

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # keep pytest output clean

        return Handler

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def reply():
    """The ``Reply`` class, for tests that script their own routes."""
    return Reply


@pytest.fixture
def make_server():
    """``make_server() -> ScriptedServer``; every server is shut down after the test."""
    servers: list[ScriptedServer] = []

    def make() -> ScriptedServer:
        srv = ScriptedServer()
        servers.append(srv)
        return srv

    yield make
    for srv in servers:
        srv.close()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    """No ambient API key or proxy settings leak into (or out of) a test."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for var in _PROXY_VARS:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _openai_body(text: str = "patched", *, finish_reason: str | None = "stop", model: str = "test-model-0613",
                 prompt_tokens: int | None = 11, completion_tokens: int | None = 7) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "system_fingerprint": "fp_test",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": finish_reason}],
    }
    if prompt_tokens is not None:
        body["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                         "total_tokens": prompt_tokens + (completion_tokens or 0)}
    return body


@pytest.fixture
def openai_body():
    """``openai_body(text, finish_reason=..., model=..., prompt_tokens=..., completion_tokens=...)``."""
    return _openai_body


@pytest.fixture
def openai_server(make_server):
    """A server answering /v1/chat/completions with one fixed completion; base_url is ``srv.url + '/v1'``."""
    srv = make_server()
    srv.on("POST", "/v1/chat/completions", Reply(200, _openai_body()))
    srv.base_url = srv.url + "/v1"
    return srv


OLLAMA_MODEL = "qwen2.5-coder:7b"
OLLAMA_DIGEST = "2b0496514337a3d5901f1d253d01726c890b721e891335a56d6e08cedf3e2cb0"


def _ollama_generate(text: str = "patched", *, done_reason: str | None = "stop", model: str = OLLAMA_MODEL,
                     prompt_eval_count: int | None = 20, eval_count: int | None = 5,
                     **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model, "created_at": "2025-01-01T00:00:00Z", "response": text, "done": True,
        "context": [1, 2, 3], "total_duration": 1000, "load_duration": 10,
        "prompt_eval_duration": 100, "eval_duration": 200,
    }
    if done_reason is not None:
        body["done_reason"] = done_reason
    if prompt_eval_count is not None:
        body["prompt_eval_count"] = prompt_eval_count
    if eval_count is not None:
        body["eval_count"] = eval_count
    body.update(extra)
    return body


@pytest.fixture
def ollama_generate():
    """``ollama_generate(text, done_reason=..., prompt_eval_count=..., eval_count=..., **extra)``."""
    return _ollama_generate


@pytest.fixture
def ollama_server(make_server):
    """A scripted local Ollama serving OLLAMA_MODEL: /api/show (no digest), /api/tags, /api/generate."""
    srv = make_server()
    srv.on("POST", "/api/show", Reply(200, {
        "modelfile": "FROM x", "parameters": "", "template": "{{ .Prompt }}",
        "details": {"family": "qwen2", "parameter_size": "7.6B", "quantization_level": "Q4_K_M"},
    }))
    srv.on("GET", "/api/tags", Reply(200, {"models": [
        {"name": "llama3:latest", "model": "llama3:latest", "digest": "0" * 64, "size": 1},
        {"name": OLLAMA_MODEL, "model": OLLAMA_MODEL, "digest": OLLAMA_DIGEST, "size": 2},
    ]}))
    srv.on("POST", "/api/generate", Reply(200, _ollama_generate()))
    srv.model, srv.digest = OLLAMA_MODEL, OLLAMA_DIGEST  # for the tests' assertions
    return srv
