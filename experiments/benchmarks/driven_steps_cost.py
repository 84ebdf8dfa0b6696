"""What following the tests' generators costs inside the run, measured in one run (noisy machine: read the ratios).

    python -m experiments.benchmarks.driven_steps_cost [--repeats 3] [--items 20000]

The recorder follows each generator call it keeps and reads, at every resume, the arguments as the frame holds them
and the object the generator yielded (session 42). This runs one honest repair's test through the real harness
(``oracle_run``: the plugin, the oracle of calls, the recorder, the replay) in three shapes, each with the oracle of
calls on and off, and prints the median wall times and their ratio:

- ``list``: the def returns a list of ``--items`` rows (no generator: the baseline of the harness's own cost);
- ``drained``: a generator of as many rows, which the test drains with a ``for`` loop over a 200-key argument (a
  step at every resume, whose arguments are read each time until the generator's 0.1 s share is spent);
- ``driven``: a generator the test sends 200 values to and closes (every step recorded and made again).

The ``on/off`` ratio of ``drained`` against that of ``list`` is the price of following a long generator; the
recorder's counts show where the share ran out (``steps_cut``).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from beacon.scratch import owned_tempdir

ROOT = Path(__file__).resolve().parents[2]

_PRISTINE = {
    "list": "def rows(stock, n):\n    return [{'sku': i, 'qty': stock.get(i, 0)} for i in range(n)]\n",
    "drained": "def rows(stock, n):\n    for i in range(n):\n        yield {'sku': i, 'qty': stock.get(i, 0)}\n",
    "driven": ("def rows(stock, n):\n    total = 0\n    while True:\n        got = yield total\n"
               "        if got is not None:\n            total += got + stock.get(got, 0)\n"),
}
_TEST = {
    "list": ("from pkg.stock import rows\n\n\ndef test_a():\n    stock = {{i: i for i in range(200)}}\n"
             "    assert sum(r['qty'] for r in rows(stock, {items})) == sum(range(200))\n"),
    "drained": ("from pkg.stock import rows\n\n\ndef test_a():\n    stock = {{i: i for i in range(200)}}\n"
                "    total = 0\n    for row in rows(stock, {items}):\n        total += row['qty']\n"
                "    assert total == sum(range(200))\n"),
    "driven": ("from pkg.stock import rows\n\n\ndef test_a():\n    stock = {{i: 1 for i in range(200)}}\n"
               "    tracker = rows(stock, 0)\n    next(tracker)\n    for i in range(200):\n"
               "        last = tracker.send(i)\n    assert last == sum(range(200)) + 200\n    tracker.close()\n"),
}


def _time(shape: str, items: int, calls: bool) -> tuple[float, dict]:
    sys.path.insert(0, str(ROOT / "tests"))
    from repotools import oracle_run

    pristine = _PRISTINE[shape]
    # an honest repair written otherwise, so the plugin has a changed def to check and calls to record
    repair = pristine.replace("def rows(stock, n):\n", "def rows(stock, n):\n    n = int(n)\n")
    with owned_tempdir("beacon-steps-") as tmp:
        start = time.perf_counter()
        run, verdict = oracle_run(Path(tmp), repair, pristine=pristine, given_text=pristine.replace("0)", "1)"),
                                  test=_TEST[shape].format(items=items), ids=["tests/test_stock.py::test_a"],
                                  calls=calls)
        seconds = time.perf_counter() - start
    if not verdict.passed:
        raise SystemExit(f"{shape}: the honest repair was refused: {verdict.reasons[:1]}")
    return seconds, (run.replay or {}).get("recorded") or {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--items", type=int, default=20000)
    args = parser.parse_args(argv)
    print(f"{'shape':<9} {'on (s)':>7} {'off (s)':>7} {'on/off':>7}  recorder counts (on)")
    for shape in ("list", "drained", "driven"):
        on, off, counts = [], [], {}
        for _ in range(args.repeats):
            seconds, counts = _time(shape, args.items, True)
            on.append(seconds)
            off.append(_time(shape, args.items, False)[0])
        kept = {k: v for k, v in counts.items() if k in ("recorded", "driven", "steps_cut", "over")}
        print(f"{shape:<9} {statistics.median(on):7.2f} {statistics.median(off):7.2f} "
              f"{statistics.median(on) / statistics.median(off):6.2f}x  {kept}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
