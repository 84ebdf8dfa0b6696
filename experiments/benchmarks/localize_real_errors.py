"""Where ``hybrid_prf`` misses gold files on the 21 real dev issues, and what in the issue pointed at them.

    python -m experiments.benchmarks.localize_real_errors [--method hybrid_prf] [--cache-dir DIR]

A diagnostic that reads gold (never a method): for every instance, the rank
of the first gold file in the method's file ranking (from its public
``rank``), the top file instead, and the cues in the issue text that name a
gold file or one of its definitions:

* ``path``: a path in the prose or a traceback resolves to a gold file;
* ``frame``: a traceback frame resolves to a definition in a gold file
  (``signals_real.frames``);
* ``dotted``: a dotted name or an import statement of the issue resolves to a
  definition in a gold file (``signals_real.dotted``);
* ``literal``: a string constant of a gold file appears in the issue
  (``signals_real.literals``), shown quoted;
* ``receiver``: a use of the pasted code (a method on a bound variable, a
  snippet class's base, ...) resolves to a definition in a gold file
  (``signals_real.receivers``; ``localize_real_receivers`` lists them all);
* ``flow``: a function the pasted code calls, or an attribute used on a value
  typed through a return type, resolves into a gold file (``signals_real.flow``;
  ``localize_real_receivers --flow`` lists them all);
* ``code``: identifiers in code blocks/backticks defined in a gold file;
* ``gold_fn``: gold function names the issue mentions at all.

The summary counts, over the misses at Acc@1 and at Acc@5, how many had each
cue: which signal could have fixed them.
"""
from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from beacon.localize.evaluate import rankings
from beacon.retrieval.mentions import file_index, match_path
from beacon.retrieval.query_features import query_features
from beacon.retrieval.recipes import method_params
from beacon.retrieval.registry import get_method
from beacon.retrieval.signals_real.dotted import names, resolve
from beacon.retrieval.signals_real.flow import Flow, written
from beacon.retrieval.signals_real.frames import resolve_frame
from beacon.retrieval.signals_real.literals import literal_index, matched_fragments
from beacon.retrieval.signals_real.receivers import Resolver
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, loaded

CUES = ("path", "frame", "dotted", "literal", "receiver", "flow", "code", "gold_fn")


def cues(graph, query: str, gold_files: set[str], gold_functions: tuple[str, ...]) -> dict[str, list[str]]:
    feats = query_features(query)
    files = file_index(graph)
    out: dict[str, list[str]] = {c: [] for c in CUES}
    out["path"] = sorted({p for p in feats.paths if any(files.paths[f] in gold_files for f in match_path(files, p))})
    out["frame"] = sorted({f"{fr.path}:{fr.line}" for fr in feats.frames
                           if any(graph.symbols[n].path in gold_files for n in resolve_frame(graph, fr))})
    out["dotted"] = [n for n in names(query) if any(graph.symbols[x].path in gold_files for x in resolve(graph, n))]
    lit = literal_index(graph)
    for frag in matched_fragments(graph, query):
        nodes = lit.tokens.get(frag) or next(v[frag] for v in lit.phrases.values() if frag in v)
        if any(graph.symbols[n].path in gold_files for n in nodes):
            out["literal"].append(repr(frag[:60]))
    out["receiver"] = [f"{u.receiver}.{u.attr}" if u.attr else u.receiver
                       for u, nodes in Resolver(graph, query).resolved()
                       if any(graph.symbols[n].path in gold_files for n in nodes)]
    out["flow"] = [written(u) for u, nodes in Flow(graph, query).resolved()
                   if any(graph.symbols[n].path in gold_files for n in nodes)]
    defined = {s.qualname.rsplit(".", 1)[-1] for s in graph.symbols if s.path in gold_files}
    out["code"] = sorted(set(feats.code) & defined - {"self", "cls"})[:8]
    fn_names = {f.rsplit("::", 1)[-1].rsplit(".", 1)[-1] for f in gold_functions}
    out["gold_fn"] = sorted(fn_names & set(feats.identifiers))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--method", default="hybrid_prf")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = ap.parse_args(argv)
    method = get_method(args.method, **method_params(args.method))
    missed: dict[str, Counter] = {"@1": Counter(), "@5": Counter()}
    n_miss = Counter()
    fn_miss = 0
    for inst, graph, gold in loaded("real", args.cache_dir):
        ranking = method.rank(graph, inst.problem_statement)
        ranked = rankings(graph, [graph.symbols[n].id for n, _ in ranking])
        gold_files = set(gold.files(added=False))
        rank = next((i + 1 for i, f in enumerate(ranked["files"]) if f in gold_files), None)
        fn_hit = bool(set(ranked["functions"][:10]) & set(gold.functions))
        fn_miss += bool(gold.functions) and not fn_hit
        found = cues(graph, inst.problem_statement, gold_files, gold.functions)
        verdict = "hit@1" if rank == 1 else "miss@1" if rank and rank <= 5 else "miss@5"
        for level, missing in (("@1", rank != 1), ("@5", not rank or rank > 5)):
            if missing:
                n_miss[level] += 1
                missed[level].update(c for c in CUES if found[c])
        fn = "fn@10 hit" if fn_hit else ("fn@10 MISS" if gold.functions else "no gold fn")
        print(f"{inst.instance_id}: {verdict} (gold file rank {rank}), {fn}; gold {sorted(gold_files)}; "
              f"top {ranked['files'][:1]}")
        for c in CUES:
            if found[c]:
                print(f"    {c}: {', '.join(found[c][:5])}")
    print(f"\n{args.method}: {n_miss['@1']} misses at File Acc@1, {n_miss['@5']} at File Acc@5, {fn_miss} at "
          "Function Acc@10 (of 21).")
    for level in ("@1", "@5"):
        print(f"  misses {level} with a cue: " + ", ".join(f"{c} {missed[level][c]}" for c in CUES))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
