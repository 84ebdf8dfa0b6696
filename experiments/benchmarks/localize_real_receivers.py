"""What the pasted-code signal (``signals_real.receivers``) resolves on each real dev issue, and whether it is gold.

    python -m experiments.benchmarks.localize_real_receivers [--sets real] [--cache-dir DIR] [--flow]

A diagnostic for researchers: per instance, every use of the issue's pasted
code that resolves (``receiver.attr -> symbol ids``, ``receivers.explain``),
marked ``GOLD`` when a resolved definition lies in a gold file, and a summary:
on how many issues the signal fires, and on how many one of its definitions is
in a gold file. ``--flow`` lists the flow signal's uses instead (``signals_real.flow``: functions
called, star imports, values through return types; written ``f(..).m(..).attr``). Reads gold only to mark the lines; the signal never sees it.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from beacon.retrieval.signals_real.flow import Flow, written
from beacon.retrieval.signals_real.receivers import Resolver
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, loaded


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="real", help="comma-separated: real, tune, test (mined)")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--flow", action="store_true", help="the flow signal's uses (signals_real.flow) instead")
    args = ap.parse_args(argv)
    for which in args.sets.split(","):
        fired = on_gold = total = 0
        for inst, graph, gold in loaded(which, args.cache_dir, args.limit):
            total += 1
            gold_files = set(gold.files(added=False))
            reader = Flow if args.flow else Resolver
            resolved = reader(graph, inst.problem_statement).resolved()
            hits = [any(graph.symbols[n].path in gold_files for n in nodes) for _, nodes in resolved]
            fired += bool(resolved)
            on_gold += any(hits)
            if which == "real" or resolved:
                print(f"{inst.instance_id}: {len(resolved)} uses resolved, {sum(hits)} in gold files")
            for (use, nodes), hit in zip(resolved, hits):
                text = written(use) if args.flow else f"{use.receiver}.{use.attr}" if use.attr else use.receiver
                ids = ", ".join(graph.symbols[n].id for n in nodes[:4]) + (" ..." if len(nodes) > 4 else "")
                print(f"    {'GOLD ' if hit else '     '}{text} -> {ids}")
            graph.cache.clear()
        print(f"\n{which}: fires on {fired} of {total} issues; a resolved definition in a gold file on {on_gold}.\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
