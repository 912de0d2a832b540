"""The recordings of Part 2, Reading the output: Where the GPU waits; and the real traces it shows."""

from profguide.site.recordings import (
    Claim,
    Figure,
    GpuBusyShare,
    IdleShare,
    MeanOverMedian,
    PeakShare,
    QueueingOverLaunch,
    RealTrace,
    Recording,
    SyncOverStep,
    SyncsPerStep,
)

PAGE = "reading-output/gpu-waits.md"
# docs/traces/README.md: copies of HolisticTraceAnalysis's test data, MIT licence in docs/traces/LICENSE.
HTA = {"source": "HolisticTraceAnalysis test data, commit f4d0062c",
       "source_url": "https://github.com/facebookresearch/HolisticTraceAnalysis/tree/f4d0062c",
       "licence": "MIT"}

RECORDINGS = (
    Recording(
        id="reading-gemm-flops",
        module="snippets.reading.gemm_flops",
        function="profile_gemm",
        params={"size": 8192, "dtype": "bfloat16", "calls": 5},
        cpu_params={"size": 512, "dtype": "float32"},
        title="{calls} multiplies of {size}×{size} {dtype} matrices, FLOPs counted",
        claims=(
            Claim(PAGE, "reaches more than half of the datasheet's peak", PeakShare(), at_least=0.5, device="cuda"),
        ),
    ),
)

REAL_TRACES = (
    RealTrace(
        id="reading-a100-2rank",
        file="docs/traces/a100_nccl_2rank_rank0.json.gz",
        title="A data-parallel training job on two A100s, rank 0",
        **HTA,
        figure=Figure(step=5),
        claims=(
            Claim(PAGE, "The GPU was busy less than a third of the time", GpuBusyShare(), at_most=1 / 3),
            Claim(PAGE, "most of the window went by with the GPU waiting for the host to launch",
                  IdleShare("host"), at_least=0.5),
            Claim(PAGE, "waited more than ten times as long as an op launched onto an empty stream",
                  QueueingOverLaunch(), at_least=10),
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
                  IdleShare("queued"), at_least=0.5),
            Claim(PAGE, "Every step calls a synchronisation at least ten times", SyncsPerStep(), at_least=10),
            Claim(PAGE, "the longest synchronisation lasts more than half a step", SyncOverStep(), at_least=0.5),
            Claim(PAGE, "its mean is more than three times its median", MeanOverMedian(), at_least=3),
        ),
    ),
)
