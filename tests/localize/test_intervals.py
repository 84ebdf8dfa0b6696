"""The one interval merger: merged intervals cover exactly the points of the input, disjoint and not touching."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from beacon.localize.intervals import intersection, length, merge, overlap

intervals = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 20)).map(lambda t: (t[0], t[0] + t[1])), max_size=12)


def points(items):
    return {n for s, e in items for n in range(s, e + 1)}


@given(intervals)
def test_merge_covers_the_same_points_sorted_and_apart(items):
    merged = merge(items)
    assert points(merged) == points(items)
    assert all(e1 + 1 < s2 for (_, e1), (s2, _) in zip(merged, merged[1:]))  # touching ones were joined
    assert length(items) == len(points(items))


@given(intervals, intervals)
def test_overlap_is_the_shared_points(a, b):
    assert overlap(a, b) == len(points(a) & points(b))
    assert intersection({"f": a}, {"f": b, "g": a}) == len(points(a) & points(b))


def test_touching_intervals_merge():
    assert merge([(5, 6), (1, 2), (3, 4), (9, 9)]) == [(1, 6), (9, 9)]
