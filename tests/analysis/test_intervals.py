"""profguide.analysis.intervals: unions, coverage and membership of intervals."""

import numpy as np
import pytest

from profguide.analysis import intervals


@pytest.mark.parametrize(
    ("pairs", "length"),
    [([], 0), ([(0, 2), (1, 3)], 3), ([(0, 1), (2, 3)], 2), ([(0, 10), (2, 3), (4, 5)], 10), ([(5, 6), (0, 1)], 2)],
)
def test_union_length_counts_overlap_once(pairs, length):
    starts = [a for a, _ in pairs]
    ends = [b for _, b in pairs]
    assert intervals.union_length(starts, ends) == length


def test_covered_measures_busy_time_inside_each_interval():
    busy = (np.array([0.0, 10.0, 30.0]), np.array([5.0, 20.0, 40.0]))
    got = intervals.covered(busy, [0, 3, 12, -5, 45], [5, 12, 35, 100, 50])
    assert got.tolist() == [5, 4, 13, 25, 0]



def test_inside_any_follows_the_furthest_end_so_far():
    got = intervals.inside_any(np.array([0.0, 2.0, 20.0]), np.array([10.0, 3.0, 25.0]), [5, 10, 15, 22, -1])
    assert got.tolist() == [True, True, False, True, False]
