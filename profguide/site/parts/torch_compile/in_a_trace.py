"""The recording of torch.compile, *Compiled code in a trace*; and the real traces of compiled code on GPUs."""

from profguide.site.measures.host import CallCount, LaunchedBy
from profguide.site.measures.kernels import KernelsDecoded
from profguide.site.measures.ops import NamedInRegion, OpsInRegion
from profguide.site.measures.timing import RegionTimeRatio, SelfTimeRatio
from profguide.site.parts import HTA, tracelens_trace
from profguide.site.recordings import Claim, Figure, RealTrace, Recording

PAGE = "torch-compile/in-a-trace.md"
GRAPH_CALL = "## Call CompiledFxGraph"
# The calls that launch Triton kernels: Triton's own launcher (recent versions), Inductor's static launcher, and
# a CUDA graph's replay.
TRITON_LAUNCHES = ("cuLaunchKernelEx", "cuLaunchKernel", "cudaGraphLaunch")
MLP = "inside-a-model/mlp.md"
B200_COMPILED = "Torch-Compiled Region: 0/1"  # the B200 trace's one compiled region (vLLM's, outside the model)

RECORDINGS = (
    Recording(
        id="compile-in-a-trace",
        module="snippets.torch_compile.in_a_trace",
        function="profile_eager_and_compiled",
        params={"size": 1024},
        cpu_params={"size": 256},
        title="x @ w + b, eager and compiled, {size}×{size}",
        claims=(
            Claim(PAGE, "the eager call is `aten::matmul` then `aten::add`",
                  OpsInRegion("eager", "aten::add"), at_least=1, at_most=1),
            Claim(PAGE, "Dynamo first looks up its cache of compiled code (`TorchDynamo Cache Lookup`)",
                  NamedInRegion("compiled", "TorchDynamo Cache Lookup"), at_least=1, at_most=1),
            Claim(PAGE, "then runs it in a `Torch-Compiled Region`",
                  NamedInRegion("compiled", "Torch-Compiled Region"), at_least=1, at_most=1),
            Claim(PAGE, "AOTAutograd's wrapper (`AOTDispatcher Runtime Wrapper Prologue`)",
                  NamedInRegion("compiled", "AOTDispatcher Runtime Wrapper Prologue"), at_least=1, at_most=1),
            Claim(PAGE, "the call of Inductor's graph, `## Call CompiledFxGraph <hash> ##`",
                  NamedInRegion("compiled", GRAPH_CALL), at_least=1, at_most=1),
            Claim(PAGE, "The graph holds one operator, `aten::addmm`",
                  OpsInRegion("compiled", "aten::addmm"), at_least=1, at_most=1),
            Claim(PAGE, "no `aten::matmul` and no `aten::add`",
                  OpsInRegion("compiled", "aten::add"), at_least=0, at_most=0),
            Claim(PAGE, "no `aten::matmul` and no `aten::add`",
                  OpsInRegion("compiled", "aten::matmul"), at_least=0, at_most=0),
            Claim(PAGE, "the ReLU has no event of its own",
                  OpsInRegion("compiled, with a ReLU", "aten::relu"), at_least=0, at_most=0),
            Claim(PAGE, "so its region is `1/0`",
                  NamedInRegion("compiled, with a ReLU", "Torch-Compiled Region: 1/0"), at_least=1, at_most=1),
            Claim(PAGE, "On the CPU, the graph with the ReLU still calls `aten::addmm`",
                  OpsInRegion("compiled, with a ReLU", "aten::addmm"), at_least=1, at_most=1, device="cpu"),
            Claim(PAGE, "the graph with the ReLU has no more self time than the graph without it",
                  SelfTimeRatio(GRAPH_CALL, "compiled, with a ReLU", "compiled"), at_least=0.5, at_most=1,
                  device="cpu"),
            Claim(PAGE, "On the CPU, the `aten::copy_` under `addmm` copies the bias into the output",
                  OpsInRegion("compiled", "aten::copy_"), at_least=1, at_most=1, device="cpu"),
            # On a GPU, Inductor unfuses an addmm whose users are pointwise: mm, then bias and ReLU in one kernel.
            Claim(PAGE, "On a GPU, the graph with the ReLU should call `aten::mm` instead",
                  OpsInRegion("compiled, with a ReLU", "aten::mm"), at_least=1, at_most=1, device="cuda"),
            Claim(PAGE, "the `eager` region lasts two to four times as long as the `compiled` one",
                  RegionTimeRatio("eager", "compiled", "in all"), at_least=2, at_most=4),
            Claim(PAGE, "the first region, `eager`, spends many times as long in no op as the compiled call",
                  RegionTimeRatio("eager", "compiled", "outside ops"), at_least=5, at_most=50),
            Claim(PAGE, "counted by the ops under each region, the eager call and the compiled one take about "
                  "as long", RegionTimeRatio("eager", "compiled", "in ops"), at_least=0.8, at_most=1.25),
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
            Claim(PAGE, "the kernel's own name, as an op, with `cuLaunchKernel` under it",
                  OpsInRegion("Torch-Compiled Region: 0/0", "cuLaunchKernel"), at_least=1, at_most=1),
            Claim(PAGE, "not `cudaLaunchKernel`",
                  OpsInRegion("Torch-Compiled Region: 0/0", "cudaLaunchKernel"), at_least=0, at_most=0),
            Claim(PAGE, "every Triton kernel of the A100's trace is launched by one of those three calls",
                  LaunchedBy(TRITON_LAUNCHES), at_least=1, at_most=1),
        ),
    ),
    tracelens_trace(
        "compile-b200-vllm", "b200-vllm",
        figure=Figure(trees=(B200_COMPILED,)),
        claims=(
            Claim(PAGE, "its Triton kernel is launched by `cuLaunchKernel` as well",
                  LaunchedBy(("cuLaunchKernel",)), at_least=1, at_most=1),
            Claim(MLP, "its one compiled graph launches a single Triton kernel", KernelsDecoded("triton"),
                  at_least=1, at_most=1),
            Claim(MLP, "and neither does the B200's trace", CallCount("cudaOccupancy"), at_least=0, at_most=0),
            Claim(MLP, "whose name lists the eight operations it fused",
                  KernelsDecoded("triton", "fused", "add_bitwise_and_bitwise_not_bitwise_or_ge_lt_mul_sub"),
                  at_least=1, at_most=1),
        ),
    ),
)
