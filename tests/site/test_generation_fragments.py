"""The fragments of Generation, step by step, on the committed recordings (its measure's known answers are rows of
tests/site/measures/test_generation.py)."""

from profguide.site.catalogue import by_id
from profguide.site.data import RecordingData
from profguide.site.parts.serving_a_model import generation
from tests.helpers import ROOT


def committed(recording_id):
    return RecordingData(by_id(recording_id), ROOT / "docs" / "generated" / recording_id)


def test_the_decode_figure_draws_the_first_decode_step_beside_the_whole_generation():
    data = committed("serving-generation-batch-1")
    made = generation.decode_figure(data)
    assert "<title>Timeline: " in made["decode-timeline.svg"] and ", ProfilerStep#2</title>" in made[
        "decode-timeline.svg"]
    assert "decode bs=1 toks=1" in made["decode-timeline.svg"]
    assert "prefill bs=1" not in made["decode-timeline.svg"]
    assert "serving-generation-batch-1/decode-timeline.svg" in made["decode-figure.md"]
    assert "Drawn: ProfilerStep#2" in made["decode-figure.md"]


def test_the_sweep_table_has_a_row_a_configuration_and_each_phase_per_token():
    text = generation.sweep_table(committed("serving-generation-sweep"))["sweep.md"]
    rows = [line for line in text.splitlines() if line.startswith("| ") and line[2].isdigit()]
    configurations = [tuple(cell.strip() for cell in row.split("|")[1:3]) for row in rows]
    assert configurations == [("1", "16"), ("1", "64"), ("1", "256"), ("4", "64"), ("16", "64")]
    assert "Prefill per token" in text and "Decode per token" in text and "CPU stand-in" in text
