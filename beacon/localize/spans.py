"""Half-open spans per file (bytes or lines) and the set/span scores the localization metrics share.

``Intervals`` maps a path to sorted, disjoint ``[start, end)`` intervals;
inclusive 1-based line ranges become half-open line intervals with
``line_intervals``. Scores return ``None`` when undefined (an empty gold for a
recall, nothing predicted for a precision), never a silent 0 or 1.
"""
from __future__ import annotations

from typing import Collection, Iterable, Mapping

from .intervals import merge

Intervals = dict[str, list[tuple[int, int]]]  # path -> sorted, disjoint [start, end)


def merged_spans(spans: Mapping[str, Iterable[tuple[int, int]]]) -> Intervals:
    """Half-open intervals per path, merged; empty ones dropped."""
    out = {}
    for path, items in spans.items():
        # [s, e) is the inclusive [s, e - 1]; touching half-open intervals merge as touching inclusive ones do
        if merged := merge((s, e - 1) for s, e in items if s < e):
            out[path] = [(s, e + 1) for s, e in merged]
    return out


def span_size(spans: Intervals) -> int:
    return sum(e - s for items in spans.values() for s, e in items)


def span_overlap(a: Intervals, b: Intervals) -> int:
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


def span_union(a: Intervals, b: Intervals) -> Intervals:
    return merged_spans({p: a.get(p, []) + b.get(p, []) for p in a.keys() | b.keys()})


def line_intervals(spans: Mapping[str, Iterable[tuple[int, int]]]) -> Intervals:
    """Inclusive 1-based line ranges as half-open line intervals."""
    return merged_spans({p: [(s, e + 1) for s, e in items] for p, items in spans.items()})


def ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def set_scores(pred: Collection[str], gold: Collection[str]) -> tuple[float | None, float | None]:
    """(coverage, precision) of two sets."""
    hit = len(set(pred) & set(gold))
    return ratio(hit, len(set(gold))), ratio(hit, len(set(pred)))


def span_scores(pred: Intervals, gold: Intervals) -> tuple[float | None, float | None]:
    """(coverage, precision) of two interval sets (merged, half-open), by length."""
    hit = span_overlap(pred, gold)
    return ratio(hit, span_size(gold)), ratio(hit, span_size(pred))
