"""The JSON schemas of the edit formats agree with the strict parser; the schema is part of the prompt's identity."""
from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from beacon.providers import render_repair
from beacon.providers.base import request_key
from beacon.repair.edits import Abstain, parse_edit
from beacon.repair.errors import EditParseError
from beacon.repair.prompt import build_prompt
from beacon.repair.structured import (
    MODE_CANNOT,
    MODE_JSON_SCHEMA,
    MODE_NOT_JSON,
    MODE_OFF,
    decide,
    response_schema,
    schema_sha256,
)

jsonschema = pytest.importorskip("jsonschema")
JSON_FORMATS = ("exact_edit", "line_span")
SOURCE = "def clamp(x, low, high):\n    if x < low:\n        return high\n    return x\n"


def valid(schema: dict, obj) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(obj)


@pytest.mark.parametrize("fmt", JSON_FORMATS)
def test_the_known_repair_and_an_abstention_fit_the_schema(fmt):
    schema = response_schema(fmt)
    jsonschema.Draft202012Validator.check_schema(schema)
    known = render_repair("m.py", SOURCE, 3, "        return low", fmt)
    assert valid(schema, json.loads(known.split("\n", 1)[1].rsplit("```", 1)[0]))
    assert valid(schema, {"abstain": True}) and valid(schema, {"abstain": True, "reason": "no idea"})


@pytest.mark.parametrize("fmt,obj", [
    ("exact_edit", {"path": "m.py", "search": "x", "replace": "y", "extra": 1}),
    ("exact_edit", {"path": "m.py", "search": "", "replace": "y"}),
    ("exact_edit", {"path": "m.py", "replace": "y"}),
    ("exact_edit", {"path": "m.py", "search": "x", "replace": "y", "abstain": True}),
    ("line_span", {"path": "m.py", "start_line": 0, "end_line": 1, "replacement": ""}),
    ("line_span", {"path": "m.py", "start_line": "3", "end_line": 3, "replacement": ""}),
    ("line_span", {"abstain": False}),
    ("line_span", {"abstain": True, "why": "x"}),
    ("exact_edit", ["not", "an", "object"]),
])
def test_shapes_the_parser_refuses_are_outside_the_schema(fmt, obj):
    assert not valid(response_schema(fmt), obj)
    with pytest.raises(EditParseError):
        parse_edit(json.dumps(obj), fmt)


_VALUE = st.one_of(st.none(), st.booleans(), st.integers(-3, 40), st.text(max_size=12))
_KEYS = st.sampled_from(["path", "search", "replace", "start_line", "end_line", "replacement",
                         "abstain", "reason", "extra"])


_OBJECTS = st.one_of(
    st.dictionaries(_KEYS, _VALUE, max_size=5),
    # Near misses of each shape, so accepted answers are common, not a lucky draw.
    st.fixed_dictionaries({"path": _VALUE, "search": _VALUE, "replace": _VALUE}, optional={"extra": _VALUE}),
    st.fixed_dictionaries({"path": _VALUE, "start_line": _VALUE, "end_line": _VALUE, "replacement": _VALUE},
                          optional={"reason": _VALUE}),
    st.fixed_dictionaries({"abstain": _VALUE}, optional={"reason": _VALUE, "path": _VALUE}),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fmt=st.sampled_from(JSON_FORMATS), obj=_OBJECTS)
def test_everything_the_parser_accepts_fits_the_schema(fmt, obj):
    """The schema never forbids an answer the parser takes (it may allow more: the parser also
    checks paths and line order, which a schema cannot express)."""
    try:
        parse_edit(json.dumps(obj), fmt)
    except EditParseError:
        return
    assert valid(response_schema(fmt), obj)


def test_diff_has_no_schema_and_schemas_are_fresh_copies():
    assert response_schema("diff") is None
    a = response_schema("exact_edit")
    a["oneOf"].clear()
    assert response_schema("exact_edit")["oneOf"]
    with pytest.raises(ValueError, match="unknown edit format"):
        response_schema("patch")


@pytest.mark.parametrize("setting,provider,fmt,mode,has_schema", [
    ("off", "json_schema", "exact_edit", MODE_OFF, False),
    ("auto", "json_schema", "exact_edit", MODE_JSON_SCHEMA, True),
    ("auto", "json_schema", "line_span", MODE_JSON_SCHEMA, True),
    ("auto", "json_schema", "diff", MODE_NOT_JSON, False),
    ("auto", None, "exact_edit", MODE_CANNOT, False),
])
def test_decide(setting, provider, fmt, mode, has_schema):
    decided = decide(setting, provider, fmt)
    assert decided.mode == mode and (decided.schema is not None) == has_schema
    record = decided.record()
    assert record["setting"] == setting and record["mode"] == mode
    assert record["schema_sha256"] == (schema_sha256(decided.schema) if has_schema else None)


def test_decide_refuses_unknown_settings():
    with pytest.raises(ValueError, match="provider.structured_output 'on'"):
        decide("on", "json_schema", "exact_edit")


def test_prompt_identity_includes_the_schema_only_when_one_is_sent():
    plain = build_prompt("fix clamp", "ctx", "exact_edit")
    off = build_prompt("fix clamp", "ctx", "exact_edit", structured=decide("off", "json_schema", "exact_edit"))
    cannot = build_prompt("fix clamp", "ctx", "exact_edit", structured=decide("auto", None, "exact_edit"))
    on = build_prompt("fix clamp", "ctx", "exact_edit", structured=decide("auto", "json_schema", "exact_edit"))
    text_sha = hashlib.sha256(plain.text.encode("utf-8")).hexdigest()
    # Unconstrained prompts keep the identity every archived run was recorded under.
    assert plain.sha256 == off.sha256 == cannot.sha256 == text_sha
    assert on.text == plain.text and on.sha256 != text_sha
    assert on.sha256 == request_key(on.text, response_schema("exact_edit"))
    other = build_prompt("fix clamp", "ctx", "line_span", structured=decide("auto", "json_schema", "line_span"))
    assert request_key(other.text, response_schema("exact_edit")) != other.sha256


def test_an_abstention_parses_in_both_json_formats():
    for fmt in JSON_FORMATS:
        assert parse_edit('{"abstain": true, "reason": "constrained"}', fmt) == Abstain("constrained")
