"""Which hybrid components lift distractor hub files above the gold file on the padded graphs (reads gold).

A diagnostic for ``localize_distractors``: for every instance where ``--method`` (default ``hybrid_follow``)
has the gold file in its top 5 on the original graph but not on the padded one, it takes the padded graph's
rank-1 file and the gold file, and prints each component's weighted, unit-scaled contribution (as the
composer adds it: ``w · x / max over candidates``) at the best-scoring definition of each. The sums over
those instances say which components the hub files win on. It registers nothing and changes no output.
"""
from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np

from beacon.localize.evaluate import evaluate
from beacon.retrieval.file_index import file_index
from beacon.retrieval.mentions import mention_weights
from beacon.retrieval.recipes import method_params
from beacon.retrieval.registry import get_method
from experiments.benchmarks.localize_distractors import DISTRACTORS, PaddedCache, chosen_instances
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE


def contributions(m, graph, query: str) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The total and each component as the composer weighs it (unit-scaled over the candidates)."""
    s = m.scores(graph, query)
    cand = m.candidate_mask(graph)
    out = {}
    for name, x in s.components.items():
        w = getattr(m, f"w_{name}", 0.0) or 0.0
        top = float(x[cand].max()) if cand.any() else 0.0
        out[name] = w * x / top if top > 0 else np.zeros_like(x)
        if name == "mention" and top > 0:  # split: names matched per symbol vs paths/stems matched per file
            found = mention_weights(graph, query)
            out["mention_file"] = w * found.file[file_index(graph).file_of] / top
            out["mention_sym"] = w * found.symbol / top
    return s.total, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="tune")
    ap.add_argument("--tune-sample", type=int, default=0)
    ap.add_argument("--method", default="hybrid_follow")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = ap.parse_args(argv)
    params = method_params(args.method, {})
    m = get_method(args.method, **params)
    cache = PaddedCache(args.cache_dir, DISTRACTORS)
    chosen = chosen_instances(args.sets.split(","), args.tune_sample)
    sums: dict[str, defaultdict] = {"hub": defaultdict(float), "gold": defaultdict(float)}
    n = 0
    for (which, inst), (_, original, padded, gold) in zip(chosen, cache.loaded([i for _, i in chosen])):
        q = inst.problem_statement
        before = evaluate(original, inst.instance_id, q, gold, args.method, 4000, params)["ranked"]["files"][:5]
        after = evaluate(padded, inst.instance_id, q, gold, args.method, 4000, params)["ranked"]["files"]
        gold_files = set(gold.files(added=False))
        if not (gold_files & set(before)) or gold_files & set(after[:5]):
            continue
        total, parts = contributions(m, padded, q)
        fidx = file_index(padded)
        best = {}
        for path in (after[0], *sorted(gold_files)):
            if path not in fidx.paths:
                continue
            nodes = np.flatnonzero(fidx.file_of == fidx.paths.index(path))
            if len(nodes):
                best[path] = int(nodes[np.argmax(total[nodes])])
        if after[0] not in best or not gold_files & set(best):
            continue
        g = max((p for p in gold_files if p in best), key=lambda p: total[best[p]])
        n += 1
        row = []
        for side, path in (("hub", after[0]), ("gold", g)):
            v = best[path]
            for name, c in parts.items():
                sums[side][name] += float(c[v])
            sums[side]["total"] += float(total[v])
            row.append(f"{path} {total[v]:.2f}")
        rank = next((i for i, f in enumerate(after) if f in gold_files), -1) + 1
        print(f"{inst.instance_id:<40} gold rank {rank:>3}  {row[0]}  vs  {row[1]}", flush=True)
    print_means(sums["hub"], sums["gold"], n, "rank-1 distractor vs gold file")
    return 0


def print_means(top: dict[str, float], gold: dict[str, float], n: int, what: str) -> None:
    """Each component's mean contribution over ``n`` instances at the two files' best definitions, and the gap."""
    print(f"\n{n} instances: mean contribution at the best definition, {what}")
    for name in sorted(set(top) | set(gold)):
        t, g = top.get(name, 0.0) / max(n, 1), gold.get(name, 0.0) / max(n, 1)
        print(f"{name:<12}{t:>8.3f}{g:>8.3f}{t - g:>+8.3f}")


if __name__ == "__main__":
    raise SystemExit(main())
