"""The real traces of Part 3's page "Communication against computation": NCCL jobs on A100s."""

from profguide.site.parts import HTA
from profguide.site.recordings import (
    Claim,
    CollectivesPerStep,
    CommunicationByCall,
    CommunicationExposed,
    CommunicationHidden,
    CommunicationKernelNamed,
    EnclosedShare,
    Figure,
    IdleShare,
    LargestBucketShare,
    RealTrace,
)

PAGE = "multi-gpu/overlap.md"

REAL_TRACES = (
    RealTrace(
        id="multigpu-a100-2rank-overlap",
        file="docs/traces/a100_nccl_2rank_rank0.json.gz",
        title="A data-parallel training job on two A100s, rank 0",
        **HTA,
        figure=Figure(step=5, highlight=("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, "
                                         "ncclWork*)",)),
        claims=(
            Claim(PAGE, "less than a fifth of the all-reduce kernels' time is hidden behind computation",
                  CommunicationHidden("ncclKernel_AllReduce"), at_least=0.1, at_most=0.2),
            Claim(PAGE, "exposed communication takes less than a tenth of every step's window",
                  CommunicationExposed("most"), at_least=0.05, at_most=0.1),
            Claim(PAGE, "From the GPU's first kernel to its last, the GPU spends most of the time waiting for the host "
                  "to launch the next one", IdleShare("host"), at_least=0.5, at_most=0.9),
            Claim(PAGE, "every kernel that `nccl:all_reduce` launched is an `ncclKernel_AllReduce_…`",
                  CommunicationKernelNamed("ncclKernel_AllReduce", "nccl:all_reduce"), at_least=1, at_most=1),
        ),
    ),
    RealTrace(
        id="multigpu-a100-16rank-overlap",
        file="docs/traces/a100_80gb_nccl_16rank_rank0.json.gz",
        title="A training job on sixteen A100-80GBs, rank 0",
        **HTA,
        claims=(
            Claim(PAGE, "almost none of its communication overlaps computation", CommunicationHidden(),
                  at_least=0, at_most=0.05),
            Claim(PAGE, "exposed communication takes more than a tenth of every step's window",
                  CommunicationExposed("least"), at_least=0.1, at_most=0.2),
            Claim(PAGE, "every communication kernel in it is an `ncclKernel_SendRecv`",
                  CommunicationKernelNamed("ncclKernel_SendRecv"), at_least=1, at_most=1),
            # NCCL's kernels named for a point-to-point exchange, though the calls were collectives.
            *(Claim(PAGE, words, CommunicationKernelNamed("ncclKernel_SendRecv", call), at_least=1, at_most=1)
              for words, call in (("even the kernels that its `nccl:all_reduce` launched are `ncclKernel_SendRecv`",
                                   "nccl:all_reduce"),
                                  ("and so are those of its all-gathers", "nccl:_all_gather_base"),
                                  ("and of its reduce-scatters", "nccl:_reduce_scatter_base"))),
            Claim(PAGE, "about two thirds of their time was launched by all-reduces",
                  CommunicationByCall("nccl:all_reduce"), at_least=0.6, at_most=0.75),
            Claim(PAGE, "about a sixth by all-to-alls", CommunicationByCall("nccl:all_to_all"), at_least=0.12,
                  at_most=0.2),
            Claim(PAGE, "each of its all-reduces is sent from inside an `AccumulateGrad`",
                  EnclosedShare("c10d::allreduce_", "AccumulateGrad"), at_least=1, at_most=1),
            Claim(PAGE, "Each step all-reduces its gradients in two buckets", CollectivesPerStep(), at_least=2,
                  at_most=2),
            Claim(PAGE, "the larger of the two carries nearly all of the bytes", LargestBucketShare(), at_least=0.9,
                  at_most=1),
        ),
    ),
)
