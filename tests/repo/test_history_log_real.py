"""``RepoLog`` on the real repositories in ``../shared/data``: every task base commit's slice equals git's read.

Each repository's log is loaded once for all the base commits checked: the 21
real dev issues' and every 8th of the 400 mined tasks' (``SAMPLE``; all of them:
``python -m experiments.benchmarks.history_slices``, ~50 s more of git). The slices' commits and order equal ``git rev-list`` with the per-commit readers' walk options; for
the first base of each repository the whole slice (files, messages, functions) equals ``read_history`` /
``read_change_log``. (Reading every base in full takes ~4 minutes of git on
this machine: ``python -m experiments.benchmarks.history_slices`` does it;
what a commit prints does not depend on the base, so the orders carry it.)
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from beacon.localize.instances import find_repository
from beacon.repo.git import open_source, run_git
from beacon.repo.history import (CHANGE_LOG_PATHS, DEFAULT_COMMITS, DEFAULT_LOG_COMMITS, read_change_log,
                                 read_history)
from beacon.repo.history_log import RepoLog

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared/data"
REPOS = [DATA / "swebench_lite_dev/repos", DATA / "swebench_lite_devsplit/repos", DATA / "git_repos"]
DEV = [DATA / "swebench_lite_dev/instances.jsonl", DATA / "swebench_lite_devsplit/instances.jsonl"]
MINED = ROOT / "experiments/data/mined_tasks.jsonl"
SAMPLE = 8  # of the mined bases, every 8th has its order checked here (all of them: ~50 s of git)


def _bases() -> dict[str, dict[str, bool]]:
    """repo -> {base commit: read in full?}: every dev base and every ``SAMPLE``-th mined base, the first of
    each repository read in full."""
    dev: dict[str, list[str]] = defaultdict(list)
    mined: dict[str, list[str]] = defaultdict(list)
    for path in DEV:
        for line in path.read_text().splitlines():
            row = json.loads(line)
            dev[row["repo"]].append(row["base_commit"])
    for line in MINED.read_text().splitlines():
        row = json.loads(line)
        mined[row["repo"]].append(row["base_commit"])
    out: dict[str, dict[str, bool]] = defaultdict(dict)
    for repo in sorted(set(dev) | set(mined)):
        for base in dev[repo] + list(dict.fromkeys(mined[repo]))[::SAMPLE]:
            out[repo].setdefault(base, not out[repo])
    return out


@pytest.mark.skipif(not DATA.is_dir() or not MINED.is_file(), reason=f"shared data not present: {DATA}")
def test_every_task_base_slice_equals_the_per_commit_read(tmp_path_factory):
    bundles = tmp_path_factory.mktemp("bundles")
    checked = 0
    for repo, bases in sorted(_bases().items()):
        source = open_source(find_repository(REPOS, repo), cache_dir=bundles)
        log = RepoLog(source)
        log.load(bases)
        assert log.git_calls == 2
        for base, full in bases.items():
            history, change_log = log.history(base), log.change_log(base)
            walk = ["rev-list", "--date-order", "--no-merges"]
            assert history.hashes == tuple(run_git([*walk, f"-n{DEFAULT_COMMITS}", base, "--"],
                                                   git_dir=source.git_dir).decode().split()), (repo, base)
            assert change_log.hashes == tuple(run_git([*walk, "--full-history", f"-n{DEFAULT_LOG_COMMITS}", base,
                                                       "--", *CHANGE_LOG_PATHS],
                                                      git_dir=source.git_dir).decode().split()), (repo, base)
            if full:
                assert history == read_history(source, base), (repo, base)
                assert change_log == read_change_log(source, base), (repo, base)
            checked += 1
        assert log.git_calls == 3  # the change logs' diffs: one fetch for every base
    assert checked >= 21 + 40
