"""profguide.analysis.regions: each call of a region, the time in the ops it called, and its GPU work."""

from profguide.analysis.regions import region_calls
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


def test_each_call_counts_its_direct_ops_once_and_the_gpu_work_it_launched():
    t = make(cpu("region", 0, 100, kind="annotation"),
             cpu("aten::matmul", 10, 40), cpu("aten::mm", 12, 30),  # nested: counted once, through matmul
             cpu("cudaLaunchKernel", 20, 5, kind="runtime", correlation=1),
             cpu("aten::add", 60, 10),
             cpu("region", 200, 50, kind="annotation"), cpu("aten::add", 210, 5),
             cpu("aten::add", 400, 5),  # outside every call
             gpu("gemm", 30, 80, correlation=1))
    assert region_calls(t, "region") == [
        {"start_us": 0, "dur_us": 100, "in_ops_us": 50, "kernel_us": 80},
        {"start_us": 200, "dur_us": 50, "in_ops_us": 5, "kernel_us": 0},
    ]
    assert region_calls(t, "absent") == []
