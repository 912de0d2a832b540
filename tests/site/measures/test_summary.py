"""Known answers of the measures of what ``profguide explain`` and ``profguide diff`` report
(``profguide.site.measures.summary``)."""

import json

from profguide.site.measures.summary import (
    HTA_REFERENCE,
    DeviceSetupCall,
    DeviceSetupShare,
    DiffRowRatio,
    DiffRows,
    DiffValue,
    ExplainBusyShare,
    IdleBelowHtas,
    IdleShare,
    RuleFires,
    RuleFixed,
    VerdictIs,
)
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace
from tests.site.measures import Answer, answers, known, ranks, run
from tests.site.measures.test_host import FAST_LOADING, LATE, QUEUED, SLOW_LOADING

ITERATOR = "enumerate(DataLoader)#_{}DataLoaderIter.__next__"


def launch(correlation, ts, dur=2):
    return cpu("cudaLaunchKernel", ts, dur, kind="runtime", correlation=correlation)


def setup(name, ts, dur, tid=1):
    return cpu(name, ts, dur, kind="runtime", tid=tid)


def loader_steps(step_us, loading_us, iterator, ops):
    """Three steps of ``step_us`` on one thread, each loading a batch for ``loading_us`` through the DataLoader
    iterator ``iterator`` (None: no DataLoader), then running the ops ``ops``, 10 µs each."""
    events = []
    for number in range(3):
        start = number * step_us
        events.append(cpu(f"ProfilerStep#{number + 2}", start, step_us, kind="annotation"))
        if iterator:
            events.append(cpu(ITERATOR.format(iterator), start, loading_us, kind="annotation"))
        events += [cpu(name, start + loading_us + 10 * index, 10) for index, name in enumerate(ops)]
    return make_trace(*events)


def gemm_steps(*kernel_us):
    """Three steps of 100 µs, each launching the kernels of these durations (a name each: gemm, then copy)."""
    events = []
    for number in range(3):
        start = number * 100
        events.append(cpu(f"ProfilerStep#{number + 2}", start, 100, kind="annotation"))
        for index, (name, us) in enumerate(zip(("gemm", "copy"), kernel_us, strict=False)):
            correlation = 10 * number + index + 1
            events += [launch(correlation, start + 1 + 3 * index), gpu(name, start + 10 + 20 * index, us,
                                                                           correlation=correlation)]
    return make_trace(*events)


# Before: steps of 100 µs, each loading its batch for 60 µs in the main process, then an mm and an add. After:
# steps of 50 µs, each waiting 10 µs for a worker's batch, then the same mm and a mul.
WITHOUT_WORKERS = loader_steps(100, 60, "SingleProcess", ("aten::mm", "aten::add"))
WITH_WORKERS = loader_steps(50, 10, "MultiProcessing", ("aten::mm", "aten::mul"))
WORKERS_ADDED = ranks(WITH_WORKERS, compared=ranks(WITHOUT_WORKERS))
WORKERS_REMOVED = ranks(WITHOUT_WORKERS, compared=ranks(WITH_WORKERS))
NEVER_WITHOUT = ranks(WITH_WORKERS, compared=ranks(WITH_WORKERS))
ALWAYS_WITHOUT = ranks(WITHOUT_WORKERS, compared=ranks(WITHOUT_WORKERS))
# From a run that loaded no data.
LOADING_ADDED = ranks(WITH_WORKERS, compared=ranks(loader_steps(100, 0, None, ("aten::mm",))))
# The gemm: 10 µs a step before, 13 after; a copy after alone.
GEMM_SLOWER = ranks(gemm_steps(13, 2), compared=ranks(gemm_steps(10)))
# Two steps: kernels 10 to 20 and 30 to 60 launched in the first, 80 to 100 in the second. explain leaves out the
# last step's: 40 µs busy of its window from 10 to 60.
TWO_STEPS = run(cpu("ProfilerStep#1", 0, 50, kind="annotation"), launch(1, 1), launch(2, 4),
                cpu("ProfilerStep#2", 50, 50, kind="annotation"), launch(3, 52),
                gpu("gemm", 10, 10, correlation=1), gpu("gemm", 30, 30, correlation=2),
                gpu("gemm", 80, 20, correlation=3))
NO_GPU = run(cpu("aten::mm", 0, 5))
# explain's window runs from the first kernel's start to the last one's end: 100 to 400 µs. In it the host is in
# cudaMalloc from 150 to 210 and, on another thread, in cudaStreamCreate from 180 to 240: their union is 90 µs. The
# cudaFree before the window and a quick launch count not.
SETUP = run(gpu("gemm", 100, 50), gpu("gemm", 300, 100), setup("cudaFree", 0, 50), setup("cudaMalloc", 150, 60),
            setup("cudaStreamCreate", 180, 60, tid=2), cpu("cudaLaunchKernel", 290, 5, kind="runtime"))
# In the window 0 to 100 µs, thread 1 is in cudaMalloc from 0 to 60 and in cudaFree from 60 to 80; thread 2 is in
# cudaMalloc from 30 to 90. Some set-up call runs from 0 to 90; cudaMalloc (on one thread or both) too.
OVERLAPPING_SETUP = run(gpu("k", 0, 5), gpu("k", 95, 5), setup("cudaMalloc", 0, 60), setup("cudaFree", 60, 20),
                        setup("cudaMalloc", 30, 60, tid=2))
# HTA's reference says it found the trace t.json.gz idle 62.5% of its window; it could not analyse broken.json.gz.
REFERENCE = {HTA_REFERENCE: json.dumps({"hta_version": "0.5.0", "traces": {
    "t.json.gz": {"idle_pct": 62.5, "idle_pct_exact": 62.5}, "broken.json.gz": {"error": "ValueError: x"}}})}
# explain's window runs from 0 to 40 µs, the GPU busy from 0 to 10 and from 30 to 40: idle 20 µs of 40.
HALF_IDLE = (gpu("a", 0, 10), gpu("b", 30, 10))

ANSWERS = [
    Answer("the-last-steps-kernels-left-out", TWO_STEPS, ExplainBusyShare(), 40 / 50),
    Answer("no-gpu-work", NO_GPU, ExplainBusyShare(), None),
    # QUEUED (tests/site/measures/test_host.py): the 20 µs gap before the second kernel, of the window's 40, has
    # its op already queued; LATE: the same gap, its launch not yet made.
    Answer("queued", QUEUED, IdleShare("queued"), 20 / 40),
    Answer("none-of-the-hosts", QUEUED, IdleShare("host"), 0),
    Answer("the-hosts", LATE, IdleShare("host"), 20 / 40),
    Answer("no-gpu-work", NO_GPU, IdleShare("host"), None),
    Answer("union-over-threads", SETUP, DeviceSetupShare(), 90 / 300),
    Answer("no-gpu-work-no-window", NO_GPU, DeviceSetupShare(), None),
    Answer("one-call-of-the-union", OVERLAPPING_SETUP, DeviceSetupCall("cudaMalloc"), 90 / 90),
    Answer("another", OVERLAPPING_SETUP, DeviceSetupCall("cudaFree"), 20 / 90),
    Answer("a-call-not-made", OVERLAPPING_SETUP, DeviceSetupCall("cudaStreamCreate"), None),
    Answer("no-gpu-work", NO_GPU, DeviceSetupCall("cudaMalloc"), None),
    Answer("htas-above-explains", run(*HALF_IDLE, files=REFERENCE, real_file="t.json.gz"), IdleBelowHtas(),
           0.625 - 0.5),
    Answer("hta-could-not-analyse-it", run(*HALF_IDLE, files=REFERENCE, real_file="broken.json.gz"), IdleBelowHtas(),
           None),
    Answer("not-in-the-reference", run(*HALF_IDLE, files=REFERENCE, real_file="absent.json.gz"), IdleBelowHtas(),
           None),
    Answer("no-gpu-work", run(cpu("aten::mm", 0, 5), files=REFERENCE, real_file="t.json.gz"), IdleBelowHtas(), None),
    Answer("a-recording-not-a-real-trace", run(*HALF_IDLE, files=REFERENCE), IdleBelowHtas(), None),
    Answer("input-bound", SLOW_LOADING, VerdictIs("input-bound"), 1),
    Answer("not-input-bound", FAST_LOADING, VerdictIs("input-bound"), 0),
    # dataloader-without-workers fires when the single-process iterator holds over 5% of the steps: 60% without
    # workers, and with them no step holds that iterator at all.
    Answer("fires", WORKERS_REMOVED, RuleFires("dataloader-without-workers"), 1),
    Answer("quiet", WORKERS_ADDED, RuleFires("dataloader-without-workers"), 0),
    Answer("fixed", WORKERS_ADDED, RuleFixed("dataloader-without-workers"), 1),
    Answer("fires-on-this-one", WORKERS_REMOVED, RuleFixed("dataloader-without-workers"), 0),
    Answer("fires-on-both", ALWAYS_WITHOUT, RuleFixed("dataloader-without-workers"), 0),
    Answer("fires-on-neither", NEVER_WITHOUT, RuleFixed("dataloader-without-workers"), 0),
    Answer("median-step-ratio", WORKERS_ADDED, DiffValue("step_us"), 50 / 100),
    Answer("median-step-change", WORKERS_ADDED, DiffValue("step_us", "change"), 50 - 100),
    Answer("data-loading-by-key", WORKERS_ADDED, DiffValue("host_us", "ratio", "data loading"), 10 / 60),
    Answer("from-no-data-loading", LOADING_ADDED, DiffValue("host_us", "ratio", "data loading"), None),
    # The add is gone, the mul is new, the mm is the same (once a step, 10 µs); no kernel on either side.
    Answer("ops-removed", WORKERS_ADDED, DiffRows("ops", "removed"), 1),
    Answer("ops-added", WORKERS_ADDED, DiffRows("ops", "added"), 1),
    Answer("ops-same", WORKERS_ADDED, DiffRows("ops", "same"), 1),
    Answer("ops-changed", WORKERS_ADDED, DiffRows("ops", "changed"), 0),
    Answer("no-kernels", WORKERS_ADDED, DiffRows("kernels", "removed"), 0),
    Answer("slower", GEMM_SLOWER, DiffRowRatio("kernels", "gemm"), 13 / 10),
    Answer("nothing-before", GEMM_SLOWER, DiffRowRatio("kernels", "copy"), None),
    Answer("no-such-row", GEMM_SLOWER, DiffRowRatio("kernels", "attention"), None),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)
