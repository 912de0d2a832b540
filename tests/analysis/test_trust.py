"""profguide.analysis.trust: each check on a trace that fails it and one that passes, on the real traces, and what
explain does with the confidence."""

import dataclasses
import re
from typing import get_args

import pytest

from profguide import cli
from profguide.analysis import trust as checks
from profguide.analysis.select import names_where
from profguide.analysis.summarise import summarise
from profguide.analysis.trust import CHECKS, trust
from profguide.analysis.vocabulary import TrustCheck
from profguide.trace.model import NO_ID
from tests.helpers import ROOT, TRACES
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


def failed(trace):
    """{check: (confidence it leaves, events counted)} of the checks the trace fails."""
    return {reason["check"]: (reason["lowers_to"], reason["count"]) for reason in trust(trace)["reasons"]}


def launch(ts, correlation, name="cudaLaunchKernel"):
    return cpu(name, ts, 5, kind="runtime", correlation=correlation)


def kernel(ts, dur, correlation, stream=7):
    return gpu("k", ts, dur, stream=stream, correlation=correlation)


def test_every_check_has_its_function_in_the_vocabularys_order():
    assert tuple(CHECKS) == get_args(TrustCheck)


def test_a_clean_trace_passes_every_check():
    found = trust(make(launch(0, 1), kernel(10, 50, 1), launch(20, 2), kernel(60, 50, 2)))
    assert found == {"confidence": "high", "checks": len(CHECKS), "reasons": []}


@pytest.mark.parametrize(("kernel_at", "expected"), [(5, {"kernel-before-launch": ("reduced", 1)}), (12, {})])
def test_a_kernel_that_starts_before_its_launch(kernel_at, expected):
    trace = make(launch(10, 1), kernel(kernel_at, 20, 1))
    assert failed(trace) == expected


def wait(ts, waits_for, name="Stream Wait Event", stream=7):
    return gpu(name, ts, 1, kind="sync", stream=stream, wait_on_cuda_event_record_corr_id=waits_for)


def record(ts, correlation):
    return cpu("cudaEventRecord", ts, 1, kind="runtime", correlation=correlation)


@pytest.mark.parametrize(("events", "expected"), [
    ((wait(10, -1),), {"stream-wait-unfilled": ("reduced", 1)}),
    ((wait(10, -1, name="Event Sync", stream=-1),), {"stream-wait-unfilled": ("reduced", 1)}),
    ((record(5, 3), wait(10, 3)), {}),
    ((record(20, 3), wait(10, 3)), {"stream-wait-not-in-past": ("reduced", 1)}),  # the record comes after
    ((record(5, 3), wait(10, 4)), {"stream-wait-not-in-past": ("reduced", 1)}),  # not in the trace
    # The earliest of two records with one id is the one that counts, as in torch's rule.
    ((record(5, 3), record(20, 3), wait(10, 3)), {}),
])
def test_stream_waits_name_an_earlier_event_record(events, expected):
    assert failed(make(kernel(0, 1, 99), *events)) == expected


@pytest.mark.parametrize(("sync_at", "stream", "expected"), [
    (50, 7, {"kernel-running-at-stream-sync": ("reduced", 1)}),
    (150, 7, {}),
    (50, 8, {}),  # another stream's kernel may run
    (50, 1_000_007, {"kernel-running-at-stream-sync": ("reduced", 1)}),  # Kineto's sync row of stream 7
    (50, 1_000_008, {}),
])
def test_no_kernel_runs_on_a_stream_when_its_stream_sync_starts(sync_at, stream, expected):
    trace = make(kernel(0, 100, 99), gpu("Stream Sync", sync_at, 1, kind="sync", stream=stream))
    assert failed(trace) == expected


METADATA = {"Collective name": "allreduce", "dtype": "Float", "In msg nelems": 4, "Out msg nelems": 4, "Group size": 2}


@pytest.mark.parametrize(("args", "expected"), [
    (METADATA, {}),
    ({"In msg nelems": 4, "dtype": "Float"}, {"collective-metadata-missing": ("reduced", 1)}),
    ({}, {"collective-metadata-missing": ("reduced", 1)}),
])
def test_record_param_comms_carries_the_collectives_metadata(args, expected):
    assert failed(make(cpu("record_param_comms", 0, 5, **args))) == expected


def backward(name, sequence):
    return cpu(f"autograd::engine::evaluate_function: {name}", 0, 5, **{"Sequence number": sequence})


@pytest.mark.parametrize(("second", "expected"), [
    (backward("AddBackward0", 3), {"backward-sequence-shared": ("reduced", 2)}),
    (backward("AddBackward0", 4), {}),
    (backward("MmBackward0", 3), {}),  # the same op twice under one number is one op
])
def test_one_backward_op_per_sequence_number(second, expected):
    assert failed(make(backward("MmBackward0", 3), second)) == expected


@pytest.mark.parametrize(("unlaunched_us", "expected"), [
    (4, {}),  # under 5% of the busy time
    (10, {"gpu-ops-without-launch": ("reduced", 1)}),
    (100, {"gpu-ops-without-launch": ("reduced", 1)}),  # the GPU's timeline is whole: never none
])
def test_gpu_ops_whose_launch_is_not_in_the_trace(unlaunched_us, expected):
    trace = make(kernel(0, unlaunched_us, 1), launch(200, 2), kernel(210, 90, 2))
    assert failed(trace) == expected


def test_gpu_ops_queued_before_the_profiler_started_are_named_so():
    reason = trust(make(kernel(0, 50, 1), launch(200, 2), kernel(210, 50, 2)))["reasons"][0]
    assert reason["check"] == "gpu-ops-without-launch" and reason["at_us"] == 0
    assert reason["seen"].endswith("all before the first launch it records (queued before the profiler started)")


def test_a_trace_without_any_launch_call_misses_none():
    assert failed(make(kernel(0, 50, 1), kernel(60, 50, 2))) == {}


@pytest.mark.parametrize(("launched", "expected"), [
    (20, {}),  # one launch of 20 without its kernel: under 5%
    (10, {"launches-without-gpu-op": ("reduced", 1)}),
    (1, {"launches-without-gpu-op": ("none", 1)}),
])
def test_launches_whose_kernel_is_not_in_the_trace(launched, expected):
    calls = [event for n in range(launched) for event in (launch(10 * n, n), kernel(10 * n + 6, 2, n))]
    assert failed(make(*calls, launch(1000, 999, name="cuLaunchKernel"))) == expected


def test_a_launch_inside_a_stream_capture_runs_no_kernel_and_is_not_missing_one():
    trace = make(launch(0, 1), kernel(6, 2, 1), cpu("cudaStreamBeginCapture", 10, 1, kind="runtime"),
                 launch(20, 2), cpu("cudaStreamEndCapture", 30, 1, kind="runtime"))
    assert failed(trace) == {}
    after = make(launch(0, 1), kernel(6, 2, 1), cpu("cudaStreamBeginCapture", 10, 1, kind="runtime"),
                 cpu("cudaStreamEndCapture", 15, 1, kind="runtime"), launch(20, 2))
    assert failed(after) == {"launches-without-gpu-op": ("none", 1)}


@pytest.mark.parametrize(("events", "cut"), [
    (checks.KINETO_EVENT_CAP, True),
    (int(checks.NEAR_CAP * checks.KINETO_EVENT_CAP), True),
    (int(checks.NEAR_CAP * checks.KINETO_EVENT_CAP) - 1, False),
    (checks.KINETO_EVENT_CAP + 1, False),  # more than the cap: nothing cut it there
])
def test_kinetos_event_cap(events, cut):
    trace = dataclasses.replace(make(launch(0, 1), kernel(6, 2, 1)), phases={"X": events})
    assert failed(trace) == ({"event-cap-reached": ("reduced", events)} if cut else {})


def step(dur):
    return cpu("ProfilerStep#1", 0, dur, kind="annotation")


@pytest.mark.parametrize(("kernel_us", "step_us", "expected"), [
    (2, 13_000_000, {"little-gpu-work": ("none", 1)}),  # a few µs in a 13-second step
    (2_000, 13_000_000, {}),  # 1 ms or more is enough to judge
    (2, 1_000, {}),  # a short step: 0.2% of it
])
def test_little_gpu_work_in_a_long_trace(kernel_us, step_us, expected):
    assert failed(make(step(step_us), launch(100, 1), kernel(110, kernel_us, 1))) == expected


def test_a_few_microseconds_of_gpu_work_in_a_13_second_step_get_no_verdict_and_no_advice():
    trace = make(step(13_000_000), cpu("cudaDeviceSynchronize", 200, 20, kind="runtime"), launch(100, 1),
                 kernel(110, 2, 1))
    summary = summarise(trace)
    assert summary["gpu_busy_pct"] == 100  # what the window alone would call compute-bound
    assert summary["verdict"] == "no-verdict" and summary["findings"] == []
    assert summary["verdict_text"] == ("This trace cannot support a verdict: 2.0 µs of GPU work in 13.00 s of "
                                       "ProfilerSteps: too little to judge.")


def test_a_trace_of_metadata_alone():
    bookkeeping = {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "ts": 0, "dur": 5, "pid": "Spans",
                   "tid": "PyTorch Profiler"}
    assert failed(make(bookkeeping)) == {"metadata-only": ("none", 1)}
    assert failed(make(bookkeeping, cpu("aten::mm", 0, 5))) == {}


def test_a_cupti_range_profilers_trace():
    ranges = [{"ph": "X", "cat": "cuda_profiler_range", "name": f"range{n}", "ts": n * 10, "dur": 5, "pid": 0,
               "tid": 0} for n in range(3)]
    assert failed(make(*ranges)) == {"range-profiler-only": ("none", 3)}
    assert failed(make(*ranges, launch(0, 1), kernel(6, 2, 1))) == {}


# What the checks find on the real traces; every other trace passes them all. Each was looked into: the two
# qwen traces and the 16-rank one start with GPU work queued before the profiler recorded its launches (their
# correlation ids all come before the first call's), and the older torch of the 16- and 128-rank traces wrote
# record_param_comms without the collective's metadata.
REAL = {
    "a100_80gb_nccl_16rank_rank0.json.gz": {"collective-metadata-missing", "gpu-ops-without-launch"},
    "a100_triton_culaunch.json.gz": {"little-gpu-work"},
    "h100_qwen1.5_0.5b_inference.json.gz": {"gpu-ops-without-launch"},
    "mi300x_qwen1.5_0.5b_inference.json.gz": {"gpu-ops-without-launch"},
    "nccl_128rank_sampled_rank0.json.gz": {"collective-metadata-missing"},
    "nccl_128rank_sampled_rank1.json.gz": {"collective-metadata-missing"},
}


@pytest.mark.parametrize("name", sorted(path.name for path in TRACES.glob("*.json.gz")))
def test_what_the_checks_find_on_each_real_trace(name, real_trace):
    assert set(failed(real_trace(name))) == REAL.get(name, set())


def test_the_real_stream_waits_and_collectives_are_checked_and_pass(real_trace):
    """The torch rules that pass on every real trace pass on traces that hold what they check."""
    alexnet = real_trace("a100_alexnet_cuda_sync.json.gz")
    assert (alexnet.waits_for >= 0).any() and "Stream Sync" in alexnet.names
    two_ranks = real_trace("a100_nccl_2rank_rank0.json.gz")
    assert any(set(checks.COLLECTIVE_METADATA) <= set(args) for args in two_ranks.comm_args.values())
    assert (names_where(two_ranks, lambda name: checks.BACKWARD in name) & (two_ranks.sequence != NO_ID)).any()


def test_the_13_second_step_on_a_real_trace_is_not_compute_bound(real_trace):
    summary = summarise(real_trace("a100_triton_culaunch.json.gz"))
    assert (summary["verdict"], summary["trust"]["confidence"], summary["findings"]) == ("no-verdict", "none", [])


RUNS = sorted([*TRACES.glob("*.json.gz"), *(ROOT / "docs" / "generated").glob("*/trace*.json.gz")])
TRUST_LINE = re.compile(r"^Trust: (high — every check passed \(\d+ checks\)|reduced — .+|none — .+)\.$")


@pytest.mark.parametrize("path", RUNS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_explain_prints_a_trust_line_after_the_verdict_on_every_run(path, capsys):
    assert cli.main(["explain", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("Verdict: ") and lines[2].startswith("Decided by: ")
    assert TRUST_LINE.match(lines[3]), lines[3]


def test_the_reference_page_lists_every_check_with_its_thresholds():
    page = (ROOT / "docs" / "reference" / "explain.md").read_text()
    section = page.split("## Can the trace be trusted?")[1].split("\n## ")[0]
    for check, (source, _) in CHECKS.items():
        assert re.search(rf"\| `{check}` \| {'torch' if source == checks.TORCH else 'this guide'} \|", section), check
    reduced, none = checks.DROPPED_REDUCED_PCT, checks.DROPPED_NONE_PCT
    assert f"at {reduced}% of the GPU's busy time (the GPU's own timeline is whole, so never `none`)" in section
    assert f"at {reduced}% of the launches, or {none}% for `none`" in section
    assert f"Kineto's cap of {checks.KINETO_EVENT_CAP:,}" in section and "within 1% under it" in section
    assert checks.NEAR_CAP == 0.99
    assert (f"under {checks.LITTLE_GPU_BUSY_US / 1000:g} ms and under {100 * checks.LITTLE_GPU_SHARE:g}% of the "
            "ProfilerSteps") in section
