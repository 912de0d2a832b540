"""The recording of Part 6, Serving a model: Profiling a server without hurting it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from profguide.site.measures.overhead import HandOver, StallInSteps, StallRatio, TraceSizeRatio
from profguide.site.measures.results import StepTimeRatio
from profguide.site.measures.timing import FirstOverRest, StepCount, StepNumber
from profguide.site.recordings import Claim, Recording, exactly

if TYPE_CHECKING:
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

PAGE = "serving-a-model/profiling-a-server.md"
HERE: HandOver = "written on the serving thread"
ELSEWHERE: HandOver = "written on another thread"
UNWRITTEN: HandOver = "not written"
# The schedule of the snippet's `serve`: the first recorded step is ProfilerStep#(SKIP_FIRST + WAIT + WARMUP).
SKIP_FIRST, WAIT, WARMUP, ACTIVE = 20, 5, 1, 3

RECORDINGS = (
    Recording(
        id="serving-profiler-cost",
        module="snippets.serving_a_model.profiling_a_server",
        function="measure_profiler_costs",
        # A model small enough that a decode step is host-bound, as a GPU's is at batch 1: the profiler's cost
        # per op shows in it. The same sizes on a GPU.
        params={"new_tokens": 32, "rounds": 9, "active": 16, "requests": 4, "vocabulary": 512, "layers": 4,
                "width": 64, "heads": 2, "hidden": 256, "prompt_tokens": 64, "threads": 1},
        title="A small decoder's generation timed without the profiler and under it, {rounds} rounds of "
              "{new_tokens} tokens; a profile of {active} steps handed over three ways; a server's loop of "
              "{requests} generations under a schedule",
        claims=(
            Claim(PAGE, "With its defaults, the profiler makes a decode step of this small model clearly slower, "
                        "but not three times as slow", StepTimeRatio("defaults", "no profiler"), at_least=1.15,
                  at_most=3, device="cpu"),
            Claim(PAGE, "`with_stack` makes it slower still", StepTimeRatio("with_stack", "defaults"),
                  at_least=1.05, at_most=2, device="cpu"),
            Claim(PAGE, "On a GPU, where a decode step at batch 1 waits for the host, the defaults should slow it "
                        "down too, though not twice over", StepTimeRatio("defaults", "no profiler"),
                  at_least=1.02, at_most=2, device="cuda"),
            Claim(PAGE, "the step that hands the trace over lasts as long as ten to a few hundred ordinary steps "
                        "put together", StallInSteps(HERE), at_least=10, at_most=500, device="cpu"),
            Claim(PAGE, "Stopping the profiler, before a byte is written, takes between a third and three quarters "
                        "of that stall", StallRatio(UNWRITTEN, HERE), at_least=1 / 3, at_most=3 / 4, device="cpu"),
            Claim(PAGE, "On a GPU, stopping should take at least half of the stall",
                  StallRatio(UNWRITTEN, HERE), at_least=1 / 2, at_most=1, device="cuda"),
            Claim(PAGE, "writing the trace on another thread neither shortened the stall by a fifth nor lengthened it "
                        "by half", StallRatio(ELSEWHERE, HERE), at_least=0.8, at_most=1.5, device="cpu"),
            Claim(PAGE, "On a GPU the writer thread should neither help nor hurt much more",
                  StallRatio(ELSEWHERE, HERE), at_least=0.7, at_most=1.5, device="cuda"),
            Claim(PAGE, "`with_stack` makes the written trace larger by more than half, though not twice as large",
                  TraceSizeRatio("with_stack", "defaults", "bytes"), at_least=1.5, at_most=2, device="cpu"),
            Claim(PAGE, "it holds more events too, though not twice as many",
                  TraceSizeRatio("with_stack", "defaults", "events"), at_least=1.1, at_most=2),
            exactly(PAGE, "Of all those steps, the trace holds three", StepCount(), ACTIVE),
            exactly(PAGE, "the first of them is `ProfilerStep#26`", StepNumber("first"), SKIP_FIRST + WAIT + WARMUP),
            Claim(PAGE, "the first of the three is the slowest, though by less than ten times",
                  FirstOverRest("ProfilerStep"), at_least=1, at_most=10, device="cpu"),
        ),
    ),
)


# The fragments only this page's recording gives. Their imports are inside them: `profguide record` imports this
# module on a bare GPU machine, with the standard library only.


def costs(data: Run) -> dict[str, str]:
    """Each profiler configuration's median decode step and its ratio to the steps without a profiler."""
    from profguide.site.fragment_run import FragmentError, results_of
    from profguide.site.parts.reading_output.footprint import profiler_options
    from profguide.text import cell, count_of, format_duration, markdown_table

    rows, tokens, rounds = results_of(data, "the timings of profiler configurations", "configurations", "new_tokens",
                                      "rounds")
    try:
        baseline = rows[0]["median_step_us"]
        table = markdown_table(
            ("Configuration", "Passed to `profile()`", "Median decode step", "× no profiler"),
            [(cell(row["name"]), profiler_options(row["options"]), format_duration(row["median_step_us"]),
              f"{row['median_step_us'] / baseline:.2f}") for row in rows], "llrr")
    except (KeyError, IndexError, TypeError, ZeroDivisionError):
        raise FragmentError("results.json does not hold the timings of profiler configurations") from None
    sentence = (f"Each configuration generated {count_of(tokens, 'token')} in each of {rounds} rounds, the "
                "configurations interleaved; each row is the median of all its decode steps.")
    return {"costs.md": with_note(data, table + "\n" + sentence)}


def stalls(data: Run) -> dict[str, str]:
    """The longest step of a generation whose profile was handed over each way, and in median steps."""
    from profguide.site.fragment_run import FragmentError, results_of
    from profguide.text import cell, count_of, format_duration, markdown_table

    rows, active, rounds = results_of(data, "the stalls of a profile's hand-over", "hand_over", "active", "rounds")
    try:
        table = markdown_table(
            ("The finished profile", "Longest step", "In median steps"),
            [(cell(row["name"]), format_duration(row["longest_step_us"]),
              f"{row['longest_step_us'] / row['median_step_us']:.0f}") for row in rows], "lrr")
    except (KeyError, TypeError, ZeroDivisionError):
        raise FragmentError("results.json does not hold the stalls of a profile's hand-over") from None
    sentence = (f"The {count_of(active, 'step')} after one warm-up step recorded, once; each row is the median, "
                f"over {rounds} rounds, of each generation's longest step.")
    return {"hand-over.md": with_note(data, table + "\n" + sentence)}


def sizes(data: Run) -> dict[str, str]:
    """The written trace of the same steps recorded with each set of options: bytes, events, time to write."""
    from profguide.site.fragment_run import FragmentError, results_of
    from profguide.text import cell, count_of, format_duration, format_size, markdown_table

    rows, active = results_of(data, "the sizes of written traces", "trace_sizes", "active")
    try:
        table = markdown_table(
            ("Recorded with", "Trace file", "Events", "Time to write it"),
            [(cell(row["name"]), format_size(row["bytes"]), f"{row['events']:,}", format_duration(row["export_us"]))
             for row in rows], "lrrr")
    except (KeyError, TypeError):
        raise FragmentError("results.json does not hold the sizes of written traces") from None
    sentence = f"The same {count_of(active, 'step')} of one generation, each trace written uncompressed."
    return {"sizes.md": with_note(data, table + "\n" + sentence)}


def loop(data: Run) -> dict[str, str]:
    """How many phase steps the server's loop ran, and how many of them its trace holds."""
    from profguide.analysis.select import profiler_steps
    from profguide.site.fragment_run import results_of
    from profguide.text import count_of

    (ran,) = results_of(data, "the steps the server's loop ran", "steps_run")
    held = len(profiler_steps(data.trace))
    return {"loop.md": f"The loop ran {count_of(ran, 'phase step')}; its trace holds {count_of(held, 'step')}.\n"}


def with_note(data: Run, text: str) -> str:
    from profguide.render import fragments as render

    return text + "\n\n" + render.provenance_note(data.meta)


FRAGMENTS: dict[str, Maker] = {"costs.md": costs, "hand-over.md": stalls, "sizes.md": sizes, "loop.md": loop}
