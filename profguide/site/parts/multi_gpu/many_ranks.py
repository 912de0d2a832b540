"""The real traces and claims of Part 3's pages "The straggler" and "Many ranks": a job's ranks side by side."""

from profguide.site.parts.reading_waits import HTA
from profguide.site.recordings import Claim, RankHostShare, RanksLineUp, RealTrace, StragglerIs, StragglerWait

STRAGGLER_PAGE = "multi-gpu/straggler.md"
MANY_PAGE = "multi-gpu/many-ranks.md"

# What the straggler page says about ``multigpu-straggler`` (its Recording is in ``parts/multigpu.py``).
STRAGGLER_CLAIMS = (
    Claim(STRAGGLER_PAGE, "rank 1, the rank that sleeps, is the straggler", StragglerIs(1), at_least=1, at_most=1),
    Claim(STRAGGLER_PAGE, "rank 0 spends about nine tenths of its time waiting for it", StragglerWait(),
          at_least=0.85, at_most=0.95),
    Claim(STRAGGLER_PAGE, "rank 1 spends most of its steps asleep inside `straggle`",
          RankHostShare(1, "region", "straggle"), at_least=0.5, at_most=0.9),
    Claim(STRAGGLER_PAGE, "rank 0's NCCL kernels should last most of its window, waiting for rank 1",
          StragglerWait(), at_least=0.5, at_most=0.95, device="cuda"),
)

# What the many-ranks page says about ``multigpu-ddp``, the same job without a sleep.
DDP_CLAIMS = (
    Claim(MANY_PAGE, "no rank of this job is expected to wait for another for a tenth of its time",
          StragglerWait(), at_least=0, at_most=0.1, device="cuda"),
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
                  at_least=0, at_most=0),
        ),
    ),
)
