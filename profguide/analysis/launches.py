"""From a launch call to its GPU op: launch delay against queueing, clock skew, the profiler's overhead, syncs."""

from collections import Counter
from typing import TypedDict

import numpy as np

from profguide.analysis.families import CONVOLUTION, ELEMENTWISE, GEMM, kernel_family
from profguide.analysis.idle import busy_intervals
from profguide.analysis.intervals import EVERYTHING, Floats, Mask, Window, clip_each, covered, starts_in
from profguide.analysis.kernels import distribution, stats
from profguide.analysis.select import Indices, gpu_work, host_syncs, kinds_mask, launch_of, names_where, overlapping
from profguide.analysis.summary import ClockSkew, Distribution, OverheadRow, ProfilerOverhead, Synchronisations
from profguide.trace.model import KIND, Trace


class LaunchDelays(TypedDict):
    """Launch delay by API, and queueing (``launch_delays``): keys of ``profguide explain``'s summary."""

    launch_delay_us: dict[str, Distribution]
    queueing_us: Distribution | None


class OccupancyQueries(TypedDict):
    """The ``cudaOccupancy…`` queries and the launches after them (``occupancy_queries``)."""

    queries: int
    next: Counter[str]
    launched: list[tuple[str, str, bool]]


def joined_launches(trace: Trace) -> tuple[Indices, Indices]:
    """(GPU ops, the calls that launched them) as index arrays, for the ops whose launch is in the trace."""
    ops = np.flatnonzero(gpu_work(trace))
    launch = launch_of(trace, ops)
    return ops[launch >= 0], launch[launch >= 0]


def launch_timing(trace: Trace, window: Window = EVERYTHING) -> tuple[Indices, Floats, Mask]:
    """For each GPU op that starts in the window, joined to its launch call: the call's index, how long after
    the call ended the op started, and whether its stream was empty then (no earlier op on it still to finish)."""
    ops, launch = joined_launches(trace)
    ready = trace.end[launch]
    by_stream = np.lexsort((trace.ts[ops], trace.lane[ops]))
    earlier_end = np.full(len(ops), -np.inf)
    same_stream = trace.lane[ops[by_stream[1:]]] == trace.lane[ops[by_stream[:-1]]]
    earlier_end[by_stream[1:]] = np.where(same_stream, trace.end[ops[by_stream[:-1]]], -np.inf)
    inside = starts_in(trace.ts[ops], window)
    return launch[inside], (trace.ts[ops] - ready)[inside], (earlier_end <= ready)[inside]


def launch_delays(trace: Trace, window: Window = EVERYTHING) -> LaunchDelays:
    """Launch delay and queueing, named apart, of the GPU ops that start in the window.

    *Launch delay* is the time from a launch call's end to its op's start on
    a stream that was empty when the call ended: the cost of launching,
    by API (runtime, driver). *Queueing* is the same span for ops whose stream
    was still busy: time spent waiting behind earlier work.
    """
    launch, wait, empty = launch_timing(trace, window)
    delay = {
        api: stats(wait[empty & (trace.kind[launch] == KIND[api])])
        for api in ("runtime", "driver")
        if (empty & (trace.kind[launch] == KIND[api])).any()
    }
    return {"launch_delay_us": delay, "queueing_us": distribution(wait[~empty])}


def clock_skew(trace: Trace, window: Window = EVERYTHING) -> ClockSkew | None:
    """GPU ops (starting in the window) that start before the call that launched them began: the host's and
    the GPU's clocks disagree by at least the largest such lead (None when no op is joined to its launch)."""
    ops, launch = joined_launches(trace)
    inside = starts_in(trace.ts[ops], window)
    ops, launch = ops[inside], launch[inside]
    if not len(ops):
        return None
    lead = trace.ts[launch] - trace.ts[ops]
    early = lead > 0
    return {"ops_starting_before_launch": int(early.sum()), "at_least_us": float(lead.max()) if early.any() else 0.0}


def profiler_overhead(trace: Trace, window: Window = EVERYTHING) -> ProfilerOverhead:
    """The profiler's own work that CUPTI reports (Activity Buffer Request, Buffer Flush …), by name, over the
    window: how often, how long (inside the window), and how much of that time the GPU sat idle."""
    overhead = np.flatnonzero((trace.kind == KIND["overhead"]) & overlapping(trace, window))
    starts, ends = clip_each(trace.ts[overhead], trace.end[overhead], window)
    busy_during = covered(busy_intervals(trace, window), starts, ends)
    names: dict[str, OverheadRow] = {}
    for index, start, end, busy_us in zip(overhead.tolist(), starts.tolist(), ends.tolist(), busy_during.tolist(),
                                          strict=True):
        row = names.setdefault(trace.names[trace.name[index]], {"count": 0, "total_us": 0.0, "gpu_idle_during_us": 0.0,
                                                                 "first_start_us": float(trace.ts[index])})
        row["count"] += 1
        row["total_us"] += end - start
        row["gpu_idle_during_us"] += end - start - busy_us
    return {"events": int(len(overhead)), "total_us": float((ends - starts).sum()), "by_name": names}


def synchronisations(trace: Trace, window: Window = EVERYTHING) -> Synchronisations:
    """Host sync calls and GPU-side sync events that overlap the window: how long they took inside it and how
    much GPU work each covered."""
    syncs = host_syncs(trace)
    syncs = syncs[overlapping(trace, window)[syncs]]
    starts, ends = clip_each(trace.ts[syncs], trace.end[syncs], window)
    busy_during = covered(busy_intervals(trace, window), starts, ends)
    longest = np.argsort(-trace.dur[syncs], kind="stable")[:5]
    gpu_side = kinds_mask(trace, ("sync",)) & overlapping(trace, window)
    return {
        "host_calls": int(len(syncs)),
        "host_time_us": float((ends - starts).sum()),
        "gpu_busy_during_us": float(busy_during.sum()),
        "gpu_sync_events": int(gpu_side.sum()),
        "longest": [
            {"name": trace.names[trace.name[syncs[i]]], "start_us": float(trace.ts[syncs[i]]),
             "dur_us": float(trace.dur[syncs[i]]), "gpu_busy_during_us": float(busy_during[i])}
            for i in longest
        ],
    }


def occupancy_family(name: str) -> str:
    """``gemm`` for a matrix-multiply kernel (a GEMM or a convolution: cuBLAS, CUTLASS, cuDNN), ``elementwise``
    for an elementwise kernel, else ``other``, as ``families.kernel_family`` decodes the name: enough to tell
    which launches come after occupancy queries."""
    family = kernel_family(name).family
    if family in (GEMM, CONVOLUTION):
        return "gemm"
    return "elementwise" if family == ELEMENTWISE else "other"


def occupancy_queries(trace: Trace) -> OccupancyQueries:
    """The ``cudaOccupancy…`` queries and the launches that follow them on the same thread.

    Libraries such as cuBLAS ask the runtime how many blocks of a kernel fit on
    a multiprocessor before they launch it. Returns {"queries": count,
    "next": {family: queries whose next launch on their thread started a GPU
    op of that family}, "launched": [(GPU op name, family, whether its launch
    was the next after a query), one per launch]}.
    """
    calls = np.flatnonzero(kinds_mask(trace, ("runtime", "driver")))
    calls = calls[np.lexsort((trace.ts[calls], trace.lane[calls]))]
    ops, launch = joined_launches(trace)
    op_of_launch = dict(zip(launch.tolist(), ops.tolist(), strict=True))
    is_query = np.array([trace.names[code].startswith("cudaOccupancy") for code in trace.name[calls]], dtype=bool)
    launches = np.flatnonzero([call in op_of_launch for call in calls.tolist()])
    following = np.searchsorted(launches, np.flatnonzero(is_query), side="right")
    name_of = {call: trace.names[trace.name[op]] for call, op in op_of_launch.items()}
    after, next_family = set[int](), Counter[str]()
    for query, position in zip(np.flatnonzero(is_query), following, strict=True):
        if position < len(launches) and trace.lane[calls[launches[position]]] == trace.lane[calls[query]]:
            call = int(calls[launches[position]])
            next_family[occupancy_family(name_of[call])] += 1
            after.add(call)
    launched = [(name_of[call], occupancy_family(name_of[call]), call in after) for call in sorted(op_of_launch)]
    return {"queries": int(is_query.sum()), "next": next_family, "launched": launched}


def calls_named(trace: Trace, prefix: str) -> int:
    """How many runtime or driver calls whose name starts with ``prefix`` the trace holds."""
    calls = kinds_mask(trace, ("runtime", "driver")) & names_where(trace, lambda name: name.startswith(prefix))
    return int(calls.sum())


def launching_calls(trace: Trace, kernels: str) -> list[str]:
    """The name of the call that launched each kernel whose name holds ``kernels`` (in any case), for those whose
    launch the trace holds."""
    named = np.flatnonzero((trace.kind == KIND["kernel"])
                           & names_where(trace, lambda name: kernels.lower() in name.lower()))
    launches = launch_of(trace, named)
    return [trace.names[code] for code in trace.name[launches[launches >= 0]]]


def queries_inside_ops(trace: Trace, op: str) -> list[bool]:
    """For each ``cudaOccupancy…`` query of the runtime or the driver: whether an op whose name holds ``op`` encloses
    it on its thread."""
    host = np.isin(trace.kind, [KIND["runtime"], KIND["driver"]])
    queries = np.flatnonzero(host & names_where(trace, lambda name: name.startswith("cudaOccupancy")))
    ops = np.flatnonzero((trace.kind == KIND["cpu_op"]) & names_where(trace, lambda name: op in name))
    return [bool(((trace.lane[ops] == trace.lane[query]) & (trace.ts[ops] <= trace.ts[query])
                  & (trace.end[ops] >= trace.end[query])).any()) for query in queries]
