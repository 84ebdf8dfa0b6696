"""What the replay's library comparison costs, measured in one run (noisy machine: compare the ratios).

    python -m experiments.benchmarks.replay_library_cost [--repeats 7] [--imports json,logging,decimal]

Builds a one-file project whose module imports ``--imports`` (a small project's usual set by default), replays two
recorded calls into it (``beacon.repair.replay.replay``, in bubblewrap when it is installed, as the product does), and
prints the median wall time of a whole replay (the pristine and edited processes, and the comparison). Then, in a fresh
interpreter that imports the same modules, the median time of describing the library state twice (what each replay
process does: ``replay_driver.library_state`` after the import and after the calls) and the size of its JSON, so the
share of a replay that the library comparison takes is read off one run.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from beacon.repair.limits import Limits
from beacon.repair.replay import DRIVER, replay
from beacon.repair.sandbox import find_bwrap
from beacon.scratch import owned_tempdir

_PROBE = """
import json, sys, time
import {imports}
space = {{"__name__": "__replay__"}}  # (the driver as the replay runs it: its own source, nothing of Beacon imported)
exec(compile(open({driver!r}).read(), "replay_driver.py", "exec"), space)
_Describer, library_state = space["_Describer"], space["library_state"]
times = []
for _ in range({repeats}):
    describe = _Describer(frozenset())
    start = time.perf_counter()
    state = library_state(set(), describe)
    library_state(set(), describe)
    times.append(time.perf_counter() - start)
print(json.dumps({{"times": times, "groups": len(state), "names": sum(map(len, state.values())),
                  "bytes": len(json.dumps(state))}}))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--imports", default="json,logging,decimal,re,collections,dataclasses,typing,pathlib")
    args = parser.parse_args()
    imports = [name.strip() for name in args.imports.split(",") if name.strip()]
    pristine = "".join(f"import {name}\n" for name in imports) + "\n\ndef near(a, b):\n    return abs(a - b) < 1e-9\n"
    edited = pristine.replace("abs(a - b) < 1e-9", "abs(b - a) < 1e-9")
    bwrap = find_bwrap()[0]
    wall = []
    with owned_tempdir("beacon-replay-cost-") as scratch:
        for i in range(args.repeats):
            root = Path(scratch) / str(i)
            (root / "calc").mkdir(parents=True)
            (root / "calc" / "__init__.py").write_text("")
            (root / "calc" / "near.py").write_text(edited)
            (root / "tests").mkdir()
            real = str((root / "calc" / "near.py").resolve())
            calls = [{"file": real, "name": "near", "args": args_, "kwargs": {"$d": []}}
                     for args_ in ([1.0, 1.0], [1.0, 2.0])]
            start = time.perf_counter()
            done = replay(root, (calls, {"recorded": 2}), sources=["calc/near.py"],
                          pristine={"calc/near.py": pristine}, tests=["tests/test_near.py::t"], bwrap=bwrap,
                          limits=Limits(), timeout=60)
            wall.append(time.perf_counter() - start)
            assert done.compared == 2 and not done.findings and done.library.get("compared"), done
    probe = _PROBE.format(driver=str(DRIVER), imports=", ".join(imports), repeats=args.repeats)
    measured = json.loads(subprocess.run([sys.executable, "-P", "-c", probe], capture_output=True, check=True,
                                         text=True).stdout)
    whole, describe = statistics.median(wall), statistics.median(measured["times"])
    print(f"replay (2 processes{', bubblewrap' if bwrap else ''}): median {whole * 1000:.0f} ms of {args.repeats}")
    print(f"library state, described twice in one process: median {describe * 1000:.0f} ms "
          f"({measured['groups']} groups, {measured['names']} names, {measured['bytes'] / 1e6:.2f} MB of JSON)")
    print(f"two processes' descriptions / the whole replay: {2 * describe / whole:.2f}")


if __name__ == "__main__":
    main()
