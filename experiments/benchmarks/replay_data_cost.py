"""What the replay's comparison of module data costs, measured in one run (noisy machine: compare the ratios).

    python -m experiments.benchmarks.replay_data_cost [--repeats 5] [--calls 64] [--table 2000]

Builds a one-file project whose module holds a table of ``--table`` entries and a log, records ``--calls`` calls of
a function that reads the table and appends to the log, and replays them (``beacon.repair.replay.replay``, in
bubblewrap when it is installed, as the product does) twice per repeat: as the product does, reading the declared
module's data after the import and after every call (``beacon.repair.replay_data``), and with no data names (the
replay before session 53). Prints the median wall time of each and their ratio, and the views' cost per value read
in one process (``replay_driver._data_views`` on the same table, the first time and again, when the texts of its
immutable values are kept), so the share of a replay the data comparison takes is read off one run. The worst case
is bounded by ``replay_driver._DATA_SPENT`` values a process.
"""
from __future__ import annotations

import argparse
import statistics
import time
import types
from pathlib import Path

import beacon.repair.replay as replay_module
from beacon.repair import replay_driver
from beacon.repair.limits import Limits
from beacon.repair.replay import replay
from beacon.repair.sandbox import find_bwrap
from beacon.scratch import owned_tempdir

_SOURCE = '''TABLE = {{"p%05d" % i: (i % 7 + 1, "unit") for i in range({table})}}
LOG = []


def restock(sku, qty):
    LOG.append((sku, qty))
    return qty * TABLE[sku][0]{edit}
'''


def _one(scratch: Path, i: int, calls: int, table: int, bwrap, with_data: bool) -> float:
    root = scratch / f"{i}-{int(with_data)}"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "stock.py").write_text(_SOURCE.format(table=table, edit="  # (edited)"))
    (root / "tests").mkdir()
    real = str((root / "shop" / "stock.py").resolve())
    recorded = [{"file": real, "name": "restock", "args": ["p%05d" % (n % table), n % 5], "kwargs": {"$d": []}}
                for n in range(calls)]
    names = replay_module.data_names
    if not with_data:
        replay_module.data_names = lambda text: []
    try:
        start = time.perf_counter()
        done = replay(root, (recorded, {"recorded": calls}), sources=["shop/stock.py"],
                      pristine={"shop/stock.py": _SOURCE.format(table=table, edit="")},
                      tests=["tests/test_stock.py::t"], bwrap=bwrap, limits=Limits(), timeout=120)
        seconds = time.perf_counter() - start
    finally:
        replay_module.data_names = names
    assert done.compared == calls and not done.findings, done
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--calls", type=int, default=64)
    parser.add_argument("--table", type=int, default=2000)
    args = parser.parse_args()
    bwrap = find_bwrap()[0]
    timed: dict[bool, list[float]] = {True: [], False: []}
    with owned_tempdir("beacon-replay-data-cost-") as scratch:
        for i in range(args.repeats):
            for with_data in (False, True):  # (alternated: drift on a noisy machine falls on both)
                timed[with_data].append(_one(Path(scratch), i, args.calls, args.table, bwrap, with_data))
    module = types.ModuleType("m")
    module.TABLE = {"p%05d" % i: (i % 7 + 1, "unit") for i in range(args.table)}
    replay_driver._TEXTS.clear()
    spent, views = [10**9], []
    for _ in range(args.repeats + 1):  # (the first reads every text; the others find the immutable ones kept)
        start = time.perf_counter()
        replay_driver._data_views({"m": module}, {"m": ["TABLE"]}, frozenset(), spent)
        views.append(time.perf_counter() - start)
    cold, per_view = views[0], statistics.median(views[1:])
    values = (10**9 - spent[0]) / (args.repeats + 1)
    with_data, without = statistics.median(timed[True]), statistics.median(timed[False])
    print(f"replay of {args.calls} calls, a {args.table}-entry table ({'bubblewrap' if bwrap else 'no sandbox'}): "
          f"median {without * 1000:.0f} ms without the data comparison, {with_data * 1000:.0f} ms with it "
          f"(ratio {with_data / without:.2f}, {args.repeats} repeats)")
    print(f"one view of the table ({values:.0f} values): {cold * 1000:.1f} ms the first time "
          f"({cold / values * 1e9:.0f} ns a value), {per_view * 1000:.1f} ms after it "
          f"({per_view / values * 1e9:.0f} ns); "
          f"a process reads at most {replay_driver._DATA_SPENT:,} values (at most about "
          f"{replay_driver._DATA_SPENT * cold / values:.1f} s)")


if __name__ == "__main__":
    main()
