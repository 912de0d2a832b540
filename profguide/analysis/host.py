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
"""

import numpy as np

from profguide.analysis.intervals import covered, merge
from profguide.analysis.select import SYNC_CALLS, kinds_mask
from profguide.trace.model import KIND

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
OUTSIDE = "outside any op"  # the label of time the launching thread spent in no recorded event


def own_activity(name, kind):
    """The activity an event's own name and kind say, before the events around it are looked at."""
    if name in SYNC_CALLS or name in SYNC_OPS:
        return "sync"
    if "DataLoader" in name:
        return "data loading"
    if name.startswith("Optimizer."):
        return "optimizer"
    if name.startswith("autograd::engine::evaluate_function") or "Backward" in name:
        return "backward"
    if kind == KIND["annotation"]:
        # A ProfilerStep encloses the whole step: time in it and in no other event is unrecorded Python.
        return "python" if name.startswith("ProfilerStep#") else "region"
    if kind == KIND["python"]:
        return "python"
    return "ops"


def classify(trace, events):
    """For events of one lane in trace order: each one's parent (index into ``events``, -1 for none), its
    activity, and its label (the event that named the activity: the DataLoader region, the sync's op)."""
    parents = np.full(len(events), -1)
    activities, labels, open_events = [], [], []
    starts, ends = trace.ts[events].tolist(), trace.end[events].tolist()
    names = [trace.names[code] for code in trace.name[events].tolist()]
    for position, (start, name, kind) in enumerate(zip(starts, names, trace.kind[events].tolist(), strict=True)):
        while open_events and ends[open_events[-1]] <= start:
            open_events.pop()
        parent = open_events[-1] if open_events else -1
        parents[position] = parent
        own = own_activity(name, kind)
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


def lane_activity(trace, lane, gaps):
    """Idle time of ``gaps`` (merged starts, ends) spent in each activity on one host lane:
    {activity: {label: µs}}."""
    events = np.flatnonzero((trace.lane == lane) & kinds_mask(trace, HOST_EVENT_KINDS))
    overlap = covered(gaps, trace.ts[events], trace.end[events])
    events, overlap = events[overlap > 0], overlap[overlap > 0]
    parents, activities, labels = classify(trace, events)
    inside_children = np.zeros(len(events))
    np.add.at(inside_children, parents[parents >= 0], overlap[parents >= 0])
    own_time = overlap - inside_children
    spent = {}
    for activity, label, microseconds in zip(activities, labels, own_time.tolist(), strict=True):
        if microseconds > 0:
            by_label = spent.setdefault(activity, {})
            by_label[label] = by_label.get(label, 0.0) + microseconds
    outside = float((gaps[1] - gaps[0]).sum() - overlap[parents < 0].sum())
    if outside > 0:
        spent.setdefault("python", {})[OUTSIDE] = outside
    return spent


def idle_by_activity(trace, gap_starts, gap_ends, launching_lanes):
    """Idle time by host activity, over the gaps each lane's late launch ended.

    Returns {activity: {"idle_us", "meaning", "top": [(label, µs), …]}}, every
    activity present, most time first in ``top``.
    """
    totals = {activity: {} for activity in ACTIVITIES}
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
            "top": sorted(([label, us] for label, us in by_label.items()), key=lambda item: -item[1])[:3],
        }
        for activity, by_label in totals.items()
    }
