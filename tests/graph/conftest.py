"""Fixtures for graph tests: write small real repositories into tmp dirs."""
from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from beacon.graph import CodebaseGraph, EdgeType
from repotools import write_tree


@pytest.fixture
def make_repo(tmp_path):
    """``make_repo(files) -> Path`` of a fresh directory holding ``files``."""
    counter = iter(range(1_000_000))

    def make(files: dict[str, str | bytes]) -> Path:
        root = tmp_path / f"repo{next(counter)}"
        root.mkdir()
        return write_tree(root, files, dedent=True)

    return make


@pytest.fixture
def build_graph(make_repo):
    """``build_graph(files, **kw) -> CodebaseGraph`` built cold from ``files``."""

    def build(files: dict[str, str | bytes], **kwargs) -> CodebaseGraph:
        return CodebaseGraph.from_repo(make_repo(files), **kwargs)

    return build


def out(graph: CodebaseGraph, sid: str, etype: EdgeType, *, reverse: bool = False) -> set[str]:
    """Ids of ``sid``'s neighbours along ``etype``."""
    return {graph.symbols[int(j)].id for j in graph.neighbors(graph.index[sid], etype, reverse=reverse)}


def assert_same_graph(a: CodebaseGraph, b: CodebaseGraph) -> None:
    """Symbols, files, skipped, stats and every edge array are equal."""
    assert [s.id for s in a.symbols] == [s.id for s in b.symbols]
    assert a.symbols == b.symbols
    assert a.files == b.files
    assert a.skipped == b.skipped
    assert a.stats == b.stats
    for etype in EdgeType:
        (pa, ia), (pb, ib) = a.edges[etype], b.edges[etype]
        assert np.array_equal(pa, pb), etype
        assert np.array_equal(ia, ib), etype


# Helpers are handed out as fixtures: importing `conftest` by name would clash
# with other test folders' conftest modules.
@pytest.fixture(scope="session")
def write_files():
    """``write_files(root, files) -> root`` (usable from module-scoped fixtures)."""
    return functools.partial(write_tree, dedent=True)


@pytest.fixture(scope="session")
def edges_of():
    """``edges_of(graph, sid, etype, reverse=False) -> set[str]``."""
    return out


@pytest.fixture(scope="session")
def same_graph():
    """``same_graph(a, b)`` asserts two graphs are identical."""
    return assert_same_graph


REQUESTS_BUNDLE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "swebench_lite_dev" / "repos" / "psf__requests.bundle"
REQUESTS_TAG = "swebench/psf__requests-2317"


@pytest.fixture(scope="session")
def clone_requests():
    """``clone_requests(tmp_path_factory) -> Path``: a fresh clone of psf/requests at ``REQUESTS_TAG``
    from the shared git bundle (skips when the shared data or git is missing)."""

    def clone(factory) -> Path:
        if not REQUESTS_BUNDLE.exists():
            pytest.skip(f"requests git bundle not found at {REQUESTS_BUNDLE} (shared data not present)")
        if shutil.which("git") is None:
            pytest.skip("git is not installed")
        dest = factory.mktemp("requests") / "repo"
        subprocess.run(["git", "clone", "--quiet", str(REQUESTS_BUNDLE), str(dest)], check=True, capture_output=True)
        subprocess.run(["git", "-C", str(dest), "checkout", "-q", REQUESTS_TAG], check=True, capture_output=True)
        return dest

    return clone
