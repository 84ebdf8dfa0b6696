"""``python -m experiments.changelog_tasks``: localization tasks from changelog entries (``clog_tune``/``clog_test``).

    python -m experiments.changelog_tasks   # the committed set, every repository in ../shared (a few minutes)

With no ``--repo``, mines the eight repositories in ``../shared/data`` and
writes ``experiments/data/changelog_tasks.jsonl`` plus a ``.stats.json``
sidecar (filters, skip counts per reason, SHA-256), excluding the 21 real
dev issues (their base commits and gold functions), as ``experiments.mine``
does. A fix commit that ``--mined-tasks`` (default: the committed
``mined_tasks.jsonl``) also holds keeps that task's split. See
``beacon.tasks.changelog`` for the rules. Deterministic: the same bundles,
mined-task file and flags give the same bytes.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

from beacon.repo.git import open_source
from beacon.tasks.changelog import MINED_BY, mine_changelog, mined_splits
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.changelog_tasks", description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", action="append", type=_repo_arg, help="PATH[=owner/name] (default: the eight in ../shared)")
    ap.add_argument("--out", type=Path, default=Path("experiments/data/changelog_tasks.jsonl"))
    ap.add_argument("--cap", type=int, default=CAP, help="tasks per repository (0: no cap)")
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
    if not args.repo:
        args.repo = [_repo_arg(str(p)) for p in DEFAULT_REPOS]
        args.exclude_instances = args.exclude_instances or DEFAULT_EXCLUDE
    filters, notes = mine_filters(args, args.min_chars)
    splits = mined_splits(args.mined_tasks)
    rows, stats = [], {}
    for path, name in args.repo:
        t0 = time.perf_counter()
        result = mine_changelog(open_source(path, cache_dir=args.cache_dir), name, filters, max_files=args.max_files,
                                splits=splits)
        rows += result.tasks
        stats[name] = dict(sorted(result.counts.items()))
        print(f"{name}: {result.counts['candidates']} fix entries, {len(result.tasks)} tasks "
              f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
        for key, n in sorted(result.counts.items()):
            if key.startswith(("skip:", "entry:", "pinned_by:")):
                print(f"    {key:<40} {n}", file=sys.stderr)
    write_tasks(args.out, rows, {"mined_by": MINED_BY, "filters": filters.describe(), "max_files": args.max_files,
                                 "exclusions": notes, "repositories": stats,
                                 "splits_from": {"path": str(args.mined_tasks), "commits": len(splits),
                                                 "sha256": hashlib.sha256(args.mined_tasks.read_bytes()).hexdigest()[:16],
                                                 "tasks": sum(1 for r in rows if r["commit"] in splits)}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
