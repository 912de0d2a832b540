"""The recordings of Part 2, Reading the output: Where the GPU waits; and the real traces it shows."""

from profguide.site.measures.host import (
    LongestSyncAfterSteps,
    OverheadEvents,
    QueueingOverLaunch,
    SyncInsideStep,
    SyncOverStep,
    SyncsPerStep,
)
from profguide.site.measures.kernels import KernelsDecoded, KernelsJoined, KernelSpread, MeanOverMedian, PeakShare
from profguide.site.measures.ops import OpsWithShapes
from profguide.site.measures.summary import DeviceSetupShare, ExplainBusyShare, IdleBelowHtas, IdleShare
from profguide.site.measures.timing import OpOverKernelMedian
from profguide.site.parts import HTA, tracelens_trace
from profguide.site.recordings import Claim, Figure, RealTrace, Recording

PAGE = "reading-output/gpu-waits.md"
FOOTPRINT = "reading-output/footprint.md"
REFERENCE = "reference/explain.md"
NO_BUFFER_REQUEST = "Neither A100 trace of *Where the GPU waits* holds one"
VIEW_OVER_KERNEL = ("Even `aten::view`, which makes a new view of a tensor's sizes and does no arithmetic, takes "
                    "longer at the median than the median kernel, though less than twice as long")
# The matrix multiplies from NVIDIA's CUTLASS templates, by name: most of the GEMM kernels of the 16-rank trace, the
# rest being cuBLAS's ("gemm" would take in fbgemm_gpu's kernels, which are no matrix multiplies).
CUTLASS = "cutlass"

RECORDINGS = (
    Recording(
        id="reading-gemm-flops",
        module="snippets.reading_output.gpu_waits",
        function="profile_gemm",
        params={"size": 8192, "dtype": "bfloat16", "calls": 5},
        cpu_params={"size": 512, "dtype": "float32"},
        title="{calls} multiplies of {size}×{size} {dtype} matrices, FLOPs counted",
    ),
)

REAL_TRACES = (
    tracelens_trace(
        "reading-h100-qwen-gemms", "h100-qwen",
        claims=(
            Claim(PAGE, "the multiply with the most kernel time reaches more than half of the datasheet's bf16 "
                  "peak, but not two thirds", PeakShare(), at_least=0.5, at_most=2 / 3),
        ),
    ),
    RealTrace(
        id="reading-a100-2rank",
        file="docs/traces/a100_nccl_2rank_rank0.json.gz",
        title="A data-parallel training job on two A100s, rank 0",
        **HTA,
        figure=Figure(step=5),
        claims=(
            Claim(PAGE, "the GPU was busy about a quarter of the window", ExplainBusyShare(), at_least=0.2,
                  at_most=0.3),
            Claim(PAGE, "most of the window went by with the GPU waiting for the host to launch",
                  IdleShare("host"), at_least=0.5, at_most=0.9),
            Claim(PAGE, VIEW_OVER_KERNEL, OpOverKernelMedian("aten::view"), at_least=1, at_most=2),
            Claim(PAGE, "waited more than ten times as long as an op launched onto an empty stream",
                  QueueingOverLaunch(), at_least=10, at_most=100),
            Claim(PAGE, "The two-rank trace records no op's input shapes", OpsWithShapes(), at_least=0, at_most=0),
            Claim(FOOTPRINT, NO_BUFFER_REQUEST, OverheadEvents(), at_least=0, at_most=0),
        ),
    ),
    RealTrace(
        id="reading-a100-16rank",
        file="docs/traces/a100_80gb_nccl_16rank_rank0.json.gz",
        title="A training job on sixteen A100-80GBs, rank 0",
        **HTA,
        figure=Figure(step=552),
        claims=(
            Claim(PAGE, "the GPU sat idle for most of the window with its next op already queued",
                  IdleShare("queued"), at_least=0.5, at_most=0.9),
            Claim(PAGE, "Every step calls a synchronisation at least ten times", SyncsPerStep(), at_least=10,
                  at_most=30),
            Claim(PAGE, "none of them lasts a hundredth of its step", SyncInsideStep(), at_least=0, at_most=0.01),
            Claim(PAGE, "the GPU spent less than a hundredth of the window waiting for a host blocked in a sync",
                  IdleShare("sync"), at_least=0, at_most=0.01),
            Claim(PAGE, "The longest synchronisation of the trace starts only after the last step has ended",
                  LongestSyncAfterSteps(), at_least=1, at_most=1),
            Claim(PAGE, "it lasts longer than half a step", SyncOverStep(), at_least=0.5, at_most=1),
            Claim(PAGE, "its mean is about five times its median", MeanOverMedian(), at_least=4, at_most=6.5),
            Claim(PAGE, "its p95 dozens of times", KernelSpread("ncclKernel_SendRecv", "p95", "most"),
                  at_least=24, at_most=100),
            Claim(PAGE, "about five in six of its GEMM launches are CUTLASS kernels",
                  KernelsDecoded("gemm", "library", "CUTLASS"), at_least=0.78, at_most=0.88),
            Claim(PAGE, "and about one in six are cuBLAS's", KernelsDecoded("gemm", "library", "cuBLAS"),
                  at_least=0.12, at_most=0.22),
            Claim(PAGE, "every CUTLASS matrix multiply in this trace has its p95 within a third of its median",
                  KernelSpread(CUTLASS, "p95", "most"), at_least=1, at_most=4 / 3),
            Claim(PAGE, "one of them has its mean well below its median",
                  KernelSpread(CUTLASS, "mean", "least"), at_least=0.5, at_most=0.9),
            Claim(PAGE, "The sixteen-rank trace records them for nearly every op", OpsWithShapes(), at_least=0.9,
                  at_most=1),
            Claim(PAGE, "none of its kernels carries the `External id` of an op", KernelsJoined(), at_least=0,
                  at_most=0),
            Claim(FOOTPRINT, NO_BUFFER_REQUEST, OverheadEvents(), at_least=0, at_most=0),
            Claim(REFERENCE, "kernels launched before the trace began make `explain`'s idle share lower than "
                  "HTA's", IdleBelowHtas(), at_least=0.005, at_most=1),
        ),
    ),
    RealTrace(
        id="reference-a100-alexnet",
        file="docs/traces/a100_alexnet_cuda_sync.json.gz",
        title="AlexNet on an A100, with its warm-up, under the autograd profiler",
        **HTA,
        claims=(
            Claim(REFERENCE, "The A100 AlexNet trace in the table below is one", DeviceSetupShare(), at_least=0.5,
                  at_most=1),
        ),
    ),
)
