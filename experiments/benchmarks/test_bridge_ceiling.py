"""How far the project's own tests reach toward the gold code: a ceiling for a "test bridge" signal.

    python -m experiments.benchmarks.test_bridge_ceiling [--sets real,tune,clog_tune,real:prose] [--ks 1,3,5,10]

A diagnostic, not a method: it reads the gold patch. Per task the test definitions (test functions and methods,
``Symbol.is_test``) are ranked against the query with the project's symbol BM25 (``lexical.bm25_scores``: the
symbol document holds the split name and the body's terms); for the top ``k`` it counts how often the
definitions they reach include a gold definition or a gold file, by route:

* ``calls``: non-test definitions a top test calls or assigns (its own ``calls``/``assigns`` edges, and one
  step through a test helper it calls);
* ``imports``: the files the top tests' files import (the module's ``imports`` edges);
* ``mirror``: the source file a test file's path mirrors (``tests/test_foo.py``, ``test/foo_test.py``,
  ``foo/tests/test_bar.py`` -> a non-test ``foo.py`` / ``bar.py``, the one sharing most folders).

and where the best gold file stands among the files reached by calls (each reached definition votes its test's
BM25 score, shared among the test's targets): ``@1`` / ``@5`` are the share of tasks whose gold file is first /
in the first five of that ranking (over every task, also those whose tests reach nothing).
"""
from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import numpy as np

from beacon.graph.symbols import EdgeType
from beacon.retrieval.lexical import bm25_scores
from beacon.retrieval.masks import test_files
from beacon.retrieval.signals_real.index import graph_index
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, loaded


def test_definitions(graph) -> np.ndarray:
    """Nodes of test functions and methods."""
    return np.array([i for i, s in enumerate(graph.symbols) if s.is_test and s.kind in ("function", "method")],
                    dtype=np.int64)


def reached(graph, node: int, is_test: np.ndarray) -> set[int]:
    """Non-test definitions ``node`` calls or assigns, directly or through one test helper it calls."""
    out: set[int] = set()
    for etype in (EdgeType.CALLS, EdgeType.ASSIGNS):
        for n in graph.neighbors(node, etype):
            n = int(n)
            if not is_test[n]:
                out.add(n)
            elif etype == EdgeType.CALLS and graph.symbols[n].kind in ("function", "method"):
                out.update(int(m) for m in graph.neighbors(n, EdgeType.CALLS) if not is_test[int(m)])
    return out


def mirror(path: str, sources: list[str]) -> str | None:
    """The source file a test path mirrors (see the module docstring), or None."""
    parts = path.split("/")
    name = parts[-1]
    if name.startswith("test_"):
        name = name[5:]
    elif name.endswith("_test.py"):
        name = name[:-8] + ".py"
    else:
        return None
    folders = {p for p in parts[:-1] if p not in ("tests", "test", "testing", "src")}
    same = [s for s in sources if s.rsplit("/", 1)[-1] == name]
    if not same:
        return None
    return max(same, key=lambda s: (len(folders & set(s.split("/")[:-1])), -len(s), s))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="real,tune,clog_tune,real:prose")
    ap.add_argument("--ks", default="1,3,5,10")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--limit", type=int)
    args = ap.parse_args(argv)
    ks = [int(k) for k in args.ks.split(",")]
    if any(s.startswith(("clog_test", "test")) for s in args.sets.split(",")):
        raise SystemExit("test / clog_test are final checks: never read per instance")
    for which in args.sets.split(","):
        counts: Counter = Counter()
        n = 0
        for inst, graph, gold in loaded(which, args.cache_dir, args.limit):
            n += 1
            index = graph_index(graph)
            is_test = index.is_test
            tests = test_definitions(graph)
            counts["tasks with test defs"] += len(tests) > 0
            gold_units = {graph.index[u] for u in gold.units if u in graph.index}
            gold_files = set(gold.paths)
            sources = [p for p, t in zip(index.paths, test_files(graph)) if not t]
            score = bm25_scores(graph, inst.problem_statement)[tests] if len(tests) else np.zeros(0)
            order = tests[np.argsort(-score, kind="stable")]
            order = order[score[np.argsort(-score, kind="stable")] > 0]
            for k in ks:
                top = order[:k]
                defs, files, imported, mirrored = set(), Counter(), set(), set()
                for rank, t in enumerate(top):
                    r = reached(graph, int(t), is_test)
                    defs |= r
                    for d in r:
                        files[index.paths[index.file_of[d]]] += 1.0 / (rank + 1) / len(r)
                    path = graph.symbols[int(t)].path
                    mod = index.module_node.get(path)
                    if mod is not None:
                        for m in graph.neighbors(mod, EdgeType.IMPORTS):
                            if not is_test[int(m)]:
                                imported.add(index.paths[index.file_of[int(m)]])
                    mm = mirror(path, sources)
                    if mm:
                        mirrored.add(mm)
                counts[k, "def hit (calls)"] += bool(defs & gold_units)
                counts[k, "file hit (calls)"] += bool(set(files) & gold_files)
                counts[k, "file hit (imports)"] += bool(imported & gold_files)
                counts[k, "file hit (mirror)"] += bool(mirrored & gold_files)
                counts[k, "file hit (any)"] += bool((set(files) | imported | mirrored) & gold_files)
                ranked = [f for f, _ in sorted(files.items(), key=lambda x: (-x[1], x[0]))]
                ranks = [ranked.index(f) + 1 for f in gold_files if f in ranked]
                best = min(ranks) if ranks else None
                counts[k, "gold file @1 (calls)"] += best == 1
                counts[k, "gold file @5 (calls)"] += best is not None and best <= 5
                counts[k, "files reached (calls)"] += len(files)
                counts[k, "files imported"] += len(imported)
        print(f"\n== {which}: {n} tasks, {counts['tasks with test defs']} with test definitions")
        keys = ["def hit (calls)", "file hit (calls)", "file hit (imports)", "file hit (mirror)", "file hit (any)",
                "gold file @1 (calls)", "gold file @5 (calls)"]
        print(f"{'k':>3} " + " ".join(f"{x:>22}" for x in keys) + "   mean files reached / imported")
        for k in ks:
            cells = " ".join(f"{100 * counts[k, x] / max(n, 1):>22.1f}" for x in keys)
            print(f"{k:>3} {cells}   {counts[k, 'files reached (calls)'] / max(n, 1):.1f} / "
                  f"{counts[k, 'files imported'] / max(n, 1):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
