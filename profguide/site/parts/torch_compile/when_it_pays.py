"""The recordings of torch.compile, *Overhead, and when compiling pays*: eager and compiled timed at two sizes; and
the compiled calls of a real trace that replay CUDA graphs."""

from profguide.site.parts import HTA
from profguide.site.recordings import (
    Claim,
    CompileMarker,
    CpuShare,
    Figure,
    LaunchedBy,
    OpsInRegion,
    RealTrace,
    Recording,
    StepTimeRatio,
)

PAGE = "torch-compile/when-it-pays.md"
EXPLAIN_PAGE = "reference/explain.md"
OVERHEAD = "snippets.torch_compile.when_it_pays"
BACKWARD = "CompiledFunctionBackward"

RECORDINGS = (
    Recording(
        id="compile-pays-small",
        module=OVERHEAD,
        function="time_eager_and_compiled",
        params={"width": 64, "hidden": 256, "batch": 8, "steps": 5, "rounds": 20},
        title="Eager against compiled, small MLP ({width} → {hidden} → {width}, batch {batch})",
        claims=(
            Claim(PAGE, "At the small size, compiling did not pay: the compiled step was between a fifth and "
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
            Claim(PAGE, "On the CPU, compiling made the large step slower too, by a tenth to a quarter",
                  StepTimeRatio("compiled", "eager"), at_least=1.1, at_most=1.25, device="cpu"),
            Claim(PAGE, "most of each compiled call's time went to `aten::addmm`",
                  CpuShare("aten::addmm", "Torch-Compiled Region: 0/0", self_time=False), at_least=0.5,
                  at_most=0.9, device="cpu"),
            Claim(PAGE, "On a GPU, the compiled large step should be about as fast as the eager one, or a "
                  "little faster", StepTimeRatio("compiled", "eager"), at_least=0.8, at_most=1, device="cuda"),
        ),
    ),
)

REAL_TRACES = (
    RealTrace(
        id="compile-a100-cuda-graphs",
        file="docs/traces/a100_80gb_nccl_16rank_rank0.json.gz",
        title="A compiled model whose calls replay CUDA graphs, on sixteen A100-80GBs, rank 0",
        **HTA,
        figure=Figure(trees=(BACKWARD,)),
        claims=(
            Claim(PAGE, "holds dozens of `cudaGraphLaunch` calls", CompileMarker("cuda_graph_launches"),
                  at_least=24, at_most=150),
            Claim(PAGE, "every Triton kernel whose launch it holds came from a `cudaGraphLaunch`",
                  LaunchedBy(("cudaGraphLaunch",)), at_least=1, at_most=1),
            Claim(PAGE, "copies an input into the graph's own buffer (`aten::copy_`, a `Memcpy DtoD`)",
                  OpsInRegion(BACKWARD, "aten::copy_"), at_least=1, at_most=1),
            Claim(PAGE, "replays the whole graph with one `cudaGraphLaunch`",
                  OpsInRegion(BACKWARD, "cudaGraphLaunch"), at_least=1, at_most=1),
            Claim(EXPLAIN_PAGE, "On the 16-rank A100 trace, `explain` counts dozens of CUDA graph launches",
                  CompileMarker("cuda_graph_launches"), at_least=24, at_most=150),
        ),
    ),
)
