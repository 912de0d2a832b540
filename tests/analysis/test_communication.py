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
