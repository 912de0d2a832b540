"""The recordings of Part 2, Reading the output: The profiler's own footprint."""

from profguide.site.recordings import Claim, Figure, OpsInStep, Recording, StepNumber, StepTimeRatio

PAGE = "reading-output/footprint.md"
FOOTPRINT = "snippets.reading.footprint"

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
