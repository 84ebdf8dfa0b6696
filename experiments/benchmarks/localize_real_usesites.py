"""Where the use-site signals (``signals_real.usesites``) fire and how they move the first gold file, per instance.

    python -m experiments.benchmarks.localize_real_usesites [--sets real,tune] [--base hybrid_code] \
        [--weights w_users=0.1,w_callees=0.25] [--cache-dir DIR]

A diagnostic that reads gold (never a method). For each set, per variant
(``w_users``, ``w_error_users``, ``w_callees``, ``w_overriders``): on how many
instances the signal has evidence at all, on how many its file votes reach a
gold file, and, with ``--weights``, every instance whose first gold file rank
differs between ``--base`` and ``--base`` plus that one weight (``rank a -> b``).
The scored grid itself is ``localize_real_signals``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from beacon.localize.evaluate import rankings
from beacon.retrieval.recipes import method_params
from beacon.retrieval.registry import get_method
from beacon.retrieval.signals_real.index import graph_index
from beacon.retrieval.signals_real.usesites import callee_scores, error_user_scores, overrider_scores, user_scores
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, loaded

VARIANTS = {"w_users": user_scores, "w_error_users": error_user_scores, "w_callees": callee_scores,
            "w_overriders": overrider_scores}


def first_gold(method, graph, query: str, gold_files: set[str]) -> int | None:
    ranked = rankings(graph, [graph.symbols[n].id for n, _ in method.rank(graph, query)])["files"]
    return next((i + 1 for i, f in enumerate(ranked) if f in gold_files), None)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="real,tune")
    ap.add_argument("--base", default="hybrid_code")
    ap.add_argument("--weights", default="", help="comma-separated w=x: one configuration each, on --base")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = ap.parse_args(argv)
    base_params = method_params(args.base)
    base = get_method(args.base, **base_params)
    configs = {}
    for spec in filter(None, args.weights.split(",")):
        name, value = spec.split("=")
        configs[spec] = get_method(args.base, **{**base_params, name: float(value)})
    for which in args.sets.split(","):
        fired = {v: 0 for v in VARIANTS}
        reached = {v: 0 for v in VARIANTS}
        n = 0
        for inst, graph, gold in loaded(which, args.cache_dir):
            n += 1
            query, gold_files = inst.problem_statement, set(gold.files(added=False))
            paths = graph_index(graph).paths
            for v, signal in VARIANTS.items():
                found = signal(graph, query)
                fired[v] += not found.empty
                reached[v] += any(found.file[i] > 0 and paths[i] in gold_files for i in range(len(paths)))
            if configs:
                before = first_gold(base, graph, query, gold_files)
                for spec, method in configs.items():
                    after = first_gold(method, graph, query, gold_files)
                    if after != before:
                        print(f"  {which} {inst.instance_id} {spec}: gold file rank {before} -> {after}")
        print(f"{which} ({n}): " + "; ".join(f"{v} fires {fired[v]}, reaches gold {reached[v]}" for v in VARIANTS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
