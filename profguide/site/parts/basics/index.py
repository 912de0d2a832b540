"""The recordings of Part 1, Basics: a matmul plus bias add, a loop of steps, a CPU-only run; and the real GPU
traces that show what the CPU stand-ins of the first page can only predict."""

from profguide.site.parts.reading_waits import HTA, tracelens_trace
from profguide.site.recordings import (
    BusiestGemmSpread,
    Claim,
    CpuShare,
    DeviceSetupCall,
    DeviceSetupShare,
    DeviceShare,
    Encloses,
    Figure,
    FirstOverRest,
    GpuBusyShare,
    LaunchGap,
    OpShare,
    OpsInRegion,
    OpTotal,
    OutsideOps,
    RealTrace,
    Recording,
    RegionTimeRatio,
    SlowestOverFastest,
    StepCount,
    StepNumber,
    SyncBusyShare,
    SyncOverKernels,
    VerdictIs,
    exactly,
)

FIRST_PROFILE = "snippets.basics.index"
FIRST_PROFILE_FIGURE = Figure(
    brackets=("matmul_bias", "cudaDeviceSynchronize"),
    highlight=("aten::mm",),
    callouts=("matmul_bias", "aten::mm", "cudaLaunchKernel", "aten::add", "cudaDeviceSynchronize"),
    region="matmul_bias",
)
TRAINING_STEPS = "snippets.basics.steps"
STEPS = "basics/steps.md"
LINEAR_PAGE = "inside-a-model/linear.md"
FIRST_TRACE = "basics/first-trace.md"
# The AlexNet benchmark's regions, named by its harness: "[param|…|warmup|forward]", "[param|…|measure|forward]".
ALEXNET = "[param|pytorch.model.alex_net|0|0|0|"
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
            # "Idle most of the time": busy under half of the GPU's window, as little as the work is small.
            Claim("basics/index.md", "the GPU should sit idle most of the time", GpuBusyShare(), at_least=0,
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
            exactly("basics/index.md", "`profguide explain` calls this CPU run `host-compute-bound`",
                    VerdictIs("host-compute-bound"), 1, device="cpu"),
            Claim("basics/index.md", "the multiply's kernel should take nearly all of the kernel time",
                  DeviceShare("aten::mm"), at_least=0.9, at_most=1, device="cuda"),
            Claim("basics/index.md", "`aten::matmul` has a small self time and `aten::mm` a large one",
                  CpuShare("aten::matmul", "aten::mm"), at_least=0, at_most=0.1, device="cpu"),
            Claim("basics/first-trace.md", "with the large one, `aten::mm` fills about nine tenths of it",
                  CpuShare("aten::mm", "matmul_bias"), at_least=0.85, at_most=0.95, device="cpu"),
            # "About as long as": the sync lasts about as long as the kernels it waits for, all of them.
            Claim("basics/first-trace.md", "for the large input, about as long as the GPU's kernels together",
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
            Claim(STEPS, "the first step is by far the slowest", FirstOverRest("ProfilerStep"),
                  at_least=2, at_most=100),
            Claim(STEPS, "the first step's `aten::mm` is more than twice as slow as any later one",
                  FirstOverRest("aten::mm"), at_least=2, at_most=10, device="cpu"),
            Claim(STEPS, "the first step's `forward` region spends more than twice as long outside its operators "
                  "as any later one", RegionTimeRatio("forward", "forward", "outside ops"), at_least=2,
                  at_most=100, device="cpu"),
            # The first multiply creates the cuBLAS handle and its workspace: milliseconds, against microseconds.
            Claim(STEPS, "on a GPU, the first step's `aten::mm` should take more than ten times as long as any "
                  "later one", FirstOverRest("aten::mm"), at_least=10, at_most=100_000, device="cuda"),
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
            Claim("basics/index.md", "`aten::empty` is called several dozen times", OpTotal("aten::empty", "calls"),
                  at_least=36, at_most=119),
            exactly("basics/index.md", "launches no GPU work", OpTotal("aten::empty", "device_us"), 0),
            Claim("basics/index.md", "its calls together take between two and three times the CPU time of the "
                  "`aten::_flash_attention_forward` calls", OpShare("aten::empty", "aten::_flash_attention_forward",
                                                                    "self_cpu_us"), at_least=2, at_most=3),
            Claim(FIRST_TRACE, "its longest synchronisation lasts under a thirtieth of the time of all its kernels",
                  SyncOverKernels(), at_least=0, at_most=1 / 30),
            Claim(FIRST_TRACE, "the GPU is busy for under a third of that longest synchronisation", SyncBusyShare(),
                  at_least=0, at_most=1 / 3),
        ),
    ),
    RealTrace(
        id="basics-a100-16rank",
        file="docs/traces/a100_80gb_nccl_16rank_rank0.json.gz",
        title="A training job on sixteen A100-80GBs, rank 0",
        **HTA,
        claims=(
            Claim(FIRST_TRACE, "a kernel queued behind earlier work started, at the median, more than half a step "
                  "after its launch", LaunchGap("queueing", per_step=True), at_least=0.5, at_most=1),
            Claim(FIRST_TRACE, "one launched onto an empty stream started within ten microseconds",
                  LaunchGap("launch delay"), at_least=0, at_most=10),
        ),
    ),
    tracelens_trace(
        "basics-h100-qwen", "h100-qwen",
        claims=(
            Claim("basics/index.md", "the GPU is busy through nearly all of the longest `cudaDeviceSynchronize`",
                  SyncBusyShare(), at_least=0.9, at_most=1),
            Claim(STEPS, "its slowest call took less than a twentieth longer than the median one",
                  BusiestGemmSpread("max"), at_least=1, at_most=1.05),
        ),
    ),
    RealTrace(
        id="basics-a100-alexnet",
        file="docs/traces/a100_alexnet_cuda_sync.json.gz",
        title="AlexNet on an A100, a warm-up forward then a measured one, under the autograd profiler",
        **HTA,
        claims=(
            Claim(STEPS, "the warm-up forward took more than a hundred times as long as the measured one",
                  RegionTimeRatio(ALEXNET + "warmup|forward]", ALEXNET + "measure|forward]", "in all"),
                  at_least=100, at_most=1000),
            Claim(STEPS, "nearly all of the trace's window is the device setting itself up", DeviceSetupShare(),
                  at_least=0.9, at_most=1),
            Claim(STEPS, "About half of that set-up time is in `cudaFree`", DeviceSetupCall("cudaFree"),
                  at_least=0.45, at_most=0.6),
            Claim(STEPS, "About a quarter is in launches", DeviceSetupCall("cudaLaunchKernel"), at_least=0.2,
                  at_most=0.3),
            Claim(STEPS, "about a sixth is in `cudaMalloc`", DeviceSetupCall("cudaMalloc"), at_least=0.13,
                  at_most=0.2),
        ),
    ),
)
