"""Every figure explain prints is measured over the window it is printed under."""

import pytest

from profguide.analysis.select import profiler_steps, step_window
from profguide.analysis.summarise import summarise
from tests.analysis.gpu_traces import Loop
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


def two_steps_one_talking():
    """ProfilerStep#0 runs two GEMMs and nothing else; ProfilerStep#1 an all-reduce, a sync, a copy."""
    loop = Loop()
    loop.op("aten::mm", host_us=10, kernel_us=200)
    loop.op("aten::mm", host_us=10, kernel_us=200)
    step0_end = loop.now
    loop.wait(400)
    step1 = loop.now
    loop.op("nccl:all_reduce", host_us=10, kernel_us=500)
    loop.events[-1]["name"] = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
    loop.item()
    loop.events += [cpu("cudaMemcpyAsync", loop.now, 5, kind="runtime", correlation=99),
                    gpu("Memcpy DtoH (Device -> Pinned)", loop.now + 8, 30, kind="memcpy", correlation=99,
                        bytes=4096)]
    loop.now += 40
    return loop.trace(cpu("ProfilerStep#0", 0, step0_end, kind="annotation"),
                      cpu("ProfilerStep#1", step1, loop.now - step1, kind="annotation"))


def test_a_step_of_gemms_alone_shows_no_communication_sync_or_copy_of_another_step():
    trace = two_steps_one_talking()
    window = step_window(trace, 0)
    summary = summarise(trace, window)
    assert summary["communication"]["kernels"] == 0
    assert summary["communication"]["kernel_us"] == 0
    assert summary["synchronisations"]["host_calls"] == 0
    assert summary["memory_traffic"] == []
    assert summary["verdict"] != "communication-bound"
    assert sum(stats["count"] for stats in summary["launch_delay_us"].values()) + (
        summary["queueing_us"]["count"] if summary["queueing_us"] else 0) == 2  # its two GEMMs, no more


def test_the_other_step_shows_its_own():
    trace = two_steps_one_talking()
    summary = summarise(trace, step_window(trace, 1))
    assert summary["communication"]["kernels"] == 1
    assert summary["synchronisations"]["host_calls"] == 1
    assert [row["name"] for row in summary["memory_traffic"]] == ["Memcpy DtoH (Device -> Pinned)"]


def test_a_sync_that_straddles_the_window_counts_its_time_inside_it():
    trace = make(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1), gpu("k", 5, 100, correlation=1),
                 cpu("cudaDeviceSynchronize", 3, 110, kind="runtime"),
                 cpu("cudaLaunchKernel", 120, 2, kind="runtime", correlation=2), gpu("k", 125, 10, correlation=2))
    syncs = summarise(trace, (50, 140))["synchronisations"]
    assert syncs["host_calls"] == 1
    assert syncs["host_time_us"] == pytest.approx(113 - 50)


def test_a_kernel_launched_before_the_trace_began_is_busy_time():
    """Its launch is not in the trace (the profiler started after it), but the GPU ran it inside the window."""
    trace = make(cpu("ProfilerStep#1", 0, 50, kind="annotation"),
                 cpu("cudaLaunchKernel", 10, 2, kind="runtime", correlation=1), gpu("k", 85, 10, correlation=1),
                 gpu("queued_before_start", 90, 50, stream=8),
                 cpu("ProfilerStep#2", 50, 50, kind="annotation"),
                 cpu("cudaLaunchKernel", 60, 2, kind="runtime", correlation=2), gpu("k", 150, 10, correlation=2),
                 cpu("ProfilerStep#3", 100, 50, kind="annotation"),
                 cpu("cudaLaunchKernel", 110, 2, kind="runtime", correlation=3), gpu("k", 200, 10, correlation=3))
    summary = summarise(trace)
    assert (summary["window"]["start_us"], summary["window"]["end_us"]) == (85, 160)  # HTA's: launched ops
    assert summary["idle"]["busy_us"] == pytest.approx((140 - 85) + 10)  # by HTA's rule, 10 + 10


def old_schema_steps():
    """Steps as torch 1.x wrote them: ``ProfilerStep#N`` with ``cat: "Operator"``."""
    loop = Loop()
    loop.op(host_us=10, kernel_us=20)
    loop.op(host_us=10, kernel_us=20)
    trace = loop.trace()
    events = [{**e, "cat": "Operator" if e["cat"] == "cpu_op" else e["cat"]} for e in loop.events]
    events += [{"ph": "X", "cat": "Operator", "name": f"ProfilerStep#{n}", "ts": 10 * n, "dur": 10, "pid": 100,
                "tid": 1, "args": {}} for n in (0, 1)]
    del trace
    return make(*events)


def test_old_schema_operator_steps_are_steps():
    trace = old_schema_steps()
    assert [step["step"] for step in profiler_steps(trace)] == [0, 1]
    start, end = step_window(trace, 1)
    assert start == 10
    assert summarise(trace, (start, end))["window"]["start_us"] == 10


def test_the_gap_before_an_op_launched_before_the_trace_began_is_queued_not_unexplained():
    """Its correlation id is older than every launch call's in the trace: the call came before the profiler."""
    trace = make(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=500), gpu("k", 5, 10, correlation=500),
                 gpu("launched_earlier", 40, 10, correlation=120),
                 cpu("cudaLaunchKernel", 60, 2, kind="runtime", correlation=501), gpu("k", 70, 10, correlation=501))
    gaps = summarise(trace)["idle"]["longest_gaps"]
    assert {(gap["start_us"], gap["cause"]) for gap in gaps} >= {(15, "queued"), (50, "host")}
