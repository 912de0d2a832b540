"""profguide.analysis on small traces built by hand, where the answer is known."""

import numpy as np
import pytest

from profguide import analysis
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


def test_nesting_depths_follow_the_call_stack():
    slices = make(cpu("outer", 0, 10), cpu("child", 1, 4), cpu("grandchild", 2, 1), cpu("sibling", 6, 3),
                  cpu("after", 10, 2)).slices()
    assert analysis.nesting_depths(slices) == [0, 1, 2, 1, 0]


@pytest.mark.parametrize(
    ("intervals", "length"),
    [([], 0), ([(0, 2), (1, 3)], 3), ([(0, 1), (2, 3)], 2), ([(0, 10), (2, 3), (4, 5)], 10), ([(5, 6), (0, 1)], 2)],
)
def test_union_length_counts_overlap_once(intervals, length):
    starts = [a for a, _ in intervals]
    ends = [b for _, b in intervals]
    assert analysis.union_length(starts, ends) == length


def test_covered_measures_busy_time_inside_each_interval():
    busy = (np.array([0.0, 10.0, 30.0]), np.array([5.0, 20.0, 40.0]))
    got = analysis.covered(busy, [0, 3, 12, -5, 45], [5, 12, 35, 100, 50])
    assert got.tolist() == [5, 4, 13, 25, 0]


def test_profiler_steps_in_order():
    t = make(cpu("ProfilerStep#3", 0, 5, kind="annotation"), cpu("ProfilerStep#4", 5, 7, kind="annotation"),
             cpu("ProfilerStep#x", 12, 1, kind="annotation"), cpu("ProfilerStep#9", 20, 1))
    assert analysis.profiler_steps(t) == [
        {"step": 3, "start_us": 0, "dur_us": 5},
        {"step": 4, "start_us": 5, "dur_us": 7},
    ]


def small_gpu_trace():
    """A host that launches three kernels, syncs, then launches a fourth one late."""
    return make(
        cpu("region", 0, 200, kind="annotation"),
        cpu("aten::mm", 1, 20),
        cpu("cudaLaunchKernel", 5, 4, kind="runtime", correlation=1),
        cpu("cudaLaunchKernel", 10, 4, kind="runtime", correlation=2),
        cpu("cudaLaunchKernel", 30, 4, kind="runtime", correlation=3),
        cpu("cudaDeviceSynchronize", 40, 70, kind="runtime"),
        cpu("cudaLaunchKernel", 150, 10, kind="runtime", correlation=4),
        gpu("gemm", 15, 50, correlation=1),  # launched at 5, starts at 15
        gpu("add", 70, 10, correlation=2),  # queued since 14, starts 5 µs after gemm ends
        gpu("gemm", 85, 20, correlation=3),
        gpu("late", 170, 10, correlation=4),  # the host launched it after the sync: GPU idle 105..170
    )


def test_idle_breakdown_names_the_cause_of_each_gap():
    t = small_gpu_trace()
    idle = analysis.idle_breakdown(t, (15, 180))
    assert idle["busy_us"] == 90
    assert idle["idle_us"] == 75
    causes = {cause: row["idle_us"] for cause, row in idle["by_cause"].items()}
    # 65..70 and 80..85: the next kernel was queued; 105..170: the host sat in the sync until 110.
    assert causes == {"host": 0, "sync": 65, "queued": 10, "other": 0}
    assert idle["longest_gaps"][0] == {"start_us": 105, "dur_us": 65, "cause": "sync"}


def test_a_gap_before_a_late_launch_is_the_hosts():
    t = make(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1),
             cpu("cudaLaunchKernel", 50, 2, kind="runtime", correlation=2),
             gpu("a", 5, 10, correlation=1), gpu("b", 60, 10, correlation=2), gpu("c", 80, 5))
    by_cause = analysis.idle_breakdown(t, (5, 85))["by_cause"]
    assert by_cause["host"]["idle_us"] == 45  # 15..60: b's launch ended at 52
    assert by_cause["other"]["idle_us"] == 10  # 70..80: c has no launch call in the trace


def test_launch_latency_per_api():
    t = make(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1),
             cpu("cudaLaunchKernel", 10, 2, kind="runtime", correlation=2),
             cpu("cuLaunchKernel", 20, 2, kind="driver", correlation=3),
             gpu("a", 4, 1, correlation=1), gpu("b", 18, 1, correlation=2), gpu("triton_x", 21, 1, correlation=3))
    latency = analysis.launch_latency(t)
    assert latency["runtime"]["count"] == 2 and latency["runtime"]["p50"] == 6 and latency["runtime"]["max"] == 8
    assert latency["driver"] == {"count": 1, "mean": 1, "p50": 1, "p95": 1, "max": 1}


def test_lane_offset_is_seen_when_kernels_start_before_their_launch():
    aligned = make(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1), gpu("a", 4, 1, correlation=1))
    assert analysis.lane_offset(aligned)["estimated_offset_us"] == 0
    shifted = make(cpu("cudaLaunchKernel", 100, 2, kind="runtime", correlation=1),
                   cpu("cudaLaunchKernel", 110, 2, kind="runtime", correlation=2),
                   gpu("a", 70, 1, correlation=1), gpu("b", 105, 1, correlation=2))
    offset = analysis.lane_offset(shifted)
    assert offset["ops_starting_before_launch"] == 2
    assert offset["estimated_offset_us"] == 30


def test_synchronisations_measure_the_gpu_work_they_waited_for():
    syncs = analysis.synchronisations(small_gpu_trace())
    assert syncs["host_calls"] == 1 and syncs["host_time_us"] == 70
    assert syncs["gpu_busy_during_us"] == 55  # gemm 40..65, add 70..80, gemm 85..105
    assert syncs["longest"][0]["name"] == "cudaDeviceSynchronize"


def test_top_kernels_have_count_and_percentiles():
    t = make(*[gpu("k", 10 * i, float(i + 1)) for i in range(10)], gpu("other", 200, 1))
    [k, other] = analysis.top_kernels(t)
    assert (k["name"], k["count"], k["total_us"], k["max"]) == ("k", 10, 55, 10)
    assert k["p50"] == pytest.approx(5.5) and k["p95"] == pytest.approx(9.55)
    assert other["count"] == 1


def test_memory_traffic_adds_bytes_and_bandwidth():
    t = make(gpu("Memcpy HtoD (Pageable -> Device)", 0, 10, kind="memcpy", bytes=1_000_000),
             gpu("Memcpy HtoD (Pageable -> Device)", 20, 10, kind="memcpy", bytes=3_000_000),
             gpu("Memset (Device)", 40, 1, kind="memset", bytes=100))
    [copy, memset] = analysis.memory_traffic(t)
    assert (copy["count"], copy["total_us"], copy["bytes"]) == (2, 20, 4_000_000)
    assert copy["gb_per_s"] == pytest.approx(200.0)  # 4 MB in 20 µs
    assert memset["kind"] == "memset"


def test_communication_overlap_with_computation():
    t = make(gpu("ncclKernel_AllReduce_RING_LL_Sum_float", 0, 100, stream=20), gpu("gemm", 50, 100, stream=7),
             cpu("gloo:all_reduce", 0, 5))
    comm = analysis.communication(t)
    assert (comm["kernels"], comm["kernel_us"], comm["overlapped_us"], comm["exposed_us"]) == (1, 100, 50, 50)
    assert comm["overlap_pct"] == 50
    assert comm["host_ops"] == 1


def test_occupancy_is_duration_weighted():
    occupancy = "est. achieved occupancy %"
    t = make(gpu("k", 0, 30, **{occupancy: 10}), gpu("k", 40, 10, **{occupancy: 50}), gpu("j", 60, 10))
    assert analysis.occupancy(t) == [{"name": "k", "occupancy_pct": 20.0, "total_us": 40.0}]
    assert analysis.occupancy(t, "nothing") == []


def test_compile_markers():
    t = make(cpu("Torch-Compiled Region: 0/0", 0, 100, kind="annotation"),
             cpu("cuLaunchKernel", 1, 2, kind="driver", correlation=1),
             cpu("cudaGraphLaunch", 10, 2, kind="runtime"),
             gpu("triton_poi_fused_add_0", 5, 3, correlation=1))
    assert analysis.compile_markers(t) == {
        "compiled_regions": 1, "compiled_region_us": 100, "triton_kernels": 1, "triton_kernel_us": 3,
        "cuda_graph_launches": 1, "driver_launches": 1,
    }


def test_gemm_throughput_from_recorded_shapes():
    n = 1024
    t = make(
        cpu("aten::mm", 0, 10, external_id=7, **{"Input Dims": [[n, n], [n, n]], "Input type": ["float", "float"]}),
        cpu("cudaLaunchKernel", 2, 2, kind="runtime", correlation=1, external_id=7),
        gpu("ampere_sgemm", 10, 200, correlation=1, external_id=7),
        deviceProperties=[{"name": "NVIDIA A100-SXM4-80GB"}],
    )
    [row] = analysis.gemm_throughput(t)
    assert row["flops"] == 2 * n**3 and row["kernel_us"] == 200
    assert row["tflops"] == pytest.approx(2 * n**3 / 200e-6 / 1e12)
    assert row["peak_tflops"] == 19.5 and row["pct_of_peak"] == pytest.approx(100 * row["tflops"] / 19.5)


@pytest.mark.parametrize(
    ("op", "dims", "flops"),
    [("aten::mm", [[2, 3], [3, 4]], 48), ("aten::addmm", [[4], [2, 3], [3, 4]], 48),
     ("aten::bmm", [[5, 2, 3], [5, 3, 4]], 240), ("aten::mm", [[2, 3], [5, 4]], None), ("aten::mm", [[2, 3]], None)],
)
def test_gemm_flops(op, dims, flops):
    assert analysis.gemm_flops(op, dims) == flops


def test_step_window_reaches_the_end_of_the_gpu_work_it_launched():
    t = make(cpu("ProfilerStep#1", 0, 50, kind="annotation"),
             cpu("cudaLaunchKernel", 40, 2, kind="runtime", correlation=1),
             gpu("k", 45, 30, correlation=1))
    assert analysis.step_window(t, 1) == (0, 75)
    with pytest.raises(KeyError, match=r"no ProfilerStep#2 in this trace \(steps: 1\)"):
        analysis.step_window(t, 2)


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
    assert analysis.summarise(make(*events))["verdict"] == expected


def test_summary_of_a_small_gpu_trace():
    summary = analysis.summarise(small_gpu_trace())
    assert summary["window"] == {"start_us": 15, "end_us": 180, "dur_us": 165}
    assert summary["gpu_busy_pct"] == pytest.approx(100 * 90 / 165)
    assert summary["gpu_busy_pct"] + summary["gpu_idle_pct"] == pytest.approx(100)
    assert summary["verdict"] == "sync-bound"
    assert summary["top_kernels"][0]["name"] == "gemm"


def test_facts_for_captions():
    facts = analysis.facts(small_gpu_trace())
    assert facts["window_us"] == 200
    assert (facts["cpu_lanes"], facts["gpu_lanes"]) == (1, 1)
    assert facts["kernel_count"] == 4 and facts["kernel_time_us"] == 90
    assert facts["longest_sync"]["dur_us"] == 70
