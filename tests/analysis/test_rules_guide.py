"""The guide's own rules at the edge of their thresholds, on small traces built by hand, and the evidence they
give on the guide's runs: words a reader acts on, and a place that is the start of an event showing it."""

import numpy as np
import pytest

from profguide.analysis import rules_guide
from profguide.analysis.idle import LATE_LAUNCH
from profguide.analysis.summarise import summarise
from profguide.analysis.summary import Summary
from profguide.site.data import run_data
from profguide.text import count_of, format_duration
from profguide.trace.model import KIND, Trace
from tests.analysis.gpu_traces import Loop
from tests.helpers import ROOT
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make

RULES = {rule.id: rule for rule in (*rules_guide.RULES, *rules_guide.JOB_RULES)}


def check(rule_id: str, trace: Trace):
    return RULES[rule_id].check(trace, summarise(trace))


def step_events(*durations):
    """ProfilerSteps of these durations back to back, each holding an op."""
    events, now = [], 0.0
    for step, dur in enumerate(durations):
        events += [cpu(f"ProfilerStep#{step}", now, dur, kind="annotation"), cpu("aten::mm", now + 1, dur - 2)]
        now += dur
    return events


def steps_of(*durations):
    return make(*step_events(*durations))


def test_a_first_step_just_under_twice_the_median_is_not_cold_and_just_over_is():
    assert check("cold-first-step", steps_of(199, 100, 100)) is None
    found = check("cold-first-step", steps_of(201, 100, 100))
    assert found is not None and found.measured == pytest.approx(2.01)
    assert found.at_us == 0.0 and "ProfilerStep#0" in found.words and "2 steps after it" in found.words


def test_a_first_step_that_holds_a_generations_prefill_is_not_cold_and_one_that_holds_a_decode_is():
    prefill_first = step_events(1000, 100, 100)
    with_regions = [cpu("prefill bs=1 toks=512", 2, 900, kind="annotation")]
    with_regions += [cpu("decode bs=1 toks=1", 1000 + 100 * i + 2, 90, kind="annotation") for i in range(2)]
    assert check("cold-first-step", make(*prefill_first, *with_regions)) is None
    decode_only = [cpu("decode bs=1 toks=1", 100 * i + (2 if i else 0), 90, kind="annotation") for i in range(3)]
    assert check("cold-first-step", make(*prefill_first, *decode_only)) is not None


def test_two_steps_are_too_few_to_call_the_first_cold():
    # the second may be the profiler's exit, a phantom step
    assert check("cold-first-step", steps_of(1000, 100)) is None


def setup_trace(setup_us):
    """A GPU window of 1000 µs (two kernels) with a cudaMalloc of ``setup_us`` in it."""
    return make(cpu("cudaMalloc", 300, setup_us, kind="runtime"),
                gpu("first", 0, 100), gpu("last", 900, 100))


def test_device_set_up_just_under_a_tenth_of_the_window_is_quiet_and_just_over_fires():
    assert check("cold-first-step", setup_trace(99)) is None
    found = check("cold-first-step", setup_trace(101))
    assert found is not None and found.measured == pytest.approx(10.1)
    assert found.at_us == 300 and "cudaMalloc" in found.words


def stack_trace(python_events, ops):
    return make(*(cpu(f"f{i}", 10 * i, 5, kind="python") for i in range(python_events)),
                *(cpu("aten::add", 10 * i + 5, 5) for i in range(ops)))


def test_with_stack_just_under_a_tenth_of_host_events_is_quiet_and_a_tenth_fires():
    assert check("profiler-overhead-options", stack_trace(9, 91)) is None
    found = check("profiler-overhead-options", stack_trace(10, 90))
    assert found is not None and found.measured == pytest.approx(10)
    assert found.at_us == 0 and "10 python_function events" in found.words


def compiled(*compile_ids):
    """A dynamo compilation annotated with each compile id, one after the other."""
    return make(*(event for position, compile_id in enumerate(compile_ids)
                  for event in (cpu("dynamo", 100 * position, 90),
                                cpu(f"dynamo_data: compile_id={compile_id}", 100 * position + 1, 80,
                                    kind="annotation"))))


def test_a_recompile_attempt_above_zero_fires_and_first_compilations_do_not():
    assert check("recompilations", compiled("0/0", "1/0")) is None
    found = check("recompilations", compiled("0/0", "0/1"))
    assert found is not None and found.measured == 1
    assert found.at_us == 101 and "0/1" in found.words


def regions(second_start):
    """Two compiled regions on one thread: 0/0 over [0, 100] and 1/0 from ``second_start`` for 30 µs."""
    return make(cpu("Torch-Compiled Region: 0/0", 0, 100), cpu("Torch-Compiled Region: 1/0", second_start, 30))


def test_a_region_inside_another_is_a_graph_break_and_one_after_it_is_not():
    assert check("graph-breaks", regions(120)) is None
    found = check("graph-breaks", regions(50))
    assert found is not None and found.measured == 1
    assert found.at_us == 50 and "Torch-Compiled Region: 1/0" in found.words


def test_regions_side_by_side_on_two_threads_are_no_graph_break():
    trace = make(cpu("Torch-Compiled Region: 0/0", 0, 100),
                 cpu("Torch-Compiled Region: 1/0", 50, 30, tid=2))
    assert check("graph-breaks", trace) is None


def launches(ops):
    """``ops`` ops of 20 µs on the host, each launching a 5 µs kernel: the GPU waits for the host."""
    loop = Loop()
    for _ in range(ops):
        loop.op(host_us=20, kernel_us=5)
    return loop.trace()


def test_tiny_launches_needs_a_hundred_launches_in_the_window():
    # the window opens at the first kernel, after the first launch: n ops make n - 1 launches in it
    assert check("tiny-launches", launches(100)) is None
    found = check("tiny-launches", launches(101))
    assert found is not None and found.measured == pytest.approx(5 / 20)
    assert "100 launch calls" in found.words and format_duration(5.0) in found.words


def test_tiny_launches_is_quiet_when_the_gpu_does_not_wait_for_the_host():
    loop = Loop()
    for _ in range(200):
        loop.op(host_us=20, kernel_us=19)  # the GPU busy 95% of the time
    assert check("tiny-launches", loop.trace()) is None


def communication(exposed_us):
    """A compute kernel over [0, 1000] and a collective from 900 that runs ``exposed_us`` past it."""
    return make(gpu("gemm", 0, 1000), gpu("ncclKernel_AllReduce_RING_LL_Sum_float", 900, 100 + exposed_us, stream=8))


def test_exposed_communication_just_under_a_tenth_of_the_window_is_quiet_and_just_over_fires():
    assert check("exposed-communication", communication(111)) is None  # 111 of 1111 µs
    found = check("exposed-communication", communication(112))
    assert found is not None and found.measured == pytest.approx(100 * 112 / 1112)
    assert found.at_us == 900 and "ncclKernel_AllReduce" in found.words


def job(*wait_pcts, straggler=0):
    rows = [{"rank": rank, "file": f"rank{rank}.json", "window": {"start_us": 0.0, "end_us": 1000.0, "dur_us": 1000.0},
             "wait_us": None if pct is None else 10 * pct, "wait_pct": pct} for rank, pct in enumerate(wait_pcts)]
    return {"ranks": rows, "straggler": straggler, "shared_collectives": 4}


def test_a_straggler_waited_for_just_under_a_tenth_is_quiet_and_a_tenth_fires():
    straggler_rank = RULES["straggler-rank"].check
    assert straggler_rank(job(0.0, 9.9)) is None
    assert straggler_rank(job(0.0, 9.9, straggler=None)) is None
    found = straggler_rank(job(0.0, 10.0, 3.0))
    assert found is not None and found.measured == 10.0
    assert found.words.startswith("rank 0 is the straggler: rank 1 waited 100 µs for it, 10%")
    assert "1 of the 2 other ranks" in found.words


# On the guide's runs: the evidence names what the summary measured, and points at an event that shows it.


def shown(rule_id: str) -> tuple[Trace, Summary, rules_guide.Evidence]:
    data = run_data(RULES[rule_id].shown_by, ROOT)
    found = RULES[rule_id].check(data.trace, data.summary)
    assert found is not None
    return data.trace, data.summary, found


def starts_an_event(trace: Trace, at_us, mask=None) -> bool:
    starting = trace.ts == at_us
    return bool((starting if mask is None else starting & mask).any())


def named(trace: Trace, predicate):
    return np.isin(trace.name, [code for code, name in enumerate(trace.names) if predicate(name)])


def test_a_cold_first_step_points_at_it_on_the_run_that_shows_it():
    trace, summary, found = shown("cold-first-step")
    first = summary["steps"][0]
    assert found.at_us == first["start_us"]
    assert f"ProfilerStep#{first['step']} took {format_duration(first['dur_us'])}" in found.words


def test_with_stack_evidence_counts_the_python_events_and_points_at_the_first():
    trace, _, found = shown("profiler-overhead-options")
    python = trace.kind == KIND["python"]
    assert count_of(int(python.sum()), "python_function event") in found.words
    assert found.at_us == float(trace.ts[python].min())


def test_recompilations_point_at_the_first_recompilation():
    trace, summary, found = shown("recompilations")
    assert found.measured == summary["compile"]["recompilations"] > 0
    assert starts_an_event(trace, found.at_us, named(trace, lambda name: "compile_id=0/1" in name))
    assert format_duration(summary["compile"]["compile_us"]) in found.words


def test_a_graph_break_points_at_the_resumed_region():
    trace, summary, found = shown("graph-breaks")
    assert starts_an_event(trace, found.at_us, named(trace, lambda name: name.startswith("Torch-Compiled Region")))
    assert f"of {summary['compile']['compiled_regions']}" in found.words


def test_tiny_launches_point_at_the_longest_wait_for_the_host():
    _, summary, found = shown("tiny-launches")
    idle, window = summary["idle"], summary["window"]
    late = sum(idle["by_cause"][cause]["idle_us"] for cause in LATE_LAUNCH)
    assert found.at_us == next(gap["start_us"] for gap in idle["longest_gaps"] if gap["cause"] in LATE_LAUNCH)
    assert f"({format_duration(late)} of {format_duration(window['dur_us'])})" in found.words
    assert found.measured < 1


def test_exposed_communication_points_at_a_communication_kernel():
    trace, summary, found = shown("exposed-communication")
    kernels = trace.kind == KIND["kernel"]
    assert starts_an_event(trace, found.at_us, kernels & named(trace, lambda name: "nccl" in name.lower()))
    assert format_duration(summary["communication"]["exposed_us"]) in found.words
    assert summary["communication"]["top"][0]["name"][:40] in found.words


def test_the_straggler_evidence_names_the_rank_the_job_names():
    data = run_data(RULES["straggler-rank"].shown_by, ROOT)
    job_found = data.job
    found = RULES["straggler-rank"].check(job_found)
    straggler = job_found["ranks"][job_found["straggler"]]
    assert found is not None and found.words.startswith(f"rank {straggler['rank']} is the straggler")
    assert found.at_us is None  # a job's ranks have clocks of their own: no one place shows it
