"""Headroom of the per-run resource limits: the peak memory and task count of honest suites, against the limits.

    python -m experiments.benchmarks.limits_headroom [--tasks control,boltons_pilot] [--whole-suites]

For each task of the named task configs (``conf/tasks/<name>.yaml``), runs
its original (unmutated) test selection through ``run_pytest`` exactly as
scoring does (sandbox, cgroup, limits of ``conf/repair.yaml``) and prints the
run's peak resident memory and peak task count (threads included) read from
its cgroup, and the limit divided by the largest peak. ``--whole-suites``
also runs each repository's whole ``tests/`` folder once (a heavier honest
load than any task's selection). Needs a writable cgroup tree (root): without
it no peaks are kept and the script says so.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from hydra import compose, initialize_config_dir

from beacon.repair.controls import snapshot_protected
from beacon.repair.limits import RunCgroup
from beacon.repair.pytest_runner import run_pytest, verify_run
from beacon.repo import materialize
from beacon.scratch import owned_tempdir
from experiments.runner import load_tasks, run_limits
from experiments.schema import validate

ROOT = Path(__file__).resolve().parents[2]


def _config(tasks: str):
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base=None):
        return validate(compose(config_name="repair", overrides=[f"tasks={tasks}"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default="control,boltons_pilot", help="comma-separated conf/tasks names")
    parser.add_argument("--whole-suites", action="store_true", help="also run each repository's whole tests/ folder")
    args = parser.parse_args()
    with owned_tempdir("beacon-headroom-") as work:  # checkouts and reports: removed when the script ends
        _measure(args, work)


def _measure(args: argparse.Namespace, work: Path) -> None:
    rows: list[tuple[str, str, dict]] = []
    limits = None
    for name in args.tasks.split(","):
        cfg = _config(name)
        limits = run_limits(cfg)
        probe, why = RunCgroup.create(limits)
        if probe is None:
            raise SystemExit(f"no cgroup for the runs, so no peaks to read: {why}")
        probe.destroy()
        tasks, resolve, _ = load_tasks(cfg, work / name, lambda p: str(ROOT / p) if not Path(p).is_absolute() else p)
        whole_done: set[str] = set()
        for i, task in enumerate(tasks):
            selections = [("task", list(task.tests.selection))]
            if args.whole_suites and task.repo not in whole_done:
                whole_done.add(task.repo)
                selections.append(("whole tests/", ["tests"]))
            for label, selection in selections:
                tree = materialize(resolve(task.repo), task.commit, work / name / f"run-{i}-{len(rows)}")
                run = run_pytest(tree, selection, protected=snapshot_protected(tree), flags=task.tests.flags or ("-q",),
                                 timeout=float(cfg.timeout_s), sandbox=cfg.sandbox, network=cfg.network, limits=limits)
                ids = [tc.node_id for tc in run.report.testcases] if run.report else []
                status = "passed" if ids and verify_run(run, ids).passed else "not all passed"
                rows.append((f"{task.task_id} ({label}, {len(ids)} tests, {status})", name, run.peaks))
    print(f"{'suite':<80} {'peak MiB':>9} {'peak tasks':>10}")
    for label, _, peaks in rows:
        print(f"{label[:80]:<80} {peaks.get('memory_mb')!s:>9} {peaks.get('processes')!s:>10}")
    mem = max((p.get("memory_mb") or 0 for _, _, p in rows), default=0)
    procs = max((p.get("processes") or 0 for _, _, p in rows), default=0)
    if limits is not None and mem and procs:
        print(f"\nlargest peak: {mem} MiB, {procs} tasks; limits {limits.memory_mb} MiB, {limits.processes} tasks: "
              f"headroom x{limits.memory_mb / mem:.1f} memory, x{limits.processes / procs:.1f} tasks")


if __name__ == "__main__":
    main()
