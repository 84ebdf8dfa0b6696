"""Context and trajectory metrics (the ``beacon`` metric profile) and ``edit_loc``.

* Context (``contextbench.py`` is ContextBench's own evaluator, reproduced,
  and the README lists where the two differ): coverage (recall) and precision
  of a predicted context at file, symbol (gold-rule unit), span (bytes) and
  line grain. Predicted line spans are clipped to their file at the base
  commit (a span in a file that does not exist there counts as a predicted
  file but adds no lines or bytes); bytes are whole lines of the UTF-8
  indexed text, as ``Gold.byte_spans``. Retrieval scores use
  ``gold.files(added=False)`` (an added file cannot be retrieved from the base);
  ``edit_loc``, which compares two patches, counts added files on both sides.
* Trajectories: coverage after step ``i`` is that of the union of steps
  ``1..i``. ``auc_coverage`` is the trapezoid area under that curve against
  the normalised step index ``x_i = (i-1)/(N-1)`` (area in [0, 1]; one step:
  its coverage). Redundancy is ``sum_{i>=2} |S_i ∩ (S_1 ∪ … ∪ S_{i-1})| /
  sum_i |S_i|`` where ``S_i`` is what step ``i`` predicts (files, symbols,
  lines or bytes, each step's own overlaps merged): the share of predicted
  material that an earlier step had already predicted.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Collection, Iterable, Mapping, Sequence

import numpy as np

from .gold import Gold, gold_from_patch
from .hunks import line_byte_ranges, read_base_text
from .intervals import merge
from .spans import (
    Intervals, line_intervals, merged_spans, ratio, set_scores, span_overlap, span_scores, span_size, span_union,
)

GRAINS = ("file", "symbol", "span", "line")


def parse_diff(diff_text: str, repo_dir: Path | str, *, instance_id: str = "<diff>") -> dict[str, list[tuple[int, int]]]:
    """Edited ``[start, end)`` byte ranges per original file (whole lines; gold anchor rules for insertions)."""
    return gold_from_patch(instance_id, diff_text, Path(repo_dir)).byte_spans(repo_dir)


@dataclass(frozen=True)
class ContextPrediction:
    """What a method or agent step retrieved: files, symbol ids, inclusive 1-based line spans."""

    files: frozenset[str] = frozenset()
    symbols: frozenset[str] = frozenset()
    line_spans: Mapping[str, tuple[tuple[int, int], ...]] = field(default_factory=dict, hash=False)

    def all_files(self) -> set[str]:
        """Named files plus the files of spans (reading a span means retrieving its file)."""
        return set(self.files) | {p for p, spans in self.line_spans.items() if spans}

    def __or__(self, other: ContextPrediction) -> ContextPrediction:
        paths = self.line_spans.keys() | other.line_spans.keys()
        spans = {p: tuple(merge([*self.line_spans.get(p, ()), *other.line_spans.get(p, ())])) for p in paths}
        return ContextPrediction(self.files | other.files, self.symbols | other.symbols, spans)


class _Base:
    """Texts of the base snapshot, read once per scoring call."""

    def __init__(self, repo_dir: Path | str):
        self.repo_dir, self.texts = Path(repo_dir), {}

    def text(self, path: str) -> str | None:
        if path not in self.texts:
            self.texts[path] = read_base_text(self.repo_dir, path)
        return self.texts[path]

    def clipped(self, spans: Mapping[str, Iterable[tuple[int, int]]]) -> tuple[Intervals, Intervals]:
        """(line intervals, byte intervals) of ``spans``, clipped to the files at the base commit."""
        lines, chunks = {}, {}
        for path, items in spans.items():
            text = self.text(path)
            if text is None:
                continue
            count = len(text.split("\n")) - (1 if text.endswith("\n") or not text else 0)
            kept = [(max(s, 1), min(e, count)) for s, e in items if max(s, 1) <= min(e, count)]
            lines[path] = [(s, e + 1) for s, e in kept]
            chunks[path] = line_byte_ranges(text, kept)
        return merged_spans(lines), merged_spans(chunks)


def _gold_sets(gold: Gold, repo_dir: Path | str) -> dict:
    return {"file": set(gold.files(added=False)), "symbol": set(gold.units), "line": line_intervals(gold.line_spans_init()),
            "span": merged_spans(gold.byte_spans(repo_dir))}


def _context_scores(pred: ContextPrediction, target: dict, base: _Base) -> dict[str, float | None]:
    lines, chunks = base.clipped(pred.line_spans)
    pairs = {"file": set_scores(pred.all_files(), target["file"]),
             "symbol": set_scores(pred.symbols, target["symbol"]),
             "span": span_scores(chunks, target["span"]), "line": span_scores(lines, target["line"])}
    out = {}
    for grain in GRAINS:
        out[f"{grain}_coverage"], out[f"{grain}_precision"] = pairs[grain]
    return out


def context_scores(pred: ContextPrediction, gold: Gold, repo_dir: Path | str) -> dict[str, float | None]:
    """``{grain}_coverage`` and ``{grain}_precision`` for grains file, symbol, span (bytes) and line."""
    return _context_scores(pred, _gold_sets(gold, repo_dir), _Base(repo_dir))


def auc_coverage(coverages: Sequence[float | None]) -> float | None:
    """Trapezoid area under per-step coverage over ``x = (i-1)/(N-1)``; one step: its value."""
    if not coverages or any(c is None for c in coverages):
        return None
    if len(coverages) == 1:
        return float(coverages[0])
    ys = np.asarray(coverages, dtype=float)
    return float(((ys[1:] + ys[:-1]) / 2).sum() / (len(ys) - 1))


def redundancy(steps: Sequence[Collection]) -> float | None:
    """Share of per-step predicted items already predicted by an earlier step (see module docstring)."""
    seen: set = set()
    repeated = total = 0
    for step in steps:
        items = set(step)
        repeated += len(items & seen)
        total += len(items)
        seen |= items
    return ratio(repeated, total)


def span_redundancy(steps: Sequence[Intervals]) -> float | None:
    """``redundancy`` measured in interval length (lines or bytes) instead of items."""
    seen: Intervals = {}
    repeated = total = 0
    for step in steps:
        step = merged_spans(step)
        repeated += span_overlap(step, seen)
        total += span_size(step)
        seen = span_union(seen, step)
    return ratio(repeated, total)


def trajectory_scores(steps: Sequence[ContextPrediction], gold: Gold, repo_dir: Path | str) -> dict[str, float | None]:
    """``auc_{grain}`` of cumulative coverage and ``redundancy_{grain}`` over the steps."""
    target, base = _gold_sets(gold, repo_dir), _Base(repo_dir)
    curve, so_far = [], ContextPrediction()
    for step in steps:
        so_far = so_far | step
        curve.append(_context_scores(so_far, target, base))
    out = {f"auc_{g}": auc_coverage([c[f"{g}_coverage"] for c in curve]) for g in GRAINS}
    clipped = [base.clipped(step.line_spans) for step in steps]
    out["redundancy_file"] = redundancy([step.all_files() for step in steps])
    out["redundancy_symbol"] = redundancy([step.symbols for step in steps])
    out["redundancy_span"] = span_redundancy([chunks for _, chunks in clipped])
    out["redundancy_line"] = span_redundancy([lines for lines, _ in clipped])
    return out


def edit_loc(model_patch: str, gold: Gold, repo_dir: Path | str) -> dict[str, float | None]:
    """Recall and precision of a model patch's edit locations (files, units, original lines) against gold.

    The model patch is read with the gold rules (``gold_from_patch``); an
    empty patch edits nothing. A patch that does not apply at the base
    commit raises the ``GoldError`` subclass saying why.
    """
    if model_patch.strip():
        pred = gold_from_patch(gold.instance_id, model_patch, Path(repo_dir))
    else:
        pred = Gold(gold.instance_id, ())
    out = {}
    for grain, (recall, precision) in {
        "file": set_scores(pred.files(), gold.files()),
        "symbol": set_scores(pred.units, gold.units),
        "line": span_scores(line_intervals(pred.line_spans_init()), line_intervals(gold.line_spans_init())),
    }.items():
        out[f"editloc_{grain}_recall"], out[f"editloc_{grain}_precision"] = recall, precision
    return out
