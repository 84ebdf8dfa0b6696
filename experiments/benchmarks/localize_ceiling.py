"""How much of a method's localization error is file ranking? Its metrics with the gold file forced first.

    python -m experiments.benchmarks.localize_ceiling --split tune --methods bm25,hybrid,hybrid_all --budget 4000

A diagnostic, not a method: it reads the gold patch. Per instance, each
method's own scores are taken (``method.scores`` for the ``hybrid`` family,
``method.rank`` otherwise) and, for the "gold file first" row, every ranked
definition of a gold file is lifted above every other definition while keeping
its own order; the method's own ``packing_order`` (whole best file first, for
``hybrid``) and ``pack`` then build the context as usual. The gap between the
two rows is what a perfect file ranker would add to that method; the rest is
function ranking and packing inside the file. Scored with the runner's
``ranking_metrics`` and ``budget_recall``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from beacon.context.pack import pack
from beacon.localize.evaluate import ranking_metrics, rankings
from beacon.localize.gold import gold_from_patch
from beacon.localize.instances import SnapshotCache, load_instances
from beacon.localize.metrics import budget_recall
from beacon.retrieval import get_method
from beacon.retrieval.recipes import method_params
from experiments.benchmarks.localize_methods import parse_method

METRICS = ("file_acc@1", "function_acc@10", "budget_function_recall")


def _ordered(graph, ranking, gold_paths: set[str], lift: bool) -> list[tuple[int, float]]:
    if not lift:
        return ranking
    first = [(n, s) for n, s in ranking if graph.symbols[n].path in gold_paths]
    return first + [(n, s) for n, s in ranking if graph.symbols[n].path not in gold_paths]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", default="experiments/data/mined_tasks.jsonl")
    ap.add_argument("--repos-dir", action="append", default=None)
    ap.add_argument("--cache-dir", default=".beacon-cache")
    ap.add_argument("--split", default=None, help="keep instances whose 'split' field equals this")
    ap.add_argument("--methods", default="bm25,hybrid,hybrid_all", help="comma-separated; conf/method params")
    ap.add_argument("--specs", default=None, help="';'-separated method specs with overrides "
                    "(hybrid_code;hybrid_code:w_local=0.25), instead of --methods")
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args(argv)
    specs = [s for s in args.specs.split(";") if s] if args.specs else [s for s in args.methods.split(",") if s]
    methods = {spec: get_method(name, **method_params(name, overrides))
               for spec, (name, overrides) in ((spec, parse_method(spec)) for spec in specs)}
    instances = load_instances(args.instances)
    if args.split:
        instances = [i for i in instances if i.extra.get("split") == args.split]
    instances = instances[: args.limit]
    repos = args.repos_dir or ["../shared/data/git_repos", "../shared/data/swebench_lite_dev/repos"]
    cache = SnapshotCache(Path(args.cache_dir), [Path(d) for d in repos])
    needs = frozenset().union(*(m.needs() for m in methods.values()))
    rows: dict[tuple[str, bool], list[dict]] = {(m, lift): [] for m in methods for lift in (False, True)}
    for n, inst in enumerate(instances, 1):
        graph = cache.graph(inst.repo, inst.base_commit)
        inputs = cache.inputs(inst.repo, inst.base_commit, needs)
        gold = gold_from_patch(inst.instance_id, inst.patch, cache.snapshot(inst.repo, inst.base_commit))
        if not gold.functions:
            continue
        gold_paths = set(gold.files(added=False))
        for name, method in methods.items():
            ranking = method.rank(graph, inst.problem_statement, inputs)
            for lift in (False, True):
                ordered = _ordered(graph, ranking, gold_paths, lift)
                order = (method.packing_order(graph, ordered, args.budget) if hasattr(method, "packing_order")
                         else method.order_for_packing(graph, inst.problem_statement, ordered))
                context = pack(graph, order, args.budget, method.renderer, notes=method.notes)
                metrics = ranking_metrics(rankings(graph, [graph.symbols[i].id for i, _ in ordered]), gold)
                spans = [(s.path, s.start_line, s.end_line) for s in context.snippets]
                metrics["budget_function_recall"] = budget_recall(spans, gold)["function"]
                rows[(name, lift)].append(metrics)
        graph.cache.clear()
        print(f"\r{n}/{len(instances)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"budget {args.budget}; means over instances with gold functions")
    print(f"{'method':<40}{'ranking':<18}" + "".join(f"{k:>24}" for k in METRICS) + f"{'n':>6}")
    for (name, lift), values in rows.items():
        means = [np.mean([v[k] for v in values if v.get(k) is not None]) for k in METRICS]
        label = "gold file first" if lift else "own"
        print(f"{name:<40}{label:<18}" + "".join(f"{x:>24.3f}" for x in means) + f"{len(values):>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
