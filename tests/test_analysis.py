"""profguide.analysis on small traces built by hand, where the answer is known."""

import pytest

from profguide import analysis
from profguide.trace import Slice, Trace


def cpu(name, ts, dur, kind="cpu_op", tid=1, **extra):
    return Slice(name=name, kind=kind, ts=ts, dur=dur, pid=100, tid=tid, **extra)


def gpu(name, ts, dur, stream=7, kind="kernel", **extra):
    return Slice(name=name, kind=kind, ts=ts, dur=dur, pid=0, tid=stream, **extra)


def make(*slices):
    return Trace(slices=tuple(sorted(slices, key=lambda s: (s.ts, -s.dur))))


def test_nesting_depths_follow_the_call_stack():
    slices = make(cpu("outer", 0, 10), cpu("child", 1, 4), cpu("grandchild", 2, 1), cpu("sibling", 6, 3),
                  cpu("after", 10, 2)).slices
    assert analysis.nesting_depths(slices) == [0, 1, 2, 1, 0]


@pytest.mark.parametrize(
    ("intervals", "length"),
    [([], 0), ([(0, 2), (1, 3)], 3), ([(0, 1), (2, 3)], 2), ([(0, 10), (2, 3), (4, 5)], 10)],
)
def test_union_length_counts_overlap_once(intervals, length):
    assert analysis.union_length(intervals) == length


def test_profiler_steps_in_order():
    t = make(cpu("ProfilerStep#3", 0, 5, kind="annotation"), cpu("ProfilerStep#4", 5, 7, kind="annotation"),
             cpu("ProfilerStep#x", 12, 1, kind="annotation"))
    assert analysis.profiler_steps(t) == [
        {"step": 3, "start_us": 0, "dur_us": 5},
        {"step": 4, "start_us": 5, "dur_us": 7},
    ]


def test_facts_of_a_small_gpu_trace():
    t = make(
        cpu("region", 0, 100, kind="annotation"),
        cpu("aten::mm", 1, 20),
        cpu("cudaLaunchKernel", 5, 4, kind="runtime", correlation=1),
        cpu("cudaLaunchKernel", 30, 4, kind="runtime", correlation=2),
        cpu("cudaDeviceSynchronize", 40, 60, kind="runtime"),
        gpu("gemm", 15, 50, correlation=1),
        gpu("add", 70, 10, correlation=2),
        gpu("gemm", 85, 5),
    )
    facts = analysis.facts(t)
    assert facts["window_us"] == 100
    assert (facts["cpu_lanes"], facts["gpu_lanes"]) == (1, 1)
    assert facts["kernel_count"] == 3 and facts["kernel_time_us"] == 65
    assert facts["gpu_busy_us"] == 65
    assert facts["top_kernels"][0] == {"name": "gemm", "count": 2, "total_us": 55, "mean_us": 27.5}
    assert facts["launches"] == 2
    assert facts["launch_latency_us"] == {"min": 10, "median": 25, "max": 40}
    assert facts["longest_sync"] == {"name": "cudaDeviceSynchronize", "dur_us": 60, "start_us": 40}
    assert facts["annotations"] == {"region": 100}


def test_gpu_busy_merges_overlapping_streams():
    t = make(cpu("op", 0, 1), gpu("a", 0, 10, stream=7), gpu("b", 5, 10, stream=8), gpu("c", 30, 5, kind="memcpy"))
    assert analysis.gpu_busy_us(t) == 20
    assert analysis.gpu_lanes(t) == [(0, 7), (0, 8)]
