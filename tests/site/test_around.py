"""The measures and fragments of Around the profiler: each on data where the answer is known, then on the
committed recordings."""

import html

import pytest

from profguide.site import claims, fragments
from profguide.site.catalogue import by_id
from profguide.site.data import RecordingData
from profguide.site.measures.communication import LastCollective
from profguide.site.measures.results import ExecutionTraceCovers, StackLines, StackTime, TimerRatio
from profguide.site.parts.reference import around_the_profiler
from tests.helpers import ROOT, Results, event, make_trace

STACKS = ["run.py(1):_main;model.py(2):_block;model.py(3):_attention 30",
          "run.py(1):_main;model.py(2):_block;model.py(4):_feed_forward 60",
          "run.py(1):_main;torch/profiler/profiler.py(5):_start 10"]


def test_timer_ratio_is_the_op_median_over_the_timers():
    trace = make_trace(event("aten::matmul", 0, 10), event("aten::matmul", 20, 30), event("aten::matmul", 60, 50))
    assert claims.measured(TimerRatio("aten::matmul"), Results(trace=trace, found={"timer": {"median_us": 15}})) == 2
    assert claims.measured(TimerRatio("aten::matmul"), Results(trace=trace, found=None)) is None
    assert claims.measured(TimerRatio("aten::mm"), Results(trace=trace, found={"timer": {"median_us": 15}})) is None


def test_stack_measures_count_lines_and_add_up_time_under_a_frame():
    run = Results(found={"stacks": STACKS, "stacks_without_option": []})
    assert claims.measured(StackLines("verbose"), run) == 3
    assert claims.measured(StackLines("plain"), run) == 0
    assert claims.measured(StackTime("block"), run) == 0.9
    assert claims.measured(StackTime("attention", over="block"), run) == pytest.approx(1 / 3)
    assert claims.measured(StackTime("block", over="absent"), run) is None
    assert claims.measured(StackLines("plain"), Results(found=None)) is None


def test_execution_trace_covers_counts_ops_and_regions_call_by_call():
    trace = make_trace(event("aten::mm", 0, 1), event("aten::mm", 2, 1), event("step", 0, 5, kind="annotation"),
                       event("train.py(1): f", 0, 5, kind="python"))
    assert claims.measured(ExecutionTraceCovers(), Results(trace=trace, found={"nodes_by_name": {
        "aten::mm": 2, "step": 1, "[pytorch|profiler|execution_trace|thread]": 1}})) == 1
    assert claims.measured(ExecutionTraceCovers(), Results(trace=trace, found={"nodes_by_name": {"aten::mm": 1}})) \
        == pytest.approx(1 / 3)
    assert claims.measured(ExecutionTraceCovers(), Results(trace=trace, found=None)) is None


def test_last_collective_is_the_highest_number_in_a_ranks_buffer():
    run = Results(found={"ranks": [[{"seq": 1}, {"seq": 2}], []]})
    assert claims.measured(LastCollective(0), run) == 2
    assert claims.measured(LastCollective(1), run) is None
    assert claims.measured(LastCollective(2), run) is None


def committed(recording_id):
    return RecordingData(by_id(recording_id), ROOT / "docs" / "generated" / recording_id)


def test_the_timer_fragment_prints_the_measurement_and_both_medians():
    text = fragments.timer_comparison(committed("around-benchmark"))["timer.md"]
    assert text.startswith("```text\na @ b: 128×128") and "Median:" in text
    assert "`torch.utils.benchmark.Timer`" in text and "<code>aten::matmul</code> events" in text


def test_the_stack_fragments_quote_the_file_and_draw_it():
    data = committed("around-stacks")
    quoted = around_the_profiler.stack_lines(data)["stacks.md"]
    assert quoted.count("snippets/reference/around_the_profiler/stacks.py") >= 3
    made = around_the_profiler.flame(data)
    assert made["flame.svg"].startswith("<svg") and "around-stacks/flame.svg" in made["flame.md"]


def test_the_execution_trace_fragment_shows_a_node_and_the_names_it_has_besides():
    text = html.unescape(around_the_profiler.execution_trace(committed("around-execution-trace"))["execution-trace.md"])
    assert '"name": "aten::addmm"' in text and "op_schema" in text
    assert "trace: <code>[pytorch|profiler|execution_trace|process]</code>" in text  # a root, no event of its name


def test_the_flight_recorder_fragment_lists_each_ranks_collectives():
    text = html.unescape(around_the_profiler.flight_recorder(committed("around-flight-recorder"))["flight-recorder.md"])
    assert text.count("gloo:all_reduce") == 7 and "| 0 | 4 |" in text and "| 1 | 4 |" not in text


def test_a_fragment_without_its_results_says_what_is_missing():
    with pytest.raises(fragments.FragmentError, match="flight recorders"):
        around_the_profiler.flight_recorder(Results(found=None))
