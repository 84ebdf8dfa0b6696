"""``python -m experiments.localize``: localization runs on SWE-bench-style instances (Hydra entry point).

    python -m experiments.localize -m tasks=swebench_lite_dev method=bm25,bca budget=2000,8000
    python -m experiments.localize tasks.instances=/data/swe-bench-lite.jsonl tasks.repos_dir=/data/repos

Per instance: snapshot and graph of the base commit (cached per commit under
``cache_dir``), gold from the patch, the method on the problem statement,
every metric. A failing instance (e.g. a patch that does not apply) is a
recorded row with its error, never a crash of the sweep.
"""
from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from tqdm import tqdm

from beacon.artifacts import sha256_file
from beacon.localize.evaluate import Cell
from beacon.localize.gold import gold_from_patch
from beacon.localize.instances import SnapshotCache, load_instances
from beacon.retrieval import get_method
from experiments.cli import discard_setup_failure, hydra_task, resolve_input
from experiments.errors import UsageError, require_path
from experiments.job import RunSpec, run_job
from experiments.runner import scientific_config
from experiments.schema import LocalizeConf, check_budgets, check_methods, resolve_methods, validate

log = logging.getLogger("beacon")
# ../shared/data (beside the repository) is the team's shared data folder; a clone without it must
# know which keys to point at its own copy (README "Data").
SHARED_HINT = (" (the default configs read ../shared/data, the shared data folder beside this repository; "
               "set tasks.instances=PATH and tasks.repos_dir=DIR to use your own, see README 'Data')")


def run_localize(cfg: DictConfig, *, job_dir: Path, overrides: list[str], resolve_path) -> Path | None:
    """One localization job into ``job_dir/run``; a failure after the folder exists is recorded, then re-raised."""
    if cfg.tasks.kind != "swebench" or not (cfg.tasks.instances and cfg.tasks.repos_dir):
        raise UsageError("tasks: the localization runner needs kind=swebench with instances and repos_dir "
                         "(e.g. tasks=swebench_lite_dev)")
    check_methods(cfg)  # an unknown name fails naming its key
    # An in-job grid scores every method and budget on an instance while its graph (and the
    # methods' per-graph indexes) is loaded once; each grid method takes the params of its
    # conf/method/<name>.yaml (the one resolver, as repair), so its rows equal those of a `method=<name>` job.
    methods = resolve_methods(cfg)
    budgets = list(cfg.grid.budgets) or [cfg.budget]
    # unknown method or bad params: fail before any work; git history is read only for the inputs
    # the methods declare they need
    needs = frozenset().union(*(get_method(name, **params).needs() for name, params in methods.items()))
    check_budgets(cfg)
    instances_path = require_path("tasks.instances", cfg.tasks.instances, Path(resolve_path(cfg.tasks.instances)),
                                  hint=SHARED_HINT)
    # The folders are searched in order and one may be absent (a repository found in another is
    # fine); with none there, nothing can be found: name the key.
    folders = [cfg.tasks.repos_dir, *cfg.tasks.get("repos_dirs", [])]
    if not any(Path(resolve_path(d)).is_dir() for d in folders):
        require_path("tasks.repos_dir", cfg.tasks.repos_dir, Path(resolve_path(cfg.tasks.repos_dir)), kind="folder",
                     hint=(f" (nor is any of tasks.repos_dirs {list(folders[1:])})" if folders[1:] else "") + SHARED_HINT)
    discard_setup_failure(job_dir / "run")
    more_paths = [require_path(f"tasks.more_instances[{i}]", value, Path(resolve_path(value)), hint=SHARED_HINT)
                  for i, value in enumerate(cfg.tasks.get("more_instances", []))]
    instances = _load_all([instances_path, *more_paths])
    if cfg.tasks.get("split"):  # mined tasks carry split tune/test (beacon.tasks.mine)
        instances = [inst for inst in instances if inst.extra.get("split") == cfg.tasks.split]
    if cfg.tasks.limit is not None:
        instances = instances[: cfg.tasks.limit]
    repos_dirs = [Path(resolve_path(d)) for d in [cfg.tasks.repos_dir, *cfg.tasks.get("repos_dirs", [])]]
    cache = SnapshotCache(Path(resolve_path(cfg.cache_dir)), repos_dirs)
    for inst in instances:  # one git log per repository for all its base commits (beacon.repo.history_log)
        cache.expect(inst.repo, [inst.base_commit])
    plain = OmegaConf.to_container(cfg, resolve=True)
    scientific = scientific_config(cfg)
    if not any(plain["grid"].values()):
        scientific.pop("grid")  # no in-job grid: the config hash of runs made before grids existed
    run_dir = job_dir / "run"
    spec = RunSpec(run_dir, config=plain, scientific=scientific, overrides=overrides,
                   inputs={"instances": sha256_file(instances_path),
                           **{f"more_instances[{i}]": sha256_file(p) for i, p in enumerate(more_paths)}})
    show = cfg.progress if cfg.progress is not None else (sys.stderr.isatty() and not os.environ.get("CI"))
    task_name = cfg.tasks.name

    def body(writer) -> None:
        done = writer.finished_keys()
        for inst in tqdm(instances, disable=not show, unit="instance", leave=False):
            cells = [(name, params, budget, f"{inst.instance_id}|{name}({_param_text(params)})|{budget}")
                     for name, params in methods.items() for budget in budgets]
            cells = [c for c in cells if c[3] not in done]
            if not cells:
                continue
            try:
                graph = cache.graph(inst.repo, inst.base_commit)
                inputs = cache.inputs(inst.repo, inst.base_commit, needs)
                gold = gold_from_patch(inst.instance_id, inst.patch, cache.snapshot(inst.repo, inst.base_commit))
                failure = None
            except Exception as exc:  # recorded on every cell of the instance; the others go on
                failure = f"{type(exc).__name__}: {exc}"
            for name, params, budget, key in cells:
                # task_set: which task set and split (mined tasks: tune/test) the row belongs to, so
                # reports group by it even when one job runs both splits
                cell = Cell(key, inst.instance_id, inst.repo, inst.base_commit, name, params, budget,
                            task_name + (f"/{inst.extra['split']}" if inst.extra.get("split") else ""))
                if failure is not None:
                    writer.append(cell.failed(failure).to_json())
                    continue
                try:
                    row = cell.scored(graph, inst.problem_statement, gold, inputs)
                except Exception as exc:  # one method failing on one instance is a recorded row
                    row = cell.failed(f"{type(exc).__name__}: {exc}")
                writer.append(row.to_json())

    run_job(spec, body)
    return run_dir


def _load_all(paths: list[Path]) -> list:
    """The instances of every file in order; an instance id in two files is an error naming both."""
    instances, origin = [], {}
    for path in paths:
        for inst in load_instances(path):
            if inst.instance_id in origin:
                raise UsageError(f"tasks.more_instances: instance {inst.instance_id!r} is in both "
                                 f"{origin[inst.instance_id]} and {path}; each instance may come from one file")
            origin[inst.instance_id] = path
            instances.append(inst)
    return instances


def _param_text(params: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(params.items()))


def print_summary(run_dir: Path) -> None:
    """Mean of the headline metrics per method and budget, from the run's records alone."""
    import json

    rows = [json.loads(x) for x in (run_dir / "records.jsonl").read_text().splitlines() if x]
    names = ("file_acc@1", "file_acc@5", "function_acc@5", "function_acc@10", "budget_function_recall")
    errors = sum(1 for r in rows if r.get("error"))
    print(f"{len(rows)} rows, {len({r['instance_id'] for r in rows})} instances, {errors} errors; "
          f"run folder {run_dir}")
    print(f"  {'method':<24}{'budget':>7}" + "".join(f"{n.replace('budget_function_', 'fn_'):>19}" for n in names))
    for method, budget in sorted({(r["method"], r["budget"]) for r in rows}):
        cell = [r for r in rows if r["method"] == method and r["budget"] == budget and r.get("metrics")]
        means = []
        for name in names:
            values = [r["metrics"][name] for r in cell if r["metrics"].get(name) is not None]
            means.append(f"{sum(values) / len(values):11.3f} (n={len(values):>3})" if values else f"{'--':>19}")
        print(f"  {method:<24}{budget:>7}" + "".join(means))


@hydra.main(version_base="1.3", config_path="../conf", config_name="localize")
@hydra_task
def main(cfg: DictConfig) -> None:
    hc = HydraConfig.get()
    valid = validate(cfg, LocalizeConf)
    run_dir = run_localize(valid, job_dir=Path(hc.runtime.output_dir), overrides=list(hc.overrides.task),
                           resolve_path=resolve_input)
    if run_dir is not None and valid.print_table:
        print_summary(run_dir)


if __name__ == "__main__":
    main()
