"""The padded trees of ``experiments/benchmarks/localize_distractors.py``: two tiny real packages padded together.

The instance's files stay byte for byte at their paths, the distractor brings its library code only (no tests,
no vendored folders), gold from a real ``git diff`` resolves in the padded graph, and the composition is
deterministic.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from beacon.graph.codebase import CodebaseGraph
from beacon.localize.gold import gold_from_patch
from experiments.benchmarks.localize_distractors import (DISTRACTORS, Distractor, composition, composition_key,
                                                         library_files, pad_tree)
from tests.repotools import fix_scene, write_tree

ALPHA = {
    "alpha/__init__.py": "from .core import parse\n",
    "alpha/core.py": "def parse(text):\n    return text.split(',')\n\n\ndef render(items):\n    return ','.join(items)\n",
    "tests/test_core.py": "from alpha.core import parse\n\n\ndef test_parse():\n    assert parse('a,b') == ['a', 'b']\n",
    "README.md": "alpha\n",
}
FIXED = {"alpha/core.py": ALPHA["alpha/core.py"].replace("text.split(',')", "text.split(',') if text else []")}
BETA = {
    "src/beta/__init__.py": "from .util import parse_header\n",
    "src/beta/util.py": "def parse_header(value):\n    return value.strip()\n",
    "src/beta/routing/rules.py": "class Rule:\n    def match(self, path):\n        return path\n",
    "src/beta/tests/test_util.py": "def test_header():\n    pass\n",
    "src/beta/conftest.py": "",
    "src/beta/_vendor/six.py": "def b(s):\n    return s\n",
    "src/beta/data.txt": "not python\n",
    "tests/test_beta.py": "def test_nothing():\n    pass\n",
    "docs/conf.py": "project = 'beta'\n",
}


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def scene(tmp_path):
    snapshot, patch = fix_scene(tmp_path / "alpha", ALPHA, FIXED)
    beta = write_tree(tmp_path / "beta", BETA)
    return snapshot, patch, beta / "src" / "beta"


def test_library_files_drop_tests_vendored_and_non_python(scene):
    _, _, package = scene
    assert library_files(package) == ["__init__.py", "routing/rules.py", "util.py"]


def test_padded_tree_keeps_the_original_byte_for_byte_and_gold_resolves(scene, tmp_path):
    snapshot, patch, package = scene
    added = pad_tree(snapshot, [("beta", package)], tmp_path / "padded")
    assert added == ["beta/__init__.py", "beta/routing/rules.py", "beta/util.py"]
    padded = _files(tmp_path / "padded")
    original = _files(snapshot)
    assert {k: padded[k] for k in original} == original
    assert set(padded) - set(original) == set(added)
    for rel in added:
        assert padded[rel] == (package / rel.removeprefix("beta/")).read_bytes()

    graph = CodebaseGraph.from_repo(tmp_path / "padded")
    small = CodebaseGraph.from_repo(snapshot)
    assert set(small.files) < set(graph.files)
    assert {s.id for s in small.symbols} <= {s.id for s in graph.symbols}
    gold = gold_from_patch("alpha-1", patch, snapshot)
    assert gold.paths == ("alpha/core.py",) and gold.units == ("alpha/core.py::parse",)
    assert all(p in graph.files for p in gold.paths)
    assert all(graph.symbol(u).path == "alpha/core.py" for u in gold.units)
    assert graph.symbol("beta/routing/rules.py::Rule.match").kind == "method"


def test_padding_is_deterministic(scene, tmp_path):
    snapshot, _, package = scene
    first = pad_tree(snapshot, [("beta", package)], tmp_path / "one")
    second = pad_tree(snapshot, [("beta", package)], tmp_path / "two")
    assert first == second and _files(tmp_path / "one") == _files(tmp_path / "two")
    ids = [[s.id for s in CodebaseGraph.from_repo(tmp_path / name).symbols] for name in ("one", "two")]
    assert ids[0] == ids[1]


def test_a_distractor_never_replaces_the_instances_files(scene, tmp_path):
    snapshot, _, package = scene
    with pytest.raises(ValueError, match="collides"):
        pad_tree(snapshot, [("alpha", package)], tmp_path / "padded")


def test_composition_excludes_the_instances_repository_and_is_keyed_by_commits():
    chosen = composition("pallets/flask")
    assert [d.repo for d in chosen] == [d.repo for d in DISTRACTORS if d.repo != "pallets/flask"]
    assert composition_key("pallets/flask", "a" * 40, chosen) == composition_key("pallets/flask", "a" * 40, chosen)
    assert composition_key("pallets/flask", "a" * 40, chosen) != composition_key("pallets/flask", "b" * 40, chosen)
    moved = [Distractor(d.repo, "c" * 40, d.package) if i == 0 else d for i, d in enumerate(chosen)]
    assert composition_key("pallets/flask", "a" * 40, chosen) != composition_key("pallets/flask", "a" * 40, moved)
    with pytest.raises(ValueError, match="held-out"):
        composition("psf/requests", [Distractor("sympy/sympy", "d" * 40, "sympy")])
