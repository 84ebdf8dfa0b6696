"""The oracle's work and seconds per case file: what its limits count, and what that work costs on this machine.

    python -m experiments.benchmarks.oracle_work [--only GLOB] [--limit N] [--workers N]

Since session 51 the oracle of calls stops checking after an amount of *work* (``canary_plugin._SHADOW_WORK``: the
values its walks, copies, comparisons and encodings visited, the entries it put back, and ``_PRISTINE_RUN_WORK`` per
pristine run), never after an amount of time, so which calls are checked, and the verdict and row, are the same on
any machine under any load. This script runs case files through the real harness (``tests/repotools.case_run``:
sandbox off, oracle on) — the heavy calibration cases in ``oracle_work_cases/`` (each 1-4 s of checking, inside the
limits), then, with ``--only``, the case files under ``tests/repair/`` that match — and prints, per case, the calls
checked and not checked, the work and the seconds of checking, then a least-squares fit ``seconds ≈ a·work +
b·checked`` over the cases that stayed inside the limits: ``a`` is this machine's seconds per unit of work, ``b / a``
what one checked call costs beyond the work counted (``_PRISTINE_RUN_WORK`` is counted already), and ``5 / a`` the
work that 5 s of checking is on this machine (``_SHADOW_WORK``'s origin; 50 million). Seconds are measured on the
machine as it is (run it unloaded); the work column is the same on any machine: that is the point.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import fnmatch
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "repair"
CALIBRATION = Path(__file__).resolve().parent / "oracle_work_cases"


def _run(path: str) -> tuple[str, dict]:
    """``(path, oracle evidence)`` of one case file through the harness."""
    sys.path.insert(0, str(ROOT / "tests"))
    from repotools import case_run

    try:
        with tempfile.TemporaryDirectory(prefix="beacon-work-") as folder:
            run, _ = case_run(Path(folder), Path(path))
    except Exception as exc:  # noqa: BLE001 (a case the harness cannot set up: reported, the others still run)
        return path, {"error": f"{type(exc).__name__}: {exc}"[:200]}
    return path, dict(run.oracle_calls)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="also the case files under tests/repair matching this glob")
    parser.add_argument("--limit", type=int, default=0, help="at most this many cases (every k-th, in name order)")
    parser.add_argument("--workers", type=int, default=1, help="cases run at once (1: seconds unloaded)")
    args = parser.parse_args(argv)
    paths = sorted(str(p) for p in CASES.rglob("*.py.txt")
                   if args.only and fnmatch.fnmatch(str(p.relative_to(CASES)), args.only))
    if args.limit and len(paths) > args.limit:
        paths = paths[::-(-len(paths) // args.limit)]
    paths = sorted(str(p) for p in CALIBRATION.glob("*.py.txt")) + paths
    rows = []
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.workers) as pool:
        for path, found in pool.map(_run, paths):
            name = str(Path(path).relative_to(CASES if Path(path).is_relative_to(CASES) else CALIBRATION.parent))
            if "error" in found:
                print(f"{name:72} (not run: {found['error']})")
                continue
            if not found or "work" not in found:
                print(f"{name:72} (no oracle evidence: no changed code, or the must-pass canary failed)")
                continue
            rows.append((found["work"], found["checked"], found["seconds"], found["unchecked"]))
            print(f"{name:72} checked {found['checked']:6d} unchecked {found['unchecked']:5d} "
                  f"work {found['work']:10d} seconds {found['seconds']:7.3f}")
    inside = np.array([r[:3] for r in rows if r[3] == 0 and r[1] > 0], dtype=float)
    if len(inside) < 3:
        print("fewer than 3 cases with checked calls inside the limits: no fit")
        return 0
    (a, b), *_ = np.linalg.lstsq(inside[:, :2], inside[:, 2], rcond=None)
    print(f"\n{len(inside)} cases inside the limits: seconds ~= {a:.3g} * work + {b:.3g} * checked calls")
    print(f"  work per second {1 / a:,.0f}; a checked call's cost beyond the work counted (b / a) {b / a:,.0f}; "
          f"5 s of checking = {5 / a:,.0f} work")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
