"""From a launch call to its GPU op: delays, their distribution, the lanes' clock offset, and syncs."""

import numpy as np

from profguide.analysis.idle import busy_intervals, covered
from profguide.analysis.kernels import distribution
from profguide.analysis.select import gpu_work, host_syncs, kinds_mask, launch_of
from profguide.trace.model import KIND


def launch_delays(trace):
    """For each GPU op joined to its launch call: (launch call index, launch start → op start in µs)."""
    ops = np.flatnonzero(gpu_work(trace))
    launch = launch_of(trace, ops)
    joined = launch >= 0
    return launch[joined], trace.ts[ops[joined]] - trace.ts[launch[joined]]


def launch_latency(trace):
    """Launch call start → GPU op start, per API (runtime, driver), as distributions."""
    launch, delay = launch_delays(trace)
    return {
        api: distribution(delay[trace.kind[launch] == KIND[api]])
        for api in ("runtime", "driver")
        if (trace.kind[launch] == KIND[api]).any()
    }


def lane_offset(trace):
    """How far the GPU lane may be shifted against the CPU lane.

    A GPU op cannot start before the call that launched it; where some appear
    to, the two clocks disagree by at least that much.
    """
    _, delay = launch_delays(trace)
    if not len(delay):
        return None
    early = delay < 0
    return {
        "min_launch_to_start_us": float(delay.min()),
        "ops_starting_before_launch": int(early.sum()),
        "estimated_offset_us": float(-delay.min()) if early.any() else 0.0,
    }


def synchronisations(trace):
    """Host sync calls and GPU-side sync events: how long they took and how much GPU work each covered."""
    syncs = host_syncs(trace)
    busy_during = covered(busy_intervals(trace, (-np.inf, np.inf)), trace.ts[syncs], trace.end[syncs])
    longest = np.argsort(-trace.dur[syncs], kind="stable")[:5]
    gpu_side = kinds_mask(trace, ("sync",))
    return {
        "host_calls": int(len(syncs)),
        "host_time_us": float(trace.dur[syncs].sum()),
        "gpu_busy_during_us": float(busy_during.sum()),
        "gpu_sync_events": int(gpu_side.sum()),
        "longest": [
            {"name": trace.names[trace.name[syncs[i]]], "start_us": float(trace.ts[syncs[i]]),
             "dur_us": float(trace.dur[syncs[i]]), "gpu_busy_during_us": float(busy_during[i])}
            for i in longest
        ],
    }
