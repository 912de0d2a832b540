"""The input pipeline page's recordings: its host-steps figure (the host-activity measures its claims use are
rows of tests/site/measures/test_host.py)."""

import re
from types import SimpleNamespace

import pytest

from profguide.analysis.select import profiler_steps
from profguide.site import fragments
from profguide.site.catalogue import by_id
from profguide.site.data import RecordingData
from profguide.site.parts.reading_output import input_pipeline
from profguide.site.parts.reading_output.input_pipeline import NO_WORKERS, TWO_WORKERS
from tests.helpers import ROOT, event, make_trace


def committed(recording_id):
    return RecordingData(by_id(recording_id), ROOT / "docs" / "generated" / recording_id)


def test_the_figure_draws_every_step_of_both_runs_and_tabulates_them():
    files = input_pipeline.host_steps(committed(TWO_WORKERS))
    assert set(files) == {"host-steps.md", "host-steps.svg"}
    svg, text = files["host-steps.svg"], files["host-steps.md"]
    steps = sum(len(profiler_steps(committed(run).trace)) for run in (NO_WORKERS, TWO_WORKERS))
    assert steps >= 2 and svg.count(">ProfilerStep#") == steps
    rows = [line for line in text.splitlines() if line.startswith("| A training loop")]
    assert [re.search(r"num(?:_|&#95;)workers=(\d)", row).group(1) for row in rows] == ["0", "2"]
    assert f"/generated/{NO_WORKERS}/trace.json.gz" in text and f"/generated/{TWO_WORKERS}/trace.json.gz" in text


def test_the_figure_needs_steps(tmp_path):
    no_steps = SimpleNamespace(recording=by_id(TWO_WORKERS), trace=make_trace(event("aten::mm", 0, 5)),
                               folder=tmp_path / TWO_WORKERS, title="t", meta={}, real=False)
    with pytest.raises(fragments.FragmentError, match="no ProfilerStep"):
        input_pipeline.host_steps(no_steps)
