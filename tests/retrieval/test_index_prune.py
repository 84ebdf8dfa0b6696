"""Evicting whole graph index stores, least recently used first (``index_prune``, ``python -m beacon prune-indexes``)."""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, strategies as st

from beacon.__main__ import main
from beacon.retrieval.index_prune import graph_stores, parse_size, prune
from beacon.retrieval.index_store import LAST_USED, IndexStore


def _store(root, digest: str, n: int, used_at: float) -> IndexStore:
    store = IndexStore(root, digest)
    store.save("vector", None, np.arange(n, dtype=np.float64))
    store.entries()  # opening the store stamps it
    os.utime(store.folder.parent / LAST_USED, (used_at, used_at))
    return store


def test_opening_a_store_stamps_it(tmp_path):
    store = IndexStore(tmp_path, "ab" * 20)
    store.save("vector", None, np.zeros(3))
    stamp = store.folder.parent / LAST_USED
    assert not stamp.exists()  # writing is not a use that the stamp records; opening is
    store.entries()
    os.utime(stamp, (1_000, 1_000))
    store.entries()
    assert stamp.stat().st_mtime > 1_000


def test_prune_removes_least_recently_used_whole_stores_until_the_rest_fit(tmp_path):
    old, mid, new = (_store(tmp_path, d * 40, 10_000, t) for d, t in (("a", 100), ("b", 200), ("c", 300)))
    sizes = {s.folder.name: s.bytes for s in graph_stores(tmp_path)}
    assert [s.folder.name for s in graph_stores(tmp_path)] == ["a" * 40, "b" * 40, "c" * 40]
    limit = sizes["b" * 40] + sizes["c" * 40]
    removed, kept = prune(tmp_path, limit, dry_run=True)
    assert [s.folder.name for s in removed] == ["a" * 40] and old.folder.is_dir()  # a dry run removes nothing
    removed, kept = prune(tmp_path, limit)
    assert [s.folder.name for s in removed] == ["a" * 40] and kept == limit
    assert not old.folder.parent.exists() and mid.entries() and new.entries()
    assert old.entries() == {}  # an evicted store is simply empty: its indexes are rebuilt and saved again
    assert not [p for p in (tmp_path / "aa").iterdir() if p.name.startswith(".prune-")]
    removed, kept = prune(tmp_path, 0)
    assert len(removed) == 2 and kept == 0 and graph_stores(tmp_path) == []


def test_a_store_used_again_survives_an_older_one(tmp_path):
    first = _store(tmp_path, "d" * 40, 1000, 100)
    _store(tmp_path, "e" * 40, 1000, 200)
    first.entries()  # used now: most recent
    removed, _ = prune(tmp_path, 1)
    assert [s.folder.name for s in removed] == ["e" * 40, "d" * 40]


def test_the_command_prunes_a_cache_folder_and_rejects_bad_sizes(tmp_path, capsys):
    _store(tmp_path / "indexes", "f" * 40, 1000, 100)
    assert main(["prune-indexes", str(tmp_path), "--max-size", "1G"]) == 0
    assert "removed 0 graph stores" in capsys.readouterr().out
    assert main(["prune-indexes", str(tmp_path), "--max-size", "0", "--dry-run"]) == 0
    assert "would remove\t" + "f" * 40 in capsys.readouterr().out and graph_stores(tmp_path / "indexes")
    assert main(["prune-indexes", str(tmp_path), "--max-size", "0"]) == 0
    assert graph_stores(tmp_path / "indexes") == []
    with pytest.raises(SystemExit):
        main(["prune-indexes", str(tmp_path), "--max-size", "2 lots"])
    assert "expected a number with an optional K, M, G or T suffix" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["prune-indexes", str(tmp_path / "missing"), "--max-size", "1G"])
    assert "not a directory" in capsys.readouterr().err


@given(st.integers(0, 10**6), st.sampled_from(["", "K", "M", "G", "T"]), st.sampled_from(["", "B", "iB"]))
def test_parse_size(number, unit, suffix):
    factor = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[unit]
    assert parse_size(f"{number}{unit}{suffix if unit else ''}") == number * factor
