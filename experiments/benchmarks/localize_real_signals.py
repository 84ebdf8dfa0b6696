"""Value of each issue-structure signal (``beacon.retrieval.signals_real``) blended into ``hybrid_prf``.

    python -m experiments.benchmarks.localize_real_signals [--sets real,tune] [--limit N] [--cache-dir DIR]

Per instance: ``hybrid_prf``'s public ``rank`` (its scores, divided by their
maximum) and each signal's ``SignalScores``. A blend adds ``w x (unit(symbol)
+ unit(file)[file of the symbol])`` (``unit``: divided by the maximum; file
votes lift every packable definition of the file) and packs the blended
ranking with ``hybrid_prf``'s own packing order. Scored like the runner
(``beacon.localize.evaluate``): File Acc@1/@5, Function Acc@10 and function
recall within 4000 tokens. Weights ``WEIGHTS`` per signal are tried on every
set; the chosen weight maximises the sum of the four metrics' means over the
sets given (the real dev issues and the mined ``tune`` split only; the mined
``test`` split is a final check, ``--sets test``, at ``--weights``, which
also blends several signals at once). Also
prints the median per-query time of the three signals together on a graph
whose indexes are built (first call per graph excluded), and of
``hybrid_prf``'s rank.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from beacon.context.pack import pack
from beacon.localize.evaluate import rankings, ranking_metrics
from beacon.localize.metrics import budget_recall
from beacon.retrieval.registry import get_method
from beacon.retrieval.signals_real.dotted import dotted_scores
from beacon.retrieval.signals_real.frames import frame_scores
from beacon.retrieval.signals_real.index import graph_index
from beacon.retrieval.signals_real.literals import literal_scores
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, loaded
from paper.stats import paired_bootstrap_ci
from experiments.localize import method_conf_params

SIGNALS = {"literal": literal_scores, "frame": frame_scores, "dotted": dotted_scores}
WEIGHTS = (0.0, 0.1, 0.25, 0.5, 1.0)
BUDGET = 4000
METRICS = ("file_acc@1", "file_acc@5", "function_acc@10", "recall@4k")


def _unit(x: np.ndarray) -> np.ndarray:
    top = float(x.max()) if len(x) else 0.0
    return x / top if top > 0 else np.zeros_like(x, dtype=float)


def blend(graph, base: list[tuple[int, float]], parts: dict[str, tuple[float, object]]) -> list[tuple[int, float]]:
    """``base`` (a ranking) plus each weighted signal, over packable definitions; best first, ties by node."""
    index = graph_index(graph)
    total = np.zeros(len(graph.symbols))
    if base:
        nodes, values = zip(*base)
        total[list(nodes)] = np.asarray(values) / max(max(values), 1e-12)
    cand = ~index.is_test & np.fromiter((s.kind != "module" for s in graph.symbols), bool, len(graph.symbols))
    for w, sig in parts.values():
        if w:
            total += w * np.where(cand, _unit(sig.symbol) + _unit(sig.file)[index.file_of], 0.0)
    order = np.flatnonzero(total > 0)
    order = order[np.lexsort((order, -total[order]))]
    return list(zip(order.tolist(), total[order].tolist()))


def score(graph, method, ranking, gold) -> dict[str, float | None]:
    ranked = rankings(graph, [graph.symbols[n].id for n, _ in ranking])
    m = ranking_metrics(ranked, gold)
    ctx = pack(graph, method.packing_order(graph, ranking, BUDGET), BUDGET, method.renderer, notes=method.notes)
    recall = budget_recall([(s.path, s.start_line, s.end_line) for s in ctx.snippets], gold)
    return {"file_acc@1": m["file_acc@1"], "file_acc@5": m["file_acc@5"],
            "function_acc@10": m["function_acc@10"], "recall@4k": recall.get("function")}


def _mean(values) -> float | None:
    known = [v for v in values if v is not None]
    return 100 * sum(known) / len(known) if known else None


def paired(rows: list[dict], base: list[dict], ids: list[str], metric: str) -> str:
    """Mean difference from hybrid_prf in points with its paired bootstrap interval (paper.stats)."""
    keep = [(i, a[metric] - b[metric]) for i, a, b in zip(ids, rows, base)
            if a[metric] is not None and b[metric] is not None]
    if not keep:
        return "--"
    low, high = paired_bootstrap_ci([i for i, _ in keep], [d for _, d in keep])
    return f"{100 * sum(d for _, d in keep) / len(keep):+.1f} [{100 * low:+.1f}, {100 * high:+.1f}]"


def run_set(which: str, cache_dir: Path, limit: int | None, configs: dict[str, dict[str, float]],
            timings: dict[str, list[float]]) -> dict[str, dict]:
    method = get_method("hybrid_prf", **method_conf_params("hybrid_prf"))
    rows: dict[str, list[dict]] = {name: [] for name in configs}
    ids: list[str] = []
    for inst, graph, gold in loaded(which, cache_dir, limit):
        ids.append(inst.instance_id)
        q = inst.problem_statement
        method.rank(graph, q)  # warm the graph's indexes: times below are per query after the build
        start = time.perf_counter()
        base = method.rank(graph, q)
        timings["hybrid_prf"].append(time.perf_counter() - start)
        for fn in SIGNALS.values():
            fn(graph, q)
        start = time.perf_counter()
        sigs = {name: fn(graph, q) for name, fn in SIGNALS.items()}
        timings["signals"].append(time.perf_counter() - start)
        for name, weights in configs.items():
            parts = {s: (weights.get(s, 0.0), sigs[s]) for s in SIGNALS}
            rows[name].append(score(graph, method, blend(graph, base, parts), gold))
    return {name: {m: _mean(r[m] for r in rs) for m in METRICS} | {"n": len(rs)}
            | {f"diff {m}": paired(rs, rows["hybrid_prf"], ids, m) for m in METRICS} for name, rs in rows.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="real,tune")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--weights", action="append", default=None,
                    help="only these blends (repeatable), e.g. literal=0.25,frame=0.5")
    args = ap.parse_args(argv)
    if args.weights:
        configs = {"hybrid_prf": {}}
        configs |= {w: {k: float(v) for k, v in (p.split("=") for p in w.split(","))} for w in args.weights}
    else:
        configs = {"hybrid_prf": {}}
        configs |= {f"+{s} w={w}": {s: w} for s in SIGNALS for w in WEIGHTS if w}
    sets = args.sets.split(",")
    timings: dict[str, list[float]] = {"hybrid_prf": [], "signals": []}
    results = {which: run_set(which, args.cache_dir, args.limit, configs, timings) for which in sets}
    width = max(28, *(len(n) + 2 for n in configs))
    print(f"{'config':<{width}}" + "".join(f"{which + ' ' + m:>22}" for which in sets for m in METRICS))
    for name in configs:
        cells = [results[w][name][m] for w in sets for m in METRICS]
        print(f"{name:<{width}}" + "".join(f"{'--' if c is None else f'{c:.1f}':>22}" for c in cells))
    print("n: " + ", ".join(f"{w} {results[w]['hybrid_prf']['n']}" for w in sets))
    if args.weights:
        print("difference from hybrid_prf, points [paired 95% bootstrap interval over instances]:")
        for name in list(configs)[1:]:
            for w in sets:
                print(f"  {name} on {w}: " + "; ".join(f"{m} {results[w][name]['diff ' + m]}" for m in METRICS))
    if not args.weights:
        def total(name: str) -> float:
            return sum(results[w][name][m] or 0.0 for w in sets for m in METRICS)
        for s in SIGNALS:
            best = max((n for n in configs if n.startswith(f"+{s} ")), key=lambda n: (total(n), -len(n)))
            print(f"{s}: best {best} (sum {total(best):.1f} vs hybrid_prf {total('hybrid_prf'):.1f})")
    for name, ts in timings.items():
        print(f"median per-query time {name}: {1000 * statistics.median(ts):.1f} ms (p90 "
              f"{1000 * sorted(ts)[int(0.9 * (len(ts) - 1))]:.1f} ms, {len(ts)} queries)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
