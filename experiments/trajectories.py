"""``python -m experiments.trajectories``: score a folder of agent trajectories into a run folder.

    python -m experiments.trajectories TRAJ_DIR --instances instances.jsonl --repos REPOS_DIR --out RUN_DIR
    python -m experiments.trajectories ../shared/data/contextbench_ref/trajectories \\
        --instances ../shared/data/contextbench_ref/instances.jsonl \\
        --trees ../shared/data/contextbench_ref/trees --agent swe-agent --out outputs/runs/contextbench_ref/run

Trajectories: every SWE-agent ``*.checkpoints.jsonl`` / ``*.traj`` and
mini-SWE-agent ``*.traj.json`` under ``TRAJ_DIR`` (``beacon.localize.trajectories``).
Instances: a JSON list or JSONL with ``instance_id`` and ``patch`` (the gold
fix), plus ``repo`` and ``base_commit`` with ``--repos`` (snapshots as in the
localization runner, cached under ``--cache-dir``); ``gold`` in ContextBench's
shape (``init_ctx``/``add_ctx`` or ``gold_ctx``) is the ``contextbench``
profile's gold when present, else the patch's gold lines (Beacon's rules,
``gold_from_patch``) are its ``init_ctx``. ``--trees DIR`` gives the base
files instead: ``DIR/<instance_id>/`` or ``DIR/<instance_id>.tar.gz``.

One row per trajectory and ``--profiles`` entry (``beacon.localize.agent_scoring``);
the run folder is sealed (``python -m beacon.artifacts verify``) and
``python -m paper.build`` tables it beside retrieval runs. Re-running the
same command resumes; a trajectory that cannot be scored (a patch that does
not apply at its base, an unreadable file) is a row with its ``error``.
"""
from __future__ import annotations

import argparse
import json
import sys
import tarfile
import tempfile
from pathlib import Path

from beacon.artifacts import sha256_file
from beacon.localize.agent_scoring import PROFILES, score_trajectory
from beacon.localize.contextbench import ReferenceGold, aggregate
from beacon.localize.gold import gold_from_patch
from beacon.localize.instances import SnapshotCache
from beacon.localize.trajectories import find_trajectories, kind_of, read_trajectory
from beacon.records import KIND, TrajectoryRecord
from experiments.job import RunSpec, run_job

AGENTS = {"checkpoints": "swe-agent", "traj": "swe-agent", "traj.json": "mini-swe-agent"}


class TrajectoryRunError(ValueError):
    """Bad command-line inputs; the message names the file, line and field."""


def load_instances(path: Path) -> dict[str, dict]:
    """``instance_id -> record`` from a JSON list or JSONL; ``instance_id`` and ``patch`` are required."""
    text = path.read_text(encoding="utf-8")
    try:
        if text.lstrip().startswith("["):
            rows = list(enumerate(json.loads(text), 1))
        else:
            rows = [(n, json.loads(line)) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    except json.JSONDecodeError as exc:
        raise TrajectoryRunError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    out: dict[str, dict] = {}
    for number, row in rows:
        if not isinstance(row, dict):
            raise TrajectoryRunError(f"{path}:{number}: expected a JSON object, got {type(row).__name__}")
        for name in ("instance_id", "patch"):
            if not isinstance(row.get(name), str) or not row[name]:
                raise TrajectoryRunError(f"{path}:{number}: field {name!r}: expected a non-empty string")
        gold = row.get("gold")
        if gold is not None and not isinstance(gold, dict):
            raise TrajectoryRunError(f"{path}:{number}: field 'gold': expected an object with init_ctx, add_ctx "
                                     f"or gold_ctx, got {type(gold).__name__}")
        if row["instance_id"] in out:
            raise TrajectoryRunError(f"{path}:{number}: field 'instance_id': {row['instance_id']!r} repeats")
        out[row["instance_id"]] = row
    return out


class Snapshots:
    """Base-commit files per instance: a git snapshot (``--repos``) or a given tree (``--trees``)."""

    def __init__(self, args: argparse.Namespace, scratch: Path):
        self.trees = Path(args.trees) if args.trees else None
        self.cache = None if self.trees else SnapshotCache(Path(args.cache_dir), [Path(d) for d in args.repos])
        self.scratch = scratch

    def __call__(self, inst: dict) -> Path:
        if self.cache is not None:
            for name in ("repo", "base_commit"):
                if not isinstance(inst.get(name), str) or not inst[name]:
                    raise TrajectoryRunError(f"instance {inst['instance_id']}: field {name!r} is needed with --repos")
            return self.cache.snapshot(inst["repo"], inst["base_commit"])
        folder, archive = self.trees / inst["instance_id"], self.trees / f"{inst['instance_id']}.tar.gz"
        if folder.is_dir():
            return folder
        if not archive.is_file():
            raise TrajectoryRunError(f"--trees {self.trees}: neither {folder.name}/ nor {archive.name} exists")
        dest = self.scratch / inst["instance_id"]
        if not dest.is_dir():
            dest.mkdir(parents=True)
            with tarfile.open(archive) as tar:
                tar.extractall(dest, filter="data")
        return dest


def reference_gold(inst: dict, gold) -> ReferenceGold:
    if inst.get("gold") is not None:
        return ReferenceGold.from_dict(inst["gold"], inst["patch"])
    init = [{"file": p, "start_line": s, "end_line": e} for p, s, e in gold.line_ranges]
    return ReferenceGold(tuple(init), (), inst["patch"])


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m experiments.trajectories", description=__doc__.split("\n")[0])
    parser.add_argument("trajectories", type=Path, help="folder of trajectory files (searched recursively)")
    parser.add_argument("--instances", type=Path, required=True, help="SWE-bench-style instances (JSON or JSONL)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--repos", type=Path, action="append", help="repositories folder (repeatable)")
    where.add_argument("--trees", type=Path, help="base files per instance: <id>/ or <id>.tar.gz")
    parser.add_argument("--out", type=Path, required=True, help="run folder to write (resumed if it exists)")
    parser.add_argument("--profiles", default=",".join(PROFILES),
                        help=f"comma-separated metric profiles (default {','.join(PROFILES)})")
    parser.add_argument("--agent", help="agent label in the method name <agent>/<profile> "
                                        "(default from the file format: swe-agent or mini-swe-agent)")
    parser.add_argument("--task-set", help="task set name of the rows (default: the instances file's stem)")
    parser.add_argument("--glob", default="*", help="only trajectory files whose name matches (e.g. "
                        "'*.checkpoints.jsonl' when SWE-agent's .traj files sit beside them)")
    parser.add_argument("--cache-dir", type=Path, default=Path(".beacon-cache"), help="snapshot cache (--repos)")
    args = parser.parse_args(argv)
    args.profiles = [p.strip() for p in args.profiles.split(",") if p.strip()]
    unknown = [p for p in args.profiles if p not in PROFILES]
    if unknown or not args.profiles:
        parser.error(f"--profiles: {', '.join(unknown) or 'empty'}: expected a subset of {', '.join(PROFILES)}")
    return args


def run(argv: list[str] | None = None) -> Path:
    args = parse_args(argv)
    instances = load_instances(args.instances)
    files = [f for f in find_trajectories(args.trajectories) if f.match(args.glob)]
    if not files:
        raise TrajectoryRunError(f"{args.trajectories}: no trajectory files (*.checkpoints.jsonl, *.traj, "
                                 f"*.traj.json) matching --glob {args.glob!r}")
    names = [str(f.relative_to(args.trajectories)) for f in files]
    task_set = args.task_set or args.instances.name.split(".")[0]
    scientific = {"kind": "trajectories", "profiles": args.profiles, "agent": args.agent, "task_set": task_set,
                  "trajectories": names, "snapshots": "trees" if args.trees else "repos"}
    inputs = {"instances": sha256_file(args.instances),
              **{f"trajectory:{n}": sha256_file(f) for n, f in zip(names, files)}}
    config = {**scientific, "argv": list(argv if argv is not None else sys.argv[1:])}
    spec = RunSpec(args.out, config=config, scientific=scientific, overrides=config["argv"], inputs=inputs)

    def body(writer) -> None:
        with tempfile.TemporaryDirectory(prefix="beacon-trees-") as scratch:
            seen = _score_all(args, writer, instances, names, files, inputs, task_set, Snapshots(args, Path(scratch)))
        writer.set_environment("instances_without_trajectory", sorted(set(instances) - seen))

    run_job(spec, body, log_failure=False)  # main prints the one-line error
    return args.out


def _score_all(args, writer, instances, names, files, inputs, task_set, snapshot) -> set[str]:
    """Append the rows not yet recorded; the instances that have a trajectory."""
    done, seen = writer.finished_keys(), set()
    for name, file in zip(names, files):
        agent = args.agent or AGENTS[kind_of(file)]
        record = read_trajectory(file)
        iid = record["instance_id"]
        if iid not in instances:
            raise TrajectoryRunError(f"{file}: instance {iid!r} is not in {args.instances}")
        if iid in seen:
            raise TrajectoryRunError(f"{file}: a second trajectory for instance {iid!r} (choose one format "
                                     "with --glob)")
        seen.add(iid)
        inst = instances[iid]
        base = {"instance_id": iid, "repo": inst.get("repo") or "", "base_commit": inst.get("base_commit") or "",
                "task_set": task_set, "trajectory": {"file": name, "sha256": inputs[f"trajectory:{name}"]}}
        todo = [p for p in args.profiles if f"{iid}|{agent}/{p}" not in done]
        try:
            repo = snapshot(inst) if todo else None
            gold = gold_from_patch(iid, inst["patch"], repo) if todo else None
            failure = None
        except Exception as exc:  # recorded on the instance's rows; the others go on
            failure = f"{type(exc).__name__}: {exc}"
        for profile in todo:
            key = f"{iid}|{agent}/{profile}"
            row, error = None, failure
            if failure is None:
                try:
                    row = score_trajectory(record, profile=profile, agent=agent, gold=gold,
                                           reference_gold=reference_gold(inst, gold), repo=repo)
                except Exception as exc:  # one trajectory failing is a recorded row
                    error = f"{type(exc).__name__}: {exc}"
            if row is None:
                row = {"kind": KIND, "method": f"{agent}/{profile}",
                       "method_params": {"metric_profile": profile, "source": "trajectory"}, "budget": 0,
                       "metric_profile": profile, "metrics": None, "error": error}
            writer.append(TrajectoryRecord(key=key, **base, **row).to_json())
    return seen


def main(argv: list[str] | None = None) -> int:
    try:
        out = run(argv)
    except TrajectoryRunError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rows = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines() if x]
    errors = sum(1 for r in rows if r.get("error"))
    print(f"{len(rows)} rows ({errors} with an error), run folder {out}")
    for method in sorted({r["method"] for r in rows if r.get("metric_profile") == "contextbench"}):
        # the reference's own summary (pooled final-context ratios), for numbers next to its leaderboard
        summary = aggregate([r["contextbench"] for r in rows if r["method"] == method and "contextbench" in r])
        print(f"{method}: ContextBench summary {json.dumps(summary, sort_keys=True)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
