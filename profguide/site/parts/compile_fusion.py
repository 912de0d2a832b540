"""The recordings of Part 4, torch.compile: fusion, and overhead against when compiling pays; and the real traces:
BERT's GEMMs on an H100, which add their own bias, and the compiled calls that replay CUDA graphs."""

from profguide.site.measures.compile import CompileMarker, PerStepFall
from profguide.site.measures.host import LaunchedBy
from profguide.site.measures.kernels import KernelsInside
from profguide.site.measures.ops import OpsInRegion
from profguide.site.measures.results import CpuShare, StepTimeRatio
from profguide.site.measures.summary import DiffRows
from profguide.site.measures.timing import MedianStepRatio, OpMedianInRegions, OpMedianOver
from profguide.site.parts.reading_waits import HTA, tracelens_trace
from profguide.site.recordings import Claim, Figure, RealTrace, Recording

FUSION_PAGE = "torch-compile/fusion.md"
PAYS_PAGE = "torch-compile/when-it-pays.md"
EXPLAIN_PAGE = "reference/explain.md"
FUSION = "snippets.compile.fusion"
TURNS = "snippets.compile.turns"
OVERHEAD = "snippets.compile.overhead"
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


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def fusion(data):
    """The eager and the compiled run of one model side by side: ops (and kernels) per step, median step, then
    each op's (and kernel's) count per step."""
    from profguide.analysis import compile as compile_analysis
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError, snippet_runs
    from profguide.stats import median
    from profguide.text import cell, code_cell, count_of, format_duration, kernel_name, markdown_table

    if data.real:
        raise FragmentError("a real trace has no eager run to compare with")
    runs = sorted(snippet_runs(data, RECORDINGS), key=lambda run: bool(run.params.get("compiled")))
    rows = [(run, compile_analysis.step_counts(run.trace)) for run in runs]
    if len(runs) != 2 or not all(counts for _, counts in rows):
        raise FragmentError("fusion compares an eager and a compiled recording, each with ProfilerSteps")
    kernels = any(row["kernels"] for _, counts in rows for row in counts)

    def per_step(counts, key):
        return median([row[key] for row in counts])

    counted = ("ops", "aten_ops", *(("kernels",) if kernels else ()))
    headings = ("Run", "Ops per step", "`aten::` ops per step", *(("Kernels per step",) if kernels else ()),
                "Median step")
    table = markdown_table(headings, [(cell(run.title), *(f"{per_step(counts, key):g}" for key in counted),
                                       format_duration(per_step(counts, "dur_us"))) for run, counts in rows],
                           "l" + "r" * (len(headings) - 1))
    names = [compile_analysis.names_per_step(run.trace, "cpu_op") for run in runs]
    if kernels:
        names += [compile_analysis.names_per_step(run.trace, "kernel") for run in runs]
    by_name = [(code_cell(shorten(name)), f"{eager.get(name, 0):g}", f"{compiled.get(name, 0):g}")
               for (eager, compiled), shorten in ((names[:2], str), (names[2:], kernel_name))[:1 + kernels]
               for name in sorted(set(eager) | set(compiled), key=lambda n: (-eager.get(n, 0), -compiled.get(n, 0), n))]
    sentence = (f"Each run recorded {count_of(len(rows[0][1]), 'step')} after warm-up calls, in a process of "
                "its own; a count per step is the median over its steps, or, by name, the mean.")
    notes = "\n".join(render.provenance_note(run.meta) for run in runs)
    return {"fusion.md": render.standin_notice(data.meta) + table + "\n"
            + markdown_table(("Op or kernel", "Eager, per step", "Compiled, per step"), by_name, "lrr") + "\n"
            + sentence + "\n\n" + notes}


def pays(data):
    """Each size's median step eager and compiled, their ratio, the first compiled call, and how many steps
    it takes the compiled steps to win back that first call's extra time."""
    from profguide.errors import RecordingError
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError, snippet_runs
    from profguide.text import cell, format_duration, markdown_table

    try:
        data.results["configurations"]  # this recording's own results first: the others only add rows
        runs = snippet_runs(data, RECORDINGS)
        lines = []
        for run in runs:
            timed = {row["name"]: row for row in run.results["configurations"]}
            eager, compiled = timed["eager"], timed["compiled"]
            saved = eager["median_step_us"] - compiled["median_step_us"]
            extra = compiled["first_call_us"] - eager["first_call_us"]
            back = f"{max(extra, 0) / saved:,.0f}" if saved > 0 else "never: the compiled step is not faster"
            lines.append((cell(run.title), f"{run.results['steps']:,}", format_duration(eager["median_step_us"]),
                          format_duration(compiled["median_step_us"]),
                          f"{compiled['median_step_us'] / eager['median_step_us']:.2f}",
                          format_duration(eager["first_call_us"]), format_duration(compiled["first_call_us"]), back))
    except (RecordingError, KeyError, TypeError, ZeroDivisionError):
        raise FragmentError("results.json is missing or does not hold eager and compiled timings") from None
    sentence = ("Each median is over the steps timed, eager and compiled interleaved, after warm-up calls; each "
                "size ran in a process of its own, so that its first compiled call compiled.")
    notes = "\n".join(render.provenance_note(run.meta) for run in runs)
    table = markdown_table(("Run", "Steps timed", "Eager, median step", "Compiled, median step", "Compiled / eager",
                            "First call, eager", "First call, compiled", "Steps to win back the first call"),
                           lines, "lrrrrrrl")
    return {"pays.md": render.standin_notice(data.meta) + table + "\n" + sentence + "\n\n" + notes}


FRAGMENTS = {"fusion.md": fusion, "pays.md": pays}
