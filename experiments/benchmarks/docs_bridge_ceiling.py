"""Ceiling of the docs bridge (reads gold: a diagnostic): do the documentation sections that match a query cite gold?

For each task: the snapshot's documentation sections (``docs_parse``: ``docs/``/``doc/`` ``.rst``/``.md``/``.txt``
and the README, release notes and changelogs excluded) ranked against the query with BM25; the names the top
``k`` sections cite resolved to definitions (``docs_bridge.resolve_ref``). Per set and ``k``: how many tasks
have documentation, how often the reached definitions include a gold definition (``def``) or a gold file
(``file``), how often the gold file is the first of the files they reach (``file@1``, by summed votes), and the
mean number of files reached.

    python -m experiments.benchmarks.docs_bridge_ceiling --sets real,tune,clog_tune,real:prose
    # the signal's variants (module constants of docs_bridge) through localize_real_signals' grid
    python -m experiments.benchmarks.docs_bridge_ceiling --kinds role+directive --cite-idf --signals \
        --sets real,real:prose,tune,clog_tune --methods "hybrid_follow;hybrid_follow:w_docs=0.05;docs_only"
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from beacon.retrieval.signals_real import docs_bridge
from beacon.retrieval.signals_real.docs_bridge import docs_index, docs_symbol
from beacon.retrieval.signals_real.index import graph_index
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, loaded

KS = (1, 3, 5)


def measure(which: str, cache_dir: Path, ks=KS) -> dict:
    rows = {k: {"def": 0, "file": 0, "file@1": 0, "files": 0} for k in ks}
    n = with_docs = 0
    for inst, graph, gold in loaded(which, cache_dir):
        n += 1
        if docs_index(graph).n_sections == 0:
            continue
        with_docs += 1
        gold_nodes = {graph.index[u] for u in gold.units if u in graph.index}
        gold_files = set(gold.paths)
        paths = graph_index(graph).paths
        for k in ks:
            symbol = docs_symbol(graph, inst.problem_statement, k)
            reached = set(np.flatnonzero(symbol).tolist())
            votes = graph_index(graph).votes(symbol)
            files = [paths[i] for i in np.argsort(-votes, kind="stable") if votes[i] > 0]
            r = rows[k]
            r["def"] += bool(reached & gold_nodes)
            r["file"] += bool(set(files) & gold_files)
            r["file@1"] += bool(files and files[0] in gold_files)
            r["files"] += len(files)
    return {"n": n, "with_docs": with_docs, "rows": rows}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="real,tune,clog_tune")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--kinds", default="role+directive+code", help="how a name must be cited (docs_bridge.REF_KINDS)")
    ap.add_argument("--cite-idf", action="store_true", help="hub APIs count less (docs_bridge.CITE_IDF)")
    ap.add_argument("--signals", action="store_true", help="run localize_real_signals with the other arguments")
    args, rest = ap.parse_known_args(argv)
    docs_bridge.REF_KINDS = frozenset(args.kinds.split("+"))
    docs_bridge.CITE_IDF = args.cite_idf
    if args.signals:
        from experiments.benchmarks.localize_real_signals import main as signals
        signals(["--sets", args.sets, "--cache-dir", str(args.cache_dir), *rest])
        return
    if rest:
        ap.error(f"unrecognized arguments: {' '.join(rest)}")
    print(f"{'set':12} {'k':>2} {'n':>4} {'docs':>5} {'def%':>6} {'file%':>6} {'file@1%':>8} {'files':>6}")
    for which in args.sets.split(","):
        out = measure(which, args.cache_dir)
        for k, r in out["rows"].items():
            pct = lambda x: 100.0 * x / max(out["n"], 1)  # noqa: E731 (of all tasks, with docs or not)
            print(f"{which:12} {k:>2} {out['n']:>4} {out['with_docs']:>5} {pct(r['def']):6.1f} {pct(r['file']):6.1f} "
                  f"{pct(r['file@1']):8.1f} {r['files'] / max(out['with_docs'], 1):6.1f}", flush=True)


if __name__ == "__main__":
    main()
