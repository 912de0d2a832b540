"""Facts about a trace, each a small function over ``profguide.trace.Trace``.

Every fact is plain data (numbers, strings, lists, dicts) so that pages,
captions and ``profguide`` commands can quote it. Times are in µs.
"""

import re
import statistics

from profguide.trace import GPU_KINDS, HOST_KINDS

STEP_NAME = re.compile(r"ProfilerStep#(\d+)$")
SYNC_CALLS = frozenset({"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize"})
GPU_WORK_KINDS = frozenset({"kernel", "memcpy", "memset"})


def activity_window(trace):
    """(start, end) of the host and GPU activity, leaving out profiler bookkeeping."""
    kept = [s for s in trace.slices if s.kind in HOST_KINDS or s.kind in GPU_KINDS]
    return min(s.ts for s in kept), max(s.end for s in kept)


def lanes(trace, kinds):
    """(pid, tid) pairs that carry slices of ``kinds``, in order of first appearance."""
    seen = {}
    for s in trace.slices:
        if s.kind in kinds:
            seen.setdefault((s.pid, s.tid), None)
    return list(seen)


def cpu_lanes(trace):
    return lanes(trace, HOST_KINDS)


def gpu_lanes(trace):
    return lanes(trace, GPU_KINDS - {"gpu_annotation"})


def nesting_depths(slices):
    """Depth of each slice on one lane: 0 for outermost, +1 per enclosing slice.

    ``slices`` must be sorted by (start, -duration), as Trace keeps them.
    """
    depths = []
    open_ends = []
    for s in slices:
        while open_ends and open_ends[-1] <= s.ts:
            open_ends.pop()
        depths.append(len(open_ends))
        open_ends.append(s.end)
    return depths


def profiler_steps(trace):
    """The ``ProfilerStep#N`` regions that ``prof.step()`` marks, in order."""
    steps = []
    for s in trace.slices:
        match = STEP_NAME.match(s.name)
        if match and s.kind == "annotation":
            steps.append({"step": int(match.group(1)), "start_us": s.ts, "dur_us": s.dur})
    return steps


def union_length(intervals):
    """Total length covered by (start, end) intervals, overlaps counted once."""
    total = 0.0
    covered_to = float("-inf")
    for start, end in sorted(intervals):
        if end > covered_to:
            total += end - max(start, covered_to)
            covered_to = end
    return total


def gpu_busy_us(trace):
    return union_length((s.ts, s.end) for s in trace.slices if s.kind in GPU_WORK_KINDS)


def kernel_summary(trace, limit=5):
    """Kernels grouped by name, most total time first: count, total and mean."""
    groups = {}
    for s in trace.slices:
        if s.kind == "kernel":
            groups.setdefault(s.name, []).append(s.dur)
    rows = [
        {"name": name, "count": len(durs), "total_us": sum(durs), "mean_us": sum(durs) / len(durs)}
        for name, durs in groups.items()
    ]
    rows.sort(key=lambda row: (-row["total_us"], row["name"]))
    return rows[:limit]


def launch_latencies(trace):
    """For each kernel joined to its launch call by correlation id: start-to-start delay."""
    launches = {
        s.correlation: s
        for s in trace.slices
        if s.kind in ("runtime", "driver") and s.correlation is not None
    }
    latencies = []
    for s in trace.slices:
        launch = launches.get(s.correlation) if s.kind == "kernel" else None
        if launch is not None:
            latencies.append({"launch": launch.name, "kernel": s.name, "latency_us": s.ts - launch.ts})
    return latencies


def longest_sync(trace):
    """The longest synchronising runtime call, or None."""
    syncs = [s for s in trace.slices if s.kind == "runtime" and s.name in SYNC_CALLS]
    if not syncs:
        return None
    longest = max(syncs, key=lambda s: s.dur)
    return {"name": longest.name, "dur_us": longest.dur, "start_us": longest.ts}


def annotation_durations(trace):
    """Total duration of each ``record_function`` region by name."""
    totals = {}
    for s in trace.slices:
        if s.kind == "annotation" and not STEP_NAME.match(s.name):
            totals[s.name] = totals.get(s.name, 0.0) + s.dur
    return totals


def summarise(values):
    if not values:
        return None
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def facts(trace):
    """The facts a page or caption quotes about one trace."""
    start, end = activity_window(trace)
    latencies = launch_latencies(trace)
    return {
        "window_us": end - start,
        "cpu_lanes": len(cpu_lanes(trace)),
        "gpu_lanes": len(gpu_lanes(trace)),
        "cpu_ops": sum(1 for s in trace.slices if s.kind == "cpu_op"),
        "kernel_count": sum(1 for s in trace.slices if s.kind == "kernel"),
        "kernel_time_us": sum(s.dur for s in trace.slices if s.kind == "kernel"),
        "gpu_busy_us": gpu_busy_us(trace),
        "top_kernels": kernel_summary(trace),
        "launches": len(latencies),
        "launch_latency_us": summarise([row["latency_us"] for row in latencies]),
        "longest_sync": longest_sync(trace),
        "annotations": annotation_durations(trace),
        "steps": profiler_steps(trace),
    }
