"""The recordings of Part 2, Reading the output: The profiler's own footprint."""

from profguide.site.recordings import (
    Claim,
    Figure,
    OpsInStep,
    PythonCallsInRegion,
    Recording,
    StepNumber,
    StepTimeRatio,
    exactly,
)

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
