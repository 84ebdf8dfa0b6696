"""Score several retrieval methods in one process on localization instances (fast method development).

    python -m experiments.benchmarks.localize_methods --split tune --methods bm25,repomap,hybrid --budget 4000

Each instance's graph is loaded once (``SnapshotCache``, the runner's cache
folder by default) and every method is scored on it with the runner's own
``evaluate``; the table shows means over instances with a non-empty gold
function set, and the per-query ``retrieve`` time (graph build excluded;
the first query on a graph also pays its one-off indexes, so the median is
the number to read). This is a development tool: the runner
(``experiments.localize``) remains the reference for recorded results.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from beacon.localize.evaluate import evaluate
from beacon.localize.gold import gold_from_patch
from beacon.localize.instances import SnapshotCache, load_instances
from beacon.repo.history import INPUT_NAMES
from beacon.retrieval.recipes import method_params

METRICS = ("file_acc@1", "file_acc@5", "function_acc@5", "function_acc@10", "function_recall@10",
           "budget_file_recall", "budget_function_recall")


def parse_method(spec: str) -> tuple[str, dict]:
    """``hybrid:w_file=0.5,fusion=rrf`` -> ``("hybrid", {"w_file": 0.5, "fusion": "rrf"})`` (over the recipe)."""
    name, _, rest = spec.partition(":")
    params = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    return name, params


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", default="experiments/data/mined_tasks.jsonl")
    ap.add_argument("--repos-dir", action="append", default=None,
                    help="folder of <owner>__<name> repositories; repeat for several (default: the mined tasks' two)")
    ap.add_argument("--cache-dir", default=".beacon-cache")
    ap.add_argument("--split", default=None, help="keep instances whose 'split' field equals this")
    ap.add_argument("--methods", default="bm25,repomap,hybrid",
                    help="comma-separated names; with parameters (name:k=v,k=v) separate methods by ';'")
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--records", default=None, help="write per-instance metrics as JSONL here")
    args = ap.parse_args(argv)
    methods = [m for m in args.methods.split(";" if ":" in args.methods else ",") if m]
    instances = load_instances(args.instances)
    if args.split:
        instances = [i for i in instances if i.extra.get("split") == args.split]
    instances = instances[: args.limit]
    repos = args.repos_dir or ["../shared/data/git_repos", "../shared/data/swebench_lite_dev/repos"]
    cache = SnapshotCache(Path(args.cache_dir), [Path(d) for d in repos])
    rows: dict[str, list[dict]] = {m: [] for m in methods}
    times: dict[str, list[float]] = {m: [] for m in methods}
    out = open(args.records, "w") if args.records else None
    for n, inst in enumerate(instances, 1):
        try:
            graph = cache.graph(inst.repo, inst.base_commit)
            inputs = cache.inputs(inst.repo, inst.base_commit, set(INPUT_NAMES))
            gold = gold_from_patch(inst.instance_id, inst.patch, cache.snapshot(inst.repo, inst.base_commit))
        except Exception as exc:  # a bad instance is reported, the others go on
            print(f"skip {inst.instance_id}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        if not gold.functions:
            continue
        for m in methods:
            start = time.perf_counter()
            name, params = parse_method(m)
            record = evaluate(graph, inst.instance_id, inst.problem_statement, gold, name, args.budget,
                              method_params(name, params), inputs)
            times[m].append(time.perf_counter() - start)
            rows[m].append(record["metrics"])
            if out:
                out.write(json.dumps({"instance_id": inst.instance_id, "method": m, "metrics": record["metrics"],
                                      "top_functions": record["ranked"]["functions"][:10],
                                      "gold": record["gold"]["functions"]}) + "\n")
        print(f"\r{n}/{len(instances)}", end="", file=sys.stderr, flush=True)
        graph.cache.clear()
    print(file=sys.stderr)
    n_inst = len(next(iter(rows.values()))) if rows else 0
    print(f"{n_inst} instances with gold functions, budget {args.budget}")
    print(f"{'method':<40}" + "".join(f"{k:>24}" for k in METRICS) + f"{'median s':>10}")
    for m in methods:
        means = []
        for k in METRICS:
            vals = [r[k] for r in rows[m] if r.get(k) is not None]
            means.append(f"{(sum(vals) / len(vals) if vals else float('nan')):>24.3f}")
        med = statistics.median(times[m]) if times[m] else float("nan")
        print(f"{m[:40]:<40}" + "".join(means) + f"{med:>10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
