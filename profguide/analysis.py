"""Facts about a trace, each a small function over ``profguide.trace.Trace`` columns.

Every fact is plain data (numbers, strings, lists, dicts) so that pages,
captions and ``profguide explain`` can quote it and ``--json`` can carry it.
Times are in µs; a *window* is a (start, end) pair in the trace's own clock.
"""

import re

import numpy as np

from profguide.trace import GPU_KINDS, GPU_WORK_KINDS, HOST_KINDS, KIND, NO_ID

STEP_NAME = re.compile(r"ProfilerStep#(\d+)$")
SYNC_CALLS = frozenset({
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
    "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize",
    "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize",
})
COMMUNICATION = re.compile(r"nccl|rccl|gloo", re.IGNORECASE)
GEMM_FLOP_SHAPES = {"aten::mm": 0, "aten::addmm": 1, "aten::bmm": 0, "aten::baddbmm": 1, "aten::_scaled_mm": 0}
# Dense (no sparsity) peak TFLOP/s from the vendors' datasheets, by input type: A100
# (nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf),
# H100 and H200 SXM (nvidia.com/en-us/data-center/h100/, /h200/), V100 SXM2 (images.nvidia.com/content/
# technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf), MI250X (amd.com/en/products/accelerators/
# instinct/mi200/mi250x.html). "float" is plain FP32 (PyTorch's default matmul precision), not TF32.
PEAK_TFLOPS = (
    ("H200", {"float": 67.0, "c10::BFloat16": 989.4, "c10::Half": 989.4}),
    ("H100", {"float": 67.0, "c10::BFloat16": 989.4, "c10::Half": 989.4}),
    ("A100", {"float": 19.5, "c10::BFloat16": 312.0, "c10::Half": 312.0}),
    ("V100", {"float": 15.7, "c10::Half": 125.0}),
    ("MI250X", {"float": 95.7, "c10::BFloat16": 383.0, "c10::Half": 383.0}),
)


def kinds_mask(trace, kinds):
    return np.isin(trace.kind, [KIND[k] for k in kinds])


def names_where(trace, predicate):
    """Mask of the events whose name satisfies ``predicate`` (tested once per distinct name)."""
    return np.isin(trace.name, [code for code, name in enumerate(trace.names) if predicate(name)])


def gpu_work(trace):
    """Mask of the events that occupy a GPU: kernels, memcpy, memset."""
    return kinds_mask(trace, GPU_WORK_KINDS)


def activity_window(trace):
    """(start, end) of the host and GPU activity, leaving out profiler bookkeeping."""
    kept = kinds_mask(trace, HOST_KINDS | GPU_KINDS)
    if not kept.any():
        kept = np.ones(len(trace), dtype=bool)
    return float(trace.ts[kept].min()), float(trace.end[kept].max())


def gpu_window(trace):
    """(start, end) from the first GPU op's start to the last one's end, all streams; None without GPU work."""
    work = gpu_work(trace)
    if not work.any():
        return None
    return float(trace.ts[work].min()), float(trace.end[work].max())


def lanes(trace, kinds):
    """(pid, tid) pairs that carry events of ``kinds``, in order of first appearance."""
    codes = trace.lane[kinds_mask(trace, kinds)]
    _, first = np.unique(codes, return_index=True)
    return [trace.lanes[code] for code in codes[np.sort(first)]]


def cpu_lanes(trace):
    return lanes(trace, HOST_KINDS)


def gpu_lanes(trace):
    return lanes(trace, GPU_WORK_KINDS)


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
    """The ``ProfilerStep#N`` regions that ``prof.step()`` marks, in order of start."""
    codes = {code: int(m.group(1)) for code, name in enumerate(trace.names) if (m := STEP_NAME.match(name))}
    selected = np.flatnonzero(np.isin(trace.name, list(codes)) & (trace.kind == KIND["annotation"]))
    return [
        {"step": codes[int(trace.name[i])], "start_us": float(trace.ts[i]), "dur_us": float(trace.dur[i])}
        for i in selected
    ]


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


def launches_by_correlation(trace):
    """Sorted correlation ids of runtime and driver calls, with their event indices."""
    calls = np.flatnonzero(kinds_mask(trace, ("runtime", "driver")) & (trace.correlation != NO_ID))
    order = np.argsort(trace.correlation[calls], kind="stable")
    return trace.correlation[calls][order], calls[order]


def launch_of(trace, indices):
    """For each GPU event index, the index of the call that launched it, or -1."""
    keys, calls = launches_by_correlation(trace)
    correlation = trace.correlation[indices]
    position = np.clip(np.searchsorted(keys, correlation), 0, max(len(keys) - 1, 0))
    found = (len(keys) > 0) & (correlation != NO_ID)
    if len(keys):
        found = found & (keys[position] == correlation)
    return np.where(found, calls[position] if len(calls) else -1, -1)


def host_syncs(trace):
    """Indices of the host calls that wait for the GPU (cudaDeviceSynchronize and kin)."""
    return np.flatnonzero(names_where(trace, SYNC_CALLS.__contains__) & kinds_mask(trace, ("runtime", "driver")))


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


def distribution(values):
    """count, mean, p50, p95, max of an array (None when empty)."""
    if not len(values):
        return None
    return {
        "count": int(len(values)),
        "mean": float(np.mean(values)),
        "p50": float(np.percentile(values, 50)),
        "p95": float(np.percentile(values, 95)),
        "max": float(np.max(values)),
    }


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


def grouped(trace, selected):
    """Events grouped by name: {name: durations array}."""
    codes = trace.name[selected]
    durations = trace.dur[selected]
    order = np.argsort(codes, kind="stable")
    codes, durations = codes[order], durations[order]
    bounds = np.flatnonzero(np.diff(codes)) + 1
    return {
        trace.names[int(group_codes[0])]: group
        for group_codes, group in zip(np.split(codes, bounds), np.split(durations, bounds), strict=True)
        if len(group)
    }


def in_window(trace, window):
    return (trace.ts >= window[0]) & (trace.ts < window[1])


def kernel_rows(trace, selected, limit=None):
    """The selected events grouped by name, most total time first, with count, mean, p50, p95 and max."""
    rows = [
        {"name": name, "total_us": float(durations.sum()), **distribution(durations)}
        for name, durations in grouped(trace, selected).items()
    ]
    rows.sort(key=lambda row: (-row["total_us"], row["name"]))
    return rows[:limit]


def top_kernels(trace, window=None, limit=10):
    """Kernels by total time (those starting inside the window), with their duration statistics."""
    selected = trace.kind == KIND["kernel"]
    if window is not None:
        selected &= in_window(trace, window)
    return kernel_rows(trace, selected, limit)


def memory_traffic(trace):
    """memcpy and memset by name: count, time, bytes and achieved bandwidth."""
    rows = []
    for kind in ("memcpy", "memset"):
        selected = trace.kind == KIND[kind]
        for name, durations in grouped(trace, selected).items():
            named = selected & (trace.name == trace.names.index(name))
            total_bytes = float(np.nansum(trace.bytes[named]))
            total_us = float(durations.sum())
            rows.append({
                "kind": kind, "name": name, "count": int(len(durations)), "total_us": total_us,
                "bytes": total_bytes,
                "gb_per_s": total_bytes / total_us / 1e3 if total_us > 0 and total_bytes > 0 else None,
            })
    rows.sort(key=lambda row: -row["total_us"])
    return rows


def communication(trace):
    """Communication kernels (NCCL, RCCL, gloo): their time and how much of it overlaps computation."""
    is_comm = names_where(trace, COMMUNICATION.search)
    kernels = trace.kind == KIND["kernel"]
    comm, compute = kernels & is_comm, kernels & ~is_comm
    everywhere = (-np.inf, np.inf)
    comm_us = union_length(*busy_intervals(trace, everywhere, comm))
    compute_us = union_length(*busy_intervals(trace, everywhere, compute))
    both = union_length(*busy_intervals(trace, everywhere, comm | compute))
    overlap = comm_us + compute_us - both
    host_comm = kinds_mask(trace, ("cpu_op", "annotation")) & is_comm
    return {
        "kernels": int(comm.sum()),
        "kernel_us": comm_us,
        "overlapped_us": overlap,
        "exposed_us": comm_us - overlap,
        "overlap_pct": 100 * overlap / comm_us if comm_us else None,
        "host_ops": int(host_comm.sum()),
        "top": [{"name": row["name"], "total_us": row["total_us"], "count": row["count"]}
                for row in kernel_rows(trace, comm, 5)],
    }


def occupancy(trace, name_contains=""):
    """Duration-weighted mean of the profiler's estimated achieved occupancy (%), by kernel name."""
    selected = (trace.kind == KIND["kernel"]) & np.isfinite(trace.occupancy)
    if name_contains:
        selected &= names_where(trace, lambda name: name_contains in name)
    rows = []
    for code in np.unique(trace.name[selected]):
        named = selected & (trace.name == code)
        weights, values = trace.dur[named], trace.occupancy[named]
        value = np.average(values, weights=weights) if weights.sum() > 0 else values.mean()
        rows.append({"name": trace.names[code], "occupancy_pct": float(value), "total_us": float(weights.sum())})
    return sorted(rows, key=lambda row: -row["total_us"])


def compile_markers(trace):
    """What torch.compile leaves in a trace: compiled regions, Triton kernels, CUDA graph launches."""

    def named(predicate, kinds):
        return names_where(trace, predicate) & kinds_mask(trace, kinds)

    regions = named(
        lambda n: "Torch-Compiled Region" in n or n.startswith("CompiledFunction"), ("annotation", "cpu_op")
    )
    triton = named(lambda n: n.startswith("triton_") or "triton" in n.lower(), ("kernel",))
    graphs = named(lambda n: n in ("cudaGraphLaunch", "hipGraphLaunch", "cuGraphLaunch"), ("runtime", "driver"))
    return {
        "compiled_regions": int(regions.sum()),
        "compiled_region_us": float(trace.dur[regions].sum()),
        "triton_kernels": int(triton.sum()),
        "triton_kernel_us": float(trace.dur[triton].sum()),
        "cuda_graph_launches": int(graphs.sum()),
        "driver_launches": int((trace.kind == KIND["driver"]).sum()),
    }


def device_name(trace):
    for device in trace.device_properties:
        if isinstance(device, dict) and device.get("name"):
            return str(device["name"])
    return None


def peak_tflops(name, dtype):
    """The datasheet's dense peak for a device name and input type, or None when unknown."""
    for model, peaks in PEAK_TFLOPS:
        if name and model in name.upper():
            return peaks.get(dtype)
    return None


def gemm_flops(op, dims):
    """Floating-point operations of one matrix multiply from its input shapes, or None."""
    skip = GEMM_FLOP_SHAPES.get(op)
    if skip is None or len(dims) < skip + 2:
        return None
    a, b = dims[skip], dims[skip + 1]
    if len(a) == 2 and len(b) == 2 and a[1] == b[0]:
        return 2 * a[0] * a[1] * b[1]
    if len(a) == 3 and len(b) == 3 and a[0] == b[0] and a[2] == b[1]:
        return 2 * a[0] * a[1] * a[2] * b[2]
    return None


def gemm_throughput(trace):
    """Achieved TFLOP/s of the matrix multiplies whose shapes were recorded, against the device's peak."""
    kernels = np.flatnonzero((trace.kind == KIND["kernel"]) & (trace.external_id != NO_ID))
    order = np.argsort(trace.external_id[kernels], kind="stable")
    kernel_ids, kernel_durs = trace.external_id[kernels][order], trace.dur[kernels][order]
    device = device_name(trace)
    groups = {}
    for index, shape in trace.shapes.items():
        name = trace.names[trace.name[index]]
        dims, types = shape
        flops = gemm_flops(name, dims)
        external = trace.external_id[index]
        if flops is None or external == NO_ID:
            continue
        low, high = np.searchsorted(kernel_ids, [external, external + 1])
        if high == low:
            continue
        dtype = str(types[GEMM_FLOP_SHAPES[name]]) if len(types) > GEMM_FLOP_SHAPES[name] else "?"
        key = (name, str(dims), dtype)
        group = groups.setdefault(key, {"calls": 0, "flops": 0, "kernel_us": 0.0})
        group["calls"] += 1
        group["flops"] += flops
        group["kernel_us"] += float(kernel_durs[low:high].sum())
    rows = []
    for (name, dims, dtype), group in groups.items():
        achieved = group["flops"] / group["kernel_us"] / 1e6 if group["kernel_us"] > 0 else None
        peak = peak_tflops(device, dtype)
        rows.append({
            "op": name, "input_dims": dims, "dtype": dtype, **group, "tflops": achieved, "peak_tflops": peak,
            "pct_of_peak": 100 * achieved / peak if achieved and peak else None,
        })
    return sorted(rows, key=lambda row: -row["kernel_us"])


def step_window(trace, step):
    """The window of ``ProfilerStep#step``: from its start until the GPU finished the work it launched."""
    for found in profiler_steps(trace):
        if found["step"] == step:
            start, end = found["start_us"], found["start_us"] + found["dur_us"]
            ops = np.flatnonzero(gpu_work(trace))
            launch = launch_of(trace, ops)
            launch_ts = trace.ts[np.maximum(launch, 0)]
            launched = (launch >= 0) & (launch_ts >= start) & (launch_ts < end)
            if launched.any():
                end = max(end, float(trace.end[ops[launched]].max()))
            return start, end
    known = ", ".join(str(s["step"]) for s in profiler_steps(trace)) or "none"
    raise KeyError(f"no ProfilerStep#{step} in this trace (steps: {known})")


def hta_ops(trace):
    """The GPU ops HolisticTraceAnalysis's temporal breakdown counts (HTA 0.5.0).

    Every event on a GPU stream counts: kernels, memcpy, memset, and the sync
    events that sit on a stream (a Stream Sync does; Event and Context Syncs,
    on stream -1, do not). When the trace has two or more ProfilerStep names,
    HTA drops the GPU ops launched in the last step, and those with no launch
    call in the trace (``Trace._filter_irrelevant_gpu_kernels`` in
    hta/common/trace.py).
    """
    ops = on_a_stream(trace)
    if sum("ProfilerStep" in name for name in set(trace.names)) < 2:
        return ops
    step_events = names_where(trace, lambda name: "ProfilerStep" in name) & ~kinds_mask(trace, ("kernel",))
    cut = trace.ts[step_events].max()
    indices = np.flatnonzero(ops)
    launch = launch_of(trace, indices)
    launched_before_cut = (launch >= 0) & (trace.ts[np.maximum(launch, 0)] < cut)
    kept = np.zeros(len(trace), dtype=bool)
    kept[indices[launched_before_cut]] = True
    return kept


def on_a_stream(trace):
    """Kernels, memcpy, memset, and GPU sync events that sit on a stream (tid != -1)."""
    off_stream = [code for code, (_, tid) in enumerate(trace.lanes) if tid == -1]
    syncs_off_stream = kinds_mask(trace, ("sync",)) & np.isin(trace.lane, off_stream)
    return kinds_mask(trace, ("kernel", "memcpy", "memset", "sync")) & ~syncs_off_stream


def hta_window(trace):
    """HTA's window: first to last of ``hta_ops``, all streams; None without GPU work."""
    ops = hta_ops(trace)
    if not ops.any():
        return None
    return float(trace.ts[ops].min()), float(trace.end[ops].max())


COMPUTE_BOUND_BUSY_PCT = 80  # a GPU busy this much of the window is the bottleneck
EXPOSED_COMMUNICATION_PCT = 30  # communication not hidden behind computation, as a share of the window
VERDICTS = {
    "cpu-only": "No GPU work in this trace: it profiles the host only.",
    "compute-bound": "The GPU is busy most of the time: speed comes from faster kernels, not from the host.",
    "launch-bound": "The GPU often waits for the host to launch work: the run is launch- or overhead-bound.",
    "sync-bound": "The GPU runs dry while the host waits in synchronisations: the run is waiting on syncs.",
    "communication-bound": "Communication kernels take much of the time without overlapping computation.",
    "idle-queued": "The GPU is idle between ops that were already queued: dependencies between streams, "
    "or many tiny ops back to back.",
    "idle-unexplained": "The GPU is idle much of the time, and the trace has no launch calls that explain why.",
}


def verdict(summary):
    """The verdict and its evidence, from a ``summary`` dict as ``explain`` builds it."""
    if summary["window"] is None:
        return "cpu-only"
    comm = summary["communication"]
    window_us = summary["window"]["dur_us"]
    if comm["kernel_us"] and comm["exposed_us"] > EXPOSED_COMMUNICATION_PCT / 100 * window_us:
        return "communication-bound"
    if summary["gpu_busy_pct"] >= COMPUTE_BOUND_BUSY_PCT:
        return "compute-bound"
    causes = summary["idle"]["by_cause"]
    largest = max(causes, key=lambda cause: causes[cause]["idle_us"])
    return {"host": "launch-bound", "sync": "sync-bound", "queued": "idle-queued"}.get(largest, "idle-unexplained")


def summarise(trace, window=None):
    """Everything ``profguide explain`` reports, for one window (default: HTA's, with HTA's ops)."""
    if window is None:
        ops = hta_ops(trace)
        window = hta_window(trace)
    else:
        ops = on_a_stream(trace)
    summary = {
        "events": len(trace),
        "device": device_name(trace),
        "skipped_events": trace.skipped,
        "steps": profiler_steps(trace),
        "window": None,
        "gpu_busy_pct": None,
        "gpu_idle_pct": None,
        "top_kernels": top_kernels(trace, window) if window else [],
        "communication": communication(trace),
        "launch_latency_us": launch_latency(trace),
        "lane_offset": lane_offset(trace),
        "synchronisations": synchronisations(trace),
        "memory_traffic": memory_traffic(trace),
        "occupancy": occupancy(trace)[:10],
        "compile": compile_markers(trace),
        "gemm": gemm_throughput(trace),
    }
    if window:
        idle = idle_breakdown(trace, window, ops)
        length = window[1] - window[0]
        summary.update(
            window={"start_us": window[0], "end_us": window[1], "dur_us": length},
            gpu_busy_pct=100 * idle["busy_us"] / length if length else 0.0,
            gpu_idle_pct=100 * idle["idle_us"] / length if length else 0.0,
            idle=idle,
        )
    summary["verdict"] = verdict(summary)
    summary["verdict_text"] = VERDICTS[summary["verdict"]]
    return summary


def facts(trace):
    """The facts a figure's caption quotes about one trace."""
    start, end = activity_window(trace)
    kernels = trace.kind == KIND["kernel"]
    syncs = synchronisations(trace)
    window = gpu_window(trace)
    return {
        "window_us": end - start,
        "cpu_lanes": len(cpu_lanes(trace)),
        "gpu_lanes": len(gpu_lanes(trace)),
        "cpu_ops": int((trace.kind == KIND["cpu_op"]).sum()),
        "kernel_count": int(kernels.sum()),
        "kernel_time_us": float(trace.dur[kernels].sum()),
        "gpu_busy_us": union_length(*busy_intervals(trace, window)) if window else 0.0,
        "top_kernels": top_kernels(trace, limit=5),
        "launch_latency_us": launch_latency(trace),
        "longest_sync": syncs["longest"][0] if syncs["longest"] else None,
        "steps": profiler_steps(trace),
    }
