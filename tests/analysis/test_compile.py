"""profguide.analysis.compile: what torch.compile leaves in a trace."""

from profguide.analysis import compile as compiled
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


def test_compile_markers():
    t = make(cpu("Torch-Compiled Region: 0/0", 0, 100, kind="annotation"),
             cpu("cuLaunchKernel", 1, 2, kind="driver", correlation=1),
             cpu("cudaGraphLaunch", 10, 2, kind="runtime"),
             gpu("triton_poi_fused_add_0", 5, 3, correlation=1))
    assert compiled.compile_markers(t) == {
        "compiled_regions": 1, "compiled_region_us": 100, "triton_kernels": 1, "triton_kernel_us": 3,
        "cuda_graph_launches": 1, "driver_launches": 1,
    }
