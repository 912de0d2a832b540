"""The fragments of the pages Memory and The profiler's own footprint, on data where the answer is known and on a
small recording made for the test, with the claims' values on it."""

import dataclasses

import pytest

from profguide.site import claims, fragments
from profguide.site.catalogue import by_id
from profguide.site.data import RecordingData
from profguide.site.measures.memory import MemoryLeftAtEnd, MemoryRatioAtEnd
from profguide.site.parts.reading_output import footprint, memory
from tests.helpers import Results

META = {"recording": "r", "device": "cpu", "device_name": "cpu", "torch": "2", "python": "3", "recorded_at": "2026",
        "params": {}}


def timings(**medians):
    return {"device": "cpu", "steps_per_round": 2, "rounds": 3, "configurations": [
        {"name": name.replace("_", " "), "options": None if name == "no_profiler" else {}, "median_step_us": us,
         "ratio": us / medians["no_profiler"]} for name, us in medians.items()]}


def test_the_footprint_table_has_a_row_per_configuration():
    found = Results(found=timings(no_profiler=100.0, defaults=120.0), meta=META)
    text = footprint.footprint(found)["footprint.md"]
    assert "| no profiler | – | 100 µs | 1.00 |" in text and "| defaults | nothing | 120 µs | 1.20 |" in text
    assert "each row is the median of its 6 steps" in text
    with pytest.raises(fragments.FragmentError, match="does not hold the timings"):
        footprint.footprint(Results(found={"configurations": []}, meta=META))


def test_the_memory_figure_of_a_small_recording(recordings_made_once):
    recording = dataclasses.replace(by_id("reading-memory"), id="memory-small",
                                    params={"width": 32, "batch": 4, "steps": 4})
    data = RecordingData(recording, recordings_made_once(recording))
    files = memory.memory_figure(data)
    assert files["memory-timeline.svg"].count("ProfilerStep#") == 2  # steps 2 and 3 are recorded
    assert "OPTIMIZER_STATE" in files["memory-timeline.svg"] and "held on the CPU" in files["memory-timeline.md"]
    assert '--8<-- "docs/generated/memory-small/memory-timeline.svg"' in files["memory-timeline.md"]
    values = {claim.measure: claims.measured(claim.measure, data) for claim in recording.claims}
    assert values[MemoryRatioAtEnd("OPTIMIZER_STATE", "PARAMETER")] == pytest.approx(2, rel=0.01)
    assert values[MemoryLeftAtEnd("ACTIVATION")] == 0
