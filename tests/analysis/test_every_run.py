"""The op view, diff and the rules on every real trace in docs/traces and every recording of the guide: each
answers, and what it answers holds together."""

import functools

import numpy as np
import pytest

from profguide import trace
from profguide.analysis.diff import side_of, trace_diff
from profguide.analysis.op_view import ops_view
from profguide.analysis.ops import memory_peak
from profguide.analysis.select import on_a_stream
from profguide.site.catalogue import RECORDINGS
from tests.helpers import ROOT, TRACES

RUNS = sorted([*TRACES.glob("*.json.gz"), *(ROOT / "docs" / "generated").glob("*/trace*.json.gz")])
load = functools.cache(trace.load)


def test_every_run_is_here():
    """A recording's folder holds its traces (one per rank): the runs below are every one the guide has."""
    folders = {path.parent.name for path in RUNS if path.parent != TRACES}
    assert folders == {recording.id for recording in RECORDINGS}


@pytest.mark.parametrize("path", RUNS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_the_op_view_adds_up(path):
    loaded = load(path)
    view = ops_view(loaded, path.name)
    for row in view["ops"]:
        assert 0 <= row["self_cpu_us"] <= row["cpu_us"] + 1e-6
        assert 0 <= row["self_device_us"] <= row["device_us"] + 1e-6
    # each GPU op's time is some op's self device time at most once
    gpu_time = float(loaded.dur[on_a_stream(loaded)].sum())
    assert sum(row["self_device_us"] for row in view["ops"]) <= gpu_time + 1e-6 * max(1.0, gpu_time)
    peaks = memory_peak(loaded)
    assert (peaks is None) == (len(loaded.memory_ts) == 0)
    assert all(np.isfinite(peak["peak_bytes"]) for peak in peaks or [])


@pytest.mark.parametrize("path", RUNS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_a_run_against_a_second_reading_of_itself_changes_nothing(path):
    """Two sides read apart (not one object twice): every kernel and op the same, no rule gone or new."""
    found = trace_diff(side_of(load(path), path), side_of(trace.load(path), path))
    assert not found["same_input"]
    assert all(row["status"] == "same" for row in found["kernels"] + found["ops"])
    assert found["step_us"]["change"] in (0, None) and not found["verdict_changed"]
    assert found["rules"]["gone"] == found["rules"]["new"] == []
