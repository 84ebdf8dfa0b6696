"""Git history read once per repository and sliced per base commit, against one ``git log`` per base commit.

    python -m experiments.benchmarks.history_slices [--limit N] [--no-mined]

For every base commit of the 21 real dev issues and the mined tasks (first
``--limit`` distinct bases per repository; ``--no-mined``: dev issues only),
grouped by repository: the seconds to load the repository's ``RepoLog`` once
(two ``git log`` calls for all its bases) and slice every base's file history
and change log, against ``read_history`` + ``read_change_log`` per base; and
whether every slice equals its per-commit read (``SAME`` / ``DIFFERENT``,
listing the bases that differ). Exit status 1 if any differs.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from beacon.localize.instances import find_repository
from beacon.repo.git import open_source
from beacon.repo.history import read_change_log, read_history
from beacon.repo.history_log import RepoLog
from experiments.benchmarks.method_outputs import REPOS, SHARED

SOURCES = (SHARED / "swebench_lite_dev/instances.jsonl", SHARED / "swebench_lite_devsplit/instances.jsonl")
MINED = Path("experiments/data/mined_tasks.jsonl")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=None, help="at most N base commits per repository")
    ap.add_argument("--no-mined", action="store_true", help="the 21 real dev issues' bases only")
    ap.add_argument("--bundles", default="/tmp/beacon-bundles", help="where bundles are cloned (reused)")
    args = ap.parse_args(argv)
    bases: dict[str, list[str]] = defaultdict(list)
    for path in SOURCES + (() if args.no_mined else (MINED,)):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            if row["base_commit"] not in bases[row["repo"]]:
                bases[row["repo"]].append(row["base_commit"])
    print(f"{'repository':<30}{'bases':>6}{'one log (s)':>13}{'per commit (s)':>16}{'ratio':>8}  slices")
    total_once = total_each = 0.0
    different = []
    for repo, commits in sorted(bases.items()):
        commits = commits[: args.limit]
        source = open_source(find_repository(REPOS, repo), cache_dir=args.bundles)
        start = time.perf_counter()
        log = RepoLog(source)
        log.load(commits)
        sliced = {c: (log.history(c), log.change_log(c)) for c in commits}
        once = time.perf_counter() - start
        start = time.perf_counter()
        read = {c: (read_history(source, c), read_change_log(source, c)) for c in commits}
        each = time.perf_counter() - start
        bad = [c for c in commits if sliced[c] != read[c]]
        different += [(repo, c) for c in bad]
        total_once, total_each = total_once + once, total_each + each
        print(f"{repo:<30}{len(commits):>6}{once:>13.2f}{each:>16.2f}{once / each:>8.3f}  "
              f"{'SAME' if not bad else f'DIFFERENT ({len(bad)})'}", flush=True)
    print(f"{'all':<30}{sum(min(len(c), args.limit or len(c)) for c in bases.values()):>6}"
          f"{total_once:>13.2f}{total_each:>16.2f}{total_once / total_each:>8.3f}  "
          f"{'SAME' if not different else 'DIFFERENT'}")
    for repo, commit in different:
        print(f"  differs: {repo} {commit}")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
