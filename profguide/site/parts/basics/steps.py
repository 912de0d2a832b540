"""The recordings of Basics, *Profiling a loop of steps*: a schedule's steps, and every step from the first; and a
real trace whose warm-up dwarfs its measured step."""

from __future__ import annotations

from typing import TYPE_CHECKING

from profguide.site.measures.summary import DeviceSetupCall, DeviceSetupShare
from profguide.site.measures.timing import FirstOverRest, RegionTimeRatio, SlowestOverFastest, StepCount, StepNumber
from profguide.site.parts import HTA
from profguide.site.recordings import Claim, Figure, RealTrace, Recording

if TYPE_CHECKING:
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

PAGE = "basics/steps.md"
TRAINING_STEPS = "snippets.basics.steps"
STEPS_CPU_PARAMS = {"size": 256}
# The AlexNet benchmark's regions, named by its harness: "[param|…|warmup|forward]", "[param|…|measure|forward]".
ALEXNET = "[param|pytorch.model.alex_net|0|0|0|"

RECORDINGS = (
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
            Claim(PAGE, "the first step is by far the slowest", FirstOverRest("ProfilerStep"),
                  at_least=2, at_most=100),
            Claim(PAGE, "the first step's `aten::mm` is more than twice as slow as any later one",
                  FirstOverRest("aten::mm"), at_least=2, at_most=10, device="cpu"),
            Claim(PAGE, "the first step's `forward` region spends more than twice as long outside its operators "
                  "as any later one", RegionTimeRatio("forward", "forward", "outside ops"), at_least=2,
                  at_most=100, device="cpu"),
            # The first multiply creates the cuBLAS handle and its workspace: milliseconds, against microseconds.
            Claim(PAGE, "on a GPU, the first step's `aten::mm` should take more than ten times as long as any "
                  "later one", FirstOverRest("aten::mm"), at_least=10, at_most=100_000, device="cuda"),
        ),
    ),
)

REAL_TRACES = (
    RealTrace(
        id="basics-a100-alexnet",
        file="docs/traces/a100_alexnet_cuda_sync.json.gz",
        title="AlexNet on an A100, a warm-up forward then a measured one, under the autograd profiler",
        **HTA,
        claims=(
            Claim(PAGE, "the warm-up forward took more than a hundred times as long as the measured one",
                  RegionTimeRatio(ALEXNET + "warmup|forward]", ALEXNET + "measure|forward]", "in all"),
                  at_least=100, at_most=1000),
            Claim(PAGE, "nearly all of the trace's window is the device setting itself up", DeviceSetupShare(),
                  at_least=0.9, at_most=1),
            Claim(PAGE, "About half of that set-up time is in `cudaFree`", DeviceSetupCall("cudaFree"),
                  at_least=0.45, at_most=0.6),
            Claim(PAGE, "About a quarter is in launches", DeviceSetupCall("cudaLaunchKernel"), at_least=0.2,
                  at_most=0.3),
            Claim(PAGE, "about a sixth is in `cudaMalloc`", DeviceSetupCall("cudaMalloc"), at_least=0.13,
                  at_most=0.2),
        ),
    ),
)


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def compare(data: Run) -> dict[str, str]:
    """The first step beside the fastest one, on one time scale."""
    from profguide.analysis.select import step_window
    from profguide.figures import charts
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError, svg_path
    from profguide.text import format_duration

    found = data.facts["steps"]
    if len(found) < 2:
        raise FragmentError("fewer than two ProfilerSteps to compare")
    first, fastest = found[0], min(found[1:], key=lambda s: s["dur_us"])
    panels = [(f"ProfilerStep#{s['step']}: {format_duration(s['dur_us'])}", data.trace,
               step_window(data.trace, s["step"])) for s in (first, fastest)]
    svg = charts.comparison_svg(panels, title="The first step and the fastest one, on one time scale")
    caption = (f"The first step, ProfilerStep#{first['step']}, above the fastest, ProfilerStep#{fastest['step']}, "
               f"drawn on the same time scale: the first took {first['dur_us'] / fastest['dur_us']:.2f}× as long.")
    return {"compare.svg": svg, "compare.md": render.extra_figure_fragment(svg_path(data, "compare.svg"), caption)}


FRAGMENTS: dict[str, Maker] = {"compare.md": compare}
