"""Every red-team and honest-hunt case file under ``tests/repair/`` through the real harness, in one table.

    python -m experiments.benchmarks.case_files [--only GLOB] [--workers N]

The case files (``PRISTINE``, ``MUTANT``, ``REPAIR``, ``TEST``, optional ``FILES``: the format of
``tests/repotools.case_run``) are what the red-team rounds forged and the honest hunts wrote. The test suite runs the
forgeries and a sample of the honest cases (``tests/repair/test_replay_library.py``; each is a real pytest run plus
the replay's processes, about 1.5 s, so all of them would crowd the suite's ten minutes); this script runs every one:

- a ``round*`` or ``caches`` folder (``FOLDERS``) holds forged passes, which must be refused (``tampered``), or,
  where the case file says ``EXPECT = "fails"``, must not pass (the kept bug now fails the case's own test: since
  session 45 the oracle's pristine call is made before the real one, and round 60's forged passes, the mutant with
  a new docstring, fail as the mutant does; since session 50 the plain run, the tests again with no pristine code
  in the process, refuses the ones that passed on what a pristine call left behind);
- an ``honest*`` folder holds honest repairs, which must pass;
- an ``open/`` folder under either holds what is documented as still open (forgeries that pass, honest repairs that
  are refused): reported, never a failure; ``now refused`` / ``now passes`` says one can move up;
- the static screen's verdict is reported beside the harness's: ``ok, screen flags`` is an honest case the harness
  passes and the screen flags (an import outside its list, mostly: the screen's own false positives, which
  ``screen_false_positives`` measures on real commits).

One line per case that did not behave as its folder says (and, with ``--all``, per case), then a count per folder.
The exit status is 1 when a forgery passed or an honest repair was refused outside ``open/``.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import fnmatch
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "repair"
# the folders in case_run's format whose whole verdict is the harness's (round 48's others are the screen's, and
# rounds 30-43 are run by their own tests, with other expectations)
FOLDERS = ("caches", "round45", "round46", "round47", "round49", "round50", "round51", "round52", "round53",
           "round54", "round55", "round56", "round57", "round58", "round59", "round60", "round61", "round62", "round63", "round64", "round65", "round66", "round67", "round68", "round69", "round70", "round71", "round72", "round73", "round74", "session50", "session51", "session46", "session47", "session48", "session49", "honest45", "honest_caches", "honest48",
           "honest_recorder", "honest_driven", "honest15", "honest16", "honest17", "honest18", "honest19", "honest20", "honest21", "honest22", "honest23", "honest24",
           "honest25", "honest26", "honest_s51", "honest_s52", "honest_s53",
           "honest_s54")


def _run(path: str) -> tuple[str, bool, bool, str, str, float, str]:
    """``(path, passed, tampered, first reason, the static screen's first finding or "", seconds, what a forgery's
    case expects: "tampered" or "fails")`` of one case file
    through the harness (the screen's verdict is reported beside it: a finding refuses an attempt as
    ``suspicious_edit`` before any test runs, and ``screen_false_positives`` measures those on real commits)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from repotools import case_run

    from beacon.repair.screen import screen_edit

    start = time.monotonic()
    space: dict = {}
    exec(compile(Path(path).read_text(encoding="utf-8"), Path(path).name, "exec"), space)  # noqa: S102 (our cases)
    found = screen_edit({"pkg/stock.py": space["MUTANT"]}, {"pkg/stock.py": space["REPAIR"]}).findings
    with tempfile.TemporaryDirectory(prefix="beacon-cases-") as folder:
        run, verdict = case_run(Path(folder), Path(path))
    return (path, verdict.passed, verdict.tampered, (verdict.reasons or ("",))[0][:160],
            f"{found[0].rule} {found[0].key}" if found else "", time.monotonic() - start,
            space.get("EXPECT", "tampered"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="*", help="a glob on the case file's path under tests/repair/")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--all", action="store_true", help="a line for every case, not only the surprises")
    options = parser.parse_args(argv)
    files = sorted(p for folder in FOLDERS for p in (CASES / folder).glob("**/*.py.txt")
                   if fnmatch.fnmatch(str(p.relative_to(CASES)), options.only))
    counts: dict[str, dict[str, int]] = {}
    bad = 0
    with concurrent.futures.ProcessPoolExecutor(options.workers) as pool:
        for path, passed, tampered, reason, screen, seconds, expect in pool.map(_run, map(str, files)):
            rel = Path(path).relative_to(CASES)
            folder = str(rel.parent)
            honest = rel.parts[0].startswith("honest")
            is_open = "open" in rel.parts[1:-1]
            expected = passed if honest else (not passed and (tampered or expect == "fails"))
            if is_open:  # (an honest one passes only when the screen passes it too)
                expected = expected and not (honest and screen)
                verdict = "open" if not expected else ("now passes" if honest else "now refused")
            else:
                verdict = "ok" if expected else ("REFUSED (honest)" if honest else "PASSED (forgery)")
                bad += not expected
                if expected and screen and honest:
                    verdict = "ok, screen flags"  # (the harness passes it; the screen's own false positive)
            counts.setdefault(folder, {}).setdefault(verdict, 0)
            counts[folder][verdict] += 1
            if options.all or verdict not in ("ok", "open", "ok, screen flags"):
                print(f"{verdict:18} {str(rel):60} {seconds:5.1f}s  {reason}", flush=True)
    for folder, seen in sorted(counts.items()):
        print(f"{folder:28} " + ", ".join(f"{n} {v}" for v, n in sorted(seen.items())))
    print(f"{len(files)} case files; {bad} not as their folder says")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
