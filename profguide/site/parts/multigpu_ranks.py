"""The real traces and claims of Part 3's pages "The straggler" and "Many ranks": a job's ranks side by side."""

from profguide.site.parts.reading_waits import HTA
from profguide.site.recordings import Claim, RanksLineUp, RealTrace, StragglerIs, StragglerWait

STRAGGLER_PAGE = "multi-gpu/straggler.md"
MANY_PAGE = "multi-gpu/many-ranks.md"

# What the straggler page says about ``multigpu-straggler`` (its Recording is in ``parts/multigpu.py``).
STRAGGLER_CLAIMS = (
    Claim(STRAGGLER_PAGE, "rank 1, the rank that sleeps, is the straggler", StragglerIs(1), at_least=1),
    Claim(STRAGGLER_PAGE, "rank 0 spends more than a tenth of its time waiting for it", StragglerWait(),
          at_least=0.1),
)

REAL_TRACES = (
    RealTrace(
        id="multigpu-128rank-sample",
        file="docs/traces/nccl_128rank_sampled_rank0.json.gz",
        files=("docs/traces/nccl_128rank_sampled_rank0.json.gz", "docs/traces/nccl_128rank_sampled_rank1.json.gz"),
        title="Two ranks of a 128-rank NCCL job, sampled",
        **HTA,
        claims=(
            Claim(MANY_PAGE, "the two sampled ranks' collectives do not line up one for one", RanksLineUp(),
                  at_most=0),
        ),
    ),
)
