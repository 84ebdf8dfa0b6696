"""The instance sets the issue-14 diagnostics read: the 21 real dev issues, mined and changelog halves.

Shared by ``localize_real_errors``, ``localize_real_signals`` and ``localize_distractors``. The
SWE-bench Lite *test* split is never listed here: it is the held-out set. A set name may carry a
text variant, ``real:title``, ``real:prose`` or ``real:code`` (``text_variants``): the same
instances with only that part of each problem statement.
``clog_tune``/``clog_test`` are the halves of the changelog tasks
(``beacon.tasks.changelog``): entry text as the query, fix commit as gold;
``clog2_tune``/``clog2_test`` the halves of its second batch (``changelog_tasks_2.jsonl``).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

from beacon.graph.codebase import CodebaseGraph
from beacon.localize.gold import Gold, gold_from_patch
from beacon.localize.instances import Instance, SnapshotCache, load_instances
from experiments.benchmarks.text_variants import variant

SHARED = Path("../shared/data")
REAL = (SHARED / "swebench_lite_dev/instances.jsonl", SHARED / "swebench_lite_devsplit/instances.jsonl")
MINED = Path("experiments/data/mined_tasks.jsonl")
CHANGELOG = Path("experiments/data/changelog_tasks.jsonl")
CHANGELOG_2 = Path("experiments/data/changelog_tasks_2.jsonl")
REPOS = [SHARED / "swebench_lite_dev/repos", SHARED / "swebench_lite_devsplit/repos", SHARED / "git_repos"]
DEFAULT_CACHE = Path("/work/main/.beacon-cache")


def base_set(which: str) -> str:
    """``real`` for ``real:prose``: the set a (possibly variant) set name draws its instances from."""
    return which.partition(":")[0]


def instances(which: str) -> list[Instance]:
    """``real`` (21), ``tune`` or ``test`` (mined halves), ``clog_tune`` or
    ``clog_test`` (changelog halves), ``clog2_tune`` or ``clog2_test`` (second batch); ``<set>:<kind>`` keeps only that part of each
    problem statement (``text_variants.variant``: ``title``, ``prose`` or ``code``)."""
    base, _, kind = which.partition(":")
    if kind:
        return [dataclasses.replace(inst, problem_statement=variant(inst.problem_statement, kind))
                for inst in instances(base)]
    if which == "real":
        return [inst for path in REAL for inst in load_instances(path)]
    if which in ("tune", "test"):
        return [inst for inst in load_instances(MINED) if inst.extra.get("split") == which]
    if which in ("clog_tune", "clog_test"):
        return [inst for inst in load_instances(CHANGELOG) if inst.extra.get("split") == which[5:]]
    if which in ("clog2_tune", "clog2_test"):
        return [inst for inst in load_instances(CHANGELOG_2) if inst.extra.get("split") == which[6:]]
    raise ValueError(f"unknown instance set {which!r}; expected real, tune, test, clog_tune, clog_test, "
                     "clog2_tune or clog2_test")


def loaded(which: str, cache_dir: Path, limit: int | None = None) -> Iterator[tuple[Instance, CodebaseGraph, Gold]]:
    """Each instance with its base-commit graph (from the shared cache) and its gold."""
    cache = SnapshotCache(cache_dir, REPOS)
    for inst in instances(which)[:limit]:
        graph = cache.graph(inst.repo, inst.base_commit)
        gold = gold_from_patch(inst.instance_id, inst.patch, cache.snapshot(inst.repo, inst.base_commit))
        yield inst, graph, gold
