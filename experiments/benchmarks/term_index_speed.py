"""The shared term index (``beacon.retrieval.text.term_index``) on the pinned sympy sdist: fast path vs reference.

    python -m experiments.benchmarks.term_index_speed [--cache DIR] [--graph-cache DIR] [--repeat N]

Builds the sympy graph (the sdist ``graph_build`` pins, parse cache in ``--graph-cache``), then times, in one
process and alternating, the term index built from scratch on the fresh graph (``graph.cache.clear()``) by
``doc_tokens`` (one tokenisation of the graph's text) and by the string-per-document reference
(``term_reference``), each ``--repeat`` times, and checks the two are byte-identical. The machine is shared, so
the target is read both absolutely (median <= 0.35 s) and as the ratio to the reference run in the same process
(<= 0.32, i.e. 0.35 s of the reference's 1.1 s on a quiet machine). The first build in a process also pays for
splitting every distinct word (``split_identifier``'s memo is empty); it is reported on its own row.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval import text
from experiments.benchmarks.graph_build import DEFAULT_CACHE, DEFAULT_VERSION, fetch_sdist, print_table, unpack, verdict
from experiments.benchmarks.term_reference import reference_term_index, same_index

TARGET_SECONDS = 0.35
TARGET_RATIO = 0.32


def build_seconds(graph: CodebaseGraph, fast: bool) -> float:
    graph.cache.clear()  # every index dropped: the term index is built from the graph alone
    start = time.perf_counter()
    text.term_index(graph) if fast else reference_term_index(graph)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help=f"sdist cache (default {DEFAULT_CACHE})")
    parser.add_argument("--graph-cache", type=Path, default=None, help="parse cache folder (default: none)")
    parser.add_argument("--repeat", type=int, default=5, help="timed builds per implementation (default 5)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="beacon-bench-") as tmp:
        root = unpack(fetch_sdist(DEFAULT_VERSION, args.cache.expanduser()), Path(tmp) / "src")
        graph = CodebaseGraph.from_repo(root, cache_dir=args.graph_cache)
        first = build_seconds(graph, True)  # the word splits' memo is empty
        fast, ref = [], []
        for _ in range(args.repeat):
            ref.append(build_seconds(graph, False))
            fast.append(build_seconds(graph, True))
        graph.cache.clear()
        same = same_index(text.term_index(graph), reference_term_index(graph))
    f, r = statistics.median(fast), statistics.median(ref)
    print(f"sympy {DEFAULT_VERSION}: {len(graph.symbols)} symbols, {len(graph.files)} files; "
          f"{args.repeat} builds each, alternating")
    rows = [("term_index, first in the process (s)", f"{first:.3f}", f"{TARGET_SECONDS}",
             *verdict(first, TARGET_SECONDS)),
            ("term_index median (s)", f"{f:.3f}", f"{TARGET_SECONDS}", *verdict(f, TARGET_SECONDS)),
            ("reference median (s)", f"{r:.3f}", "", "", ""),
            ("fast / reference", f"{f / r:.2f}", f"{TARGET_RATIO}", *verdict(f / r, TARGET_RATIO)),
            ("byte-identical to the reference", str(same), "True", "", "PASS" if same else "MISS")]
    print_table(("what", "measured", "target", "ratio", "status"), rows)
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
