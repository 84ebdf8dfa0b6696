"""``python -m experiments.changelog_tasks``: localization tasks from changelog entries (``clog_tune``/``clog_test``).

    python -m experiments.changelog_tasks   # the committed set, every repository in ../shared (a few minutes)
    python -m experiments.changelog_tasks --batch 2   # the second batch (clog2_tune/clog2_test)

With no ``--repo``, mines the eight repositories in ``../shared/data`` and
writes ``experiments/data/changelog_tasks.jsonl`` plus a ``.stats.json``
sidecar (filters, skip counts per reason, SHA-256), excluding the 21 real
dev issues (their base commits and gold functions), as ``experiments.mine``
does. A fix commit that ``--mined-tasks`` (default: the committed
``mined_tasks.jsonl``) also holds (or whose change a mined task makes) keeps that task's split. See
``beacon.tasks.changelog`` for the rules. Deterministic: the same bundles,
mined-task file and flags give the same bytes.

``--batch 2`` writes ``changelog_tasks_2.jsonl``: the same miner, rules,
exclusions and split rule, continuing batch 1's shuffled order past its cap
(``--previous``, default the committed ``changelog_tasks.jsonl``): no fix and
no (base, gold) pair of batch 1 is taken again, and ``--cap`` counts new tasks.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

from beacon.repo.git import open_source
from beacon.tasks.changelog import MINED_BY, mine_changelog, mined_change_splits, mined_splits
from beacon.tasks.mine import MineFilters
from experiments.mine import _repo_arg, mine_filters, write_tasks

SHARED = Path("../shared/data")
DEFAULT_REPOS = [SHARED / "git_repos/pallets__click.bundle", SHARED / "git_repos/encode__httpx.bundle",
                 SHARED / "git_repos/pallets__werkzeug.bundle", SHARED / "swebench_lite_dev/repos/psf__requests.bundle",
                 SHARED / "swebench_lite_dev/repos/pallets__flask.bundle",
                 SHARED / "swebench_lite_devsplit/repos/marshmallow-code__marshmallow.bundle",
                 SHARED / "swebench_lite_devsplit/repos/pylint-dev__astroid.bundle",
                 SHARED / "swebench_lite_devsplit/repos/sqlfluff__sqlfluff.bundle"]
DEFAULT_EXCLUDE = [SHARED / "swebench_lite_dev/instances.jsonl", SHARED / "swebench_lite_devsplit/instances.jsonl"]
CAP = 30  # tasks per repository: keeps the snapshot/graph build for both halves within the shared cache's means
BATCH_1 = Path("experiments/data/changelog_tasks.jsonl")
# Batch 2's cap: new tasks per repository beyond batch 1, set by the time a graph per base commit takes to
# build on the shared 2-core machine (docs/localization_real.md, changelog tasks batch 2).
CAP_2 = 80


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.changelog_tasks", description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", action="append", type=_repo_arg, help="PATH[=owner/name] (default: the eight in ../shared)")
    ap.add_argument("--batch", type=int, choices=(1, 2), default=1, help="1: changelog_tasks.jsonl; "
                    "2: changelog_tasks_2.jsonl, excluding --previous (default batch 1)")
    ap.add_argument("--out", type=Path, default=None, help="default experiments/data/changelog_tasks[_2].jsonl")
    ap.add_argument("--previous", type=Path, default=None, help="earlier batch(es) whose fixes are not taken again")
    ap.add_argument("--cap", type=int, default=None, help="(new) tasks per repository (0: no cap; default "
                    f"{CAP}, batch 2 {CAP_2})")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-files", type=int, default=3, help="source files the fix may change")
    ap.add_argument("--min-chars", type=int, default=MineFilters.min_message_chars, help="query length")
    ap.add_argument("--max-changed-lines", type=int, default=400)
    ap.add_argument("--exclude-instances", action="append", type=Path)
    ap.add_argument("--exclude-commits", action="append", type=Path)
    ap.add_argument("--mined-tasks", type=Path, default=Path("experiments/data/mined_tasks.jsonl"),
                    help="a fix commit these mined tasks hold keeps their split")
    ap.add_argument("--cache-dir", type=Path, default=Path(".beacon-cache/bundles"), help="bundle clones")
    args = ap.parse_args(argv)
    if args.batch == 2:
        args.previous = args.previous or BATCH_1
    args.out = args.out or Path("experiments/data/" + ("changelog_tasks.jsonl" if args.batch == 1 else
                                                       f"changelog_tasks_{args.batch}.jsonl"))
    if args.cap is None:
        args.cap = CAP if args.batch == 1 else CAP_2
    previous = ([json.loads(ln) for ln in args.previous.read_text(encoding="utf-8").splitlines() if ln.strip()]
                if args.previous else [])
    if not args.repo:
        args.repo = [_repo_arg(str(p)) for p in DEFAULT_REPOS]
        args.exclude_instances = args.exclude_instances or DEFAULT_EXCLUDE
    filters, notes = mine_filters(args, args.min_chars)
    splits, change_splits = mined_splits(args.mined_tasks), mined_change_splits(args.mined_tasks)
    rows, stats = [], {}
    for path, name in args.repo:
        t0 = time.perf_counter()
        result = mine_changelog(open_source(path, cache_dir=args.cache_dir), name, filters, max_files=args.max_files,
                                splits=splits, previous=[r for r in previous if r["repo"] == name],
                                change_splits=change_splits)
        rows += result.tasks
        stats[name] = dict(sorted(result.counts.items()))
        print(f"{name}: {result.counts['candidates']} fix entries, {len(result.tasks)} tasks "
              f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
        for key, n in sorted(result.counts.items()):
            if key.startswith(("skip:", "entry:", "pinned_by:")):
                print(f"    {key:<40} {n}", file=sys.stderr)
    sidecar = {}
    if args.previous:
        taken = {r["commit"] for r in previous}
        clash = [r["instance_id"] for r in rows if r["commit"] in taken]
        if clash:  # mine_changelog skips them; this guards the rule itself
            raise SystemExit(f"batch shares fix commits with {args.previous}: {clash}")
        sidecar["previous"] = {"path": str(args.previous), "tasks": len(previous),
                               "sha256": hashlib.sha256(args.previous.read_bytes()).hexdigest()[:16]}
    write_tasks(args.out, rows, {**sidecar, "mined_by": MINED_BY, "filters": filters.describe(), "max_files": args.max_files,
                                 "exclusions": notes, "repositories": stats,
                                 "splits_from": {"path": str(args.mined_tasks), "commits": len(splits),
                                                 "sha256": hashlib.sha256(args.mined_tasks.read_bytes()).hexdigest()[:16],
                                                 "tasks": sum(1 for r in rows if r["commit"] in splits)}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
