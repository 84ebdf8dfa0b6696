"""Canonical JSON, file hashes and the config hash exclusion rule."""
from __future__ import annotations

import hashlib
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.artifacts import (EXCLUDED_KEYS, CanonicalJSONError, canonical_json, canonical_json_bytes,
                              config_hash, scientific_view, sha256_file)

BASE = {"budget": 2000, "method": {"name": "bm25", "k1": 1.2}, "query": "vague", "seed": 0,
        "tasks": {"manifest": "pilot", "limit": 10}}


def test_canonical_json_exact_text():
    value = {"b": 1, "a": [1, 2.5, "ü", None], "c": {"z": None, "y": True}, "d": "line\nbreak"}
    text = canonical_json(value)
    assert text == '{"a":[1,2.5,"ü",null],"b":1,"c":{"y":true,"z":null},"d":"line\\nbreak"}'
    assert canonical_json_bytes(value) == text.encode("utf-8")
    assert canonical_json((1, 2)) == canonical_json([1, 2]) == "[1,2]"


@pytest.mark.parametrize("bad, where", [
    ({"a": {"b": math.nan}}, "$.a.b"),
    ({"a": [0, math.inf]}, "$.a[1]"),
    ({"a": -math.inf}, "$.a"),
    ({1: "x"}, "key 1 is int"),
    ({"a": {1, 2}}, "$.a: set"),
    ({"a": object()}, "$.a: object"),
])
def test_canonical_json_refuses_non_json(bad, where):
    with pytest.raises(CanonicalJSONError, match=__import__("re").escape(where)):
        canonical_json(bad)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_canonical_json_is_a_fixed_point_and_ignores_insertion_order(value):
    text = canonical_json(value)
    assert canonical_json(json.loads(text)) == text

    def reverse(v):
        if isinstance(v, dict):
            return {k: reverse(v[k]) for k in reversed(list(v))}
        return [reverse(x) for x in v] if isinstance(v, list) else v
    assert canonical_json(reverse(value)) == text


def test_lone_surrogate_refused_not_crashed():
    with pytest.raises(CanonicalJSONError, match="lone surrogate"):
        canonical_json_bytes({"text": "bad \ud800 byte"})


def test_sha256_file_matches_hashlib_across_chunks(tmp_path):
    data = bytes(range(256)) * 9000  # > 2 MiB: several 1 MiB chunks
    (tmp_path / "f").write_bytes(data)
    assert sha256_file(tmp_path / "f") == hashlib.sha256(data).hexdigest()


def test_config_hash_is_pinned():
    # Changing canonical JSON or the exclusion rule changes every run's hash and
    # breaks resume of existing runs: do it only on purpose, with a schema bump.
    text = '{"budget":2000,"method":{"k1":1.2,"name":"bm25"},"query":"vague","seed":0,"tasks":{"limit":10,"manifest":"pilot"}}'
    assert config_hash({**BASE, "output_dir": "/o"}) == hashlib.sha256(text.encode()).hexdigest()
    assert config_hash(BASE) == "e72b6a7975e74bac81746beb494fa9b13e2c1e3fcc581bf157b78629c0614def"


def test_config_hash_stable_across_key_order():
    shuffled = {"tasks": {"limit": 10, "manifest": "pilot"}, "seed": 0, "query": "vague",
                "method": {"k1": 1.2, "name": "bm25"}, "budget": 2000}
    assert config_hash(shuffled) == config_hash(BASE)


@pytest.mark.parametrize("extra", [
    *({key: "/somewhere/else"} for key in sorted(EXCLUDED_KEYS)),
    {"hydra": {"job": {"num": 3}, "sweep": {"dir": "multirun/x"}}},
    {"launcher": {"_target_": "submitit"}, "workers": 8, "progress": True},
    {"snapshot_dir": "/a", "manifest_path": "/b/m.jsonl", "Cache_DIR": "/c"},
])
def test_config_hash_ignores_paths_and_run_mechanics(extra):
    assert config_hash({**BASE, **extra}) == config_hash(BASE)


def test_exclusion_applies_at_every_depth_including_lists():
    nested = {**BASE, "tasks": {**BASE["tasks"], "repos_dir": "/r", "index_path": "/i"},
              "stages": [{"name": "a", "out_dir": "/x"}]}
    plain = {**BASE, "stages": [{"name": "a"}]}
    assert config_hash(nested) == config_hash(plain)
    assert scientific_view(nested)["tasks"] == BASE["tasks"]


@pytest.mark.parametrize("change", [
    {"budget": 4000}, {"budget": 2000.0}, {"seed": 1}, {"method": {"name": "bm25", "k1": 1.5}},
    {"directory": "x"},  # a key merely containing "dir" is scientific
])
def test_config_hash_sees_scientific_changes(change):
    assert config_hash({**BASE, **change}) != config_hash(BASE)


def test_exclude_argument_replaces_the_default_set():
    cfg = {**BASE, "workers": 4}
    assert config_hash(cfg, exclude=()) != config_hash(BASE, exclude=())
    assert config_hash({**BASE, "notes": "x"}, exclude=EXCLUDED_KEYS | {"notes"}) == config_hash(BASE)


def test_config_hash_refuses_non_dicts():
    with pytest.raises(CanonicalJSONError, match="to_container"):
        config_hash([1, 2])
