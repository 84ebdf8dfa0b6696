"""Per-graph index builders on the pinned sympy sdist: the fast builders against their plain references.

    python -m experiments.benchmarks.index_builders [--cache DIR] [--parse-cache DIR] [--repeat N]

Builds the sympy graph (``graph_build``'s pinned sdist; ``--parse-cache`` reuses
parses), then times each builder of the name field, document expansion,
file index, folder masks, packable mask, literal index and hashed vectors, and its per-symbol reference (``tests/retrieval/index_references.py``,
the code it replaced), alternately in one process on fresh indexes (their
inputs, such as the term index, built beforehand and not timed). Prints the
fastest CPU times, the ratio fast / reference, and whether the two outputs are equal.
"""
from __future__ import annotations

import argparse
import gc
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
from beacon.retrieval.text import term_index
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
    if isinstance(a, dict):
        return list(a) == list(b) and all(_equal(a[k], b[k]) for k in a)
    return a == b


def _file_index_tuple(index: file_index.FileIndex) -> tuple:
    return index.paths, index.file_of, index.module_node, index.by_name, index.by_stem


def _with_regex_normalise(graph: CodebaseGraph):
    """The literal index with the regular-expression ``normalise`` it used before (the one change there)."""
    fast, literals.normalise = literals.normalise, ref.normalise
    try:
        return literals._build(graph)
    finally:
        literals.normalise = fast


# (label, fast builder, reference, members kept as inputs)
BASE = ("term_index", "stem_map", "call_neighbors")
BUILDERS = [
    ("file_index (+ by_name)", lambda g: _file_index_tuple(file_index.file_index(g)), ref.build_file_index, ()),
    ("packable", masks.packable, ref.packable, ("file_index", "test_mask")),
    ("vendored + peripheral masks", lambda g: (masks.vendored_mask(g), masks.peripheral_mask(g)),
     ref.vendored_and_peripheral, ("file_index",)),
    ("stemmed name field", lambda g: stemmed.field_matrix(g, "name"), ref.name_field, BASE + ("file_index",)),
    ("context_matrix(0.3)", lambda g: expansion.context_matrix(g, 0.3), lambda g: ref.context_matrix(g, 0.3),
     BASE + ("file_index",)),
    ("literal_index", literals.literal_index, _with_regex_normalise, ("file_index", "test_mask", "issue_graph")),
    ("hashed vectors", hashed.symbol_vectors, ref.hashed_vectors, BASE),
]


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
        print(f"sympy {DEFAULT_VERSION}: {len(graph.symbols)} symbols, {len(graph.files)} files; "
              f"fastest of {args.repeat}, fast and reference alternating, inputs prebuilt")
        print(f"{'builder (CPU)':32s} {'fast ms':>9s} {'reference ms':>13s} {'ratio':>6s}  equal")
        total_fast = total_ref = 0.0
        for label, fast, plain, keep in BUILDERS:
            times: dict[str, list[float]] = {"fast": [], "ref": []}
            outputs = {}
            for _ in range(args.repeat):
                for which, fn in (("fast", fast), ("ref", plain)):
                    outputs.pop(which, None)  # freed here, not inside the timing
                    _fresh(graph, keep)
                    gc.collect()
                    start = time.process_time()  # CPU seconds: wall time on a shared machine is mostly waiting
                    outputs[which] = fn(graph)
                    times[which].append(time.process_time() - start)
            f, r = min(times["fast"]), min(times["ref"])  # the least disturbed run of each (shared machine)
            total_fast, total_ref = total_fast + f, total_ref + r
            print(f"{label:32s} {f * 1000:9.1f} {r * 1000:13.1f} {f / r:6.2f}  {_equal(outputs['fast'], outputs['ref'])}")
        print(f"{'total':32s} {total_fast * 1000:9.1f} {total_ref * 1000:13.1f} {total_fast / total_ref:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
