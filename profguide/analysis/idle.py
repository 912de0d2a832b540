"""GPU busy and idle time: merged busy intervals, the gaps between them, and each gap's cause."""

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from profguide.analysis.graphs import replayed_after_first
from profguide.analysis.host import idle_by_activity
from profguide.analysis.intervals import Floats, Intervals, Mask, Window, clip, inside_any, merge
from profguide.analysis.select import Indices, gpu_work, host_syncs, hta_ops, kinds_mask, launch_of
from profguide.analysis.summary import IdleBreakdown, IdleCause
from profguide.analysis.vocabulary import Cause
from profguide.trace.model import KIND, NO_ID, Trace


def busy_intervals(trace: Trace, window: Window, mask: Mask | None = None) -> Intervals:
    """Merged intervals during which some GPU op (of ``mask``) ran, inside the window."""
    mask = gpu_work(trace) if mask is None else mask
    return merge(*clip(trace.ts[mask], trace.end[mask], window))


def idle_gaps(busy: Intervals, window: Window) -> Intervals:
    """The complement of merged busy intervals inside the window, as (starts, ends)."""
    starts, ends = busy
    gap_starts = np.concatenate(([window[0]], ends))
    gap_ends = np.concatenate((starts, [window[1]]))
    keep = gap_ends > gap_starts
    return gap_starts[keep], gap_ends[keep]


def idle_pct_by_htas_rule(trace: Trace, window: Window) -> float:
    """The GPU's idle share of ``window``, in percent, with busy time from the ops HolisticTraceAnalysis's
    temporal breakdown counts (``hta_ops``), at the trace's own times, which HTA rounds to whole µs."""
    start, end = window
    if end <= start:
        return 0.0
    busy_starts, busy_ends = busy_intervals(trace, window, hta_ops(trace))
    return 100 * (end - start - float((busy_ends - busy_starts).sum())) / (end - start)


def hta_ops_in(trace: Trace, window: Window) -> int:
    """How many of the GPU ops HolisticTraceAnalysis's temporal breakdown counts (``hta_ops``) start inside
    ``window``: the ops whose times HTA rounds to whole µs where it measures ``idle_pct_by_htas_rule``."""
    start, end = window
    return int((hta_ops(trace) & (trace.ts >= start) & (trace.ts <= end)).sum())


IDLE_CAUSES: dict[Cause, str] = {
    "host": "the GPU waited for the host to launch the next op",
    "sync": "the host was blocked in a synchronisation or a blocking copy (cudaMemcpy, hipMemcpyWithStream) when the "
    "GPU ran out of work",
    "profiler": "the profiler's own work (an Activity Buffer Request, a Buffer Flush) covered the gap",
    "queued": "the next op was already queued (back-to-back launches, a later node of a CUDA graph already "
    "launched, a wait on another stream, or an op launched before the trace began)",
    "other": "the next op has no launch call in the trace to explain the gap",
}
# The causes in which the GPU waited for the host: split by host activity.
LATE_LAUNCH: tuple[Cause, ...] = ("host", "sync")


def next_launches(trace: Trace, ops: Mask, gap_ends: Floats) -> tuple[Indices, Indices]:
    """For each gap: the op that ends it (the first GPU op of ``ops`` starting at or after its end) and
    the call that launched that op, as indices (-1 for none)."""
    work = np.flatnonzero(ops)
    if not len(work):
        return np.full(len(gap_ends), -1), np.full(len(gap_ends), -1)
    order = work[np.argsort(trace.ts[work], kind="stable")]
    position = np.searchsorted(trace.ts[order], gap_ends)
    next_op = np.where(position < len(order), order[np.minimum(position, len(order) - 1)], -1)
    launch = np.where(next_op >= 0, launch_of(trace, np.maximum(next_op, 0)), -1)
    return next_op, launch


def launched_before_trace(trace: Trace, ops: Indices) -> Mask:
    """Which GPU ops were launched before the trace began: their correlation id is older than every launch
    call's in the trace (ids count up), so the call happened before the profiler started recording."""
    calls = kinds_mask(trace, ("runtime", "driver")) & (trace.correlation != NO_ID)
    if not calls.any():
        return np.zeros(len(ops), dtype=bool)
    correlation = trace.correlation[np.maximum(ops, 0)]
    before: Mask = (ops >= 0) & (correlation != NO_ID) & (correlation < trace.correlation[calls].min())
    return before


def gap_causes(trace: Trace, gap_starts: Floats, gap_ends: Floats, next_op: Indices,
               launch: Indices) -> npt.NDArray[np.object_]:
    """Why the GPU was idle in each gap, as a key of IDLE_CAUSES."""
    causes = np.full(len(gap_starts), "other", dtype=object)
    causes[(launch < 0) & launched_before_trace(trace, next_op)] = "queued"
    launch_end = np.where(launch >= 0, trace.end[np.maximum(launch, 0)], np.nan)
    syncs = host_syncs(trace)
    in_sync = inside_any(trace.ts[syncs], trace.end[syncs], gap_starts)
    causes[(launch >= 0) & (launch_end <= gap_starts)] = "queued"
    causes[(launch >= 0) & (launch_end > gap_starts)] = "host"
    causes[(launch >= 0) & (launch_end > gap_starts) & in_sync] = "sync"
    # A graph launch queues every node at once: a gap before a later node is the graph's own, even while the
    # launch call still runs (HolisticTraceAnalysis#290 read a replayed graph as idle on a saturated GPU).
    causes[replayed_after_first(trace, next_op)] = "queued"
    overhead = np.flatnonzero(trace.kind == KIND["overhead"])
    causes[inside_any(trace.ts[overhead], trace.end[overhead], (gap_starts + gap_ends) / 2)] = "profiler"
    return causes


class IdleIntervals(NamedTuple):
    """The GPU's idle intervals inside a window, in order, each with the op that ends it and that op's launch
    call (event indices, -1 for none) and its cause (a key of IDLE_CAUSES)."""

    starts: Floats
    ends: Floats
    next_op: Indices
    launch: Indices
    causes: npt.NDArray[np.object_]


def idle_intervals(trace: Trace, window: Window, ops: Mask | None = None,
                   busy: Intervals | None = None) -> IdleIntervals:
    """Every gap between the GPU ops of ``ops`` (by default kernels, memcpy and memset) inside the window, with
    its cause; ``busy``: their merged busy intervals, where already made."""
    ops = gpu_work(trace) if ops is None else ops
    gap_starts, gap_ends = idle_gaps(busy_intervals(trace, window, ops) if busy is None else busy, window)
    next_op, launch = next_launches(trace, ops, gap_ends)
    return IdleIntervals(gap_starts, gap_ends, next_op, launch,
                         gap_causes(trace, gap_starts, gap_ends, next_op, launch))


def idle_breakdown(trace: Trace, window: Window, ops: Mask | None = None) -> IdleBreakdown:
    """GPU idle time inside the window, split by cause, the host's part by host activity, with the
    longest gaps.

    ``ops`` (a mask) says which GPU events count as busy; by default kernels, memcpy and memset.
    """
    ops = gpu_work(trace) if ops is None else ops
    busy = busy_intervals(trace, window, ops)
    gap_starts, gap_ends, next_op, launch, causes = idle_intervals(trace, window, ops, busy)
    lengths = gap_ends - gap_starts
    by_cause: dict[Cause, IdleCause] = {
        cause: {"idle_us": float(lengths[causes == cause].sum()), "gaps": int((causes == cause).sum()),
                "meaning": meaning}
        for cause, meaning in IDLE_CAUSES.items()
    }
    late = np.isin(causes, LATE_LAUNCH)
    launching_lanes = np.where(late & (launch >= 0), trace.lane[np.maximum(launch, 0)], -1)
    longest = np.argsort(-lengths, kind="stable")[:5]
    return {
        "busy_us": float((busy[1] - busy[0]).sum()),
        "idle_us": float(lengths.sum()),
        "by_cause": by_cause,
        "by_activity": idle_by_activity(trace, gap_starts[late], gap_ends[late], launching_lanes[late]),
        "longest_gaps": [  # each gap's cause as the key of IDLE_CAUSES it is
            {"start_us": float(gap_starts[i]), "dur_us": float(lengths[i]), "cause": cause} for i in longest
            for cause in IDLE_CAUSES if causes[i] == cause
        ],
    }
