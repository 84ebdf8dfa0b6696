"""When the file is right but the function is not: where the gold function ranks and what the packer spends.

    python -m experiments.benchmarks.localize_fn_diag [--sets real,tune] [--method hybrid_code] [--budget 4000]

A diagnostic, not a method: it reads the gold patch (issue 14's function
gap). Per instance with function-level gold whose gold file the method ranks
in the top 3 files, and that misses Function Acc@10 or the packed context
(some gold function not inside a packed snippet): the best gold function's
rank among ranked functions, its file's size (definitions, module tokens),
how many functions above it are in the same file versus other files, whether
the best file was packed whole, how many packed tokens went to the gold file,
whether the issue names the gold function (its bare name as a word), which of
the issue's terms its document holds that at most a quarter of its file's
definitions hold, and whether a traceback frame points at it. Totals: the
packer's spend by block kind, where the tokens go when the best file is too
large to pack whole, and the gold functions ranked in the top 10 but not packed.
"""
from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

import numpy as np

from beacon.context.pack import block_cost
from beacon.localize.evaluate import evaluate
from beacon.retrieval.file_index import file_index
from beacon.retrieval.masks import packable
from beacon.retrieval.recipes import method_params
from beacon.retrieval.signals_real.frames import frame_scores
from beacon.retrieval.text import term_index
from experiments.benchmarks.localize_methods import parse_method
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, loaded


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


def _cues(graph, query: str, unit: str, file: int | None) -> tuple[list[str], bool]:
    """The issue's terms in the gold function's document that at most a quarter of its file's definitions hold,
    and whether a traceback frame of the issue points at it."""
    node = graph.index.get(unit)
    if node is None or file is None:
        return [], False
    index = term_index(graph)
    cols, _ = index.query_vector(query)
    nodes = np.flatnonzero(packable(graph) & (file_index(graph).file_of == file))
    vocab = {j: t for t, j in index.vocab.items() if j in set(cols.tolist())}
    held = [j for j in cols.tolist() if index.tf[node, j] > 0]
    specific = sorted(vocab[j] for j in held if (index.tf[nodes][:, j] > 0).sum() <= max(1, len(nodes) // 4))
    return specific, bool(frame_scores(graph, query).symbol[node] > 0)


def _spend(graph, row, gold, which: str, counts: Counter) -> None:
    """How the packed tokens split (whole module / class blocks / function blocks) and the gold functions
    ranked in the top 10 that the context does not hold."""
    for sid, _, _, _ in row["context_snippets"]:
        sym = graph.symbol(sid)
        kind = "module" if sid.endswith("::<module>") else ("class" if sym.kind == "class" else "function")
        counts[which, f"tokens in {kind} blocks"] += block_cost(graph, graph.index[sid], "default")
        counts[which, f"{kind} blocks"] += 1
    spans = [(p, s, e) for _, p, s, e in row["context_snippets"]]
    # the best file too large to pack whole (whole_file_share 0.7 of the budget): where the tokens went
    best = row["ranked"]["files"][0] if row["ranked"]["files"] else None
    index = file_index(graph)
    module = int(index.module_node[index.paths.index(best)]) if best in index.paths else -1
    if module >= 0 and block_cost(graph, module, "default") > 0.7 * row["budget"]:
        counts[which, "large best file: instances"] += 1
        counts[which, "large best file: gold file is it"] += best in gold.files(added=False)
        for sid, path, _, _ in row["context_snippets"]:
            where = "best file" if path == best else "other files"
            counts[which, f"large best file: tokens to {where}"] += block_cost(graph, graph.index[sid], "default")
        counts[which, "large best file: gold fns"] += len(gold.functions)
        counts[which, "large best file: gold fns packed"] += sum(
            any(p == fp and s <= fs and fe <= e for p, s, e in spans)
            for fp, fs, fe in (gold.gold_spans[f] for f in gold.functions))
    top = row["ranked"]["functions"][:10]
    for f in gold.functions:
        fp, fs, fe = gold.gold_spans[f]
        packed = any(p == fp and s <= fs and fe <= e for p, s, e in spans)
        if f in top:
            counts[which, "gold fn in top10"] += 1
            counts[which, "gold fn in top10, not packed"] += not packed
        else:
            counts[which, "gold fn not in top10, packed"] += packed


def compare(args) -> int:
    """Per instance, the metrics of ``--method`` and ``--against`` where they differ, and the net change."""
    specs = {spec: method_params(*parse_method(spec)) for spec in (args.method, args.against)}
    net: Counter = Counter()
    for which in args.sets.split(","):
        for inst, graph, gold in loaded(which, args.cache_dir, args.limit):
            got = [evaluate(graph, inst.instance_id, inst.problem_statement, gold, parse_method(spec)[0],
                            args.budget, params)["metrics"] for spec, params in specs.items()]
            cells = []
            for m in ("file_acc@1", "file_acc@5", "function_acc@10", "budget_function_recall"):
                a, b = got[0][m], got[1][m]
                if a is not None and b is not None and a != b:
                    cells.append(f"{m} {a:.2f} -> {b:.2f}")
                    net[which, m] += b - a
            if cells:
                print(f"{which:4} {inst.instance_id:45} " + "; ".join(cells))
    for key, v in sorted(net.items()):
        print(key, f"{v:+.2f}")
    return 0


def parser(doc: str, sets: str, method: str) -> argparse.ArgumentParser:
    """The options this diagnostic and ``localize_fn_gap`` share."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--sets", default=sets)
    ap.add_argument("--method", default=method)
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    return ap


def evaluated(args, counts: Counter):
    """Per instance with function-level gold (counted as ``n``): ``(set, instance, graph, gold, row, the best
    gold file's rank among the ranked files or None)``, the row from the runner's ``evaluate``."""
    params = method_params(args.method)
    for which in args.sets.split(","):
        for inst, graph, gold in loaded(which, args.cache_dir, args.limit):
            if not gold.functions:
                continue
            row = evaluate(graph, inst.instance_id, inst.problem_statement, gold, args.method, args.budget, params)
            files = row["ranked"]["files"]
            file_rank = min((files.index(p) + 1 for p in set(gold.files(added=False)) if p in files), default=None)
            counts[which, "n"] += 1
            yield which, inst, graph, gold, row, file_rank


def main(argv: list[str] | None = None) -> int:
    ap = parser(__doc__, "real,tune", "hybrid_code")
    ap.add_argument("--against", default=None,
                    help="a method spec (hybrid_code:w_local=0.25): print only the instances where it differs")
    args = ap.parse_args(argv)
    if args.against:
        return compare(args)
    counts: Counter = Counter()
    for which, inst, graph, gold, row, file_rank in evaluated(args, counts):
        m = row["metrics"]
        _spend(graph, row, gold, which, counts)
        if file_rank is None or file_rank > 3:
            continue
        counts[which, "file top3"] += 1
        counts[which, "file top1"] += file_rank == 1
        fn_hit = m["function_acc@10"] == 1.0
        full = m["budget_function_recall"] == 1.0
        counts[which, "top3: fn@10 miss"] += not fn_hit
        counts[which, "top3: recall<1"] += not full
        if fn_hit and full:
            continue
        functions = row["ranked"]["functions"]
        ranks = {f: functions.index(f) + 1 for f in gold.functions if f in functions}
        best = min(ranks, key=ranks.get) if ranks else gold.functions[0]
        best_rank = ranks.get(best)
        path = best.split("::", 1)[0]
        above = functions[: (best_rank or len(functions) + 1) - 1]
        same = sum(f.split("::", 1)[0] == path for f in above)
        index = file_index(graph)
        fi = index.paths.index(path) if path in index.paths else None
        n_defs = int((packable(graph) & (index.file_of == fi)).sum()) if fi is not None else 0
        module = int(index.module_node[fi]) if fi is not None else -1
        tokens = block_cost(graph, module, "default") if module >= 0 else 0
        snippets = row["context_snippets"]
        whole = any(p == path and s == 1 for _, p, s, _ in snippets) and any(
            sid.endswith("::<module>") for sid, p, _, _ in snippets if p == path)
        in_file = len([1 for _, p, _, _ in snippets if p == path])
        named = sorted({f.rsplit(".", 1)[-1].split("::")[-1] for f in gold.functions}
                       & _words(inst.problem_statement))
        specific, framed = _cues(graph, inst.problem_statement, best, fi)
        counts[which, "missed: named"] += bool(named)
        counts[which, "missed: specific terms"] += bool(specific)
        counts[which, "missed: framed"] += framed
        counts[which, "missed"] += 1
        print(f"{which:4} {inst.instance_id[:40]:40} file#{file_rank} fn@10={'Y' if fn_hit else 'n'} "
              f"rec={m['budget_function_recall']:.2f} gold-fn#{best_rank} ({len(gold.functions)} gold) "
              f"above: same {same} other {len(above) - same} | file {n_defs} defs {tokens} tok "
              f"{'WHOLE' if whole else f'{in_file} snippets'} | named {named} terms {specific} frame {framed} | "
              f"{best.split('::', 1)[1]}")
    for key, v in sorted(counts.items()):
        print(key, v)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
