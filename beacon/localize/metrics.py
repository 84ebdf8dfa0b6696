"""Localization metrics: rankings (LocAgent), packed budgets, context (profile ``beacon``), aggregation.

Every per-instance metric returns ``None`` when the instance is not eligible
for it (its gold set is empty, or for a precision, nothing was predicted), so
that ``aggregate`` can average over eligible instances and report how many
there were, instead of a silent 0 or 1 biasing the mean.

* Ranking: ``acc_at_k`` is LocAgent's Acc@k, a hit (1.0) when the top ``k``
  hold ``min(k, |gold|)`` gold items; ``recall_at_k``; ``mrr`` (reciprocal rank
  of the first gold item, 0.0 if none). Rankings are de-duplicated first,
  keeping first occurrences. ``rank_files`` / ``rank_modules`` /
  ``rank_functions`` turn a ranking of symbol ids into one of files, LocAgent
  modules (``path::Top``) or functions; module symbols count for files only.
* Budget: ``budget_recall`` of packed snippets ``(path, start, end)``.
* Files a patch adds cannot be retrieved from the base snapshot, so every
  retrieval metric (rankings as the importers use them, budget, context,
  trajectories) scores against ``gold.files(added=False)``; ``edit_loc``,
  which compares two patches, counts added files on both sides.
* Context (the ``beacon`` metric profile; ``contextbench.py`` is ContextBench's
  own evaluator, reproduced, and the README lists where the two differ):
  coverage (recall) and precision of a predicted context at file, symbol
  (gold-rule unit), span (bytes) and line grain. Predicted line spans are
  clipped to their file at the base commit (a span in a file that does not
  exist there counts as a predicted file but adds no lines or bytes); bytes
  are whole lines of the UTF-8 indexed text, as ``Gold.byte_spans``.
* Trajectories: coverage after step ``i`` is that of the union of steps
  ``1..i``. ``auc_coverage`` is the trapezoid area under that curve against
  the normalised step index ``x_i = (i-1)/(N-1)`` (area in [0, 1]; one step:
  its coverage). Redundancy is ``sum_{i>=2} |S_i ∩ (S_1 ∪ … ∪ S_{i-1})| /
  sum_i |S_i|`` where ``S_i`` is what step ``i`` predicts (files, symbols,
  lines or bytes, each step's own overlaps merged): the share of predicted
  material that an earlier step had already predicted.
* ``aggregate``: mean, eligible count and percentile bootstrap interval.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Collection, Iterable, Mapping, Sequence

import numpy as np

from ..graph.symbols import MODULE_QUALNAME, symbol_id
from .intervals import merge
from .gold import FUNCTION_KINDS, Gold, gold_from_patch, line_byte_ranges, read_base_text, top_level

GRAINS = ("file", "symbol", "span", "line")
BOOTSTRAP_BLOCK = 1000  # resamples drawn per generator call (part of the documented procedure)

Intervals = dict[str, list[tuple[int, int]]]  # path -> sorted, disjoint [start, end)


# -- rankings ------------------------------------------------------------------

def dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def rank_files(ranked: Iterable[str]) -> list[str]:
    """Files in order of first appearance; a plain path (no ``::``) is its own file."""
    return dedupe(item.partition("::")[0] for item in ranked)


def rank_modules(ranked: Iterable[str]) -> list[str]:
    """LocAgent modules ``path::Top`` in order of first appearance; module symbols are skipped."""
    return dedupe(m for item in ranked if (m := top_level(item)) is not None)


def function_of(item: str, kinds: Mapping[str, str] | None = None) -> str | None:
    """The function ``item`` counts as: itself without ``kinds``; with ``kinds`` (id -> symbol kind)
    the outermost function or method on its qualname chain, ``None`` for a class. Module symbols
    are ``None``; ids missing from ``kinds`` are kept as they are (they can only miss)."""
    path, _, qualname = item.partition("::")
    if qualname in ("", MODULE_QUALNAME):
        return None
    if kinds is None:
        return item
    parts = qualname.split(".")
    for i in range(1, len(parts) + 1):
        candidate = symbol_id(path, ".".join(parts[:i]))
        if kinds.get(candidate) in FUNCTION_KINDS:
            return candidate
    return None if item in kinds else item


def rank_functions(ranked: Iterable[str], kinds: Mapping[str, str] | None = None) -> list[str]:
    return dedupe(f for item in ranked if (f := function_of(item, kinds)) is not None)


def _top(ranked: Iterable[str], k: int) -> set[str]:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    return set(dedupe(ranked)[:k])


def acc_at_k(ranked: Iterable[str], gold: Iterable[str], k: int) -> float | None:
    """1.0 if ``|gold ∩ top_k| >= min(k, |gold|)`` else 0.0 (LocAgent); ``None`` for empty gold."""
    targets = set(gold)
    if not targets:
        return None
    return float(len(targets & _top(ranked, k)) >= min(k, len(targets)))


def recall_at_k(ranked: Iterable[str], gold: Iterable[str], k: int) -> float | None:
    targets = set(gold)
    return len(targets & _top(ranked, k)) / len(targets) if targets else None


def mrr(ranked: Iterable[str], gold: Iterable[str]) -> float | None:
    """Reciprocal (1-based) rank of the first gold item; 0.0 if none is ranked; ``None`` for empty gold."""
    targets = set(gold)
    if not targets:
        return None
    return next((1.0 / rank for rank, item in enumerate(dedupe(ranked), 1) if item in targets), 0.0)


# -- intervals -----------------------------------------------------------------

def _merged(spans: Mapping[str, Iterable[tuple[int, int]]]) -> Intervals:
    """Half-open intervals per path, merged; empty ones dropped."""
    out = {}
    for path, items in spans.items():
        # [s, e) is the inclusive [s, e - 1]; touching half-open intervals merge as touching inclusive ones do
        if merged := merge((s, e - 1) for s, e in items if s < e):
            out[path] = [(s, e + 1) for s, e in merged]
    return out


def _size(spans: Intervals) -> int:
    return sum(e - s for items in spans.values() for s, e in items)


def _overlap(a: Intervals, b: Intervals) -> int:
    total = 0
    for path, xs in a.items():
        ys, j = b.get(path, []), 0
        for s, e in xs:
            while j < len(ys) and ys[j][1] <= s:
                j += 1
            k = j
            while k < len(ys) and ys[k][0] < e:
                total += min(e, ys[k][1]) - max(s, ys[k][0])
                k += 1
    return total


def _union(a: Intervals, b: Intervals) -> Intervals:
    return _merged({p: a.get(p, []) + b.get(p, []) for p in a.keys() | b.keys()})


def _lines(spans: Mapping[str, Iterable[tuple[int, int]]]) -> Intervals:
    """Inclusive 1-based line ranges as half-open line intervals."""
    return _merged({p: [(s, e + 1) for s, e in items] for p, items in spans.items()})


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def set_scores(pred: Collection[str], gold: Collection[str]) -> tuple[float | None, float | None]:
    """(coverage, precision) of two sets."""
    hit = len(set(pred) & set(gold))
    return _ratio(hit, len(set(gold))), _ratio(hit, len(set(pred)))


def span_scores(pred: Intervals, gold: Intervals) -> tuple[float | None, float | None]:
    """(coverage, precision) of two interval sets (merged, half-open), by length."""
    hit = _overlap(pred, gold)
    return _ratio(hit, _size(gold)), _ratio(hit, _size(pred))


# -- packed budgets ------------------------------------------------------------

def budget_recall(snippets: Iterable, gold: Gold) -> dict[str, float | None]:
    """Recall of packed snippets (``(path, start, end)`` or ``Snippet``s): ``{"file", "function", "line"}``.

    A gold function counts only if its full span (decorators included) lies
    inside one snippet; a gold file counts if any snippet is in it.
    """
    spans = [(s.path, s.start_line, s.end_line) if hasattr(s, "path") else tuple(s) for s in snippets]
    file_recall, _ = set_scores({p for p, _, _ in spans}, gold.files(added=False))
    functions = gold.functions
    inside = sum(any(p == fp and s <= fs and fe <= e for p, s, e in spans)
                 for fp, fs, fe in (gold.gold_spans[f] for f in functions))
    gold_lines = _lines(gold.line_spans_init())
    shown = _lines({p: [(s, e) for q, s, e in spans if q == p] for p in {q for q, _, _ in spans}})
    return {"file": file_recall, "function": _ratio(inside, len(functions)),
            "line": _ratio(_overlap(gold_lines, shown), _size(gold_lines))}


# -- ContextBench-style context ------------------------------------------------

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
        return _merged(lines), _merged(chunks)


def _gold_sets(gold: Gold, repo_dir: Path | str) -> dict:
    return {"file": set(gold.files(added=False)), "symbol": set(gold.units), "line": _lines(gold.line_spans_init()),
            "span": _merged(gold.byte_spans(repo_dir))}


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
    return _ratio(repeated, total)


def span_redundancy(steps: Sequence[Intervals]) -> float | None:
    """``redundancy`` measured in interval length (lines or bytes) instead of items."""
    seen: Intervals = {}
    repeated = total = 0
    for step in steps:
        step = _merged(step)
        repeated += _overlap(step, seen)
        total += _size(step)
        seen = _union(seen, step)
    return _ratio(repeated, total)


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
        "line": span_scores(_lines(pred.line_spans_init()), _lines(gold.line_spans_init())),
    }.items():
        out[f"editloc_{grain}_recall"], out[f"editloc_{grain}_precision"] = recall, precision
    return out


# -- aggregation ---------------------------------------------------------------

def aggregate(records: Sequence[Mapping], metrics: Sequence[str], *, resamples: int = 10_000, seed: int = 0,
              level: float = 0.95) -> dict[str, dict[str, float | int | None]]:
    """Per metric: mean over eligible records (value not ``None``), ``n`` eligible, ``n_total``, and a
    percentile bootstrap interval ``ci_low``/``ci_high``.

    Procedure: ``rng = numpy.random.default_rng(seed)`` afresh per metric;
    resample indices drawn as ``rng.integers(0, n, size=(b, n))`` in blocks of
    ``b = min(1000, remaining)`` resamples; interval ``numpy.percentile(means,
    [2.5, 97.5])`` (linear) for ``level=0.95``. A record without the metric's
    key is an error (a typo must not read as "no eligible records").
    """
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    out = {}
    for metric in metrics:
        values = []
        for i, record in enumerate(records):
            if metric not in record:
                raise KeyError(f"record {i} ({record.get('instance_id', '?')}) has no metric {metric!r}")
            value = record[metric]
            if value is None:
                continue
            if not isinstance(value, (int, float)) or not math.isfinite(value):  # bools count as 0/1
                raise ValueError(f"record {i} ({record.get('instance_id', '?')}): metric {metric!r} is "
                                 f"{value!r}; expected a finite number or None")
            values.append(float(value))
        row: dict[str, float | int | None] = {"mean": None, "ci_low": None, "ci_high": None,
                                              "n": len(values), "n_total": len(records)}
        if values:
            data = np.asarray(values)
            rng = np.random.default_rng(seed)
            means = np.concatenate([data[rng.integers(0, len(data), size=(min(BOOTSTRAP_BLOCK, resamples - done),
                                                                          len(data)))].mean(axis=1)
                                    for done in range(0, resamples, BOOTSTRAP_BLOCK)])
            tail = 100 * (1 - level) / 2
            low, high = np.percentile(means, [tail, 100 - tail])
            row.update(mean=float(data.mean()), ci_low=float(low), ci_high=float(high))
        out[metric] = row
    return out
