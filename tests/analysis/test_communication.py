"""profguide.analysis.communication: communication kernels and their overlap with computation."""

from profguide.analysis import communication
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


def test_communication_overlap_with_computation():
    t = make(gpu("ncclKernel_AllReduce_RING_LL_Sum_float", 0, 100, stream=20), gpu("gemm", 50, 100, stream=7),
             cpu("gloo:all_reduce", 0, 5))
    comm = communication.communication(t)
    assert (comm["kernels"], comm["kernel_us"], comm["overlapped_us"], comm["exposed_us"]) == (1, 100, 50, 50)
    assert comm["overlap_pct"] == 50
    assert comm["host_ops"] == 1


def test_each_steps_window_is_split_into_computation_hidden_and_exposed_communication_and_neither():
    t = make(cpu("ProfilerStep#1", 0, 100, kind="annotation"), cpu("ProfilerStep#2", 100, 100, kind="annotation"),
             cpu("cudaLaunchKernel", 10, 2, kind="runtime", correlation=1),
             cpu("cudaLaunchKernel", 20, 2, kind="runtime", correlation=2),
             cpu("cudaLaunchKernel", 110, 2, kind="runtime", correlation=3),
             gpu("gemm", 20, 40, stream=7, correlation=1),
             gpu("ncclKernel_AllReduce", 40, 50, stream=20, correlation=2),  # 20 µs beside the gemm, 30 alone
             gpu("gemm", 120, 100, stream=7, correlation=3))  # runs past its step: the window stretches to 220
    first, second = communication.step_communication(t)
    assert first == {"step": 1, "window_us": 100, "compute_only_us": 20, "overlapped_us": 20, "exposed_us": 30,
                     "neither_us": 30}
    assert second == {"step": 2, "window_us": 120, "compute_only_us": 100, "overlapped_us": 0, "exposed_us": 0,
                      "neither_us": 20}
    inside = communication.communication(t, (0, 50))  # a window clips every kernel to it
    assert (inside["kernel_us"], inside["overlapped_us"], inside["compute_us"]) == (10, 10, 30)
