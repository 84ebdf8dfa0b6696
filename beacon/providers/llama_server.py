"""A model server subprocess on the loopback interface: start, wait until ready, stop.

:class:`LocalServer` owns one child process (by default llama-cpp-python's
``python -m llama_cpp.server``) listening on 127.0.0.x. It is started in its own
process group so :meth:`LocalServer.stop` can kill the server *and* anything it
spawned; a ``weakref.finalize`` hook does the same at interpreter exit, and the
server is started through ``parent_death.py`` so the kernel kills it even when
this process is killed outright (SIGKILL runs no Python): a crashed run leaves
no orphan holding a port and two CPU cores.

The child's stdout and stderr go to a temporary file rather than a pipe: a
chatty server would otherwise block once the pipe buffer filled, and the file
keeps the tail we quote when the server dies. The file's folder
(``beacon-llm-server-<pid>.<host>-*`` under ``TMPDIR``) is removed when the server
stops, by :meth:`LocalServer.stop`, the finalizer, or a failed startup (whose
error message quotes the log's tail); the folder of a process killed outright
is removed by the next server started (:mod:`beacon.scratch`).
"""
from __future__ import annotations

import ipaddress
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import weakref
from dataclasses import dataclass

from ..scratch import make_owned_tempdir, remove_tree
from . import parent_death, transport
from .base import ProviderConfigError, ProviderError, ProviderRefused

PARENT_DEATH = parent_death.__file__  # run by path: see beacon.providers.parent_death
LOG_DIR_PREFIX = "beacon-llm-server-"  # + "<pid>.<host>-<random>": see beacon.scratch
_STDERR_TAIL_CHARS = 2000
_POLL_S = 0.1
# llama_cpp.server reads these from the environment (pydantic settings and its
# own os.getenv("HOST"/"PORT")) and they would override our command line --
# e.g. HOST=0.0.0.0 would expose the model to the network, API_KEY would make
# every request fail with 401.
_SERVER_ENV_DENYLIST = frozenset({
    "host", "port", "api_key", "config_file", "model", "model_alias", "chat_format", "ssl_keyfile",
    "ssl_certfile", "root_path", "n_ctx", "n_threads", "n_threads_batch", "seed", "verbose",
    "hf_pretrained_model_name_or_path", "hf_model_repo_id", "clip_model_path", "interrupt_requests",
})


class LocalServerError(ProviderError):
    """The local model server could not be started, or died.

    Messages deliberately avoid the words "timeout"/"timed out": the repair
    harness classifies provider errors containing them as outcome ``timeout``,
    and a server that never came up is a harness failure, not a slow model.
    """


def check_loopback_host(host: str, provider: str) -> str:
    """``host`` if it is a literal IPv4 loopback address (127.0.0.0/8), else ProviderRefused."""
    try:
        address = ipaddress.IPv4Address(host)
    except ValueError:
        address = None
    if address is None or not address.is_loopback:
        raise ProviderRefused(
            f"{provider}: host {host!r} is not an IPv4 loopback address; the local model server "
            "may only listen on 127.0.0.1 (or another 127.x.y.z address), never on a network interface"
        )
    return host


def free_port(host: str) -> int:
    """A TCP port that is free on ``host`` right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def server_env() -> dict[str, str]:
    """This process's environment minus the variables that would reconfigure the server."""
    return {k: v for k, v in os.environ.items() if k.lower() not in _SERVER_ENV_DENYLIST}


def _kill_group(proc: subprocess.Popen, grace_s: float = 5.0) -> None:
    """SIGTERM the process group, SIGKILL it after ``grace_s``; reap the leader."""
    if proc.poll() is None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=grace_s)
                break
            except subprocess.TimeoutExpired:
                continue
    # The leader may be gone while children it spawned still run in the group.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if proc.poll() is None:
        proc.wait(timeout=grace_s)


def _cleanup(proc: subprocess.Popen, log_dir: str) -> None:
    _kill_group(proc)
    remove_tree(log_dir)


@dataclass(frozen=True)
class ServerInfo:
    pid: int
    base_url: str  # http://127.0.0.1:PORT (no /v1)
    startup_s: float


class LocalServer:
    """One server subprocess; ``start()`` blocks until ``GET /v1/models`` answers 2xx."""

    def __init__(self, command: list[str], *, host: str, startup_wait_s: float, provider: str) -> None:
        self.command = list(command)
        self.host = check_loopback_host(host, provider)
        self.startup_wait_s = startup_wait_s
        self.provider = provider
        self.proc: subprocess.Popen | None = None
        self.info: ServerInfo | None = None
        self._log_path: str | None = None
        self._finalizer: weakref.finalize | None = None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def output_tail(self) -> str:
        """The last lines the server wrote to stdout/stderr (for error messages)."""
        if not self._log_path or not os.path.exists(self._log_path):
            return ""
        with open(self._log_path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - _STDERR_TAIL_CHARS * 4))
            return fh.read().decode("utf-8", errors="replace")[-_STDERR_TAIL_CHARS:]

    def start(self, substitutions: dict[str, object]) -> ServerInfo:
        """Start the server (``{name}`` placeholders in the command are filled in, ``port``
        among them) and wait for it; a running server is returned as it is."""
        if self.running:
            assert self.info is not None
            return self.info
        self.stop()
        try:
            argv = [part.format(**substitutions) for part in self.command]
        except (KeyError, IndexError, ValueError) as exc:
            raise ProviderConfigError(
                f"{self.provider}: server_command {self.command!r} has a bad placeholder ({exc!r}); "
                f"known placeholders: {sorted(substitutions)}"
            ) from None
        if not argv or shutil.which(argv[0]) is None:
            raise LocalServerError(f"{self.provider}: cannot start server {argv[:1]!r}: no such executable "
                                   f"(server_command {self.command!r})")
        # Through the parent-death shim (isolated mode: it imports nothing of ours): the kernel kills
        # the server if this process dies without running any cleanup (SIGKILL); the shim execs, so
        # proc.pid is the server's own pid. Linux ties the signal to the *thread* that started the
        # server: start providers from a thread that lives as long as they do (the runners use the
        # main thread).
        launch = [sys.executable, "-I", PARENT_DEATH, str(os.getpid()), "--", *argv]
        log_dir = str(make_owned_tempdir(LOG_DIR_PREFIX))  # the logs of servers whose process was SIGKILLed go too
        self._log_path = os.path.join(log_dir, "server.log")
        clock = time.perf_counter()
        with open(self._log_path, "wb") as log:
            try:
                proc = subprocess.Popen(launch, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                        env=server_env(), start_new_session=True)
            except OSError as exc:
                remove_tree(log_dir)
                raise LocalServerError(f"{self.provider}: cannot start server {argv[0]!r}: {exc}") from None
        self.proc = proc
        self._finalizer = weakref.finalize(self, _cleanup, proc, log_dir)
        base_url = f"http://{self.host}:{substitutions['port']}"
        self._wait_ready(base_url, argv)
        self.info = ServerInfo(proc.pid, base_url, time.perf_counter() - clock)
        return self.info

    def _wait_ready(self, base_url: str, argv: list[str]) -> None:
        assert self.proc is not None
        opener = transport.build_opener(use_env_proxies=False)
        deadline = time.monotonic() + self.startup_wait_s
        no_retry = transport.RetryPolicy(max_retries=0)
        while True:
            code = self.proc.poll()
            if code is not None:
                tail = self.output_tail()
                self.stop()
                raise LocalServerError(
                    f"{self.provider}: server exited with code {code} during startup "
                    f"(command: {' '.join(argv)}); its output ends with:\n{tail}"
                )
            try:
                transport.request(opener, "GET", f"{base_url}/v1/models", None, provider=self.provider,
                                  timeout_s=2.0, policy=no_retry)
                return
            except ProviderError:
                pass  # not listening yet (or still loading the model)
            if time.monotonic() > deadline:
                tail = self.output_tail()
                self.stop()
                raise LocalServerError(
                    f"{self.provider}: server did not answer GET {base_url}/v1/models within "
                    f"{self.startup_wait_s:g} s of starting (command: {' '.join(argv)}); raise the "
                    f"startup limit if the model is large; its output ends with:\n{tail}"
                )
            time.sleep(_POLL_S)

    def stop(self) -> None:
        """Kill the server's whole process group and remove its log (idempotent)."""
        if self._finalizer is not None:
            self._finalizer()
        self._finalizer = None
        self.proc = None
        self.info = None
