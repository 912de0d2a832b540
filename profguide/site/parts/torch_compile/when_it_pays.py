"""The recordings of torch.compile, *Overhead, and when compiling pays*: eager and compiled timed at two sizes; and
the compiled calls of a real trace that replay CUDA graphs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from profguide.site.measures.compile import CompileMarker
from profguide.site.measures.host import LaunchedBy
from profguide.site.measures.ops import OpsInRegion
from profguide.site.measures.results import CpuShare, StepTimeRatio
from profguide.site.parts import HTA
from profguide.site.recordings import Claim, Figure, RealTrace, Recording

if TYPE_CHECKING:
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

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
            # "Slower": by a twentieth at least (1.29 on an Intel Xeon, 1.13 on an AMD EPYC).
            Claim(PAGE, "At the small size, compiling did not pay: the compiled step was slower than the eager one, "
                  "by up to two fifths", StepTimeRatio("compiled", "eager"), at_least=1.05, at_most=1.4),
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
            # An Intel Xeon's compiled step took 1.18 times the eager one's, an AMD EPYC's 1.00: neither saved a
            # twentieth. The words are open above; the bound only stops a broken run.
            Claim(PAGE, "On the CPU, compiling did not make the large step faster by even a twentieth",
                  StepTimeRatio("compiled", "eager"), at_least=0.95, at_most=2, device="cpu"),
            # 0.69 of a compiled call on the Xeon, 0.98 on the EPYC: more than half, and up to all of it.
            Claim(PAGE, "more than half of each compiled call's time went to `aten::addmm`",
                  CpuShare("aten::addmm", "Torch-Compiled Region: 0/0", self_time=False), at_least=0.5,
                  at_most=1, device="cpu"),
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


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def pays(data: Run) -> dict[str, str]:
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


FRAGMENTS: dict[str, Maker] = {"pays.md": pays}
