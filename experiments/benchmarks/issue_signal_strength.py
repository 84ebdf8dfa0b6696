"""How strongly each issue-structure signal fires: its raw symbol and file maxima per issue, and a summary.

The issue stage's default scale (``issue_scale: max``) hides this strength; ``saturate`` and ``absolute``
(``normalise.evidence_scale``) use it, so they differ from ``max`` only where signals fire weakly (raw maxima
well below 1). Usage::

    python -m experiments.benchmarks.issue_signal_strength --sets real --cache-dir /work/main/.beacon-cache
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from beacon.retrieval.stages import ISSUE
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, loaded

SIGNALS = ("literal", "frame", "dotted", "error", "receiver", "callees", "flow")  # hybrid_follow's


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="real")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = ap.parse_args(argv)
    for which in args.sets.split(","):
        maxima: dict[str, list[tuple[float, float]]] = {n: [] for n in SIGNALS}
        for inst, graph, _gold in loaded(which, args.cache_dir, None):
            fired = []
            for name in SIGNALS:
                found = ISSUE[name](graph, inst.problem_statement)
                if not found.empty:
                    maxima[name].append((float(found.symbol.max()), float(found.file.max())))
                    fired.append(f"{name}={maxima[name][-1][0]:.2f}/{maxima[name][-1][1]:.2f}")
            print(f"{which} {inst.instance_id}: " + " ".join(fired))
            graph.cache.clear()
        for name, rows in maxima.items():
            if rows:
                m = np.array(rows)
                print(f"{which} {name}: fires on {len(rows)}; symbol max median {np.median(m[:, 0]):.2f} "
                      f"(min {m[:, 0].min():.2f}), file max median {np.median(m[:, 1]):.2f} (min {m[:, 1].min():.2f}); "
                      f"below 0.5: {int((m[:, 0] < 0.5).sum())} symbol, {int((m[:, 1] < 0.5).sum())} file")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
