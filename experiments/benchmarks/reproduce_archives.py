"""Every archived run in ``outputs/archive``, reproduced row by row: the release check behind the suite's samples.

    python -m experiments.benchmarks.reproduce_archives [--archives outputs/archive]

The test suite re-runs a seeded sample of each archive's rows (``experiments.reproduce
--sample``), which keeps it within its time budget; this script re-runs every row of every
archived run (about 5 minutes on an idle 2-core machine; the Boltons pilot needs its pinned
sdist in the cache, as ``.ci/run`` fetches it) and prints each run's verdict and wall time.
Exit status 1 if any run does not reproduce.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from experiments.reproduce import main as reproduce_main

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.benchmarks.reproduce_archives",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--archives", type=Path, default=ROOT / "outputs" / "archive",
                        help="a folder of archives (each a run folder or a folder of runs)")
    args = parser.parse_args(argv)
    archives = sorted(p for p in args.archives.iterdir() if p.is_dir())
    failed = []
    for archive in archives:
        start = time.perf_counter()
        status = reproduce_main([str(archive)])
        print(f"{archive.name}: exit {status} in {time.perf_counter() - start:.0f} s", flush=True)
        if status != 0:
            failed.append(archive.name)
    print(f"{len(archives) - len(failed)} of {len(archives)} archives reproduce every row"
          + (f"; not: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
