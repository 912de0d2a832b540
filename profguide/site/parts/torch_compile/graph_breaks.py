"""The recording of torch.compile, *Graph breaks*; and a real trace whose `.item()` breaks the graph."""

from profguide.site.measures.ops import NamedInRegion, NestedIn, OpsInRegion
from profguide.site.measures.timing import RegionTimeRatio
from profguide.site.parts import tracelens_trace
from profguide.site.parts.torch_compile.in_a_trace import GRAPH_CALL
from profguide.site.recordings import Claim, Figure, Recording

PAGE = "torch-compile/graph-breaks.md"

RECORDINGS = (
    Recording(
        id="compile-graph-break",
        module="snippets.torch_compile.graph_breaks",
        function="profile_graph_break",
        params={"size": 1024},
        cpu_params={"size": 256},
        title="A compiled function with a graph break, {size}×{size}",
        claims=(
            Claim(PAGE, "each call runs two compiled regions", NamedInRegion("call", "Torch-Compiled Region"),
                  at_least=2, at_most=2),
            Claim(PAGE, "each call runs two compiled regions", NamedInRegion("call", GRAPH_CALL),
                  at_least=2, at_most=2),
            Claim(PAGE, "Between them, outside any graph, runs `aten::item`", OpsInRegion("call", "aten::item"),
                  at_least=1, at_most=1),
            Claim(PAGE, "Its graph calls `aten::mm`", OpsInRegion("Torch-Compiled Region: 0/0", "aten::mm"),
                  at_least=1, at_most=1),
            Claim(PAGE, "so it has no `aten::` op under it", NamedInRegion("Torch-Compiled Region: 1/0", "aten::"),
                  at_least=0, at_most=0),
            Claim(PAGE, "spends many times as long in no op as either call after it",
                  RegionTimeRatio("call", "call", "outside ops"), at_least=5, at_most=50),
            Claim(PAGE, "and a second cache lookup", NamedInRegion("call", "TorchDynamo Cache Lookup"),
                  at_least=2, at_most=2),
        ),
    ),
)

REAL_TRACES = (
    tracelens_trace(
        "compile-h100-bert-item", "h100-bert",
        figure=Figure(trees=("aten::is_nonzero",)),
        claims=(
            Claim(PAGE, "its `aten::item` holds a `cudaStreamSynchronize`",
                  NestedIn("aten::item", "cudaStreamSynchronize"), at_least=1, at_most=1),
        ),
    ),
)
