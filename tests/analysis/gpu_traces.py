"""Small GPU traces built by hand that several analysis tests share."""

from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


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
