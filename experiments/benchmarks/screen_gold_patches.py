"""The static screen on real right fixes: the gold patches of the 21 SWE-bench Lite dev issues in ``../shared``.

    python -m experiments.benchmarks.screen_gold_patches [--data ../shared/data]

Each instance's repository (its git bundle) is checked out at ``base_commit``, the gold ``patch`` applied, and the
changed ``.py`` files screened as a repair (``screen_edit(before, after)``, the pristine files as the reference, the
way ``run_attempt`` screens an answer). Every gold patch is a right fix written by the project's maintainers, so
every flagged one is a right fix the screen would refuse (``suspicious_edit``). Prints one row per instance (its
findings, and the findings recorded as allowed), then the total. Session 25 measured 11 of 21 flagged before new
imports of harmless stdlib modules and of harmless bindings of the project's own were allowed
(``beacon/repair/screen_imports.py``), and 8 of 21 after; the README quotes the current count.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path

from beacon.repair.screen import screen_edit

ROOT = Path(__file__).resolve().parents[2]
SETS = ("swebench_lite_dev", "swebench_lite_devsplit")
_CHANGED = re.compile(r"^\+\+\+ b/(\S+)", re.M)


def _git(*args: str, stdin: str | None = None) -> None:
    subprocess.run(["git", *args], input=stdin, text=True, check=True, capture_output=True)


def _reader(root: Path):
    """A checkout-relative path's text under ``root`` (the screen judges a project import by it), or None."""
    def read(path: str) -> str | None:
        try:
            return (root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
    return read


def screen_gold(data: Path) -> list[tuple[str, list[str], list[str]]]:
    """``(instance_id, findings, allowed)`` per instance of the dev sets under ``data``."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="beacon-screen-gold-") as tmp:
        for name in SETS:
            for line in (data / name / "instances.jsonl").read_text().splitlines():
                inst = json.loads(line)
                stem = inst["repo"].replace("/", "__")
                work = Path(tmp) / stem
                if not work.exists():
                    _git("clone", "-q", "--no-checkout", str(data / name / "repos" / f"{stem}.bundle"), str(work))
                _git("-C", str(work), "checkout", "-q", "-f", inst["base_commit"])
                _git("-C", str(work), "clean", "-qfdx")
                paths = [p for p in _CHANGED.findall(inst["patch"]) if p.endswith(".py") and (work / p).is_file()]
                before = {p: (work / p).read_text() for p in paths}
                _git("-C", str(work), "apply", "-", stdin=inst["patch"])
                after = {p: (work / p).read_text() for p in paths}
                result = screen_edit(before, after, reference=before, read=_reader(work))
                rows.append((inst["instance_id"], [f.describe() for f in result.findings],
                             [f.describe() for f in result.allowed]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args()
    rows = screen_gold(args.data)
    for instance, findings, allowed in rows:
        print(f"{instance:<36} {'FLAGGED' if findings else 'ok':<8} {'; '.join(findings)}")
        if allowed:
            print(f"{'':<36} {'allowed':<8} {'; '.join(allowed)}")
    flagged = sum(1 for _, findings, _ in rows if findings)
    print(f"\nflagged: {flagged} of {len(rows)} gold patches (right fixes the screen would refuse)")


if __name__ == "__main__":
    main()
