"""Known answers of the measures of how long things take (``profguide.site.measures.timing``)."""

from profguide.site.measures.timing import (
    Encloses,
    FirstOverMedian,
    FirstOverRest,
    MedianStepRatio,
    OpMedianInRegions,
    OpMedianOver,
    OpOverKernelMedian,
    OpsInStep,
    OutsideOps,
    RegionTimeRatio,
    SelfTimeRatio,
    SlowestOverFastest,
    StepCount,
    StepNumber,
)
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.site.measures import Answer, answers, known, run, steps


def region(name, ts, dur):
    return cpu(name, ts, dur, kind="annotation")


FOUR_STEPS = run(*steps(90, 30, 20, 45))  # ProfilerStep#2 to #5
ONE_STEP = run(*steps(100))
NO_STEP = run(cpu("aten::mm", 0, 5))
# A region called for 100, 10 and 25 µs.
THREE_CALLS = run(region("region", 0, 100), region("region", 200, 10), region("region", 300, 25))
# A call of 1000 µs, then 10, 30 and 20.
FOUR_CALLS = run(*(region("call", start, dur) for start, dur in ((0, 1000), (1000, 10), (1100, 30), (1200, 20))))
NESTED = run(cpu("outer", 0, 100), cpu("inner", 10, 10), cpu("later", 150, 10))
# Later calls of the region: 40 µs with 20 in ops, 60 µs with 30 in ops (the aten::t nests inside the aten::mm).
REGION_OPS = run(region("region", 0, 100), cpu("aten::mm", 10, 10),
                 region("region", 200, 40), cpu("aten::mm", 205, 10), cpu("aten::add", 220, 10),
                 region("region", 300, 60), cpu("aten::mm", 310, 30), cpu("aten::t", 315, 5))
# Medians of ProfilerStep: 20 µs here (30, 10, 20), 10 µs in the baseline (10, 10, 30).
FASTER_BASELINE = run(*steps(30, 10, 20), siblings={"baseline": run(*steps(10, 10, 30))})
# aten::view: 20 and 40 µs here (median 30), 1, 3 and 2 µs in the baseline (median 2).
VIEWS = run(cpu("aten::view", 0, 20), cpu("aten::view", 30, 40),
            siblings={"baseline": run(cpu("aten::view", 0, 1), cpu("aten::view", 5, 3), cpu("aten::view", 10, 2))})
# aten::addmm inside the eager calls: 20, 40 and 60 µs (median 40); inside the compiled call: 30 µs. The one
# outside any call (500 µs) and the one on another thread (9 µs) count for neither.
TWO_REGIONS = run(region("eager", 0, 100), cpu("aten::addmm", 10, 20), cpu("aten::addmm", 40, 40),
                  region("compiled", 200, 100), cpu("aten::addmm", 210, 30),
                  region("eager", 400, 100), cpu("aten::addmm", 410, 60),
                  cpu("aten::addmm", 600, 500), cpu("aten::addmm", 250, 9, tid=2))
# aten::view: 30, 10 and 20 µs (median 20); kernels 5, 10 and 40 µs (median 10).
HOST_AND_GPU = run(cpu("aten::view", 0, 30), cpu("aten::view", 40, 10), cpu("aten::view", 60, 20),
                   gpu("k", 0, 5), gpu("k", 10, 10), gpu("k", 30, 40))
# The eager call: 100 µs, 10 in its op, 90 in none. The compiled calls after it: 40 µs (30 in an op, 10 in none)
# and 30 µs (26 in an op, 4 in none).
EAGER_THEN_COMPILED = run(region("eager", 0, 100), cpu("aten::add", 10, 10),
                          region("compiled", 200, 40), cpu("Torch-Compiled Region: 0/0", 205, 30),
                          region("compiled", 300, 30), cpu("Torch-Compiled Region: 0/0", 302, 26))
# The graph's call: 50 µs with a 20 µs addmm under it in "plain" (self 30); 60 µs with a 20 µs addmm under it in
# "with a relu" (self 40): the copy_ inside the addmm is the addmm's child, not the call's.
COMPILED_GRAPHS = run(region("plain", 0, 100), cpu("## Call CompiledFxGraph a ##", 10, 50),
                      cpu("aten::addmm", 20, 20),
                      region("with a relu", 200, 100), cpu("## Call CompiledFxGraph b ##", 210, 60),
                      cpu("aten::addmm", 215, 20), cpu("aten::copy_", 216, 14))
# One op starts in the first step, none in the second.
OPS_IN_STEPS = run(cpu("ProfilerStep#1", 0, 100, kind="annotation"), cpu("aten::mm", 10, 20),
                   cpu("ProfilerStep#2", 100, 30, kind="annotation"))

ANSWERS = [
    Answer("first-of-four-steps", FOUR_STEPS, FirstOverRest("ProfilerStep"), 90 / 45),
    Answer("a-named-region", THREE_CALLS, FirstOverRest("region"), 100 / 25),
    Answer("no-such-region", THREE_CALLS, FirstOverRest("absent"), None),
    Answer("one-step-nothing-after", ONE_STEP, FirstOverRest("ProfilerStep"), None),
    Answer("four-steps", FOUR_STEPS, SlowestOverFastest("ProfilerStep"), 90 / 20),
    Answer("one-step", ONE_STEP, SlowestOverFastest("ProfilerStep"), None),
    Answer("median-of-three-later-calls", FOUR_CALLS, FirstOverMedian("call"), 1000 / 20),
    Answer("median-of-three-later-steps", FOUR_STEPS, FirstOverMedian("ProfilerStep"), 90 / 30),
    Answer("no-other-step", ONE_STEP, FirstOverMedian("ProfilerStep"), None),
    Answer("four-steps", FOUR_STEPS, StepCount(), 4),
    Answer("no-step", NO_STEP, StepCount(), 0),
    Answer("first", FOUR_STEPS, StepNumber("first"), 2),
    Answer("last", FOUR_STEPS, StepNumber("last"), 5),
    Answer("no-step", NO_STEP, StepNumber("first"), None),
    Answer("inside", NESTED, Encloses("outer", "inner"), 1),
    Answer("after", NESTED, Encloses("outer", "later"), 0),
    Answer("no-such-outer", NESTED, Encloses("absent", "inner"), None),
    Answer("later-calls-alone", REGION_OPS, OutsideOps("region"), (20 + 30) / (40 + 60)),
    Answer("one-call-nothing-later", ONE_STEP, OutsideOps("ProfilerStep#2"), None),
    Answer("twice-the-baseline", FASTER_BASELINE, MedianStepRatio("baseline"), 20 / 10),
    Answer("no-step-here", run(cpu("aten::mm", 0, 5), siblings=FASTER_BASELINE.siblings),
           MedianStepRatio("baseline"), None),
    Answer("slower-than-the-baseline", VIEWS, OpMedianOver("aten::view", "baseline"), 30 / 2),
    Answer("op-in-neither", VIEWS, OpMedianOver("aten::empty", "baseline"), None),
    Answer("compiled-over-eager", TWO_REGIONS, OpMedianInRegions("aten::addmm", "compiled", "eager"), 30 / 40),
    Answer("no-such-region", TWO_REGIONS, OpMedianInRegions("aten::addmm", "eager", "absent"), None),
    Answer("no-such-op", TWO_REGIONS, OpMedianInRegions("aten::mm", "eager", "compiled"), None),
    Answer("host-and-gpu", HOST_AND_GPU, OpOverKernelMedian("aten::view"), 20 / 10),
    Answer("no-kernel", run(cpu("aten::view", 0, 30)), OpOverKernelMedian("aten::view"), None),
    Answer("outside-ops", EAGER_THEN_COMPILED, RegionTimeRatio("eager", "compiled", "outside ops"), 90 / 10),
    Answer("in-ops", EAGER_THEN_COMPILED, RegionTimeRatio("eager", "compiled", "in ops"), 10 / 30),
    Answer("in-all", EAGER_THEN_COMPILED, RegionTimeRatio("eager", "compiled", "in all"), 100 / 40),
    Answer("itself-later", EAGER_THEN_COMPILED, RegionTimeRatio("compiled", "compiled", "in all"), 40 / 30),
    Answer("none-after-it", EAGER_THEN_COMPILED, RegionTimeRatio("compiled", "eager", "in all"), None),
    Answer("a-graphs-call", COMPILED_GRAPHS, SelfTimeRatio("## Call CompiledFxGraph", "plain", "with a relu"),
           30 / 40),
    Answer("no-such-region", COMPILED_GRAPHS, SelfTimeRatio("## Call", "plain", "absent"), None),
    Answer("first-step", OPS_IN_STEPS, OpsInStep("first"), 1),
    Answer("last-step", OPS_IN_STEPS, OpsInStep("last"), 0),
    Answer("no-step", NO_STEP, OpsInStep("last"), None),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)
