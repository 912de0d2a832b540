"""The recording of Multi-GPU, *One trace per rank*: a data-parallel job of two ranks, one trace each."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from profguide.site.measures.communication import (
    BackendOutsideCall,
    CollectivesPerStep,
    EnclosedShare,
    RanksNamed,
    StragglerWait,
)
from profguide.site.measures.ops import NestedIn
from profguide.site.recordings import Claim, Recording

if TYPE_CHECKING:
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

PAGE = "multi-gpu/per-rank.md"
COLLECTIVES = "multi-gpu/collectives.md"
MANY_PAGE = "multi-gpu/many-ranks.md"
DDP = "snippets.multi_gpu.per_rank"
# Small enough that two ranks on a shared CPU record in seconds, one thread each; two buckets of gradients a step.
DDP_CPU_PARAMS = {"hidden": 256, "layers": 4, "batch": 32, "bucket_cap_mb": 0.5, "threads": 1}


def ddp_run(recording_id: str, title: str, claims: tuple[Claim, ...] = (), **params: object) -> Recording:
    """The data-parallel job of ``snippets/multi_gpu/per_rank.py`` on two ranks, NCCL on GPUs, gloo as a CPU
    stand-in."""
    return Recording(
        id=recording_id,
        module=DDP,
        function="train_ddp",
        params={"hidden": 4096, "layers": 8, "batch": 64, "bucket_cap_mb": 25, **params},
        cpu_params=DDP_CPU_PARAMS,
        ranks=2,
        timeout_s=300,
        title=title,
        claims=claims,
    )


RECORDINGS = (
    ddp_run("multigpu-ddp", "DistributedDataParallel on {hidden}-wide layers, 2 ranks", claims=(
        Claim(PAGE, "each rank's trace names its own rank and the size of the job", RanksNamed(), at_least=1,
              at_most=1),
        Claim(COLLECTIVES, "every `gloo:all_reduce` runs on one of gloo's own threads, outside the call that "
              "asked for it", BackendOutsideCall(), at_least=1, at_most=1, device="cpu"),
        Claim(COLLECTIVES, "every `c10d::allreduce_` is called from inside an `AccumulateGrad`",
              EnclosedShare("c10d::allreduce_", "AccumulateGrad"), at_least=1, at_most=1),
        Claim(COLLECTIVES, "No `c10d::allreduce_` here holds a `record_param_comms`",
              NestedIn("c10d::allreduce_", "record_param_comms"), at_least=0, at_most=0, device="cpu"),
        # "More than one" is a few: a step of dozens of buckets needs other words.
        Claim(COLLECTIVES, "every step all-reduces its gradients in more than one bucket", CollectivesPerStep(),
              at_least=2, at_most=10),
        Claim(MANY_PAGE, "no rank of this job is expected to wait for another for a tenth of its time",
              StragglerWait(), at_least=0, at_most=0.1, device="cuda"),
    )),
)


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def rank_traces(data: Run) -> dict[str, str]:
    """Each rank's trace file and what its ``distributedInfo`` says, then the last rank's in full."""
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError

    infos = [loaded.distributed_info for loaded in data.traces]
    files = [data.trace_path(rank).name for rank in range(data.ranks)]
    if not any(infos):
        raise FragmentError("no distributedInfo in this recording's traces")
    shown = json.dumps(infos[-1], indent=2)
    return {"ranks.md": render.ranks_table(infos, files) + f"\n`distributedInfo` of `{files[-1]}`:\n\n"
            + f"```json\n{shown}\n```\n\n" + render.provenance_note(data.meta)}


FRAGMENTS: dict[str, Maker] = {"ranks.md": rank_traces}
