"""``python -m experiments.reproduce RUN_DIR``: re-run an archived run from its frozen config alone.

``RUN_DIR`` is a run folder, or a folder of run folders (a pilot archive such as
``outputs/archive/boltons_pilot`` holds ``controls/`` and ``model/``); each run is
reproduced on its own and any difference fails the whole command.

1. The archive must verify (``MANIFEST.sha256``: no changed, missing or extra byte).
2. Its ``run.json`` config is validated and the run is executed again into a
   fresh folder (``--out``, kept; else a temporary folder removed at exit,
   the verdict being the output): completions come from the archive's ``completions.jsonl``
   through the ``replay`` provider (no model is called; the oracle control
   is deterministic and re-rendered), pinned inputs are checked against the
   hashes recorded in ``run.json``.
3. Every scored field of every record is compared; any difference is printed
   as a readable diff and the exit status is 1.

``--sample N [--seed S]`` re-runs only N of each run's archived rows, drawn with a
seeded generator (a reviewer's spot check of a large archive; the test suite's
check of the archives in ``outputs/archive``): those rows are scored as in the full
run and compared field by field, and the verdict names the sample.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from omegaconf import OmegaConf

from beacon.artifacts import RunWriter, verify
from beacon.providers import ReplayProvider
from beacon.repair.job import oracle_for, run_repair_job
from beacon.repair.prepare import RunSettings
from beacon.scratch import owned_tempdir
from experiments.errors import full_error, is_named, one_line
from experiments.runner import attempt_specs, load_tasks, run_limits, scientific_config
from experiments.schema import check_values, validate

# Facts about the machine, not results: a run without bubblewrap, or with its Python
# installed elsewhere (other sandbox mounts), still reproduces.
UNSCORED = {"sandboxed"}
UNSCORED_NESTED = {("tests", "sandboxed"), ("checks", "sandbox"), ("checks", "limits")}  # machine facts
# Row fields added by later records schemas (checks: 2, structured_output: 3). An archived
# row without one predates it: the reproduction's new field has nothing to be compared with.
LATER_FIELDS = ("checks", "structured_output")
# Nested fields added later (checks.addopts: 5, checks.oracle: 6, checks.replay: 7, checks.plain: 8): compared only
# when the archived row has them.
LATER_NESTED = (("checks", "addopts"), ("checks", "oracle"), ("checks", "replay"), ("checks", "plain"))


def _scored(record: dict, *, absent: frozenset = frozenset()) -> dict:
    """The fields a reproduction must match; ``absent``: later fields the archived row predates."""
    out = {k: v for k, v in record.items() if k not in UNSCORED and k not in absent}
    for outer, inner in (*UNSCORED_NESTED, *(n for n in LATER_NESTED if n in absent)):
        if isinstance(out.get(outer), dict):
            out[outer] = {k: v for k, v in out[outer].items() if k != inner}
    return out


def _load(path: Path) -> dict[str, dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {r["key"]: r for r in rows}


def diff_records(expected: dict[str, dict], actual: dict[str, dict]) -> list[str]:
    lines: list[str] = []
    for key in sorted(set(expected) | set(actual)):
        if key not in actual:
            lines.append(f"- {key}: missing from the reproduction")
            continue
        if key not in expected:
            lines.append(f"+ {key}: not in the archive")
            continue
        absent = frozenset([*(f for f in LATER_FIELDS if f not in expected[key]),
                            *((o, i) for o, i in LATER_NESTED
                              if isinstance(expected[key].get(o), dict) and i not in expected[key][o])])
        a, b = _scored(expected[key], absent=absent), _scored(actual[key], absent=absent)
        for field in sorted(set(a) | set(b)):
            if a.get(field) != b.get(field):
                old, new = json.dumps(a.get(field), sort_keys=True), json.dumps(b.get(field), sort_keys=True)
                lines.append(f"~ {key}\n    {field}: archived {old[:300]}\n    {' ' * len(field)}  reproduced {new[:300]}")
    return lines


def sample_keys(archived: dict[str, dict], sample: int | None, seed: int) -> frozenset[str] | None:
    """``sample`` of the archived row keys, drawn with ``random.Random(seed)``; None: every row."""
    if sample is None or sample >= len(archived):
        return None
    return frozenset(random.Random(seed).sample(sorted(archived), sample))


def reproduce(archive: Path, out: Path, *, progress: bool | None = None, sample: int | None = None,
              seed: int = 0, workers: int = 1) -> list[str]:
    """Re-run ``archive`` into ``out``; the differences from the archived rows (empty: reproduced).

    ``workers``: test runs at once (:func:`beacon.repair.job.run_repair_job`; the rows do not depend on it)."""
    problems = verify(archive)
    if problems:
        return ["archive does not verify:"] + [f"  {p}" for p in problems]
    meta = json.loads((archive / "run.json").read_text(encoding="utf-8"))
    config = meta["config"]
    if "structured_output" not in config.get("provider", {}):
        # Archived before structured output existed: those runs sent no schema.
        config = {**config, "provider": {**config["provider"], "structured_output": "off"}}
    with owned_tempdir("beacon-reproduce-") as work:  # snapshots and scratch; the reproduction itself is in ``out``
        return _reproduce(archive, out, meta, config, work, progress, sample_keys(_load(archive / "records.jsonl"),
                                                                                  sample, seed), workers)


def _reproduce(archive: Path, out: Path, meta: dict, config: dict, work: Path, progress: bool | None,
               only_keys: frozenset[str] | None, workers: int = 1) -> list[str]:
    if config.get("tasks", {}).get("pypi"):
        # Pinned sdists are imported afresh (from the hash-checked sdist cache): the archived
        # repos_dir is a cache path of the machine that ran it, and the commit is reproducible.
        config = {**config, "tasks": {**config["tasks"], "repos_dir": str(work / "repos")}}
    cfg = validate(OmegaConf.create(config))
    check_values(cfg)
    tasks, resolve, inputs = load_tasks(cfg, work, lambda p: p)
    changed = [f"input {name}: archived {meta['inputs'].get(name)} now {value}"
               for name, value in inputs.items() if meta["inputs"].get(name) != value]
    if changed:
        return ["pinned inputs differ from the archive:"] + [f"  {c}" for c in changed]
    if cfg.provider.name == "oracle":
        provider_for = oracle_for
    else:
        replay = ReplayProvider(archive / "completions.jsonl")
        provider_for = lambda prepared, spec: replay  # noqa: E731
    writer = RunWriter(out, config=OmegaConf.to_container(cfg), scientific=scientific_config(cfg),
                       overrides=meta.get("overrides", []), inputs=inputs,
                       code={"commit": None, "dirty": None}, packages={})
    try:
        settings = RunSettings(allow_local_execution=cfg.allow_local_execution, timeout_s=cfg.timeout_s,
                               sandbox=cfg.sandbox, network=cfg.network, limits=run_limits(cfg))
        run_repair_job(tasks, resolve, attempt_specs(cfg), writer=writer, work_dir=work / "tasks",
                       settings=settings, provider_for=provider_for, dry_run=cfg.dry_run, progress=progress,
                       only_keys=only_keys, workers=workers)
        writer.seal()
    finally:
        writer.close()
    archived = _load(archive / "records.jsonl")
    if only_keys is not None:
        archived = {key: row for key, row in archived.items() if key in only_keys}
    return diff_records(archived, _load(out / "records.jsonl"))


def archived_runs(archive: Path) -> list[Path]:
    """``archive`` itself when it is a run, else its run folders (a pilot: controls + model trial)."""
    if (archive / "run.json").is_file():
        return [archive]
    runs = sorted(p.parent for p in archive.glob("*/run.json"))
    if not runs:
        raise FileNotFoundError(f"{archive}: neither a run folder (run.json) nor a folder of runs (*/run.json)")
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.reproduce", description=__doc__.splitlines()[0])
    parser.add_argument("archive", type=Path,
                        help="an archived run folder (with run.json and MANIFEST.sha256), or a folder of them")
    parser.add_argument("--out", type=Path, default=None, help="where to write (and keep) the reproduction "
                        "(default: a temporary folder, removed at exit)")
    parser.add_argument("--sample", type=_positive, default=None, metavar="N",
                        help="re-run only N of each run's archived rows, drawn at random (default: every row)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of --sample's draw (default 0)")
    parser.add_argument("--workers", type=_at_least_one("test runs"), default=1, metavar="N",
                        help="test runs at once (default 1); the reproduced rows do not depend on it")
    args = parser.parse_args(argv)
    try:
        runs = archived_runs(args.archive)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    draw = {"sample": args.sample, "seed": args.seed, "workers": args.workers}
    if args.out is not None:
        return _reproduce_all(runs, args.out, kept=True, **draw)
    with owned_tempdir("beacon-reproduction-") as root:  # the verdict is the output; --out keeps the folder
        return _reproduce_all(runs, root, kept=False, **draw)


def _at_least_one(what: str):
    """An argparse type: a whole number of ``what`` >= 1."""
    def parse(text: str) -> int:
        value = int(text)
        if value < 1:
            raise argparse.ArgumentTypeError(f"expected a whole number of {what} >= 1, got {text}")
        return value
    return parse


_positive = _at_least_one("rows")


def _reproduce_all(runs: list[Path], root: Path, *, kept: bool, sample: int | None = None, seed: int = 0,
                   workers: int = 1) -> int:
    where = "reproduction in {out}" if kept else "reproduction removed; --out DIR keeps it"
    failed = False
    for run in runs:
        out = root / (run.name if len(runs) > 1 else "run")
        try:
            differences = reproduce(run, out, sample=sample, seed=seed, workers=workers)
        except Exception as exc:
            if not is_named(exc) or full_error():
                raise
            print(f"error: {run}: {one_line(exc)}", file=sys.stderr)
            return 2
        if differences:
            failed = True
            print(f"NOT reproduced: {run} ({where.format(out=out)})", file=sys.stderr)
            print("\n".join(differences), file=sys.stderr)
            continue
        rows, archived = len(_load(out / "records.jsonl")), len(_load(run / "records.jsonl"))
        count = f"{rows} records" if rows == archived else \
            f"{rows} of {archived} records (a sample: --sample {sample} --seed {seed})"
        print(f"reproduced: {run} — {count}, every scored field identical ({where.format(out=out)})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
