"""The recording of Multi-GPU, *What a collective looks like*: a fully sharded job; and the real traces whose
collectives NCCL carries out."""

from profguide.site.measures.communication import (
    BackendOutsideCall,
    CollectivesPerStep,
    CommStreamShare,
    CommunicationKernelNamed,
    EnclosedShare,
)
from profguide.site.measures.ops import NestedIn
from profguide.site.measures.results import ColumnShare
from profguide.site.parts import HTA
from profguide.site.recordings import Claim, Figure, RealTrace, Recording

PAGE = "multi-gpu/collectives.md"
NCCL_ALL_REDUCE = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"

RECORDINGS = (
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
            Claim(PAGE, "it all-gathers parameters twice for each time it reduce-scatters gradients",
                  ColumnShare("c10d::_allgather_base_", "c10d::_reduce_scatter_base_", "count"), at_least=2,
                  at_most=2),
            Claim(PAGE, "gloo carries out each reduce-scatter as a `gloo:all_reduce`",
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
            Claim(PAGE, "each `nccl:all_reduce` runs inside its `c10d::allreduce_`, on the same thread",
                  BackendOutsideCall(), at_least=0, at_most=0),
            Claim(PAGE, "NCCL's kernels have their stream to themselves", CommStreamShare(), at_least=1,
                  at_most=1),
            Claim(PAGE, "each `c10d::allreduce_` here holds one `record_param_comms`",
                  NestedIn("c10d::allreduce_", "record_param_comms"), at_least=1, at_most=1),
            Claim(PAGE, "each kernel that `nccl:all_reduce` launches is an `ncclKernel_AllReduce_…`",
                  CommunicationKernelNamed("ncclKernel_AllReduce", "nccl:all_reduce"), at_least=1, at_most=1),
            Claim(PAGE, "each one that `nccl:broadcast` launches an `ncclKernel_Broadcast_…`",
                  CommunicationKernelNamed("ncclKernel_Broadcast", "nccl:broadcast"), at_least=1, at_most=1),
            Claim(PAGE, "here too every `c10d::allreduce_` is called from inside an `AccumulateGrad`",
                  EnclosedShare("c10d::allreduce_", "AccumulateGrad"), at_least=1, at_most=1),
            Claim(PAGE, "more than one bucket a step here too", CollectivesPerStep(), at_least=2, at_most=10),
        ),
    ),
    RealTrace(
        id="multigpu-a100-16rank-collectives",
        file="docs/traces/a100_80gb_nccl_16rank_rank0.json.gz",
        title="A training job on sixteen A100-80GBs, rank 0",
        **HTA,
        claims=(
            Claim(PAGE, "each of its `c10d::_reduce_scatter_base_` calls holds one "
                  "`nccl:_reduce_scatter_base`", NestedIn("c10d::_reduce_scatter_base_", "nccl:_reduce_scatter_base"),
                  at_least=1, at_most=1),
        ),
    ),
)
