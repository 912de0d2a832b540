"""The input pipeline page's recordings: the host-activity measures its claims use, and its host-steps figure."""

import re
from types import SimpleNamespace

import pytest

from profguide.analysis.select import profiler_steps
from profguide.analysis.summarise import summarise
from profguide.site import claims, fragments
from profguide.site.catalogue import by_id
from profguide.site.data import RecordingData
from profguide.site.measures.host import HostLead, HostShare, HostShareFall
from profguide.site.measures.summary import VerdictIs
from profguide.site.parts.reading_output import input_pipeline
from profguide.site.parts.reading_output.input_pipeline import NO_WORKERS, TWO_WORKERS
from tests.helpers import ROOT, event, make_trace

LOADER = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"


def loop(*loading_us):
    """Steps of 100 µs, each loading data for the given time, then in one op for the rest."""
    events = []
    for number, loading in enumerate(loading_us):
        start = 100 * number
        events += [event(f"ProfilerStep#{number}", start, 100, kind="annotation"),
                   event(LOADER, start, loading, kind="annotation"),
                   event("aten::addmm", start + loading, 100 - loading)]
    trace = make_trace(*events)
    return SimpleNamespace(trace=trace, summary=summarise(trace), meta={"device": "cpu"})


def test_host_share_lead_fall_and_verdict():
    slow, fast = loop(60, 80), loop(10, 10)
    assert claims.measured(HostShare("data loading"), slow) == pytest.approx(0.7)
    assert claims.measured(HostLead("data loading"), slow) == pytest.approx(1.5)  # the step where it leads least
    fast.sibling = lambda recording_id: slow
    assert claims.measured(HostShareFall("data loading", "slow"), fast) == pytest.approx(7)
    assert claims.measured(VerdictIs("input-bound"), slow) == 1 and claims.measured(VerdictIs("input-bound"), fast) == 0


def test_what_cannot_be_measured_is_none():
    empty = SimpleNamespace(trace=make_trace(event("x", 0, 5, kind="kernel")), meta={"device": "cpu"})
    assert claims.measured(HostShare("data loading"), empty) is None
    assert claims.measured(HostLead("data loading"), empty) is None


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
