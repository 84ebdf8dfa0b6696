"""How often each shape the flow signal skips by default occurs in the issues, and what following it resolves.

    python -m experiments.benchmarks.localize_real_flowgaps [--sets real,tune] [--cache-dir DIR] [--verbose]

A diagnostic for researchers (reads gold only to mark resolved definitions in
a gold file; the signal never sees it). For each gap of ``flow_text.GAPS``
(``tuples``, ``attrs``, ``names``, ``frames``) and each issue:

* *read*: the text has the shape: the reader with that gap on reads uses the
  default reader does not (``tuples``, ``attrs``), or a traceback prints a
  source line under a frame (``frames``); ``names`` is a shape of the
  callees' source, not of the text, so it has no *read* count;
* *fires*: ``Flow`` with that gap alone resolves a use (with its
  definitions) that ``Flow`` without gaps does not;
* *gold*: one of those new definitions lies in a gold file.

A last row, ``all``, turns every gap on at once. ``--verbose`` prints each new use (``written`` form) with its definitions.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from beacon.retrieval.signals_real.flow import Flow, written
from beacon.retrieval.signals_real.flow_frames import source_lines
from beacon.retrieval.signals_real.flow_text import GAPS, flow_uses, gap_set
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, loaded


def read(query: str, gap: str) -> bool:
    """Whether the text has the gap's shape (see the module docstring)."""
    gaps = gap_set(gap)
    if "frames" in gaps and source_lines(query):
        return True
    return bool(set(flow_uses(query, gaps).uses) - set(flow_uses(query).uses))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="real,tune", help="comma-separated: real, tune, test (mined)")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--verbose", action="store_true", help="print every new use and its definitions")
    args = ap.parse_args(argv)
    for which in args.sets.split(","):
        counts = {gap: {"read": [], "fires": [], "gold": []} for gap in (*GAPS, "all")}
        total = 0
        for inst, graph, gold in loaded(which, args.cache_dir, args.limit):
            total += 1
            q, gold_files = inst.problem_statement, set(gold.files(added=False))
            before = {(u, tuple(n)) for u, n in Flow(graph, q).resolved()}
            for gap in counts:
                gaps = gap_set(gap)
                new = [(u, n) for u, n in Flow(graph, q, gaps).resolved() if (u, tuple(n)) not in before]
                hits = [any(graph.symbols[x].path in gold_files for x in n) for _, n in new]
                for key, yes in (("read", read(q, gap)), ("fires", bool(new)), ("gold", any(hits))):
                    if yes:
                        counts[gap][key].append(inst.instance_id)
                for (use, nodes), hit in zip(new, hits) if args.verbose else ():
                    ids = ", ".join(graph.symbols[x].id for x in nodes[:4]) + (" ..." if len(nodes) > 4 else "")
                    print(f"{inst.instance_id} [{gap}] {'GOLD ' if hit else '     '}{written(use)} -> {ids}")
            graph.cache.clear()
        print(f"\n{which} ({total} issues): gap   read / fires / new definition in a gold file")
        for gap, c in counts.items():
            print(f"  {gap:7s} {len(c['read']):4d} / {len(c['fires']):4d} / {len(c['gold']):4d}"
                  f"   fires on: {', '.join(c['fires'][:12])}{' ...' if len(c['fires']) > 12 else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
