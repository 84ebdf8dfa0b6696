"""``provider.structured_output`` and ``provider.generation`` through the Hydra runner: validation,
the config hash of earlier runs, run.json, and a real run against a loopback server reproduced by replay."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from beacon.repair.structured import response_schema, schema_sha256
from experiments.runner import attempt_specs, scientific_config
from experiments.schema import check_values, validate

ROOT = Path(__file__).resolve().parents[2]


def cfg(*overrides: str):
    with initialize_config_dir(str(ROOT / "conf"), version_base="1.3"):
        return validate(compose("repair", overrides=list(overrides)))


@pytest.mark.parametrize("override,message", [
    ("provider.structured_output=on", r"provider.structured_output 'on': expected one of auto, off"),
    ("+provider.generation.patch.max_tokens=5", r"provider.generation.patch: unknown edit format"),
    ("+provider.generation.diff.max_tokens=0", r"provider.generation.diff.max_tokens: expected a positive int"),
    ("+provider.generation.diff.top_k=3", r"provider.generation.diff.top_k: unknown setting"),
])
def test_bad_settings_fail_naming_the_field(override, message):
    with pytest.raises(ValueError, match=message):
        check_values(cfg("provider=openai", override))


def test_off_and_no_generation_leave_the_config_hash_of_earlier_runs():
    old = scientific_config(cfg("provider=local_llm", "provider.structured_output=off", "~provider.generation"))
    assert "structured_output" not in old["provider"] and "generation" not in old["provider"]
    new = scientific_config(cfg("provider=local_llm"))
    assert new["provider"]["structured_output"] == "auto" and new["provider"]["generation"]


def test_per_format_generation_and_the_provider_ability_reach_the_specs():
    specs = {s.edit_format: s for s in attempt_specs(cfg("provider=local_llm", "+grid.edit_formats=[diff,exact_edit]"))}
    assert (specs["diff"].max_tokens, specs["exact_edit"].max_tokens) == (384, 256)
    assert all(s.structured_output == "auto" and s.provider_structured == "json_schema" for s in specs.values())
    assert all(s.temperature == 0.0 and s.seed == 0 for s in specs.values())
    oracle = attempt_specs(cfg("provider=oracle"))[0]
    assert oracle.provider_structured is None and oracle.max_tokens == 512


def test_the_archived_pilot_preset_keeps_its_unconstrained_settings():
    pilot = cfg("+experiment=boltons_pilot", "provider=local_llm")
    assert pilot.provider.structured_output == "off"
    assert {s.max_tokens for s in attempt_specs(pilot)} == {384}


class _Prose(BaseHTTPRequestHandler):
    """An OpenAI-compatible server that ignores response_format and answers in prose."""

    bodies: list = []

    def do_POST(self) -> None:  # noqa: N802
        _Prose.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        data = json.dumps({"id": "c", "object": "chat.completion", "model": "prose-1", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "I think clamp is wrong."},
             "finish_reason": "stop"}], "usage": {"prompt_tokens": 9, "completion_tokens": 5}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


def test_a_structured_run_records_its_schema_and_reproduces_by_replay(tmp_path):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Prose)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    env = {**os.environ, "CI": "1"}
    env.pop("OPENAI_API_KEY", None)
    try:
        out = subprocess.run(
            [sys.executable, "-m", "experiments.repair", "provider=openai", "provider.model=prose-1",
             f"provider.base_url=http://127.0.0.1:{httpd.server_address[1]}/v1", "edit_format=exact_edit",
             "tasks.limit=1", "allow_local_execution=true", f"hydra.run.dir={tmp_path}"],
            cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert out.returncode == 0, out.stderr[-3000:]
    run_dir = tmp_path / "run"
    meta = json.loads((run_dir / "run.json").read_text())
    schema = response_schema("exact_edit")
    assert meta["config"]["provider"]["structured_output"] == "auto"
    assert meta["inputs"]["response_schema_exact_edit"] == schema_sha256(schema)
    assert _Prose.bodies[-1]["response_format"]["json_schema"]["schema"] == schema
    row = json.loads((run_dir / "records.jsonl").read_text().splitlines()[0])
    assert row["outcome"] == "no_patch" and row["structured_output"]["mode"] == "json_schema"
    again = subprocess.run([sys.executable, "-m", "experiments.reproduce", str(run_dir), "--out", str(tmp_path / "r")],
                           cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert again.returncode == 0 and "every scored field identical" in again.stdout, again.stderr[-3000:]
