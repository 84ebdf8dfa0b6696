"""The oracle of calls on real code: its cost, and that honest rewrites of real files pass, measured in one run.

    python -m experiments.benchmarks.oracle_calls [--repeats 3] [--modules dictutils setutils ...]

For each boltons module (the pinned commit of the boltons pilot, from the repository cache that
``experiments/conf`` uses: ``~/.cache/beacon/repos/boltons.git``), the module is replaced by
``ast.unparse`` of itself — every def's text changes, so every call the module's own test file makes into it is
changed code that ``canary_plugin._Shadow`` re-makes with the pristine version — and the test file's passing tests
are run through ``run_pytest`` with the oracle on (``before`` and ``pristine`` both the real file, as a repair task's),
alternating ``oracle_calls`` on and off in each round. A rewrite that does exactly what the file does must pass with
the check on: any non-pass is a false refusal. Prints per module the tests, the verdicts, the calls checked and
left unchecked, the replay outside the run (compared / differed / self-disagreed / skipped, of the calls recorded;
``beacon.repair.replay``, part of the "on" time), and the median wall times with their ratio (noisy machine: compare
ratios within one run).
"""
from __future__ import annotations

import argparse
import ast
import statistics
import time
from pathlib import Path

from beacon.data import repo_resolver
from beacon.repair import run_pytest
from beacon.repair.controls import snapshot_protected
from beacon.repair.pytest_runner import verify_run
from beacon.repo import materialize
from beacon.scratch import owned_tempdir

COMMIT = "52d2630ade95650c1dd649986fdc2cb5785bad38"  # experiments/data/boltons_pilot.jsonl's commit
MODULES = ("dictutils", "setutils", "iterutils", "strutils", "cacheutils", "queueutils", "mathutils", "listutils",
           "funcutils", "typeutils")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--modules", nargs="*", default=list(MODULES))
    parser.add_argument("--sandbox", default="auto", choices=("auto", "off", "required"))
    args = parser.parse_args()
    source = repo_resolver(Path("~/.cache/beacon/repos").expanduser())("boltons")
    print(f"{'module':12s} {'tests':>5s} {'on':>6s} {'off':>6s} {'ratio':>6s}  verdict  calls (checked / differed / "
          "pristine disagreed with itself / uncopied / past the limits)")
    with owned_tempdir("beacon-bench-") as root:
        for name in args.modules:
            _measure(name, source, root, args)


def _measure(name: str, source, root: Path, args) -> None:
    rel, test = f"boltons/{name}.py", f"tests/test_{name}.py"
    tree = materialize(source, COMMIT, root / f"{name}-tree")
    if not (tree / test).is_file():
        print(f"{name:12s} no {test}")
        return
    pristine = (tree / rel).read_text(encoding="utf-8")
    first = run_pytest(tree, [test], protected=snapshot_protected(tree, extra=[test]), sandbox=args.sandbox,
                       report_dir=root / f"{name}-first")
    cases = first.report.testcases if first.report is not None else ()
    ids = sorted({tc.node_id for tc in cases if tc.node_id and tc.outcome == "passed"})
    if not ids:
        print(f"{name:12s} no passing tests on the pristine file")
        return
    (tree / rel).write_text(ast.unparse(ast.parse(pristine)), encoding="utf-8")
    times: dict[bool, list[float]] = {True: [], False: []}
    verdicts: dict[bool, set] = {True: set(), False: set()}
    counts: dict = {}
    replayed: dict = {}
    for round_ in range(args.repeats):
        for calls in (True, False) if round_ % 2 == 0 else (False, True):
            clock = time.perf_counter()
            run = run_pytest(tree, ids, protected=snapshot_protected(tree, extra=[test]), sandbox=args.sandbox,
                             report_dir=root / f"{name}-{round_}-{calls}", sources=(rel,),
                             before={rel: (pristine, pristine)}, pristine={rel: pristine}, oracle=True,
                             oracle_calls=calls)
            times[calls].append(time.perf_counter() - clock)
            verdict = verify_run(run, ids)
            verdicts[calls].add("pass" if verdict.passed else "TAMPERED" if verdict.tampered else "fail")
            if calls:
                counts, replayed = run.oracle_calls, run.replay
                if not verdict.passed:
                    print(f"  {name}: {'; '.join(verdict.reasons)[:600]}")
    on, off = statistics.median(times[True]), statistics.median(times[False])
    shown = "/".join(str(counts.get(k, "?")) for k in ("checked", "differed", "self_disagreed", "uncopyable",
                                                       "unchecked"))
    print(f"{name:12s} {len(ids):5d} {on:6.2f} {off:6.2f} {on / off:6.2f}x  {','.join(sorted(verdicts[True])):7s}  "
          f"{shown}  ({counts.get('seconds', 0):.2f} s in the check)  replay: " + (
              "/".join(str(replayed.get(k, "?")) for k in ("compared", "differed", "self_disagreed", "skipped"))
              + f" of {replayed.get('recorded', {}).get('recorded', 0)} recorded, "
              f"{replayed.get('recorded', {}).get('not_data', 0)} not data; library: "
              + "/".join(str(replayed.get("library", {}).get(k, "?")) for k in ("groups", "differed", "self_disagreed"))
              if replayed.get("ran")
              else replayed.get("why", "not run")), flush=True)


if __name__ == "__main__":
    main()
