"""The recordings of Part 2, Reading the output: The profiler's own footprint."""

from __future__ import annotations

from typing import TYPE_CHECKING

from profguide.site.measures.ops import PythonCallsInRegion
from profguide.site.measures.results import StepTimeRatio
from profguide.site.measures.timing import OpsInStep, StepNumber
from profguide.site.recordings import Claim, Figure, Recording, exactly

if TYPE_CHECKING:
    from profguide.jsontypes import JSONObject
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

PAGE = "reading-output/footprint.md"
FOOTPRINT = "snippets.reading_output.footprint"
PYTHON_CALLS = "snippets.reading_output.footprint_python_calls"

RECORDINGS = (
    Recording(
        id="reading-footprint-cost",
        module=FOOTPRINT,
        function="time_configurations",
        params={"steps": 5, "rounds": 20, "warmup_steps": 10, "width": 256, "batch": 32},
        device="cpu",
        title="Training steps with and without the profiler: {rounds} rounds of {steps} steps each, width {width}",
        claims=(
            Claim(PAGE, "With all three options on, the median step is clearly slower than without the profiler, "
                        "but less than twice as slow", StepTimeRatio("all three", "no profiler"), at_least=1.1,
                  at_most=2),
            Claim(PAGE, "`with_stack` costs more than the defaults", StepTimeRatio("with_stack", "defaults"),
                  at_least=1.02, at_most=2),
        ),
    ),
    Recording(
        id="reading-footprint-python-calls",
        module=PYTHON_CALLS,
        function="profile_python_calls",
        params={"warmup_steps": 3},
        device="cpu",
        title="One training step under with_stack=True, its forward and its backward each in a region",
        claims=(
            Claim(PAGE, "The forward pass makes more Python calls than it runs ops, though not twice as many",
                  PythonCallsInRegion("forward", "calls per op"), at_least=1.01, at_most=2),
            Claim(PAGE, "so does the optimizer's step",
                  PythonCallsInRegion("Optimizer.step#Adam.step", "calls per op"), at_least=1.01, at_most=2),
            Claim(PAGE, "The backward pass makes fewer than one for every three ops",
                  PythonCallsInRegion("backward", "calls per op"), at_least=0, at_most=1 / 3),
            exactly(PAGE, "`zero_grad` runs no op at all", PythonCallsInRegion(
                "Optimizer.zero_grad#Adam.zero_grad", "ops"), 0),
            Claim(PAGE, "yet it makes a dozen or so Python calls",
                  PythonCallsInRegion("Optimizer.zero_grad#Adam.zero_grad", "calls"), at_least=10, at_most=16),
        ),
    ),
    Recording(
        id="reading-footprint-phantom",
        module=FOOTPRINT,
        function="profile_short_loop",
        params={"steps": 4, "wait": 1, "warmup": 1, "active": 5},
        device="cpu",
        title="A loop of {steps} steps that ends inside schedule(wait={wait}, warmup={warmup}, active={active})",
        figure=Figure(highlight=("ProfilerStep#4",)),
        claims=(
            Claim(PAGE, "the trace ends with `ProfilerStep#4`", StepNumber("last"), at_least=4, at_most=4),
            Claim(PAGE, "It holds no op at all", OpsInStep("last"), at_least=0, at_most=0),
        ),
    ),
)


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def profiler_options(options: JSONObject | None) -> str:
    """A configuration's arguments to ``profile()`` in words: none at all, the defaults, or the options."""
    from profguide.text import code

    if options is None:
        return "–"
    return ", ".join(code(f"{name}={value}") for name, value in options.items()) or "nothing"


def footprint(data: Run) -> dict[str, str]:
    """Each profiler configuration's median step time and its ratio to the steps without a profiler."""
    from profguide.errors import RecordingError
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError
    from profguide.text import cell, count_of, format_duration, markdown_table

    try:
        found = data.results
        rows, baseline = found["configurations"], found["configurations"][0]["median_step_us"]
        table = markdown_table(("Configuration", "Passed to `profile()`", "Median step", "× no profiler"),
                               [(cell(row["name"]), profiler_options(row["options"]),
                                 format_duration(row["median_step_us"]), f"{row['median_step_us'] / baseline:.2f}")
                                for row in rows], "llrr")
        sentence = (f"Each configuration ran {count_of(found['steps_per_round'], 'step')} in each of "
                    f"{found['rounds']} rounds, the configurations interleaved; each row is the median of its "
                    f"{count_of(found['steps_per_round'] * found['rounds'], 'step')}.")
    except (RecordingError, KeyError, IndexError, TypeError, AttributeError, ZeroDivisionError):
        raise FragmentError("results.json is missing or does not hold the timings of profiler configurations") \
            from None
    return {"footprint.md": table + "\n" + sentence + "\n\n" + render.provenance_note(data.meta)}


def python_calls(data: Run) -> dict[str, str]:
    """Each ``record_function`` region of rank 0's trace with its ops and the Python calls that ``with_stack``
    recorded inside it, and the calls per op."""
    from profguide.analysis.regions import python_calls_by_region
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError
    from profguide.text import code_cell, markdown_table

    rows = python_calls_by_region(data.trace)
    if not any(row["python_calls"] for row in rows):
        raise FragmentError("no Python call in any region: the trace was recorded without with_stack")
    cells = [(code_cell(row["region"]), f"{row['ops']:,}", f"{row['python_calls']:,}",
              f"{row['python_calls'] / row['ops']:.2f}" if row["ops"] else "–") for row in rows]
    table = markdown_table(("Region", "Ops", "Python calls", "Python calls per op"), cells, "lrrr")
    sentence = ("Each region counts the ops and the Python calls that lie wholly inside it, at any depth (a call "
                "that returns after the region ends is not counted in it); a Python call is one `python_function` "
                "event, a built-in function's too.")
    return {"python-calls.md": table + "\n" + sentence + "\n\n" + render.provenance_note(data.meta)}


FRAGMENTS: dict[str, Maker] = {"footprint.md": footprint, "python-calls.md": python_calls}
