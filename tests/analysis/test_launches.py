"""profguide.analysis.launches: launch delay against queueing, clock skew, profiler overhead, synchronisations."""

from profguide.analysis import launches
from tests.analysis.gpu_traces import small_gpu_trace
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


def test_launch_delay_per_api_on_an_empty_stream():
    t = make(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1),
             cpu("cudaLaunchKernel", 10, 2, kind="runtime", correlation=2),
             cpu("cuLaunchKernel", 20, 2, kind="driver", correlation=3),
             gpu("a", 4, 1, correlation=1), gpu("b", 18, 1, correlation=2), gpu("triton_x", 23, 1, correlation=3))
    timing = launches.launch_delays(t)
    runtime = timing["launch_delay_us"]["runtime"]
    assert runtime["count"] == 2 and runtime["p50"] == 4 and runtime["max"] == 6  # from each call's end
    assert timing["launch_delay_us"]["driver"] == {"count": 1, "mean": 1, "p50": 1, "p95": 1, "max": 1}
    assert timing["queueing_us"] is None


def test_an_op_launched_behind_busy_work_is_queueing_not_launch_delay():
    t = make(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1),
             cpu("cudaLaunchKernel", 4, 2, kind="runtime", correlation=2),
             cpu("cudaLaunchKernel", 6, 2, kind="runtime", correlation=3, tid=2),
             gpu("long", 5, 100, correlation=1), gpu("behind", 105, 1, correlation=2),
             gpu("other stream", 10, 1, correlation=3, stream=8))
    timing = launches.launch_delays(t)
    assert timing["queueing_us"] == {"count": 1, "mean": 99, "p50": 99, "p95": 99, "max": 99}
    assert timing["launch_delay_us"]["runtime"]["count"] == 2  # `long`, and the op alone on stream 8


def test_clock_skew_is_seen_when_kernels_start_before_their_launch():
    aligned = make(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1), gpu("a", 4, 1, correlation=1))
    assert launches.clock_skew(aligned) == {"ops_starting_before_launch": 0, "at_least_us": 0}
    shifted = make(cpu("cudaLaunchKernel", 100, 2, kind="runtime", correlation=1),
                   cpu("cudaLaunchKernel", 110, 2, kind="runtime", correlation=2),
                   gpu("a", 70, 1, correlation=1), gpu("b", 105, 1, correlation=2))
    assert launches.clock_skew(shifted) == {"ops_starting_before_launch": 2, "at_least_us": 30}


def test_profiler_overhead_and_the_idle_gpu_under_it():
    t = make(gpu("a", 0, 10), cpu("Activity Buffer Request", 5, 20, kind="overhead", pid=0, tid=7), gpu("b", 25, 5))
    assert launches.profiler_overhead(t) == {
        "events": 1, "total_us": 20,
        "by_name": {"Activity Buffer Request": {"count": 1, "total_us": 20, "gpu_idle_during_us": 15,
                                                "first_start_us": 5}},
    }


def test_synchronisations_measure_the_gpu_work_they_waited_for():
    syncs = launches.synchronisations(small_gpu_trace())
    assert syncs["host_calls"] == 1 and syncs["host_time_us"] == 70
    assert syncs["gpu_busy_during_us"] == 55  # gemm 40..65, add 70..80, gemm 85..105
    assert syncs["longest"][0]["name"] == "cudaDeviceSynchronize"


def test_occupancy_queries_name_the_launch_that_follows_them_on_their_thread():
    t = make(cpu("cudaOccupancyMaxActiveBlocksPerMultiprocessor", 0, 2, kind="runtime"),
             cpu("cudaFuncSetAttribute", 3, 1, kind="runtime"),
             cpu("cudaLaunchKernel", 5, 4, kind="runtime", correlation=1),
             cpu("cudaLaunchKernel", 10, 4, kind="runtime", correlation=2),
             cpu("cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 20, 2, kind="runtime"),
             cpu("cudaLaunchKernel", 30, 4, kind="runtime", tid=2, correlation=3),  # another thread
             gpu("ampere_sgemm_32x32_tn", 40, 10, correlation=1),
             gpu("void at::native::vectorized_elementwise_kernel<4>()", 60, 2, correlation=2),
             gpu("void at::native::vectorized_elementwise_kernel<4>()", 70, 2, correlation=3))
    found = launches.occupancy_queries(t)
    assert found["queries"] == 2
    assert found["next"] == {"gemm": 1}  # the second query has no launch after it on its thread
    assert found["launched"] == [("ampere_sgemm_32x32_tn", "gemm", True),
                                 ("void at::native::vectorized_elementwise_kernel<4>()", "elementwise", False),
                                 ("void at::native::vectorized_elementwise_kernel<4>()", "elementwise", False)]


def test_occupancy_families_are_the_kernel_families_matrix_multiplies_elementwise_and_the_rest():
    # GEMMs and convolutions (cuDNN's, whether or not the name says gemm) are matrix multiplies.
    assert launches.occupancy_family("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm>") == "gemm"
    assert launches.occupancy_family("sm80_xmma_fprop_implicit_gemm_tf32f32_execute_kernel_cudnn_infer") == "gemm"
    assert launches.occupancy_family("cudnn_infer_ampere_scudnn_128x64_relu_xregs_large_nn_v1") == "gemm"
    assert launches.occupancy_family("void at::native::elementwise_kernel<128, 2>") == "elementwise"
    assert launches.occupancy_family("ncclKernel_AllReduce_RING_LL_Sum_float") == "other"
    # Before, any name holding "gemm" was a matrix multiply, fbgemm_gpu's embedding kernels included.
    assert launches.occupancy_family("void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int)") == "other"


def test_every_kind_of_launch_call_is_joined_to_its_kernels_whatever_its_name():
    # Triton 3.x launches with cuLaunchKernelEx, Inductor's static launcher with cuLaunchKernel, a CUDA graph's
    # replay with one cudaGraphLaunch whose kernels all carry its correlation id.
    t = make(cpu("cuLaunchKernelEx", 0, 2, kind="driver", correlation=1),
             cpu("cuLaunchKernel", 10, 2, kind="driver", correlation=2),
             cpu("cudaGraphLaunch", 20, 2, kind="runtime", correlation=3),
             gpu("triton_a", 3, 1, correlation=1), gpu("triton_b", 13, 1, correlation=2),
             gpu("graph_first", 24, 5, correlation=3), gpu("graph_second", 29, 5, correlation=3))
    timing = launches.launch_delays(t)
    assert timing["launch_delay_us"]["driver"]["count"] == 2
    assert timing["launch_delay_us"]["runtime"]["count"] == 1  # the graph's first kernel, on an empty stream
    assert timing["queueing_us"]["count"] == 1 and timing["queueing_us"]["max"] == 7  # its second, behind the first
