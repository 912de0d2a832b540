"""The op view: time by op and input shape, by module, and the memory peak (what TensorBoard's plugin showed).

An op's *total* CPU time is its duration; its *self* time is that less the
time of its direct children on its thread, as ``key_averages`` counts it. A
thread's ops (``cpu_op``) and ``record_function`` regions (user annotations)
nest together: a region inside an op takes its time from the op's self time,
as it does in ``key_averages``; but only ops make rows, as in the plugin's
operator view, and a ``ProfilerStep#N`` (an op in the old schema) makes none.
An event's parent is the innermost event open at its start: the most
recently started of those still open, so that a region that outlives the
frame it started in (``_record_function_enter_new``) is the parent of what
starts after that frame ended. A child that outlives its parent counts only
up to the parent's end.

An op's device time is that of the kernels, copies and sets launched inside
it: a GPU op's launch call (the runtime or driver call with its correlation
id) starts inside the op on its thread. The innermost op open at the launch
gets it as self device time, it and every op around it as total. A GPU op
with no launch call in the trace (old and ROCm traces) joins by its
``External id`` to the op of the same id.

Everything runs on numpy columns: the innermost open event before each
event (or launch) comes from a max segment tree over the events' ends, walked
by all queries at once.
"""

import re
from typing import Annotated, NamedTuple, TypedDict

import numpy as np
import numpy.typing as npt
from msgspec import Meta

from profguide.analysis.intervals import Floats, Mask, Window
from profguide.analysis.select import (
    Indices,
    gpu_work,
    kept,
    kinds_mask,
    launch_of,
    names_where,
    profiler_steps,
    step_window,
)
from profguide.patterns import STEP
from profguide.trace.model import KIND, NO_ID, Trace

NESTING_KINDS = ("cpu_op", "annotation")  # what nests on a thread and splits a parent's time


class OpRow(TypedDict):
    """The calls of one op with one set of input shapes."""

    name: Annotated[str, Meta(description="the op's name as the trace writes it (aten::addmm)")]
    shapes: Annotated[str, Meta(description="its Input Dims as the trace writes them, e.g. [[64, 128], [128, 256]]; "
                                            "empty when the trace did not record them (record_shapes=False)")]
    calls: Annotated[int, Meta(description="how many calls")]
    self_cpu_us: Annotated[float, Meta(description="their time on the CPU outside the ops and regions they called")]
    cpu_us: Annotated[float, Meta(description="their time on the CPU, what they called included")]
    self_device_us: Annotated[float, Meta(description="time of the GPU ops launched by them and not by an op they "
                                                      "called")]
    device_us: Annotated[float, Meta(description="time of the GPU ops launched inside them, by any op they called "
                                                 "too")]


def host_order(trace: Trace) -> Indices:
    """The ops and regions, sorted by thread, then by start, longest first (a stable sort of the trace's order)."""
    events = np.flatnonzero(kinds_mask(trace, NESTING_KINDS))
    return events[np.argsort(trace.lane[events], kind="stable")]


def max_tree(values: Floats) -> Floats:
    """A segment tree of ``values``' maxima: leaves from ``size``, node v the max of nodes 2v and 2v+1; -inf
    where nothing is. ``size`` (a power of two) exceeds ``len(values)``, so that leaf ``len(values)`` exists."""
    size = 1 << len(values).bit_length()
    tree = np.full(2 * size, -np.inf)
    tree[size : size + len(values)] = values
    level = size
    while level > 1:
        tree[level // 2 : level] = np.maximum(tree[level : 2 * level : 2], tree[level + 1 : 2 * level : 2])
        level //= 2
    return tree


def last_above(tree: Floats, limits: Indices, thresholds: Floats) -> Indices:
    """For each query, the largest k < ``limits[q]`` whose value exceeds ``thresholds[q]``, or -1.

    All queries walk up from leaf ``limits[q]`` together, looking at each left
    sibling on the way (the nearest first), then down the first sibling whose
    maximum exceeds the threshold, into its rightmost such leaf.
    """
    size = len(tree) // 2
    node = limits + size
    found = np.full(len(limits), -1, np.intp)
    while True:
        looking = (found < 0) & (node > 1)
        if not looking.any():
            break
        sibling = node - 1
        hit = looking & (node & 1 == 1) & (tree[np.where(looking, sibling, 0)] > thresholds)
        found[hit] = sibling[hit]
        node = node >> 1
    inside = found >= 0
    while (down := inside & (found < size)).any():
        right = 2 * found[down] + 1
        found[down] = np.where(tree[right] > thresholds[down], right, right - 1)
    return np.where(inside, found - size, -1)


def events_before(lanes: npt.NDArray[np.int32], starts: Floats, query_lanes: npt.NDArray[np.int32],
                  query_times: Floats, inclusive: bool = True) -> Indices:
    """For each (lane, time) query, how many events (sorted by lane, then start) come before it in that order:
    those of earlier lanes, and those of its lane that start before its time (or at it, when ``inclusive``)."""
    tie = np.r_[np.full(len(starts), 0 if inclusive else 1), np.full(len(query_times), 1 if inclusive else 0)]
    merged = np.lexsort((tie, np.r_[starts, query_times], np.r_[lanes, query_lanes]))
    is_event = merged < len(starts)
    counts = np.empty(len(query_times), np.intp)
    counts[merged[~is_event] - len(starts)] = np.cumsum(is_event)[~is_event]
    return counts


def innermost_open(trace: Trace, order: Indices, lanes: npt.NDArray[np.int32], times: Floats,
                   tree: Floats) -> Indices:
    """For each (lane, time), the position in ``order`` of the innermost event open at that time on that lane:
    the last one to start at or before it whose end is later, or -1."""
    ordered_lanes = trace.lane[order]
    if not len(order):  # no op or region to be inside
        return np.full(len(times), -1, np.intp)
    found = last_above(tree, events_before(ordered_lanes, trace.ts[order], lanes, times), times)
    return np.where((found >= 0) & (ordered_lanes[np.maximum(found, 0)] == lanes), found, -1)


def parents(trace: Trace, order: Indices, tree: Floats) -> Indices:
    """Each event's parent, a position in ``order`` (-1 for none): the innermost event open at its start."""
    positions = np.arange(len(order))
    starts, ends = trace.ts[order], trace.end[order]
    parent = np.full(len(order), -1, np.intp)
    # Most events start inside the one just before them; the tree answers for the rest.
    inside_previous = np.zeros(len(order), bool)
    inside_previous[1:] = (ends[:-1] > starts[1:]) & (trace.lane[order[:-1]] == trace.lane[order[1:]])
    parent[inside_previous] = positions[inside_previous] - 1
    rest = np.flatnonzero(~inside_previous)
    found = last_above(tree, rest, starts[rest])
    same_lane = (found >= 0) & (trace.lane[order[np.maximum(found, 0)]] == trace.lane[order[rest]])
    parent[rest] = np.where(same_lane, found, -1)
    return parent


def added_by(groups: Indices, weights: Floats, count: int) -> Floats:
    """``weights`` added up by group (0 to ``count`` - 1)."""
    return np.asarray(np.bincount(groups, weights=weights, minlength=count), dtype=np.float64)


def up_the_tree(parent: Indices, amounts: Floats) -> Floats:
    """Each event's amount plus those of every event below it (``parent`` links positions)."""
    total = amounts.copy()
    holders = np.flatnonzero(amounts)
    carried = amounts[holders]
    current = parent[holders]
    while len(current):
        live = current >= 0
        current, carried = current[live], carried[live]
        total += added_by(current, carried, len(parent))
        current = parent[current]
    return total


def device_self(trace: Trace, order: Indices, tree: Floats) -> Floats:
    """Per position in ``order``: the time of the GPU ops whose launch the event is the innermost open one at,
    or, with no launch in the trace, that join it by External id."""
    work = np.flatnonzero(gpu_work(trace))
    launch = launch_of(trace, work)
    launched = launch >= 0
    calls = launch[launched]
    owner = np.full(len(work), -1, np.intp)
    owner[launched] = innermost_open(trace, order, trace.lane[calls], trace.ts[calls], tree)
    owner[~launched] = by_external_id(trace, order, trace.external_id[work[~launched]])
    owned = owner >= 0
    return added_by(owner[owned], trace.dur[work[owned]], len(order))


def by_external_id(trace: Trace, order: Indices, ids: npt.NDArray[np.int64]) -> Indices:
    """For each External id, the position in ``order`` of the op that has it (the first), or -1."""
    ops = np.flatnonzero((trace.kind[order] == KIND["cpu_op"]) & (trace.external_id[order] != NO_ID))
    keys = trace.external_id[order[ops]]
    sorted_at = np.argsort(keys, kind="stable")
    keys, ops = keys[sorted_at], ops[sorted_at]
    at = np.clip(np.searchsorted(keys, ids), 0, max(len(keys) - 1, 0))
    matched = (ids != NO_ID) & (len(keys) > 0) & (keys[at] == ids) if len(keys) else np.zeros(len(ids), bool)
    return np.where(matched, ops[at] if len(ops) else -1, -1)


class HostTimes(NamedTuple):
    """The ops and regions in host order (``host_order``), and what each one took, by position in it (µs)."""

    order: Indices
    tree: Floats  # ``max_tree`` of their ends
    parent: Indices
    self_cpu: Floats
    self_device: Floats
    device: Floats


def host_times(trace: Trace) -> HostTimes:
    """Each op's and region's parent, self CPU, self device and total device time; made once per trace."""
    def made() -> HostTimes:
        order = host_order(trace)
        tree = max_tree(trace.end[order])
        parent = parents(trace, order, tree)
        starts, ends = trace.ts[order], trace.end[order]
        child = np.flatnonzero(parent >= 0)
        # A child's own duration where it ends inside its parent: ends at 5e12 µs hold fewer of its digits.
        outlives = ends[child] > ends[parent[child]]
        in_parent = np.where(outlives, ends[parent[child]] - starts[child], trace.dur[order[child]])
        self_cpu = trace.dur[order] - added_by(parent[child], in_parent, len(order))
        self_device = device_self(trace, order, tree)
        return HostTimes(order, tree, parent, self_cpu, self_device, up_the_tree(parent, self_device))

    return kept(trace, host_times, made)


def in_window(starts: Floats, window: Window | None) -> Mask:
    """Which of ``starts`` lie in ``window`` (all, when None)."""
    if window is None:
        return np.ones(len(starts), bool)
    return (starts >= window[0]) & (starts < window[1])


def op_rows(trace: Trace, window: Window | None = None) -> list[OpRow]:
    """The ops that start in ``window`` (all when None), by name and input shapes, most device time first, then
    most CPU time."""
    order, _, _, self_cpu, self_device, device = host_times(trace)
    rows = (trace.kind[order] == KIND["cpu_op"]) & ~names_where(trace, STEP.match)[order]
    picked = np.flatnonzero(rows & in_window(trace.ts[order], window))
    events = order[picked]
    shape_codes = trace.shape[events].astype(np.int64) + 1
    keys, group = np.unique(trace.name[events].astype(np.int64) * (len(trace.shape_texts) + 1) + shape_codes,
                            return_inverse=True)
    group = group.ravel()
    calls = np.bincount(group, minlength=len(keys))
    sums = [added_by(group, values[picked], len(keys)) for values in (self_cpu, trace.dur[order], self_device, device)]
    names, shapes = keys // (len(trace.shape_texts) + 1), keys % (len(trace.shape_texts) + 1) - 1
    found = [
        OpRow(name=trace.names[int(names[g])], shapes=trace.shape_texts[int(shapes[g])] if shapes[g] >= 0 else "",
              calls=int(calls[g]), self_cpu_us=float(sums[0][g]), cpu_us=float(sums[1][g]),
              self_device_us=float(sums[2][g]), device_us=float(sums[3][g]))
        for g in range(len(keys))
    ]
    return sorted(found, key=lambda row: (-row["device_us"], -row["cpu_us"], row["name"], row["shapes"]))


# How torch names a module's forward (with_stack or with_modules): ``nn.Module: Linear_0``, the class and its
# instance number among the modules of that class.
MODULE = re.compile(r"nn\.Module: (?P<name>.+?)(?:_\d+)?$")


class ModuleRow(TypedDict):
    """The forward calls of the modules of one class."""

    name: Annotated[str, Meta(description="the module's class, as torch names it (Linear); every instance "
                                          "(nn.Module: Linear_0, Linear_1 …) in one row")]
    calls: Annotated[int, Meta(description="how many forward calls")]
    cpu_us: Annotated[float, Meta(description="their time on the CPU, what they called included")]
    device_us: Annotated[float, Meta(description="time of the GPU ops launched inside them")]


def module_rows(trace: Trace, window: Window | None = None) -> list[ModuleRow]:
    """The ``nn.Module`` forward calls that start in ``window`` (all when None), by class, most device time
    first, then most CPU time; empty when the trace records none. A module of a class called inside another
    of the same class counts in both calls."""
    classes = {code: match["name"] for code, name in enumerate(trace.names) if (match := MODULE.match(name))}
    calls = np.flatnonzero(kinds_mask(trace, ("python",)) & np.isin(trace.name, list(classes)))
    calls = calls[in_window(trace.ts[calls], window)]
    if not len(calls):
        return []
    order, _, _, _, self_device, _ = host_times(trace)
    # Device time inside a call: that of the ops and regions that start in it on its thread, a difference
    # of running sums over them in (thread, start) order.
    running = np.r_[0.0, np.cumsum(self_device)]
    lanes, starts = trace.lane[order], trace.ts[order]
    first = events_before(lanes, starts, trace.lane[calls], trace.ts[calls], inclusive=False)
    last = events_before(lanes, starts, trace.lane[calls], trace.end[calls], inclusive=False)
    device = running[last] - running[first]
    by_class: dict[str, ModuleRow] = {}
    for name, dur, inside in zip([classes[int(code)] for code in trace.name[calls]], trace.dur[calls].tolist(),
                                 device.tolist(), strict=True):
        row = by_class.setdefault(name, ModuleRow(name=name, calls=0, cpu_us=0.0, device_us=0.0))
        row["calls"] += 1
        row["cpu_us"] += dur
        row["device_us"] += inside
    return sorted(by_class.values(), key=lambda row: (-row["device_us"], -row["cpu_us"], row["name"]))


class MemoryPeak(TypedDict):
    """The most memory allocated on one device at once, and the op running then."""

    device: Annotated[str, Meta(description="cpu, cuda:0 …")]
    peak_bytes: Annotated[float, Meta(description="the allocator's Total Allocated at its highest")]
    at_us: Annotated[float, Meta(description="when it first got there (the allocation that took it there)")]
    op: Annotated[str | None, Meta(description="the innermost op open then on the thread that allocated, or null")]
    shapes: Annotated[str, Meta(description="that op's Input Dims as the trace writes them; empty when not "
                                            "recorded")]


def device_label(device: tuple[object, object]) -> str:
    """A (Device Type, Device Id) pair as torch names the device: cpu, cuda:0 (HIP's type too: torch's ROCm build
    calls its GPUs cuda); another type by its number."""
    kind, index = device
    if kind == 0:
        return "cpu"
    return f"{'cuda' if kind in (1, 6) else f'device type {kind}'}:{index}"


def memory_peak(trace: Trace) -> list[MemoryPeak] | None:
    """Per device, in the order the trace first names them, the peak of allocated bytes, when, and the op open
    at it on the allocating thread; None when the trace has no ``[memory]`` events (profile_memory=False)."""
    if not len(trace.memory_ts):
        return None
    order, tree, parent, *_ = host_times(trace)
    codes = {lane: code for code, lane in enumerate(trace.lanes)}
    peaks = []
    for device_code, device in enumerate(trace.memory_devices):
        totals = np.where(trace.memory_device == device_code, trace.memory_total, np.nan)
        if np.isnan(totals).all():
            continue
        at = int(np.nanargmax(totals))
        lane = codes.get(trace.memory_lanes[trace.memory_lane[at]], -1)
        op = op_at(trace, order, tree, parent, lane, float(trace.memory_ts[at]))
        peaks.append(MemoryPeak(device=device_label(device), peak_bytes=float(totals[at]),
                                at_us=float(trace.memory_ts[at]), op=None if op < 0 else trace.names[trace.name[op]],
                                shapes=shape_text(trace, op)))
    return peaks


def op_at(trace: Trace, order: Indices, tree: Floats, parent: Indices, lane: int, time: float) -> int:
    """The event index of the innermost op (not a region) open at ``time`` on ``lane``, or -1."""
    if lane < 0:
        return -1
    position = int(innermost_open(trace, order, np.array([lane], np.int32), np.array([time]), tree)[0])
    while position >= 0 and trace.kind[order[position]] != KIND["cpu_op"]:
        position = int(parent[position])
    return -1 if position < 0 else int(order[position])


def shape_text(trace: Trace, event: int) -> str:
    """The event's Input Dims as the trace writes them; empty when absent (or for no event, -1)."""
    code = int(trace.shape[event]) if event >= 0 else NO_ID
    return trace.shape_texts[code] if code >= 0 else ""


class OpsView(TypedDict):
    """What ``profguide explain TRACE --ops --json`` prints: the op view of one trace (or of one step)."""

    file: Annotated[str, Meta(description="the trace, as named on the command line")]
    trace_start_us: Annotated[float, Meta(description="the trace's first event, from which the text counts times")]
    on_gpu: Annotated[bool, Meta(description="whether the trace has GPU work: the text then ranks ops by device "
                                             "time, else by self CPU time")]
    ops: Annotated[list[OpRow], Meta(description="every op by name and input shapes, most device time first, "
                                                 "then most CPU time")]
    modules: Annotated[list[ModuleRow], Meta(description="nn.Module forward calls by class (with_stack or "
                                                         "with_modules); empty when none were recorded")]
    memory_peak: Annotated[list[MemoryPeak] | None, Meta(description="per device, the memory peak and the op "
                                                                     "at it; null without profile_memory")]


def host_step(trace: Trace, step: int) -> Window:
    """``ProfilerStep#step`` on the host: the ops that start in it are the step's, their GPU work wherever it
    runs. A UsageError naming the trace's steps when it has no such step."""
    start = step_window(trace, step)[0]
    return start, start + next(found["dur_us"] for found in profiler_steps(trace) if found["step"] == step)


def ops_view(trace: Trace, file: str, step: int | None = None) -> OpsView:
    """The op view of ``trace``, or of the ops that start in ``ProfilerStep#step``; the memory peak is the
    whole trace's."""
    window = None if step is None else host_step(trace, step)
    return OpsView(file=file, trace_start_us=float(trace.ts[0]), on_gpu=bool(gpu_work(trace).any()),
                   ops=op_rows(trace, window), modules=module_rows(trace, window), memory_peak=memory_peak(trace))
