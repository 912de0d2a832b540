"""The recordings of the Reference: Around the profiler, one for each tool beside torch.profiler that runs on a
CPU."""

from profguide.site.recordings import (
    Claim,
    ExecutionTraceCovers,
    LastCollective,
    Recording,
    StackLines,
    StackTime,
    StepCount,
    StepNumber,
    TimerRatio,
    exactly,
)

PAGE = "reference/around-the-profiler.md"

RECORDINGS = (
    Recording(
        id="around-benchmark",
        module="snippets.reference.around_the_profiler.benchmark",
        function="time_against_profile",
        params={"size": 128, "calls": 200, "threads": 1, "min_run_time": 1.0},
        device="cpu",
        title="A {size}×{size} matmul timed by torch.utils.benchmark, then profiled {calls} times, on {threads} "
              "thread",
        claims=(
            Claim(PAGE, "the profiler's median for `aten::matmul` lies within a tenth of the Timer's median",
                  TimerRatio("aten::matmul"), at_least=0.9, at_most=1.1),
        ),
    ),
    Recording(
        id="around-stacks",
        module="snippets.reference.around_the_profiler.stacks",
        function="profile_stacks",
        params={"tokens": 64, "width": 64, "hidden": 256, "calls": 20},
        device="cpu",
        title="A transformer block's arithmetic as plain functions, {calls} calls, profiled with with_stack=True",
        claims=(
            exactly(PAGE, "Without the option, the same profile writes an empty file", StackLines("plain"), 0),
            Claim(PAGE, "nearly all of the time the stacks hold lies under `block`", StackTime("block"),
                  at_least=0.9, at_most=1),
        ),
    ),
    Recording(
        id="around-execution-trace",
        module="snippets.reference.around_the_profiler.execution_trace",
        function="execution_trace_summary",
        params={"width": 32, "batch": 8},
        device="cpu",
        title="One training step of a two-layer model, profiled with an execution trace observer",
        claims=(
            exactly(PAGE, "it holds a node for every op and every region of the profiler's trace",
                    ExecutionTraceCovers(), 1),
        ),
    ),
    Recording(
        id="around-on-demand",
        module="snippets.reference.around_the_profiler.on_demand",
        function="train_on_request",
        params={"steps": 40, "ask_at": 20, "active": 3},
        device="cpu",
        title="A job of {steps} training steps that asks for a profile at step {ask_at}",
        claims=(
            exactly(PAGE, "The trace holds three steps", StepCount(), 3),
            exactly(PAGE, "the first of them is `ProfilerStep#22`", StepNumber("first"), 22),
        ),
    ),
    Recording(
        id="around-flight-recorder",
        module="snippets.reference.around_the_profiler.flight_recorder",
        function="skip_a_collective",
        params={"collectives": 3},
        device="cpu",
        ranks=2,
        timeout_s=300,
        title="Two ranks on Gloo; rank 0 calls all_reduce once more than rank 1 ({collectives} each before)",
        claims=(
            exactly(PAGE, "Rank 0's buffer ends with collective 4", LastCollective(0), 4),
            exactly(PAGE, "rank 1's ends with collective 3", LastCollective(1), 3),
        ),
    ),
)
