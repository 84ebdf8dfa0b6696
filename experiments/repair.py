"""``python -m experiments.repair``: repair runs and sweeps (Hydra entry point).

    python -m experiments.repair -m method=bm25,bca budget=2000,4000 query=vague
    python -m experiments.repair +experiment=control_grid

The config is validated against ``experiments.schema`` before any work; the
job writes a sealed run folder under its Hydra output directory.
"""
from __future__ import annotations

from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from experiments.cli import hydra_task, resolve_input, sweep_folder
from experiments.runner import execute, print_table
from experiments.schema import check_values, validate


def run(cfg: DictConfig) -> None:
    hc = HydraConfig.get()
    valid = validate(cfg)
    check_values(valid)
    summary = execute(valid, job_dir=Path(hc.runtime.output_dir),
                      overrides=list(hc.overrides.task), resolve_path=resolve_input,
                      sweep_dir=sweep_folder(hc))
    run_dir = Path(hc.runtime.output_dir) / "run"
    # Also when the run was already complete (re-running a sealed config just shows it again).
    if valid.print_table and (summary is not None or (run_dir / "MANIFEST.sha256").exists()):
        print_table(run_dir)


@hydra.main(version_base="1.3", config_path="../conf", config_name="repair")
@hydra_task
def main(cfg: DictConfig) -> None:
    run(cfg)


if __name__ == "__main__":
    main()
