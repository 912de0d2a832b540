"""The real trace of Multi-GPU, *Many ranks*: two sampled ranks of a job of 128."""

from profguide.site.measures.communication import RanksLineUp
from profguide.site.parts import HTA
from profguide.site.recordings import Claim, RealTrace

PAGE = "multi-gpu/many-ranks.md"

REAL_TRACES = (
    RealTrace(
        id="multigpu-128rank-sample",
        file="docs/traces/nccl_128rank_sampled_rank0.json.gz",
        files=("docs/traces/nccl_128rank_sampled_rank0.json.gz", "docs/traces/nccl_128rank_sampled_rank1.json.gz"),
        title="Two ranks of a 128-rank NCCL job, sampled",
        **HTA,
        claims=(
            Claim(PAGE, "the two sampled ranks' collectives do not line up one for one", RanksLineUp(),
                  at_least=0, at_most=0),
        ),
    ),
)
