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
from hydra.types import RunMode
from hydra.utils import to_absolute_path
from omegaconf import DictConfig, OmegaConf
from tqdm import tqdm

from beacon.artifacts import RunWriter, code_state, package_versions, sha256_file
from beacon.artifacts.errors import CodeStateError
from beacon.localize.evaluate import evaluate
from beacon.localize.gold import gold_from_patch
from beacon.localize.instances import SnapshotCache, load_instances
from beacon.retrieval import get_method
from experiments.runner import PACKAGES, PROJECT_ROOT
from experiments.schema import LocalizeConf, validate

log = logging.getLogger("beacon")
_NOT_SCIENTIFIC = {"cache_dir", "progress", "print_table", "paper"}


def run_localize(cfg: DictConfig, *, job_dir: Path, overrides: list[str], resolve_path, multirun: bool) -> Path | None:
    if cfg.tasks.kind != "swebench" or not (cfg.tasks.instances and cfg.tasks.repos_dir):
        raise ValueError("tasks: the localization runner needs kind=swebench with instances and repos_dir "
                         "(e.g. tasks=swebench_lite_dev)")
    params = dict(cfg.method.params)
    get_method(cfg.method.name, **params)  # unknown method or bad params: fail before any work
    instances_path = Path(resolve_path(cfg.tasks.instances))
    instances = load_instances(instances_path)
    if cfg.tasks.get("split"):  # mined tasks carry split tune/test (beacon.tasks.mine)
        instances = [inst for inst in instances if inst.extra.get("split") == cfg.tasks.split]
    if cfg.tasks.limit is not None:
        instances = instances[: cfg.tasks.limit]
    task_set = cfg.tasks.name + (f"/{cfg.tasks.split}" if cfg.tasks.get("split") else "")
    repos_dirs = [Path(resolve_path(d)) for d in [cfg.tasks.repos_dir, *cfg.tasks.get("repos_dirs", [])]]
    cache = SnapshotCache(Path(resolve_path(cfg.cache_dir)), repos_dirs)
    try:
        code = code_state(PROJECT_ROOT)
    except CodeStateError:
        code = {"commit": None, "dirty": None}
    plain = OmegaConf.to_container(cfg, resolve=True)
    scientific = {k: v for k, v in plain.items() if k not in _NOT_SCIENTIFIC}
    run_dir = job_dir / "run"
    writer = RunWriter(run_dir, config=plain, scientific=scientific, overrides=overrides,
                       inputs={"instances": sha256_file(instances_path)}, code=code,
                       packages=package_versions(PACKAGES))
    try:
        if writer.sealed:
            return run_dir
        done = writer.finished_keys()
        param_text = ",".join(f"{k}={v}" for k, v in sorted(params.items()))
        show = cfg.progress if cfg.progress is not None else (sys.stderr.isatty() and not os.environ.get("CI"))
        for inst in tqdm(instances, disable=not show, unit="instance", leave=False):
            key = f"{inst.instance_id}|{cfg.method.name}({param_text})|{cfg.budget}"
            if key in done:
                continue
            base = {"key": key, "kind": "localize", "instance_id": inst.instance_id, "repo": inst.repo,
                    "base_commit": inst.base_commit, "method": cfg.method.name, "method_params": params,
                    "budget": cfg.budget}
            # which task set (and split) the row belongs to, so reports can group by it; optional
            # for readers (paper.localization), since runs before it lack the field
            base["task_set"] = task_set
            try:
                graph = cache.graph(inst.repo, inst.base_commit)
                gold = gold_from_patch(inst.instance_id, inst.patch, cache.snapshot(inst.repo, inst.base_commit))
                record = {**evaluate(graph, inst.instance_id, inst.problem_statement, gold, cfg.method.name,
                                     cfg.budget, params), **base, "error": None}
            except Exception as exc:  # recorded; the other instances go on
                record = {**base, "metrics": None, "error": f"{type(exc).__name__}: {exc}"}
            writer.append(record)
        writer.seal()
        return run_dir
    except Exception as exc:
        writer.fail(exc)
        log.error("job failed: %s: %s", type(exc).__name__, exc)
        if not multirun:
            raise
        return None
    finally:
        writer.close()


def print_summary(run_dir: Path) -> None:
    import json

    rows = [json.loads(x) for x in (run_dir / "records.jsonl").read_text().splitlines() if x]
    names = ("file_acc@1", "file_acc@5", "function_acc@5", "function_acc@10", "budget_function_recall")
    print(f"{len(rows)} instances, {sum(1 for r in rows if r.get('error'))} errors; run folder {run_dir}")
    for name in names:
        values = [r["metrics"][name] for r in rows if r.get("metrics") and r["metrics"].get(name) is not None]
        mean = sum(values) / len(values) if values else float("nan")
        print(f"  {name:<24} {mean:6.3f}  (n={len(values)})")


@hydra.main(version_base="1.3", config_path="../conf", config_name="localize")
def main(cfg: DictConfig) -> None:
    hc = HydraConfig.get()
    valid = validate(cfg, LocalizeConf)
    run_dir = run_localize(valid, job_dir=Path(hc.runtime.output_dir), overrides=list(hc.overrides.task),
                           resolve_path=to_absolute_path, multirun=hc.mode == RunMode.MULTIRUN)
    if run_dir is not None and valid.print_table:
        print_summary(run_dir)


if __name__ == "__main__":
    main()
