"""profguide.analysis.regions: each call of a region, the time in the ops it called, and its GPU work; and
profguide.analysis.ops.region_rows: the regions by name, with the backward of the ops inside them."""

import collections

import pytest

from profguide.analysis import op_view, ops
from profguide.analysis.ops import region_rows
from profguide.analysis.regions import (
    ops_in_each_call,
    ops_in_region,
    python_calls_by_region,
    region_calls,
    region_tree,
)
from profguide.render import ops as ops_view
from profguide.text import format_duration
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make
from tests.helpers import one_cycle_trace


def test_each_call_counts_its_direct_ops_once_and_the_gpu_work_it_launched():
    t = make(cpu("region", 0, 100, kind="annotation"),
             cpu("aten::matmul", 10, 40), cpu("aten::mm", 12, 30),  # nested: counted once, through matmul
             cpu("cudaLaunchKernel", 20, 5, kind="runtime", correlation=1),
             cpu("aten::add", 60, 10),
             cpu("region", 200, 50, kind="annotation"), cpu("aten::add", 210, 5),
             cpu("aten::add", 400, 5),  # outside every call
             gpu("gemm", 30, 80, correlation=1))
    assert region_calls(t, "region") == [
        {"start_us": 0, "dur_us": 100, "in_ops_us": 50, "kernel_us": 80},
        {"start_us": 200, "dur_us": 50, "in_ops_us": 5, "kernel_us": 0},
    ]
    assert region_calls(t, "absent") == []


def test_region_tree_is_the_first_occurrence_nested_with_what_each_call_launched():
    t = make(cpu("region", 0, 100, kind="annotation"),
             cpu("aten::matmul", 10, 40), cpu("aten::mm", 12, 30),
             cpu("cudaLaunchKernel", 20, 5, kind="runtime", correlation=1),
             cpu("aten::add", 60, 10),
             cpu("aten::mm", 80, 5, tid=2),  # another thread: not in the tree
             cpu("region", 200, 50, kind="annotation"), cpu("aten::mm", 210, 5),
             gpu("gemm", 30, 80, correlation=1))
    tree = region_tree(t, "region")
    assert [(e["depth"], e["name"]) for e in tree] == [
        (0, "region"), (1, "aten::matmul"), (2, "aten::mm"), (3, "cudaLaunchKernel"), (1, "aten::add")]
    assert tree[3]["launched"] == [("gemm", 80.0)] and tree[2]["launched"] == []
    assert ops_in_region(t, "region", "aten::mm") == 1  # the second occurrence's mm is not counted
    assert ops_in_region(t, "region", "aten::bmm") == 0
    assert ops_in_region(t, "absent", "aten::mm") is None and region_tree(t, "absent") == []


# Regions joined to their backward (profguide.analysis.ops.region_rows): by autograd's sequence numbers.

BACKWARD = "autograd::engine::evaluate_function: "


def numbered(name, ts, dur, number, **args):
    """An op with the sequence number torch records on the forward op of an autograd node and on its backward."""
    return cpu(name, ts, dur, **{"Sequence number": number}, **args)


def backward_function(node, ts, dur, number, **args):
    """The backward function of one node, with the node's own op inside it (which carries the number too)."""
    return [numbered(BACKWARD + node, ts, dur, number, **args), numbered(node, ts + 1, dur - 2, number, **args)]


def launch(ts, correlation, tid=1):
    return cpu("cudaLaunchKernel", ts, 1, kind="runtime", correlation=correlation, tid=tid)


def region_row(rows, name):
    return next(row for row in rows if row["name"] == name)


def two_op_region():
    """A region with two forward ops (a linear, whose aten::t shares its number, and an add), their backward
    functions, one with kernels; an op outside every region, and its backward; a region around the backward,
    whose ops (inside backward functions) are no forward ops; a ProfilerStep around it all."""
    return [cpu("ProfilerStep#1", 0, 1000, kind="annotation"),
            cpu("block", 10, 100, kind="annotation"),
            numbered("aten::linear", 20, 30, 1), numbered("aten::t", 21, 3, 1),
            numbered("aten::addmm", 25, 20, 2), launch(26, 1),
            numbered("aten::add", 60, 10, 3), launch(61, 2),
            numbered("aten::mse_loss", 200, 10, 4),  # in no region
            cpu("backward", 295, 120, kind="annotation"),
            *backward_function("MseLossBackward0", 300, 10, 4), launch(302, 3),
            *backward_function("AddBackward0", 320, 10, 3),
            *backward_function("AddmmBackward0", 340, 30, 2), launch(345, 4), launch(350, 5),
            *backward_function("TBackward0", 380, 10, 1),
            cpu(BACKWARD + "torch::autograd::AccumulateGrad", 400, 10),  # no number: joins nothing
            gpu("gemm", 30, 40, correlation=1), gpu("add", 70, 5, correlation=2), gpu("mse", 303, 2, correlation=3),
            gpu("gemm_dgrad", 346, 20, correlation=4), gpu("gemm_wgrad", 366, 30, correlation=5)]


def test_a_regions_backward_is_the_backward_functions_of_the_ops_inside_it_once_each():
    rows = region_rows(make(*two_op_region()))
    assert rows == [{"name": "block", "calls": 1, "cpu_us": 100, "device_us": 45, "kernels": 2,
                     # AddBackward0, AddmmBackward0, TBackward0; TBackward0 once though linear and t share 1
                     "backward_calls": 3, "backward_cpu_us": 50, "backward_device_us": 50, "backward_kernels": 2},
                    {"name": "backward", "calls": 1, "cpu_us": 120, "device_us": 52, "kernels": 3,
                     "backward_calls": 0, "backward_cpu_us": 0, "backward_device_us": 0, "backward_kernels": 0}]


def test_a_region_inside_another_counts_in_both_and_one_name_makes_one_row():
    t = make(cpu("layer", 0, 100, kind="annotation"),
             cpu("attention", 10, 40, kind="annotation"), numbered("aten::mm", 12, 5, 1),
             cpu("attention", 20, 10, kind="annotation"), numbered("aten::softmax", 22, 5, 2),  # attention in attention
             numbered("aten::add", 60, 5, 3),
             *backward_function("AddBackward0", 200, 10, 3), *backward_function("SoftmaxBackward0", 220, 20, 2),
             *backward_function("MmBackward0", 250, 30, 1))
    rows = region_rows(t)
    assert [(r["name"], r["calls"], r["cpu_us"], r["backward_calls"], r["backward_cpu_us"]) for r in rows] == [
        ("layer", 1, 100, 3, 60), ("attention", 2, 50, 2, 50)]  # most CPU time (forward and backward) first


def test_a_number_that_forward_ops_on_two_threads_have_joins_no_region():
    t = make(cpu("replica", 0, 50, kind="annotation", tid=1), numbered("aten::mm", 5, 10, 7, tid=1),
             numbered("aten::add", 20, 5, 8, tid=1),
             cpu("replica", 0, 50, kind="annotation", tid=2), numbered("aten::mm", 6, 10, 7, tid=2),
             *backward_function("MmBackward0", 100, 10, 7, tid=3), *backward_function("AddBackward0", 120, 4, 8, tid=3))
    (row,) = region_rows(t)
    assert (row["calls"], row["backward_calls"], row["backward_cpu_us"]) == (2, 1, 4)  # AddBackward0 alone


def test_ops_that_carry_the_next_nodes_number_before_its_maker_join_nothing():
    # torch records on each op the number the next node will take: an optimizer's ops (older torch) carry the
    # number that the next step's first node-making op then takes.
    t = make(cpu("optimizer", 0, 50, kind="annotation"), numbered("aten::add_", 5, 10, 5),
             numbered("aten::detach", 20, 2, 5),
             cpu("MLP", 100, 50, kind="annotation"), numbered("aten::mm", 110, 10, 5),
             *backward_function("MmBackward0", 300, 10, 5))
    rows = {r["name"]: r["backward_calls"] for r in region_rows(t)}
    assert rows == {"MLP": 1, "optimizer": 0}


def test_a_real_jobs_optimizer_gets_no_backward_and_its_forward_does(real_trace):
    rows = {r["name"]: r for r in region_rows(real_trace("a100_80gb_nccl_16rank_rank0.json.gz"))}
    assert rows["## forward ##"]["backward_calls"] > 0 and rows["## forward ##"]["backward_device_us"] > 0
    assert rows["## optimizer ##"]["calls"] > 0 and rows["## optimizer ##"]["backward_calls"] == 0


def test_regions_that_start_in_the_window_with_their_backward_wherever_it_runs():
    t = make(cpu("ProfilerStep#1", 0, 100, kind="annotation"), cpu("MLP", 10, 20, kind="annotation"),
             numbered("aten::mm", 12, 5, 1), *backward_function("MmBackward0", 50, 10, 1),
             cpu("ProfilerStep#2", 100, 100, kind="annotation"), cpu("MLP", 110, 30, kind="annotation"),
             numbered("aten::mm", 112, 5, 2), *backward_function("MmBackward0", 250, 6, 2))  # after the step
    assert [(r["name"], r["calls"], r["cpu_us"], r["backward_calls"], r["backward_cpu_us"])
            for r in region_rows(t, (100, 200))] == [("MLP", 1, 30, 1, 6)]
    assert region_rows(t, (500, 600)) == []
    assert region_rows(make(cpu("ProfilerStep#1", 0, 100, kind="annotation"), cpu("aten::mm", 5, 5))) == []


def test_a_compiled_region_joins_the_backward_of_its_compiled_function():
    t = make(cpu("Torch-Compiled Region: 0/0", 0, 100), numbered("CompiledFunction", 5, 90, 9),
             cpu("## Call CompiledFxGraph fwd ##", 10, 80),
             *backward_function("CompiledFunctionBackward", 200, 60, 9),
             cpu("## Call CompiledFxGraph bwd ##", 205, 50))
    rows = {r["name"]: (r["calls"], r["backward_calls"], r["backward_cpu_us"]) for r in region_rows(t)}
    assert rows == {"Torch-Compiled Region: 0/0": (1, 1, 60), "## Call CompiledFxGraph fwd ##": (1, 0, 0),
                    "## Call CompiledFxGraph bwd ##": (1, 0, 0)}


def test_the_backward_of_a_real_decoder_block_splits_into_its_parts(tmp_path):
    from snippets.inside_a_model.transformer_block import profile_block

    layers = 1
    t = one_cycle_trace(tmp_path, profile_block, steps=1, warmup_steps=1, layers=layers, width=32, heads=2,
                        hidden=64, batch=1, tokens=8)
    events = [t.slice(i) for i in range(len(t))]
    numbers = t.sequence.tolist()
    backward = [i for i, e in enumerate(events) if e.name.startswith(BACKWARD)]
    in_backward = {i for i, e in enumerate(events) for b in backward
                   if events[b].ts <= e.ts and e.end <= events[b].end and events[b].tid == e.tid}
    parts = {name: [e for e in events if e.name == name and e.kind == "annotation"] for name in ("norm", "attention",
                                                                                                  "MLP")}

    def parts_of(b):
        """The parts whose calls hold a forward op of backward function ``b``'s number (a plain loop)."""
        ops = [e for i, e in enumerate(events) if numbers[i] == numbers[b] != -1 and i not in in_backward]
        return {name for name, calls in parts.items() for op in ops for call in calls
                if call.ts <= op.ts and op.end <= call.end and call.tid == op.tid}

    joined = {b: parts_of(b) for b in backward}
    assert all(len(found) <= 1 for found in joined.values())  # each joins one part at most
    unjoined = collections.Counter(events[b].name.removeprefix(BACKWARD) for b, found in joined.items() if not found)
    # The gradients' accumulation (no node), the loss's, and the residual adds (outside every part; two a layer).
    assert set(unjoined) == {"torch::autograd::AccumulateGrad", "MseLossBackward0", "AddBackward0"}
    assert unjoined["MseLossBackward0"] == 1 and unjoined["AddBackward0"] == 2 * layers
    rows = {row["name"]: row for row in region_rows(t)}
    for name in parts:
        mine = [b for b, found in joined.items() if found == {name}]
        assert rows[name]["backward_calls"] == len(mine) > 0, name
        assert rows[name]["backward_cpu_us"] == pytest.approx(sum(events[b].dur for b in mine)), name
        assert rows[name]["calls"] == len(parts[name])
    step_backward = sum(events[b].dur for b in backward)
    assert sum(rows[name]["backward_cpu_us"] for name in parts) <= step_backward


def test_the_op_views_text_lists_the_regions_after_the_modules_and_omits_them_when_none():
    view = op_view.ops_view(make(*two_op_region()), "t.json")
    lines = ops_view.to_text(view).splitlines()
    first = lines.index("Regions (record_function), with the backward of the ops inside them:")
    assert lines[first - 1].startswith("No nn.Module events")
    heading, *rows = lines[first + 1 : first + 1 + 1 + len(view["regions"])]
    assert heading.split("  ")[-1] == "Region" and [h.strip() for h in heading.split("  ") if h.strip()] == [
        "CPU", "Device", "Kernels", "Calls", "Backward CPU", "Backward device", "Backward kernels", "Region"]
    block = region_row(view["regions"], "block")
    assert rows[0].split() == [
        *" ".join([format_duration(block["cpu_us"]), format_duration(block["device_us"]), str(block["kernels"]),
                   str(block["calls"]), format_duration(block["backward_cpu_us"]),
                   format_duration(block["backward_device_us"]), str(block["backward_kernels"])]).split(), "block"]
    assert {row.index(name) for row, name in zip(rows, ("block", "backward"), strict=True)} == {
        heading.index("Region")}  # the names in one column
    markdown = ops_view.to_markdown(view)
    assert "| Region | CPU | Device | Kernels | Calls | Backward CPU | Backward device | Backward kernels |" in markdown
    bare = op_view.ops_view(make(cpu("aten::mm", 0, 5)), "t.json")
    assert bare["regions"] == [] and "Region" not in ops_view.to_text(bare) + ops_view.to_markdown(bare)


def test_on_a_trace_without_gpu_work_the_regions_show_their_cpu_columns_alone():
    cpu_only = [event for event in two_op_region() if event["cat"] not in ("kernel", "cuda_runtime")]
    view = op_view.ops_view(make(*cpu_only), "t.json")
    assert not view["on_gpu"] and view["regions"]
    lines = ops_view.to_text(view).splitlines()
    heading = lines[lines.index("Regions (record_function), with the backward of the ops inside them:") + 1]
    assert heading.split() == ["CPU", "Calls", "Backward", "CPU", "Region"]
    assert "| Region | CPU | Calls | Backward CPU |" in ops_view.to_markdown(view)


def test_a_region_runs_inside_the_region_around_it_or_inside_the_backward_joined_to_one():
    # A compiled region's forward graph runs inside its calls; its backward graph runs inside the backward function
    # joined to it (CompiledFunctionBackward); the optimizer's step inside the optimizer region.
    graph = "## Call CompiledFxGraph "
    t = make(cpu("Torch-Compiled Region: 0/0", 0, 100), numbered("CompiledFunction", 10, 80, 1),
             cpu(graph + "forward ##", 12, 70),
             *backward_function("CompiledFunctionBackward", 200, 100, 1), cpu(graph + "backward ##", 210, 80),
             cpu("optimizer", 400, 50, kind="annotation"), cpu("Optimizer.step#AdamW.step", 410, 30, kind="annotation"),
             cpu("norm", 500, 10, kind="annotation"))
    assert ops.region_places(t) == {
        graph + "forward ##": ops.RegionPlace("Torch-Compiled Region: 0/0", backward=False),
        graph + "backward ##": ops.RegionPlace("Torch-Compiled Region: 0/0", backward=True),
        "Optimizer.step#AdamW.step": ops.RegionPlace("optimizer", backward=False)}


def test_a_region_that_runs_in_two_places_has_no_one_place():
    t = make(cpu("outer", 0, 100, kind="annotation"), cpu("inner", 10, 10, kind="annotation"),
             cpu("inner", 200, 10, kind="annotation"))
    assert ops.region_places(t) == {}


def test_sequence_joins_follow_a_regions_ops_to_the_backward_of_their_numbers():
    rows = ops.sequence_joins(make(*two_op_region()), "block", numbers=2)
    assert [(r["op"], r["sequence"], r["makes_node"], r["backward"]) for r in rows] == [
        ("aten::linear", 1, False, BACKWARD + "TBackward0"), ("aten::t", 1, True, BACKWARD + "TBackward0"),
        ("aten::addmm", 2, True, BACKWARD + "AddmmBackward0")]
    assert ops.sequence_joins(make(*two_op_region()), "absent") == []


def test_python_calls_by_region_count_the_ops_and_python_calls_inside_each_region_on_its_thread():
    t = make(cpu("backward", 100, 50, kind="annotation"), cpu("forward", 0, 50, kind="annotation"),
             cpu("model.py(3): forward", 1, 40, kind="python"), cpu("<built-in function linear>", 2, 20, kind="python"),
             cpu("aten::linear", 3, 10), cpu("aten::addmm", 4, 5),
             cpu("torch/_tensor.py(566): backward", 101, 2, kind="python"), cpu("aten::mm", 110, 5),
             cpu("aten::mm", 120, 5), cpu("aten::sum", 130, 5),
             cpu("other.py(1): f", 10, 5, kind="python", tid=2))  # another thread: in no region
    assert python_calls_by_region(t) == [{"region": "forward", "ops": 2, "python_calls": 2},
                                         {"region": "backward", "ops": 3, "python_calls": 1}]


def test_inside_a_call_means_wholly_inside_it_for_ops_and_python_calls_alike():
    # record_function's __exit__ starts inside the region it closes and returns after its end (45 to 55, past 50):
    # it lies not wholly inside the region, so neither it nor the op under it counts, as the docstrings say.
    t = make(cpu("forward", 0, 50, kind="annotation"), cpu("model.py(3): forward", 1, 40, kind="python"),
             cpu("aten::linear", 3, 10),
             cpu("torch/autograd/profiler.py(932): __exit__", 45, 10, kind="python"), cpu("aten::ends_after", 48, 5))
    assert python_calls_by_region(t) == [{"region": "forward", "ops": 1, "python_calls": 1}]
    assert ops_in_each_call(t, "forward", "aten::") == [1]
