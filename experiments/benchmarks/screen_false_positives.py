"""How often the static screen flags honest edits: real small commits of real repositories, screened as repairs.

    python -m experiments.benchmarks.screen_false_positives [--max-lines 6] [--per-repo 400] [--imports]

For each repository bundle in ``../shared/data`` (click, httpx, werkzeug,
requests, flask, and the dev split's), walks the first-parent history and
takes every commit that changes exactly one non-test ``.py`` file by at most
``--max-lines`` changed lines, parses as Python 3 before and after, and adds
no import line (a repair-sized edit: the shape the harness scores; an edit
that adds an import is a finding by design, so ``import`` findings are not
counted). Each is screened as a repair of the file before the commit
(``screen_edit(before, after)``), and the script prints, per repository and
in total, how many such edits have a finding and which rules fire, with
examples. These are honest edits by the projects' maintainers, so every
finding is a false positive of a would-be repair (the price of a denylist
screen); the README quotes the total.

``--imports`` screens the other commits instead: those that add an import line, every finding counted (the
``import`` rule's too). Since session 25 a new import of a harmless stdlib module or of the project's own is
allowed (``beacon/repair/screen_imports.py``); before, every one of these edits was a finding. Since session 26 a
new ``import sys``/``os``/``socket``/… is judged by its uses, and an import the file already had is no finding
however its line is rewritten.
"""
from __future__ import annotations

import argparse
import ast
import re
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

from beacon.repair.screen import screen_edit

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
_IMPORT = re.compile(r"^\+\s*(import|from)\s+\S", re.M)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          errors="replace").stdout


def _is_test(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return "tests/" in path or "test/" in path or name.startswith("test_") or name.endswith("_test.py") \
        or name == "conftest.py"


def _reader(repo: Path, commit: str):
    """A path's text at ``commit``'s parent (the screen judges a new project import by it), or None."""
    def read(path: str) -> str | None:
        done = subprocess.run(["git", "-C", str(repo), "show", f"{commit}^:{path}"], capture_output=True)
        try:
            return done.stdout.decode("utf-8") if done.returncode == 0 else None
        except UnicodeDecodeError:
            return None
    return read


def candidate_edits(repo: Path, max_lines: int, limit: int, imports: bool = False):
    """``(commit, path, before, after)`` for repair-sized commits, newest first: those adding no import line, or
    (``imports``) only those adding one."""
    found = 0
    commits: list[tuple[str, list[list[str]]]] = []
    for row in _git(repo, "log", "--first-parent", "--no-merges", "--format=@@%H", "--numstat", "--all").splitlines():
        if row.startswith("@@"):
            commits.append((row[2:], []))
        elif row.strip() and commits:
            commits[-1][1].append(row.split("\t"))
    for commit, stats in commits:
        py = [s for s in stats if len(s) == 3 and s[2].endswith(".py")]
        if len(py) != 1 or _is_test(py[0][2]) or not py[0][0].isdigit():
            continue
        added, removed, path = int(py[0][0]), int(py[0][1]), py[0][2]
        if max(added, removed) == 0 or max(added, removed) > max_lines:
            continue
        diff = _git(repo, "show", "--format=", commit, "--", path)
        if bool(_IMPORT.search(diff)) != imports:
            continue
        try:
            before = _git(repo, "show", f"{commit}^:{path}")
            after = _git(repo, "show", f"{commit}:{path}")
            ast.parse(before)
            ast.parse(after)
        except subprocess.CalledProcessError:
            continue  # added or renamed file
        except (SyntaxError, ValueError):
            continue  # Python 2 code: no repair the harness scores runs on it
        yield commit, path, before, after
        found += 1
        if found >= limit:
            return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-lines", type=int, default=6, help="most added or removed lines in the one file")
    parser.add_argument("--per-repo", type=int, default=400, help="most edits per repository")
    parser.add_argument("--examples", type=int, default=3)
    parser.add_argument("--imports", action="store_true",
                        help="screen the commits that add an import line instead, counting every finding")
    args = parser.parse_args()
    bundles = sorted(DATA.rglob("*.bundle"))
    if not bundles:
        raise SystemExit(f"no repository bundles under {DATA}")
    total, flagged, rules, examples = 0, 0, Counter(), []
    with tempfile.TemporaryDirectory(prefix="beacon-screen-fp-") as tmp:
        print(f"{'repository':<28} {'edits':>6} {'flagged':>8} {'rate':>7}")
        for bundle in bundles:
            repo = Path(tmp) / bundle.stem
            subprocess.run(["git", "clone", "-q", "--bare", str(bundle), str(repo)], check=True, capture_output=True)
            n = hits = 0
            for commit, path, before, after in candidate_edits(repo, args.max_lines, args.per_repo, args.imports):
                n += 1
                # Without --imports, a new import (multi-line imports pass the diff filter) is not counted.
                try:
                    findings = [f for f in screen_edit({path: before}, {path: after}, read=_reader(repo, commit)).findings
                                if args.imports or f.rule != "import"]
                except Exception as exc:  # noqa: BLE001 - a screen crash is a result here (an attempt's harness_error)
                    findings = []
                    rules[f"screen crashed ({type(exc).__name__})"] += 1
                if findings:
                    hits += 1
                    rules.update({f"{f.rule} ({f.key})" for f in findings})
                    if len(examples) < args.examples * len(bundles):
                        examples.append(f"{bundle.stem} {commit[:10]} {path}: "
                                        + "; ".join(f.describe() for f in findings[:3]))
            total, flagged = total + n, flagged + hits
            print(f"{bundle.stem:<28} {n:>6} {hits:>8} {hits / max(n, 1):>7.1%}")
    print(f"{'total':<28} {total:>6} {flagged:>8} {flagged / max(total, 1):>7.1%}")
    print("\nfindings by rule (edits):")
    for rule, count in rules.most_common():
        print(f"  {count:>4}  {rule}")
    print("\nexamples:")
    for line in examples:
        print("  " + line)


if __name__ == "__main__":
    main()
