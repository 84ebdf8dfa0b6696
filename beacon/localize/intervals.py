"""Inclusive integer intervals (lines or bytes): merge, length, overlap; touching intervals merge.

The one interval merger of the localization code: gold line ranges, the
tool environment's viewed spans, the metrics' half-open spans (converted) and
the ``contextbench`` profile's byte intervals all use :func:`merge`.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

Interval = tuple[int, int]  # inclusive at both ends
Spans = dict[str, list[Interval]]


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """Sorted, merged inclusive intervals; touching ones (``b == a_end + 1``) merge too."""
    out: list[Interval] = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def length(intervals: Iterable[Interval]) -> int:
    return sum(end - start + 1 for start, end in merge(intervals))


def overlap(a: Iterable[Interval], b: Iterable[Interval]) -> int:
    """Size of the intersection of two inclusive interval lists."""
    xs, ys, i, j, total = merge(a), merge(b), 0, 0, 0
    while i < len(xs) and j < len(ys):
        low, high = max(xs[i][0], ys[j][0]), min(xs[i][1], ys[j][1])
        if low <= high:
            total += high - low + 1
        if xs[i][1] < ys[j][1]:
            i += 1
        elif ys[j][1] < xs[i][1]:
            j += 1
        else:
            i, j = i + 1, j + 1
    return total


def total(spans: Mapping[str, Sequence[Interval]]) -> int:
    return sum(length(v) for v in spans.values())


def intersection(a: Mapping[str, Sequence[Interval]], b: Mapping[str, Sequence[Interval]]) -> int:
    return sum(overlap(a.get(f, []), b.get(f, [])) for f in a.keys() | b.keys())
