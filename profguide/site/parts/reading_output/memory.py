"""The recordings of Part 2, Reading the output: Memory."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from profguide.site.measures.memory import FreesInRegion, MemoryLeftAtEnd, MemoryRatioAtEnd
from profguide.site.measures.results import RowValue
from profguide.site.recordings import Claim, Recording, Table

if TYPE_CHECKING:
    from profguide.analysis.intervals import Floats
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

PAGE = "reading-output/memory.md"
ZERO_GRAD = "Optimizer.zero_grad#Adam.zero_grad"
# The snippet's model: three Linear layers, a weight and a bias each.
PARAMETER_TENSORS = 6

RECORDINGS = (
    Recording(
        id="reading-memory",
        module="snippets.reading_output.memory",
        function="profile_memory_steps",
        params={"width": 2048, "batch": 256, "steps": 5},
        cpu_params={"width": 512, "batch": 64},
        title="{steps} training steps of a {width}-wide MLP with Adam, batch {batch}, memory profiled",
        tables=(
            Table("memory", sort_by="cpu_memory_usage", row_limit=12),
            Table("self-memory", sort_by="self_cpu_memory_usage", row_limit=8),
        ),
        memory_timeline=True,
        claims=(
            Claim(PAGE, "Adam keeps two running averages for every parameter, so its state is twice the size of "
                        "the parameters", MemoryRatioAtEnd("OPTIMIZER_STATE", "PARAMETER"), at_least=1.9,
                  at_most=2.1),
            Claim(PAGE, "the gradients, as large as the parameters, stay from one step to the next",
                  MemoryRatioAtEnd("GRADIENT", "PARAMETER"), at_least=0.9, at_most=1.1),
            Claim(PAGE, "activations come and go inside each step: none are left when the last step ends",
                  MemoryLeftAtEnd("ACTIVATION"), at_least=0, at_most=0.01),
            Claim(PAGE, "the row of `Optimizer.zero_grad#Adam.zero_grad` has a negative Self CPU Mem of a few "
                        "megabytes", RowValue(ZERO_GRAD, "self_cpu_memory_bytes"), at_least=-10_000_000,
                  at_most=-1_000_000, device="cpu"),
            # On the CPU only: the CUDA caching allocator reports the free of every block, profiled or not.
            Claim(PAGE, "the first recorded `zero_grad` records no free at all", FreesInRegion(ZERO_GRAD, "first"),
                  at_least=0, at_most=0, device="cpu"),
            Claim(PAGE, "on a GPU run, the first recorded `zero_grad` should record its six frees too",
                  FreesInRegion(ZERO_GRAD, "first"), at_least=PARAMETER_TENSORS, at_most=PARAMETER_TENSORS,
                  device="cuda"),
            Claim(PAGE, "the last one records one free for each of the model's six weights and biases",
                  FreesInRegion(ZERO_GRAD, "last"), at_least=PARAMETER_TENSORS, at_most=PARAMETER_TENSORS),
            Claim(PAGE, "`AddmmBackward0` allocates megabytes", RowValue("AddmmBackward0", "cpu_memory_bytes"),
                  at_least=1_000_000, at_most=100_000_000, device="cpu"),
            Claim(PAGE, "yet its own Self CPU Mem is zero", RowValue("AddmmBackward0", "self_cpu_memory_bytes"),
                  at_least=0, at_most=0, device="cpu"),
            Claim(PAGE, "`autograd::engine::evaluate_function: AddmmBackward0` is the autograd engine running one "
                        "backward node: inside it, the gradients and saved tensors the node no longer needs are "
                        "freed, more than its own allocations",
                  RowValue("autograd::engine::evaluate_function: AddmmBackward0", "self_cpu_memory_bytes"),
                  at_least=-100_000_000, at_most=-1, device="cpu"),
        ),
    ),
)


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def memory_figure(data: Run) -> dict[str, str]:
    """Memory by category over the recorded steps (``memory-timeline.json``), each step's start marked."""
    from profguide.analysis import memory
    from profguide.analysis.select import profiler_steps
    from profguide.figures.memory import memory_timeline_svg
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError, svg_path
    from profguide.text import count_of, format_size

    if not (data.folder / "memory-timeline.json").is_file():
        raise FragmentError("no memory-timeline.json in this recording (its Recording needs memory_timeline=True)")
    try:
        times, sizes = memory.memory_timeline(data.json_file("memory-timeline.json"))
        times = memory.to_trace_clock(times, data.trace)
        steps = [(f"ProfilerStep#{s['step']}", s["start_us"]) for s in profiler_steps(data.trace)]
        where = "the GPU" if data.meta["device"] == "cuda" else "the CPU"
        svg = memory_timeline_svg(times, sizes, steps, title=f"Memory on {where} by category: {data.title}")
    except ValueError as error:
        raise FragmentError(str(error)) from None
    total = cast("Floats", sum(sizes.values()))  # memory_timeline gives every category: a sum of arrays
    peak = int(total.argmax())
    largest = max(sizes, key=lambda category: sizes[category][peak])
    caption = (f"The bytes each of torch's memory categories held on {where}, stacked, over "
               f"{count_of(len(steps), 'recorded step')} (a dashed line where each starts). At the peak, "
               f"{format_size(int(total[peak]))} in all; the largest category then, {largest}, held "
               f"{format_size(int(sizes[largest][peak]))}.")
    fragment = (render.standin_notice(data.meta) + render.extra_figure_fragment(svg_path(data, "memory-timeline.svg"),
                                                                               caption))
    return {"memory-timeline.svg": svg, "memory-timeline.md": fragment + "\n" + render.provenance_note(data.meta)}


FRAGMENTS: dict[str, Maker] = {"memory-timeline.md": memory_figure}
