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


def test_memory_in_calls_counts_its_thread_and_device_and_with_an_op_only_what_it_allocates():
    from tests.helpers import event
    from tests.site.measures.test_memory import memory as allocation

    loaded = make_trace(event("decode", 0, 100, kind="annotation"), event("aten::cat", 10, 10),
                        event("decode", 200, 100, kind="annotation"),
                        allocation(15, 64, device_type=0), allocation(50, -32, device_type=0),
                        allocation(55, 7, device_type=0, tid=2),  # another thread's
                        allocation(60, 1000, device_type=1),  # another device's
                        allocation(150, 5, device_type=0))  # between the calls
    assert memory.memory_in_calls(loaded, "decode", 0) == [(64, 32), (0, 0)]
    assert memory.memory_in_calls(loaded, "decode", 0, "aten::cat") == [(64, 0), (0, 0)]
    assert memory.memory_in_calls(loaded, "decode", 1) == [(1000, 0), (0, 0)]
    assert memory.memory_in_calls(loaded, "prefill", 0) == []


def test_one_tokens_keys_and_values_by_hand():
    # Llama 2 7B in float16: 32 layers of width 4096, half a mebibyte a token.
    assert memory.kv_bytes_per_token(layers=32, width=4096, batch=1, element_bytes=2) == 512 * 1024
    assert memory.kv_bytes_per_token(layers=32, width=4096, batch=8, element_bytes=2) == 8 * 512 * 1024
