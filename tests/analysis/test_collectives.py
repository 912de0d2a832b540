"""profguide.analysis.collectives: a collective's events layer by layer, the threads they run on, the buckets."""

import pytest

from profguide import trace
from profguide.analysis import collectives
from tests.helpers import TRACES, make_trace

MAIN, GLOO, STREAM = 10, 11, 40


def x(name, ts, dur, cat="cpu_op", tid=MAIN, pid=MAIN, **args):
    return {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur, "pid": pid, "tid": tid, "args": args}


def thread(tid, label, pid=MAIN):
    return {"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": f"thread {tid} ({label})"}}


def gloo_step(step, start):
    """One step of a DDP job on gloo: two buckets sent from inside AccumulateGrad, reduced on gloo's thread."""
    events = [x(f"ProfilerStep#{step}", start, 100, cat="user_annotation")]
    for offset, elements in ((10, 300), (50, 200)):
        events += [x("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", start + offset, 10),
                   x("c10d::allreduce_", start + offset + 1, 2),
                   x("gloo:all_reduce", start + offset + 2, 30, cat="user_annotation", tid=GLOO,
                     **{"Input Dims": [[elements]], "Input type": ["float"]})]
    return events


GLOO_JOB = make_trace(thread(MAIN, "python"), thread(GLOO, "pt_gloo_runloop"), thread(GLOO, "python"),
                      *gloo_step(3, 0), *gloo_step(4, 100))


def test_anatomy_names_each_layer_and_the_thread_it_runs_on():
    rows = collectives.anatomy(GLOO_JOB)
    assert [(r["layer"], r["name"], r["runs_on"], r["count"]) for r in rows] == [
        ("call", "c10d::allreduce_", "python", 4), ("backend", "gloo:all_reduce", "pt_gloo_runloop", 4)]
    assert rows[1]["median_us"] == 30


def test_thread_labels_prefer_the_name_that_says_what_a_thread_does():
    named = make_trace(thread(7, "pt_main_thread", pid=7), thread(8, "pt_main_thread", pid=7),
                       thread(8, "pt_autograd_0", pid=7),
                       {"ph": "M", "name": "thread_name", "pid": 0, "tid": 40, "args": {"name": "stream 40 "}},
                       x("aten::mm", 0, 1))
    assert collectives.thread_labels(named) == {(7, 7): "pt_main_thread", (7, 8): "pt_autograd_0",
                                                   (0, 40): "stream 40"}


def test_buckets_per_step_with_their_bytes():
    assert collectives.step_buckets(GLOO_JOB) == [{"step": 3, "sizes": [1200, 800]}, {"step": 4, "sizes": [1200, 800]}]
    assert collectives.fewest_per_step(GLOO_JOB) == 2


def test_gloo_works_outside_the_call_and_ddp_calls_from_accumulate_grad():
    assert collectives.outside_calls_share(GLOO_JOB) == 1
    assert collectives.inside_share(GLOO_JOB, "c10d::allreduce_", "AccumulateGrad") == 1
    assert collectives.inside_share(GLOO_JOB, "gloo:all_reduce", "AccumulateGrad") == 0  # another thread


def test_a_size_comes_from_record_param_comms_when_the_op_has_no_shapes():
    found = make_trace(x("record_param_comms", 0, 10, **{"In msg nelems": 1000, "dtype": "Float"}),
                       x("nccl:all_reduce", 1, 5, cat="user_annotation"),
                       x("nccl:all_reduce", 20, 1, cat="user_annotation"))
    parameters = collectives.in_layer(found, "parameters")
    assert collectives.message_bytes(found, 1, parameters) == 4000
    assert collectives.message_bytes(found, 2, parameters) is None  # no record_param_comms around it


def test_nothing_to_measure_gives_none():
    empty = make_trace(x("aten::mm", 0, 1))
    assert collectives.anatomy(empty) == []
    assert collectives.outside_calls_share(empty) is None
    assert collectives.fewest_per_step(empty) is None
    assert collectives.comm_stream_share(empty) is None
    assert collectives.ranks_named([]) is None


def test_ranks_named_checks_each_trace_against_its_place():
    assert collectives.ranks_named([{"rank": 0, "world_size": 2}, {"rank": 1, "world_size": 2}]) == 1
    assert collectives.ranks_named([{"rank": 0, "world_size": 2}, {"rank": 0, "world_size": 2}]) == 0.5
    assert collectives.ranks_named([None, {"rank": 1, "world_size": 2}]) == 0.5


@pytest.fixture(scope="module")
def a100():
    return trace.load(TRACES / "a100_nccl_2rank_rank0.json.gz")


def test_a_real_nccl_trace_has_every_layer_and_its_kernels_alone_on_their_stream(a100):
    rows = collectives.anatomy(a100)
    assert {r["layer"] for r in rows} == set(collectives.LAYERS)
    kernels = [r for r in rows if r["layer"] == "kernel"]
    assert kernels and {r["runs_on"] for r in kernels} == {r["runs_on"] for r in rows if r["layer"] == "stream"}
    assert collectives.comm_stream_share(a100) == 1
    assert collectives.outside_calls_share(a100) == 0  # NCCL enqueues from inside the call


def test_a_real_nccl_trace_all_reduces_the_same_buckets_every_step(a100):
    steps = collectives.step_buckets(a100)
    assert len(steps) > 1 and all(row["sizes"] == steps[0]["sizes"] for row in steps)
    assert len(steps[0]["sizes"]) > 1 and all(size > 0 for size in steps[0]["sizes"])


def test_communication_kernels_are_told_apart_by_the_call_that_launched_them():
    # Two kernels of one name: one launched inside nccl:all_reduce, one inside nccl:all_to_all; a third was
    # launched before the trace began (no launch call holds its correlation).
    kernel = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
    launched = make_trace(
        x("nccl:all_reduce", 0, 10, cat="user_annotation"),
        x("cudaLaunchKernel", 2, 3, cat="cuda_runtime", correlation=1),
        x("nccl:all_to_all", 20, 10, cat="user_annotation"),
        x("cudaLaunchKernel", 22, 3, cat="cuda_runtime", correlation=2),
        x(kernel, 30, 60, cat="kernel", pid=0, tid=STREAM, correlation=1),
        x(kernel, 100, 30, cat="kernel", pid=0, tid=STREAM, correlation=2),
        x(kernel, 140, 10, cat="kernel", pid=0, tid=STREAM, correlation=9))
    rows = collectives.communication_by_call(launched)
    assert [(row["call"], row["count"], row["us"]) for row in rows] == [
        ("nccl:all_reduce", 1, 60), ("nccl:all_to_all", 1, 30), (None, 1, 10)]
    assert {row["kernel"] for row in rows} == {kernel}


def test_the_sixteen_rank_trace_all_reduces_through_kernels_named_sendrecv():
    rows = collectives.communication_by_call(trace.load(TRACES / "a100_80gb_nccl_16rank_rank0.json.gz"))
    by_call = {}
    for row in rows:
        by_call[row["call"]] = by_call.get(row["call"], 0) + row["us"]
    assert all("SendRecv" in row["kernel"] for row in rows)
    assert max(by_call, key=by_call.get) == "nccl:all_reduce"
