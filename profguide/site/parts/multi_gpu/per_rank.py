"""The recording of Multi-GPU, *One trace per rank*: a data-parallel job of two ranks, one trace each."""

from profguide.site.recordings import (
    BackendOutsideCall,
    Claim,
    CollectivesPerStep,
    EnclosedShare,
    NestedIn,
    RanksNamed,
    Recording,
    StragglerWait,
)

PAGE = "multi-gpu/per-rank.md"
COLLECTIVES = "multi-gpu/collectives.md"
MANY_PAGE = "multi-gpu/many-ranks.md"
DDP = "snippets.multi_gpu.per_rank"
# Small enough that two ranks on a shared CPU record in seconds, one thread each; two buckets of gradients a step.
DDP_CPU_PARAMS = {"hidden": 256, "layers": 4, "batch": 32, "bucket_cap_mb": 0.5, "threads": 1}


def ddp_run(recording_id, title, claims=(), **params):
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
