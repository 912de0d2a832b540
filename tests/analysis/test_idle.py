"""profguide.analysis.idle: busy intervals, gaps and their causes, on traces where the answer is known."""

import numpy as np
import pytest

from profguide.analysis import idle
from tests.analysis.gpu_traces import small_gpu_trace
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


@pytest.mark.parametrize(
    ("intervals", "length"),
    [([], 0), ([(0, 2), (1, 3)], 3), ([(0, 1), (2, 3)], 2), ([(0, 10), (2, 3), (4, 5)], 10), ([(5, 6), (0, 1)], 2)],
)
def test_union_length_counts_overlap_once(intervals, length):
    starts = [a for a, _ in intervals]
    ends = [b for _, b in intervals]
    assert idle.union_length(starts, ends) == length


def test_covered_measures_busy_time_inside_each_interval():
    busy = (np.array([0.0, 10.0, 30.0]), np.array([5.0, 20.0, 40.0]))
    got = idle.covered(busy, [0, 3, 12, -5, 45], [5, 12, 35, 100, 50])
    assert got.tolist() == [5, 4, 13, 25, 0]


def test_idle_breakdown_names_the_cause_of_each_gap():
    t = small_gpu_trace()
    breakdown = idle.idle_breakdown(t, (15, 180))
    assert breakdown["busy_us"] == 90
    assert breakdown["idle_us"] == 75
    causes = {cause: row["idle_us"] for cause, row in breakdown["by_cause"].items()}
    # 65..70 and 80..85: the next kernel was queued; 105..170: the host sat in the sync until 110.
    assert causes == {"host": 0, "sync": 65, "queued": 10, "other": 0}
    assert breakdown["longest_gaps"][0] == {"start_us": 105, "dur_us": 65, "cause": "sync"}


def test_a_gap_before_a_late_launch_is_the_hosts():
    t = make(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1),
             cpu("cudaLaunchKernel", 50, 2, kind="runtime", correlation=2),
             gpu("a", 5, 10, correlation=1), gpu("b", 60, 10, correlation=2), gpu("c", 80, 5))
    by_cause = idle.idle_breakdown(t, (5, 85))["by_cause"]
    assert by_cause["host"]["idle_us"] == 45  # 15..60: b's launch ended at 52
    assert by_cause["other"]["idle_us"] == 10  # 70..80: c has no launch call in the trace
