"""Scoring wall time vs a bare ``python -m pytest`` of the same tests, measured in one run.

    python -m experiments.benchmarks.scoring_overhead [--repeats 15]

On the control repository's three tasks, alternating in each round: (a) bare
``python -m pytest <tests> -q`` in a checkout (with and without third-party
plugin autoload: the harness never autoloads, so the second is the fair
baseline), (b) ``run_pytest`` (hardened:
no plugins, JUnit over a pipe, process-group control) without the sandbox,
(c) the same under bubblewrap when available, and (d) the whole scoring step
of an attempt (fresh snapshot, edit, screen, hardened run, JUnit and canary
verification). A bare run with only the canary plugin added isolates what the
canaries cost.
Prints medians and the ratios against (a); the target is scoring <= 1.2x.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from beacon.providers import OracleProvider, render_repair
from beacon.repair import find_bwrap, run_pytest
from beacon.repair.attempt import AttemptSpec, run_attempt
from beacon.repair.canary import CanarySecret, bootstrap_code, install_plugin, secret_pipe
from beacon.repair.control import make_control_repo
from beacon.repair.prepare import RunSettings, prepare_task
from beacon.repo import materialize
from beacon.scratch import owned_tempdir
from beacon.data import load_manifest, repo_resolver


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    with owned_tempdir("beacon-bench-") as root:  # checkouts and reports: removed when the script ends
        _measure(args, root)


def _measure(args: argparse.Namespace, root: Path) -> None:
    _, manifest = make_control_repo(root)
    resolve = repo_resolver(root / "repos")
    tasks = load_manifest(manifest, resolve_repo=resolve)
    sandbox_ok = find_bwrap()[0] is not None
    times: dict[str, list[float]] = {"bare": [], "bare_noplugins": [], "bare_canaries": [], "hardened": [],
                                     "sandboxed": [], "scoring": []}
    plugin_dir = install_plugin(root / "plugin").parent
    prepared = [prepare_task(t, resolve(t.repo), root / f"w{i}", RunSettings(allow_local_execution=True))
                for i, t in enumerate(tasks)]
    for round_ in range(args.repeats):
        for i, p in enumerate(prepared):
            task = p.task
            tree = materialize(p.source, task.commit, root / f"bare-{round_}-{i}")
            clock = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pytest", *task.tests.selection, "-q", "-p", "no:cacheprovider"],
                           cwd=tree, capture_output=True, check=True)
            times["bare"].append(time.perf_counter() - clock)
            # The same, without third-party plugin autoload (as the harness runs): a fairer baseline.
            clock = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pytest", *task.tests.selection, "-q", "-p", "no:cacheprovider"],
                           cwd=tree, capture_output=True, check=True,
                           env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
            times["bare_noplugins"].append(time.perf_counter() - clock)
            # The same plus only the canary plugin (bootstrap, secret pipe, two added tests): what the canaries cost.
            secret_fd = secret_pipe(CanarySecret.new())
            clock = time.perf_counter()
            subprocess.run([sys.executable, "-P", "-c", bootstrap_code(str(plugin_dir)), str(secret_fd),
                            *task.tests.selection, "-q", "-p", "no:cacheprovider"],
                           cwd=tree, capture_output=True, pass_fds=(secret_fd,),
                           env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
            times["bare_canaries"].append(time.perf_counter() - clock)
            os.close(secret_fd)
            for label, sandbox in (("hardened", "off"), ("sandboxed", "required")):
                if label == "sandboxed" and not sandbox_ok:
                    continue
                clock = time.perf_counter()
                run = run_pytest(tree, task.tests.selection, protected=p.protected, sandbox=sandbox,
                                 report_dir=root / "reports")
                times[label].append(time.perf_counter() - clock)
                assert run.report is not None
            answer = render_repair(task.path, p.mutated_text, task.line, task.repair_line, "exact_edit")
            spec = AttemptSpec("target_file", 2000, "vague", "exact_edit", "oracle")
            settings = RunSettings(allow_local_execution=True, sandbox="auto")
            record, timing = run_attempt(p, spec, lambda *_: OracleProvider(answer), settings, dry_run=False,
                                         slot=f"{round_}")
            assert record.outcome == "pass", record.outcome_detail
            times["scoring"].append(timing["tests_s"])
    bare = statistics.median(times["bare"])
    print(f"control tasks: {len(tasks)}, rounds: {args.repeats}, bubblewrap: {'yes' if sandbox_ok else 'no'}")
    print(f"{'measurement':<34}{'median s':>10}{'x bare':>9}")
    for label, desc in (("bare", "bare python -m pytest"), ("bare_noplugins", "bare, plugin autoload off"),
                        ("bare_canaries", "bare, autoload off, + canaries"), ("hardened", "run_pytest, no sandbox"),
                        ("sandboxed", "run_pytest under bubblewrap"), ("scoring", "attempt scoring (tests step)")):
        if times[label]:
            med = statistics.median(times[label])
            print(f"{desc:<34}{med:>10.3f}{med / bare:>9.2f}")
    canary_cost = statistics.median(times["bare_canaries"]) - statistics.median(times["bare_noplugins"])
    print(f"canary cost (bootstrap + secret pipe + 2 tests): {canary_cost * 1000:+.0f} ms per run "
          f"({statistics.median(times['bare_canaries']) / statistics.median(times['bare_noplugins']):.2f}x bare, autoload off)")
    for base_label in ("bare", "bare_noplugins"):
        ratio = statistics.median(times["scoring"]) / statistics.median(times[base_label])
        print(f"target: scoring <= 1.2x {base_label} -> {'PASS' if ratio <= 1.2 else 'MISS'} ({ratio:.2f}x)")


if __name__ == "__main__":
    main()
