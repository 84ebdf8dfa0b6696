"""Fixtures for graph tests: write small real repositories into tmp dirs."""
from __future__ import annotations

import functools
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
