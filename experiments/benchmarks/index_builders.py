"""Per-graph index builders on the pinned sympy sdist: the fast builders against the code they replaced.

    python -m experiments.benchmarks.index_builders [--cache DIR] [--parse-cache DIR] [--repeat N]

Builds the sympy graph (``graph_build``'s pinned sdist; ``--parse-cache`` reuses
parses), then times each builder of the name field, document expansion,
file index (with ``by_name``), folder masks, packable mask, literal index, hashed vectors and the
change log's (path, name) lookup, and its reference (``tests/retrieval/index_references.py``: the
code it replaced; rows marked ``[d193831]`` against main d193831's per-distinct-string builders, the
row marked ``[2cafce8]`` against main 2cafce8's literal index, which cut the constants while building
(``experiments/benchmarks/literal_reference.py``; now each file's fragments come with its parse), the
others against the per-symbol code before them), alternately in one process on fresh indexes (their
inputs, such as the term index, built beforehand and not timed). Prints the
fastest CPU times, the ratio fast / reference, and whether the two outputs are equal.

The name builders share one derivation (``term_rows.symbol_names``: qualname
parts, names and their terms, built once per graph). Each builder is timed
twice: with it prebuilt (an input, like the term index) and with it rebuilt
inside the timing (what the first of them to run pays); the totals count it
once.
"""
from __future__ import annotations

import argparse
import gc
from collections.abc import Mapping
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from beacon.graph import CodebaseGraph
from beacon.retrieval import expansion, file_index, hashed, masks, stemmed
from beacon.retrieval.indexes import INDEXES_KEY
from beacon.retrieval.neighbors import call_neighbors
from beacon.retrieval.signals_real import index as signals_index, literals
from beacon.retrieval.term_rows import symbol_names
from beacon.retrieval.text import term_index
from experiments.benchmarks import literal_reference
from experiments.benchmarks.graph_build import DEFAULT_CACHE, DEFAULT_VERSION, fetch_sdist, unpack
from tests.retrieval import index_references as ref


def _fresh(graph: CodebaseGraph, keep: tuple[str, ...]) -> None:
    """Drop every index but the members in ``keep`` (the builder's inputs)."""
    ix = graph.cache.get(INDEXES_KEY)
    kept = {name: getattr(ix, name) for name in keep} if ix is not None else {}
    graph.cache.pop(INDEXES_KEY, None)
    from beacon.retrieval.indexes import indexes_for
    fresh = indexes_for(graph)
    for name, value in kept.items():
        object.__setattr__(fresh, name, value)


def _equal(a, b) -> bool:
    if sp.issparse(a):
        return a.format == b.format and a.shape == b.shape and all(
            getattr(a, k).dtype == getattr(b, k).dtype and np.array_equal(getattr(a, k), getattr(b, k))
            for k in ("data", "indices", "indptr"))
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, Mapping):
        return list(a) == list(b) and all(_equal(a[k], b[k]) for k in a)
    return a == b


def _file_index_tuple(index: file_index.FileIndex) -> tuple:
    """(paths, file_of, module_node, by_stem): ``by_name`` is built on first use and has a row of its own."""
    return index.paths, index.file_of, index.module_node, index.by_stem


def _without_by_name(index: tuple) -> tuple:
    return index[:3] + index[4:]


def _swapped(module, name: str, replacement, build):
    """``build`` with ``module.name`` temporarily replaced (the one function a builder changed)."""
    def run(graph: CodebaseGraph):
        fast = getattr(module, name)
        setattr(module, name, replacement)
        try:
            return build(graph)
        finally:
            setattr(module, name, fast)
    return run


def _path_name_table(graph: CodebaseGraph) -> file_index.NodesByName:
    """What ``log_votes`` looks (path, name) up in now: ``FileIndex.by_name`` and the file of each node (compared
    with the reference's table after the timing, in ``_same_table``)."""
    return file_index.file_index(graph).by_name


def _same_table(fast, plain: dict[tuple[str, str], list[int]], graph: CodebaseGraph) -> bool:
    paths = file_index.file_index(graph).paths
    file_of = file_index.file_index(graph).file_of
    table: dict[tuple[str, str], list[int]] = {}
    for name in fast:
        for node in fast[name].tolist():
            table.setdefault((paths[file_of[node]], name), []).append(node)
    return sorted(table.items()) == sorted(plain.items())


# (label, fast builder, reference, members kept as inputs)
BASE = ("term_index", "stem_map", "call_neighbors")
SHARED = "symbol_names"
BUILDERS = [
    ("file_index", lambda g: _file_index_tuple(file_index.file_index(g)),
     lambda g: _without_by_name(ref.build_file_index(g)), ()),
    ("FileIndex.by_name [d193831]", lambda g: file_index.file_index(g).by_name, ref.previous_by_name, ("file_index",)),
    ("packable", masks.packable, ref.packable, ("file_index", "test_mask")),
    ("vendored + peripheral masks", lambda g: (masks.vendored_mask(g), masks.peripheral_mask(g)),
     ref.vendored_and_peripheral, ("file_index",)),
    ("stemmed name field [d193831]", lambda g: stemmed.field_matrix(g, "name"),
     _swapped(stemmed, "_name_field", ref.previous_name_field, lambda g: stemmed.field_matrix(g, "name")),
     BASE + ("file_index",)),
    ("context_matrix(0.3) [d193831]", lambda g: expansion.context_matrix(g, 0.3),
     _swapped(expansion, "_name_rows", ref.previous_name_rows, lambda g: expansion.context_matrix(g, 0.3)),
     BASE + ("file_index",)),
    ("literal_index [d193831]", literals.literal_index, ref.literal_index, ("file_index", "test_mask", "issue_graph")),
    ("literal_index [2cafce8]", literals.literal_index, literal_reference.literal_index,
     ("file_index", "test_mask", "issue_graph")),
    ("hashed vectors", hashed.symbol_vectors, ref.hashed_vectors, BASE),
    ("log (path, name) lookup [d193831]", _path_name_table, ref.path_name_nodes, ("file_index",)),
]
NAME_BUILDERS = ("FileIndex.by_name [d193831]", "stemmed name field [d193831]", "context_matrix(0.3) [d193831]",
                 "log (path, name) lookup [d193831]")


def _time(graph: CodebaseGraph, fast, plain, keep: tuple[str, ...], repeat: int) -> tuple[float, float, dict]:
    """Fastest CPU seconds of ``fast`` and ``plain``, alternating, each on fresh indexes but ``keep``."""
    times: dict[str, list[float]] = {"fast": [], "ref": []}
    outputs: dict = {}
    for _ in range(repeat):
        for which, fn in (("fast", fast), ("ref", plain)):
            outputs.pop(which, None)  # freed here, not inside the timing
            _fresh(graph, keep)
            if "file_index" in keep:  # a kept FileIndex must not keep its by_name
                file_index.file_index(graph).__dict__.pop("by_name", None)
            gc.collect()
            start = time.process_time()  # CPU seconds: wall time on a shared machine is mostly waiting
            outputs[which] = fn(graph)
            times[which].append(time.process_time() - start)
    return min(times["fast"]), min(times["ref"]), outputs  # the least disturbed run of each (shared machine)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help=f"sdist cache (default {DEFAULT_CACHE})")
    parser.add_argument("--parse-cache", type=Path, default=None, help="graph parse cache dir (default: none)")
    parser.add_argument("--repeat", type=int, default=7, help="timings per builder (the fastest kept)")
    args = parser.parse_args(argv)
    tarball = fetch_sdist(DEFAULT_VERSION, args.cache.expanduser())
    with tempfile.TemporaryDirectory(prefix="beacon-bench-") as tmp:
        root = unpack(tarball, Path(tmp) / "src")
        graph = CodebaseGraph.from_repo(root, cache_dir=args.parse_cache)
        term_index(graph), stemmed._stem_map(graph), call_neighbors(graph)  # inputs every builder may keep
        file_index.file_index(graph), masks.is_test_mask(graph), signals_index.graph_index(graph)
        symbol_names(graph).terms
        print(f"sympy {DEFAULT_VERSION}: {len(graph.symbols)} symbols, {len(graph.files)} files; "
              f"fastest of {args.repeat}, fast and reference alternating, inputs prebuilt")
        print(f"{'builder (CPU)':36s} {'fast ms':>9s} {'+shared ms':>11s} {'reference ms':>13s} {'ratio':>6s} "
              f"{'+shared':>8s}  equal")
        shared = _time(graph, lambda g: symbol_names(g).terms, lambda g: None, (), args.repeat)[0]
        total_fast = total_ref = 0.0
        for label, fast, plain, keep in BUILDERS:
            named = label in NAME_BUILDERS
            f, r, outputs = _time(graph, fast, plain, keep + ((SHARED,) if named else ()), args.repeat)
            same = (_same_table(outputs["fast"], outputs["ref"], graph) if plain is ref.path_name_nodes
                    else _equal(outputs["fast"], outputs["ref"]))
            cold = _time(graph, fast, plain, keep, args.repeat)[0] if named else f
            total_fast, total_ref = total_fast + f, total_ref + r
            print(f"{label:36s} {f * 1000:9.1f} {cold * 1000:11.1f} {r * 1000:13.1f} {f / r:6.2f} {cold / r:8.2f}  {same}")
        print(f"{'shared name derivation':36s} {shared * 1000:9.1f}")
        total_fast += shared
        print(f"{'total (shared counted once)':36s} {total_fast * 1000:9.1f} {'':11s} {total_ref * 1000:13.1f} "
              f"{total_fast / total_ref:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
