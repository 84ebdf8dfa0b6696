"""Command line: ``python -m beacon.artifacts {verify DIR, collect SWEEP_DIR}``.

``verify`` exits 0 when the run matches its manifest, 1 with one problem
per line (``DIR/<file>: <what>``) otherwise, 2 for a sweep folder (it points
to ``collect``, which verifies every job). ``collect`` writes the sweep
index, prints its path and a one-line summary, and exits 0 once the index
is written, even when jobs failed: the index is the report.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .runfile import RUN_JSON
from .verify import collect, summary_line, verify


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m beacon.artifacts", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("verify", help="check a sealed run folder against MANIFEST.sha256").add_argument(
        "run_dir", type=Path)
    sub.add_parser("collect", help="index the job folders of a Hydra multirun sweep").add_argument(
        "sweep_dir", type=Path)
    args = parser.parse_args(argv)
    if args.command == "verify":
        if args.run_dir.is_dir() and not (args.run_dir / RUN_JSON).exists() and any(args.run_dir.rglob(RUN_JSON)):
            # a sweep (runs below, none here): verify works on one run; collect checks them all
            print(f"error: {args.run_dir}: a folder of runs (a sweep), not a run folder (no {RUN_JSON} here); "
                  f"run `python -m beacon.artifacts collect {args.run_dir}` to verify every job and index them, "
                  f"or verify one run folder below it", file=sys.stderr)
            return 2
        problems = verify(args.run_dir)
        for problem in problems:
            # Problems name files relative to the run; "." is the run folder itself.
            print(f"{args.run_dir}{problem[1:]}" if problem.startswith(".:") else f"{args.run_dir}/{problem}")
        if not problems:
            print(f"{args.run_dir}: OK")
        return 1 if problems else 0
    try:
        index_path = collect(args.sweep_dir)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(index_path)
    print(summary_line(json.loads(index_path.read_text(encoding="utf-8"))["summary"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
