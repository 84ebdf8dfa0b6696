"""The issue-structure signals in the composer: recipes and weight grids on the real issues and mined ``tune``.

    python -m experiments.benchmarks.localize_real_signals [--sets real,tune] [--methods SPECS] [--cache-dir DIR]

Every configuration is a registered method with optional overrides, exactly
as a runner configures it (``method_params``; specs as in ``localize_methods``:
``hybrid_prf;hybrid_prf:w_literal=0.25;hybrid_real``). The default grid is
``hybrid_prf`` and ``hybrid_prf`` with one of the composer's issue-stage
weights (``w_literal``, ``w_frame``, ``w_dotted``, ``w_error``, ``w_names``,
``w_receiver``) at each of ``WEIGHTS``; after it, the best weight of each signal by the sum of the four metrics'
means over the sets given (choose on the real dev issues and mined ``tune``
only; the mined ``test`` split is a final check, ``--sets test``). Scored
with the runner's own ``evaluate``: File Acc@1/@5, Function Acc@10 and
function recall within ``--budget`` tokens, with the paired difference from
the first configuration and its paired 95% bootstrap interval.
``--min-gold-defs N`` keeps only the instances whose gold file holds at least
``N`` definitions (the long-file case of issue 14's function gap; a subset
chosen by reading the gold, for diagnosis).

Time: per instance each configuration's ``retrieve`` runs once to build the
graph's indexes (term matrices, string constants of every file, ...), then
once timed; the median over instances of that per-query time is printed per
configuration with PASS/MISS against ``LIMIT_S`` (issue 14: 1 s after the
graph is built).
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from beacon.localize.evaluate import evaluate
from beacon.retrieval.file_index import file_index
from beacon.retrieval.masks import packable
from beacon.retrieval.registry import get_method
from beacon.retrieval.recipes import method_params
from experiments.benchmarks.localize_methods import parse_method
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, loaded
from paper.stats import paired_bootstrap_ci

SIGNALS = ("w_literal", "w_frame", "w_dotted", "w_error", "w_names", "w_receiver", "w_flow")
QUERY_WEIGHTS = ("title_boost", "code_boost", "dump_weight", "qtf_cap")  # query_weights.py, by where terms stand
WEIGHTS = (0.1, 0.25, 0.5, 1.0)
LIMIT_S = 1.0
METRICS = {"file_acc@1": "file_acc@1", "file_acc@5": "file_acc@5", "function_acc@10": "function_acc@10",
           "recall": "budget_function_recall"}


def default_grid(base: str = "hybrid_prf") -> list[str]:
    return [base] + [f"{base}:{w}={x}" for w in SIGNALS for x in WEIGHTS]


def _mean(values) -> float | None:
    known = [v for v in values if v is not None]
    return 100 * sum(known) / len(known) if known else None


def paired(rows: list[dict], base: list[dict], ids: list[str], metric: str) -> str:
    """Mean difference from the first configuration in points with its paired bootstrap interval (paper.stats)."""
    keep = [(i, a[metric] - b[metric]) for i, a, b in zip(ids, rows, base)
            if a[metric] is not None and b[metric] is not None]
    if not keep:
        return "--"
    low, high = paired_bootstrap_ci([i for i, _ in keep], [d for _, d in keep])
    return f"{100 * sum(d for _, d in keep) / len(keep):+.1f} [{100 * low:+.1f}, {100 * high:+.1f}]"


def gold_file_definitions(graph, gold) -> int:
    """The most definitions (``packable`` symbols) in one gold file: how long the file to search inside is."""
    index = file_index(graph)
    defs = np.bincount(index.file_of[packable(graph)], minlength=len(index.paths))
    where = {p: i for i, p in enumerate(index.paths)}
    return max((int(defs[where[p]]) for p in gold.files(added=False) if p in where), default=0)


def run_set(which: str, cache_dir: Path, limit: int | None, specs: list[str], budget: int,
            timings: dict[str, list[float]], changed: list[str] | None = None, min_defs: int = 0,
            by_repo: dict | None = None, max_files: int = 0, timed: bool = True) -> dict[str, dict]:
    """Each configuration's means and paired differences on ``which``; with ``changed`` (a list) the instances
    whose metrics differ from the first configuration's are appended to it, one line each; with ``by_repo``
    (a dict) each configuration's rows are filed under ``(which, repository)``."""
    configs = {spec: parse_method(spec) for spec in specs}
    rows: dict[str, list[dict]] = {spec: [] for spec in specs}
    ids: list[str] = []
    repos: list[str] = []
    for inst, graph, gold in loaded(which, cache_dir, limit):
        if min_defs and gold_file_definitions(graph, gold) < min_defs:
            continue
        if max_files and len(gold.files(added=False)) > max_files:
            continue
        ids.append(inst.instance_id)
        repos.append(inst.repo)
        q = inst.problem_statement
        for spec, (name, overrides) in configs.items():
            params = method_params(name, overrides)
            metrics = evaluate(graph, inst.instance_id, q, gold, name, budget, params)["metrics"]
            rows[spec].append({k: metrics[v] for k, v in METRICS.items()})
            if not timed:  # --no-timing: halves a long sweep's time
                continue
            method = get_method(name, **params)  # the indexes are built: this is the per-query time
            start = time.perf_counter()
            method.retrieve(graph, q, budget)
            timings[spec].append(time.perf_counter() - start)
        graph.cache.clear()
    for spec, rs in rows.items() if by_repo is not None else ():
        for repo, row in zip(repos, rs):
            by_repo.setdefault((which, repo), {}).setdefault(spec, []).append(row)
    first = specs[0]
    for spec in specs[1:] if changed is not None else ():
        for i, a, b in zip(ids, rows[spec], rows[first]):
            moved = [f"{m} {b[m]:g}->{a[m]:g}" for m in METRICS if a[m] != b[m] and None not in (a[m], b[m])]
            if moved:
                changed.append(f"  {spec} on {which}: {i}: " + ", ".join(moved))
    return {spec: {m: _mean(r[m] for r in rs) for m in METRICS} | {"n": len(rs)}
            | {f"diff {m}": paired(rs, rows[first], ids, m) for m in METRICS} for spec, rs in rows.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="real,tune", help="real, tune, test; real:title, real:prose, real:code: only"
                    " that part of each issue (text_variants)")
    ap.add_argument("--methods", default=None, help="';'-separated specs (default: the weight grid over hybrid_prf)")
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--per-instance", action="store_true",
                    help="also list each instance whose metrics differ from the first configuration's")
    ap.add_argument("--min-gold-defs", type=int, default=0,
                    help="only instances with a gold file of at least this many definitions (long files; reads gold)")
    ap.add_argument("--by-repo", action="store_true", help="also each configuration's means per repository")
    ap.add_argument("--max-gold-files", type=int, default=0,
                    help="only instances whose gold spans at most this many files (File Acc@5 and Function "
                         "Acc@10 need every gold file/function ranked; reads gold)")
    ap.add_argument("--no-timing", action="store_true", help="skip the timed second retrieve (long sweeps)")
    args = ap.parse_args(argv)
    specs = [s for s in args.methods.split(";") if s] if args.methods else default_grid()
    sets = args.sets.split(",")
    timings: dict[str, list[float]] = {spec: [] for spec in specs}
    changed: list[str] | None = [] if args.per_instance else None
    by_repo: dict | None = {} if args.by_repo else None
    results = {which: run_set(which, args.cache_dir, args.limit, specs, args.budget, timings, changed,
                              args.min_gold_defs, by_repo, args.max_gold_files, not args.no_timing)
               for which in sets}
    width = max(28, *(len(s) + 2 for s in specs))
    col = max(22, *(len(f"{w} {m}") + 2 for w in sets for m in METRICS))  # room for real:title function_acc@10
    print(f"{'method':<{width}}" + "".join(f"{which + ' ' + m:>{col}}" for which in sets for m in METRICS))
    for spec in specs:
        cells = [results[w][spec][m] for w in sets for m in METRICS]
        print(f"{spec:<{width}}" + "".join(f"{'--' if c is None else f'{c:.1f}':>{col}}" for c in cells))
    print("n: " + ", ".join(f"{w} {results[w][specs[0]]['n']}" for w in sets) + f"; recall within {args.budget}")
    print(f"difference from {specs[0]}, points [paired 95% bootstrap interval over instances]:")
    for spec in specs[1:]:
        for w in sets:
            print(f"  {spec} on {w}: " + "; ".join(f"{m} {results[w][spec]['diff ' + m]}" for m in METRICS))

    def total(spec: str) -> float:
        return sum(results[w][spec][m] or 0.0 for w in sets for m in METRICS)

    if by_repo is not None:
        print("per repository (" + " / ".join(METRICS) + "):")
        for (w, repo), per_spec in sorted(by_repo.items()):
            for spec, rs in per_spec.items():
                means = " / ".join("--" if (v := _mean(r[m] for r in rs)) is None else f"{v:.1f}" for m in METRICS)
                print(f"  {w} {repo} (n {len(rs)}) {spec}: {means}")
    if changed is not None:
        print("instances that changed (first configuration -> this one):")
        print("\n".join(changed) if changed else "  none")
    for weight in SIGNALS + QUERY_WEIGHTS:
        tried = [s for s in specs if f":{weight}=" in s]
        if tried:
            best = max(tried, key=lambda s: (total(s), -len(s)))
            print(f"{weight}: best {best} (sum {total(best):.1f} vs {specs[0]} {total(specs[0]):.1f})")
    for spec, ts in timings.items() if not args.no_timing else ():
        median = statistics.median(ts)
        print(f"median per-query time {spec}: {1000 * median:.1f} ms (p90 {1000 * sorted(ts)[int(0.9 * (len(ts) - 1))]:.1f}"
              f" ms, {len(ts)} queries) {'PASS' if median <= LIMIT_S else 'MISS'} vs {LIMIT_S:g} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
