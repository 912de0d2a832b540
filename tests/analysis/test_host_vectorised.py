"""host.nesting and host.classify, vectorised, give what the stack walk they replace gave, event by event: on
every host lane of every real trace, and on random lanes whose events need not nest."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from profguide.analysis import host
from profguide.analysis.select import host_waits
from profguide.trace.model import KIND
from tests.helpers import TRACES, event, make_trace


def reference_nesting(starts, ends):
    """The stack walk host.nesting was: each event's parent, and (owner, start, end) of each stretch."""
    parents, owners, segment_starts, segment_ends = [], [], [], []
    ends_list = ends.tolist()
    open_events = []
    done = -math.inf
    for index, start in enumerate([*starts.tolist(), math.inf]):
        while open_events and ends_list[open_events[-1]] <= start:
            ended = open_events.pop()
            if ends_list[ended] > done:
                owners.append(ended)
                segment_starts.append(done)
                done = ends_list[ended]
                segment_ends.append(done)
        if open_events and start > done:
            owners.append(open_events[-1])
            segment_starts.append(done)
            segment_ends.append(start)
        parents.append(open_events[-1] if open_events else -1)
        done = start
        open_events.append(index)
    return parents[:-1], (owners, segment_starts, segment_ends)


def reference_classify(trace, events, parents, device_syncs=True):
    """The loop host.classify was: one event at a time, each after its parent."""
    activities, labels, frames = [], [], []
    waiting = host_waits(trace)[events].tolist() if device_syncs else [False] * len(events)
    for parent, code, kind, waits in zip(parents, trace.name[events].tolist(), trace.kind[events].tolist(), waiting,
                                         strict=True):
        name = trace.names[code]
        own = host.own_activity(name, kind, device_syncs, waits)
        frame = name if kind == KIND["python"] and host.user_frame(name) else (frames[parent] if parent >= 0 else None)
        inherited = activities[parent] if parent >= 0 and activities[parent] in host.INHERITED else None
        if own in host.INHERITED and (inherited is None or host.INHERITED.index(own) < host.INHERITED.index(inherited)):
            activity, label = own, name
        elif inherited is not None:
            activity, label = inherited, labels[parent]
        elif own == "python":
            activity, label = own, frame or (name if kind == KIND["python"] else host.OUTSIDE)
        else:
            activity, label = own, name
        activities.append(activity)
        labels.append(label)
        frames.append(frame)
    pairs = {}
    pair_of = [pairs.setdefault(pair, len(pairs)) for pair in zip(activities, labels, strict=True)]
    return list(pairs), pair_of


def stretches(owners, starts, ends):
    """(owner, start, end) with neighbours of one owner that touch joined: one answer, however it was cut."""
    joined = []
    for owner, start, end in zip(list(owners), list(starts), list(ends), strict=True):
        if joined and joined[-1][0] == owner and joined[-1][2] == start:
            joined[-1] = (owner, joined[-1][1], end)
        else:
            joined.append((int(owner), float(start), float(end)))
    return joined


def same_as_reference(trace, events, device_syncs=True):
    starts, ends = trace.ts[events], trace.end[events]
    parents, segments = host.nesting(starts, ends)
    expected_parents, expected_segments = reference_nesting(starts, ends)
    assert parents.tolist() == expected_parents
    assert stretches(*segments) == stretches(*expected_segments)
    pairs, pair_of = host.classify(trace, events, parents, device_syncs)
    assert (pairs, pair_of.tolist()) == reference_classify(trace, events, expected_parents, device_syncs)


@pytest.mark.parametrize("path", sorted(TRACES.glob("*.json.gz")), ids=lambda path: path.name)
def test_every_host_lane_of_every_real_trace_is_nested_and_classified_as_before(real_trace, path):
    loaded = real_trace(path.name)
    host_events = host.kinds_mask(loaded, host.HOST_EVENT_KINDS)
    lanes = np.unique(loaded.lane[host_events])
    assert len(lanes)
    for lane in lanes.tolist():
        same_as_reference(loaded, host.lane_events(loaded, lane), device_syncs=bool(len(loaded.ts)))


NAMES = ["ProfilerStep#1", "aten::add", "aten::item", "cudaStreamSynchronize", "Optimizer.step#SGD.step",
         "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "autograd::engine::evaluate_function: X",
         "train.py(3): step", "torch/nn/modules/module.py(1): _call_impl", "region", host.OUTSIDE]
KINDS = ["cpu_op", "python", "annotation", "runtime"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 30), st.sampled_from(NAMES), st.sampled_from(KINDS)),
                min_size=1, max_size=60), st.booleans())
def test_random_lanes_whose_events_need_not_nest_are_as_before(spans, device_syncs):
    loaded = make_trace(*(event(name, float(start), float(length), kind=kind) for start, length, name, kind in spans))
    same_as_reference(loaded, host.lane_events(loaded, 0), device_syncs)


def test_a_hundred_thousand_levels_of_nesting_take_a_few_rounds_each():
    count = 100_000
    starts, ends = np.arange(count, dtype=float), 2.0 * count - np.arange(count)
    parents, (owners, _, _) = host.nesting(starts, ends)
    assert parents.tolist() == list(range(-1, count - 1)) and len(owners) == 2 * count - 1
    assert host.path_min(parents, np.arange(count, dtype=np.int64)).tolist() == [0] * count  # the root is least


@pytest.mark.parametrize("path", ["a100_80gb_nccl_16rank_rank0.json.gz", "h100_qwen1.5_0.5b_inference.json.gz"])
def test_the_block_search_alone_gives_the_same_answer(real_trace, monkeypatch, path):
    # No jumps, no steps up the parents, blocks of 4: every query the jumps settle goes through the search.
    monkeypatch.setattr(host, "ROUNDS", 1)
    monkeypatch.setattr(host, "HOPS", 0)
    monkeypatch.setattr(host, "BLOCK", 4)
    loaded = real_trace(path)
    for lane in np.unique(loaded.lane[host.kinds_mask(loaded, host.HOST_EVENT_KINDS)]).tolist():
        same_as_reference(loaded, host.lane_events(loaded, lane))
