"""The recording of Multi-GPU, *The straggler*: the data-parallel job with one rank late to each backward."""

from profguide.site.measures.communication import StragglerIs, StragglerWait
from profguide.site.measures.host import RankHostShare
from profguide.site.parts.multi_gpu.per_rank import ddp_run
from profguide.site.recordings import Claim

PAGE = "multi-gpu/straggler.md"

RECORDINGS = (
    ddp_run("multigpu-straggler", "The same job with rank {slow_rank} {slow_ms:g} ms late to each backward",
            slow_rank=1, slow_ms=50.0, claims=(
                Claim(PAGE, "rank 1, the rank that sleeps, is the straggler", StragglerIs(1), at_least=1,
                      at_most=1),
                Claim(PAGE, "rank 0 spends about nine tenths of its time waiting for it", StragglerWait(),
                      at_least=0.85, at_most=0.95),
                Claim(PAGE, "rank 1 spends most of its steps asleep inside `straggle`",
                      RankHostShare(1, "region", "straggle"), at_least=0.5, at_most=0.9),
                Claim(PAGE, "rank 0's NCCL kernels should last most of its window, waiting for rank 1",
                      StragglerWait(), at_least=0.5, at_most=0.95, device="cuda"),
            )),
)
