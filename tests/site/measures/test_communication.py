"""Known answers of the measures of communication: collectives and their kernels, their overlap with computation,
the ranks of a job (``profguide.site.measures.communication``)."""

from profguide.site.measures.communication import (
    BackendOutsideCall,
    CollectivesPerStep,
    CommStreamShare,
    CommunicationByCall,
    CommunicationExposed,
    CommunicationHidden,
    CommunicationKernelNamed,
    EnclosedShare,
    LargestBucketShare,
    LastCollective,
    RanksLineUp,
    RanksNamed,
    StragglerIs,
    StragglerWait,
)
from tests.analysis.test_collectives import GLOO, GLOO_JOB, x
from tests.analysis.test_ranks import gloo_rank
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace
from tests.site.measures import Answer, answers, known, ranks, run

ONE_RANK = run(cpu("aten::mm", 0, 5))  # one rank, no collective
# GLOO_JOB (tests/analysis/test_collectives.py): two steps, each all-reducing buckets of 300 and 200 floats on
# gloo's thread, from c10d::allreduce_ calls inside AccumulateGrad on the main thread.
GLOO_RUN = ranks(GLOO_JOB)
# Buckets of 1200 and 800 bytes in step 3 (the largest 0.6 of them), 400 and 400 in step 4 (0.5).
UNEVEN_BUCKETS = run(x("ProfilerStep#3", 0, 100, cat="user_annotation"),
                     x("gloo:all_reduce", 10, 5, cat="user_annotation", tid=GLOO,
                       **{"Input Dims": [[300]], "Input type": ["float"]}),
                     x("gloo:all_reduce", 20, 5, cat="user_annotation", tid=GLOO,
                       **{"Input Dims": [[200]], "Input type": ["float"]}),
                     x("ProfilerStep#4", 100, 100, cat="user_annotation"),
                     *(x("gloo:all_reduce", start, 5, cat="user_annotation", tid=GLOO,
                         **{"Input Dims": [[100]], "Input type": ["float"]}) for start in (110, 120)))
# On stream 20, an NCCL kernel of 30 µs beside a GEMM of 10; on stream 7, a GEMM of 100.
SHARED_STREAM = run(gpu("ncclKernel_AllReduce", 0, 30, stream=20), gpu("gemm", 40, 10, stream=20),
                    gpu("gemm", 0, 100))
# An all-reduce of 50 µs, 25 of them under a GEMM, in step 1; one of 10 µs, under nothing, in step 2.
OVERLAPPED = run(cpu("ProfilerStep#1", 0, 100, kind="annotation"), cpu("ProfilerStep#2", 100, 100, kind="annotation"),
                 gpu("gemm", 0, 50), gpu("ncclKernel_AllReduce", 25, 50, stream=20),
                 gpu("ncclKernel_AllReduce", 100, 10, stream=20))
# An all-reduce of 50 µs, 25 under a GEMM; a broadcast of 40 under none.
TWO_COLLECTIVES = run(gpu("gemm", 0, 50), gpu("ncclKernel_AllReduce", 25, 50, stream=20),
                      gpu("ncclKernel_Broadcast", 100, 40, stream=20))
SENDRECV = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
# Kernels of one name: 60 µs launched inside nccl:all_reduce, 30 inside nccl:all_to_all, 10 launched before the
# trace began (no launch call holds its correlation).
BY_CALL = run(x("nccl:all_reduce", 0, 10, cat="user_annotation"),
              x("cudaLaunchKernel", 2, 3, cat="cuda_runtime", correlation=1),
              x("nccl:all_to_all", 20, 10, cat="user_annotation"),
              x("cudaLaunchKernel", 22, 3, cat="cuda_runtime", correlation=2),
              x(SENDRECV, 30, 60, cat="kernel", pid=0, tid=40, correlation=1),
              x(SENDRECV, 100, 30, cat="kernel", pid=0, tid=40, correlation=2),
              x(SENDRECV, 140, 10, cat="kernel", pid=0, tid=40, correlation=9))
# Rank 1 arrives 300 µs late at each of two all-reduces that end together on both ranks: rank 0 waits 600 µs of
# its 1000 µs step.
STRAGGLER = ranks(gloo_rank(0, [(100, 400, 2), (600, 350, 2)]), gloo_rank(1, [(400, 100, 2), (900, 50, 2)]))
# The second rank's collectives end far from the first's, at no constant offset: sampled traces.
UNLIKE = ranks(gloo_rank(0, [(0, 100, 2), (1000, 100, 2), (5000, 100, 2)]),
               gloo_rank(1, [(0, 400, 2), (3000, 100, 2), (5000, 700, 2)]))
# No collective on the first rank.
NOTHING_SHARED = ranks(gloo_rank(0, []), gloo_rank(1, [(0, 10, 2)]))
# The second trace says it is rank 0 too.
MISNAMED = ranks(*(make_trace(cpu("aten::mm", 0, 5), distributedInfo={"rank": 0, "world_size": 2})
                   for _ in range(2)))
FLIGHT_RECORDER = run(cpu("aten::mm", 0, 5), results_json={"ranks": [[{"seq": 1}, {"seq": 3}, {"seq": 2}], []]})

ANSWERS = [
    Answer("gloo-works-outside-the-call", GLOO_RUN, BackendOutsideCall(), 1),
    Answer("no-backend-op", ONE_RANK, BackendOutsideCall(), None),
    Answer("ddp-calls-from-accumulate-grad", GLOO_RUN, EnclosedShare("c10d::allreduce_", "AccumulateGrad"), 1),
    Answer("gloo-on-another-thread", GLOO_RUN, EnclosedShare("gloo:all_reduce", "AccumulateGrad"), 0),
    Answer("nothing-to-enclose", ONE_RANK, EnclosedShare("c10d::allreduce_", "AccumulateGrad"), None),
    Answer("two-a-step", GLOO_RUN, CollectivesPerStep(), 2),
    Answer("no-step", ONE_RANK, CollectivesPerStep(), None),
    Answer("least-over-the-steps", UNEVEN_BUCKETS, LargestBucketShare(), 400 / 800),
    Answer("like-steps", GLOO_RUN, LargestBucketShare(), 1200 / 2000),
    Answer("no-all-reduce", ONE_RANK, LargestBucketShare(), None),
    Answer("a-stream-shared-with-a-gemm", SHARED_STREAM, CommStreamShare(), 30 / 40),
    Answer("no-communication", ONE_RANK, CommStreamShare(), None),
    Answer("over-the-trace", OVERLAPPED, CommunicationHidden(), 25 / 60),
    Answer("of-every-collective", TWO_COLLECTIVES, CommunicationHidden(), 25 / 90),
    Answer("of-one-collective", TWO_COLLECTIVES, CommunicationHidden("AllReduce"), 25 / 50),
    Answer("of-one-never-hidden", TWO_COLLECTIVES, CommunicationHidden("Broadcast"), 0),
    Answer("of-none-so-named", TWO_COLLECTIVES, CommunicationHidden("AllGather"), None),
    Answer("no-communication", run(gpu("gemm", 0, 5)), CommunicationHidden(), None),
    # Step 1: 25 µs exposed of its 100; step 2: 10 of 100.
    Answer("least", OVERLAPPED, CommunicationExposed("least"), 10 / 100),
    Answer("most", OVERLAPPED, CommunicationExposed("most"), 25 / 100),
    Answer("no-communication", run(gpu("gemm", 0, 5)), CommunicationExposed("most"), None),
    Answer("the-all-reduces", BY_CALL, CommunicationByCall("nccl:all_reduce"), 60 / 100),
    Answer("the-all-to-alls", BY_CALL, CommunicationByCall("nccl:all_to_all"), 30 / 100),
    Answer("a-call-that-launched-none", BY_CALL, CommunicationByCall("nccl:broadcast"), 0),
    Answer("no-communication", ONE_RANK, CommunicationByCall("nccl:all_reduce"), None),
    Answer("every-kernel-so-named", BY_CALL, CommunicationKernelNamed("SendRecv"), 1),
    Answer("none-so-named", BY_CALL, CommunicationKernelNamed("AllReduce"), 0),
    Answer("among-one-calls", BY_CALL, CommunicationKernelNamed("SendRecv", "nccl:all_to_all"), 1),
    Answer("a-call-that-launched-none", BY_CALL, CommunicationKernelNamed("SendRecv", "nccl:send"), None),
    Answer("the-late-rank", STRAGGLER, StragglerIs(1), 1),
    Answer("not-the-early-rank", STRAGGLER, StragglerIs(0), 0),
    Answer("no-straggler-where-they-do-not-line-up", UNLIKE, StragglerIs(1), None),
    Answer("one-rank-is-no-job", ONE_RANK, StragglerIs(1), None),
    Answer("the-early-rank-waits", STRAGGLER, StragglerWait(), 600 / 1000),
    Answer("no-straggler", UNLIKE, StragglerWait(), None),
    Answer("one-rank-is-no-job", ONE_RANK, StragglerWait(), None),
    Answer("ending-together", STRAGGLER, RanksLineUp(), 1),
    Answer("sampled", UNLIKE, RanksLineUp(), 0),
    Answer("nothing-shared", NOTHING_SHARED, RanksLineUp(), None),
    Answer("one-rank-is-no-job", ONE_RANK, RanksLineUp(), None),
    Answer("each-names-itself", STRAGGLER, RanksNamed(), 1),
    Answer("one-of-two-misnamed", MISNAMED, RanksNamed(), 1 / 2),
    Answer("no-distributed-info", ONE_RANK, RanksNamed(), 0),
    Answer("rank-0s-highest", FLIGHT_RECORDER, LastCollective(0), 3),
    Answer("an-empty-buffer", FLIGHT_RECORDER, LastCollective(1), None),
    Answer("no-such-rank", FLIGHT_RECORDER, LastCollective(2), None),
    Answer("no-results", ONE_RANK, LastCollective(0), None),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)
