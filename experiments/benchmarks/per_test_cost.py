"""What the scoring harness costs per test on a suite of many small tests, measured in one run.

    python -m experiments.benchmarks.per_test_cost [--modules 20] [--tests 20] [--repeats 5]

``scoring_overhead`` measures the control tasks (three tests each): there the harness's fixed costs dominate
(interpreter start, the canary plugin's snapshot, the provenance recompile). This one writes a suite of
``modules × tests`` passing tests (each ``assert add(i, 1) == i + 1`` on the declared source ``pkg/calc.py``) and
alternates, in each round, a bare ``python -m pytest -q -p no:cacheprovider`` with plugin autoload off and
:func:`beacon.repair.pytest_runner.run_pytest` (sandbox off: the canary plugin and JUnit over a pipe, as scoring
runs them), then a 3-test suite of the same shape for both, so the per-test cost is the difference of the
differences divided by the extra tests. Every hardened run must pass (``verify_run``). Prints medians, the ratio
and the milliseconds per test the harness adds; the checks after each test call (the watch, the comparison walk,
provenance) are most of it.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from beacon.repair.controls import snapshot_protected
from beacon.repair.pytest_runner import run_pytest, verify_run
from beacon.scratch import owned_tempdir


def _suite(modules: int, tests: int) -> dict[str, str]:
    files = {"pkg/__init__.py": "", "pkg/calc.py": "def add(a, b):\n    return a + b\n"}
    for m in range(modules):
        files[f"tests/test_m{m}.py"] = "from pkg.calc import add\n\n" + "".join(
            f"def test_{i}():\n    assert add({i}, 1) == {i + 1}\n\n" for i in range(tests))
    return files


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _bare(root: Path) -> float:
    clock = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider"], cwd=root, check=True,
                   capture_output=True, env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    return time.perf_counter() - clock


def _hardened(root: Path, report: Path, files: dict[str, str]) -> float:
    tests = [p for p in files if p.startswith("tests/")]
    expected = [f"{p}::{line[4:line.index('(')]}" for p in tests for line in files[p].splitlines()
                if line.startswith("def test_")]
    clock = time.perf_counter()
    run = run_pytest(root, ["tests"], protected=snapshot_protected(root, extra=tests), sandbox="off",
                     report_dir=report, sources=("pkg/calc.py",))
    elapsed = time.perf_counter() - clock
    verdict = verify_run(run, expected)
    if not verdict.passed:
        raise SystemExit(f"the hardened run did not pass: {verdict.reasons[:3]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modules", type=int, default=20)
    parser.add_argument("--tests", type=int, default=20, help="tests per module")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    big, small = _suite(args.modules, args.tests), _suite(1, 3)
    extra = args.modules * args.tests - 3
    times: dict[str, list[float]] = {"bare_big": [], "hardened_big": [], "bare_small": [], "hardened_small": []}
    with owned_tempdir("beacon-pertest-") as work:
        for round_ in range(args.repeats):
            for size, files in (("big", big), ("small", small)):
                root = _write(work / f"{size}-{round_}", files)
                times[f"bare_{size}"].append(_bare(root))
                times[f"hardened_{size}"].append(_hardened(root, work / f"report-{size}-{round_}", files))
    med = {key: statistics.median(values) for key, values in times.items()}
    print(f"{'measurement':<34}{'median s':>10}")
    for key, value in med.items():
        print(f"{key:<34}{value:>10.3f}")
    print(f"hardened / bare, {args.modules * args.tests} tests: {med['hardened_big'] / med['bare_big']:.2f}x; "
          f"3 tests: {med['hardened_small'] / med['bare_small']:.2f}x")
    per_test = ((med["hardened_big"] - med["bare_big"]) - (med["hardened_small"] - med["bare_small"])) / extra
    print(f"the harness adds {per_test * 1000:.2f} ms per test ({args.repeats} rounds, medians)")


if __name__ == "__main__":
    main()
