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
gets it as self device time, it and every op around it as total; and so
with the count of GPU ops launched. A GPU op with no launch call in the
trace (old and ROCm traces) joins by its ``External id`` to the op of the
same id.

A region (``record_function``) is joined to its backward by autograd's
sequence numbers: a forward op that makes an autograd node records the
node's number (and so do the ops before it since the last node), and the
backward function that runs the node
(``autograd::engine::evaluate_function: MmBackward0``) records it again.

Everything runs on numpy columns: the innermost open event before each
event (or launch) comes from a max segment tree over the events' ends, walked
by all queries at once.
"""

import re
from typing import Annotated, NamedTuple, TypedDict

import numpy as np
import numpy.typing as npt
from msgspec import Meta

from profguide.analysis.families import kernel_family
from profguide.analysis.intervals import Floats, Mask, Window
from profguide.analysis.select import (
    Indices,
    gpu_work,
    kept,
    kinds_mask,
    launch_of,
    names_where,
)
from profguide.patterns import COMPILED_GRAPH, COMPILED_REGION, STEP
from profguide.trace.model import KIND, NO_ID, Trace

Counts = npt.NDArray[np.int64]  # how many, per event

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


def launch_owners(trace: Trace, order: Indices, tree: Floats) -> tuple[Indices, Indices]:
    """(GPU ops, their owners): each GPU op (kernel, copy, set) that some event owns, and that event's position
    in ``order``: the innermost one open at its launch, or, with no launch in the trace, the op that has its
    External id."""
    work = np.flatnonzero(gpu_work(trace))
    launch = launch_of(trace, work)
    launched = launch >= 0
    calls = launch[launched]
    owner = np.full(len(work), -1, np.intp)
    owner[launched] = innermost_open(trace, order, trace.lane[calls], trace.ts[calls], tree)
    owner[~launched] = by_external_id(trace, order, trace.external_id[work[~launched]])
    owned = owner >= 0
    return work[owned], owner[owned]


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
    """The ops and regions in host order (``host_order``), and what each one took, by position in it (µs), and
    how many GPU ops (kernels, copies, sets) it launched."""

    order: Indices
    tree: Floats  # ``max_tree`` of their ends
    parent: Indices
    self_cpu: Floats
    self_device: Floats
    device: Floats
    self_kernels: Counts
    kernels: Counts


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
        work, owner = launch_owners(trace, order, tree)
        self_device = added_by(owner, trace.dur[work], len(order))
        self_kernels = np.bincount(owner, minlength=len(order)).astype(np.int64)
        kernels = up_the_tree(parent, self_kernels.astype(np.float64)).astype(np.int64)  # exact: counts < 2**53
        return HostTimes(order, tree, parent, self_cpu, self_device, up_the_tree(parent, self_device),
                         self_kernels, kernels)

    return kept(trace, host_times, made)


def joined_device_us(trace: Trace) -> float:
    """The time of every GPU op (kernel, copy, set) that the trace joins to an op or region: the whole of which a
    module's, a region's or an op's device time is a share."""
    return float(host_times(trace).self_device.sum())


def in_window(starts: Floats, window: Window | None) -> Mask:
    """Which of ``starts`` lie in ``window`` (all, when None)."""
    if window is None:
        return np.ones(len(starts), bool)
    return (starts >= window[0]) & (starts < window[1])


def op_rows(trace: Trace, window: Window | None = None) -> list[OpRow]:
    """The ops that start in ``window`` (all when None), by name and input shapes, most device time first, then
    most CPU time."""
    times = host_times(trace)
    order = times.order
    rows = (trace.kind[order] == KIND["cpu_op"]) & ~names_where(trace, STEP.match)[order]
    picked = np.flatnonzero(rows & in_window(trace.ts[order], window))
    events = order[picked]
    shape_codes = trace.shape[events].astype(np.int64) + 1
    keys, group = np.unique(trace.name[events].astype(np.int64) * (len(trace.shape_texts) + 1) + shape_codes,
                            return_inverse=True)
    group = group.ravel()
    calls = np.bincount(group, minlength=len(keys))
    sums = [added_by(group, values[picked], len(keys))
            for values in (times.self_cpu, trace.dur[order], times.self_device, times.device)]
    names, shapes = keys // (len(trace.shape_texts) + 1), keys % (len(trace.shape_texts) + 1) - 1
    found = [
        OpRow(name=trace.names[int(names[g])], shapes=trace.shape_texts[int(shapes[g])] if shapes[g] >= 0 else "",
              calls=int(calls[g]), self_cpu_us=float(sums[0][g]), cpu_us=float(sums[1][g]),
              self_device_us=float(sums[2][g]), device_us=float(sums[3][g]))
        for g in range(len(keys))
    ]
    return sorted(found, key=lambda row: (-row["device_us"], -row["cpu_us"], row["name"], row["shapes"]))


# How torch's Python tracer (with_stack=True) names a module's forward: ``nn.Module: Linear_0``, the class and
# its instance number among the modules of that class. (with_modules=True records TorchScript's modules only.)
MODULE = re.compile(r"nn\.Module: (?P<name>.+?)(?:_\d+)?$")


class ModuleRow(TypedDict):
    """The forward calls of the modules of one class."""

    name: Annotated[str, Meta(description="the module's class, as torch names it (Linear); every instance "
                                          "(nn.Module: Linear_0, Linear_1 …) in one row")]
    calls: Annotated[int, Meta(description="how many forward calls")]
    cpu_us: Annotated[float, Meta(description="their time on the CPU, what they called included")]
    device_us: Annotated[float, Meta(description="time of the GPU ops launched inside them")]
    kernels: Annotated[int, Meta(description="GPU ops (kernels, copies, sets) launched inside them")]


def positions_inside(trace: Trace, times: HostTimes, calls: Indices) -> tuple[Indices, Indices]:
    """For each call (an event index), the range [first, last) of positions in ``times.order`` (by thread, then
    start) of the ops and regions that start inside it on its thread."""
    lanes, starts = trace.lane[times.order], trace.ts[times.order]
    return (events_before(lanes, starts, trace.lane[calls], trace.ts[calls], inclusive=False),
            events_before(lanes, starts, trace.lane[calls], trace.end[calls], inclusive=False))


def module_rows(trace: Trace, window: Window | None = None) -> list[ModuleRow]:
    """The ``nn.Module`` forward calls that start in ``window`` (all when None), by class, most device time
    first, then most CPU time; empty when the trace records none. A module of a class called inside another
    of the same class counts in both calls."""
    classes = {code: match["name"] for code, name in enumerate(trace.names) if (match := MODULE.match(name))}
    calls = np.flatnonzero(kinds_mask(trace, ("python",)) & np.isin(trace.name, list(classes)))
    calls = calls[in_window(trace.ts[calls], window)]
    if not len(calls):
        return []
    times = host_times(trace)
    # Device time and GPU ops inside a call: those of the ops and regions that start in it on its thread, a
    # difference of running sums over them in (thread, start) order.
    first, last = positions_inside(trace, times, calls)
    running = (np.r_[0, np.cumsum(amounts)] for amounts in (times.self_device, times.self_kernels))
    device, kernels = (total[last] - total[first] for total in running)
    by_class: dict[str, ModuleRow] = {}
    for name, dur, inside, launched in zip([classes[int(code)] for code in trace.name[calls]],
                                           trace.dur[calls].tolist(), device.tolist(), kernels.tolist(), strict=True):
        row = by_class.setdefault(name, ModuleRow(name=name, calls=0, cpu_us=0.0, device_us=0.0, kernels=0))
        row["calls"] += 1
        row["cpu_us"] += dur
        row["device_us"] += inside
        row["kernels"] += launched
    return sorted(by_class.values(), key=lambda row: (-row["device_us"], -row["cpu_us"], row["name"]))


def module_op_device(trace: Trace, module: str) -> dict[str, float]:
    """The GPU time launched inside the forward calls of the modules of the class ``module``, by the op that
    launched it (its self device time: what it launched and no op under it did); empty when no such call."""
    codes = [code for code, name in enumerate(trace.names) if (match := MODULE.match(name)) and match["name"] == module]
    calls = np.flatnonzero(kinds_mask(trace, ("python",)) & np.isin(trace.name, codes))
    times = host_times(trace)
    first, last = positions_inside(trace, times, calls)
    # The positions that some call holds, once each, though calls nest.
    size = len(times.order) + 1
    depth = np.cumsum(np.bincount(first, minlength=size) - np.bincount(last, minlength=size))
    inside = np.flatnonzero((depth[:-1] > 0) & (trace.kind[times.order] == KIND["cpu_op"]) & (times.self_device > 0))
    names = trace.name[times.order[inside]]
    found = np.unique(names)
    sums = added_by(np.searchsorted(found, names), times.self_device[inside], len(found))
    return {trace.names[int(code)]: float(total) for code, total in zip(found, sums, strict=True)}


# The backward function that runs one autograd node: ``autograd::engine::evaluate_function: MmBackward0``.
BACKWARD_FUNCTION = "autograd::engine::evaluate_function: "


class RegionRow(TypedDict):
    """The calls of one region (``record_function``), and the backward of the ops inside them."""

    name: Annotated[str, Meta(description="the region's name (every call of that name in one row)")]
    calls: Annotated[int, Meta(description="how many calls")]
    cpu_us: Annotated[float, Meta(description="their time on the CPU, what they called included")]
    device_us: Annotated[float, Meta(description="time of the GPU ops launched inside them")]
    kernels: Annotated[int, Meta(description="GPU ops (kernels, copies, sets) launched inside them")]
    backward_calls: Annotated[int, Meta(description="backward functions (autograd::engine::evaluate_function: "
                                                    "…) that run the autograd nodes of the ops inside them, "
                                                    "joined by sequence number; each counted once")]
    backward_cpu_us: Annotated[float, Meta(description="those backward functions' time on the CPU")]
    backward_device_us: Annotated[float, Meta(description="time of the GPU ops launched inside those backward "
                                                          "functions")]
    backward_kernels: Annotated[int, Meta(description="GPU ops launched inside those backward functions")]


def region_mask(trace: Trace) -> Mask:
    """The regions: ``record_function`` ranges (user annotations, torch's ``Optimizer.step#…`` among them) but
    ``ProfilerStep#N``, and torch.compile's regions and graph calls, which torch records as ops."""
    compiled = names_where(trace, lambda name: name.startswith((COMPILED_REGION, COMPILED_GRAPH[0])))
    return ((kinds_mask(trace, ("annotation",)) & ~names_where(trace, STEP.match))
            | (kinds_mask(trace, ("cpu_op",)) & compiled))


def ancestor_pairs(parent: Indices, starts: Indices, wanted: Mask) -> tuple[Indices, Indices]:
    """(i, position) for ``starts[i]`` itself and each event above it (``parent`` links positions) that is
    ``wanted``; a walk up the tree by all of them at once, one level a step."""
    index, current = np.arange(len(starts)), starts
    found: list[tuple[Indices, Indices]] = [(index[:0], current[:0])]
    while len(current):
        hit = wanted[current]
        found.append((index[hit], current[hit]))
        current = parent[current]
        index, current = index[current >= 0], current[current >= 0]
    return np.concatenate([i for i, _ in found]), np.concatenate([at for _, at in found])


def node_makers(trace: Trace, times: HostTimes, backward: Mask) -> Indices:
    """The positions of the forward ops that made an autograd node, one a sequence number.

    A forward op is an op with a sequence number not inside a backward
    function (``backward`` by position; one is inside itself). torch records
    on each op the number the next node will take, so the ops before the one
    that makes it carry it too (``aten::linear`` before its ``aten::t``, and,
    in older torch, ops that make no node at all: an optimizer's): the maker
    is the last forward op of its number. A number that forward ops on two
    threads have (torch counts per thread) is left out: its backward could be
    either one's.
    """
    order = times.order
    numbered = np.flatnonzero((trace.kind[order] == KIND["cpu_op"]) & (trace.sequence[order] != NO_ID))
    inside_backward, _ = ancestor_pairs(times.parent, numbered, backward)
    forward = np.delete(numbered, inside_backward)
    numbers = trace.sequence[order[forward]]
    threads = np.unique(np.stack([numbers, trace.lane[order[forward]].astype(np.int64)]), axis=1)[0]
    distinct, lanes = np.unique(threads, return_counts=True)
    forward = forward[~np.isin(numbers, distinct[lanes > 1])]
    # One thread a number now, where positions follow start times: the last of each number is its maker.
    _, last = np.unique(trace.sequence[order[forward]][::-1], return_index=True)
    return forward[len(forward) - 1 - last]


def backward_functions(trace: Trace, times: HostTimes) -> Mask:
    """Which positions (in host order) are backward functions (``autograd::engine::evaluate_function: …``)."""
    backward: Mask = (trace.kind[times.order] == KIND["cpu_op"]) & names_where(
        trace, lambda name: name.startswith(BACKWARD_FUNCTION))[times.order]
    return backward


def joined_backward(trace: Trace, times: HostTimes, row_at: Indices) -> tuple[Indices, Indices]:
    """(rows, positions): each backward function joined to a row, once a row, and its position in host order;
    ``row_at`` is each position's row (a region's calls), -1 for none."""
    order = times.order
    is_backward = backward_functions(trace, times)
    forward = node_makers(trace, times, is_backward)
    op, region = ancestor_pairs(times.parent, forward, row_at >= 0)
    rows, numbers = np.unique(np.stack([row_at[region].astype(np.int64), trace.sequence[order[forward[op]]]]),
                              axis=1)
    backward = np.flatnonzero(is_backward & (trace.sequence[order] != NO_ID))
    backward = backward[np.argsort(trace.sequence[order[backward]], kind="stable")]
    low = np.searchsorted(trace.sequence[order[backward]], numbers, "left")
    width = np.searchsorted(trace.sequence[order[backward]], numbers, "right") - low
    # Every backward function of each joined number (a retained graph's backward runs a node more than once):
    # the ranges low .. low + width, laid end to end.
    ran = backward[np.repeat(low - np.cumsum(width) + width, width) + np.arange(width.sum())]
    return np.repeat(rows, width), ran


class RegionPlace(NamedTuple):
    """Where a region runs that runs inside another: that region, and in which pass of it."""

    parent: str
    backward: bool  # inside the backward functions joined to ``parent``, not inside its calls


class SequenceJoin(TypedDict):
    """One forward op with an autograd sequence number, and the backward function of that number."""

    op: str
    sequence: int
    makes_node: bool  # the last forward op of its number (``node_makers``): the one that made the node
    backward: str  # the backward function that ran the node of that number; "" where none ran


def region_places(trace: Trace) -> dict[str, RegionPlace]:
    """For each region (by name) whose every call runs inside one other region, the innermost such region and
    the pass: inside that region's calls (its forward), or inside a backward function joined to it (as
    ``region_rows`` joins them), where the backward graph of a compiled region runs. A backward function joined
    to several regions (one inside another) belongs to the one joined to the fewest: the innermost. Regions that
    run outside every region, or in several places, are left out."""
    times = host_times(trace)
    order = times.order
    regions = np.flatnonzero(region_mask(trace)[order])
    if not len(regions):
        return {}
    names, row = np.unique(trace.name[order[regions]], return_inverse=True)
    row_at = np.full(len(order), -1, np.intp)
    row_at[regions] = row.ravel()
    backward_row, ran = joined_backward(trace, times, row_at)
    sizes = np.bincount(backward_row, minlength=len(names))
    innermost = np.full(len(order), -1, np.intp)  # each joined backward function's row
    for joined, position in sorted(zip(backward_row.tolist(), ran.tolist(), strict=True),
                                   key=lambda pair: -sizes[pair[0]]):
        innermost[position] = joined

    def place_of(position: int) -> tuple[int, bool]:
        """The row of the nearest region of another name or joined backward function above ``position``."""
        above = times.parent[position]
        while above >= 0:
            if row_at[above] >= 0 and row_at[above] != row_at[position]:
                return int(row_at[above]), False
            if innermost[above] >= 0:
                return int(innermost[above]), True
            above = times.parent[above]
        return -1, False

    places: dict[int, set[tuple[int, bool]]] = {}
    for position in regions.tolist():
        places.setdefault(int(row_at[position]), set()).add(place_of(position))
    return {trace.names[int(names[own])]: RegionPlace(trace.names[int(names[parent])], backward)
            for own, found in places.items() if len(found) == 1 for parent, backward in found if parent >= 0}


def sequence_joins(trace: Trace, region: str, numbers: int = 4) -> list[SequenceJoin]:
    """The ops of the first call of ``region`` that carry an autograd sequence number, in the order they start,
    until ``numbers`` numbers are shown: whether each made the node of its number, and the backward function that
    ran that node (the first one, where a retained graph ran it more than once)."""
    times = host_times(trace)
    order = times.order
    calls = np.flatnonzero(region_mask(trace) & (trace.name == (trace.names.index(region) if region in trace.names
                                                                 else -1)))
    if not len(calls):
        return []
    first, last = positions_inside(trace, times, calls[:1])
    inside = np.arange(first[0], last[0])
    inside = inside[(trace.kind[order[inside]] == KIND["cpu_op"]) & (trace.sequence[order[inside]] != NO_ID)]
    shown = np.unique(trace.sequence[order[inside]], return_index=True)[1]
    kept_numbers = set(trace.sequence[order[inside[np.sort(shown)[:numbers]]]].tolist())
    is_backward = backward_functions(trace, times)
    makers = set(node_makers(trace, times, is_backward).tolist())
    backward = np.flatnonzero(is_backward & (trace.sequence[order] != NO_ID))
    ran = {}
    for position in backward[::-1].tolist():  # the first backward function of each number stays
        ran[int(trace.sequence[order[position]])] = trace.names[int(trace.name[order[position]])]
    return [SequenceJoin(op=trace.names[int(trace.name[order[position]])], sequence=int(number),
                         makes_node=position in makers, backward=ran.get(int(number), ""))
            for position in inside.tolist() if (number := int(trace.sequence[order[position]])) in kept_numbers]


def region_rows(trace: Trace, window: Window | None = None) -> list[RegionRow]:
    """The regions (``region_mask``) that start in ``window`` (all when None), by name, with the backward of
    the ops inside them; most device time (forward and backward) first, then most CPU time (the same), then
    by name; empty when the trace has none.

    A region's backward is the backward functions whose sequence number is
    that of a forward op that made an autograd node inside one of its calls,
    at any depth (``node_makers``: the last op of that number, not the ops
    before it that carry the number too), each counted once a row; those
    backward functions run wherever they run, in the window or not. A region
    inside another of another name counts in both rows. torch counts sequence
    numbers per thread: a number that forward ops on two threads have
    (nn.DataParallel's replicas) could be either one's, and joins no region.
    """
    times = host_times(trace)
    order = times.order
    regions = np.flatnonzero(region_mask(trace)[order] & in_window(trace.ts[order], window))
    if not len(regions):
        return []
    names, row = np.unique(trace.name[order[regions]], return_inverse=True)
    row, count = row.ravel(), len(names)
    row_at = np.full(len(order), -1, np.intp)
    row_at[regions] = row
    backward_row, ran = joined_backward(trace, times, row_at)

    def summed(rows: Indices, amounts: npt.NDArray[np.float64] | Counts) -> list[float]:
        sums: list[float] = added_by(rows, amounts.astype(np.float64), count).tolist()
        return sums

    forward_sums = [summed(row, amounts) for amounts in (trace.dur[order[regions]], times.device[regions],
                                                          times.kernels[regions])]
    backward_sums = [summed(backward_row, amounts) for amounts in (trace.dur[order[ran]], times.device[ran],
                                                                    times.kernels[ran])]
    calls, backward_calls = np.bincount(row, minlength=count), np.bincount(backward_row, minlength=count)
    found = [RegionRow(name=trace.names[int(names[g])], calls=int(calls[g]), cpu_us=forward_sums[0][g],
                       device_us=forward_sums[1][g], kernels=int(forward_sums[2][g]),
                       backward_calls=int(backward_calls[g]), backward_cpu_us=backward_sums[0][g],
                       backward_device_us=backward_sums[1][g], backward_kernels=int(backward_sums[2][g]))
             for g in range(count)]
    return sorted(found, key=lambda r: (-(r["device_us"] + r["backward_device_us"]),
                                        -(r["cpu_us"] + r["backward_cpu_us"]), r["name"]))


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


def op_launched_share(trace: Trace, op: str) -> float | None:
    """The GPU time of the kernels the op ``op`` launched (its calls' External ids on the kernels) over that of
    all kernels; None without the op or without kernel time."""
    kernels = trace.kind == KIND["kernel"]
    everything = float(trace.dur[kernels].sum())
    if op not in trace.names or not everything:
        return None
    ids = trace.external_id[(trace.name == trace.names.index(op)) & (trace.kind == KIND["cpu_op"])]
    launched = kernels & np.isin(trace.external_id, ids[ids != NO_ID])
    return float(trace.dur[launched].sum()) / everything


def kernels_joined_by_id(trace: Trace) -> tuple[Floats, Mask]:
    """Each kernel's start, and whether an op holds its External id (whether the two join), in the trace's order."""
    kernels = trace.kind == KIND["kernel"]
    ops = trace.external_id[(trace.kind == KIND["cpu_op"]) & (trace.external_id != NO_ID)]
    return trace.ts[kernels], np.isin(trace.external_id[kernels], ops)


def joined_kernel_share(trace: Trace) -> float | None:
    """The share of the kernels that an op's External id joins to it; None without kernels."""
    _, joined = kernels_joined_by_id(trace)
    return float(joined.mean()) if len(joined) else None


def unjoined_before_share(trace: Trace) -> float | None:
    """Of the kernels no op's External id joins, the share that starts before the first joined one; None unless
    some kernels join and some do not."""
    starts, joined = kernels_joined_by_id(trace)
    if not joined.any() or joined.all():
        return None
    return float((starts[~joined] < starts[joined].min()).mean())


def shapes_recorded_share(trace: Trace) -> float | None:
    """The share of the ops whose events record their input shapes; None without ops."""
    ops = trace.kind == KIND["cpu_op"]
    return float(trace.recorded_shapes[ops].mean()) if ops.any() else None


def op_durations_inside(trace: Trace, op: str, region: str) -> Floats:
    """The durations of the ``op`` events that start inside an occurrence of the region ``region``, on its thread."""
    if op not in trace.names or region not in trace.names:
        return np.empty(0)
    calls = np.flatnonzero((trace.name == trace.names.index(region))
                           & np.isin(trace.kind, [KIND["annotation"], KIND["cpu_op"]]))
    if not len(calls):
        return np.empty(0)
    times = host_times(trace)
    first, last = positions_inside(trace, times, calls)
    inside = times.order[np.concatenate([np.arange(start, end) for start, end in zip(first, last, strict=True)])]
    durations: Floats = trace.dur[inside[trace.name[inside] == trace.names.index(op)]]
    return durations


def gpu_ops_per_call(trace: Trace, op: str = "", module: str = "", family: str = "", named: str = "") -> float | None:
    """The GPU ops launched inside the calls of the op ``op`` (or, without one, of the modules of the class
    ``module``), per call; with ``family``, only those whose names decode to it; with ``named``, only those whose
    names hold it. A GPU op is inside a call when the op or region that owns it (the innermost one open at its
    launch, ``launch_owners``) starts inside the call on its thread. None without a call."""
    if op:
        code = trace.names.index(op) if op in trace.names else -1
        calls = np.flatnonzero((trace.name == code) & (trace.kind == KIND["cpu_op"]))
    else:
        codes = [code for code, name in enumerate(trace.names)
                 if (match := MODULE.match(name)) and match["name"] == module]
        calls = np.flatnonzero(kinds_mask(trace, ("python",)) & np.isin(trace.name, codes))
    if not len(calls):
        return None
    times = host_times(trace)
    first, last = positions_inside(trace, times, calls)
    work, owner = launch_owners(trace, times.order, times.tree)
    names = [trace.names[code] for code in trace.name[work]]
    kept_ops = np.array([(not family or kernel_family(name).family == family) and named in name for name in names],
                        dtype=bool)
    owners = np.sort(owner[kept_ops])
    return float((np.searchsorted(owners, last) - np.searchsorted(owners, first)).sum()) / len(calls)
