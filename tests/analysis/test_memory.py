"""profguide.analysis.memory: export_memory_timeline's JSON read back, and what it holds at its end."""


import pytest

from profguide.analysis import memory
from tests.helpers import make_trace


def timeline(*rows, times=None):
    """A timeline as torch writes it: an unused first column, then a column per category in torch's order."""
    return [times or list(range(len(rows))), [[0, *row] for row in rows]]


def test_the_columns_are_torchs_categories_in_torchs_order():
    from torch.profiler._memory_profiler import _CATEGORY_TO_INDEX

    assert memory.CATEGORIES == tuple("Unknown" if c is None else c.name for c in _CATEGORY_TO_INDEX)


def test_sizes_by_category_and_what_is_left_at_the_end():
    #                 PARAM OPT INPUT TEMP ACT GRAD DETAIL UNKNOWN
    times, sizes = memory.memory_timeline(timeline([100, 0, 8, 0, 0, 0, 0, 0], [100, 200, 8, 0, 50, 0, 0, 0],
                                                   [100, 200, 8, 0, 0, 100, 0, 0], times=[10, 20, 30]))
    assert times.tolist() == [10, 20, 30]
    assert sizes["OPTIMIZER_STATE"].tolist() == [0, 200, 200]
    assert memory.ratio_at_end(sizes, "OPTIMIZER_STATE", "PARAMETER") == 2
    assert memory.ratio_at_end(sizes, "GRADIENT", "PARAMETER") == 1
    assert memory.left_at_end(sizes, "ACTIVATION") == 0
    assert memory.left_at_end(sizes, "TEMPORARY") is None  # never held any
    assert memory.left_at_end(sizes, "no such category") is None
    assert memory.ratio_at_end(sizes, "PARAMETER", "TEMPORARY") is None


@pytest.mark.parametrize("document", [{}, [[1], [[0, 1]]], [[1, 2], [[0] * 9]], [[], []], [["a"], [[0] * 9]], "x"])
def test_anything_else_is_a_one_line_error(document):
    with pytest.raises(ValueError, match="^not a memory timeline: [^\n]*$"):
        memory.memory_timeline(document)


def test_timeline_times_move_onto_the_traces_clock():
    loaded = make_trace({"ph": "X", "name": "step", "ts": 0, "dur": 1, "pid": 1, "tid": 1},
                        baseTimeNanoseconds=5_000_000)
    times, _ = memory.memory_timeline(timeline([1] * 8, times=[5_100]))
    assert memory.to_trace_clock(times, loaded).tolist() == [100]
