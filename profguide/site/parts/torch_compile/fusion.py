"""The recordings of Part 4, torch.compile: fusion, and overhead against when compiling pays; and the real traces:
BERT's GEMMs on an H100, which add their own bias, and the compiled calls that replay CUDA graphs."""

from profguide.site.parts.reading_waits import HTA, tracelens_trace
from profguide.site.recordings import (
    Claim,
    CompileMarker,
    CpuShare,
    DiffRows,
    Figure,
    KernelsInside,
    LaunchedBy,
    MedianStepRatio,
    OpMedianInRegions,
    OpMedianOver,
    OpsInRegion,
    PerStepFall,
    RealTrace,
    Recording,
    StepTimeRatio,
)

FUSION_PAGE = "torch-compile/fusion.md"
PAYS_PAGE = "torch-compile/when-it-pays.md"
EXPLAIN_PAGE = "reference/explain.md"
FUSION = "snippets.torch_compile.fusion"
TURNS = "snippets.torch_compile.fusion_turns"
OVERHEAD = "snippets.torch_compile.when_it_pays"
MLP = {"width": 512, "hidden": 2048, "batch": 64}
MLP_ON_CPU = {"width": 128, "hidden": 512, "batch": 16}
BACKWARD = "CompiledFunctionBackward"

RECORDINGS = (
    Recording(
        id="compile-fusion-eager",
        module=FUSION,
        function="profile_mlp",
        params={"compiled": False, "steps": 5, **MLP},
        cpu_params=MLP_ON_CPU,
        title="The MLP ({width} → {hidden} → {width}, batch {batch}), eager: {steps} steps",
    ),
    Recording(
        id="compile-fusion-compiled",
        module=FUSION,
        function="profile_mlp",
        params={"compiled": True, "steps": 5, **MLP},
        cpu_params=MLP_ON_CPU,
        title="The MLP ({width} → {hidden} → {width}, batch {batch}), compiled: {steps} steps",
        compared_with="compile-fusion-eager",
        claims=(
            # "some": at least one row (an op by name and input shapes), and far from all of the eager run's
            Claim(FUSION_PAGE, "Some of the eager run's ops are gone from the compiled one", DiffRows("ops", "removed"),
                  at_least=1, at_most=12),
            Claim(FUSION_PAGE, "the compiled one has ops of its own that the eager one lacks",
                  DiffRows("ops", "added"), at_least=1, at_most=12),
            Claim(FUSION_PAGE, "The compiled step records fewer ops than the eager one, but more than half as many",
                  PerStepFall("ops", "compile-fusion-eager"), at_least=1.1, at_most=2),
            Claim(FUSION_PAGE, "about two fifths as many of them are `aten::` ops",
                  PerStepFall("aten_ops", "compile-fusion-eager"), at_least=2, at_most=3.4),
            Claim(FUSION_PAGE, "On a GPU, the compiled step should launch about as many kernels as the eager one, "
                  "and no more", PerStepFall("kernels", "compile-fusion-eager"), at_least=1, at_most=1.5,
                  device="cuda"),
            Claim(FUSION_PAGE, "On the CPU, the compiled step took two to four times as long as the eager one",
                  MedianStepRatio("compile-fusion-eager"), at_least=2, at_most=4, device="cpu"),
            Claim(FUSION_PAGE, "`aten::addmm`, the same library call in both runs, took about twice as long in the "
                  "compiled one", OpMedianOver("aten::addmm", "compile-fusion-eager"), at_least=1.6, at_most=2.5,
                  device="cpu"),
        ),
    ),
    Recording(
        id="compile-fusion-turns",
        module=TURNS,
        function="profile_taking_turns",
        params={"rounds": 20, **MLP},
        cpu_params=MLP_ON_CPU,
        title="The MLP ({width} → {hidden} → {width}, batch {batch}), eager and compiled taking turns in one "
              "process: {rounds} calls each",
        figure=Figure(trees=("eager", "compiled")),
        claims=(
            Claim(FUSION_PAGE, "`aten::addmm` took about as long in the compiled calls as in the eager ones",
                  OpMedianInRegions("aten::addmm", "compiled", "eager"), at_least=0.8, at_most=1.25, device="cpu"),
        ),
    ),
    Recording(
        id="compile-pays-small",
        module=OVERHEAD,
        function="time_eager_and_compiled",
        params={"width": 64, "hidden": 256, "batch": 8, "steps": 5, "rounds": 20},
        title="Eager against compiled, small MLP ({width} → {hidden} → {width}, batch {batch})",
        claims=(
            Claim(PAYS_PAGE, "At the small size, compiling did not pay: the compiled step was between a fifth and "
                  "two fifths slower than the eager one", StepTimeRatio("compiled", "eager"), at_least=1.2,
                  at_most=1.4),
        ),
    ),
    Recording(
        id="compile-pays-large",
        module=OVERHEAD,
        function="time_eager_and_compiled",
        params={"width": 4096, "hidden": 16384, "batch": 512, "steps": 5, "rounds": 20},
        cpu_params={"width": 1024, "hidden": 4096, "batch": 256, "rounds": 10},
        title="Eager against compiled, large MLP ({width} → {hidden} → {width}, batch {batch})",
        claims=(
            Claim(PAYS_PAGE, "On the CPU, compiling made the large step slower too, by a tenth to a quarter",
                  StepTimeRatio("compiled", "eager"), at_least=1.1, at_most=1.25, device="cpu"),
            Claim(PAYS_PAGE, "most of each compiled call's time went to `aten::addmm`",
                  CpuShare("aten::addmm", "Torch-Compiled Region: 0/0", self_time=False), at_least=0.5,
                  at_most=0.9, device="cpu"),
            Claim(PAYS_PAGE, "On a GPU, the compiled large step should be about as fast as the eager one, or a "
                  "little faster", StepTimeRatio("compiled", "eager"), at_least=0.8, at_most=1, device="cuda"),
        ),
    ),
)

REAL_TRACES = (
    # Eager's GEMM already adds a Linear's bias: what the fusion page's GPU prediction rests on.
    tracelens_trace(
        "compile-h100-bert-addmm", "h100-bert",
        claims=(
            Claim(FUSION_PAGE, "each `aten::addmm` launches one GPU op", KernelsInside(op="aten::addmm"),
                  at_least=1, at_most=1),
            Claim(FUSION_PAGE, "a GEMM", KernelsInside(op="aten::addmm", family="gemm"), at_least=1, at_most=1),
        ),
    ),
    RealTrace(
        id="compile-a100-cuda-graphs",
        file="docs/traces/a100_80gb_nccl_16rank_rank0.json.gz",
        title="A compiled model whose calls replay CUDA graphs, on sixteen A100-80GBs, rank 0",
        **HTA,
        figure=Figure(trees=(BACKWARD,)),
        claims=(
            Claim(PAYS_PAGE, "holds dozens of `cudaGraphLaunch` calls", CompileMarker("cuda_graph_launches"),
                  at_least=24, at_most=150),
            Claim(PAYS_PAGE, "every Triton kernel whose launch it holds came from a `cudaGraphLaunch`",
                  LaunchedBy(("cudaGraphLaunch",)), at_least=1, at_most=1),
            Claim(PAYS_PAGE, "copies an input into the graph's own buffer (`aten::copy_`, a `Memcpy DtoD`)",
                  OpsInRegion(BACKWARD, "aten::copy_"), at_least=1, at_most=1),
            Claim(PAYS_PAGE, "replays the whole graph with one `cudaGraphLaunch`",
                  OpsInRegion(BACKWARD, "cudaGraphLaunch"), at_least=1, at_most=1),
            Claim(EXPLAIN_PAGE, "On the 16-rank A100 trace, `explain` counts dozens of CUDA graph launches",
                  CompileMarker("cuda_graph_launches"), at_least=24, at_most=150),
        ),
    ),
)
