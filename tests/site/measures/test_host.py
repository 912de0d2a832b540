"""Known answers of the measures of the host: its syncs, its launches and their delays, what its time goes to
(``profguide.site.measures.host``)."""

from profguide.site.measures.host import (
    CallCount,
    HostLead,
    HostShare,
    HostShareFall,
    LaunchedBy,
    LaunchGap,
    LongestSyncAfterSteps,
    OccupancyQueries,
    OverheadEvents,
    QueriesInside,
    QueueingOverLaunch,
    RankHostShare,
    SyncBusyShare,
    SyncInsideStep,
    SyncOverKernels,
    SyncOverStep,
    SyncsPerStep,
)
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace
from tests.site.measures import Answer, answers, known, ranks, run, steps

SYNC = "cudaStreamSynchronize"
QUERY = "cudaOccupancyMaxActiveBlocksPerMultiprocessor"
LOADER = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"


def launch(correlation, ts, dur, call="cudaLaunchKernel", kind="runtime"):
    return cpu(call, ts, dur, kind=kind, correlation=correlation)


def sync(ts, dur, name=SYNC):
    return cpu(name, ts, dur, kind="runtime")


def loading(*loading_us):
    """Steps of 100 µs on one thread, each loading data for the given time, then in one op for the rest."""
    events = []
    for number, loaded in enumerate(loading_us):
        start = 100 * number
        events += [cpu(f"ProfilerStep#{number}", start, 100, kind="annotation"), cpu(LOADER, start, loaded,
                                                                                      kind="annotation"),
                   cpu("aten::addmm", start + loaded, 100 - loaded)]
    return events


# A sync of 80 µs; kernels of 40 and 10 µs.
SYNC_AND_KERNELS = run(launch(1, 0, 2), sync(3, 80, "cudaDeviceSynchronize"), gpu("gemm", 10, 40, correlation=1),
                       gpu("gemm", 70, 10))
# Steps of 100, 100 and 120 µs holding 2, 1 and 1 syncs; the longest sync (50 µs) in the second.
SYNCED_STEPS = run(*steps(100, 100, 120), sync(10, 5), sync(20, 5), sync(150, 50), sync(250, 1))
# Steps of 100 and 200 µs, the second holding a 40 µs sync; the longest sync, 90 µs, after both.
SYNC_AFTER_STEPS = run(*steps(100, 200), sync(10, 5), sync(150, 40), sync(310, 90, "cudaDeviceSynchronize"))
# The longest sync, 40 µs, inside the second step; a shorter one after the steps.
SYNC_INSIDE_STEPS = run(*steps(100, 200), sync(150, 40), sync(310, 9))
# The longest sync spans 100 to 200 µs; kernels cover 100 to 150 and 170 to 180 of it.
BUSY_DURING_SYNC = run(sync(100, 100, "cudaDeviceSynchronize"), sync(300, 5), gpu("gemm", 80, 70),
                       gpu("gemm", 170, 10))
# Kernel 1 starts 8 µs after its launch ends, on an empty stream; kernel 2, launched at 8 µs before kernel 1 ended,
# waits until 40 µs: 32 µs of queueing. One step of 80 µs.
QUEUED = run(cpu("ProfilerStep#1", 0, 80, kind="annotation"), launch(1, 0, 2), launch(2, 5, 3),
             gpu("k", 10, 10, correlation=1), gpu("k", 40, 10, correlation=2))
# Launched late instead: the second kernel meets an empty stream, nothing queues.
LATE = run(launch(1, 0, 2), launch(2, 30, 5), gpu("k", 10, 10, correlation=1), gpu("k", 40, 10, correlation=2))
SLOW_LOADING = run(*loading(60, 80))  # 140 µs of 200 loading; 60 against 40 in the op in the first step
FAST_LOADING = run(*loading(10, 10), siblings={"slow": SLOW_LOADING})  # 20 µs of 200 loading
# Two ranks of one step of 1000 µs: rank 0 in an op all of it; rank 1 in the region "straggle" 500 µs and in
# "settle" 50 µs, both holding no op, and in an op 100 µs.
TWO_RANKS = ranks(make_trace(cpu("ProfilerStep#1", 0, 1000, kind="annotation"), cpu("aten::mm", 0, 1000)),
                  make_trace(cpu("ProfilerStep#1", 0, 1000, kind="annotation"),
                             cpu("straggle", 100, 500, kind="annotation"), cpu("aten::mm", 700, 100),
                             cpu("settle", 850, 50, kind="annotation")))
# Two occupancy queries and a launch by the driver (the op named like a query is no call).
CALLS = run(sync(0, 1, QUERY), sync(5, 1, f"{QUERY}WithFlags"), launch(9, 10, 1, "cuLaunchKernelEx", "driver"),
            cpu("cudaOccupancyLike", 20, 1))
# Three Triton kernels launched by cuLaunchKernelEx, cudaLaunchKernel and a graph (with a GEMM); one more whose
# launch the trace does not hold.
TRITON = run(launch(1, 0, 2, "cuLaunchKernelEx", "driver"), launch(2, 10, 2),
             launch(3, 20, 2, "cudaGraphLaunch"), gpu("triton_poi_fused_0", 3, 1, correlation=1),
             gpu("triton_poi_fused_1", 13, 1, correlation=2), gpu("triton_per_fused_2", 24, 1, correlation=3),
             gpu("sm90_gemm", 26, 1, correlation=3), gpu("triton_unlaunched", 40, 1))
# Three queries: one inside the convolution, one inside the mm, one in the convolution's time on another thread.
QUERIES = run(cpu("aten::cudnn_convolution", 0, 50), sync(10, 1, QUERY), cpu("aten::mm", 100, 20),
              sync(105, 1, f"{QUERY}WithFlags"), cpu(QUERY, 30, 1, kind="runtime", tid=2))
# One query, followed by a GEMM's launch; then an elementwise launch and another GEMM's (cuDNN's).
QUERY_THEN_LAUNCHES = run(sync(14, 1, QUERY), launch(1, 16, 4), launch(2, 60, 4), launch(3, 70, 4),
                          gpu("cutlass_80_gemm", 20, 10, correlation=1),
                          gpu("elementwise_kernel", 65, 2, correlation=2),
                          gpu("sm80_xmma_gemm_cudnn_infer", 75, 5, correlation=3))
NO_GPU = run(cpu("aten::mm", 0, 5))
ONE_STEP = run(*steps(100))

ANSWERS = [
    Answer("a-sync-longer-than-the-kernels", SYNC_AND_KERNELS, SyncOverKernels(), 80 / 50),
    Answer("no-sync", run(gpu("gemm", 0, 10)), SyncOverKernels(), None),
    Answer("fewest-in-a-step", SYNCED_STEPS, SyncsPerStep(), 1),
    Answer("a-step-without", run(*steps(100, 100), sync(10, 5)), SyncsPerStep(), 0),
    Answer("no-step", NO_GPU, SyncsPerStep(), None),
    Answer("against-the-median-step", SYNCED_STEPS, SyncOverStep(), 50 / 100),
    Answer("no-sync", ONE_STEP, SyncOverStep(), None),
    Answer("largest-share-of-its-step", SYNC_AFTER_STEPS, SyncInsideStep(), 40 / 200),
    Answer("no-sync", ONE_STEP, SyncInsideStep(), None),
    Answer("after-the-steps", SYNC_AFTER_STEPS, LongestSyncAfterSteps(), 1),
    Answer("inside-a-step", SYNC_INSIDE_STEPS, LongestSyncAfterSteps(), 0),
    Answer("no-step", run(sync(0, 5)), LongestSyncAfterSteps(), None),
    Answer("kernels-cover-part", BUSY_DURING_SYNC, SyncBusyShare(), 60 / 100),
    Answer("no-sync", run(gpu("gemm", 0, 10)), SyncBusyShare(), None),
    Answer("queued-behind-a-kernel", QUEUED, QueueingOverLaunch(), 32 / 8),
    Answer("nothing-queued", LATE, QueueingOverLaunch(), None),
    Answer("launch-delay-us", QUEUED, LaunchGap("launch delay"), 8),
    Answer("queueing-us", QUEUED, LaunchGap("queueing"), 32),
    Answer("queueing-over-the-step", QUEUED, LaunchGap("queueing", per_step=True), 32 / 80),
    Answer("nothing-queued", run(launch(1, 0, 2), gpu("k", 10, 10, correlation=1)), LaunchGap("queueing"), None),
    Answer("data-loading", SLOW_LOADING, HostShare("data loading"), 140 / 200),
    Answer("no-host-events", run(gpu("k", 0, 5)), HostShare("data loading"), None),
    Answer("data-loading-fell", FAST_LOADING, HostShareFall("data loading", "slow"), (140 / 200) / (20 / 200)),
    Answer("no-host-events-here", run(gpu("k", 0, 5), siblings={"slow": SLOW_LOADING}),
           HostShareFall("data loading", "slow"), None),
    Answer("where-it-leads-least", SLOW_LOADING, HostLead("data loading"), 60 / 40),
    Answer("no-host-events", run(gpu("k", 0, 5)), HostLead("data loading"), None),
    Answer("rank-1-in-regions", TWO_RANKS, RankHostShare(1, "region"), (500 + 50) / 1000),
    Answer("rank-1-under-one-region", TWO_RANKS, RankHostShare(1, "region", "straggle"), 500 / 1000),
    Answer("rank-0-never-there", TWO_RANKS, RankHostShare(0, "region", "straggle"), None),
    Answer("no-rank-2", TWO_RANKS, RankHostShare(2, "region"), None),
    Answer("occupancy-queries", CALLS, CallCount("cudaOccupancy"), 2),
    Answer("a-driver-call", CALLS, CallCount("cuLaunchKernelEx"), 1),
    Answer("none-so-named", CALLS, CallCount("hipLaunchKernel"), 0),
    Answer("every-way-of-launching", TRITON, LaunchedBy(("cuLaunchKernelEx", "cuLaunchKernel", "cudaGraphLaunch")),
           2 / 3),
    Answer("a-graphs-gemm", TRITON, LaunchedBy(("cudaGraphLaunch",), kernels="gemm"), 1),
    Answer("no-such-kernel", TRITON, LaunchedBy(("cuLaunchKernel",), kernels="cutlass"), None),
    Answer("inside-the-convolution", QUERIES, QueriesInside("convolution"), 1 / 3),
    Answer("inside-the-mm", QUERIES, QueriesInside("aten::mm"), 1 / 3),
    Answer("no-query", NO_GPU, QueriesInside("convolution"), None),
    Answer("queries-before-a-gemm", QUERY_THEN_LAUNCHES, OccupancyQueries("gemm", "queries"), 1),
    Answer("gemm-launches-after-one", QUERY_THEN_LAUNCHES, OccupancyQueries("gemm", "launches"), 1 / 2),
    Answer("cudnn-gemms-after-one", QUERY_THEN_LAUNCHES, OccupancyQueries("gemm", "launches", "cudnn"), 0),
    Answer("elementwise-after-one", QUERY_THEN_LAUNCHES, OccupancyQueries("elementwise", "launches"), 0),
    Answer("no-query", NO_GPU, OccupancyQueries("gemm", "queries"), None),
    Answer("none", NO_GPU, OverheadEvents(), 0),
    Answer("a-buffer-request", run(cpu("Activity Buffer Request", 0, 5, kind="overhead")), OverheadEvents(), 1),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)
