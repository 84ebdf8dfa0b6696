"""Per-query select+pack time of retrieval methods on localization instances, after the graph is built.

    python -m experiments.benchmarks.localize_speed --split tune --methods bm25,repomap,hybrid --budget 4000 --limit 60

Per instance the saved graph is loaded (``SnapshotCache``) and each method
runs once to warm the graph's one-off indexes (term matrices, transition
matrix, file index, token costs of blocks), then ``--repeats`` timed runs of
``assemble_context`` follow; the instance's time is their median. Prints
median and p90 over instances and the ratio of each method's median to the
first method's (``bm25``).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from beacon.localize.instances import SnapshotCache, load_instances
from beacon.retrieval import assemble_context, get_method
from beacon.retrieval.recipes import method_params


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", default="experiments/data/mined_tasks.jsonl")
    ap.add_argument("--repos-dir", action="append", default=None,
                    help="folder of <owner>__<name> repositories; repeat for several (default: the mined tasks' two)")
    ap.add_argument("--cache-dir", default=".beacon-cache")
    ap.add_argument("--split", default=None)
    ap.add_argument("--methods", default="bm25,repomap,hybrid")
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    names = [m for m in args.methods.split(",") if m]
    methods = {m: get_method(m, **method_params(m)) for m in names}  # configured by their recipes
    needs = frozenset().union(*(m.needs() for m in methods.values()))
    instances = load_instances(args.instances)
    if args.split:
        instances = [i for i in instances if i.extra.get("split") == args.split]
    instances = instances[: args.limit]
    repos = args.repos_dir or ["../shared/data/git_repos", "../shared/data/swebench_lite_dev/repos"]
    cache = SnapshotCache(Path(args.cache_dir), [Path(d) for d in repos])
    times: dict[str, list[float]] = {m: [] for m in names}
    warm: dict[str, list[float]] = {m: [] for m in names}
    for n, inst in enumerate(instances, 1):
        graph = cache.graph(inst.repo, inst.base_commit)
        inputs = cache.inputs(inst.repo, inst.base_commit, needs)
        graph.cache.clear()
        for m in names:
            start = time.perf_counter()
            assemble_context(graph, inst.problem_statement, methods[m], budget=args.budget, inputs=inputs)
            warm[m].append(time.perf_counter() - start)
            runs = []
            for r in range(args.repeats):
                # A fresh query text each repeat defeats per-query memos (mentions, walks).
                query = f"{inst.problem_statement}\n#{r}"
                start = time.perf_counter()
                assemble_context(graph, query, methods[m], budget=args.budget, inputs=inputs)
                runs.append(time.perf_counter() - start)
            times[m].append(statistics.median(runs))
        print(f"\r{n}/{len(instances)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    base = statistics.median(times[names[0]]) if times[names[0]] else float("nan")
    print(f"{len(instances)} instances, budget {args.budget}, median of {args.repeats} runs per instance")
    print(f"{'method':<12}{'median s':>10}{'p90 s':>10}{'max s':>10}{'ratio':>8}{'first-query median s':>22}")
    for m in names:
        t = np.asarray(times[m])
        print(f"{m:<12}{np.median(t):>10.4f}{np.percentile(t, 90):>10.4f}{t.max():>10.4f}"
              f"{np.median(t) / base:>8.2f}{statistics.median(warm[m]):>22.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
