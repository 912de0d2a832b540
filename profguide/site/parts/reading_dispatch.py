"""The recordings of Part 2, Reading the output: from `@` to a kernel, the dispatch chain."""

from profguide.site.parts.reading_waits import HTA
from profguide.site.recordings import Claim, Figure, OccupancyQueries, OpsInRegion, RealTrace, Recording

PAGE = "reading-output/dispatch.md"

RECORDINGS = (
    Recording(
        id="reading-dispatch",
        module="snippets.reading.dispatch",
        function="profile_cases",
        params={"size": 256},
        title="One matrix multiply written six ways, {size}×{size}",
        claims=(
            Claim(PAGE, "`@` on two 2-D tensors calls `aten::matmul`, which calls `aten::mm`",
                  OpsInRegion("x @ w, 2-D", "aten::mm"), at_least=1, at_most=1),
            Claim(PAGE, "folds the batch into the rows and makes one `aten::mm`",
                  OpsInRegion("x @ w, 3-D by 2-D", "aten::mm"), at_least=1, at_most=1),
            Claim(PAGE, "folds the batch into the rows and makes one `aten::mm`",
                  OpsInRegion("x @ w, 3-D by 2-D", "aten::bmm"), at_least=0, at_most=0),
            Claim(PAGE, "two batched operands go to `aten::bmm`",
                  OpsInRegion("x @ y, 3-D by 3-D", "aten::bmm"), at_least=1, at_most=1),
            Claim(PAGE, "`nn.Linear` on a 2-D input is `aten::linear`, then `aten::addmm`",
                  OpsInRegion("nn.Linear", "aten::addmm"), at_least=1, at_most=1),
            Claim(PAGE, "the transposed input is copied first",
                  OpsInRegion("nn.Linear, transposed 3-D input", "aten::copy_"), at_least=1),
            Claim(PAGE, "the bias is added by a separate `aten::add_`",
                  OpsInRegion("nn.Linear, transposed 3-D input", "aten::add_"), at_least=1, at_most=1),
            Claim(PAGE, "the bias is added by a separate `aten::add_`",
                  OpsInRegion("nn.Linear, transposed 3-D input", "aten::addmm"), at_least=0, at_most=0),
            Claim(PAGE, "`aten::mm` itself copies the strided slice",
                  OpsInRegion("x[:, ::2] @ w, strided", "aten::copy_"), at_least=1),
        ),
    ),
)

REAL_TRACES = (
    RealTrace(
        id="reading-a100-2rank-launches",
        file="docs/traces/a100_nccl_2rank_rank0.json.gz",
        title="Launches and occupancy queries in a data-parallel training job on two A100s, rank 0",
        **HTA,
        figure=Figure(trees=("aten::linear", "aten::mm", "aten::add_")),
        claims=(
            Claim(PAGE, "every occupancy query in this trace is followed by the launch of a matrix-multiply kernel",
                  OccupancyQueries("gemm", "queries"), at_least=1),
            Claim(PAGE, "none of its elementwise kernels is launched right after one",
                  OccupancyQueries("elementwise", "launches"), at_most=0),
            Claim(PAGE, "not every matrix-multiply launch comes after a query",
                  OccupancyQueries("gemm", "launches"), at_most=0.99),
            Claim(PAGE, "their names contain `cudnn`) launch without one",
                  OccupancyQueries("gemm", "launches", name_contains="cudnn"), at_most=0),
        ),
    ),
)
