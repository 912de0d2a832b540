"""The real trace of Basics, *Your first trace*: a kernel queued behind earlier work against one launched onto an
empty stream."""

from profguide.site.measures.host import LaunchGap
from profguide.site.parts import HTA
from profguide.site.recordings import Claim, RealTrace

PAGE = "basics/first-trace.md"

REAL_TRACES = (
    RealTrace(
        id="basics-a100-16rank",
        file="docs/traces/a100_80gb_nccl_16rank_rank0.json.gz",
        title="A training job on sixteen A100-80GBs, rank 0",
        **HTA,
        claims=(
            Claim(PAGE, "a kernel queued behind earlier work started, at the median, more than half a step "
                  "after its launch", LaunchGap("queueing", per_step=True), at_least=0.5, at_most=1),
            Claim(PAGE, "one launched onto an empty stream started within ten microseconds",
                  LaunchGap("launch delay"), at_least=0, at_most=10),
        ),
    ),
)
