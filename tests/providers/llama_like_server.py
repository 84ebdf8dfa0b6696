"""A small OpenAI-compatible server shaped like llama-cpp-python's, for the local_llm tests.

Run as a script (the provider starts it through ``server_command``)::

    python llama_like_server.py --model M --host 127.0.0.1 --port P [--mode die] [--spawn-child]

Endpoints: ``GET /v1/models``, ``POST /extras/tokenize`` (a deterministic
whitespace tokenizer), ``POST /v1/chat/completions`` (a fixed chat template of
TEMPLATE_TOKENS tokens around the user message, ``usage`` in the answer) and
``GET /debug/state`` (request counts, the child pid, what the server was
started with) so tests can see what reached the server. A user message
containing ``__hang__`` makes the completion sleep for a minute. With
``--obey-schema`` a request whose ``response_format`` carries a schema (as
llama-cpp-python takes it: ``{"type": "json_object", "schema": ...}``) is
answered with an abstention, a JSON object every edit-format schema allows;
without it the schema is ignored and the answer is prose.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TEMPLATE_TOKENS = 7  # "<|im_start|> user \n ... <|im_end|> \n <|im_start|> assistant \n"
STATE: dict = {"chat_requests": 0, "tokenize_requests": 0, "child_pid": None, "argv": sys.argv[1:],
               "env_host": os.environ.get("HOST"), "env_api_key": os.environ.get("API_KEY"),
               "pid": os.getpid(), "last_chat": None}
LOCK = threading.Lock()


def tokenize(text: str) -> list[int]:
    return [zlib.crc32(word.encode("utf-8")) % 49152 for word in text.split()]


def answer(content: str, max_tokens: int, seed: int | None) -> tuple[str, str]:
    words = content.split()
    reply = ["reply", f"seed={seed}", f"words={len(words)}", *words[:3]]
    if len(reply) > max_tokens:
        return " ".join(reply[:max_tokens]), "length"
    return " ".join(reply), "stop"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep the log file short
        pass

    def _send(self, status: int, obj: dict) -> None:
        data = json.dumps(obj).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict:
        return json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")

    def do_GET(self) -> None:  # noqa: N802
        if self.path == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": ARGS.model, "object": "model"}]})
        elif self.path == "/debug/state":
            with LOCK:
                self._send(200, dict(STATE))
        else:
            self._send(404, {"detail": "Not Found"})

    def do_POST(self) -> None:  # noqa: N802
        body = self._body()
        if self.path == "/extras/tokenize":
            with LOCK:
                STATE["tokenize_requests"] += 1
            self._send(200, {"tokens": tokenize(body["input"])})
        elif self.path == "/v1/chat/completions":
            content = body["messages"][-1]["content"]
            with LOCK:
                STATE["chat_requests"] += 1
                STATE["last_chat"] = body
            if "__hang__" in content:
                time.sleep(60)
            prompt_tokens = len(tokenize(content)) + TEMPLATE_TOKENS
            if prompt_tokens > ARGS.n_ctx:
                self._send(400, {"error": {"message": f"Requested tokens ({prompt_tokens}) exceed context "
                                                      f"window of {ARGS.n_ctx}"}})
                return
            text, finish = answer(content, min(body["max_tokens"], ARGS.n_ctx - prompt_tokens), body.get("seed"))
            fmt = body.get("response_format") or {}
            if ARGS.obey_schema and fmt.get("type") == "json_object" and isinstance(fmt.get("schema"), dict):
                text, finish = json.dumps({"abstain": True, "reason": "constrained by the schema"}), "stop"
            self._send(200, {
                "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": ARGS.model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": finish}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(text.split()),
                          "total_tokens": prompt_tokens + len(text.split())},
            })
        else:
            self._send(404, {"detail": "Not Found"})


def main() -> None:
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--n_ctx", type=int, default=8192)
    parser.add_argument("--mode", choices=("normal", "die"), default="normal")
    parser.add_argument("--startup-delay", type=float, default=0.0)
    parser.add_argument("--spawn-child", action="store_true")
    parser.add_argument("--obey-schema", action="store_true")
    parser.add_argument("--chat_format", default="")
    ARGS = parser.parse_args()
    if ARGS.mode == "die":
        print(f"error loading model: cannot open {ARGS.model}: bad magic", file=sys.stderr, flush=True)
        sys.exit(3)
    if ARGS.spawn_child:
        # A helper process in the same process group, as a real server's workers would be.
        STATE["child_pid"] = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"]).pid
    time.sleep(ARGS.startup_delay)
    server = ThreadingHTTPServer((ARGS.host, ARGS.port), Handler)
    server.daemon_threads = True
    print(f"listening on {ARGS.host}:{ARGS.port}", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
