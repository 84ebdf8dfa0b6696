"""``python -m experiments.control``: the offline control benchmark (the README's main job).

Creates a tiny git repository with a real test suite, proves the original
tests pass and each mutation fails them, then scores the KNOWN repair
(oracle provider) through the full harness across every retrieval method,
several budgets and every edit format, and prints a table. No network, no
key. Its results are HARNESS CONTROLS, not model results.
"""
from __future__ import annotations

import hydra
from omegaconf import DictConfig

from experiments.cli import hydra_task
from experiments.repair import run


@hydra.main(version_base="1.3", config_path="../conf", config_name="control")
@hydra_task
def main(cfg: DictConfig) -> None:
    run(cfg)


if __name__ == "__main__":
    main()
