"""Score agent trajectories as localization rows, under a named metric profile.

One row per trajectory and profile, shaped like the localization runner's
rows (``kind: "localize"``, ``metrics`` with the ranking and budget keys) so
``paper.build`` tables agents beside retrieval methods. The method is
``<agent>/<profile>`` and the row carries ``metric_profile``, so every row
and table names the profile that produced its numbers.

Profiles (see the README, "Metric profiles"):

* ``contextbench`` (``contextbench.py``): the public reference evaluator,
  reproduced exactly; its full output is kept in the row's ``contextbench``
  field (with the sizes behind every ratio) and its ratios in ``metrics`` as
  ``contextbench_*``. A trajectory the reference refuses (an empty final
  context) is a row with that ``error``.
* ``beacon`` (``context_metrics.py``): Beacon's context metrics, under names that do
  not claim to be ContextBench's: ``beacon_{file,unit,span,line}_{coverage,
  precision}``, ``beacon_auc_trapezoid_*``, ``beacon_redundancy_*``,
  ``beacon_edit_{file,unit,line}_{recall,precision}``.

Both profiles also give the LocAgent ranking metrics (``file_acc@k`` …) of the
trajectory's retrieval order: files, and the units of the lines read (gold
rule), in order of first appearance, steps first, then the final context.
``budget_*`` are null: an agent has no token budget (rows carry budget 0).
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ..graph.symbols import symbol_id
from .contextbench import PROFILE as CONTEXTBENCH, GRAINS, ReferenceGold, evaluate_instance
from .evaluate import ranking_metrics
from .gold import FUNCTION_KINDS, Gold, GoldError, units_of_lines
from .importers import ImportFormatError, Trajectory, trajectory_from_record
from .context_metrics import ContextPrediction, context_scores, edit_loc, trajectory_scores
from .metrics import dedupe, rank_modules

BEACON = "beacon"
PROFILES = (CONTEXTBENCH, BEACON)
BUDGET_KEYS = ("budget_file_recall", "budget_function_recall")


def contextbench_metrics(result: Mapping) -> dict[str, float]:
    """The reference output's ratios as flat ``contextbench_*`` metrics."""
    out = {}
    for grain in GRAINS:
        out[f"contextbench_{grain}_coverage"] = result["final"][grain]["coverage"]
        out[f"contextbench_{grain}_precision"] = result["final"][grain]["precision"]
    for grain in GRAINS:
        out[f"contextbench_auc_{grain}"] = result["trajectory"]["auc_coverage"][grain]
        out[f"contextbench_redundancy_{grain}"] = result["trajectory"]["redundancy"][grain]
    if "editloc" in result:
        out["contextbench_editloc_recall"] = result["editloc"]["recall"]
        out["contextbench_editloc_precision"] = result["editloc"]["precision"]
    return out


_BEACON_NAMES = {"symbol": "unit"}  # Beacon's symbol grain counts gold-rule units, not definition nodes


def beacon_metrics(traj: Trajectory, gold: Gold, repo: Path) -> tuple[dict[str, float | None], str | None]:
    """Beacon's context metrics of a trajectory under ``beacon_*`` names, and the EditLoc error if any."""
    cache: dict = {}
    with_units = [ContextPrediction(s.files, s.symbols | units_of_lines(repo, s.line_spans, cache=cache),
                                    s.line_spans) for s in traj.steps]
    final = traj.final
    final = ContextPrediction(final.files, final.symbols | units_of_lines(repo, final.line_spans, cache=cache),
                              final.line_spans)
    out: dict[str, float | None] = {}
    for name, value in context_scores(final, gold, repo).items():
        grain, _, measure = name.partition("_")
        out[f"beacon_{_BEACON_NAMES.get(grain, grain)}_{measure}"] = value
    for name, value in trajectory_scores(with_units, gold, repo).items():
        measure, _, grain = name.partition("_")
        measure = "auc_trapezoid" if measure == "auc" else measure
        out[f"beacon_{measure}_{_BEACON_NAMES.get(grain, grain)}"] = value
    error = None
    try:
        edits = edit_loc(traj.model_patch or "", gold, repo)
    except GoldError as exc:  # a model patch that does not apply is an outcome, kept with its reason
        edits, error = {}, str(exc)
    for grain in ("file", "symbol", "line"):
        for measure in ("recall", "precision"):
            out[f"beacon_edit_{_BEACON_NAMES.get(grain, grain)}_{measure}"] = edits.get(
                f"editloc_{grain}_{measure}")
    return out, error


def retrieval_order(traj: Trajectory, repo: Path) -> dict[str, list[str]]:
    """Files, modules and functions in order of first retrieval (steps, then the final context)."""
    cache: dict = {}
    files: list[str] = []
    units: list[str] = []
    for pred in (*traj.steps, traj.final):
        files += sorted(pred.files) + sorted(p for p, spans in pred.line_spans.items() if spans)
        for path, spans in sorted(pred.line_spans.items()):
            units += _units_in_line_order(repo, path, spans, cache)
    units = dedupe(units)
    kinds: dict[str, str] = {}
    for path, entry in cache.items():
        if entry is not None:
            kinds.update({symbol_id(path, d.qualname): d.kind for d in entry[0].defs})
    return {"files": dedupe(files), "modules": rank_modules(units),
            "functions": [u for u in units if kinds.get(u) in FUNCTION_KINDS]}


def _units_in_line_order(repo: Path, path: str, spans, cache: dict) -> list[str]:
    """Units (gold rule) of the lines of ``spans``, in line order; ``cache`` keeps each file's parse."""
    out: list[str] = []
    for start, end in spans:
        for line in range(start, end + 1):
            out += [u for u in units_of_lines(repo, {path: [(line, line)]}, cache=cache) if u not in out]
            entry = cache.get(path)
            if entry is None or line >= entry[0].line_count:
                break  # a missing or unparsable file, or past its end
    return out


def score_trajectory(record: Mapping, *, profile: str, agent: str, gold: Gold, reference_gold: ReferenceGold,
                     repo: Path) -> dict:
    """The row body (everything but ``key``/``instance_id``/``repo``/``base_commit``/``task_set``)."""
    if profile not in PROFILES:
        raise ValueError(f"metric profile {profile!r}: expected one of {', '.join(PROFILES)}")
    body: dict = {"kind": "localize", "method": f"{agent}/{profile}",
                  "method_params": {"metric_profile": profile, "source": "trajectory"},
                  "budget": 0, "metric_profile": profile, "error": None}
    try:
        traj = trajectory_from_record(record, where=str(record.get("instance_id")))
    except ImportFormatError:
        if profile != CONTEXTBENCH:
            raise
        # Beacon refuses spans the reference accepts (a line 0, an end before the start); the reference
        # profile still scores them, and only the ranking metrics, which need Beacon's reading, are null.
        traj = None
    ranked = retrieval_order(traj, repo) if traj else {"files": [], "modules": [], "functions": []}
    metrics = {**(ranking_metrics(ranked, gold) if traj else dict.fromkeys(ranking_metrics(ranked, gold))),
               **dict.fromkeys(BUDGET_KEYS)}
    body["steps"] = len(traj.steps) if traj else None
    body["ranked"] = {k: v[:100] for k, v in ranked.items()}
    if profile == CONTEXTBENCH:
        result = evaluate_instance(record, reference_gold, repo)
        body["contextbench"] = result
        if "error" in result:
            return {**body, "metrics": None, "error": result["error"]}
        body["steps"] = result["num_steps"]
        metrics.update(contextbench_metrics(result))
    else:
        beacon, error = beacon_metrics(traj, gold, repo)
        metrics.update(beacon)
        body["editloc_error"] = error
    return {**body, "metrics": metrics}
