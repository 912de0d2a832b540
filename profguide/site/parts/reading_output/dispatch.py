"""The recordings of Part 2, Reading the output: from `@` to a kernel, the dispatch chain."""

from profguide.site.measures.host import OccupancyQueries, QueriesInside
from profguide.site.measures.ops import OpsInRegion
from profguide.site.measures.results import CpuShare
from profguide.site.parts import HTA
from profguide.site.recordings import Claim, Figure, RealTrace, Recording

PAGE = "reading-output/dispatch.md"
FIRST_CASE = "x @ w, 2-D"


def gemm_launches_after_a_query(says: str, name_contains: str, share: float) -> Claim:
    """A claim that ``share`` (0 or 1) of the launches of the kernels named ``name_contains`` follow a query."""
    return Claim(PAGE, says, OccupancyQueries("gemm", "launches", name_contains=name_contains),
                 at_least=share, at_most=share)


RECORDINGS = (
    Recording(
        id="reading-dispatch",
        module="snippets.reading_output.dispatch",
        function="profile_cases",
        params={"size": 256},
        title="One matrix multiply written six ways, {size}×{size}",
        claims=(
            Claim(PAGE, "`@` on two 2-D tensors calls `aten::matmul`, which calls `aten::mm`",
                  OpsInRegion(FIRST_CASE, "aten::mm"), at_least=1, at_most=1),
            Claim(PAGE, "most of the first region's time is spent in no operator at all",
                  CpuShare(FIRST_CASE, FIRST_CASE), at_least=0.5, at_most=0.9),
            Claim(PAGE, "folds the batch into the rows and makes one `aten::mm`",
                  OpsInRegion("x @ w, 3-D by 2-D", "aten::mm"), at_least=1, at_most=1),
            Claim(PAGE, "folds the batch into the rows and makes one `aten::mm`",
                  OpsInRegion("x @ w, 3-D by 2-D", "aten::bmm"), at_least=0, at_most=0),
            Claim(PAGE, "two batched operands go to `aten::bmm`",
                  OpsInRegion("x @ y, 3-D by 3-D", "aten::bmm"), at_least=1, at_most=1),
            Claim(PAGE, "`nn.Linear` on a 2-D input is `aten::linear`, then `aten::addmm`",
                  OpsInRegion("nn.Linear", "aten::addmm"), at_least=1, at_most=1),
            Claim(PAGE, "the transposed input is copied first",
                  OpsInRegion("nn.Linear, transposed 3-D input", "aten::copy_"), at_least=1, at_most=1),
            Claim(PAGE, "the bias is added by a separate `aten::add_`",
                  OpsInRegion("nn.Linear, transposed 3-D input", "aten::add_"), at_least=1, at_most=1),
            Claim(PAGE, "the bias is added by a separate `aten::add_`",
                  OpsInRegion("nn.Linear, transposed 3-D input", "aten::addmm"), at_least=0, at_most=0),
            Claim("inside-a-model/linear.md", "a transposed 3-D input makes `nn.Linear` add its bias with an "
                  "in-place `aten::add_`", OpsInRegion("nn.Linear, transposed 3-D input", "aten::add_"), at_least=1,
                  at_most=1),
            Claim(PAGE, "`aten::mm` itself copies the strided slice",
                  OpsInRegion("x[:, ::2] @ w, strided", "aten::copy_", under="aten::mm"), at_least=1, at_most=1),
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
            Claim(PAGE, "The first `aten::addmm` makes two launches", OpsInRegion("aten::addmm", "cudaLaunchKernel"),
                  at_least=2, at_most=2),
            Claim(PAGE, "every occupancy query in this trace is followed by the launch of a matrix-multiply kernel",
                  OccupancyQueries("gemm", "queries"), at_least=1, at_most=1),
            Claim(PAGE, "none of its elementwise kernels is launched right after one",
                  OccupancyQueries("elementwise", "launches"), at_least=0, at_most=0),
            Claim(PAGE, "under half of the matrix-multiply launches come right after a query",
                  OccupancyQueries("gemm", "launches"), at_least=0.25, at_most=0.5),
            gemm_launches_after_a_query("Every launch of a `cutlass::Kernel` comes right after one",
                                        "cutlass::Kernel", 1),
            Claim(PAGE, "nearly all of the queries are made inside a convolution", QueriesInside("convolution"),
                  at_least=0.9, at_most=1),
            # Every convolution kernel of the trace carries "cudnn" in its name, cuDNN's CUTLASS and xmma ones too.
            gemm_launches_after_a_query("cuDNN's own convolution kernels launch without one", "cudnn", 0),
            gemm_launches_after_a_query("`ampere_sgemm_32x128_nt` comes right after a query", "32x128_nt", 1),
            gemm_launches_after_a_query("`ampere_sgemm_32x32_sliced1x4_tn` never does", "sliced1x4", 0),
        ),
    ),
)
