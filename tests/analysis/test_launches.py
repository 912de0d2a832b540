"""profguide.analysis.launches: launch delays, the lanes' offset, and synchronisations."""

from profguide.analysis import launches
from tests.analysis.gpu_traces import small_gpu_trace
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


def test_launch_latency_per_api():
    t = make(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1),
             cpu("cudaLaunchKernel", 10, 2, kind="runtime", correlation=2),
             cpu("cuLaunchKernel", 20, 2, kind="driver", correlation=3),
             gpu("a", 4, 1, correlation=1), gpu("b", 18, 1, correlation=2), gpu("triton_x", 21, 1, correlation=3))
    latency = launches.launch_latency(t)
    assert latency["runtime"]["count"] == 2 and latency["runtime"]["p50"] == 6 and latency["runtime"]["max"] == 8
    assert latency["driver"] == {"count": 1, "mean": 1, "p50": 1, "p95": 1, "max": 1}


def test_lane_offset_is_seen_when_kernels_start_before_their_launch():
    aligned = make(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1), gpu("a", 4, 1, correlation=1))
    assert launches.lane_offset(aligned)["estimated_offset_us"] == 0
    shifted = make(cpu("cudaLaunchKernel", 100, 2, kind="runtime", correlation=1),
                   cpu("cudaLaunchKernel", 110, 2, kind="runtime", correlation=2),
                   gpu("a", 70, 1, correlation=1), gpu("b", 105, 1, correlation=2))
    offset = launches.lane_offset(shifted)
    assert offset["ops_starting_before_launch"] == 2
    assert offset["estimated_offset_us"] == 30


def test_synchronisations_measure_the_gpu_work_they_waited_for():
    syncs = launches.synchronisations(small_gpu_trace())
    assert syncs["host_calls"] == 1 and syncs["host_time_us"] == 70
    assert syncs["gpu_busy_during_us"] == 55  # gemm 40..65, add 70..80, gemm 85..105
    assert syncs["longest"][0]["name"] == "cudaDeviceSynchronize"
