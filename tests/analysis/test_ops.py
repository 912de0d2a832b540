"""The op view: self and total CPU time by op and shapes, device time joined to ops, modules, the memory peak."""

import collections
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from profguide import trace as trace_module
from profguide.analysis import op_view, ops
from profguide.analysis.select import gpu_work, launch_of
from profguide.errors import UsageError
from profguide.trace.model import KIND
from tests.helpers import ROOT
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make

GENERATED = ROOT / "docs" / "generated"
# The trace writes times in µs with three decimals (ns); a call's self time is its duration less its children's,
# each rounded to the ns and held as floats near 5e12 µs (resolution ~1e-3 µs): 0.01 µs a call covers both.
PER_CALL_US = 0.01


def recording(name):
    return trace_module.load(GENERATED / name / "trace.json.gz")


def memory_event(ts, size, total, device_type=0, device_id=-1, tid=1):
    return {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 100, "tid": tid, "ts": ts,
            "args": {"Bytes": size, "Total Allocated": total, "Device Type": device_type, "Device Id": device_id}}


def row(rows, name, shapes=None):
    return next(r for r in rows if r["name"] == name and (shapes is None or r["shapes"] == shapes))


def test_self_time_and_the_childrens_totals_add_up_to_each_ops_total_on_a_recording():
    trace = recording("reading-table")
    found = ops.host_times(trace)
    children = np.bincount(found.parent[found.parent >= 0], weights=trace.dur[found.order][found.parent >= 0],
                           minlength=len(found.order))
    assert np.allclose(found.self_cpu + children, trace.dur[found.order], atol=1e-6)
    names = [trace.names[code] for code in trace.name[found.order]]
    addmm = [i for i, name in enumerate(names) if name == "aten::addmm"]
    assert addmm and all(names[found.parent[i]] == "aten::linear" for i in addmm)
    rows = ops.op_rows(trace)
    linear = [r for r in rows if r["name"] == "aten::linear"]
    assert all(r["shapes"].startswith("[[") for r in linear)  # record_shapes: one row per set of input shapes
    assert len(linear) == len({r["shapes"] for r in linear}) > 1


@pytest.mark.parametrize("name", ["reading-table", "reading-memory", "reading-dispatch"])
def test_self_and_total_cpu_time_match_key_averages_of_the_same_run(name):
    by_name = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for found in ops.op_rows(recording(name)):
        added = by_name[found["name"]]
        added[0] += found["calls"]
        added[1] += found["self_cpu_us"]
        added[2] += found["cpu_us"]
    averages = json.loads((GENERATED / name / "averages.json").read_text())
    compared = [a for a in averages if a["name"] in by_name]  # the rest are regions and Python frames
    assert len(compared) == len(by_name) > 5  # every op is there
    for average in compared:
        calls, self_cpu, cpu = by_name[average["name"]]
        assert calls == average["count"], average["name"]
        assert self_cpu == pytest.approx(average["self_cpu_us"], abs=PER_CALL_US * calls), average["name"]
        assert cpu == pytest.approx(average["cpu_total_us"], abs=PER_CALL_US * calls), average["name"]


def reference_parents(starts, ends, lanes):
    """The innermost open event at each one's start, by a plain loop: the last one before it on its lane that
    ends after that start."""
    found = []
    for i in range(len(starts)):
        found.append(next((j for j in range(i - 1, -1, -1) if lanes[j] == lanes[i] and ends[j] > starts[i]), -1))
    return found


def intervals():
    event = st.tuples(st.integers(0, 40), st.integers(0, 30), st.integers(1, 2))
    return st.lists(event, min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(intervals())
def test_parents_are_the_innermost_open_event_however_events_overlap(events):
    trace = make(*(cpu(f"op{i}", start, dur, tid=tid) for i, (start, dur, tid) in enumerate(events)))
    order = ops.host_order(trace)
    parent = ops.parents(trace, order, ops.max_tree(trace.end[order]))
    lanes = trace.lane[order].tolist()
    assert parent.tolist() == reference_parents(trace.ts[order].tolist(), trace.end[order].tolist(), lanes)


def test_a_region_that_outlives_the_frame_it_starts_in_is_the_parent_of_what_follows():
    trace = make(cpu("_record_function_enter_new", 0, 5), cpu("region", 3, 97, kind="annotation"),
                 cpu("aten::mm", 50, 10), cpu("aten::add", 20, 40))
    rows = ops.op_rows(trace)
    assert row(rows, "aten::add")["self_cpu_us"] == 30  # aten::mm inside it
    assert row(rows, "_record_function_enter_new")["self_cpu_us"] == 3  # the region counts up to the frame's end
    assert {r["name"] for r in rows} == {"_record_function_enter_new", "aten::mm", "aten::add"}  # regions: no rows


def test_a_child_that_outlives_its_parent_counts_up_to_the_parents_end():
    trace = make(cpu("outer", 0, 100), cpu("inner", 10, 40), cpu("late", 40, 80))
    rows = ops.op_rows(trace)
    assert row(rows, "inner")["self_cpu_us"] == 30  # late, inside it from 40 to 50
    assert row(rows, "outer")["self_cpu_us"] == 60
    assert row(rows, "late")["self_cpu_us"] == 80


def test_device_time_goes_to_the_innermost_op_as_self_and_to_every_op_around_it():
    trace = make(cpu("ProfilerStep#1", 0, 300, kind="annotation"),
                 cpu("aten::linear", 10, 100), cpu("aten::addmm", 20, 80, **{"Input Dims": [[4, 8], [8, 2]]}),
                 cpu("cudaLaunchKernel", 30, 5, kind="runtime", correlation=1),
                 cpu("aten::add", 150, 20), cpu("cudaLaunchKernel", 155, 5, kind="runtime", correlation=2),
                 cpu("cudaLaunchKernel", 200, 5, kind="runtime", correlation=3),  # in no op
                 gpu("gemm", 40, 50, correlation=1), gpu("add", 160, 7, correlation=2),
                 gpu("copy", 210, 3, correlation=3, kind="memcpy"))
    rows = ops.op_rows(trace)
    addmm, linear, add = row(rows, "aten::addmm"), row(rows, "aten::linear"), row(rows, "aten::add")
    assert (addmm["self_device_us"], addmm["device_us"]) == (50, 50)
    assert (linear["self_device_us"], linear["device_us"]) == (0, 50)
    assert (add["self_device_us"], add["device_us"]) == (7, 7)
    assert addmm["shapes"] == "[[4, 8], [8, 2]]" and linear["shapes"] == ""
    assert [r["name"] for r in rows] == ["aten::linear", "aten::addmm", "aten::add"]  # most device, then CPU time


def test_a_gpu_op_without_its_launch_joins_its_op_by_external_id():
    trace = make(cpu("aten::mm", 0, 50, external_id=7), cpu("aten::add", 60, 10, external_id=8),
                 gpu("gemm", 20, 40, external_id=7))
    assert row(ops.op_rows(trace), "aten::mm")["self_device_us"] == 40
    assert row(ops.op_rows(trace), "aten::add")["device_us"] == 0


def test_device_time_of_a_real_gpu_trace_adds_up_to_the_kernels_joined(real_trace):
    trace = real_trace("a100_nccl_2rank_rank0.json.gz")
    work = np.flatnonzero(gpu_work(trace))
    launch = launch_of(trace, work)
    host = np.flatnonzero(np.isin(trace.kind, [KIND["cpu_op"], KIND["annotation"]]))
    inside = [bool(((trace.lane[host] == trace.lane[call]) & (trace.ts[host] <= trace.ts[call])
                    & (trace.end[host] > trace.ts[call])).any()) for call in launch[launch >= 0]]
    joined = trace.dur[work[launch >= 0]][inside].sum()
    assert joined > 0
    # Each joined GPU op is some op's or region's own (nccl:all_reduce, a region, launches the all-reduce).
    assert ops.host_times(trace).self_device.sum() == pytest.approx(joined)
    rows = ops.op_rows(trace)
    assert max(r["device_us"] for r in rows) <= joined + 1e-6
    assert all(r["device_us"] >= r["self_device_us"] - 1e-9 and r["cpu_us"] >= r["self_cpu_us"] - 1e-9 for r in rows)


def test_ops_that_start_in_the_window_only():
    trace = make(cpu("ProfilerStep#1", 0, 100, kind="annotation"), cpu("aten::mm", 10, 20),
                 cpu("ProfilerStep#2", 100, 100, kind="annotation"), cpu("aten::mm", 110, 30), cpu("aten::add", 150, 5))
    assert [(r["name"], r["cpu_us"]) for r in ops.op_rows(trace, (100, 200))] == [("aten::mm", 30), ("aten::add", 5)]
    view = op_view.ops_view(trace, "t.json", step=1)
    assert [(r["name"], r["calls"]) for r in view["ops"]] == [("aten::mm", 1)]
    with pytest.raises(UsageError, match="no ProfilerStep#9"):
        op_view.ops_view(trace, "t.json", step=9)


def test_a_trace_without_ops_modules_or_memory_events_has_an_empty_view():
    trace = make(cpu("region", 0, 10, kind="annotation"), gpu("gemm", 2, 5))
    view = op_view.ops_view(trace, "t.json")
    assert (view["ops"], view["modules"], view["memory_peak"]) == ([], [], None)
    assert view["on_gpu"]


def test_modules_by_class_with_the_device_time_launched_inside():
    trace = make(cpu("nn.Module: Sequential_0", 0, 100, kind="python"),
                 cpu("nn.Module: Linear_0", 10, 30, kind="python"), cpu("aten::linear", 12, 20),
                 cpu("cudaLaunchKernel", 15, 3, kind="runtime", correlation=1),
                 cpu("nn.Module: Linear_1", 50, 30, kind="python"), cpu("aten::linear", 52, 20),
                 cpu("cudaLaunchKernel", 55, 3, kind="runtime", correlation=2),
                 cpu("aten::add", 90, 5), cpu("cudaLaunchKernel", 91, 3, kind="runtime", correlation=3),
                 gpu("gemm", 20, 10, correlation=1), gpu("gemm", 60, 12, correlation=2),
                 gpu("add", 95, 1, correlation=3))
    assert ops.module_rows(trace) == [
        {"name": "Sequential", "calls": 1, "cpu_us": 100, "device_us": 23, "kernels": 3},
        {"name": "Linear", "calls": 2, "cpu_us": 60, "device_us": 22, "kernels": 2},
    ]
    assert ops.module_rows(trace, (40, 200)) == [
        {"name": "Linear", "calls": 1, "cpu_us": 30, "device_us": 12, "kernels": 1}]


def test_each_op_counts_the_gpu_ops_launched_inside_it_as_its_device_time():
    trace = make(cpu("aten::matmul", 0, 100, external_id=9),
                 cpu("cudaMemsetAsync", 5, 2, kind="runtime", correlation=1),
                 cpu("aten::mm", 10, 50), cpu("cudaLaunchKernel", 15, 3, kind="runtime", correlation=2),
                 cpu("cudaMemcpyAsync", 20, 3, kind="runtime", correlation=3),
                 cpu("aten::add", 200, 10),
                 gpu("set", 8, 1, kind="memset", correlation=1), gpu("gemm", 20, 30, correlation=2),
                 gpu("copy", 50, 5, kind="memcpy", correlation=3),
                 gpu("old_kernel", 60, 4, external_id=9))  # no launch in the trace: joins by External id
    times = ops.host_times(trace)
    names = [trace.names[code] for code in trace.name[times.order]]
    counts = {name: (int(own), int(total)) for name, own, total in zip(names, times.self_kernels, times.kernels,
                                                                          strict=True)}
    assert counts == {"aten::matmul": (2, 4), "aten::mm": (2, 2), "aten::add": (0, 0)}


def test_the_kernels_of_a_real_models_rmsnorm_are_those_launched_inside_its_calls(real_trace):
    trace = real_trace("h100_qwen1.5_0.5b_inference.json.gz")
    work = np.flatnonzero(gpu_work(trace))
    launch = launch_of(trace, work)
    calls = launch[launch >= 0]
    norms = np.flatnonzero((trace.kind == KIND["python"])
                           & np.isin(trace.name, [code for code, name in enumerate(trace.names)
                                                  if name.startswith("nn.Module: Qwen2RMSNorm_")]))
    assert len(norms)
    # A plain loop: the GPU ops whose launch call starts inside a Qwen2RMSNorm call, on its thread.
    inside = sum(int(((trace.lane[calls] == trace.lane[norm]) & (trace.ts[calls] >= trace.ts[norm])
                      & (trace.ts[calls] < trace.end[norm])).sum()) for norm in norms)
    assert inside > len(norms)  # more than one kernel a norm: RMSNorm is a chain of elementwise kernels
    assert row(ops.module_rows(trace), "Qwen2RMSNorm")["kernels"] == inside


def test_a_recording_with_stacks_has_its_modules():
    modules = ops.module_rows(recording("reading-memory"))
    assert {r["name"] for r in modules} == {"Sequential", "Linear", "ReLU"}
    assert all(r["calls"] > 0 and r["cpu_us"] > 0 for r in modules)
    assert ops.module_rows(recording("reading-table")) == []


def test_the_memory_peak_per_device_with_the_op_open_at_it():
    trace = make(cpu("aten::mm", 0, 50, **{"Input Dims": [[2, 3], [3, 4]]}), cpu("aten::empty", 10, 5),
                 cpu("aten::add", 60, 10),
                 memory_event(12, 100, 100), memory_event(20, 200, 300, 1, 0), memory_event(65, 50, 150),
                 memory_event(66, -300, 0, 1, 0), memory_event(80, -150, 0))
    assert ops.memory_peak(trace) == [
        {"device": "cpu", "peak_bytes": 150, "at_us": 65, "op": "aten::add", "shapes": ""},
        {"device": "cuda:0", "peak_bytes": 300, "at_us": 20, "op": "aten::mm", "shapes": "[[2, 3], [3, 4]]"},
    ]


def test_the_memory_peak_of_a_recording_with_profile_memory():
    peaks = ops.memory_peak(recording("reading-memory"))
    assert peaks is not None and [p["device"] for p in peaks] == ["cpu"]
    assert peaks[0]["peak_bytes"] > 0 and peaks[0]["op"] is not None
    assert ops.memory_peak(make(cpu("aten::mm", 0, 5))) is None


def test_the_loader_keeps_every_ops_input_dims_as_written():
    trace = make(cpu("aten::mm", 0, 5, **{"Input Dims": [[2, 3], [3, 4]]}), cpu("aten::relu", 6, 2),
                 cpu("aten::add", 9, 2, **{"Input Dims": [[2, 3], [3, 4]]}))
    assert trace.shape_texts == ("[[2, 3], [3, 4]]",)
    assert trace.shape.tolist() == [0, -1, 0]


def test_memory_events_of_a_batch_decoded_loosely_keep_their_device_and_total():
    odd = {**cpu("aten::add", 60, 10), "dur": {"not": "a number"}}  # makes the batch decode loosely
    trace = make(cpu("aten::mm", 0, 50), odd, memory_event(20, 200, 300, 1, 0))
    assert trace.skipped  # the odd event, dropped by the loose decoding
    assert ops.memory_peak(trace) == [{"device": "cuda:0", "peak_bytes": 300, "at_us": 20, "op": "aten::mm",
                                       "shapes": ""}]


def test_launches_with_no_op_or_region_around_them_give_no_rows_and_no_error():
    """Old traces and a bare Triton launch hold launch calls and kernels but no op (this raised IndexError)."""
    trace = make(cpu("cudaLaunchKernel", 10, 1, kind="runtime", correlation=1), gpu("k", 20, 30, correlation=1))
    assert ops.op_rows(trace) == []


def test_a_rocm_gpu_is_named_cuda_as_torch_names_it():
    """torch's ROCm build writes its GPUs' memory events with Device Type 6 (HIP) and calls them cuda."""
    assert [ops.device_label(device) for device in ((0, -1), (1, 0), (6, 1), (9, 0))] == \
        ["cpu", "cuda:0", "cuda:1", "device type 9:0"]


def test_the_ops_inside_a_modules_calls_count_once_though_calls_of_its_class_nest():
    loaded = make(
        cpu("nn.Module: Block_0", 0, 100, kind="python"), cpu("nn.Module: Block_1", 5, 50, kind="python"),
        cpu("aten::mul", 10, 10), cpu("cudaLaunchKernel", 11, 2, kind="runtime", correlation=1),
        cpu("aten::add", 60, 10), cpu("cudaLaunchKernel", 61, 2, kind="runtime", correlation=2),
        cpu("aten::add", 150, 10), cpu("cudaLaunchKernel", 151, 2, kind="runtime", correlation=3),  # outside
        cpu("nn.Module: Other_0", 200, 20, kind="python"), cpu("aten::mul", 205, 5),
        cpu("cudaLaunchKernel", 206, 2, kind="runtime", correlation=4),
        gpu("mul", 20, 7, correlation=1), gpu("add", 70, 3, correlation=2), gpu("add", 160, 50, correlation=3),
        gpu("mul", 210, 9, correlation=4))
    assert ops.module_op_device(loaded, "Block") == {"aten::mul": 7.0, "aten::add": 3.0}
    assert ops.module_op_device(loaded, "Other") == {"aten::mul": 9.0}
    assert ops.module_op_device(loaded, "Missing") == {}
