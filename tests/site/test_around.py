"""The fragments of Around the profiler, on the committed recordings (its measures' known answers are rows of
tests/site/measures/test_results.py and test_communication.py)."""

import html

import pytest

from profguide.site import fragments
from profguide.site.catalogue import by_id
from profguide.site.data import RecordingData
from profguide.site.parts.reference import around_the_profiler
from tests.helpers import ROOT, Results


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
