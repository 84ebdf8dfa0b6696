"""Why Function Acc@10 misses when the file is right, gold function by gold function (changelog queries).

    python -m experiments.benchmarks.localize_fn_gap [--sets clog_tune,real,tune] [--method hybrid_follow]

A diagnostic, not a method: it reads the gold patch. ``localize_fn_diag`` reports the *best* gold function
per instance; Function Acc@10 needs *every* gold function (up to 10) in the top 10, so here each instance
whose gold file is in the top 3 files and that misses Function Acc@10 is split into: one gold function
ranked below 10 (``single``) or several gold functions with some of them below 10 (``multi``), and each
gold function outside the top 10 is described: its rank, how many ranked above it are its file-mates and how
many are from other files (and how many of those from the method's best file), whether the report names it
(its bare name as a word; written as code: in backticks, a code block or called; as a dotted name ending in
it, ``Class.method``), which of the report's words its docstring holds and, as a baseline for that cue, how
many of the non-gold definitions ranked above it have a docstring sharing a word with the report (and as many
as the gold function's or more). Totals per set at the end.
"""
from __future__ import annotations

import ast
import re
import textwrap
from collections import Counter

from beacon.retrieval.query_features import query_features
from experiments.benchmarks.localize_fn_diag import evaluated, parser

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")
_STOP = frozenset("the a an and or of to in is be for on with as by it this that not are was if when from "
                  "now no can its at which into than instead".split())


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) > 2} - _STOP


def naming(query: str, qualname: str) -> str:
    """How the report names the definition ``qualname``: ``dotted`` (a dotted name ending in ``Class.name``
    or ``module.name``), ``code`` (the bare name in backticks, a code block or called), ``bare`` (as a word
    only) or ``""``."""
    name = qualname.split("#", 1)[0].rsplit(".", 1)[-1]
    feats = query_features(query)
    tail = ".".join(qualname.split("#", 1)[0].split(".")[-2:])
    if any(d.endswith("." + name) and (d.endswith(tail) or "." not in qualname) for d in feats.dotted):
        return "dotted"
    if name in feats.code or name in feats.calls:
        return "code"
    if re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", query):
        return "bare"
    return ""


def docstring_words(graph, sid: str, query: str) -> list[str]:
    """The report's words (3+ letters, no stop words) that the definition's own docstring holds."""
    try:
        tree = ast.parse(textwrap.dedent(graph.source(sid)))
    except SyntaxError:
        return []
    node = tree.body[0] if tree.body else None
    doc = ast.get_docstring(node) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else None
    return sorted(_words(doc or "") & _words(query))


def main(argv: list[str] | None = None) -> int:
    ap = parser(__doc__, "clog_tune,real,tune", "hybrid_follow")
    ap.add_argument("--quiet", action="store_true", help="totals only")
    args = ap.parse_args(argv)
    if "clog_test" in args.sets.split(","):
        raise SystemExit("clog_test is a final check: never read per instance")
    counts: Counter = Counter()
    for which, inst, graph, gold, row, file_rank in evaluated(args, counts):
        files, functions = row["ranked"]["files"], row["ranked"]["functions"]
        if file_rank is None or file_rank > 3:
            continue
        counts[which, "file top3"] += 1
        if row["metrics"]["function_acc@10"] == 1.0:
            continue
        want = gold.functions[:10]
        rank = {f: functions.index(f) + 1 for f in want if f in functions}
        missed = [f for f in want if rank.get(f, 10**9) > 10]
        kind = "single" if len(want) == 1 else "multi"
        counts[which, f"miss {kind}"] += 1
        counts[which, f"miss {kind}: gold fns"] += len(want)
        counts[which, f"miss {kind}: gold fns outside top10"] += len(missed)
        cells = []
        for f in missed:
            path, qual = f.split("::", 1)
            r = rank.get(f)
            above = functions[: (r or len(functions) + 1) - 1]
            same = sum(a.split("::", 1)[0] == path for a in above)
            best_file = sum(a.split("::", 1)[0] == files[0] for a in above) if path != files[0] else same
            named = naming(inst.problem_statement, qual)
            doc = docstring_words(graph, f, inst.problem_statement)
            counts[which, f"missed fn: named {named or 'no'}"] += 1
            counts[which, "missed fn: docstring shares a word"] += bool(doc)
            counts[which, "missed fn: docstring words shared"] += len(doc)
            # is the docstring a cue that separates it from what outranks it? the non-gold definitions above
            for a in above:
                if a in gold.functions:
                    continue
                shared = len(docstring_words(graph, a, inst.problem_statement))
                counts[which, "above (non-gold): n"] += 1
                counts[which, "above (non-gold): docstring shares a word"] += shared > 0
                counts[which, "above (non-gold): docstring words shared"] += shared
                counts[which, "above (non-gold): as many docstring words as the gold fn or more"] += (
                    shared >= len(doc))
            counts[which, "missed fn: unranked"] += r is None
            counts[which, "missed fn: rank 11-20"] += r is not None and r <= 20
            counts[which, "missed fn: in best file"] += path == files[0]
            counts[which, "missed fn: above, same file"] += same
            counts[which, "missed fn: above, other files"] += len(above) - same
            if len(above) and same * 2 > len(above):
                counts[which, "missed fn: mostly file-mates above"] += 1
            cells.append(f"{qual}#{r} same {same} other {len(above) - same} (best-file {best_file}) "
                         f"named {named or '-'} doc {doc[:4]}")
        if not args.quiet:
            print(f"{which:9} {inst.instance_id[:42]:42} file#{file_rank} {kind} {len(want) - len(missed)}/"
                  f"{len(want)} in top10 | " + " ; ".join(cells))
    for key, v in sorted(counts.items()):
        print(key, v)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
