"""Coordinate sweep of the hybrid family's lexical and expansion constants on a recipe (issue 14, retune).

    python -m experiments.benchmarks.retune_grid [--base hybrid_follow] [--group lexical|expansion|all]
        [--sets real,tune,clog_tune,real:prose] [--cache-dir DIR] [--print-specs]

The constants of ``hybrid`` / ``hybrid_prf`` (conf/method/hybrid.yaml, hybrid_prf.yaml) were chosen on the
mined ``tune`` split, whose queries are commit subjects; this moves one constant at a time around its value
in ``--base`` (about x0.5, x0.75, x1.5, x2; 0 for the smaller fields) and scores every configuration with
``localize_real_signals`` (one command: the graphs are loaded once for all of them; ``--no-timing``). Choose
on real, tune, clog_tune and real:prose only; clog_test and mined test are final checks, run once.
"""
from __future__ import annotations

import argparse

from experiments.benchmarks import localize_real_signals

# the values tried per constant (the recipe's own value is the first configuration, unchanged)
LEXICAL = {
    "w_sym": (0.5, 0.75, 1.5, 2.0),          # 1.0: equal shares, not tuned
    "w_file": (0.5, 0.75, 1.5, 2.0),         # 1.0
    "w_mention": (0.5, 0.75, 1.5, 2.0),      # 1.0
    "w_name": (0.0, 0.25, 0.375, 0.75, 1.0),  # 0.5 (tune)
    "w_neighbor": (0.0, 0.15, 0.45, 0.6),    # 0.3 (tune)
    "w_ctx": (0.0, 0.5, 1.5, 2.0),           # 1.0 (tune)
}
EXPANSION = {
    "w_prf_sym": (0.0, 0.075, 0.3),          # 0.15 (tune)
    "prf_files": (1, 5),                     # 3
    "prf_terms": (5, 20),                    # 10
    "ctx_weight": (0.25, 1.0),               # 0.5
    "peripheral": (0.1, 1.0),                # 0.3 (tune)
    "k1": (0.6, 0.9, 1.8),                   # 1.2 (symbol BM25)
    "b": (0.2, 0.3, 0.6),                    # 0.4 (tune)
}
GROUPS = {"lexical": LEXICAL, "expansion": EXPANSION, "all": LEXICAL | EXPANSION}


def specs(base: str, grid: dict) -> list[str]:
    """The base recipe first, then each constant at each value with every other constant at the base's."""
    return [base] + [f"{base}:{name}={value:g}" for name, values in grid.items() for value in values]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="hybrid_follow")
    ap.add_argument("--group", choices=sorted(GROUPS), default="all")
    ap.add_argument("--sets", default="real,tune,clog_tune,real:prose")
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--print-specs", action="store_true", help="print the --methods string and stop")
    args = ap.parse_args(argv)
    methods = ";".join(specs(args.base, GROUPS[args.group]))
    if args.print_specs:
        print(methods)
        return 0
    rest = ["--sets", args.sets, "--methods", methods, "--no-timing"]
    return localize_real_signals.main(rest + (["--cache-dir", args.cache_dir] if args.cache_dir else []))


if __name__ == "__main__":
    raise SystemExit(main())
