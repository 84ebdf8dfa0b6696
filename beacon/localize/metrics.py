"""Localization metrics: rankings (LocAgent), packed budgets, aggregation.

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
* Context and trajectories: :mod:`beacon.localize.context_metrics`.
* ``aggregate``: mean, eligible count and percentile bootstrap interval.
"""
from __future__ import annotations

import math
from typing import Iterable, Mapping, Sequence

import numpy as np

from ..graph.symbols import MODULE_QUALNAME, symbol_id
from .gold import FUNCTION_KINDS, Gold, top_level
from .spans import line_intervals, ratio, set_scores, span_overlap, span_size

BOOTSTRAP_BLOCK = 1000  # resamples drawn per generator call (part of the documented procedure)


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
    gold_lines = line_intervals(gold.line_spans_init())
    shown = line_intervals({p: [(s, e) for q, s, e in spans if q == p] for p in {q for q, _, _ in spans}})
    return {"file": file_recall, "function": ratio(inside, len(functions)),
            "line": ratio(span_overlap(gold_lines, shown), span_size(gold_lines))}


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
