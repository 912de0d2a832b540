"""The recordings of Part 3, Multi-GPU: data-parallel jobs of several ranks, one trace per rank."""

from profguide.site.parts.multigpu_ranks import DDP_CLAIMS, STRAGGLER_CLAIMS
from profguide.site.parts.reading_waits import HTA
from profguide.site.recordings import (
    BackendOutsideCall,
    Claim,
    CollectivesPerStep,
    ColumnShare,
    CommStreamShare,
    CommunicationKernelNamed,
    EnclosedShare,
    Figure,
    NestedIn,
    RanksNamed,
    RealTrace,
    Recording,
)

PER_RANK = "multi-gpu/per-rank.md"
COLLECTIVES = "multi-gpu/collectives.md"
DDP = "snippets.multi_gpu.per_rank"
# Small enough that two ranks on a shared CPU record in seconds, one thread each; two buckets of gradients a step.
DDP_CPU_PARAMS = {"hidden": 256, "layers": 4, "batch": 32, "bucket_cap_mb": 0.5, "threads": 1}
NCCL_ALL_REDUCE = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"


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
        Claim(PER_RANK, "each rank's trace names its own rank and the size of the job", RanksNamed(), at_least=1,
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
        *DDP_CLAIMS,
    )),
    ddp_run("multigpu-straggler", "The same job with rank {slow_rank} {slow_ms:g} ms late to each backward",
            slow_rank=1, slow_ms=50.0, claims=STRAGGLER_CLAIMS),
    Recording(
        id="multigpu-fsdp",
        module="snippets.multi_gpu.collectives",
        function="train_fsdp",
        params={"hidden": 4096, "layers": 8, "batch": 64},
        cpu_params={"hidden": 256, "layers": 2, "batch": 32, "threads": 1},
        ranks=2,
        timeout_s=300,
        title="fully_shard on {hidden}-wide layers, 2 ranks",
        claims=(
            Claim(COLLECTIVES, "it all-gathers parameters twice for each time it reduce-scatters gradients",
                  ColumnShare("c10d::_allgather_base_", "c10d::_reduce_scatter_base_", "count"), at_least=2,
                  at_most=2),
            Claim(COLLECTIVES, "gloo carries out each reduce-scatter as a `gloo:all_reduce`",
                  ColumnShare("gloo:all_reduce", "c10d::_reduce_scatter_base_", "count"), at_least=1, at_most=1,
                  device="cpu"),
        ),
    ),
)

REAL_TRACES = (
    RealTrace(
        id="multigpu-a100-2rank-collectives",
        file="docs/traces/a100_nccl_2rank_rank0.json.gz",
        title="A data-parallel training job on two A100s, rank 0",
        **HTA,
        figure=Figure(step=5, highlight=(NCCL_ALL_REDUCE,)),
        claims=(
            Claim(COLLECTIVES, "each `nccl:all_reduce` runs inside its `c10d::allreduce_`, on the same thread",
                  BackendOutsideCall(), at_least=0, at_most=0),
            Claim(COLLECTIVES, "NCCL's kernels have their stream to themselves", CommStreamShare(), at_least=1,
                  at_most=1),
            Claim(COLLECTIVES, "each `c10d::allreduce_` here holds one `record_param_comms`",
                  NestedIn("c10d::allreduce_", "record_param_comms"), at_least=1, at_most=1),
            Claim(COLLECTIVES, "each kernel that `nccl:all_reduce` launches is an `ncclKernel_AllReduce_…`",
                  CommunicationKernelNamed("ncclKernel_AllReduce", "nccl:all_reduce"), at_least=1, at_most=1),
            Claim(COLLECTIVES, "each one that `nccl:broadcast` launches an `ncclKernel_Broadcast_…`",
                  CommunicationKernelNamed("ncclKernel_Broadcast", "nccl:broadcast"), at_least=1, at_most=1),
            Claim(COLLECTIVES, "here too every `c10d::allreduce_` is called from inside an `AccumulateGrad`",
                  EnclosedShare("c10d::allreduce_", "AccumulateGrad"), at_least=1, at_most=1),
            Claim(COLLECTIVES, "more than one bucket a step here too", CollectivesPerStep(), at_least=2, at_most=10),
        ),
    ),
    RealTrace(
        id="multigpu-a100-16rank-collectives",
        file="docs/traces/a100_80gb_nccl_16rank_rank0.json.gz",
        title="A training job on sixteen A100-80GBs, rank 0",
        **HTA,
        claims=(
            Claim(COLLECTIVES, "each of its `c10d::_reduce_scatter_base_` calls holds one "
                  "`nccl:_reduce_scatter_base`", NestedIn("c10d::_reduce_scatter_base_", "nccl:_reduce_scatter_base"),
                  at_least=1, at_most=1),
        ),
    ),
)
