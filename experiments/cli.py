"""What every Hydra entry point shares: one-line errors, recorded multirun failures, folder names.

- ``hydra_task(body)`` wraps a task function. In a single run a named error
  (``experiments.errors``) is one line on stderr and exit status 2; other
  errors keep their traceback. In a multirun no job ever raises (Hydra's
  sweepers stop at the first failed job): the failure is recorded as
  ``failed`` in the job's ``run.json`` — also when it happened before any
  work, e.g. a bad value — and the other jobs go on.
- ``MultirunReport`` (``hydra.callbacks`` in ``conf/repair.yaml`` and
  ``conf/localize.yaml``) names the sweep folder after the sweep's own
  overrides when it starts, so separate sweeps never share a folder while
  re-running a command resumes its own; when the sweep ends it prints the
  failed cells and exits 1.
- The ``beacon_dirname`` resolver turns Hydra's ``override_dirname`` into one
  folder name: a ``/`` in an override's value (a path) must not nest folders.
"""
from __future__ import annotations

import functools
import hashlib
import json
import logging
import sys
import traceback
from pathlib import Path
from typing import Any, Callable

from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf, open_dict

from experiments.errors import full_error, is_named, one_line

log = logging.getLogger("beacon")
# Overrides that never change results (and must not split a sweep into two folders).
NEUTRAL_KEYS = ("work_dir", "cache_dir", "share_validation", "score_workers", "progress", "print_table",
                "hydra.launcher.n_jobs")
_MAX_NAME = 120  # bytes of a folder name before it is shortened with a hash (file systems allow 255)


def dirname(text: str) -> str:
    """``text`` as a single path component: ``%`` and ``/`` escaped URL-style (reversible, so never ambiguous)."""
    name = str(text).replace("%", "%25").replace("/", "%2F").replace("\\", "%5C")
    if len(name.encode()) > _MAX_NAME:
        digest = hashlib.sha256(name.encode()).hexdigest()[:12]
        name = name.encode()[: _MAX_NAME - 13].decode(errors="ignore") + "-" + digest
    return name


def config_options(group: str, rule: str = "") -> str:
    """The options of config ``group`` one entry point uses, for its ``--help`` (``hydra.help.template``).

    ``rule``: ``kind=a|b`` keeps options whose ``kind`` key is one of those (tasks), ``prefix=p`` the
    names starting with p, ``!prefix=p`` the others (experiment presets are named after their runner).
    """
    from experiments.job import PROJECT_ROOT

    names = []
    for path in sorted((PROJECT_ROOT / "conf" / group).glob("*.yaml")):
        name, key, _, value = path.stem, *rule.partition("=")
        if key == "kind" and str(OmegaConf.load(path).get("kind")) not in value.split("|"):
            continue
        if key == "prefix" and not name.startswith(value) or key == "!prefix" and name.startswith(value):
            continue
        names.append(name)
    return ", ".join(names)


if not OmegaConf.has_resolver("beacon_dirname"):
    OmegaConf.register_new_resolver("beacon_dirname", dirname)
if not OmegaConf.has_resolver("beacon_options"):
    OmegaConf.register_new_resolver("beacon_options", config_options)


def resolve_input(path: str) -> str:
    """An input path from the config, made absolute: relative to the launch directory, as Hydra does.

    The committed configs name repository files relative to the repository root
    (``experiments/data/…``, ``../shared/data/…``); when the command runs from another
    directory and the path is not there, the repository root's copy is used, so the
    entry points work from anywhere. Paths that exist where the user is always win.
    """
    from hydra.utils import to_absolute_path

    from experiments.job import PROJECT_ROOT

    resolved = Path(to_absolute_path(path))
    if not Path(path).is_absolute() and not resolved.exists() and (PROJECT_ROOT / path).exists():
        return str((PROJECT_ROOT / path).resolve())
    return str(resolved)


def sweep_folder(hc: HydraConfig) -> Path | None:
    """The multirun's folder, absolute (relative to the launch directory, as Hydra makes it); None in a single run."""
    from hydra.utils import to_absolute_path

    if hc.mode != RunMode.MULTIRUN:
        return None
    return Path(to_absolute_path(str(hc.sweep.dir)))


def hydra_task(body: Callable[[DictConfig], Any]) -> Callable[[DictConfig], Any]:
    """Wrap a Hydra task function with Beacon's error rules (module docstring)."""

    @functools.wraps(body)
    def task(cfg: DictConfig) -> Any:
        hc = HydraConfig.get()
        try:
            return body(cfg)
        except Exception as exc:
            named = is_named(exc)
            if hc.mode == RunMode.MULTIRUN:
                job_dir = Path(hc.runtime.output_dir)
                record_failure(job_dir / "run", cfg, list(hc.overrides.task), exc, named)
                if named and not full_error():
                    print(f"error: job {hc.job.override_dirname or job_dir.name}: {one_line(exc)}", file=sys.stderr)
                else:  # a bug: its traceback, while the other jobs go on
                    traceback.print_exception(exc, file=sys.stderr)
                return None
            if named and not full_error():
                print(f"error: {one_line(exc)}", file=sys.stderr)
                sys.exit(2)
            raise

    return task


def record_failure(run_dir: Path, cfg: DictConfig, overrides: list[str], exc: BaseException, named: bool) -> None:
    """Make sure ``run_dir/run.json`` says ``failed`` with the one-line reason.

    A job that failed after opening its RunWriter has recorded that already. One
    that failed before (a bad value, a missing file) gets a run.json of its own,
    with its composed config and no inputs; ``discard_setup_failure`` clears it
    when the same job is run again.
    """
    from beacon.artifacts.runfile import RUN_JSON

    from experiments.job import RunSpec, open_writer

    path = run_dir / RUN_JSON
    try:
        if path.is_file() and json.loads(path.read_text(encoding="utf-8")).get("status") == "failed":
            return
        plain = OmegaConf.to_container(cfg, resolve=False)  # resolve=False: a bad interpolation is the error itself
        plain.pop("hydra", None)
        writer = open_writer(RunSpec(run_dir, config=plain, scientific=plain, overrides=overrides))
        writer.fail(exc, message=one_line(exc) if named else None)
    except Exception as inner:  # the failure stays visible on stderr and in the end-of-sweep summary
        log.error("could not record the failure in %s: %s", path, one_line(inner))


def discard_setup_failure(run_dir: Path) -> None:
    """Remove a run.json left by ``record_failure`` for a job that failed before any work.

    Such a run.json has no inputs (every real run records at least its task file's
    hash) and no rows: nothing was computed, so nothing is lost, and the job can
    start afresh instead of being refused as a different run.
    """
    from beacon.artifacts.runfile import MANIFEST_NAME, RUN_JSON

    path = run_dir / RUN_JSON
    records = run_dir / "records.jsonl"
    if not path.is_file() or (run_dir / MANIFEST_NAME).exists():
        return
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return
    if meta.get("status") == "failed" and meta.get("inputs") == {} and (
            not records.exists() or records.stat().st_size == 0):
        path.unlink()
        records.unlink(missing_ok=True)


def sweep_folder_name(task_overrides: list[str]) -> str:
    """The sweep's own folder: its task overrides (sorted, neutral keys left out) as one folder name."""
    kept = sorted(o for o in task_overrides if o.split("=", 1)[0].lstrip("+~") not in NEUTRAL_KEYS)
    return dirname(",".join(kept) or "defaults")


def job_status(job_dir: Path) -> tuple[str, str]:
    """(status, reason) of one multirun job folder, from its run.json alone."""
    path = job_dir / "run" / "run.json"
    if not path.is_file():
        return "missing", "no run/run.json (the job died before recording anything)"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        return "unreadable", f"{path}: {exc}"
    error = meta.get("error") or {}
    return str(meta.get("status")), str(error.get("message") or "")


class MultirunReport(Callback):
    """Names the sweep folder at the start of a multirun; at its end reports failed jobs and exits 1."""

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        hydra_overrides = list(config.hydra.overrides.hydra)
        if any(o.split("=", 1)[0] == "hydra.sweep.dir" for o in hydra_overrides):
            return  # the user chose the folder
        folder = str(Path(str(config.hydra.sweep.dir)) / sweep_folder_name(list(config.hydra.overrides.task)))
        quoted = "'" + folder.replace("\\", "\\\\").replace("'", "\\'") + "'"
        with open_dict(config):
            OmegaConf.set_readonly(config.hydra, False)
            config.hydra.sweep.dir = folder
            # Every job's config is composed again from these overrides (Hydra's load_sweep_config),
            # so the folder must travel with them to reach the jobs, in this process or another.
            config.hydra.overrides.hydra.append(f"hydra.sweep.dir={quoted}")

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        sweep = Path(str(config.hydra.sweep.dir))
        jobs = sorted(p.parent for p in sweep.glob("*/.hydra"))
        failed = [(job, *job_status(job)) for job in jobs]
        failed = [f for f in failed if f[1] != "complete"]
        if not failed:
            return
        print(f"\n{len(failed)} of {len(jobs)} jobs in {sweep} did not complete:", file=sys.stderr)
        for job, status, reason in failed:
            print(f"  {status}: {job.name}: {reason}", file=sys.stderr)
        print("(the complete jobs are kept; fix the cause and re-run the same command to resume)", file=sys.stderr)
        sys.stderr.flush()
        sys.exit(1)
