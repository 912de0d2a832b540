"""Can this trace be trusted? Checks of a trace's integrity, run before every verdict (``trust``).

The first six are the rules of torch's trace validator (torch 2.13, ``torch/profiler/_trace_validator.py``,
https://github.com/pytorch/pytorch/blob/main/torch/profiler/_trace_validator.py), written anew over the
Trace's columns: a GPU op starts after its launch call (torch matches them by External id, this by
correlation, as every analysis here does; ``launches.clock_skew`` measures it), a stream wait names the
``cudaEventRecord`` it waits on and that record comes before it, no kernel still runs on a stream when a
Stream Sync starts on it, ``record_param_comms`` carries the collective's metadata, and no sequence number
is shared by two backward ops.

The others are this guide's, for what a trace loses that those rules do not look for: GPU ops whose launch
is not in the trace (the profiler started after they were queued, or dropped the calls) and launches whose
GPU op is not, Kineto's cap on events (5 M since https://github.com/pytorch/kineto/pull/1114) reached, a
few µs of GPU work in a long trace, a trace of metadata alone, and a CUPTI range profiler's trace (counters
per range, no timeline).

Each check is a pure function of the trace that returns what it saw (``Seen``) or None. A failed check
lowers the confidence to reduced, or to none where the trace cannot support a verdict at all.
"""

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from profguide.analysis.graphs import captures
from profguide.analysis.idle import busy_intervals
from profguide.analysis.intervals import EVERYTHING, Mask, union_length
from profguide.analysis.launches import clock_skew, joined_launches
from profguide.analysis.select import (
    Indices,
    activity_window,
    gpu_work,
    kinds_mask,
    launches_by_correlation,
    names_where,
    steps_total_us,
    unlaunched,
)
from profguide.analysis.summary import Trust, TrustReason
from profguide.analysis.vocabulary import Confidence, TrustCheck, TrustSource
from profguide.patterns import LAUNCH_CALL
from profguide.text import count_of, format_duration
from profguide.trace.model import GPU_KINDS, HOST_KINDS, KIND, NO_ID, SYNC_TID_OFFSET, Trace

TORCH: TrustSource = "torch's trace validator"
GUIDE: TrustSource = "this guide"
EVENT_RECORD_CALLS = frozenset({"cudaEventRecord", "cudaEventRecord_ptsz", "cudaEventRecordWithFlags",
                                "cudaEventRecordWithFlags_ptsz", "hipEventRecord", "hipEventRecordWithFlags"})
WAITS_ON_EVENT = frozenset({"Stream Wait Event", "Event Sync"})  # the GPU sync events that name the event awaited
COLLECTIVE_METADATA = ("Collective name", "dtype", "In msg nelems", "Out msg nelems", "Group size")
BACKWARD = "autograd::engine::evaluate_function:"
KINETO_EVENT_CAP = 5_000_000
NEAR_CAP = 0.99  # a count this close to the cap (or at it) may have been cut there
LITTLE_GPU_BUSY_US = 1000.0  # less GPU work than this, and under LITTLE_GPU_SHARE of the trace, is too little to judge
LITTLE_GPU_SHARE = 0.001
DROPPED_REDUCED_PCT = 5  # GPU work (or launches) without its other half, as a share: reduced from here
DROPPED_NONE_PCT = 50  # and none from here: most of what the verdict would read is missing


class Seen(NamedTuple):
    """What a failed check saw: the confidence it leaves, in words, how many events, and where first."""

    lowers_to: Confidence
    seen: str
    events: int
    at_us: float | None = None


Check = Callable[[Trace], Seen | None]


def first_at(trace: Trace, indices: Indices) -> float | None:
    return float(trace.ts[indices].min()) if len(indices) else None


def sync_events(trace: Trace, names: frozenset[str]) -> Mask:
    """The GPU's sync events of these kinds (Kineto names each after its ``cuda_sync_kind``)."""
    return kinds_mask(trace, ("sync",)) & names_where(trace, names.__contains__)


def dropped_level(pct: float) -> Confidence | None:
    return "none" if pct >= DROPPED_NONE_PCT else "reduced" if pct >= DROPPED_REDUCED_PCT else None


def kernel_before_launch(trace: Trace) -> Seen | None:
    """torch's ``_check_gpu_kernel_causality``: a GPU op that starts before its launch call."""
    skew = clock_skew(trace)
    if skew is None or not skew["ops_starting_before_launch"]:
        return None
    ops, launch = joined_launches(trace)
    early = ops[trace.ts[ops] < trace.ts[launch]]
    return Seen("reduced", f"GPU ops that start before the call that launched them: {len(early):,}, by up to "
                f"{format_duration(skew['at_least_us'])}; the host's and the GPU's clocks disagree",
                len(early), first_at(trace, early))


def stream_wait_unfilled(trace: Trace) -> Seen | None:
    """torch's ``_check_stream_wait_corr_id_populated``: a Stream Wait Event or Event Sync that does not name
    the ``cudaEventRecord`` it waits on."""
    unfilled = np.flatnonzero(sync_events(trace, WAITS_ON_EVENT) & (trace.waits_for < 0))
    if not len(unfilled):
        return None
    return Seen("reduced", f"stream waits and event syncs that do not name the event record they wait on: "
                f"{len(unfilled):,}", len(unfilled), first_at(trace, unfilled))


def stream_wait_not_in_past(trace: Trace) -> Seen | None:
    """torch's ``_check_stream_wait_corr_id_in_past``: the record a Stream Wait Event names is in the trace
    and starts no later than the wait."""
    waits = np.flatnonzero(sync_events(trace, frozenset({"Stream Wait Event"})) & (trace.waits_for >= 0))
    if not len(waits):
        return None
    records = np.flatnonzero(kinds_mask(trace, ("runtime", "driver")) & (trace.correlation != NO_ID)
                             & names_where(trace, EVENT_RECORD_CALLS.__contains__))
    records = records[np.lexsort((trace.ts[records], trace.correlation[records]))]
    keys = trace.correlation[records]
    earliest = np.r_[True, keys[1:] != keys[:-1]] if len(keys) else np.zeros(0, dtype=bool)
    keys, starts = keys[earliest], trace.ts[records[earliest]]
    wanted = trace.waits_for[waits]
    position = np.clip(np.searchsorted(keys, wanted), 0, max(len(keys) - 1, 0))
    found = keys[position] == wanted if len(keys) else np.zeros(len(waits), dtype=bool)
    late = found & (starts[position] > trace.ts[waits]) if len(keys) else found
    bad = waits[~found | late]
    if not len(bad):
        return None
    return Seen("reduced", f"stream waits whose event record is not in the trace ({int((~found).sum()):,}) or "
                f"starts after them ({int(late.sum()):,})", len(bad), first_at(trace, bad))


def synced_stream(trace: Trace, lane: int) -> int:
    """The lane of the stream a Stream Sync on ``lane`` waits for: the lane itself, or, for Kineto's row of a
    stream's syncs (tid = stream + ``SYNC_TID_OFFSET``), the stream's own lane (-1 where it has none)."""
    pid, tid = trace.lanes[lane]
    if lane not in trace.sync_rows or not isinstance(tid, int) or tid < SYNC_TID_OFFSET:
        return lane
    stream = (pid, tid - SYNC_TID_OFFSET)
    return trace.lanes.index(stream) if stream in trace.lanes else -1


def kernel_running_at_stream_sync(trace: Trace) -> Seen | None:
    """torch's ``_check_stream_sync_overlap``: no kernel on a stream still runs when a Stream Sync on that
    stream starts. The trace is in order of start, so each lane's kernels are too."""
    syncs = np.flatnonzero(sync_events(trace, frozenset({"Stream Sync"})))
    kernels = np.flatnonzero(trace.kind == KIND["kernel"])
    running = np.zeros(len(syncs), dtype=bool)
    for lane in np.unique(trace.lane[syncs]).tolist():
        on_lane, mine = kernels[trace.lane[kernels] == synced_stream(trace, lane)], trace.lane[syncs] == lane
        at = trace.ts[syncs[mine]]
        started = np.searchsorted(trace.ts[on_lane], at, side="left")  # kernels that start before each sync
        latest_end = np.maximum.accumulate(trace.end[on_lane]) if len(on_lane) else np.zeros(1)
        running[mine] = (started > 0) & (latest_end[np.maximum(started - 1, 0)] > at)
    bad = syncs[running]
    if not len(bad):
        return None
    return Seen("reduced", f"Stream Syncs that start while a kernel on their stream still runs: {len(bad):,}",
                len(bad), first_at(trace, bad))


def collective_metadata_missing(trace: Trace) -> Seen | None:
    """torch's ``_check_nccl_metadata``: ``record_param_comms`` carries the collective's name, dtype, message
    sizes and group size."""
    ops = np.flatnonzero(names_where(trace, "record_param_comms".__eq__))
    bare = np.array([index for index in ops.tolist()
                     if not all(key in trace.comm_args.get(index, {}) for key in COLLECTIVE_METADATA)], dtype=np.int64)
    if not len(bare):
        return None
    return Seen("reduced", "record_param_comms events without the collective's metadata "
                f"({', '.join(COLLECTIVE_METADATA)}): {len(bare):,} of {len(ops):,}; what each collective moved is "
                "unknown", len(bare), first_at(trace, bare))


def backward_sequence_shared(trace: Trace) -> Seen | None:
    """torch's ``_check_backward_seq_id_uniqueness``: one backward op per autograd sequence number."""
    backward = np.flatnonzero(names_where(trace, lambda name: BACKWARD in name) & (trace.sequence != NO_ID))
    pairs = np.unique(np.stack((trace.sequence[backward], trace.name[backward].astype(np.int64))), axis=1)
    numbers, ops = np.unique(pairs[0], return_counts=True)
    bad = backward[np.isin(trace.sequence[backward], numbers[ops > 1])]
    if not len(bad):
        return None
    return Seen("reduced", f"sequence numbers shared by two or more backward ops: {int((ops > 1).sum()):,} "
                f"({len(bad):,} events); a backward op may be joined to the wrong forward op", len(bad),
                first_at(trace, bad))


def gpu_ops_without_launch(trace: Trace) -> Seen | None:
    """GPU ops whose launch call is not in the trace (``select.unlaunched``), by their share of the GPU's busy
    time; a trace that records no launch at all is not missing any."""
    work = gpu_work(trace)
    orphans = unlaunched(trace, work)
    if not orphans.any() or orphans.sum() == work.sum():
        return None
    pct = 100 * union_length(*busy_intervals(trace, EVERYTHING, orphans)) / union_length(
        *busy_intervals(trace, EVERYTHING, work)) if trace.dur[work].any() else 0.0
    # The GPU side is whole: busy and idle time stand, only the host side of these ops is missing.
    if dropped_level(pct) is None:
        return None
    found = np.flatnonzero(orphans)
    recorded, _ = launches_by_correlation(trace)  # sorted; CUPTI numbers its correlations in order
    early = len(recorded) and trace.correlation[found].max() < recorded[0]
    return Seen("reduced", f"GPU ops whose launch call is not in the trace: {len(found):,}, {pct:.0f}% of the GPU's "
                f"busy time" + (", all before the first launch it records (queued before the profiler "
                                "started)" if early else ""), len(found), first_at(trace, found))


def in_capture(trace: Trace, calls: Indices) -> Mask:
    """Which calls fall inside a stream capture (``graphs.captures``) on their thread: a captured launch runs no
    kernel until its graph is replayed."""
    inside = np.zeros(len(calls), dtype=bool)
    for begin, end in captures(trace):
        inside |= ((trace.lane[calls] == trace.lane[begin]) & (trace.ts[calls] >= trace.ts[begin])
                   & (trace.ts[calls] <= trace.ts[end]))
    return inside


def launches_without_gpu_op(trace: Trace) -> Seen | None:
    """Kernel launch calls (outside a stream capture) whose GPU op is not in the trace, as a share of them."""
    calls = np.flatnonzero(kinds_mask(trace, ("runtime", "driver")) & names_where(trace, LAUNCH_CALL.match)
                           & (trace.correlation != NO_ID))
    calls = calls[~in_capture(trace, calls)]
    missing = calls[~np.isin(trace.correlation[calls], trace.correlation[gpu_work(trace)])]
    level = dropped_level(100 * len(missing) / len(calls)) if len(calls) else None
    if level is None:
        return None
    return Seen(level, f"kernel launches whose kernel is not in the trace: {len(missing):,} of {len(calls):,}",
                len(missing), first_at(trace, missing))


def event_cap_reached(trace: Trace) -> Seen | None:
    """The trace's events, or its GPU's, at Kineto's cap or just under it: what came after was dropped."""
    events, device = sum(trace.phases.values()), int(kinds_mask(trace, GPU_KINDS).sum())
    near = [(count, what) for count, what in ((events, "events"), (device, "GPU events"))
            if NEAR_CAP * KINETO_EVENT_CAP <= count <= KINETO_EVENT_CAP]
    if not near:
        return None
    count, what = near[0]
    return Seen("reduced", f"{count:,} {what}, at or just under Kineto's cap of {KINETO_EVENT_CAP:,}: events past "
                "it were dropped", count)


def little_gpu_work(trace: Trace) -> Seen | None:
    """GPU work so short beside the trace (its ProfilerSteps, else its host and GPU activity) that a verdict on
    it would judge a sliver: a few µs of kernels in a 13-second step is not compute-bound."""
    work = gpu_work(trace)
    if not work.any():
        return None
    busy = union_length(*busy_intervals(trace, EVERYTHING, work))
    start, end = activity_window(trace)
    steps_us = steps_total_us(trace)
    span = steps_us or end - start
    if busy >= LITTLE_GPU_BUSY_US or busy >= LITTLE_GPU_SHARE * span:
        return None
    return Seen("none", f"{format_duration(busy)} of GPU work in {format_duration(span)} of "
                f"{'ProfilerSteps' if steps_us else 'trace'}: too little to judge", int(work.sum()),
                first_at(trace, np.flatnonzero(work)))


def metadata_only(trace: Trace) -> Seen | None:
    """No host or device event at all: only the profiler's own spans and instants."""
    if kinds_mask(trace, HOST_KINDS | GPU_KINDS).any() or trace.unread:
        return None
    return Seen("none", f"no host or GPU events: the trace holds only metadata and the profiler's own bookkeeping "
                f"({count_of(len(trace), 'event')})", len(trace))


def range_profiler_only(trace: Trace) -> Seen | None:
    """A CUPTI range profiler's trace: ``cuda_profiler_range`` events (counters per range) and no kernels."""
    ranges = trace.unread.get("cuda_profiler_range", 0)
    if not ranges or (trace.kind == KIND["kernel"]).any():
        return None
    return Seen("none", f"a CUPTI range profiler's trace ({ranges:,} cuda_profiler_range events) and no kernels: "
                "counters per range, not a timeline", ranges)


# Every check, in the reference page's order, with where it comes from.
CHECKS: dict[TrustCheck, tuple[TrustSource, Check]] = {
    "kernel-before-launch": (TORCH, kernel_before_launch),
    "stream-wait-unfilled": (TORCH, stream_wait_unfilled),
    "stream-wait-not-in-past": (TORCH, stream_wait_not_in_past),
    "kernel-running-at-stream-sync": (TORCH, kernel_running_at_stream_sync),
    "collective-metadata-missing": (TORCH, collective_metadata_missing),
    "backward-sequence-shared": (TORCH, backward_sequence_shared),
    "gpu-ops-without-launch": (GUIDE, gpu_ops_without_launch),
    "launches-without-gpu-op": (GUIDE, launches_without_gpu_op),
    "event-cap-reached": (GUIDE, event_cap_reached),
    "little-gpu-work": (GUIDE, little_gpu_work),
    "metadata-only": (GUIDE, metadata_only),
    "range-profiler-only": (GUIDE, range_profiler_only),
}


def trust(trace: Trace) -> Trust:
    """Every check over the whole trace (what it lost anywhere makes the rest suspect): the confidence they
    leave, and each failure."""
    reasons: list[TrustReason] = []
    for check, (source, run) in CHECKS.items():
        seen = run(trace)
        if seen is not None:
            reasons.append({"check": check, "source": source, "lowers_to": seen.lowers_to, "seen": seen.seen,
                            "count": seen.events, "at_us": seen.at_us})
    lowest = {reason["lowers_to"] for reason in reasons}
    confidence: Confidence = "none" if "none" in lowest else "reduced" if lowest else "high"
    return {"confidence": confidence, "checks": len(CHECKS), "reasons": reasons}
