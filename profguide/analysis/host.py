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

import re

import numpy as np
import numpy.typing as npt

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


def classify(trace: Trace, events: Indices, parents: Indices,
             device_syncs: bool = True) -> tuple[list[tuple[str, str]], Indices]:
    """For events of one lane in trace order, with their ``parents`` (from ``nesting``): the distinct
    (activity, label) pairs, in the order the events first show them, and each event's pair (an index into
    them). The label is the event that named the activity: the DataLoader region, the sync's op; for Python
    time the innermost user frame around it.

    An event inherits the strongest activity of INHERITED along its chain of parents (of two as strong, the
    outer one, which named it first), with that event's name; else its own activity names it, Python time
    after the innermost user frame around it (itself included). Each event's own activity is worked out once
    per distinct (name, kind, waits), and the chains are walked for all events at once by pointer doubling.
    """
    count = len(events)
    codes, kinds = trace.name[events].astype(np.int64), trace.kind[events].astype(np.int64)
    waiting = host_waits(trace)[events] if device_syncs else np.zeros(count, bool)
    keys, key_of = np.unique((codes * len(KIND) + kinds) * 2 + waiting, return_inverse=True)
    owns = [(own_activity(trace.names[key // 2 // len(KIND)], key // 2 % len(KIND), device_syncs, bool(key % 2)),
             key // 2 % len(KIND) == KIND["python"] and user_frame(trace.names[key // 2 // len(KIND)]))
            for key in keys.tolist()]
    own = np.array([ACTIVITY_CODE[activity] for activity, _ in owns], np.int64)[key_of]
    is_user_frame = np.array([frame for _, frame in owns], bool)[key_of]
    order = np.arange(count, dtype=np.int64)
    # The innermost user frame around each event (itself included): the marked chain member of largest index.
    frame = -path_min(parents, np.where(is_user_frame, -order, NONE))
    strength = INHERITED_STRENGTH[own]
    inherited = path_min(parents, np.where(strength < len(INHERITED), strength * count + order, NONE))
    named_by = inherited % max(count, 1)  # the event whose name labels an inherited activity
    has_inherited = inherited < NONE
    python = own == ACTIVITY_CODE["python"]
    label = np.where(has_inherited, codes[named_by], codes)  # a name's code, or -1 for OUTSIDE
    python_label = np.where(frame >= 0, codes[np.maximum(frame, 0)],
                            np.where(kinds == KIND["python"], codes, -1))
    label = np.where(~has_inherited & python, python_label, label)
    activity = np.where(has_inherited, INHERITED_CODES[inherited // max(count, 1) % len(INHERITED_CODES)], own)
    return distinct_pairs(trace, activity, label)


ACTIVITY_NAMES = tuple(ACTIVITIES)
ACTIVITY_CODE: dict[str, int] = {activity: code for code, activity in enumerate(ACTIVITY_NAMES)}
INHERITED_CODES = np.array([ACTIVITY_CODE[activity] for activity in INHERITED], np.int64)
# Each activity's place in INHERITED (strongest first); len(INHERITED) for one that is not passed on.
INHERITED_STRENGTH = np.array([INHERITED.index(activity) if activity in INHERITED else len(INHERITED)
                               for activity in ACTIVITY_NAMES], np.int64)
NONE = np.iinfo(np.int64).max  # no event on the chain has the mark


def path_min(parents: Indices, values: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """For each event, the least of ``values`` over it and its chain of parents (``parents`` point to earlier
    events, -1 ends a chain): by pointer doubling, each round doubling the stretch of chain each event has
    seen, so rounds grow with the log of the deepest nesting."""
    best, jump = values.copy(), parents.astype(np.intp, copy=True)
    going = np.flatnonzero(jump >= 0)
    while len(going):
        above = jump[going]
        best[going] = np.minimum(best[going], best[above])  # both sides read before either is written
        jump[going] = jump[above]
        going = going[jump[going] >= 0]
    return best


def distinct_pairs(trace: Trace, activity: npt.NDArray[np.int64],
                   label: npt.NDArray[np.int64]) -> tuple[list[tuple[str, str]], Indices]:
    """The distinct (activity, label) pairs, in order of first appearance, and each event's index into them;
    ``label`` holds name codes, -1 for OUTSIDE. Pairs are told apart by their words: an event named like
    OUTSIDE shares its pair."""
    keys, first, key_of = np.unique(activity * (len(trace.names) + 1) + label + 1, return_index=True,
                                    return_inverse=True)
    shown_first = np.argsort(first, kind="stable")
    pairs: dict[tuple[str, str], int] = {}
    pair_of_key = np.empty(len(keys), np.intp)
    for rank in shown_first.tolist():
        code, name = divmod(int(keys[rank]), len(trace.names) + 1)
        words = (ACTIVITY_NAMES[code], trace.names[name - 1] if name else OUTSIDE)
        pair_of_key[rank] = pairs.setdefault(words, len(pairs))
    return list(pairs), pair_of_key[key_of]


def nesting(starts: Floats, ends: Floats) -> tuple[Indices, Segments]:
    """For the events of one lane (sorted by start, then longest first): each one's parent, the innermost
    event at its start (-1 for none), and the stretches of time in which each event is the innermost:
    (event, start, end) arrays, in time order, disjoint, covering the events' union, each as long as it can be.

    The innermost event at a time is the most recently started of those still open, so an event that outlives
    the one it started in owns its time to its end; an event below it that ends first owns nothing more. Both
    are the one query, for all events and all times where an event starts or ends at once: the last event
    started by then whose end is later (``last_above``). The innermost event at a time is the last one started
    or, when that has ended, one of its chain of parents: a few of them are tried before a search.
    """
    parents = parents_of(starts, ends)
    times = np.unique(np.concatenate([starts, ends]))
    owners = last_above(ends, np.searchsorted(starts, times[:-1], side="right") - 1, times[:-1], parents)
    owned = owners >= 0
    owners, firsts, lasts = owners[owned], times[:-1][owned], times[1:][owned]
    # One stretch for each run of an owner's time, however many events started or ended inside it.
    new_run = np.ones(len(owners), bool)
    new_run[1:] = (owners[1:] != owners[:-1]) | (firsts[1:] != lasts[:-1])
    runs = np.flatnonzero(new_run)
    run_ends = np.append(runs[1:], len(owners))[: len(runs)] - 1  # none, when no event owns any time
    return parents, (owners[runs], firsts[runs], lasts[run_ends])


ROUNDS = 32  # rounds of ``parents_of``'s jumps before the events still open search with ``last_above``


def parents_of(starts: Floats, ends: Floats) -> Indices:
    """Each event's parent: the last event before it whose end is later than its start (-1 for none).

    Each event starts from the one before it and jumps, each round, past events that ended before its start:
    to the parent of the one it tried, if known, else to where that one's own search has come (everything
    between ended before that one started, so before this one too). The jumps double as the searches feed
    each other; what ROUNDS do not settle (a long chain of events that all ended) ``last_above`` finds.
    """
    count = len(starts)
    parents = np.full(count, -1, np.intp)
    tried = np.arange(count) - 1
    settled = np.zeros(count, bool)
    open_ = np.arange(count)
    for _ in range(ROUNDS):
        candidate = tried[open_]
        found = candidate < 0
        found[~found] = ends[candidate[~found]] > starts[open_[~found]]
        parents[open_[found]], settled[open_[found]] = candidate[found], True
        open_, candidate = open_[~found], candidate[~found]
        if not len(open_):
            return parents
        tried[open_] = np.where(settled[candidate], parents[candidate], tried[candidate])
    parents[open_] = last_above(ends, tried[open_], starts[open_])
    return parents


BLOCK = 16  # values a query scans at once in ``last_above`` (measured: faster than 32 or 64 on a deep lane)
QUERIES = 1 << 15  # queries scanned at once: BLOCK × QUERIES values in memory
HOPS = 4  # steps up a chain of parents that ``last_above`` tries before it searches


def last_above(values: Floats, last: Indices, floors: Floats, chain: Indices | None = None) -> Indices:
    """For each query q, the largest index j ≤ ``last[q]`` with ``values[j] > floors[q]``; -1 for none.

    ``last[q]`` itself is tried first, then (with ``chain``) up to HOPS steps up it: ``chain[j]`` must be the
    largest index before j whose value is above every floor of a query that reaches j, as a parent is (those
    between ended before j started). Then the values are cut into blocks of BLOCK: a query scans the block
    its last index is in; failing that, the same query over the blocks' maxima (recursively, BLOCK times
    fewer) finds the last block before it that holds a larger value, and the query scans that block. Work and
    memory grow with the queries times BLOCK.
    """
    found = np.full(len(last), -1, np.intp)
    if not len(values):
        return found
    last = last.copy()
    rest = np.flatnonzero(last >= 0)
    for _ in range(1 + (HOPS if chain is not None else 0)):
        hit = values[last[rest]] > floors[rest]  # the common case: the last event is the one
        found[rest[hit]] = last[rest[hit]]
        rest = rest[~hit]
        if chain is None or not len(rest):
            break
        last[rest] = chain[last[rest]]
        rest = rest[last[rest] >= 0]
    blocks = np.full((-(-len(values) // BLOCK), BLOCK), -np.inf)
    blocks.reshape(-1)[: len(values)] = values
    columns = np.arange(BLOCK)
    missed = []
    for chunk in np.array_split(rest, -(-len(rest) // QUERIES)) if len(rest) else ():
        block, column = np.divmod(last[chunk], BLOCK)
        inside = (blocks[block] > floors[chunk, None]) & (columns <= column[:, None])
        ok = inside.any(axis=1)
        found[chunk[ok]] = block[ok] * BLOCK + BLOCK - 1 - np.argmax(inside[ok, ::-1], axis=1)
        missed.append(chunk[~ok])
    earlier = np.concatenate(missed) if missed else rest
    if len(blocks) == 1 or not len(earlier):
        return found
    block = last_above(blocks.max(axis=1), last[earlier] // BLOCK - 1, floors[earlier])
    ok = block >= 0
    for chunk in np.array_split(np.flatnonzero(ok), -(-int(ok.sum()) // QUERIES)) if ok.any() else ():
        inside = blocks[block[chunk]] > floors[earlier[chunk], None]
        found[earlier[chunk]] = block[chunk] * BLOCK + BLOCK - 1 - np.argmax(inside[:, ::-1], axis=1)
    return found


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
