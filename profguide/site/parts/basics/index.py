"""The recordings of Basics, *Your first profile*: a matmul plus bias add; and the real GPU traces that show what
its CPU stand-ins can only predict."""

from __future__ import annotations

from typing import TYPE_CHECKING

from profguide.site.measures.host import SyncBusyShare, SyncOverKernels
from profguide.site.measures.kernels import BusiestGemmSpread, DeviceShare, GpuBusyShare
from profguide.site.measures.ops import OpShare, OpsInRegion, OpTotal
from profguide.site.measures.results import CpuShare
from profguide.site.measures.summary import VerdictIs
from profguide.site.measures.timing import FirstOverRest, OutsideOps
from profguide.site.parts import tracelens_trace
from profguide.site.recordings import Claim, Figure, Recording, exactly

if TYPE_CHECKING:
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

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
            # The multiply's share and the time between ops move with the CPU (0.90 and 0.006 of the region on an
            # Intel Xeon, 0.97 and 0.010 on an AMD EPYC): the words say what holds of both.
            Claim(PAGE, "With 4096×4096 inputs, `aten::mm` takes more than four fifths of the time",
                  CpuShare("aten::mm", "matmul_bias"), at_least=0.8, at_most=1, device="cpu"),
            Claim(PAGE, "the time in no operator fades to a few hundredths of the region at most",
                  CpuShare("matmul_bias", "matmul_bias"), at_least=0, at_most=0.05, device="cpu"),
            exactly(PAGE, "`profguide explain` calls this CPU run `host-compute-bound`",
                    VerdictIs("host-compute-bound"), 1, device="cpu"),
            Claim(PAGE, "the multiply's kernel should take nearly all of the kernel time",
                  DeviceShare("aten::mm"), at_least=0.9, at_most=1, device="cuda"),
            Claim(PAGE, "`aten::matmul` has a small self time and `aten::mm` a large one",
                  CpuShare("aten::matmul", "aten::mm"), at_least=0, at_most=0.1, device="cpu"),
            Claim("basics/first-trace.md", "with the large one, `aten::mm` fills more than four fifths of it",
                  CpuShare("aten::mm", "matmul_bias"), at_least=0.8, at_most=1, device="cpu"),
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


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def calls(data: Run) -> dict[str, str]:
    """Each call of the figure's region, first call against the later ones, with a sentence that says so."""
    from profguide.analysis.regions import region_calls
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError
    from profguide.text import code, count_of, format_duration

    region = data.recording.figure.region
    found = region_calls(data.trace, region) if region else []
    if len(found) < 2:
        raise FragmentError(f"fewer than two calls of {region!r} to compare")
    first, later = found[0], found[1:]
    slowest = max(call["dur_us"] for call in later)
    sentence = (f"The first call of {code(region)} took {format_duration(first['dur_us'])}, "
                f"{first['dur_us'] / slowest:.0f}× the slowest of the {count_of(len(later), 'later call')}; "
                f"{format_duration(first['dur_us'] - first['in_ops_us'])} of it was in no op.")
    return {"calls.md": render.calls_table(found) + "\n" + sentence + "\n\n" + render.provenance_note(data.meta)}


def events(data: Run) -> dict[str, str]:
    """The events of rank 0's trace by kind (``ph``), with the share of complete events in words."""
    from profguide.render import fragments as render
    from profguide.text import count_of

    counts = data.trace.phases
    total = sum(counts.values())
    sentence = (f"Of the {count_of(total, 'event')} in this recording's trace, {counts.get('X', 0):,} are "
                "complete events.")
    return {"events.md": sentence + "\n\n" + render.phases_table(counts) + "\n" + render.provenance_note(data.meta)}


FRAGMENTS: dict[str, Maker] = {"calls.md": calls, "events.md": events}
