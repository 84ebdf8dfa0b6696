"""The retune sweep's grid: every configuration is a real override of a constant the recipe sets (no typo that
would silently score the base again), and each moves exactly one constant off the recipe's value."""
from beacon.retrieval.recipes import method_params
from experiments.benchmarks.localize_methods import parse_method
from experiments.benchmarks.retune_grid import GROUPS, specs


def test_every_spec_moves_one_constant_of_the_recipe():
    grid = specs("hybrid_follow", GROUPS["all"])
    assert grid[0] == "hybrid_follow" and len(set(grid)) == len(grid)
    base = method_params("hybrid_follow")
    for spec in grid[1:]:
        name, overrides = parse_method(spec)
        assert name == "hybrid_follow" and len(overrides) == 1
        (key, value), = overrides.items()
        assert key in base, key  # the recipe (or what it inherits) sets it
        assert value != base[key]
        moved = method_params(name, overrides)
        assert {k for k in moved if moved[k] != base[k]} == {key}
