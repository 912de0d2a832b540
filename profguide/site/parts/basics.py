"""The recordings of Part 1, Basics: a matmul plus bias add, a loop of steps, a CPU-only run; and the real GPU
traces that show what the CPU stand-ins of the first page can only predict."""

from profguide.site.parts.reading_waits import tracelens_trace
from profguide.site.recordings import (
    Claim,
    CpuShare,
    DeviceShare,
    Encloses,
    Figure,
    FirstOverRest,
    GpuBusyShare,
    OutsideOps,
    Recording,
    SlowestOverFastest,
    StepCount,
    StepNumber,
    SyncBusyShare,
    SyncOverKernels,
)

FIRST_PROFILE = "snippets.basics.first_profile"
FIRST_PROFILE_FIGURE = Figure(
    brackets=("matmul_bias", "cudaDeviceSynchronize"),
    highlight=("aten::mm",),
    callouts=("matmul_bias", "aten::mm", "cudaLaunchKernel", "aten::add", "cudaDeviceSynchronize"),
    region="matmul_bias",
)
TRAINING_STEPS = "snippets.basics.training_steps"
STEPS_CPU_PARAMS = {"size": 256}

RECORDINGS = (
    Recording(
        id="basics-matmul-64",
        module=FIRST_PROFILE,
        function="profile_matmul_bias",
        params={"size": 64},
        title="Matmul plus bias add on {size}×{size} inputs",
        figure=FIRST_PROFILE_FIGURE,
        claims=(
            Claim("basics/first-trace.md", "with the small input, most of the region is empty space",
                  CpuShare("matmul_bias", "matmul_bias"), at_least=0.5, at_most=0.9, device="cpu"),
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
            Claim("basics/index.md", "The first call is more than ten times slower than any later one",
                  FirstOverRest("matmul_bias"), at_least=10, at_most=100),
            Claim("basics/index.md", "a large share of every later call is spent in no operator at all",
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
            Claim("basics/index.md", "With 4096×4096 inputs, `aten::mm` takes about nine tenths of the time",
                  CpuShare("aten::mm", "matmul_bias"), at_least=0.85, at_most=0.95, device="cpu"),
            Claim("basics/index.md", "the time in no operator fades to under a hundredth of the region",
                  CpuShare("matmul_bias", "matmul_bias"), at_least=0, at_most=0.01, device="cpu"),
            Claim("basics/index.md", "the multiply's kernel should take nearly all of the kernel time",
                  DeviceShare("aten::mm"), at_least=0.9, at_most=1, device="cuda"),
            Claim("basics/index.md", "`aten::matmul` has a small self time and `aten::mm` a large one",
                  CpuShare("aten::matmul", "aten::mm"), at_least=0, at_most=0.1, device="cpu"),
            Claim("basics/first-trace.md", "with the large one, `aten::mm` fills about nine tenths of it",
                  CpuShare("aten::mm", "matmul_bias"), at_least=0.85, at_most=0.95, device="cpu"),
            # "About as long as": the sync lasts about as long as the kernels it waits for.
            Claim("basics/first-trace.md", "for the large input, about as long as the multiply's kernel",
                  SyncOverKernels(), at_least=0.8, at_most=1.25, device="cuda"),
        ),
    ),
    Recording(
        id="basics-steps-scheduled",
        module=TRAINING_STEPS,
        function="profile_steps",
        params={"size": 4096, "steps": 8, "wait": 1, "warmup": 1, "active": 3},
        cpu_params=STEPS_CPU_PARAMS,
        title="{steps} steps under schedule(wait={wait}, warmup={warmup}, active={active}), size {size}",
        figure=Figure(brackets=("ProfilerStep#3",), callouts=("forward", "reduce")),
        claims=(
            Claim("index.md", "a schedule that records three of them", StepCount(), at_least=3, at_most=3),
            Claim("basics/steps.md", "The table starts at step 2", StepNumber("first"), at_least=2, at_most=2),
            Claim("basics/steps.md", "It ends with step 4", StepNumber("last"), at_least=4, at_most=4),
            Claim("basics/steps.md", "no recorded step is even twice as slow as another",
                  SlowestOverFastest("ProfilerStep"), at_least=1, at_most=2),
        ),
    ),
    Recording(
        id="basics-steps-from-first",
        module=TRAINING_STEPS,
        function="profile_steps",
        params={"size": 4096, "steps": 5, "wait": 0, "warmup": 0, "active": 5},
        cpu_params=STEPS_CPU_PARAMS,
        title="{steps} steps recorded from the very first, size {size}",
        figure=Figure(spread="aten::mm"),
        claims=(
            Claim("basics/steps.md", "the first step is by far the slowest", FirstOverRest("ProfilerStep"),
                  at_least=2, at_most=100),
            Claim("basics/steps.md", "the first step's `aten::mm` is more than twice as slow as any later one",
                  FirstOverRest("aten::mm"), at_least=2, at_most=10, device="cpu"),
        ),
    ),
    Recording(
        id="basics-cpu-only",
        module="snippets.basics.cpu_only",
        function="profile_on_cpu",
        params={"size": 1024},
        device="cpu",
        title="Matmul plus bias add on {size}×{size} inputs, CPU only",
        claims=(
            Claim("basics/cpu-only.md", "the region on top, `aten::matmul` and under it `aten::mm`",
                  Encloses("aten::matmul", "aten::mm"), at_least=1, at_most=1),
            Claim("basics/cpu-only.md", "`aten::mm` alone has most of the self CPU time",
                  CpuShare("aten::mm", "matmul_bias"), at_least=0.5, at_most=0.9),
        ),
    ),
)

REAL_TRACES = (
    tracelens_trace(
        "basics-h100-bert", "h100-bert",
        claims=(
            Claim("basics/index.md", "its GPU was busy for under a tenth of the window", GpuBusyShare(), at_least=0,
                  at_most=0.1),
        ),
    ),
    tracelens_trace(
        "basics-h100-qwen", "h100-qwen",
        claims=(
            Claim("basics/index.md", "the GPU is busy through nearly all of the longest `cudaDeviceSynchronize`",
                  SyncBusyShare(), at_least=0.9, at_most=1),
        ),
    ),
)
