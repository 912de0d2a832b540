"""What the host was doing while the GPU waited for it.

For each idle gap that ended with an op launched late, the launching thread
was somewhere during the gap: inside a ``DataLoader``'s ``__next__``, the
optimizer step, a synchronisation, the backward pass, an op that was
launching kernels, a ``record_function`` region between ops, or nowhere the
profiler recorded (Python outside any op). Each microsecond of the gap goes
to the innermost event that covers it on that thread, and the event's
activity comes from its own name and those of the events around it: an op
inside a ``DataLoader`` region is loading data, a ``cudaStreamSynchronize``
inside ``aten::item`` inside the optimizer step is a sync by ``aten::item``.

A trace without GPU work has no idle gaps to explain: there the host's time
is the run's time, and ``host_breakdown`` splits each ProfilerStep on the
thread that runs them by the same activities.
"""

import numpy as np

from profguide.analysis.intervals import Floats, Intervals, Window, covered, merge, union_length
from profguide.analysis.select import SYNC_CALLS, Indices, kinds_mask, names_where, profiler_steps
from profguide.analysis.summary import HostBreakdown, HostWindow, IdleActivity, OtherThread
from profguide.patterns import STEP
from profguide.text import printable
from profguide.trace.model import KIND, Trace

ACTIVITIES = {
    "data loading": "loading data (a DataLoader's __next__)",
    "sync": "blocked in a synchronisation",
    "optimizer": "in the optimizer step",
    "backward": "in the backward pass",
    "ops": "running ops and launching their kernels",
    "region": "in a record_function region, between ops",
    "python": "in Python outside any recorded op",
}
# Activities an event passes on to everything inside it, strongest first: a sync inside the optimizer
# step is a sync, an op inside a DataLoader's __next__ is data loading.
INHERITED = ("sync", "data loading", "optimizer", "backward")
SYNC_OPS = frozenset({"aten::item", "aten::_local_scalar_dense", "aten::nonzero", "aten::is_nonzero", "aten::equal",
                      "cudaMemcpy", "hipMemcpy"})
HOST_EVENT_KINDS = ("cpu_op", "annotation", "runtime", "driver", "python")
Span = tuple[str, float, float]  # (label, start µs, end µs) of a stretch of host time to split
OUTSIDE = "outside any op"  # the label of time the launching thread spent in no recorded event
# Without a GPU nothing waits for a device (``aten::item`` only reads a number), and ops do the work itself.
CPU_ACTIVITIES = {
    "data loading": "loading data (a DataLoader's __next__)",
    "ops": "running ops outside backward and the optimizer (the forward pass, the loss)",
    "backward": "in the backward pass",
    "optimizer": "in the optimizer (step, zero_grad)",
    "region": "in a record_function region, between ops",
    "python": "in Python outside any recorded op",
}
CPU_LABELS = {"data loading": "loading data", "ops": "forward and other ops", "backward": "backward",
              "optimizer": "optimizer", "region": "in regions, between ops", "python": "Python outside ops"}


def own_activity(name: str, kind: int, device_syncs: bool = True) -> str:
    """The activity an event's own name and kind say, before the events around it are looked at.

    ``device_syncs=False`` for a trace without GPU work, where no call waits for a device.
    """
    if device_syncs and (name in SYNC_CALLS or name in SYNC_OPS):
        return "sync"
    if "DataLoader" in name:
        return "data loading"
    if name.startswith("Optimizer."):
        return "optimizer"
    if name.startswith("autograd::engine::evaluate_function") or "Backward" in name:
        return "backward"
    if kind == KIND["annotation"]:
        # A ProfilerStep encloses the whole step: time in it and in no other event is unrecorded Python.
        return "python" if STEP.match(name) else "region"
    if kind == KIND["python"]:
        return "python"
    return "ops"


def classify(trace: Trace, events: Indices, device_syncs: bool = True) -> tuple[Indices, list[str], list[str]]:
    """For events of one lane in trace order: each one's parent (index into ``events``, -1 for none), its
    activity, and its label (the event that named the activity: the DataLoader region, the sync's op)."""
    parents = np.full(len(events), -1)
    activities, labels, open_events = list[str](), list[str](), list[int]()
    starts, ends = trace.ts[events].tolist(), trace.end[events].tolist()
    names = [trace.names[code] for code in trace.name[events].tolist()]
    for position, (start, name, kind) in enumerate(zip(starts, names, trace.kind[events].tolist(), strict=True)):
        while open_events and ends[open_events[-1]] <= start:
            open_events.pop()
        parent = open_events[-1] if open_events else -1
        parents[position] = parent
        own = own_activity(name, kind, device_syncs)
        inherited = activities[parent] if parent >= 0 and activities[parent] in INHERITED else None
        if own in INHERITED and (inherited is None or INHERITED.index(own) < INHERITED.index(inherited)):
            activity, label = own, name
        elif inherited is not None:
            activity, label = inherited, labels[parent]
        else:
            activity, label = own, OUTSIDE if kind == KIND["annotation"] and own == "python" else name
        activities.append(activity)
        labels.append(label)
        open_events.append(position)
    return parents, activities, labels


def lane_events(trace: Trace, lane: int) -> Indices:
    """Indices of one lane's host events, in trace order."""
    return np.flatnonzero((trace.lane == lane) & kinds_mask(trace, HOST_EVENT_KINDS))


def time_by_activity(parents: Indices, activities: list[str], labels: list[str], overlap: Floats,
                     length: float) -> dict[str, dict[str, float]]:
    """{activity: {label: µs}} over intervals of total ``length``, from each classified event's ``overlap``
    with them: an event gets its overlap less its children's, and time in no event is Python's."""
    nested = parents >= 0
    own_time = overlap - np.bincount(parents[nested], weights=overlap[nested], minlength=len(overlap))
    spent: dict[str, dict[str, float]] = {}
    for index in np.flatnonzero(own_time > 0).tolist():  # a window holds few of a long trace's events
        by_label = spent.setdefault(activities[index], {})
        by_label[labels[index]] = by_label.get(labels[index], 0.0) + float(own_time[index])
    outside = float(length - overlap[parents < 0].sum())
    if outside > 0:
        spent.setdefault("python", {})[OUTSIDE] = outside
    return spent


def lane_activity(trace: Trace, lane: int, gaps: Intervals) -> dict[str, dict[str, float]]:
    """Idle time of ``gaps`` (merged starts, ends) spent in each activity on one host lane:
    {activity: {label: µs}}."""
    events = lane_events(trace, lane)
    overlap = covered(gaps, trace.ts[events], trace.end[events])
    events, overlap = events[overlap > 0], overlap[overlap > 0]
    parents, activities, labels = classify(trace, events)
    return time_by_activity(parents, activities, labels, overlap, (gaps[1] - gaps[0]).sum())


def idle_by_activity(trace: Trace, gap_starts: Floats, gap_ends: Floats,
                     launching_lanes: Indices) -> dict[str, IdleActivity]:
    """Idle time by host activity, over the gaps each lane's late launch ended.

    Returns {activity: {"idle_us", "meaning", "top": [(label, µs), …]}}, every
    activity present, most time first in ``top``.
    """
    totals: dict[str, dict[str, float]] = {activity: {} for activity in ACTIVITIES}
    for lane in np.unique(launching_lanes[launching_lanes >= 0]):
        mine = launching_lanes == lane
        gaps = merge(gap_starts[mine], gap_ends[mine])
        for activity, by_label in lane_activity(trace, lane, gaps).items():
            for label, microseconds in by_label.items():
                totals[activity][label] = totals[activity].get(label, 0.0) + microseconds
    return {
        activity: {
            "idle_us": float(sum(by_label.values())),
            "meaning": ACTIVITIES[activity],
            "top": most_time(by_label),
        }
        for activity, by_label in totals.items()
    }


def most_time(by_label: dict[str, float], limit: int = 3) -> list[tuple[str, float]]:
    """The (label, µs) that took the most time, most first."""
    return sorted(by_label.items(), key=lambda item: -item[1])[:limit]


def main_lane(trace: Trace) -> int | None:
    """The host lane that runs the loop: the first ProfilerStep's, else the one with the most time in events."""
    steps = np.flatnonzero(kinds_mask(trace, ("annotation",)) & names_where(trace, STEP.match))
    if len(steps):
        return int(trace.lane[steps[np.argmin(trace.ts[steps])]])
    host = kinds_mask(trace, HOST_EVENT_KINDS)
    if not host.any():
        return None
    lanes = np.unique(trace.lane[host])
    return int(max(lanes, key=lambda lane: union_length(trace.ts[host & (trace.lane == lane)],
                                                        trace.end[host & (trace.lane == lane)])))


def host_windows(trace: Trace, lane: int, window: Window | None = None) -> list[Span]:
    """(label, start, end) of what to break down: each ProfilerStep inside ``window`` (every one by default),
    else ``window`` itself, else the lane's first event to its last."""
    inside = window or (-np.inf, np.inf)
    steps = [(f"ProfilerStep#{step['step']}", step["start_us"], step["start_us"] + step["dur_us"])
             for step in profiler_steps(trace)
             if inside[0] <= step["start_us"] and step["start_us"] + step["dur_us"] <= inside[1]]
    if steps:
        return steps
    if window:
        return [("window", *window)]
    events = lane_events(trace, lane)
    return [("trace", float(trace.ts[events].min()), float(trace.end[events].max()))]


def other_threads(trace: Trace, lane: int, windows: list[Span], limit: int = 3) -> list[OtherThread]:
    """The other host lanes busy during the windows: [{"thread", "busy_us", "top"}], busiest first."""
    merged = windows_union(windows)
    host = kinds_mask(trace, HOST_EVENT_KINDS)
    rows: list[OtherThread] = []
    for other in np.unique(trace.lane[host & (trace.lane != lane)]).tolist():
        events = np.flatnonzero(host & (trace.lane == other))
        inside = covered(merged, trace.ts[events], trace.end[events])
        busy = float(covered(merged, *merge(trace.ts[events], trace.end[events])).sum())
        if busy > 0:
            names = trace.name[events]
            top = max(np.unique(names).tolist(), key=lambda code: inside[names == code].sum())
            rows.append({"thread": lane_label(trace, other), "busy_us": busy, "top": trace.names[top]})
    return sorted(rows, key=lambda row: -row["busy_us"])[:limit]


def windows_union(windows: list[Span]) -> Intervals:
    """(label, start, end) windows as merged (starts, ends)."""
    return merge(np.array([w[1] for w in windows], dtype=float), np.array([w[2] for w in windows], dtype=float))


def lane_label(trace: Trace, lane: int) -> str:
    pid, tid = trace.lanes[lane]
    return printable(f"{pid}/{tid}")


def host_breakdown(trace: Trace, window: Window | None = None) -> HostBreakdown | None:
    """Where the host's time went, for a trace without GPU work: each ProfilerStep (inside ``window``, or
    ``window`` itself, or the whole trace when it has no step) on the thread that runs them, by activity.

    Returns None when the trace has no host events; else {"thread", "windows": [{"label", "start_us",
    "dur_us", "by_activity_us"}], "dur_us", "by_activity": {activity: {"us", "meaning", "top"}},
    "other_threads"}, every activity of CPU_ACTIVITIES present.
    """
    lane = main_lane(trace)
    if lane is None:
        return None
    windows = host_windows(trace, lane, window)
    events = lane_events(trace, lane)
    overlap = covered(windows_union(windows), trace.ts[events], trace.end[events])
    events = events[overlap > 0]
    parents, activities, labels = classify(trace, events, device_syncs=False)
    starts, ends = trace.ts[events], trace.end[events]
    rows: list[HostWindow] = []
    totals: dict[str, dict[str, float]] = {activity: {} for activity in CPU_ACTIVITIES}
    for label, start, end in windows:
        inside = np.clip(np.minimum(ends, end) - np.maximum(starts, start), 0, None)
        spent = time_by_activity(parents, activities, labels, inside, end - start)
        rows.append({"label": label, "start_us": start, "dur_us": end - start,
                     "by_activity_us": {activity: float(sum(spent.get(activity, {}).values()))
                                        for activity in CPU_ACTIVITIES}})
        for activity, by_label in spent.items():
            for name, microseconds in by_label.items():
                totals[activity][name] = totals[activity].get(name, 0.0) + microseconds
    return {
        "thread": lane_label(trace, lane),
        "windows": rows,
        "dur_us": float(sum(row["dur_us"] for row in rows)),
        "by_activity": {
            activity: {"us": float(sum(by_label.values())), "meaning": CPU_ACTIVITIES[activity],
                       "top": most_time(by_label)}
            for activity, by_label in totals.items()
        },
        "other_threads": other_threads(trace, lane, windows),
    }
