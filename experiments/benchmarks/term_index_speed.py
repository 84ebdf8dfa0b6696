"""The shared term index (``beacon.retrieval.text.term_index``) on the pinned sympy sdist: now, before, reference.

    python -m experiments.benchmarks.term_index_speed [--cache DIR] [--graph-cache DIR] [--repeat N]

Builds the sympy graph (the sdist ``graph_build`` pins, parse cache in ``--graph-cache``), then times, in one
process and alternating, the term index built from scratch on the fresh graph (``graph.cache.clear()``) four ways,
each ``--repeat`` times, and checks all four are byte-identical:

* now: from each file's words and their terms, both computed with its parse (``beacon.graph.words``,
  ``beacon.graph.word_terms``, in the parse cache);
* previous: from each file's words, every distinct word split at query time (``doc_words(with_terms=False)``,
  commit 2cafce8);
* before: from one tokenisation of the whole graph's text at query time (``term_scan``, commit d193831);
* reference: the string-per-document build (``term_reference``).

The machine is shared, so the target is read both absolutely (median <= 0.25 s) and as the ratio to the
reference run in the same process (<= 0.23, i.e. 0.25 s of the reference's 1.1 s on a quiet machine). A build
that splits words at query time pays more the first time in a process (``split_identifier``'s memo is empty):
the first build of "now" and of "previous" (memo cleared) are reported on their own rows.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval import text
from beacon.retrieval.doc_tokens import doc_words
from experiments.benchmarks.graph_build import DEFAULT_CACHE, DEFAULT_VERSION, fetch_sdist, print_table, unpack, verdict
from experiments.benchmarks.term_reference import reference_term_index, same_index
from experiments.benchmarks.term_scan import scanned_doc_words

TARGET_SECONDS = 0.25
TARGET_RATIO = 0.23
BUILDS = {
    "now": text.term_index,
    "previous": lambda graph: text.term_index_of(doc_words(graph, with_terms=False), len(graph.symbols)),
    "before": lambda graph: text.term_index_of(scanned_doc_words(graph), len(graph.symbols)),
    "reference": reference_term_index,
}


def build_seconds(graph: CodebaseGraph, how: str) -> float:
    graph.cache.clear()  # every index dropped: the term index is built from the graph alone
    start = time.perf_counter()
    BUILDS[how](graph)
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
        first = build_seconds(graph, "now")  # no word split at query time
        text._SPLITS.clear()
        first_previous = build_seconds(graph, "previous")  # every distinct word split, the memo empty
        times: dict[str, list[float]] = {how: [] for how in BUILDS}
        for _ in range(args.repeat):
            for how in ("reference", "before", "previous", "now"):
                times[how].append(build_seconds(graph, how))
        built = {}
        for how, build in BUILDS.items():
            graph.cache.clear()
            built[how] = build(graph)
        same = all(same_index(built[how], built["reference"]) for how in ("now", "previous", "before"))
    now, previous, before, ref = (statistics.median(times[how])
                                  for how in ("now", "previous", "before", "reference"))
    print(f"sympy {DEFAULT_VERSION}: {len(graph.symbols)} symbols, {len(graph.files)} files; "
          f"{args.repeat} builds each, alternating")
    rows = [("term_index, first in the process (s)", f"{first:.3f}", f"{TARGET_SECONDS}",
             *verdict(first, TARGET_SECONDS)),
            ("previous (words split at query time), first in the process (s)", f"{first_previous:.3f}", "", "", ""),
            ("term_index median (s)", f"{now:.3f}", f"{TARGET_SECONDS}", *verdict(now, TARGET_SECONDS)),
            ("previous (words split at query time) median (s)", f"{previous:.3f}", "", "", ""),
            ("before (one tokenisation at query time) median (s)", f"{before:.3f}", "", "", ""),
            ("reference median (s)", f"{ref:.3f}", "", "", ""),
            ("now / previous", f"{now / previous:.2f}", "", "", ""),
            ("now / before", f"{now / before:.2f}", "", "", ""),
            ("now / reference", f"{now / ref:.2f}", f"{TARGET_RATIO}", *verdict(now / ref, TARGET_RATIO)),
            ("byte-identical (now, previous, before, reference)", str(same), "True", "", "PASS" if same else "MISS")]
    print_table(("what", "measured", "target", "ratio", "status"), rows)
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
