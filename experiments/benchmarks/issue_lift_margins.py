"""Where the issue stage's cliffs are: per instance, the scales of the issue weights at which File Acc@1 holds.

A diagnostic (reads gold). For a recipe (default ``hybrid_follow``) it splits the composer's total into the
pre-issue score ``s`` (every issue weight 0, divided by its maximum over the candidates, as the stage does) and
each issue signal's weighted lift, then scales every issue weight by ``k`` on a fine grid and fuses the lifts
as the stage would (``issue_fusion.fuse_lifts``: ``--fuse``, ``--lift-cap``, ``--lift-rank``, ``--hop-backoff``).
Per instance where a signal fires it prints whether the gold file is first at each ``k`` (as intervals), the gold
file's best definition's pre-issue rank and lifts, and what is first at ``k`` = 1 instead when it is not gold;
then File Acc@1 at ``k`` = 1 and the plateau, the ``k`` over which every instance keeps it. Usage::

    python -m experiments.benchmarks.issue_lift_margins --sets real,tune --cache-dir /work/main/.beacon-cache
    python -m experiments.benchmarks.issue_lift_margins --sets real --lift-cap 1.0 --fuse max
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from beacon.retrieval.file_index import file_index
from beacon.retrieval.issue_fusion import fuse_lifts
from beacon.retrieval.normalise import evidence_scale
from beacon.retrieval.recipes import method_params
from beacon.retrieval.registry import get_method
from beacon.retrieval.stages import ISSUE
from experiments.benchmarks.localize_methods import parse_method
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, loaded

KS = np.round(np.arange(0.0, 4.0001, 0.05), 2)


def intervals(ks: np.ndarray, ok: np.ndarray) -> str:
    """``ok`` over ``ks`` as ``a-b`` runs (``-`` when never)."""
    runs, start = [], None
    for k, good in zip(ks.tolist() + [None], ok.tolist() + [False]):
        if good and start is None:
            start, last = k, k
        elif good:
            last = k
        elif start is not None:
            runs.append(f"{start:g}-{last:g}" if last != start else f"{start:g}")
            start = None
    return ", ".join(runs) or "-"


def split(method: str, overrides: dict, graph, query: str, weights: dict[str, float]):
    """``(s, lifts)``: the pre-issue total over its candidate maximum and each signal's weighted lift."""
    off = get_method(method, **method_params(method, {**overrides, **{f"w_{n}": 0.0 for n in weights}}))
    cand = off.candidate_mask(graph)
    total = off.scores(graph, query).total
    top = float(total[cand].max()) if cand.any() else 0.0
    s = np.where(cand, total / top if top > 0 else 0.0, 0.0)
    file_of = file_index(graph).file_of
    lifts = {}
    for name, w in weights.items():
        found = ISSUE[name](graph, query)
        if found.symbol.any() or found.file.any():
            lifts[name] = w * np.where(cand, evidence_scale(found.symbol) + evidence_scale(found.file)[file_of], 0.0)
    return s, lifts, cand


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="real")
    ap.add_argument("--method", default="hybrid_follow", help="a recipe with overrides: hybrid_follow:w_callees=0.5")
    ap.add_argument("--fuse", default="sum")
    ap.add_argument("--lift-cap", type=float, default=0.0)
    ap.add_argument("--lift-rank", type=int, default=0)
    ap.add_argument("--hop-backoff", type=float, default=1.0,
                    help="one-hop (usesites) lifts times this when a direct signal fires")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = ap.parse_args(argv)
    method, overrides = parse_method(args.method)
    params = method_params(method, overrides)
    weights = {n: float(params[f"w_{n}"]) for n in ISSUE if params.get(f"w_{n}")}
    at_one = list(KS).index(1.0)
    fusion = (args.fuse, args.lift_cap, args.lift_rank, args.hop_backoff)
    for which in args.sets.split(","):
        keeps, n, first_at_one = np.ones(len(KS), dtype=bool), 0, 0
        for inst, graph, gold in loaded(which, args.cache_dir, None):
            s, lifts, cand = split(method, overrides, graph, inst.problem_statement, weights)
            fidx = file_index(graph)
            is_gold = np.isin(np.array(fidx.paths, dtype=object)[fidx.file_of], list(gold.files())) & cand
            n += 1
            if not lifts:  # the pre-issue order decides, at every k
                first_at_one += bool(is_gold[int(np.lexsort((np.arange(len(s)), -s))[0])])
                graph.cache.clear()
                continue
            ok = np.zeros(len(KS), dtype=bool)
            for i, k in enumerate(KS):
                total = fuse_lifts({n: k * x for n, x in lifts.items()}, s, cand, *fusion)
                best = int(np.lexsort((np.arange(len(total)), -total))[0])
                ok[i] = bool(is_gold[best])
            keeps &= ok == ok[at_one]
            first_at_one += bool(ok[at_one])
            order = np.lexsort((np.arange(len(s)), -s))
            pre_rank = np.empty(len(s), dtype=int)
            pre_rank[order] = np.arange(1, len(s) + 1)
            lift = sum(lifts.values())
            g = int(np.flatnonzero(is_gold)[np.argmax((s + lift)[is_gold])]) if is_gold.any() else -1
            gold_txt = (f"gold {graph.symbols[g].qualname} pre-rank {pre_rank[g]} s {s[g]:.2f} lift "
                        + " ".join(f"{n} {x[g]:.2f}" for n, x in lifts.items() if x[g])) if g >= 0 else "gold -"
            total = fuse_lifts(lifts, s, cand, *fusion)
            best = int(np.lexsort((np.arange(len(total)), -total))[0])
            first = "" if is_gold[best] else (
                f"; first {graph.symbols[best].id} pre-rank {pre_rank[best]} s {s[best]:.2f} lift "
                + " ".join(f"{n} {x[best]:.2f}" for n, x in lifts.items() if x[best]))
            print(f"{which} {inst.instance_id}: Acc@1 at k {intervals(KS, ok)}; {gold_txt}{first}")
            graph.cache.clear()
        print(f"{which}: File Acc@1 at k=1 {100 * first_at_one / max(n, 1):.1f} (n {n}); every instance keeps "
              f"its k=1 File Acc@1 at k {intervals(KS, keeps)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
