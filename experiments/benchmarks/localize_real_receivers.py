"""What the pasted-code signal (``signals_real.receivers``) resolves on each real dev issue, and whether it is gold.

    python -m experiments.benchmarks.localize_real_receivers [--sets real] [--cache-dir DIR] [--flow | --gaps]

A diagnostic for researchers: per instance, every use of the issue's pasted
code that resolves (``receiver.attr -> symbol ids``, ``receivers.explain``),
marked ``GOLD`` when a resolved definition lies in a gold file, and a summary:
on how many issues the signal fires, and on how many one of its definitions is
in a gold file. ``--flow`` lists the flow signal's uses instead (``signals_real.flow``: functions
called, star imports, values through return types; written ``f(..).m(..).attr``). Reads gold only to mark the lines; the signal never sees it.

``--gaps`` counts, for each shape the flow signal follows only on request
(``flow_text.GAPS``: ``tuples``, ``attrs``, ``names``, ``frames``; then ``all``
at once), on how many issues the text has it (*read*: the reader with the gap
on reads uses the default does not, or a traceback prints a source line under
a frame; ``names`` is a shape of the callees' source, never *read*), on how
many the gap resolves a use the default flow does not (*fires*), and on how
many one of those definitions is in a gold file; the new uses are listed.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval.signals_real.flow import Flow, written
from beacon.retrieval.signals_real.flow_frames import source_lines
from beacon.retrieval.signals_real.flow_text import GAPS, flow_uses, gap_set
from beacon.retrieval.signals_real.receivers import Resolver
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, loaded


def read(query: str, gap: str) -> bool:
    """Whether the text has the gap's shape (see the module docstring)."""
    gaps = gap_set(gap)
    if "frames" in gaps and source_lines(query):
        return True
    return bool(set(flow_uses(query, gaps).uses) - set(flow_uses(query).uses))


def _line(graph: CodebaseGraph, text: str, nodes: list[int], hit: bool) -> str:
    ids = ", ".join(graph.symbols[n].id for n in nodes[:4]) + (" ..." if len(nodes) > 4 else "")
    return f"    {'GOLD ' if hit else '     '}{text} -> {ids}"


def gaps(which: str, cache_dir: Path, limit: int | None) -> None:
    """The ``--gaps`` count on one set (see the module docstring)."""
    counts = {gap: {"read": [], "fires": [], "gold": []} for gap in (*GAPS, "all")}
    total = 0
    for inst, graph, gold in loaded(which, cache_dir, limit):
        total += 1
        q, gold_files = inst.problem_statement, set(gold.files(added=False))
        before = {(u, tuple(n)) for u, n in Flow(graph, q).resolved()}
        for gap, c in counts.items():
            new = [(u, n) for u, n in Flow(graph, q, gap_set(gap)).resolved() if (u, tuple(n)) not in before]
            hits = [any(graph.symbols[x].path in gold_files for x in n) for _, n in new]
            for key, yes in (("read", read(q, gap)), ("fires", bool(new)), ("gold", any(hits))):
                c[key] += [inst.instance_id] if yes else []
            for (use, nodes), hit in zip(new, hits) if gap != "all" else ():
                print(f"{inst.instance_id} [{gap}]" + _line(graph, written(use), nodes, hit))
        graph.cache.clear()
    print(f"\n{which} ({total} issues): gap   read / fires / new definition in a gold file")
    for gap, c in counts.items():
        print(f"  {gap:7s} {len(c['read']):4d} / {len(c['fires']):4d} / {len(c['gold']):4d}"
              f"   fires on: {', '.join(c['fires'][:12])}{' ...' if len(c['fires']) > 12 else ''}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="real", help="comma-separated: real, tune, test (mined)")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--flow", action="store_true", help="the flow signal's uses (signals_real.flow) instead")
    ap.add_argument("--gaps", action="store_true", help="how often each optional flow gap reads and fires")
    args = ap.parse_args(argv)
    for which in args.sets.split(","):
        if args.gaps:
            gaps(which, args.cache_dir, args.limit)
            continue
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
                print(_line(graph, text, nodes, hit))
            graph.cache.clear()
        print(f"\n{which}: fires on {fired} of {total} issues; a resolved definition in a gold file on {on_gold}.\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
