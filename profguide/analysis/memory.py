"""Memory by category: what ``export_memory_timeline`` writes, read back and measured.

Its JSON holds the bytes of each of torch's memory categories (parameters,
optimizer state, activations…) at every moment an allocation changed, on the
clock of the trace the same profiler wrote.
"""

import numpy as np

from profguide.analysis.intervals import Floats, inside_any
from profguide.analysis.select import kinds_mask, names_where
from profguide.trace.model import KIND, Trace

# torch.profiler._memory_profiler's categories, in the order of the timeline's columns (after an unused
# first column); torch calls the last one, tensors it could not categorise, "Unknown".
CATEGORIES = ("PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY", "ACTIVATION", "GRADIENT", "AUTOGRAD_DETAIL",
              "Unknown")


def memory_timeline(document: object) -> tuple[Floats, dict[str, Floats]]:
    """``export_memory_timeline``'s ``[times, sizes]`` as (times in µs, {category: bytes at each time}).

    Raises ValueError, in one line, when the document is not that shape.
    """
    width = len(CATEGORIES) + 1
    if not (isinstance(document, list) and len(document) == 2 and all(isinstance(p, list) for p in document)
            and len(document[0]) == len(document[1]) and document[0]
            and all(isinstance(row, list) and len(row) == width for row in document[1])):
        raise ValueError(f"not a memory timeline: expected [times, sizes] with {width} sizes per time")
    try:
        times, sizes = np.asarray(document[0], dtype=float), np.asarray(document[1], dtype=float)
    except (TypeError, ValueError):
        raise ValueError("not a memory timeline: its times and sizes must be numbers") from None
    return times, {category: sizes[:, column] for column, category in enumerate(CATEGORIES, 1)}


def left_at_end(sizes: dict[str, Floats], category: str) -> float | None:
    """The bytes of ``category`` at the timeline's last moment over its peak; None when it never held any."""
    if category not in sizes:
        return None
    peak = float(sizes[category].max())
    return float(sizes[category][-1]) / peak if peak > 0 else None


def ratio_at_end(sizes: dict[str, Floats], part: str, whole: str) -> float | None:
    """The bytes of ``part`` over those of ``whole`` at the timeline's last moment (what outlives the steps)."""
    if part not in sizes or whole not in sizes:
        return None
    held = float(sizes[whole][-1])
    return float(sizes[part][-1]) / held if held > 0 else None


def to_trace_clock(times: Floats, trace: Trace) -> Floats:
    """Timeline times (µs since the epoch) on the trace's clock, which counts from ``baseTimeNanoseconds``."""
    return times - trace.base_time_ns / 1000


def frees_in_region(trace: Trace, region: str) -> list[int]:
    """For each occurrence of the region ``region`` in a trace, in order of start: how many frees (``[memory]``
    instants of negative bytes) it records on its thread. The profiler records a free only where its
    allocator reports one: PyTorch's CPU allocator reports none for memory allocated before profiling began."""
    frees = trace.memory_bytes < 0
    codes = {lane: code for code, lane in enumerate(trace.memory_lanes)}
    occurrences = np.flatnonzero(names_where(trace, lambda name: name == region))
    return [int((frees & (trace.memory_lane == codes.get(trace.lanes[trace.lane[index]], -1))
                 & (trace.memory_ts >= trace.ts[index]) & (trace.memory_ts <= trace.end[index])).sum())
            for index in occurrences]


def freed_outside_ops(trace: Trace, region: str, device_type: int) -> float | None:
    """Over the calls of the region ``region``: the bytes that the allocator's events on its thread, on devices of
    c10's DeviceType ``device_type`` (0 the CPU, 1 CUDA and ROCm), record outside every op, freed, over what they
    record inside its ops; net bytes, allocations less frees. A memory event is inside an op when an op that starts
    inside the call, on its thread, is open at its time (``inside_any``). None without the region, with events
    whose devices are not recorded, or with nothing allocated inside its ops."""
    if region not in trace.names or len(trace.memory_device) != len(trace.memory_ts):
        return None
    calls = np.flatnonzero((trace.name == trace.names.index(region)) & kinds_mask(trace, ("annotation", "cpu_op")))
    devices = [code for code, (kind, _) in enumerate(trace.memory_devices) if kind == device_type]
    memory_lanes = {lane: code for code, lane in enumerate(trace.memory_lanes)}
    on_device = np.isin(trace.memory_device, devices)
    inside = outside = 0.0
    for call in calls.tolist():
        start, end, lane = trace.ts[call], trace.end[call], trace.lane[call]
        events = np.flatnonzero(on_device & (trace.memory_lane == memory_lanes.get(trace.lanes[lane], -1))
                                & (trace.memory_ts >= start) & (trace.memory_ts <= end))
        ops = np.flatnonzero((trace.kind == KIND["cpu_op"]) & (trace.lane == lane) & (trace.ts >= start)
                             & (trace.end <= end))
        ops = ops[ops != call]
        in_op = inside_any(trace.ts[ops], trace.end[ops], trace.memory_ts[events])
        inside += float(trace.memory_bytes[events][in_op].sum())
        outside += float(trace.memory_bytes[events][~in_op].sum())
    return -outside / inside if inside > 0 else None


def memory_in_calls(trace: Trace, region: str, device_type: int, op: str = "") -> list[tuple[float, float]]:
    """For each call of the op or region ``region``, in order of start: (bytes allocated, bytes freed, as a positive
    number) by the allocator's events on its thread inside it, on devices of c10's DeviceType ``device_type`` (0 the
    CPU, 1 CUDA and ROCm); with ``op``, only those inside the calls of ``op`` that lie wholly inside it (what one
    op, ``aten::cat`` in a decode step, allocates). Empty without the region or the events' devices."""
    if region not in trace.names or len(trace.memory_device) != len(trace.memory_ts):
        return []
    devices = [code for code, (kind, _) in enumerate(trace.memory_devices) if kind == device_type]
    calls = np.flatnonzero((trace.name == trace.names.index(region)) & kinds_mask(trace, ("annotation", "cpu_op")))
    memory_lanes = {lane: code for code, lane in enumerate(trace.memory_lanes)}
    op_calls = (trace.name == trace.names.index(op)) if op in trace.names else np.zeros(len(trace.name), bool)
    found = []
    for call in calls.tolist():
        start, end, lane = trace.ts[call], trace.end[call], trace.lane[call]
        events = (np.isin(trace.memory_device, devices) & (trace.memory_lane == memory_lanes.get(trace.lanes[lane], -1))
                  & (trace.memory_ts >= start) & (trace.memory_ts <= end))
        sizes = trace.memory_bytes[events]
        if op:
            within = np.flatnonzero(op_calls & (trace.lane == lane) & (trace.ts >= start) & (trace.end <= end))
            sizes = sizes[inside_any(trace.ts[within], trace.end[within], trace.memory_ts[events])]
        found.append((float(sizes[sizes > 0].sum()), float(-sizes[sizes < 0].sum())))
    return found


def kv_bytes_per_token(layers: int, width: int, batch: int, element_bytes: int) -> int:
    """What one token adds to a decoder's cache of keys and values: a key and a value (2) in every layer, each of
    ``width`` elements (heads × head width), for every sequence of the batch."""
    return 2 * layers * width * element_bytes * batch
