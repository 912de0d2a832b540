"""profguide.analysis.verdict: verdicts, the summary explain reports, and the facts captions quote."""

import pytest

from profguide.analysis import verdict
from tests.analysis.gpu_traces import small_gpu_trace
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


@pytest.mark.parametrize(
    ("events", "expected"),
    [
        ([cpu("aten::mm", 0, 10)], "cpu-only"),
        ([gpu("k", 0, 95), gpu("k", 96, 4)], "compute-bound"),
        ([cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1),
          cpu("cudaLaunchKernel", 50, 2, kind="runtime", correlation=2),
          gpu("a", 5, 10, correlation=1), gpu("b", 60, 10, correlation=2)], "launch-bound"),
        ([gpu("ncclKernel_AllReduce", 0, 100, stream=20), gpu("gemm", 90, 20)], "communication-bound"),
    ],
)
def test_verdicts(events, expected):
    assert verdict.summarise(make(*events))["verdict"] == expected


def test_summary_of_a_small_gpu_trace():
    summary = verdict.summarise(small_gpu_trace())
    assert summary["window"] == {"start_us": 15, "end_us": 180, "dur_us": 165}
    assert summary["gpu_busy_pct"] == pytest.approx(100 * 90 / 165)
    assert summary["gpu_busy_pct"] + summary["gpu_idle_pct"] == pytest.approx(100)
    assert summary["verdict"] == "sync-bound"
    assert summary["top_kernels"][0]["name"] == "gemm"


def test_facts_for_captions():
    facts = verdict.facts(small_gpu_trace())
    assert facts["window_us"] == 200
    assert (facts["cpu_lanes"], facts["gpu_lanes"]) == (1, 1)
    assert facts["kernel_count"] == 4 and facts["kernel_time_us"] == 90
    assert facts["longest_sync"]["dur_us"] == 70
