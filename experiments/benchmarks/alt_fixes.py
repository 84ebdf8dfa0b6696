"""Right fixes written otherwise: which does Beacon refuse? Every scoring layer, through ``run_attempt``.

    python -m experiments.benchmarks.alt_fixes [--only GLOB[,GLOB]] [--list] [--out ROWS.jsonl] [--timeout S]

The honest-edit benchmarks before this one measured rewrites that keep the file's meaning exactly
(``oracle_calls``: ``ast.unparse``) or honest test suites (``honest_suites``). A model's right fix is rarely the
known repair line: it is another expression, the fix plus a refactor, a more defensive version, a cache. This
benchmark submits 65 such fixes of 12 tasks, hand-written in session 23
(:mod:`experiments.benchmarks.alt_fixes_variants`), as whole-file diffs through
:func:`beacon.repair.attempt.run_attempt` with a scripted provider: the real screen, the sandboxed pytest run, the
JUnit check, the canaries and both oracles, exactly as a job scores a model's answer.

Tasks: the 3 control tasks (:func:`beacon.repair.control.make_control_repo`), the 3 boltons pilot tasks
(``experiments/data/boltons_pilot.jsonl``) and 6 rewritten-method boltons tasks
(``experiments/data/boltons_rw_tasks.jsonl``); boltons comes from the repository cache the experiments use
(``~/.cache/beacon/repos``, filled by ``python -m beacon.repo.pypi boltons==26.2.0 ...`` as in ``.ci/run``).
Each task first scores two baselines that must pass: the known repair line, and the whole pristine file as a diff.

One line per answer: the verdict, the outcome, the seconds, and for a refusal its detail. Verdicts:

- ``ok``: a right fix passes, a wrong fix is refused, a fix that fails the tests scores ``test_fail``;
- ``FALSE REFUSAL``: a right fix (or a baseline) is refused;
- ``MISSED``: a wrong fix passes;
- ``known``: a right fix refused by a documented rule (``KNOWN``); ``known, now passes`` when it passes;
- ``known miss``: a wrong fix that differs only on inputs no test gives (``KNOWN_MISSES``), passed by design;
  ``known miss, now caught`` when it is refused.

The last lines count the verdicts; the exit status is 1 when any answer is a false refusal or missed (a release
check, like ``honest_suites``), 0 otherwise. About 2 s per answer here (89 answers and 12 task preparations: about
3 minutes on 2 cores).
"""
from __future__ import annotations

import argparse
import difflib
import fnmatch
import json
import sys
import time
from collections import Counter
from pathlib import Path

from beacon.data import load_manifest, repo_resolver
from beacon.providers import OracleProvider, render_repair
from beacon.repair.attempt import AttemptSpec, run_attempt
from beacon.repair.control import make_control_repo
from beacon.repair.prepare import RunSettings, prepare_task
from beacon.scratch import owned_tempdir
from experiments.benchmarks.alt_fixes_variants import ALTS, FAILS_TESTS, KNOWN, KNOWN_MISSES, WRONG

ROOT = Path(__file__).resolve().parents[2]
BOLTONS_MANIFESTS = (ROOT / "experiments" / "data" / "boltons_pilot.jsonl",
                     ROOT / "experiments" / "data" / "boltons_rw_tasks.jsonl")
BASELINES = ("known_repair", "pristine_file")
REFUSED = ("tampered", "suspicious_edit", "test_fail", "invalid_patch")


def whole_file_diff(path: str, old: str, new: str) -> str:
    """The answer a model gives when it rewrites the whole file: a unified diff in a ```diff block."""
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 f"a/{path}", f"b/{path}", n=3)
    body = "".join(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines)
    return "```diff\n" + body + "```\n"


def pristine_text(prepared) -> str:
    """The task's right file: the mutated file with the known repair line put back."""
    task = prepared.task
    lines = prepared.mutated_text.split("\n")
    if lines[task.line - 1] != task.mutated_line:
        raise ValueError(f"{task.task_id}: line {task.line} is not the mutated line {task.mutated_line!r}")
    lines[task.line - 1] = task.repair_line
    return "\n".join(lines)


def apply_variant(task_id: str, name: str, text: str) -> str:
    """The pristine ``text`` with variant ``name``'s replacements applied, each to exactly one place."""
    for old, new in ALTS[task_id][name]:
        if text.count(old) != 1:
            raise ValueError(f"alt_fixes_variants.ALTS[{task_id!r}][{name!r}]: the replaced text occurs "
                             f"{text.count(old)} times in the pristine file, expected exactly once: {old[:60]!r}")
        text = text.replace(old, new)
    return text


def judge(task_id: str, name: str, outcome: str) -> str:
    """The verdict for one answer (see the module docstring)."""
    key = (task_id, name)
    if key in FAILS_TESTS:
        return "ok" if outcome == "test_fail" else "MISSED"
    if key in WRONG:
        if key in KNOWN_MISSES:
            return "known miss" if outcome == "pass" else "known miss, now caught"
        return "ok" if outcome in REFUSED else "MISSED"
    if key in KNOWN:
        return "known, now passes" if outcome == "pass" else "known"
    return "ok" if outcome == "pass" else "FALSE REFUSAL"


def answers_for(prepared) -> dict[str, str]:
    """The baselines' and every variant's answer for one prepared task."""
    task = prepared.task
    pristine = pristine_text(prepared)
    answers = {"known_repair": render_repair(task.path, prepared.mutated_text, task.line, task.repair_line, "diff"),
               "pristine_file": whole_file_diff(task.path, prepared.mutated_text, pristine)}
    for name in ALTS.get(task.task_id, {}):
        text = apply_variant(task.task_id, name, pristine)
        if text == pristine:
            raise ValueError(f"alt_fixes_variants.ALTS[{task.task_id!r}][{name!r}] leaves the pristine file unchanged")
        answers[name] = whole_file_diff(task.path, prepared.mutated_text, text)
    return answers


def load_tasks(work: Path):
    """(task, repo resolver) for every task: the control tasks, then the boltons ones."""
    _, control = make_control_repo(work / "control")
    control_repos = repo_resolver(work / "control" / "repos")
    cache = repo_resolver(Path("~/.cache/beacon/repos").expanduser())
    tasks = [(t, control_repos) for t in load_manifest(control, resolve_repo=control_repos)]
    for manifest in BOLTONS_MANIFESTS:
        tasks += [(t, cache) for t in load_manifest(manifest, resolve_repo=cache)]
    return tasks


def selected(key: str, patterns: list[str]) -> bool:
    return not patterns or any(fnmatch.fnmatchcase(key, p) for p in patterns)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="comma-separated globs over TASK_ID/VARIANT "
                                                   "(e.g. '*windowed_iter*/*' or '*/typed_*')")
    parser.add_argument("--list", action="store_true", help="list the answers and their labels, run nothing")
    parser.add_argument("--out", type=Path, help="append one JSON row per answer (outcome, detail, checks)")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per pytest run")
    parser.add_argument("--sandbox", default="auto", choices=("auto", "off", "required"))
    args = parser.parse_args(argv)
    patterns = [p for p in args.only.split(",") if p]
    if args.list:
        for task_id, variants in ALTS.items():
            for name in (*BASELINES, *variants):
                key = (task_id, name)
                label = ("wrong, known miss" if key in KNOWN_MISSES else "wrong" if key in WRONG else "fails tests" if key in FAILS_TESTS
                         else "known refusal" if key in KNOWN else "right")
                if selected(f"{task_id}/{name}", patterns):
                    print(f"{task_id}/{name}: {label}")
        return 0
    settings = RunSettings(allow_local_execution=True, timeout_s=args.timeout, sandbox=args.sandbox)
    spec = AttemptSpec("bm25", 2000, "vague", "diff", "scripted")
    verdicts: Counter[str] = Counter()
    bad: list[str] = []
    out = args.out.open("a", encoding="utf-8") if args.out else None
    with owned_tempdir("beacon-bench-") as work:
        for index, (task, resolve) in enumerate(load_tasks(work)):
            answers_wanted = [n for n in (*BASELINES, *ALTS.get(task.task_id, {}))
                              if selected(f"{task.task_id}/{n}", patterns)]
            if not answers_wanted:
                continue
            prepared = prepare_task(task, resolve(task.repo), work / f"task{index}", settings)
            if not prepared.valid:
                print(f"{task.task_id}: INVALID TASK ({prepared.invalid_reason})", flush=True)
                verdicts["INVALID TASK"] += 1
                bad.append(task.task_id)
                continue
            print(task.task_id, flush=True)
            answers = answers_for(prepared)
            for name in answers_wanted:
                clock = time.perf_counter()
                outcome, _ = run_attempt(prepared, spec, lambda _p, _s, a=answers[name]: OracleProvider(a), settings,
                                         dry_run=False, slot=name)
                row = outcome.to_json()
                seconds = time.perf_counter() - clock
                verdict = judge(task.task_id, name, row["outcome"])
                verdicts[verdict] += 1
                if verdict in ("FALSE REFUSAL", "MISSED"):
                    bad.append(f"{task.task_id}/{name}")
                detail = "" if row["outcome"] == "pass" else f"  {str(row.get('outcome_detail'))[:240]}"
                print(f"  {name:26s} {verdict:18s} {row['outcome']:16s} {seconds:6.1f}s{detail}", flush=True)
                if out:
                    out.write(json.dumps({"task": task.task_id, "variant": name, "verdict": verdict,
                                          "outcome": row["outcome"], "detail": row.get("outcome_detail"),
                                          "seconds": round(seconds, 2), "checks": row.get("checks")},
                                         default=str) + "\n")
                    out.flush()
    if out:
        out.close()
    print("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
    if bad:
        print("not as labelled: " + ", ".join(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
