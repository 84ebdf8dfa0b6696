"""``InputsStore``: the snapshot cache saves the git inputs it reads; a later cache loads them, equal to git's."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from beacon.localize.instances import SnapshotCache
from beacon.repair.control import make_control_repo
from beacon.repo.history import INPUT_NAMES, read_inputs
from beacon.repo.inputs_store import InputsStoreWarning


@pytest.fixture(scope="module")
def control(tmp_path_factory):
    root = tmp_path_factory.mktemp("control")
    _, manifest = make_control_repo(root)
    row = json.loads(manifest.read_text().splitlines()[0])
    return root, row["repo"], row["commit"]


def _equal(a, b) -> bool:
    for name in INPUT_NAMES:
        x, y = getattr(a, name), getattr(b, name)
        if name == "line_history":
            if set(x) != set(y) or not all(x[p].dtype == y[p].dtype and np.array_equal(x[p], y[p]) for p in x):
                return False
        elif x != y:
            return False
    return True


def test_saved_inputs_load_equal_to_what_git_gives(control, tmp_path):
    root, repo, commit = control
    first = SnapshotCache(tmp_path / "cache", root / "repos")
    read = first.inputs(repo, commit, set(INPUT_NAMES))
    assert read.file_history.hashes and read.line_history and read.change_log.messages
    paths = sorted({s.path for s in first.graph(repo, commit).symbols if not s.is_test})
    assert _equal(read, read_inputs(first.source(repo), commit, set(INPUT_NAMES), paths))
    saved = sorted(p.name for p in (tmp_path / "cache" / "inputs" / repo.replace("/", "__") / commit).iterdir())
    assert saved == sorted(f"{n}.json" for n in INPUT_NAMES)
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputsStoreWarning)
        loaded = SnapshotCache(tmp_path / "cache", root / "repos").inputs(repo, commit, set(INPUT_NAMES))
    assert _equal(loaded, read) and isinstance(loaded.file_history.commits[0], tuple)


@pytest.mark.parametrize("damage", ["garbage", "other commit", "other limits"])
def test_an_unsound_saved_input_is_reported_and_read_again(control, tmp_path, damage):
    root, repo, commit = control
    read = SnapshotCache(tmp_path / "cache", root / "repos").inputs(repo, commit, {"file_history"})
    path = tmp_path / "cache" / "inputs" / repo.replace("/", "__") / commit / "file_history.json"
    saved = json.loads(path.read_text())
    if damage == "garbage":
        path.write_text(path.read_text()[:-20])
    elif damage == "other commit":
        path.write_text(json.dumps({**saved, "key": {**saved["key"], "commit": "0" * 40}}))
    else:
        path.write_text(json.dumps({**saved, "key": {**saved["key"], "limits": [1, 1, 1]}}))
    with pytest.warns(InputsStoreWarning, match="file_history.json: .*read from git again"):
        again = SnapshotCache(tmp_path / "cache", root / "repos").inputs(repo, commit, {"file_history"})
    assert again.file_history == read.file_history
    assert json.loads(path.read_text()) == saved  # rewritten whole
