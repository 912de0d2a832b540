"""profguide.analysis.regions: each call of a region, the time in the ops it called, and its GPU work."""

from profguide.analysis.regions import ops_in_region, region_calls, region_tree
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


def test_region_tree_is_the_first_occurrence_nested_with_what_each_call_launched():
    t = make(cpu("region", 0, 100, kind="annotation"),
             cpu("aten::matmul", 10, 40), cpu("aten::mm", 12, 30),
             cpu("cudaLaunchKernel", 20, 5, kind="runtime", correlation=1),
             cpu("aten::add", 60, 10),
             cpu("aten::mm", 80, 5, tid=2),  # another thread: not in the tree
             cpu("region", 200, 50, kind="annotation"), cpu("aten::mm", 210, 5),
             gpu("gemm", 30, 80, correlation=1))
    tree = region_tree(t, "region")
    assert [(e["depth"], e["name"]) for e in tree] == [
        (0, "region"), (1, "aten::matmul"), (2, "aten::mm"), (3, "cudaLaunchKernel"), (1, "aten::add")]
    assert tree[3]["launched"] == [("gemm", 80.0)] and tree[2]["launched"] == []
    assert ops_in_region(t, "region", "aten::mm") == 1  # the second occurrence's mm is not counted
    assert ops_in_region(t, "region", "aten::bmm") == 0
    assert ops_in_region(t, "absent", "aten::mm") is None and region_tree(t, "absent") == []
