"""The recordings of Part 4, torch.compile: compiled code in a trace, what compiling costs, graph breaks."""

from profguide.site.parts.reading_waits import HTA, tracelens_trace
from profguide.site.recordings import (
    CallCount,
    CallsThatCompile,
    Claim,
    CompileShare,
    Figure,
    FirstOverMedian,
    KernelsDecoded,
    LaunchedBy,
    NamedInRegion,
    NestedIn,
    OpsInRegion,
    RealTrace,
    Recording,
    RegionTimeRatio,
    SelfTimeRatio,
)

IN_A_TRACE, COST, BREAKS = "torch-compile/in-a-trace.md", "torch-compile/cost.md", "torch-compile/graph-breaks.md"
GRAPH_CALL = "## Call CompiledFxGraph"
# The calls that launch Triton kernels: Triton's own launcher (recent versions), Inductor's static launcher, and
# a CUDA graph's replay.
TRITON_LAUNCHES = ("cuLaunchKernelEx", "cuLaunchKernel", "cudaGraphLaunch")
MLP = "inside-a-model/mlp.md"
B200_COMPILED = "Torch-Compiled Region: 0/1"  # the B200 trace's one compiled region (vLLM's, outside the model)


def calls_recording(recording_id, dynamic, claims):
    """The calls of the compiled function as the rows change, compiled with ``dynamic``: one of three runs that
    the cost page's calls table puts side by side."""
    return Recording(id=recording_id, module="snippets.torch_compile.cost", function="profile_calls",
                     params={"dynamic": dynamic, "cold": True},
                     title="The calls of a compiled x @ w + b as the rows of x change, dynamic={dynamic}",
                     figure=Figure(region="call"), claims=claims)


RECORDINGS = (
    Recording(
        id="compile-in-a-trace",
        module="snippets.torch_compile.in_a_trace",
        function="profile_eager_and_compiled",
        params={"size": 1024},
        cpu_params={"size": 256},
        title="x @ w + b, eager and compiled, {size}×{size}",
        claims=(
            Claim(IN_A_TRACE, "the eager call is `aten::matmul` then `aten::add`",
                  OpsInRegion("eager", "aten::add"), at_least=1, at_most=1),
            Claim(IN_A_TRACE, "Dynamo first looks up its cache of compiled code (`TorchDynamo Cache Lookup`)",
                  NamedInRegion("compiled", "TorchDynamo Cache Lookup"), at_least=1, at_most=1),
            Claim(IN_A_TRACE, "then runs it in a `Torch-Compiled Region`",
                  NamedInRegion("compiled", "Torch-Compiled Region"), at_least=1, at_most=1),
            Claim(IN_A_TRACE, "AOTAutograd's wrapper (`AOTDispatcher Runtime Wrapper Prologue`)",
                  NamedInRegion("compiled", "AOTDispatcher Runtime Wrapper Prologue"), at_least=1, at_most=1),
            Claim(IN_A_TRACE, "the call of Inductor's graph, `## Call CompiledFxGraph <hash> ##`",
                  NamedInRegion("compiled", GRAPH_CALL), at_least=1, at_most=1),
            Claim(IN_A_TRACE, "The graph holds one operator, `aten::addmm`",
                  OpsInRegion("compiled", "aten::addmm"), at_least=1, at_most=1),
            Claim(IN_A_TRACE, "no `aten::matmul` and no `aten::add`",
                  OpsInRegion("compiled", "aten::add"), at_least=0, at_most=0),
            Claim(IN_A_TRACE, "no `aten::matmul` and no `aten::add`",
                  OpsInRegion("compiled", "aten::matmul"), at_least=0, at_most=0),
            Claim(IN_A_TRACE, "the ReLU has no event of its own",
                  OpsInRegion("compiled, with a ReLU", "aten::relu"), at_least=0, at_most=0),
            Claim(IN_A_TRACE, "so its region is `1/0`",
                  NamedInRegion("compiled, with a ReLU", "Torch-Compiled Region: 1/0"), at_least=1, at_most=1),
            Claim(IN_A_TRACE, "On the CPU, the graph with the ReLU still calls `aten::addmm`",
                  OpsInRegion("compiled, with a ReLU", "aten::addmm"), at_least=1, at_most=1, device="cpu"),
            Claim(IN_A_TRACE, "the graph with the ReLU has no more self time than the graph without it",
                  SelfTimeRatio(GRAPH_CALL, "compiled, with a ReLU", "compiled"), at_least=0.5, at_most=1,
                  device="cpu"),
            Claim(IN_A_TRACE, "On the CPU, the `aten::copy_` under `addmm` copies the bias into the output",
                  OpsInRegion("compiled", "aten::copy_"), at_least=1, at_most=1, device="cpu"),
            # On a GPU, Inductor unfuses an addmm whose users are pointwise: mm, then bias and ReLU in one kernel.
            Claim(IN_A_TRACE, "On a GPU, the graph with the ReLU should call `aten::mm` instead",
                  OpsInRegion("compiled, with a ReLU", "aten::mm"), at_least=1, at_most=1, device="cuda"),
            Claim(IN_A_TRACE, "the `eager` region lasts two to four times as long as the `compiled` one",
                  RegionTimeRatio("eager", "compiled", "in all"), at_least=2, at_most=4),
            Claim(IN_A_TRACE, "the first region, `eager`, spends many times as long in no op as the compiled call",
                  RegionTimeRatio("eager", "compiled", "outside ops"), at_least=5, at_most=50),
            Claim(IN_A_TRACE, "counted by the ops under each region, the eager call and the compiled one take about "
                  "as long", RegionTimeRatio("eager", "compiled", "in ops"), at_least=0.8, at_most=1.25),
        ),
    ),
    calls_recording("compile-cost", None, (
        Claim(COST, "The first call took more than a thousand times as long as the calls after it",
              FirstOverMedian("call"), at_least=1000, at_most=10000),
        Claim(COST, "nearly all of it went to compiling", CompileShare("call"), at_least=0.9, at_most=1),
        Claim(COST, "the first new shape compiled again", CallsThatCompile("call"), at_least=2, at_most=2),
    )),
    calls_recording("compile-cost-static", False, (
        Claim(COST, "`dynamic=False` compiles once for each shape", CallsThatCompile("call"), at_least=3, at_most=3),
    )),
    calls_recording("compile-cost-dynamic", True, (
        Claim(COST, "`dynamic=True` compiles once, for every shape", CallsThatCompile("call"), at_least=1,
              at_most=1),
    )),
    Recording(
        id="compile-graph-break",
        module="snippets.torch_compile.graph_breaks",
        function="profile_graph_break",
        params={"size": 1024},
        cpu_params={"size": 256},
        title="A compiled function with a graph break, {size}×{size}",
        claims=(
            Claim(BREAKS, "each call runs two compiled regions", NamedInRegion("call", "Torch-Compiled Region"),
                  at_least=2, at_most=2),
            Claim(BREAKS, "each call runs two compiled regions", NamedInRegion("call", GRAPH_CALL),
                  at_least=2, at_most=2),
            Claim(BREAKS, "Between them, outside any graph, runs `aten::item`", OpsInRegion("call", "aten::item"),
                  at_least=1, at_most=1),
            Claim(BREAKS, "Its graph calls `aten::mm`", OpsInRegion("Torch-Compiled Region: 0/0", "aten::mm"),
                  at_least=1, at_most=1),
            Claim(BREAKS, "so it has no `aten::` op under it", NamedInRegion("Torch-Compiled Region: 1/0", "aten::"),
                  at_least=0, at_most=0),
            Claim(BREAKS, "spends many times as long in no op as either call after it",
                  RegionTimeRatio("call", "call", "outside ops"), at_least=5, at_most=50),
            Claim(BREAKS, "and a second cache lookup", NamedInRegion("call", "TorchDynamo Cache Lookup"),
                  at_least=2, at_most=2),
        ),
    ),
)

REAL_TRACES = (
    RealTrace(
        id="compile-a100-triton",
        file="docs/traces/a100_triton_culaunch.json.gz",
        title="A compiled function on an A100: one Triton kernel",
        **HTA,
        figure=Figure(trees=("Torch-Compiled Region: 0/0",)),
        claims=(
            Claim(IN_A_TRACE, "the kernel's own name, as an op, with `cuLaunchKernel` under it",
                  OpsInRegion("Torch-Compiled Region: 0/0", "cuLaunchKernel"), at_least=1, at_most=1),
            Claim(IN_A_TRACE, "not `cudaLaunchKernel`",
                  OpsInRegion("Torch-Compiled Region: 0/0", "cudaLaunchKernel"), at_least=0, at_most=0),
            Claim(IN_A_TRACE, "every Triton kernel of the A100's trace is launched by one of those three calls",
                  LaunchedBy(TRITON_LAUNCHES), at_least=1, at_most=1),
        ),
    ),
    tracelens_trace(
        "compile-b200-vllm", "b200-vllm",
        figure=Figure(trees=(B200_COMPILED,)),
        claims=(
            Claim(IN_A_TRACE, "its Triton kernel is launched by `cuLaunchKernel` as well",
                  LaunchedBy(("cuLaunchKernel",)), at_least=1, at_most=1),
            Claim(MLP, "its one compiled graph launches a single Triton kernel", KernelsDecoded("triton"),
                  at_least=1, at_most=1),
            Claim(MLP, "and neither does the B200's trace", CallCount("cudaOccupancy"), at_least=0, at_most=0),
            Claim(MLP, "whose name lists the eight operations it fused",
                  KernelsDecoded("triton", "fused", "add_bitwise_and_bitwise_not_bitwise_or_ge_lt_mul_sub"),
                  at_least=1, at_most=1),
        ),
    ),
    tracelens_trace(
        "compile-h100-bert-item", "h100-bert",
        figure=Figure(trees=("aten::is_nonzero",)),
        claims=(
            Claim(BREAKS, "its `aten::item` holds a `cudaStreamSynchronize`",
                  NestedIn("aten::item", "cudaStreamSynchronize"), at_least=1, at_most=1),
        ),
    ),
)
