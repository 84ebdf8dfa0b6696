"""Where ``--method`` ranks a file that *uses* a named API over the file that *defines* it (reads gold).

A diagnostic for issue 14's definer task: for every instance where ``--method`` (default ``hybrid_follow``)
misses File Acc@1 and one of the ``--against`` methods (default ``hybrid;hybrid_prf``; ``''``: any) hits it, it prints
the method's rank-1 file and the gold file with each component's weighted, unit-scaled contribution at the
best definition of each (``localize_hubs.contributions``), and the names the query writes as code or dotted
that the gold file defines and the rank-1 file only mentions. The sums over those instances say which
components lift the user over the definer. It registers nothing and changes no output.
"""
from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

import numpy as np

from beacon.localize.evaluate import evaluate
from beacon.retrieval.file_index import file_index
from beacon.retrieval.query_features import query_features
from beacon.retrieval.recipes import method_params
from beacon.retrieval.registry import get_method
from experiments.benchmarks.localize_hubs import contributions, print_means
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, loaded


def named(query: str) -> list[str]:
    """The simple names the query marks as code, calls or writes dotted (each dotted part)."""
    f = query_features(query)
    return list(dict.fromkeys([*f.code, *f.calls, *(p for d in f.dotted for p in d.split("."))]))


def defines_and_mentions(graph, path: str, names: list[str]) -> tuple[list[str], list[str]]:
    """Of ``names``: those ``path`` defines (a definition's simple name), those it only mentions in its text."""
    fidx = file_index(graph)
    defined = {graph.symbols[n].qualname.rsplit(".", 1)[-1] for n in np.flatnonzero(
        fidx.file_of == fidx.paths.index(path))} if path in fidx.paths else set()
    text = graph.files[path].text if path in graph.files and hasattr(graph.files[path], "text") else ""
    mentioned = [n for n in names if n not in defined and text and re.search(rf"\b{re.escape(n)}\b", text)]
    return [n for n in names if n in defined], mentioned


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--sets", default="clog_tune,real,tune")
    ap.add_argument("--method", default="hybrid_follow", help="a recipe name")
    ap.add_argument("--against", default="hybrid;hybrid_prf", help="';'-separated recipe names; '': every miss")
    args = ap.parse_args(argv)
    spec, params = args.method, method_params(args.method)
    m = get_method(spec, **params)
    others = [(o, method_params(o)) for o in args.against.split(";") if o]
    sums: dict[str, defaultdict] = {"top": defaultdict(float), "gold": defaultdict(float)}
    n = 0
    for which in args.sets.split(","):
        for inst, graph, gold in loaded(which, args.cache_dir):
            q = inst.problem_statement
            gold_files = set(gold.files(added=False))
            files = evaluate(graph, inst.instance_id, q, gold, spec, 4000, params)["ranked"]["files"]
            if not files or files[0] in gold_files:
                continue
            winners = [o for o, p in others
                       if (evaluate(graph, inst.instance_id, q, gold, o, 4000, p)["ranked"]["files"]
                           or [None])[0] in gold_files]
            if others and not winners:
                continue
            total, parts = contributions(m, graph, q)
            fidx = file_index(graph)
            best = {}
            for path in (files[0], *sorted(gold_files)):
                if path in fidx.paths:
                    nodes = np.flatnonzero(fidx.file_of == fidx.paths.index(path))
                    if len(nodes):
                        best[path] = int(nodes[np.argmax(total[nodes])])
            golds = [p for p in gold_files if p in best]
            if files[0] not in best or not golds:
                continue
            g = max(golds, key=lambda p: total[best[p]])
            n += 1
            rank = next((i for i, f in enumerate(files) if f in gold_files), -1) + 1
            names = named(q)
            gold_defs, _ = defines_and_mentions(graph, g, names)
            _, top_mentions = defines_and_mentions(graph, files[0], names)
            print(f"{which}:{inst.instance_id}  gold rank {rank}  beaten by {','.join(winners)}")
            print(f"    top  {files[0]} {total[best[files[0]]]:.3f} ({graph.symbols[best[files[0]]].qualname})"
                  f"  mentions gold-defined {sorted(set(gold_defs) & set(top_mentions))}")
            print(f"    gold {g} {total[best[g]]:.3f} ({graph.symbols[best[g]].qualname})  defines {gold_defs}")
            diffs = []
            for side, path in (("top", files[0]), ("gold", g)):
                for name, c in parts.items():
                    sums[side][name] += float(c[best[path]])
            for name, c in parts.items():
                d = float(c[best[files[0]]] - c[best[g]])
                if abs(d) > 0.02:
                    diffs.append(f"{name} {d:+.2f}")
            print(f"    top - gold: {', '.join(diffs)}", flush=True)
    print_means(sums["top"], sums["gold"], n, f"{args.method} rank-1 file vs gold file")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
