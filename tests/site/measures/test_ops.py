"""Known answers of the measures of ops, ``record_function`` regions and modules
(``profguide.site.measures.ops``)."""

from profguide.site.measures.ops import (
    BackwardOverForward,
    KernelsPerCall,
    ModuleShare,
    NamedInRegion,
    NestedIn,
    OpShare,
    OpsInRegion,
    OpsPerCall,
    OpsWithShapes,
    OpTotal,
    PythonCallsInRegion,
    RegionCount,
    RegionShare,
)
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.site.measures import Answer, answers, known, run


def launch(ts, correlation):
    return cpu("cudaLaunchKernel", ts, 2, kind="runtime", correlation=correlation)


def region(name, ts, dur):
    return cpu(name, ts, dur, kind="annotation")


# One step of 200 µs: an MLP region of 40 (an mm whose backward, joined by sequence number, takes 80), a norm
# region of 10 (a pow), the optimizer's of 10. The GPU time: the mm's forward 30 µs and backward 60, the pow's
# two kernels 5 each, the optimizer none: 100 in all.
BLOCK_STEP = run(
    cpu("ProfilerStep#2", 0, 200, kind="annotation"),
    region("MLP", 10, 40), cpu("aten::mm", 12, 30, **{"Sequence number": 3}), launch(14, 1),
    region("norm", 60, 10), cpu("aten::pow", 61, 8, **{"Sequence number": 4}), launch(62, 2), launch(64, 3),
    cpu("autograd::engine::evaluate_function: MmBackward0", 100, 80, **{"Sequence number": 3}), launch(105, 4),
    region("optimizer", 185, 10),
    gpu("gemm", 20, 30, correlation=1), gpu("pow", 70, 5, correlation=2), gpu("pow2", 76, 5, correlation=3),
    gpu("gemm_backward", 110, 60, correlation=4), device="cuda")
# Two calls of the module Attention: the first launches a mul (10 µs) and a flash kernel (30), the second a mul
# (10); a mul outside them (50). 100 µs joined to an op in all.
ATTENTION = run(
    cpu("nn.Module: Attention_0", 0, 50, kind="python"), cpu("aten::mul", 2, 10), launch(3, 1),
    cpu("aten::flash", 20, 20), launch(21, 2),
    cpu("nn.Module: Attention_1", 60, 20, kind="python"), cpu("aten::mul", 62, 10), launch(63, 3),
    cpu("aten::mul", 90, 5), launch(91, 4),
    gpu("mul", 10, 10, correlation=1), gpu("flash", 30, 30, correlation=2), gpu("mul", 70, 10, correlation=3),
    gpu("mul", 95, 50, correlation=4), device="cuda")
# Two calls of aten::linear, of 100 and 60 µs (the second with input shapes), each holding an aten::t (10 µs) and
# an aten::addmm that launched a GEMM (30 µs, then 10).
LINEARS = run(
    cpu("aten::linear", 0, 100), cpu("aten::t", 10, 10), cpu("aten::addmm", 30, 60),
    launch(40, 1), gpu("gemm", 50, 30, correlation=1),
    cpu("aten::linear", 200, 60, **{"Input Dims": [[2, 4]]}), cpu("aten::t", 205, 10), cpu("aten::addmm", 220, 30),
    launch(225, 2), gpu("gemm", 240, 10, correlation=2))
# One op of two records its input shapes.
SHAPED = run(cpu("aten::mm", 20, 5, **{"Input Dims": [[2, 2], [2, 2]]}), cpu("aten::add", 30, 5))
# A region holding a matmul over a bmm.
CASE = run(region("case", 0, 100), cpu("aten::matmul", 10, 40), cpu("aten::bmm", 12, 30))
# Two copies in the region: one in a reshape under the matmul, one in a clone under the mm under the matmul.
COPIES = run(region("case", 0, 100), cpu("aten::matmul", 10, 80),
             cpu("aten::reshape", 12, 20), cpu("aten::copy_", 14, 10),
             cpu("aten::mm", 40, 40), cpu("aten::clone", 42, 20), cpu("aten::copy_", 44, 10))
FUSED = run(cpu("CompiledFunction", 0, 100), cpu("graph_0_cpp_fused_add_mean_rsqrt_0", 1, 5),
            cpu("graph_0_cpp_fused__unsafe_view_add_mean_rsqrt_1", 10, 5), cpu("graph_0_cpp_fused_gelu_2", 20, 5))
# Three calls of attention holding 3, 4 and 1 aten:: ops at any depth (3, 5 and 1 ops of any name); an add inside
# the third call's time on another thread is not in it.
ATTENTION_CALLS = run(
    region("attention", 0, 100), cpu("aten::matmul", 10, 30), cpu("aten::bmm", 15, 20),
    cpu("aten::softmax", 50, 10), cpu("cudaLaunchKernel", 52, 2, kind="runtime"),
    region("attention", 200, 100), cpu("aten::matmul", 210, 30), cpu("aten::bmm", 215, 20),
    cpu("aten::softmax", 250, 10), cpu("aten::_softmax", 252, 5), cpu("myop::fused", 270, 5),
    region("attention", 400, 50), cpu("aten::empty", 410, 5),
    cpu("aten::add", 420, 5, tid=2))
# forward holds three Python calls and two ops; zero_grad one Python call and no op.
WITH_STACK = run(region("forward", 0, 50), cpu("model.py(3): forward", 1, 40, kind="python"),
                 cpu("<built-in function linear>", 2, 20, kind="python"), cpu("nn.py(9): relu", 30, 5, kind="python"),
                 cpu("aten::linear", 3, 10), cpu("aten::relu", 31, 3),
                 region("zero_grad", 60, 5), cpu("optimizer.py(1): zero_grad", 61, 2, kind="python"))
# Two calls of aten::item: the first holds a copy and a sync; the sync between the calls and the one on another
# thread in the second call's time are in neither.
ITEMS = run(cpu("aten::item", 0, 50), cpu("cudaMemcpyAsync", 10, 5, kind="runtime"),
            cpu("cudaStreamSynchronize", 20, 20, kind="runtime"),
            cpu("cudaStreamSynchronize", 60, 10, kind="runtime"),
            cpu("aten::item", 100, 50),
            cpu("cudaStreamSynchronize", 110, 10, kind="runtime", tid=2))

ANSWERS = [
    Answer("both-passes-cpu", BLOCK_STEP, RegionShare("MLP"), (40 + 80) / 200),
    Answer("forward-cpu", BLOCK_STEP, RegionShare("MLP", passes="forward"), 40 / 200),
    Answer("backward-device", BLOCK_STEP, RegionShare("MLP", passes="backward", time="device"), 60 / 100),
    Answer("both-passes-device", BLOCK_STEP, RegionShare("norm", time="device"), 10 / 100),
    Answer("the-largest", BLOCK_STEP, RegionShare("MLP", among=("MLP", "norm", "optimizer")), 1),
    Answer("not-the-largest", BLOCK_STEP, RegionShare("norm", among=("MLP", "norm")), 0),
    Answer("no-such-region", BLOCK_STEP, RegionShare("attention"), None),
    Answer("one-call", BLOCK_STEP, RegionCount("norm"), 1),
    Answer("no-call", BLOCK_STEP, RegionCount("attention"), 0),
    Answer("twice-as-long", BLOCK_STEP, BackwardOverForward("MLP"), 80 / 40),
    Answer("no-backward", BLOCK_STEP, BackwardOverForward("optimizer"), 0),
    Answer("no-such-region", BLOCK_STEP, BackwardOverForward("attention"), None),
    Answer("a-regions", BLOCK_STEP, KernelsPerCall(region="norm"), 2),
    Answer("a-modules", ATTENTION, KernelsPerCall(module="Attention"), 3 / 2),
    Answer("no-such-module", ATTENTION, KernelsPerCall(module="MLP"), None),
    Answer("of-all-joined", ATTENTION, ModuleShare("Attention"), (10 + 30 + 10) / 100),
    Answer("its-muls", ATTENTION, ModuleShare("Attention", ("aten::mul",)), (10 + 10) / 50),
    Answer("all-its-ops", ATTENTION, ModuleShare("Attention", ("aten::flash", "aten::mul")), 1),
    Answer("no-such-module", ATTENTION, ModuleShare("MLP"), None),
    Answer("calls-of-two-shapes", LINEARS, OpTotal("aten::linear", "calls"), 2),
    Answer("cpu", LINEARS, OpTotal("aten::linear", "cpu_us"), 100 + 60),
    Answer("a-view-launches-nothing", LINEARS, OpTotal("aten::t", "device_us"), 0),
    Answer("self-device", LINEARS, OpTotal("aten::addmm", "self_device_us"), 30 + 10),
    Answer("no-such-op", LINEARS, OpTotal("aten::view", "device_us"), None),
    Answer("cpu", LINEARS, OpShare("aten::t", "aten::linear", "cpu_us"), (10 + 10) / (100 + 60)),
    Answer("device-all-the-addmms", LINEARS, OpShare("aten::linear", "aten::addmm", "device_us"), 1),
    Answer("no-such-part", LINEARS, OpShare("aten::view", "aten::linear", "cpu_us"), None),
    Answer("a-whole-of-nothing", LINEARS, OpShare("aten::addmm", "aten::linear", "self_device_us"), None),
    Answer("one-of-two", SHAPED, OpsWithShapes(), 1 / 2),
    Answer("no-op", run(gpu("k", 0, 5)), OpsWithShapes(), None),
    Answer("nested", CASE, OpsInRegion("case", "aten::bmm"), 1),
    Answer("not-there", CASE, OpsInRegion("case", "aten::mm"), 0),
    Answer("no-such-region", CASE, OpsInRegion("absent", "aten::mm"), None),
    Answer("at-any-depth", COPIES, OpsInRegion("case", "aten::copy_"), 2),
    Answer("under-the-mm", COPIES, OpsInRegion("case", "aten::copy_", under="aten::mm"), 1),
    Answer("under-the-matmul", COPIES, OpsInRegion("case", "aten::copy_", under="aten::matmul"), 2),
    Answer("under-the-clone", COPIES, OpsInRegion("case", "aten::copy_", under="aten::clone"), 1),
    Answer("under-an-op-without-it", COPIES, OpsInRegion("case", "aten::mm", under="aten::reshape"), 0),
    Answer("under-in-no-such-region", COPIES, OpsInRegion("absent", "aten::copy_", under="aten::mm"), None),
    Answer("holding-a-part", FUSED, NamedInRegion("CompiledFunction", "graph_0_cpp_fused_", containing="rsqrt"), 2),
    Answer("by-prefix", FUSED, NamedInRegion("CompiledFunction", "graph_0_cpp_fused__unsafe_view"), 1),
    Answer("no-such-region", FUSED, NamedInRegion("absent", "graph_0"), None),
    Answer("aten-ops-median", ATTENTION_CALLS, OpsPerCall("attention"), 3),
    Answer("every-op-median", ATTENTION_CALLS, OpsPerCall("attention", prefix=""), 3),
    Answer("an-ops-calls", ATTENTION_CALLS, OpsPerCall("aten::matmul"), 1),
    Answer("no-such-region", ATTENTION_CALLS, OpsPerCall("MLP"), None),
    Answer("calls", WITH_STACK, PythonCallsInRegion("forward", "calls"), 3),
    Answer("ops", WITH_STACK, PythonCallsInRegion("forward", "ops"), 2),
    Answer("calls-per-op", WITH_STACK, PythonCallsInRegion("forward", "calls per op"), 3 / 2),
    Answer("no-op", WITH_STACK, PythonCallsInRegion("zero_grad", "ops"), 0),
    Answer("no-op-to-divide-by", WITH_STACK, PythonCallsInRegion("zero_grad", "calls per op"), None),
    Answer("no-such-region", WITH_STACK, PythonCallsInRegion("absent", "calls"), None),
    Answer("a-sync-in-one-of-two", ITEMS, NestedIn("aten::item", "cudaStreamSynchronize"), 1 / 2),
    Answer("a-copy-in-one-of-two", ITEMS, NestedIn("aten::item", "cudaMemcpyAsync"), 1 / 2),
    Answer("none-inside", ITEMS, NestedIn("aten::item", "aten::copy_"), 0),
    Answer("no-call-of-the-outer", ITEMS, NestedIn("aten::addmm", "aten::copy_"), None),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)
