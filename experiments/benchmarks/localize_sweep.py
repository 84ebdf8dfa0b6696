"""Time a full localization grid, cold and warm, stage by stage.

    python -m experiments.benchmarks.localize_sweep [--budgets 2000,4000,8000] [--methods a,b]
        [--mined experiments/data/mined_tasks.jsonl --split tune --limit N] [--cache-dir DIR]

The grid is every registered method (configured from its
``conf/method/<name>.yaml``, as the runner does) × each budget, over the 21
real dev issues (``swebench_lite_dev`` and ``swebench_lite_devsplit``) and the
mined tasks of ``--split`` (first ``--limit``; ``--limit 0`` leaves them out).
It runs twice in one process:

* **cold**: a fresh temporary cache folder (or ``--cache-dir`` if given and
  empty): bundles, snapshots, parses and graphs are all made;
* **warm**: the same folder again through a new ``SnapshotCache``: graphs are
  loaded from disk, the git inputs from the saved inputs
  (``beacon.repo.inputs_store``) and the indexes from the index store
  (``beacon.retrieval.index_store``), both written by the cold pass.

Per pass and task set it prints the total seconds of each stage, in the
runner's order (one instance at a time, every method × budget on its graph):
*snapshot* (``SnapshotCache.snapshot``), *graph* (``SnapshotCache.graph``),
*history* (git history attached for the methods that use it: each repository's log read once for all its
base commits, sliced per commit, plus ``git blame`` per commit; or the saved inputs loaded), *indexes*
(opening the graph's index store: its digest and every saved member, mapped),
*gold* (``gold_from_patch``), *first query* (each method's first select on a
graph: the indexes it still has to build plus one select + pack), *select+pack* (every other
``assemble_context`` call), *metrics* (the rankings and metrics of
``beacon.localize.evaluate``); then the per-method first-query and
select+pack totals, and the target "warm full grid on the 21 real dev issues
≤ 60 s" with PASS/MISS. The records are not written: this times the grid,
the runner (``experiments.localize``) records it.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from beacon.localize.evaluate import rankings, ranking_metrics
from beacon.localize.gold import gold_from_patch
from beacon.localize.instances import Instance, SnapshotCache, load_instances
from beacon.localize.metrics import budget_recall
from beacon.retrieval import assemble_context
from beacon.retrieval import get_method
from beacon.retrieval.indexes import indexes_for
from beacon.retrieval.recipes import method_params
from beacon.retrieval.registry import known_methods
from experiments.benchmarks.graph_build import readme_rows
from experiments.benchmarks.method_outputs import REPOS, SHARED, _first_file

REAL_SETS = (
    ("dev", SHARED / "swebench_lite_dev/instances.jsonl"),
    ("devsplit", SHARED / "swebench_lite_devsplit/instances.jsonl"),
)
BUDGETS = (2000, 4000, 8000)
TARGET_WARM_REAL_S = 60.0  # warm full grid on the 21 real dev issues
STAGES = ("snapshot", "graph", "history", "indexes", "gold", "first query", "select+pack", "metrics")


class Timers:
    """Seconds per (stage) and per (method, stage), summed."""

    def __init__(self) -> None:
        self.stage: dict[str, float] = defaultdict(float)
        self.method: dict[tuple[str, str], float] = defaultdict(float)

    @contextmanager
    def __call__(self, stage: str, method: str | None = None) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            seconds = time.perf_counter() - start
            self.stage[stage] += seconds
            if method is not None:
                self.method[(method, stage)] += seconds

    @property
    def total(self) -> float:
        return sum(self.stage.values())


def run_instance(cache: SnapshotCache, inst: Instance, methods: dict[str, dict], budgets: tuple[int, ...],
                 timers: Timers, needs: frozenset[str]) -> int:
    """Every method × budget on one instance; the number of cells scored (0 without gold functions)."""
    with timers("snapshot"):
        snapshot = cache.snapshot(inst.repo, inst.base_commit)
    with timers("graph"):
        graph = cache.graph(inst.repo, inst.base_commit)
    with timers("history"):  # the git inputs the methods declare (RepoInputs): sliced from the repository's log
        inputs = cache.inputs(inst.repo, inst.base_commit, needs)
    with timers("indexes"):  # the saved indexes, if any (the members still missing are built by first queries)
        indexes_for(graph)
    with timers("gold"):
        gold = gold_from_patch(inst.instance_id, inst.patch, snapshot)
    cells = 0
    for name, params in methods.items():
        extra = {"target": _first_file(inst.patch)} if name == "target_file" else {}
        for i, budget in enumerate(budgets):
            with timers("first query" if i == 0 else "select+pack", name):
                result = assemble_context(graph, inst.problem_statement, name, budget=budget, inputs=inputs,
                                          **params, **extra)
            with timers("metrics"):
                ranking_metrics(rankings(graph, [s for s, _ in result.ranking]), gold)
                budget_recall([(s.path, s.start_line, s.end_line) for s in result.context.snippets], gold)
            cells += 1
    return cells


def load_sets(mined: Path, split: str | None, limit: int | None) -> list[tuple[str, list[Instance]]]:
    sets = [(label, load_instances(path)) for label, path in REAL_SETS]
    if limit != 0:
        tasks = [i for i in load_instances(mined) if split is None or i.extra.get("split") == split]
        sets.append((f"mined/{split or 'all'}", tasks[:limit]))
    return sets


def run_pass(cache_dir: Path, sets, methods: dict[str, dict], budgets: tuple[int, ...]) -> dict[str, tuple[Timers, int, int]]:
    """One pass over every set with a new ``SnapshotCache`` on ``cache_dir``: per set (timers, instances, cells)."""
    cache = SnapshotCache(cache_dir, REPOS)
    for _, instances in sets:  # the first history read of a repository reads the log of all its bases
        for inst in instances:
            cache.expect(inst.repo, [inst.base_commit])
    needs = frozenset().union(*(get_method(name, **params).needs() for name, params in methods.items()))
    out = {}
    for label, instances in sets:
        timers, cells = Timers(), 0
        for n, inst in enumerate(instances, 1):
            cells += run_instance(cache, inst, methods, budgets, timers, needs)
            print(f"\r{label} {n}/{len(instances)} {timers.total:.0f} s", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        out[label] = (timers, len(instances), cells)
    return out


def report(passes: dict[str, dict[str, tuple[Timers, int, int]]], methods: list[str],
           budgets: tuple[int, ...]) -> None:
    labels = list(next(iter(passes.values())))
    cols = [(p, label) for p in passes for label in labels]
    print(f"{'stage (s)':<14}" + "".join(f"{p + ' ' + label:>18}" for p, label in cols))
    for stage in (*STAGES, "total"):
        row = []
        for p, label in cols:
            timers = passes[p][label][0]
            row.append(timers.total if stage == "total" else timers.stage.get(stage, 0.0))
        print(f"{stage:<14}" + "".join(f"{v:>18.1f}" for v in row))
    print(f"{'instances':<14}" + "".join(f"{passes[p][label][1]:>18}" for p, label in cols))
    print(f"{'cells':<14}" + "".join(f"{passes[p][label][2]:>18}" for p, label in cols))
    print()
    print("per method, all sets (s): first query = its indexes + one select; select+pack = the other budgets")
    print(f"{'method':<26}" + "".join(f"{p + ' first':>14}{p + ' select':>14}" for p in passes))
    for m in methods:
        row = ""
        for p in passes:
            first = sum(t.method.get((m, "first query"), 0.0) for t, _, _ in passes[p].values())
            rest = sum(t.method.get((m, "select+pack"), 0.0) for t, _, _ in passes[p].values())
            row += f"{first:>14.2f}{rest:>14.2f}"
        print(f"{m:<26}" + row)
    print()
    real = [label for label, _ in REAL_SETS]
    if "warm" in passes:
        warm = sum(passes["warm"][label][0].total for label in real)
        n = sum(passes["warm"][label][1] for label in real)
        status = "PASS" if warm <= TARGET_WARM_REAL_S else "MISS"
        print(f"target: warm full grid on the {n} real dev issues <= {TARGET_WARM_REAL_S:.0f} s: "
              f"{warm:.1f} s, ratio {warm / TARGET_WARM_REAL_S:.2f}  {status}")
        rows = [(f"full grid on the {n} real dev issues, warm ({len(methods)} methods x {budgets})",
                 f"{warm:.1f} s", f"<= {TARGET_WARM_REAL_S:.0f} s", status)]
        if "cold" in passes:
            cold = sum(passes["cold"][label][0].total for label in real)
            rows.append(("the same grid, cold (fresh cache folder)", f"{cold:.1f} s", "", ""))
        readme_rows(rows, "python -m experiments.benchmarks.localize_sweep --limit 0")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    ap.add_argument("--methods", default=None, help="comma-separated (default: every registered method)")
    ap.add_argument("--mined", type=Path, default=Path("experiments/data/mined_tasks.jsonl"))
    ap.add_argument("--split", default="tune", help="mined tasks of this split ('' for all)")
    ap.add_argument("--limit", type=int, default=None, help="first N mined tasks (0: none)")
    ap.add_argument("--cache-dir", type=Path, default=None,
                    help="an empty folder for the cold pass (default: a temporary one, removed after)")
    ap.add_argument("--passes", default="cold,warm", help="cold,warm (default) or warm alone on --cache-dir")
    args = ap.parse_args(argv)
    budgets = tuple(int(b) for b in args.budgets.split(","))
    names = args.methods.split(",") if args.methods else known_methods()
    methods = {m: method_params(m) for m in names}
    sets = load_sets(args.mined, args.split or None, args.limit)
    wanted = [p for p in args.passes.split(",") if p]
    if not set(wanted) <= {"cold", "warm"}:
        ap.error(f"--passes: expected cold and/or warm, got {args.passes!r}")
    if args.cache_dir is not None and "cold" in wanted and args.cache_dir.exists() and any(args.cache_dir.iterdir()):
        ap.error(f"--cache-dir {args.cache_dir}: not empty, so a pass on it would not be cold (use --passes warm)")
    with tempfile.TemporaryDirectory(prefix="beacon-sweep-") as tmp:
        cache_dir = args.cache_dir or Path(tmp)
        passes = {p: run_pass(cache_dir, sets, methods, budgets) for p in wanted}
    print(f"grid: {len(methods)} methods x budgets {list(budgets)}; cache {args.cache_dir or 'temporary'}")
    report(passes, names, budgets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
