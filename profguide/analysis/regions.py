"""The calls of one region: how long each took, how much of it went to the ops it called, and to the GPU."""

from typing import TypedDict

import numpy as np

from profguide.analysis.intervals import Mask, union_length
from profguide.analysis.select import gpu_work, kinds_mask, launch_of, names_where, nesting_depths
from profguide.patterns import STEP
from profguide.trace.model import KIND, Trace


class TreeEntry(TypedDict):
    """One host event of a region's call tree (``region_tree``)."""

    depth: int
    name: str
    dur_us: float
    launched: list[tuple[str, float]]


def wholly_inside(trace: Trace, call: int) -> Mask:
    """Mask of the events that lie wholly inside the event ``call`` on its thread: they start at or after its start
    and end at or before its end (``call`` among them). What "inside a call" means for the host events this
    module counts: one that starts inside the call and ends after it (the ``record_function.__exit__`` that closes
    a region returns after the region's end) is not inside it."""
    inside: Mask = (trace.lane == trace.lane[call]) & (trace.ts >= trace.ts[call]) & (trace.end <= trace.end[call])
    return inside


def region_calls(trace: Trace, name: str) -> list[dict[str, float]]:
    """Every occurrence of the region ``name`` (a ``record_function`` or op), in order of start.

    For each: its duration, the time covered by the ops directly under it
    (``in_ops_us``; the rest is time in no op), and the GPU time of the work
    launched from inside it (``kernel_us``). An op is under the call when it
    lies wholly inside it (``wholly_inside``); GPU work, when its launch
    starts inside it.
    """
    if name not in trace.names:
        return []
    code = trace.names.index(name)
    host = kinds_mask(trace, ("cpu_op", "annotation"))
    work = np.flatnonzero(gpu_work(trace))
    launch = launch_of(trace, work)
    launch_ts = np.where(launch >= 0, trace.ts[np.maximum(launch, 0)], np.nan)
    calls: list[dict[str, float]] = []
    for index in np.flatnonzero((trace.name == code) & host).tolist():
        start, end = trace.ts[index], trace.end[index]
        inside = np.flatnonzero(host & wholly_inside(trace, index))
        inside = inside[inside != index]
        children = inside[nesting_depths(trace.ts[inside], trace.end[inside]) == 0]
        launched = work[(launch_ts >= start) & (launch_ts < end)]
        calls.append({
            "start_us": float(start),
            "dur_us": float(trace.dur[index]),
            "in_ops_us": union_length(trace.ts[children], trace.end[children]),
            "kernel_us": union_length(trace.ts[launched], trace.end[launched]),
        })
    return calls


def region_tree(trace: Trace, name: str) -> list[TreeEntry]:
    """The first occurrence of region ``name`` and every host event that lies wholly inside it (``wholly_inside``),
    as the call tree.

    Each entry: ``depth`` (0 for the region), ``name``, ``dur_us``, and for a
    call that launched GPU work, ``launched``: the name and duration of each
    GPU op it launched.
    """
    if name not in trace.names:
        return []
    host = kinds_mask(trace, ("cpu_op", "annotation", "runtime", "driver"))
    found = np.flatnonzero((trace.name == trace.names.index(name)) & host)
    if not len(found):
        return []
    inside = np.flatnonzero(host & wholly_inside(trace, found[0]))
    work = np.flatnonzero(gpu_work(trace))
    launched_by = launch_of(trace, work)
    return [
        {
            "depth": int(depth),
            "name": trace.names[trace.name[index]],
            "dur_us": float(trace.dur[index]),
            "launched": [(trace.names[trace.name[op]], float(trace.dur[op])) for op in work[launched_by == index]],
        }
        for index, depth in zip(inside, nesting_depths(trace.ts[inside], trace.end[inside]), strict=True)
    ]


def ops_in_region(trace: Trace, region: str, op: str) -> int | None:
    """How many ``op`` events the first occurrence of ``region`` holds (None when there is no such region)."""
    tree = region_tree(trace, region)
    return sum(entry["name"] == op for entry in tree[1:]) if tree else None


def ops_in_each_call(trace: Trace, region: str, prefix: str = "", kinds: tuple[str, ...] = ("cpu_op",)) -> list[int]:
    """For each call of the region or op ``region``, in order of start: how many ops (``cpu_op`` events; with
    ``kinds``, the events of those kinds, runtime calls too) whose names start with ``prefix`` lie wholly inside it
    on its thread (``wholly_inside``), at any depth."""
    if region not in trace.names:
        return []
    calls = np.flatnonzero((trace.name == trace.names.index(region)) & kinds_mask(trace, ("cpu_op", "annotation")))
    ops = kinds_mask(trace, kinds) & names_where(trace, lambda name: name.startswith(prefix))
    counts = []
    for call in calls.tolist():
        inside = np.flatnonzero(ops & wholly_inside(trace, call))
        counts.append(int((inside != call).sum()))
    return counts


class PythonCallsRow(TypedDict):
    """One ``record_function`` region's ops and Python calls (``python_calls_by_region``)."""

    region: str
    ops: int
    python_calls: int


def python_calls_by_region(trace: Trace) -> list[PythonCallsRow]:
    """Each ``record_function`` region of the trace (a ``ProfilerStep`` too), in order of start: how many ops and
    how many Python calls lie wholly inside it on its thread (``wholly_inside``: a call that starts in the region
    and returns after its end is left out, such as the ``record_function.__exit__`` that closes the region and the
    two calls under it), at any depth. A Python call is a ``python_function`` event: with
    ``with_stack``, the profiler's Python tracer records one for each call of a Python function, a built-in one
    too; without it, the trace holds none."""
    regions = np.flatnonzero(trace.kind == KIND["annotation"])
    ops, python = trace.kind == KIND["cpu_op"], trace.kind == KIND["python"]
    rows: list[PythonCallsRow] = []
    for region in regions[np.argsort(trace.ts[regions], kind="stable")].tolist():
        inside = wholly_inside(trace, region)
        rows.append({"region": trace.names[trace.name[region]], "ops": int((inside & ops).sum()),
                     "python_calls": int((inside & python).sum())})
    return rows


def region_names(trace: Trace) -> list[str]:
    """The names of the trace's ``record_function`` regions (its user annotations but the ProfilerSteps), in the
    order they first start."""
    annotations = trace.kind == KIND["annotation"]
    return [name for name in dict.fromkeys(trace.names[code] for code in trace.name[annotations])
            if not STEP.match(name)]


def ops_under(trace: Trace, region: str, op: str, under: str) -> int | None:
    """How many ``op`` entries of the first ``region``'s call tree (``region_tree``) have an ``under`` entry among
    the entries that enclose them; None without the region."""
    tree = region_tree(trace, region)
    if not tree:
        return None
    found, enclosing = 0, list[str]()
    for entry in tree:
        del enclosing[entry["depth"]:]
        found += entry["name"] == op and under in enclosing
        enclosing.append(entry["name"])
    return found


def self_time(trace: Trace, region: str, prefix: str) -> float | None:
    """The self time of the first event whose name starts with ``prefix`` in the first ``region``: its duration
    less that of the events directly under it (None when there is no such event)."""
    tree = region_tree(trace, region)
    for position, entry in enumerate(tree[1:], 1):
        if entry["name"].startswith(prefix):
            under = 0.0
            for inner in tree[position + 1:]:
                if inner["depth"] <= entry["depth"]:
                    break
                under += inner["dur_us"] if inner["depth"] == entry["depth"] + 1 else 0.0
            return entry["dur_us"] - under
    return None


def nested_per_call(trace: Trace, outer: str, inner: str) -> float | None:
    """The ``inner`` host events that start at or after the start of a call of ``outer`` and before its end, on its
    thread, per call of ``outer`` (a call inside another call of ``outer`` counts them again); None without one."""
    if outer not in trace.names:
        return None
    host = kinds_mask(trace, ("cpu_op", "annotation", "runtime", "driver"))
    calls = np.flatnonzero(host & (trace.name == trace.names.index(outer)))
    if not len(calls):
        return None
    inner_code = trace.names.index(inner) if inner in trace.names else -1
    inside = np.flatnonzero(host & (trace.name == inner_code))
    found = 0
    for lane in np.unique(trace.lane[calls]).tolist():
        starts = np.sort(trace.ts[inside[trace.lane[inside] == lane]])
        mine = calls[trace.lane[calls] == lane]
        found += int((np.searchsorted(starts, trace.end[mine]) - np.searchsorted(starts, trace.ts[mine])).sum())
    return found / len(calls)
