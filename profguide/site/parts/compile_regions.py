"""The recordings of Part 4, torch.compile: compiled code in a trace, what compiling costs, graph breaks."""

from profguide.site.parts.reading_waits import HTA
from profguide.site.recordings import (
    CallsThatCompile,
    Claim,
    Figure,
    FirstOverMedian,
    NamedInRegion,
    OpsInRegion,
    RealTrace,
    Recording,
)

IN_A_TRACE, COST, BREAKS = "torch-compile/in-a-trace.md", "torch-compile/cost.md", "torch-compile/graph-breaks.md"
GRAPH_CALL = "## Call CompiledFxGraph"


def calls_recording(recording_id, dynamic, claims):
    """The calls of the compiled function as the rows change, compiled with ``dynamic``: one of three runs that
    the cost page's calls table puts side by side."""
    return Recording(id=recording_id, module="snippets.compile.cost", function="profile_calls",
                     params={"dynamic": dynamic, "cold": True},
                     title="The calls of a compiled x @ w + b as the rows of x change, dynamic={dynamic}",
                     figure=Figure(region="call"), claims=claims)


RECORDINGS = (
    Recording(
        id="compile-in-a-trace",
        module="snippets.compile.in_a_trace",
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
            Claim(IN_A_TRACE, "the ReLU has no event of its own",
                  OpsInRegion("compiled, with a ReLU", "aten::addmm"), at_least=1, at_most=1),
            Claim(IN_A_TRACE, "its kernels are launched with `cuLaunchKernel`",
                  OpsInRegion("compiled, with a ReLU", "cuLaunchKernel"), at_least=1, device="cuda"),
        ),
    ),
    calls_recording("compile-cost", None, (
        Claim(COST, "The first call took many times as long as the calls after it", FirstOverMedian("call"),
              at_least=20),
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
        module="snippets.compile.graph_breaks",
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
                  at_most=0),
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
        ),
    ),
)
