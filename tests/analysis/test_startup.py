"""Start-up and the steady state: a window of device set-up, and the cold first iteration of a trace recorded
without a schedule."""

import pytest

from profguide.analysis.select import gpu_window
from profguide.analysis.startup import iterations
from profguide.analysis.summarise import summarise
from profguide.render.explain import to_text
from tests.analysis.gpu_traces import DATALOADER, SECOND, Loop, old_schema_loop
from tests.helpers import TRACES, make_trace
from tests.helpers import event as cpu


def unscheduled_loop(marker, steps=5, cold=True):
    """A loop profiled with a bare ``profile()``: no ProfilerStep. Each iteration is marked by ``marker`` (a
    DataLoader, an optimizer step, or a top-level annotation) and keeps the GPU busy with one long kernel; the
    first one also loads the kernel's module (a launch of over a second) and grows the allocator."""
    loop = Loop()
    for step in range(steps):
        start = loop.now
        if marker == "dataloader":
            loop.region(DATALOADER, 5)
            loop.wait(5)
        if step == 0 and cold:
            loop.events.append(cpu("cudaFree", loop.now, 0.4 * SECOND, kind="runtime"))
            loop.wait(0.4 * SECOND)
            loop.events.append(cpu("cudaLaunchKernel", loop.now, 1.2 * SECOND, kind="runtime"))
            loop.wait(1.2 * SECOND)
        loop.op("aten::mm", host_us=10, kernel_us=900)
        loop.wait(900)
        if marker == "optimizer":
            loop.region("Optimizer.step#SGD.step", 20)
            loop.op("aten::_foreach_add_", host_us=20, kernel_us=5)
        if marker == "annotation":
            loop.events.append(cpu("train_step", start, loop.now - start, kind="annotation"))
    return loop.trace()


@pytest.mark.parametrize(("marker", "found_by"), [("dataloader", "DataLoader __next__"),
                                                  ("optimizer", "the optimizer step"),
                                                  ("annotation", "annotation train_step")])
def test_a_cold_first_iteration_is_set_apart_and_the_verdict_is_on_the_rest(marker, found_by):
    trace = unscheduled_loop(marker)
    summary = summarise(trace)
    found = summary["iterations"]
    assert found["found_by"] == found_by
    assert found["count"] == 5
    cold = found["cold_start"]
    assert cold["dur_us"] > 1.6 * SECOND
    assert [name for name, _ in cold["setup"]["top"]] == ["cudaLaunchKernel", "cudaFree"]
    assert summary["window"]["start_us"] == found["starts_us"][1]
    assert summary["verdict"] == "compute-bound"  # the steady state: one long kernel per short iteration
    assert "Cold start: the first iteration took" in to_text({**summary, "file": "t.json", "trace_start_us": 0.0,
                                                              "rank": None, "schema_version": 1, "capture": None})


def test_the_whole_trace_says_launch_bound_without_the_iterations():
    """What the verdict was before iterations were found: the cold start's long launch dominates."""
    trace = unscheduled_loop("annotation")
    window = (float(trace.ts.min()), float(trace.end.max()))
    assert summarise(trace, window)["verdict"] in {"start-up", "launch-bound"}


def test_iterations_without_a_cold_start_leave_the_window_as_it_is():
    trace = unscheduled_loop("dataloader", cold=False)
    summary = summarise(trace)
    assert summary["iterations"]["cold_start"] is None
    assert summary["window_definition"].startswith("first to last GPU op")


def test_nothing_repeating_finds_no_iterations():
    loop = Loop()
    loop.op()
    loop.region("only_once", 10)
    assert iterations(loop.trace()) is None


def test_a_trace_with_profiler_steps_reports_no_iterations():
    loop = Loop()
    loop.op()
    trace = loop.trace(cpu("ProfilerStep#3", 0, 10, kind="annotation"))
    assert summarise(trace)["iterations"] is None


def test_a_window_of_device_set_up_is_start_up_not_launch_bound():
    """A warm-up annotation whose seconds go to cudaFree, cudaMalloc and a first launch that loads modules (and
    a millisecond of kernels: less would be too little GPU work to judge, ``trust.little_gpu_work``)."""
    loop = Loop()
    loop.op(kernel_us=500)
    for name, us in (("cudaFree", 2 * SECOND), ("cudaMalloc", 0.5 * SECOND), ("cudaLaunchKernel", 1 * SECOND)):
        loop.events.append(cpu(name, loop.now, us, kind="runtime"))
        loop.wait(us)
    loop.op(kernel_us=500)
    summary = summarise(loop.trace(cpu("[param|model|warmup|forward]", 0, loop.now, kind="annotation")))
    assert summary["verdict"] == "start-up"
    assert summary["device_setup"]["pct"] > 90
    assert "profile past it" in summary["verdict_text"]


def test_a_few_slow_mallocs_in_a_busy_window_are_not_start_up():
    loop = Loop()
    for _ in range(10):
        loop.op(kernel_us=1000)
        loop.events.append(cpu("cudaMalloc", loop.now, 50, kind="runtime"))
        loop.wait(50)
    summary = summarise(loop.trace())
    assert summary["verdict"] != "start-up"
    assert 0 < summary["device_setup"]["pct"] < 50


def test_a_late_launch_after_device_set_up_is_start_up_even_when_set_up_is_under_half_the_window():
    """The GPU waited most while the host sat in cudaMalloc: the host activity says set-up, and so does the
    verdict, though set-up is not half the window."""
    loop = Loop()
    loop.op(kernel_us=300)
    loop.wait(300)
    loop.events.append(cpu("cudaMalloc", loop.now, 400, kind="runtime"))
    loop.wait(400)
    loop.op(kernel_us=500)
    summary = summarise(loop.trace())
    assert summary["device_setup"]["pct"] < 50
    assert summary["idle"]["by_activity"]["setup"]["top"][0][0] == "cudaMalloc"
    assert summary["verdict"] == "start-up"


@pytest.mark.parametrize(("workers", "expected"), [(0, "input-bound"), (4, "compute-bound")])
def test_an_old_schema_loop_is_judged_on_its_steady_state(workers, expected):
    """torch 1.x writes the DataLoader's ``__next__`` and ``Optimizer.step#`` as ops, not annotations; the
    seconds-long first iteration is found from them and left out, and the rest judged."""
    trace = make_trace(*old_schema_loop(workers))
    # first to last GPU op, the window without iterations: the first iteration's seconds of module loading
    assert summarise(trace, gpu_window(trace))["verdict"] == "start-up"
    summary = summarise(trace)
    found = summary["iterations"]
    assert (found["found_by"], found["count"]) == ("DataLoader __next__", 6)
    assert found["cold_start"]["dur_us"] > SECOND
    assert summary["window"]["start_us"] == found["starts_us"][1]
    assert summary["verdict"] == expected


def layered_loop(per_iteration_forward, iterations=5):
    """A loop whose only annotation, ``block``, repeats four times in a step, around one op each: in every
    iteration inside the model's forward (``per_iteration_forward``), or in the first iteration only. The first
    launch, in the first block, loads the kernels' module (0.8 s); each iteration ends with a 3 ms kernel."""
    loop = Loop()
    for iteration in range(iterations):
        forward = loop.now
        for block in range(4 if per_iteration_forward or iteration == 0 else 0):
            start = loop.now
            loop.wait(2)
            if iteration == block == 0:
                loop.events.append(cpu("cudaLaunchKernel", loop.now, 0.8 * SECOND, kind="runtime"))
                loop.wait(0.8 * SECOND)
            loop.op("aten::mm", host_us=10, kernel_us=300)
            loop.wait(2)
            loop.events.append(cpu("block", start, loop.now - start, kind="annotation"))
        loop.op("aten::mm", host_us=10, kernel_us=3000)
        loop.wait(3000)
        if per_iteration_forward:
            loop.events.append(cpu("nn.Module: Net_0", forward, loop.now - forward, kind="python"))
    return loop.trace()


def test_a_region_repeated_inside_each_iteration_does_not_mark_the_loop():
    """Four blocks an iteration inside the model's forward: the forward, which encloses them, marks it."""
    found = summarise(layered_loop(per_iteration_forward=True))["iterations"]
    assert (found["found_by"], found["count"]) == ("module forward nn.Module: Net_0", 5)
    assert found["cold_start"] is not None


def test_a_module_every_layer_calls_is_not_the_loop_on_a_real_trace():
    """vLLM's B200 trace is one forward whose 36 layers each call the one rotary embedding module: it spans the
    trace, but each call is 2 % of a layer, not an iteration; taken for one, the first layer was a cold start and
    the window lost a fifth of the trace."""
    from profguide import trace

    loaded = trace.load(TRACES / "b200_vllm_moe_tp8_rank0.json.gz")
    assert (loaded.name == loaded.names.index("nn.Module: YaRNScalingRotaryEmbedding_0")).sum() == 36
    assert iterations(loaded) is None


def test_a_region_repeated_inside_one_step_does_not_shrink_the_window():
    """Four blocks in the first step only: taken for the loop, the window was blocks 2 to 4, 1.2 ms of a
    0.8-second trace; the window is every GPU op's instead, all five iterations."""
    trace = layered_loop(per_iteration_forward=False)
    summary = summarise(trace)
    assert summary["iterations"] is None
    assert (summary["window"]["start_us"], summary["window"]["end_us"]) == gpu_window(trace)
