"""profguide.analysis.host: shares that are exclusive and add up, Python frames, and copies the host waits in."""

import numpy as np
import pytest
import torch
from torch.profiler import ProfilerActivity, profile, record_function

from profguide import trace
from profguide.analysis.host import host_breakdown, nesting, own_activity
from profguide.analysis.idle import idle_breakdown
from profguide.analysis.job import file_summary
from profguide.analysis.launches import synchronisations
from profguide.analysis.select import host_syncs, waits_for_device
from profguide.trace.model import KIND
from tests.helpers import TRACES, event, gpu_event, make_trace

ENTER = "<built-in method _record_function_enter_new of PyCapsule object at 0x7f00>"


def late_share_total(idle):
    """The host activities' idle time, and the idle time of the causes they split (the GPU waited for the host)."""
    return (sum(row["idle_us"] for row in idle["by_activity"].values()),
            idle["by_cause"]["host"]["idle_us"] + idle["by_cause"]["sync"]["idle_us"])


def test_innermost_is_the_most_recently_started_open_event():
    # 0: [0, 100); 1: [10, 30) inside it; 2: [20, 60) starts in 1 and outlives it; 3: [40, 50) inside 2.
    parents, (owners, starts, ends) = nesting(np.array([0.0, 10, 20, 40]), np.array([100.0, 30, 60, 50]))
    assert parents.tolist() == [-1, 0, 1, 2]
    assert list(zip(owners.tolist(), starts.tolist(), ends.tolist(), strict=True)) == [
        (0, 0, 10), (1, 10, 20), (2, 20, 40), (3, 40, 50), (2, 50, 60), (0, 60, 100)]


def test_of_two_events_that_start_together_the_shorter_is_the_innermost():
    # 0 and 1 start at 0 (the longer first, as the trace sorts them); 2 is instant-long and owns nothing, nor
    # splits 0's stretch; 3 comes after a time in no event.
    parents, (owners, starts, ends) = nesting(np.array([0.0, 0, 8, 20]), np.array([10.0, 5, 8, 30]))
    assert parents.tolist() == [-1, 0, 0, -1]
    assert list(zip(owners.tolist(), starts.tolist(), ends.tolist(), strict=True)) == [
        (1, 0, 5), (0, 5, 10), (3, 20, 30)]


def test_a_child_that_outlives_its_parent_takes_no_time_twice():
    """A record_function region starts inside its _record_function_enter_new frame and outlives it (and the
    frame's caller): each µs of the gap goes to one event, so the activities add up to the gap."""
    loaded = make_trace(
        event("train.py(10): step", 0, 300, kind="python"),
        event("cudaLaunchKernel", 1, 2, kind="runtime", correlation=1),
        event("torch/autograd/profiler.py(918): __enter__", 6, 20, kind="python"),
        event(ENTER, 7, 15, kind="python"),
        event("forward", 10, 200, kind="annotation"),
        event("aten::mm", 100, 50),
        event("cudaLaunchKernel", 140, 5, kind="runtime", correlation=2),
        gpu_event("first", 3, 2, correlation=1),
        gpu_event("second", 150, 20, correlation=2),  # the host launched it late: the GPU idle 5..150
    )
    idle = idle_breakdown(loaded, (3, 170))
    shares, late = late_share_total(idle)
    assert late == 145 and shares == pytest.approx(late)
    spent = {activity: row["idle_us"] for activity, row in idle["by_activity"].items() if row["idle_us"]}
    assert spent == {"python": 5, "region": 90, "ops": 50}
    # The frames of torch and the built-in are Python time of the user's frame that called them.
    assert idle["by_activity"]["python"]["top"] == [("train.py(10): step", 5)]


def test_a_steps_own_time_and_time_outside_any_event_are_both_python():
    loaded = make_trace(
        event("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1),
        event("ProfilerStep#1", 10, 50, kind="annotation"),
        event("cudaLaunchKernel", 100, 5, kind="runtime", correlation=2),
        gpu_event("first", 3, 2, correlation=1),
        gpu_event("second", 110, 10, correlation=2),  # idle 5..110: in the step 10..60, in no event 50 µs
    )
    idle = idle_breakdown(loaded, (3, 120))
    assert idle["by_activity"]["python"]["idle_us"] == 100
    assert idle["by_activity"]["python"]["top"] == [("outside any op", 100)]
    assert late_share_total(idle) == (105, 105)


@pytest.mark.parametrize("path", sorted(TRACES.glob("*.json.gz")), ids=lambda path: path.name)
def test_on_real_traces_the_shares_add_up_to_the_time_they_split(path):
    summary = file_summary(path)
    if summary["idle"] is not None:
        shares, late = late_share_total(summary["idle"])
        assert shares == pytest.approx(late, rel=1e-6, abs=1e-6)
    elif summary["host"]:
        for window in summary["host"]["windows"]:
            assert sum(window["by_activity_us"].values()) == pytest.approx(window["dur_us"], rel=1e-6)


@pytest.fixture(scope="module")
def recorded_with_stack(tmp_path_factory):
    """A CPU loop profiled with with_stack=True and a record_function region, as a reader would."""
    model = torch.nn.Linear(8, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    path = tmp_path_factory.mktemp("stack") / "stack.json"
    with profile(activities=[ProfilerActivity.CPU], with_stack=True) as prof:
        for _ in range(3):
            with record_function("forward_pass"):
                loss = model(torch.randn(4, 8)).square().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    prof.export_chrome_trace(str(path))
    return trace.load(path)


def test_a_real_with_stack_trace_has_regions_that_outlive_their_frames_and_its_shares_add_up(recorded_with_stack):
    loaded = recorded_with_stack
    region = np.flatnonzero(loaded.name == loaded.names.index("forward_pass"))
    frames = np.flatnonzero(loaded.kind == KIND["python"])
    # Some Python frame starts before the region, covers its start and ends before the region does.
    assert any(((loaded.ts[frames] < loaded.ts[i]) & (loaded.end[frames] > loaded.ts[i])
                & (loaded.end[frames] < loaded.end[i])).any() for i in region)
    host = host_breakdown(loaded)
    for window in host["windows"]:
        assert sum(window["by_activity_us"].values()) == pytest.approx(window["dur_us"], rel=1e-9)
    assert sum(row["us"] for row in host["by_activity"].values()) == pytest.approx(host["dur_us"], rel=1e-9)
    # Python time is the test's own frames', not torch's.
    labels = [label for label, _ in host["by_activity"]["python"]["top"]]
    assert labels and all("torch/" not in label and not label.startswith("<") for label in labels)


@pytest.mark.parametrize(("name", "activity"), [
    ("torch/utils/data/dataloader.py(631): __next__", "data loading"),
    ("/opt/conda/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py(52): fetch", "data loading"),
    ("torch/nn/modules/module.py(1527): _call_impl", "python"),
    ("train.py(42): step", "python"),
])
def test_a_python_frame_of_the_data_pipeline_is_data_loading(name, activity):
    assert own_activity(name, KIND["python"]) == activity


def test_what_runs_inside_a_data_pipeline_frame_is_data_loading():
    host = host_breakdown(make_trace(
        event("ProfilerStep#1", 0, 100, kind="annotation"),
        event("train.py(20): <module>", 0, 100, kind="python"),
        event("torch/utils/data/dataloader.py(631): __next__", 10, 50, kind="python"),
        event("/usr/lib/python3/site-packages/torch/utils/data/_utils/fetch.py(52): fetch", 15, 40, kind="python"),
        event("aten::stack", 20, 10),
        event("aten::mm", 70, 20),
    ))
    spent = host["by_activity"]
    assert spent["data loading"]["us"] == 50
    assert spent["data loading"]["top"] == [("torch/utils/data/dataloader.py(631): __next__", 50)]
    assert spent["ops"]["us"] == 20 and spent["python"]["us"] == 30


def test_python_time_is_the_innermost_frame_outside_torch():
    host = host_breakdown(make_trace(
        event("ProfilerStep#1", 0, 160, kind="annotation"),
        event("train.py(42): step", 0, 100, kind="python"),
        event("/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py(1527): _call_impl", 10, 60,
              kind="python"),
        event("model.py(7): forward", 20, 40, kind="python"),
        event("torch/nn/modules/linear.py(124): forward", 30, 20, kind="python"),
        event("<built-in method addmm of type object at 0x7f00>", 35, 10, kind="python"),
        event("aten::addmm", 36, 8),
        event("torch/optim/optimizer.py(480): wrapper", 100, 50, kind="python"),
    ))
    python = dict(host["by_activity"]["python"]["top"])
    # model.py owns its own 20 µs and the 12 of torch's frames under it; train.py its 40 and torch's 20.
    assert python == {"model.py(7): forward": 32, "train.py(42): step": 60,
                      "torch/optim/optimizer.py(480): wrapper": 50}
    assert host["by_activity"]["python"]["us"] == 152  # with 10 µs in the step outside any frame
    assert host["by_activity"]["ops"]["us"] == 8


def test_without_python_frames_python_time_is_outside_any_op():
    host = host_breakdown(make_trace(event("ProfilerStep#1", 0, 100, kind="annotation"), event("aten::mm", 10, 20)))
    assert host["by_activity"]["python"]["top"] == [("outside any op", 80)]


@pytest.mark.parametrize(("name", "waits"), [
    ("cudaMemcpy", True), ("cudaMemcpy2D", True), ("cuMemcpyDtoH_v2", True),
    ("cudaMemset", False), ("cuMemsetD8_v2", False), ("cuMemcpyDtoD_v2", False),  # CUDA's host does not wait
    ("cuMemcpy", True), ("hipMemcpy", True), ("hipMemcpyWithStream", True), ("hipMemcpyDtoH", True),
    ("cudaStreamSynchronize", True),
    ("cudaMemcpyAsync", False), ("cudaMemsetAsync", False), ("cuMemcpyHtoDAsync_v2", False),
    ("hipMemcpyAsync", False), ("hipMemcpyDtoHAsync", False), ("cudaLaunchKernel", False),
])
def test_a_blocking_copy_waits_for_the_device_and_an_async_one_does_not(name, waits):
    assert waits_for_device(name) is waits


def blocking_copy_trace(call="hipMemcpyWithStream", copy="Memcpy HtoD (Host -> Device)", kind="memcpy"):
    """A kernel, then a copy ``call`` that lasts until its ``copy`` is done (a hipMemcpyWithStream waits for the
    kernel and for its copy), then a launch 20 µs later."""
    return make_trace(
        event("hipLaunchKernel", 0, 2, kind="runtime", correlation=1),
        event("aten::copy_", 9, 52),
        event(call, 10, 50, kind="runtime", correlation=2),
        event("hipLaunchKernel", 80, 5, kind="runtime", correlation=3),
        gpu_event("first", 3, 47, correlation=1),
        gpu_event(copy, 50, 5, kind=kind, correlation=2),
        gpu_event("second", 90, 10, correlation=3),  # idle 55..90, from inside the copy call
    )


def test_a_gap_that_starts_in_a_blocking_copy_is_a_sync():
    idle = idle_breakdown(blocking_copy_trace(), (3, 100))
    assert idle["by_cause"]["sync"] == {"idle_us": 35, "gaps": 1, "meaning": idle["by_cause"]["sync"]["meaning"]}
    # 55..60 in the call, then 1 µs in the op, 24 in Python and 5 launching.
    assert idle["by_activity"]["sync"]["idle_us"] == 5
    assert synchronisations(blocking_copy_trace())["host_calls"] == 1


# CUDA's "API synchronization behavior": the host does not wait in a copy from device to device, nor in a memset of
# device memory; it waits in a copy to the host and in a memset of pinned memory.
@pytest.mark.parametrize(("call", "kind", "on_device", "to_host"), [
    ("cudaMemcpy", "memcpy", "Memcpy DtoD (Device -> Device)", "Memcpy DtoH (Device -> Pinned)"),
    ("cudaMemset", "memset", "Memset (Device)", "Memset (Pinned)"),
])
def test_a_cuda_copy_from_device_to_device_or_a_memset_of_device_memory_is_no_sync(call, kind, on_device, to_host):
    copied = blocking_copy_trace(call, on_device, kind)
    idle = idle_breakdown(copied, (3, 100))
    assert idle["by_cause"]["sync"]["idle_us"] == 0 and idle["by_activity"]["sync"]["idle_us"] == 0
    assert synchronisations(copied)["host_calls"] == 0
    assert synchronisations(blocking_copy_trace(call, to_host, kind))["host_calls"] == 1


def test_the_real_rocm_traces_blocking_copies_are_syncs():
    loaded = trace.load(TRACES / "mi250_rocm.json.gz")
    copies = np.flatnonzero(loaded.name == loaded.names.index("hipMemcpyWithStream"))
    assert len(copies) and set(copies.tolist()) <= set(host_syncs(loaded).tolist())
