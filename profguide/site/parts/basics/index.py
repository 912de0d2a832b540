"""The recordings of Basics, *Your first profile*: a matmul plus bias add; and the real GPU traces that show what
its CPU stand-ins can only predict."""

from profguide.site.parts import tracelens_trace
from profguide.site.recordings import (
    BusiestGemmSpread,
    Claim,
    CpuShare,
    DeviceShare,
    Figure,
    FirstOverRest,
    GpuBusyShare,
    OpShare,
    OpsInRegion,
    OpTotal,
    OutsideOps,
    Recording,
    SyncBusyShare,
    SyncOverKernels,
    VerdictIs,
    exactly,
)

PAGE = "basics/index.md"
FIRST_TRACE = "basics/first-trace.md"
STEPS = "basics/steps.md"
LINEAR_PAGE = "inside-a-model/linear.md"
FIRST_PROFILE = "snippets.basics.index"
FIRST_PROFILE_FIGURE = Figure(
    brackets=("matmul_bias", "cudaDeviceSynchronize"),
    highlight=("aten::mm",),
    callouts=("matmul_bias", "aten::mm", "cudaLaunchKernel", "aten::add", "cudaDeviceSynchronize"),
    region="matmul_bias",
)

RECORDINGS = (
    Recording(
        id="basics-matmul-64",
        module=FIRST_PROFILE,
        function="profile_matmul_bias",
        params={"size": 64},
        title="Matmul plus bias add on {size}×{size} inputs",
        figure=FIRST_PROFILE_FIGURE,
        claims=(
            # "Idle most of the time": busy under half of the GPU's window, as little as the work is small.
            Claim(PAGE, "the GPU should sit idle most of the time", GpuBusyShare(), at_least=0,
                  at_most=0.5, device="cuda"),
            Claim("basics/first-trace.md", "with the small input, most of the region is empty space",
                  CpuShare("matmul_bias", "matmul_bias"), at_least=0.5, at_most=0.9, device="cpu"),
            *(exactly(LINEAR_PAGE, "records `aten::matmul`, `aten::mm` and then `aten::add`",
                      OpsInRegion("matmul_bias", op), 1) for op in ("aten::matmul", "aten::mm", "aten::add")),
        ),
    ),
    Recording(
        id="basics-matmul-64-calls",
        module=FIRST_PROFILE,
        function="profile_matmul_bias",
        params={"size": 64, "calls": 5},
        title="Matmul plus bias add on {size}×{size} inputs, called {calls} times",
        figure=FIRST_PROFILE_FIGURE,
        claims=(
            Claim(PAGE, "The first call is more than ten times slower than any later one",
                  FirstOverRest("matmul_bias"), at_least=10, at_most=100),
            Claim(PAGE, "a large share of every later call is spent in no operator at all",
                  OutsideOps("matmul_bias"), at_least=0.25, at_most=0.75),
        ),
    ),
    Recording(
        id="basics-matmul-4096",
        module=FIRST_PROFILE,
        function="profile_matmul_bias",
        params={"size": 4096},
        title="Matmul plus bias add on {size}×{size} inputs",
        figure=FIRST_PROFILE_FIGURE,
        claims=(
            Claim(PAGE, "With 4096×4096 inputs, `aten::mm` takes about nine tenths of the time",
                  CpuShare("aten::mm", "matmul_bias"), at_least=0.85, at_most=0.95, device="cpu"),
            Claim(PAGE, "the time in no operator fades to under a hundredth of the region",
                  CpuShare("matmul_bias", "matmul_bias"), at_least=0, at_most=0.01, device="cpu"),
            exactly(PAGE, "`profguide explain` calls this CPU run `host-compute-bound`",
                    VerdictIs("host-compute-bound"), 1, device="cpu"),
            Claim(PAGE, "the multiply's kernel should take nearly all of the kernel time",
                  DeviceShare("aten::mm"), at_least=0.9, at_most=1, device="cuda"),
            Claim(PAGE, "`aten::matmul` has a small self time and `aten::mm` a large one",
                  CpuShare("aten::matmul", "aten::mm"), at_least=0, at_most=0.1, device="cpu"),
            Claim("basics/first-trace.md", "with the large one, `aten::mm` fills about nine tenths of it",
                  CpuShare("aten::mm", "matmul_bias"), at_least=0.85, at_most=0.95, device="cpu"),
            # "About as long as": the sync lasts about as long as the kernels it waits for, all of them.
            Claim("basics/first-trace.md", "for the large input, about as long as the GPU's kernels together",
                  SyncOverKernels(), at_least=0.8, at_most=1.25, device="cuda"),
        ),
    ),
)

REAL_TRACES = (
    tracelens_trace(
        "basics-h100-bert", "h100-bert",
        claims=(
            Claim(PAGE, "its GPU was busy for under a tenth of the window", GpuBusyShare(), at_least=0,
                  at_most=0.1),
            Claim(PAGE, "`aten::empty` is called several dozen times", OpTotal("aten::empty", "calls"),
                  at_least=36, at_most=119),
            exactly(PAGE, "launches no GPU work", OpTotal("aten::empty", "device_us"), 0),
            Claim(PAGE, "its calls together take between two and three times the CPU time of the "
                  "`aten::_flash_attention_forward` calls", OpShare("aten::empty", "aten::_flash_attention_forward",
                                                                    "self_cpu_us"), at_least=2, at_most=3),
            Claim(FIRST_TRACE, "its longest synchronisation lasts under a thirtieth of the time of all its kernels",
                  SyncOverKernels(), at_least=0, at_most=1 / 30),
            Claim(FIRST_TRACE, "the GPU is busy for under a third of that longest synchronisation", SyncBusyShare(),
                  at_least=0, at_most=1 / 3),
        ),
    ),
    tracelens_trace(
        "basics-h100-qwen", "h100-qwen",
        claims=(
            Claim(PAGE, "the GPU is busy through nearly all of the longest `cudaDeviceSynchronize`",
                  SyncBusyShare(), at_least=0.9, at_most=1),
            Claim(STEPS, "its slowest call took less than a twentieth longer than the median one",
                  BusiestGemmSpread("max"), at_least=1, at_most=1.05),
        ),
    ),
)
