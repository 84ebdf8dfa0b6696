"""A model's answer that no row can hold as text (red-team round 28): a lone surrogate, which an OpenAI-compatible
server may send as a JSON ``\\ud800`` escape. Before, the attempt scored, then writing its row raised and stopped the
whole job; now the answer is ``invalid_patch`` and the row holds the text escaped.

A real loopback server, the real OpenAI adapter, and the control task scored through ``run_attempt``.
"""
from __future__ import annotations

import json

import pytest

from beacon.artifacts.hashing import canonical_json_bytes
from beacon.providers import OpenAIProvider, render_repair
from beacon.repair.attempt import AttemptSpec, run_attempt
from beacon.repair.prepare import RunSettings, prepare_task
from repotools import control_tasks

SETTINGS = RunSettings(allow_local_execution=True, timeout_s=20, sandbox="auto")


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    root = tmp_path_factory.mktemp("surrogate")
    resolve, tasks = control_tasks(root)
    prep = prepare_task(tasks[0], resolve(tasks[0].repo), root / "work", SETTINGS)
    assert prep.valid, prep.invalid_reason
    return prep


def _score(prepared, make_server, reply, openai_body, text: str, slot: str) -> dict:
    server = make_server()
    # json.dumps writes a lone surrogate as the escape "\ud800": valid JSON, as such a server sends it
    server.on("POST", "/v1/chat/completions", reply(200, json.dumps(openai_body(text)).encode("ascii")))
    provider = OpenAIProvider("gpt-test", base_url=server.url + "/v1", backoff_base_s=0.001, backoff_max_s=0.01)
    spec = AttemptSpec("target_file", 2000, "vague", "exact_edit", "openai")
    row, _ = run_attempt(prepared, spec, lambda p, s: provider, SETTINGS, dry_run=False, slot=slot)
    record = row.to_json()
    canonical_json_bytes(record)  # the row can be written (it raised here before)
    return record


def test_an_answer_with_a_lone_surrogate_is_invalid_and_its_row_is_written(prepared, make_server, reply,
                                                                          openai_body):
    task = prepared.task
    fix = render_repair(task.path, prepared.mutated_text, task.line, task.repair_line, "exact_edit")
    record = _score(prepared, make_server, reply, openai_body, "Here is the fix \ud800:\n" + fix, "surrogate")
    assert record["outcome"] == "invalid_patch", record["outcome_detail"]
    assert "lone surrogate" in record["outcome_detail"]
    assert "\\ud800" in record["response"]["text"] and fix in record["response"]["text"]
    # the same answer without it is the known repair: it passes
    assert _score(prepared, make_server, reply, openai_body, "Here is the fix:\n" + fix, "clean")["outcome"] == "pass"
