"""GPU busy and idle time: merged busy intervals, the gaps between them, and each gap's cause."""

import numpy as np

from profguide.analysis.select import gpu_work, host_syncs, launch_of


def merge(starts, ends):
    """The union of intervals as sorted, disjoint (starts, ends) arrays."""
    if not len(starts):
        return np.empty(0), np.empty(0)
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], np.maximum.accumulate(ends[order])
    new_run = np.ones(len(starts), dtype=bool)
    new_run[1:] = starts[1:] > ends[:-1]
    run_ends = np.append(np.flatnonzero(new_run)[1:] - 1, len(starts) - 1)
    return starts[new_run], ends[run_ends]


def clip(starts, ends, window):
    """Intervals cut to the window, empty ones dropped."""
    starts, ends = np.maximum(starts, window[0]), np.minimum(ends, window[1])
    keep = ends > starts
    return starts[keep], ends[keep]


def union_length(starts, ends):
    merged_starts, merged_ends = merge(np.asarray(starts, float), np.asarray(ends, float))
    return float((merged_ends - merged_starts).sum())


def busy_intervals(trace, window, mask=None):
    """Merged intervals during which some GPU op (of ``mask``) ran, inside the window."""
    mask = gpu_work(trace) if mask is None else mask
    return merge(*clip(trace.ts[mask], trace.end[mask], window))


def idle_gaps(busy, window):
    """The complement of merged busy intervals inside the window, as (starts, ends)."""
    starts, ends = busy
    gap_starts = np.concatenate(([window[0]], ends))
    gap_ends = np.concatenate((starts, [window[1]]))
    keep = gap_ends > gap_starts
    return gap_starts[keep], gap_ends[keep]


IDLE_CAUSES = {
    "host": "the GPU waited for the host to launch the next op",
    "sync": "the host was blocked in a synchronisation when the GPU ran out of work",
    "queued": "the next op was already queued (back-to-back launches, or a wait on another stream)",
    "other": "the next op has no launch call in the trace to explain the gap",
}


def inside_any(trace, events, times):
    """For each time, whether it falls inside one of the ``events`` (indices)."""
    if not len(events):
        return np.zeros(len(times), dtype=bool)
    order = events[np.argsort(trace.ts[events], kind="stable")]
    reach = np.maximum.accumulate(trace.end[order])  # furthest end among events started so far
    position = np.searchsorted(trace.ts[order], times, side="right") - 1
    return (position >= 0) & (reach[np.maximum(position, 0)] >= times)


def covered(busy, starts, ends):
    """Length of the merged ``busy`` intervals inside each [start, end]."""
    busy_starts, busy_ends = busy
    if not len(busy_starts):
        return np.zeros(len(starts))
    done_before = np.concatenate(([0.0], np.cumsum(busy_ends - busy_starts)))  # busy time of the first k intervals

    def busy_until(times):
        started = np.searchsorted(busy_starts, times, side="right")
        last = np.maximum(started - 1, 0)
        still_ahead = np.where(started > 0, np.maximum(busy_ends[last] - times, 0), 0)
        return done_before[started] - still_ahead

    return busy_until(np.asarray(ends, float)) - busy_until(np.asarray(starts, float))


def idle_breakdown(trace, window, ops=None):
    """GPU idle time inside the window, split by cause, with the longest gaps.

    ``ops`` (a mask) says which GPU events count as busy; by default kernels, memcpy and memset.
    """
    ops = gpu_work(trace) if ops is None else ops
    busy = busy_intervals(trace, window, ops)
    gap_starts, gap_ends = idle_gaps(busy, window)
    work = np.flatnonzero(ops)
    causes = np.full(len(gap_starts), "other", dtype=object)
    if len(work) and len(gap_starts):
        # The op that ends each gap: the first GPU op starting at or after the gap's end.
        order = work[np.argsort(trace.ts[work], kind="stable")]
        position = np.searchsorted(trace.ts[order], gap_ends)
        has_next = position < len(order)
        next_op = np.where(has_next, order[np.minimum(position, len(order) - 1)], -1)
        launch = np.where(next_op >= 0, launch_of(trace, np.maximum(next_op, 0)), -1)
        launch_end = np.where(launch >= 0, trace.end[np.maximum(launch, 0)], np.nan)
        in_sync = inside_any(trace, host_syncs(trace), gap_starts)
        causes[(launch >= 0) & (launch_end <= gap_starts)] = "queued"
        causes[(launch >= 0) & (launch_end > gap_starts)] = "host"
        causes[(launch >= 0) & (launch_end > gap_starts) & in_sync] = "sync"
    lengths = gap_ends - gap_starts
    by_cause = {
        cause: {"idle_us": float(lengths[causes == cause].sum()), "gaps": int((causes == cause).sum()),
                "meaning": meaning}
        for cause, meaning in IDLE_CAUSES.items()
    }
    longest = np.argsort(-lengths, kind="stable")[:5]
    return {
        "busy_us": float((busy[1] - busy[0]).sum()),
        "idle_us": float(lengths.sum()),
        "by_cause": by_cause,
        "longest_gaps": [
            {"start_us": float(gap_starts[i]), "dur_us": float(lengths[i]), "cause": str(causes[i])} for i in longest
        ],
    }
