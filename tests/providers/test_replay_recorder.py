"""Replay by prompt hash, the JSONL recordings format, and the Recorder."""
from __future__ import annotations

import json
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.providers import (
    STOP_REASONS,
    Completion,
    OpenAIProvider,
    PartialRecordingWarning,
    Recorder,
    RecordingFormatError,
    ReplayMismatch,
    ReplayMiss,
    ReplayProvider,
    load_recordings,
    prompt_sha256,
)

H = "a" * 64


def completion(**kw) -> Completion:
    base = dict(text="patched", input_tokens=3, output_tokens=2, stop_reason="stop", raw_stop_reason="stop",
                model="m", model_digest=None, request_sha256=H, response_sha256="b" * 64,
                server_authenticated=None, truncated=False, latency_s=0.25, raw={"k": [1, "x"]})
    return Completion(**{**base, **kw})


def line(prompt: str = "p", **kw) -> dict:
    return {"prompt_sha256": prompt_sha256(prompt), **completion(**kw).to_dict()}


def write_jsonl(path, objs, tail: bytes = b"") -> None:
    path.write_bytes(b"".join(json.dumps(o).encode() + b"\n" for o in objs) + tail)


def test_replay_from_file_and_miss_names_hash_and_file(tmp_path):
    f = tmp_path / "rec.jsonl"
    write_jsonl(f, [line("p1", text="one"), line("p2", text="two")])
    r = ReplayProvider(f)
    assert len(r) == 2
    assert r.complete("p2", max_tokens=5).text == "two"
    with pytest.raises(ReplayMiss) as err:
        r.complete("never recorded", max_tokens=5)
    assert prompt_sha256("never recorded") in str(err.value) and str(f) in str(err.value)


def test_replay_from_mapping():
    c = completion()
    r = ReplayProvider({prompt_sha256("hi"): c})
    assert r.complete("hi", max_tokens=1) is c
    with pytest.raises(TypeError):
        ReplayProvider({"not-a-hash": c})


@pytest.mark.parametrize("mutate, field", [
    (lambda o: o.pop("text"), "text"),
    (lambda o: o.update(input_tokens="3"), "input_tokens"),
    (lambda o: o.update(input_tokens=True), "input_tokens"),
    (lambda o: o.update(stop_reason="eos"), "stop_reason"),
    (lambda o: o.update(prompt_sha256="ABC"), "prompt_sha256"),
    (lambda o: o.update(request_sha256="f" * 63), "request_sha256"),
    (lambda o: o.update(truncated="no"), "truncated"),
    (lambda o: o.update(latency_s=-1), "latency_s"),
    (lambda o: o.update(raw=[]), "raw"),
    (lambda o: o.update(params={"max_tokens": 5}), "params"),
    (lambda o: o.update(temprature=0.0), "temprature"),
])
def test_malformed_line_names_file_line_and_field(tmp_path, mutate, field):
    bad = line("p2")
    mutate(bad)
    f = tmp_path / "rec.jsonl"
    write_jsonl(f, [line("p1"), bad])
    with pytest.raises(RecordingFormatError, match=f"rec.jsonl:2: field '{field}'"):
        load_recordings(f)


def test_inconsistent_and_non_json_lines(tmp_path):
    f = tmp_path / "rec.jsonl"
    write_jsonl(f, [{**line("p1"), "stop_reason": "length"}])  # but truncated is false
    with pytest.raises(RecordingFormatError, match="rec.jsonl:1: .*truncated is False"):
        load_recordings(f)
    f.write_bytes(json.dumps(line("p1")).encode() + b"\n{oops\n")
    with pytest.raises(RecordingFormatError, match="rec.jsonl:2: not a valid UTF-8 JSON line"):
        load_recordings(f)
    f.write_bytes(b"[]\n")
    with pytest.raises(RecordingFormatError, match="rec.jsonl:1: expected a JSON object"):
        load_recordings(f)


def test_duplicate_prompt_names_both_lines(tmp_path):
    f = tmp_path / "rec.jsonl"
    write_jsonl(f, [line("p1"), line("p2"), line("p1", text="other")])
    with pytest.raises(RecordingFormatError, match=r"rec.jsonl:3: .*already recorded at .*rec.jsonl:1"):
        load_recordings(f)


def test_unterminated_last_line_is_ignored_with_warning(tmp_path):
    f = tmp_path / "rec.jsonl"
    write_jsonl(f, [line("p1")], tail=json.dumps(line("p2")).encode()[:40])
    with pytest.warns(PartialRecordingWarning, match="rec.jsonl:2"):
        recs = load_recordings(f)
    assert list(recs) == [prompt_sha256("p1")]


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(RecordingFormatError, match="cannot read recordings file"):
        ReplayProvider(tmp_path / "absent.jsonl")


def test_recorded_params_must_match(tmp_path):
    f = tmp_path / "rec.jsonl"
    write_jsonl(f, [{**line("p"), "params": {"max_tokens": 5, "temperature": 0.0, "seed": 0}}])
    r = ReplayProvider(f)
    assert r.complete("p", max_tokens=5).text == "patched"
    with pytest.raises(ReplayMismatch, match="seed"):
        r.complete("p", max_tokens=5, seed=1)


def test_recorder_round_trip_through_real_openai_adapter(tmp_path, make_server, reply, openai_body):
    srv = make_server()
    srv.on("POST", "/v1/chat/completions",
           reply(200, openai_body("first\u2028line\r\nnext")),
           reply(200, openai_body("second", finish_reason="length")))
    f = tmp_path / "rec.jsonl"
    rec = Recorder(OpenAIProvider("m", base_url=srv.url + "/v1"), f)
    live = [rec.complete("prompt one", max_tokens=9), rec.complete("prompt two ✓", max_tokens=9, seed=None)]
    data = f.read_bytes()
    assert data.count(b"\n") == 2 and data.endswith(b"\n")

    replay = ReplayProvider(f)
    again = [replay.complete("prompt one", max_tokens=9), replay.complete("prompt two ✓", max_tokens=9, seed=None)]
    assert again == live
    assert [c.usable for c in again] == [True, False]
    assert again[0].text == "first\u2028line\r\nnext"
    assert len(srv.received) == 2


def test_recorder_answers_recorded_prompts_from_file(tmp_path, openai_server):
    f = tmp_path / "rec.jsonl"
    first = Recorder(OpenAIProvider("m", base_url=openai_server.base_url), f).complete("p", max_tokens=4)
    resumed = Recorder(OpenAIProvider("m", base_url=openai_server.base_url), f)
    assert resumed.complete("p", max_tokens=4) == first
    with pytest.raises(ReplayMismatch):
        resumed.complete("p", max_tokens=5)
    assert len(openai_server.received) == 1
    assert f.read_bytes().count(b"\n") == 1


def test_recorder_drops_partial_tail_before_appending(tmp_path, openai_server):
    f = tmp_path / "rec.jsonl"
    write_jsonl(f, [line("old")], tail=b'{"prompt_sha256": "dead')
    with pytest.warns(PartialRecordingWarning, match="dropping"):
        rec = Recorder(OpenAIProvider("m", base_url=openai_server.base_url), f)
    rec.complete("new", max_tokens=4)
    recs = load_recordings(f)  # no warning: the file is whole again
    assert set(recs) == {prompt_sha256("old"), prompt_sha256("new")}


class _Unserialisable:
    name = "weird"

    def complete(self, prompt, *, max_tokens, temperature=0.0, seed=0):
        return completion(raw={"obj": object()})


def test_recorder_refuses_unserialisable_completion(tmp_path):
    f = tmp_path / "rec.jsonl"
    with pytest.raises(Exception, match="not JSON-serialisable.*nothing was written"):
        Recorder(_Unserialisable(), f).complete("p", max_tokens=1)
    assert not f.exists() or f.read_bytes() == b""


_json_scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=20)
_raw = st.dictionaries(st.text(max_size=8), st.recursive(_json_scalars, lambda c: st.lists(c, max_size=3)
                       | st.dictionaries(st.text(max_size=5), c, max_size=3), max_leaves=8), max_size=4)
_hex = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


@st.composite
def completions(draw) -> Completion:
    stop = draw(st.sampled_from(sorted(STOP_REASONS)))
    return Completion(
        text=draw(st.text()), input_tokens=draw(st.none() | st.integers(0, 10**7)),
        output_tokens=draw(st.none() | st.integers(0, 10**7)), stop_reason=stop,
        raw_stop_reason=draw(st.none() | st.text(string.printable, max_size=10)),
        model=draw(st.text(max_size=30)), model_digest=draw(st.none() | _hex), request_sha256=draw(_hex),
        response_sha256=draw(_hex), server_authenticated=draw(st.none() | st.booleans()),
        truncated=True if stop == "length" else draw(st.booleans()),
        latency_s=draw(st.floats(0, 1e6, allow_nan=False)), raw=draw(_raw),
        unusable_reason=draw(st.none() | st.text(max_size=20)),
    )


@settings(max_examples=60, deadline=None)
@given(items=st.dictionaries(st.text(), completions(), min_size=1, max_size=4))
def test_any_completion_survives_record_and_replay(tmp_path_factory, items):
    path = tmp_path_factory.mktemp("rec") / "rec.jsonl"

    class Fixed:
        name = "fixed"

        def complete(self, prompt, *, max_tokens, temperature=0.0, seed=0):
            return items[prompt]

    rec = Recorder(Fixed(), path, fsync=False)
    for prompt in items:
        rec.complete(prompt, max_tokens=1)
    replay = ReplayProvider(path)
    assert {p: replay.complete(p, max_tokens=1) for p in items} == items
