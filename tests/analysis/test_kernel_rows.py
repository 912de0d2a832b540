"""profguide.analysis.kernels.kernel_rows: the same rows as adding up every name, without the cost of it."""

import numpy as np
import pytest

from profguide.analysis import kernels
from profguide.trace.model import KIND
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


def every_name_ranked(trace, selected, limit=None):
    """The rows as kernel_rows computed them before: statistics of every name, then the sort."""
    codes, durations = trace.name[selected], trace.dur[selected]
    order = np.argsort(codes, kind="stable")
    codes, durations = codes[order], durations[order]
    bounds = np.flatnonzero(np.diff(codes)) + 1
    rows = [{"name": trace.names[int(group_codes[0])], "total_us": float(group.sum()), **kernels.stats(group)}
            for group_codes, group in zip(np.split(codes, bounds), np.split(durations, bounds), strict=True)
            if len(group)]
    rows.sort(key=lambda row: (-row["total_us"], row["name"]))
    return rows[:limit]


def tied_trace(names=60):
    """Kernels whose totals tie in threes (in another order of names than the trace's), with durations whose
    sums round, and a few of one name spread through the trace."""
    rng = np.random.default_rng(7)
    events = []
    for index in range(names):
        total = float(names // 3 - index // 3)  # names 0, 1 and 2 tie, then 3, 4 and 5, …
        parts = [total / 3 + 0.1, total / 3 - 0.1, total / 3] if index % 2 else [total]
        events += [gpu(f"kernel_{(index * 37) % names:03d}", 0, dur) for dur in parts]
    events += [gpu("spread", 0, float(dur)) for dur in rng.uniform(0.01, 0.02, 40)]
    rng.shuffle(events)
    for ts, e in enumerate(events):
        e["ts"] = ts * 10.0
    return make(*events)


@pytest.mark.parametrize("limit", [None, 0, 1, 2, 3, 5, 10, 59, 60, 61, 100])
def test_the_rows_are_those_of_ranking_every_name(limit):
    trace = tied_trace()
    selected = trace.kind == KIND["kernel"]
    assert kernels.kernel_rows(trace, selected, limit) == every_name_ranked(trace, selected, limit)


def test_no_selected_event_is_no_row():
    trace = tied_trace(6)
    assert kernels.kernel_rows(trace, trace.kind == KIND["memcpy"], 5) == []
    assert kernels.grouped(trace, trace.kind == KIND["memcpy"]) == {}


def test_grouped_holds_each_name_s_durations_in_trace_order():
    trace = make(gpu("b", 0, 3), gpu("a", 10, 1), gpu("b", 20, 2), gpu("a", 30, 4))
    groups = kernels.grouped(trace, trace.kind == KIND["kernel"])
    assert {name: durations.tolist() for name, durations in groups.items()} == {"a": [1, 4], "b": [3, 2]}


@pytest.mark.parametrize("limit", [1, 5, 10])
def test_statistics_are_computed_only_for_the_names_shown(monkeypatch, limit):
    """Percentiles of 2,000 names where ``limit`` are shown is the slow path (52 s for 200,000 names)."""
    trace = make(*[gpu(f"k{index}", index * 10.0, 1.0 + index % 997) for index in range(2000)])
    computed = []

    def counted(values):
        computed.append(len(values))
        return stats(values)

    stats = kernels.stats
    monkeypatch.setattr(kernels, "stats", counted)
    rows = kernels.top_kernels(trace, limit=limit)
    assert len(rows) == limit and len(computed) == limit
    largest = sorted((1.0 + index % 997 for index in range(2000)), reverse=True)[:limit]
    assert [row["total_us"] for row in rows] == largest
