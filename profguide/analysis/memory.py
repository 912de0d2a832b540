"""Memory by category: what ``export_memory_timeline`` writes, read back and measured.

Its JSON holds the bytes of each of torch's memory categories (parameters,
optimizer state, activations…) at every moment an allocation changed, on the
clock of the trace the same profiler wrote.
"""

import numpy as np

from profguide.analysis.intervals import Floats
from profguide.analysis.select import names_where
from profguide.trace.model import Trace

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
