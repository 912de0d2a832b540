"""profguide.analysis.select on small traces built by hand, where the answer is known."""

import gc

import pytest

from profguide.analysis import select
from profguide.errors import UsageError
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


def test_nesting_depths_follow_the_call_stack():
    t = make(cpu("outer", 0, 10), cpu("child", 1, 4), cpu("grandchild", 2, 1), cpu("sibling", 6, 3),
             cpu("after", 10, 2))
    assert select.nesting_depths(t.ts, t.end).tolist() == [0, 1, 2, 1, 0]


def test_profiler_steps_in_order():
    """A step is a user annotation, or an Operator in the old schema; the copy kineto draws on a GPU stream
    (``gpu_user_annotation``) is not another step."""
    on_the_gpu = {**gpu("ProfilerStep#3", 1, 4), "cat": "gpu_user_annotation"}
    old_schema = {**cpu("ProfilerStep#9", 20, 1), "cat": "Operator"}
    t = make(cpu("ProfilerStep#3", 0, 5, kind="annotation"), cpu("ProfilerStep#4", 5, 7, kind="annotation"),
             cpu("ProfilerStep#x", 12, 1, kind="annotation"), old_schema, on_the_gpu)
    assert select.profiler_steps(t) == [
        {"step": 3, "start_us": 0, "dur_us": 5},
        {"step": 4, "start_us": 5, "dur_us": 7},
        {"step": 9, "start_us": 20, "dur_us": 1},
    ]


def test_step_window_reaches_the_end_of_the_gpu_work_it_launched():
    t = make(cpu("ProfilerStep#1", 0, 50, kind="annotation"),
             cpu("cudaLaunchKernel", 40, 2, kind="runtime", correlation=1),
             gpu("k", 45, 30, correlation=1))
    assert select.step_window(t, 1) == (0, 75)
    with pytest.raises(UsageError, match=r"no ProfilerStep#2 in this trace \(steps: 1\)"):
        select.step_window(t, 2)


def test_masks_are_made_once_per_trace_read_only_and_freed_with_it():
    t = make(cpu("aten::mm", 0, 10), gpu("k", 1, 5))
    first = select.kinds_mask(t, ("kernel",))
    assert select.kinds_mask(t, ["kernel"]) is first and first.tolist() == [False, True]
    with pytest.raises(ValueError):
        first &= False  # a caller that changed it would change every later answer
    assert t in select._KEPT
    kept = len(select._KEPT)
    del t, first
    gc.collect()
    assert len(select._KEPT) == kept - 1  # the trace's masks went with it
