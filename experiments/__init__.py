"""Entry points for Beacon runs: Hydra runners, plus speed and memory benchmarks."""
