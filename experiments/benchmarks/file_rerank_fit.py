"""A learned file reranker over a blend's top files: is there file-level evidence the hand-set weights miss?

    python -m experiments.benchmarks.file_rerank_fit [--method hybrid_follow] [--train tune]
        [--eval real,test,clog_test,clog2_test] [--features all|structure|folder] [--k 30] [--l2 0.01] [--gate]

A diagnostic (it reads gold, registers nothing and changes no output). For every task it takes the method's
first ``--k`` files (in the method's own order: its best definitions, named ones first) and describes each by
features of its definitions' scores (``Blend.scores``):

* ``total``, ``top3``, ``second``: the file's best total, the mean of its best three and its second best (over
  the best total of any definition); ``n_strong``, ``n_pos``, ``n_defs``: log counts of its definitions at half
  the top score or more, above zero, and in all (candidate definitions: no tests); ``rank``: 1 / (1 + the file's rank);
* ``depth``, ``is_init``, ``vendored``, ``peripheral``: where the file sits;
* ``c_<signal>``, ``cs_<signal>``: the max and the sum over its definitions of each component, over that
  component's maximum (the composer's unit scale);
* ``fold_sum``, ``fold_max``, ``fold_n``: the other top files in the same folder (sum and max of their
  ``total``, log count), the folder-level evidence of a hierarchical ranker.

It fits a linear listwise model (softmax over a task's files, each gold file's log-likelihood, L2 ``--l2``;
``scipy.optimize`` L-BFGS) on ``--train`` and reorders the ``--k`` files of every set by it, files beyond them
unchanged (with ``--gate``, only on tasks where no issue-structure signal scores a top file: the fit's mined
and changelog tasks seldom have them). It prints the weights and, per set, File Acc@1 and @5 (LocAgent's, as ``metrics.acc_at_k``) of the
method's own order and of the reranked one, with the tasks each moved. The fit never sees ``--eval``; the
SWE-bench Lite test split is never read.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from beacon.localize.metrics import acc_at_k
from beacon.retrieval import prose_gate
from beacon.retrieval.file_index import file_index
from beacon.retrieval.masks import peripheral_mask, vendored_mask
from beacon.retrieval.recipes import method_params
from beacon.retrieval.registry import get_method
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, loaded

# the issue-structure signals (``stages.issue``): with ``--gate`` a task where one of them scores a top file keeps
# the method's own order (the mined and changelog tasks the fit learns from seldom have them; real issues often do)
ISSUE_SIGNALS = ("literal", "frame", "dotted", "error", "names", "receiver", "flow", "users", "error_users", "callees",
                 "overriders", "qualified", "tests", "docs")
STRUCTURE = ("total", "top3", "second", "n_strong", "n_pos", "n_defs", "depth", "is_init", "vendored",
             "peripheral", "rank")
FOLDER = ("total", "fold_sum", "fold_max", "fold_n")


def file_features(m, graph, query: str, k: int) -> tuple[list[str], list[str], list[dict[str, float]]]:
    """The method's first ``k`` files, the rest of its order, and each of the ``k`` files' features."""
    s = m.scores(graph, query)
    cand = prose_gate.for_query(m, query).candidate_mask(graph)
    idx = file_index(graph)
    nodes, _ = m.ranked_nodes(graph, query)
    order = list(dict.fromkeys(int(f) for f in idx.file_of[nodes]))
    top = float(s.total.max()) if s.total.size and s.total.max() > 0 else 1.0
    comps = {}
    for name, x in s.components.items():
        mx = float(x[cand].max()) if cand.any() else 0.0
        comps[name] = np.where(cand, x / mx if mx > 0 else 0.0, 0.0)
    vend, peri = vendored_mask(graph), peripheral_mask(graph)
    ncand = np.bincount(idx.file_of[cand], minlength=len(idx.paths))
    feats = []
    for r, f in enumerate(order[:k]):
        members = np.flatnonzero((idx.file_of == f) & cand)
        t = np.sort(s.total[members])[::-1] / top if members.size else np.zeros(1)
        row = {"rank": 1.0 / (1 + r), "total": float(t[0]), "top3": float(t[:3].mean()),
               "second": float(t[1]) if t.size > 1 else 0.0, "n_strong": float(np.log1p((t >= 0.5).sum())),
               "n_pos": float(np.log1p((t > 0).sum())), "n_defs": float(np.log1p(ncand[f])),
               "depth": float(idx.paths[f].count("/")), "is_init": float(idx.paths[f].endswith("__init__.py")),
               "vendored": float(vend[members].any()) if members.size else 0.0,
               "peripheral": float(peri[members].any()) if members.size else 0.0}
        for name, x in comps.items():
            row["c_" + name] = float(x[members].max()) if members.size else 0.0
            row["cs_" + name] = float(x[members].sum()) if members.size else 0.0
        feats.append(row)
    paths = [idx.paths[f] for f in order]
    for p, row in zip(paths, feats):  # the folder's other top files
        others = [o["total"] for q, o in zip(paths, feats) if q != p and os.path.dirname(q) == os.path.dirname(p)]
        row.update(fold_sum=float(sum(others)), fold_max=max(others, default=0.0), fold_n=float(np.log1p(len(others))))
    return paths[:k], paths[k:], feats


def collect(which: str, method: str, k: int, cache_dir: Path) -> list[dict]:
    m = get_method(method, **method_params(method, {}))
    tasks = []
    for inst, graph, gold in loaded(which, cache_dir):
        head, rest, feats = file_features(m, graph, inst.problem_statement, k)
        tasks.append({"id": inst.instance_id, "gold": sorted(gold.files(added=False)), "head": head, "rest": rest,
                      "feats": feats})
        graph.cache.clear()
    return tasks


def matrix(task: dict, names: list[str]) -> np.ndarray:
    return np.array([[row.get(n, 0.0) for n in names] for row in task["feats"]], dtype=float).reshape(-1, len(names))


def fit(tasks: list[dict], names: list[str], l2: float) -> np.ndarray:
    """Weights maximising the mean log-softmax of each gold file among its task's files, minus ``l2/2·|w|²``."""
    groups = []
    for t in tasks:
        gold = [i for i, p in enumerate(t["head"]) if p in set(t["gold"])]
        if gold and len(t["head"]) > 1:
            groups.append((matrix(t, names), gold))

    if not groups:
        raise SystemExit("no task to fit on: no gold file among any task's top files")

    def loss(w):
        value, grad = 0.0, np.zeros(len(names))
        for x, gold in groups:
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            for i in gold:
                value -= np.log(p[i] + 1e-300)
                grad -= x[i] - p @ x
        return value / len(groups) + l2 * w @ w / 2, grad / len(groups) + l2 * w

    return minimize(loss, np.zeros(len(names)), jac=True, method="L-BFGS-B").x


def structured(task: dict) -> bool:
    """Whether an issue-structure signal scores one of the task's top files."""
    return any(row.get("c_" + name, 0.0) > 0 for row in task["feats"] for name in ISSUE_SIGNALS)


def file_orders(tasks: list[dict], names: list[str], w: np.ndarray | None, gate: bool = False) -> list[list[str]]:
    out = []
    for t in tasks:
        head = t["head"]
        if w is not None and head and not (gate and structured(t)):
            s = matrix(t, names) @ w
            head = [head[i] for i in sorted(range(len(head)), key=lambda i: (-s[i], i))]
        out.append(head + t["rest"])
    return out


def accuracy(tasks: list[dict], orders: list[list[str]], k: int) -> list[float | None]:
    return [acc_at_k(order, t["gold"], k) for t, order in zip(tasks, orders)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--method", default="hybrid_follow")
    ap.add_argument("--train", default="tune")
    ap.add_argument("--eval", default="real,test,clog_test,clog2_test")
    ap.add_argument("--features", default="all", choices=("all", "structure", "folder"))
    ap.add_argument("--k", type=int, default=30)
    ap.add_argument("--l2", type=float, default=0.01)
    ap.add_argument("--gate", action="store_true",
                    help="keep the method's order where an issue-structure signal scores a top file")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = ap.parse_args(argv)
    overlap = set(args.train.split(",")) & set(args.eval.split(","))
    if overlap:
        ap.error(f"--eval repeats sets the fit is made on: {', '.join(sorted(overlap))}")
    train = [t for which in args.train.split(",") for t in collect(which, args.method, args.k, args.cache_dir)]
    names = (sorted({n for t in train for row in t["feats"] for n in row}) if args.features == "all"
             else list(STRUCTURE if args.features == "structure" else FOLDER))
    w = fit(train, names, args.l2)
    print(f"{args.method}, features {args.features}, fit on {args.train} ({len(train)} tasks), top {args.k} files, "
          f"l2 {args.l2}{', gated' if args.gate else ''}; weights (largest first):")
    for n, x in sorted(zip(names, w), key=lambda z: -abs(z[1])):
        if abs(x) >= 0.005:
            print(f"  {n:16s} {x:+.3f}")
    for which in [args.train] + args.eval.split(","):
        tasks = train if which == args.train else collect(which, args.method, args.k, args.cache_dir)
        base, new = file_orders(tasks, names, None), file_orders(tasks, names, w, args.gate)
        line = [f"{which:12s} n={len(tasks):4d} structured {sum(map(structured, tasks)):3d}"]
        for k in (1, 5):
            a, b = accuracy(tasks, base, k), accuracy(tasks, new, k)
            pairs = [(x, y) for x, y in zip(a, b) if x is not None]
            up = sum(y > x for x, y in pairs)
            down = sum(y < x for x, y in pairs)
            line.append(f"File Acc@{k} {100 * np.mean([x for x, _ in pairs]):.1f} -> "
                        f"{100 * np.mean([y for _, y in pairs]):.1f} (+{up} / -{down})")
        print("  ".join(line), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
