"""What the host was doing while the GPU waited for it.

For each idle gap that ended with an op launched late, the launching thread
was somewhere during the gap: inside a ``DataLoader``'s ``__next__``, the
optimizer step, a synchronisation, the backward pass, an op that was
launching kernels, a ``record_function`` region between ops, or nowhere the
profiler recorded (Python outside any op). Each microsecond of the gap goes
to exactly one event, the innermost one that covers it on that thread, or to
"outside any op"; so the activities add up to the gaps. The innermost event
at a time is the most recently started of the events still open then (of two
that start together, the shorter): events on a thread need not nest, since a
``record_function`` region starts inside its ``_record_function_enter_new``
frame and outlives it, and then the region owns its time until it ends.

An event's activity comes from its own name and those of the events around
it, its parent being the innermost event at its start: an op inside a
``DataLoader`` region or a Python frame of ``torch/utils/data/`` is loading
data, a ``cudaStreamSynchronize`` inside ``aten::item`` inside the optimizer
step is a sync by ``aten::item``. Python time (``with_stack=True`` frames,
and time in a step but in no other event) is named after the innermost
enclosing frame of a file outside torch, ``train.py(42): step``, as torch's
pattern matcher places an event (``source_code_location``, which walks up to
the first frame whose file is not under ``torch/``; here the frame's own file,
not its caller's line).

A trace without GPU work has no idle gaps to explain: there the host's time
is the run's time, and ``host_breakdown`` splits each ProfilerStep on the
thread that runs them by the same activities.
"""

import math
import re

import numpy as np

from profguide.analysis.intervals import Floats, Intervals, Window, covered, merge, union_length
from profguide.analysis.select import (
    STEP_KINDS,
    Indices,
    host_waits,
    kinds_mask,
    names_where,
    profiler_steps,
    waits_for_device,
)
from profguide.analysis.summary import HostBreakdown, HostWindow, IdleActivity, OtherThread
from profguide.analysis.vocabulary import Activity, CpuActivity
from profguide.patterns import DEVICE_SETUP_CALL, STEP
from profguide.text import printable
from profguide.trace.model import KIND, Trace

ACTIVITIES: dict[Activity, str] = {
    "data loading": "loading data (a DataLoader's __next__)",
    "sync": "blocked in a synchronisation",
    "optimizer": "in the optimizer step",
    "backward": "in the backward pass",
    "ops": "running ops and launching their kernels",
    "compiled": "running a compiled graph's generated code (Inductor's wrapper), which launches its kernels",
    "region": "in a record_function region, between ops",
    "python": "in Python outside any recorded op",
    "setup": "setting up the device (cudaFree, cudaMalloc, module loading, library handles)",
}
# Activities an event passes on to everything inside it, strongest first: a sync inside the optimizer
# step is a sync, an op inside a DataLoader's __next__ is data loading, a launch inside a compiled graph's
# wrapper is that graph's, in the backward pass too.
INHERITED = ("sync", "data loading", "optimizer", "compiled", "backward")
SYNC_OPS = frozenset({"aten::item", "aten::_local_scalar_dense", "aten::nonzero", "aten::is_nonzero", "aten::equal"})
HOST_EVENT_KINDS = ("cpu_op", "annotation", "runtime", "driver", "python")
Span = tuple[str, float, float]  # (label, start µs, end µs) of a stretch of host time to split
Segments = tuple[Indices, Floats, Floats]  # (event, start, end) of each stretch an event is the innermost
OUTSIDE = "outside any op"  # the label of time the launching thread spent in no recorded event
# How with_stack=True names a Python frame (python_function): ``path/to/file.py(line): function``.
PYTHON_FRAME = re.compile(r"(?P<file>.+)\(\d+\): ")
TORCH_FILE = re.compile(r"^torch[/\\]|[/\\](?:site|dist)-packages[/\\]torch[/\\]")
DATA_PIPELINE_FILE = re.compile(r"(?:^|[/\\])torch[/\\]utils[/\\]data[/\\]")
# Inductor writes each compiled graph's wrapper (its ``call`` launches the graph's kernels) to its cache
# directory, ``/tmp/torchinductor_<user>/`` by default (torch/_inductor/runtime/cache_dir_utils.py).
INDUCTOR_FILE = re.compile(r"(?:^|[/\\])torchinductor_[^/\\]*[/\\]")
# Without a GPU nothing waits for a device (``aten::item`` only reads a number), and ops do the work itself.
CPU_ACTIVITIES: dict[CpuActivity, str] = {
    "data loading": "loading data (a DataLoader's __next__)",
    "ops": "running ops outside backward and the optimizer (the forward pass, the loss)",
    "backward": "in the backward pass",
    "optimizer": "in the optimizer (step, zero_grad)",
    "region": "in a record_function region, between ops",
    "python": "in Python outside any recorded op",
}
CPU_LABELS = {"data loading": "loading data", "ops": "forward and other ops", "backward": "backward",
              "optimizer": "optimizer", "region": "in regions, between ops", "python": "Python outside ops"}


def own_activity(name: str, kind: int, device_syncs: bool = True, waits: bool | None = None) -> str:
    """The activity an event's own name and kind say, before the events around it are looked at.

    ``device_syncs=False`` for a trace without GPU work, where no call waits for a device. ``waits`` says whether
    the event is a call the host waits in (``select.host_waits``, which reads the copy a copy call made); None
    judges by the name alone (``select.waits_for_device``).
    """
    if device_syncs and ((waits_for_device(name) if waits is None else waits) or name in SYNC_OPS):
        return "sync"
    if device_syncs and kind in (KIND["runtime"], KIND["driver"]) and DEVICE_SETUP_CALL.match(name):
        return "setup"
    if "DataLoader" in name or (kind == KIND["python"] and DATA_PIPELINE_FILE.search(name)):
        return "data loading"
    if kind == KIND["python"] and INDUCTOR_FILE.search(name):
        # Without a GPU the wrapper runs the compiled kernels itself: ops, as the forward pass's are.
        return "compiled" if device_syncs else "ops"
    if name.startswith("Optimizer."):
        return "optimizer"
    if name.startswith("autograd::engine::evaluate_function") or "Backward" in name:
        return "backward"
    if STEP.match(name):
        # A ProfilerStep encloses the whole step: time in it and in no other event is unrecorded Python.
        return "python"
    if kind == KIND["annotation"]:
        return "region"
    if kind == KIND["python"]:
        return "python"
    return "ops"


def user_frame(name: str) -> bool:
    """Whether a Python frame's name is one of a file outside torch (``train.py(42): step``): not
    ``torch/…`` or ``…/site-packages/torch/…``, not a built-in or frozen module (``<built-in method …>``,
    ``<frozen os>(674): …``), and not Inductor's generated code, which are no file of the user's."""
    frame = PYTHON_FRAME.match(name)
    return (frame is not None and not frame["file"].startswith("<") and TORCH_FILE.search(frame["file"]) is None
            and INDUCTOR_FILE.search(frame["file"]) is None)


def classify(trace: Trace, events: Indices, parents: list[int],
             device_syncs: bool = True) -> tuple[list[tuple[str, str]], Indices]:
    """For events of one lane in trace order, with their ``parents`` (from ``nesting``): the distinct
    (activity, label) pairs, and each event's pair (an index into them). The label is the event that named
    the activity: the DataLoader region, the sync's op; for Python time the innermost user frame around it."""
    activities, labels, frames = list[str](), list[str](), list[str | None]()
    # (name, kind, whether the host waits in it) → (own activity, is a user frame)
    known: dict[tuple[int, int, bool], tuple[str, bool]] = {}
    waiting = host_waits(trace)[events].tolist() if device_syncs else [False] * len(events)
    for parent, code, kind, waits in zip(parents, trace.name[events].tolist(), trace.kind[events].tolist(), waiting,
                                         strict=True):
        name = trace.names[code]
        if (code, kind, waits) not in known:
            known[code, kind, waits] = (own_activity(name, kind, device_syncs, waits),
                                        kind == KIND["python"] and user_frame(name))
        own, is_user_frame = known[code, kind, waits]
        frame = name if is_user_frame else (frames[parent] if parent >= 0 else None)
        inherited = activities[parent] if parent >= 0 and activities[parent] in INHERITED else None
        if own in INHERITED and (inherited is None or INHERITED.index(own) < INHERITED.index(inherited)):
            activity, label = own, name
        elif inherited is not None:
            activity, label = inherited, labels[parent]
        elif own == "python":
            activity, label = own, frame or (name if kind == KIND["python"] else OUTSIDE)
        else:
            activity, label = own, name
        activities.append(activity)
        labels.append(label)
        frames.append(frame)
    pairs: dict[tuple[str, str], int] = {}
    pair_of = [pairs.setdefault(pair, len(pairs)) for pair in zip(activities, labels, strict=True)]
    return list(pairs), np.array(pair_of, dtype=np.intp)


def nesting(starts: Floats, ends: Floats) -> tuple[list[int], Segments]:
    """For the events of one lane (sorted by start, then longest first): each one's parent, the innermost
    event at its start (-1 for none), and the stretches of time in which each event is the innermost:
    (event, start, end) arrays, in time order, disjoint, covering the events' union.

    The innermost event is the most recently started of those still open, so an event that outlives the one
    it started in owns its time to its end; an event below it that ends first owns nothing more.
    """
    parents, owners, segment_starts, segment_ends = list[int](), list[int](), list[float](), list[float]()
    ends_list = ends.tolist()
    open_events = list[int]()  # in order of start; the ones that ended are dropped when they come to the top
    done = -math.inf  # time up to which every stretch is handed out
    # A last start at infinity closes every event still open (and opens nothing that is handed out).
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
    return parents[:-1], (np.array(owners, dtype=np.intp), np.array(segment_starts), np.array(segment_ends))


def lane_events(trace: Trace, lane: int) -> Indices:
    """Indices of one lane's host events, in trace order."""
    return np.flatnonzero((trace.lane == lane) & kinds_mask(trace, HOST_EVENT_KINDS))


def time_by_activity(pairs: list[tuple[str, str]], pair_of: Indices, owners: Indices, owned: Floats,
                     length: float) -> dict[str, dict[str, float]]:
    """{activity: {label: µs}} over intervals of total ``length``, from the classified events' (activity,
    label) ``pairs`` and each event's pair, and their stretches as the innermost event (``owners``, each owning
    ``owned`` µs of the intervals): the rest is time in no event."""
    totals = np.bincount(pair_of[owners], weights=owned, minlength=len(pairs))
    spent: dict[str, dict[str, float]] = {}
    for (activity, label), microseconds in zip(pairs, totals.tolist(), strict=True):
        if microseconds > 0:
            spent.setdefault(activity, {})[label] = microseconds
    outside = float(length - owned.sum())
    if outside > 0:
        by_label = spent.setdefault("python", {})
        by_label[OUTSIDE] = by_label.get(OUTSIDE, 0.0) + outside
    return spent


def lane_activity(trace: Trace, lane: int, gaps: Intervals) -> dict[str, dict[str, float]]:
    """Idle time of ``gaps`` (merged starts, ends) spent in each activity on one host lane:
    {activity: {label: µs}}."""
    events = lane_events(trace, lane)
    events = events[covered(gaps, trace.ts[events], trace.end[events]) > 0]  # only these can own idle time
    parents, (owners, starts, ends) = nesting(trace.ts[events], trace.end[events])
    pairs, pair_of = classify(trace, events, parents)
    return time_by_activity(pairs, pair_of, owners, covered(gaps, starts, ends), (gaps[1] - gaps[0]).sum())


def idle_by_activity(trace: Trace, gap_starts: Floats, gap_ends: Floats,
                     launching_lanes: Indices) -> dict[Activity, IdleActivity]:
    """Idle time by host activity, over the gaps each lane's late launch ended.

    Returns {activity: {"idle_us", "meaning", "top": [(label, µs), …]}}, every
    activity present, most time first in ``top``.
    """
    totals: dict[Activity, dict[str, float]] = {activity: {} for activity in ACTIVITIES}
    for lane in np.unique(launching_lanes[launching_lanes >= 0]):
        mine = launching_lanes == lane
        spent = lane_activity(trace, lane, merge(gap_starts[mine], gap_ends[mine]))
        for activity, total in totals.items():
            for label, microseconds in spent.get(activity, {}).items():
                total[label] = total.get(label, 0.0) + microseconds
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
    steps = np.flatnonzero(kinds_mask(trace, STEP_KINDS) & names_where(trace, STEP.match))
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


def segments_inside(segments: Segments, start: float, end: float) -> tuple[Indices, Floats]:
    """The owners of the (time-ordered) segments that overlap [start, end], and the µs of each inside it."""
    owners, starts, ends = segments
    first, last = np.searchsorted(ends, start, side="right"), np.searchsorted(starts, end, side="left")
    return owners[first:last], np.minimum(ends[first:last], end) - np.maximum(starts[first:last], start)


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
    parents, segments = nesting(trace.ts[events], trace.end[events])
    pairs, pair_of = classify(trace, events, parents, device_syncs=False)
    rows: list[HostWindow] = []
    totals: dict[CpuActivity, dict[str, float]] = {activity: {} for activity in CPU_ACTIVITIES}
    for label, start, end in windows:
        spent = time_by_activity(pairs, pair_of, *segments_inside(segments, start, end), end - start)
        rows.append({"label": label, "start_us": start, "dur_us": end - start,
                     "by_activity_us": {activity: float(sum(spent.get(activity, {}).values()))
                                        for activity in CPU_ACTIVITIES}})
        for activity, total in totals.items():  # a trace without GPU work has no other activity
            for name, microseconds in spent.get(activity, {}).items():
                total[name] = total.get(name, 0.0) + microseconds
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
