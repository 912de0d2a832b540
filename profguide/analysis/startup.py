"""Start-up and the steady state: device initialisation, and iterations found without ProfilerStep.

A process's first steps pay for things it does once: creating the CUDA
context, growing the caching allocator (``cudaMalloc``, ``cudaFree``), loading
each kernel's module the first time it is launched (lazy loading makes that
first ``cudaLaunchKernel`` take milliseconds to seconds), and setting up
cuDNN and cuBLAS. A window full of them says nothing about the run's steady
state. ``device_setup`` measures that time in a window.

A trace recorded with a schedule marks its steps with ``ProfilerStep#N``; one
recorded with a bare ``profile()`` around a loop, or with the autograd
profiler, does not. ``iterations`` finds the loop's iterations from what
repeats on the thread that runs it: a DataLoader's ``__next__``, the
optimizer's step, a top-level ``record_function`` annotation, or the
top-level module's forward; ``cold_start`` sets a slow first one apart.
"""

import re
from collections.abc import Iterable

import numpy as np

from profguide.analysis.host import main_lane
from profguide.analysis.intervals import Mask, Window, clip_each, merge, union_length
from profguide.analysis.select import (
    STEP_KINDS,
    Indices,
    kinds_mask,
    launched_until,
    names_where,
    overlapping,
)
from profguide.analysis.summary import ColdStart, DeviceSetup, Iterations
from profguide.patterns import DEVICE_SETUP_CALL, LAUNCH_CALL
from profguide.stats import median
from profguide.trace.model import HOST_KINDS, KIND, Trace

# A launch returns in microseconds; one that takes this long loaded the kernel's module first (lazy loading).
SLOW_LAUNCH_US = 10_000.0
STARTUP_PCT = 50  # device set-up over this share of the window makes the window start-up
COLD_START_RATIO = 2.0  # a first iteration this many times the median of the others is a cold start
DATALOADER_NEXT = re.compile(r"DataLoader.*__next__")
MODULE_FORWARD = re.compile(r"^nn\.Module: ")
OPTIMIZER_STEP = re.compile(r"^Optimizer\.step#")
# From its second occurrence on (the first may be a cold start), a loop's marker spans at least this share of its
# lane's activity, and its occurrences cover at least this share of their span: each one is an iteration.
LOOP_SHARE = 0.5


def setup_calls(trace: Trace) -> np.ndarray:
    """Mask of the host calls that set a device up: the set-up calls, and launches slow enough to have loaded
    their kernel's module."""
    calls = kinds_mask(trace, ("runtime", "driver"))
    codes = [code for code, name in enumerate(trace.names) if DEVICE_SETUP_CALL.match(name)]
    launches = [code for code, name in enumerate(trace.names) if LAUNCH_CALL.match(name)]
    named = np.isin(trace.name, codes)
    slow_launch = np.isin(trace.name, launches) & (trace.dur >= SLOW_LAUNCH_US)
    return calls & (named | slow_launch)


def device_setup(trace: Trace, window: Window) -> DeviceSetup:
    """How much of the window the host spent setting the device up (the union over threads), and in what."""
    selected = np.flatnonzero(setup_calls(trace) & overlapping(trace, window))
    starts, ends = clip_each(trace.ts[selected], trace.end[selected], window)
    merged = merge(starts, ends)
    length = window[1] - window[0]
    total = float((merged[1] - merged[0]).sum())
    by_name: dict[str, float] = {}
    for code, us in zip(trace.name[selected].tolist(), (ends - starts).tolist(), strict=True):
        by_name[trace.names[code]] = by_name.get(trace.names[code], 0.0) + us
    top = sorted(by_name.items(), key=lambda item: -item[1])[:3]
    return {"us": total, "pct": 100 * total / length if length > 0 else 0.0, "top": top}


def is_startup(setup: DeviceSetup) -> bool:
    return setup["pct"] >= STARTUP_PCT


def named_on(trace: Trace, on_lane: Mask, kinds: Iterable[str], pattern: re.Pattern[str]) -> Indices:
    """The events of ``kinds`` on the lane whose name matches ``pattern``, in order of start."""
    return np.flatnonzero(on_lane & kinds_mask(trace, kinds) & names_where(trace, pattern.search))


def loop_marker(trace: Trace, on_lane: Mask) -> tuple[str, Indices] | None:
    """(what it is, its occurrences) of the annotation or module forward that marks the loop's iterations, or
    None. Of the names that repeat without overlapping themselves, span most of the lane's activity and cover
    most of their span (``LOOP_SHARE``), the one with the most time in it. A region that repeats inside each
    iteration (a layer's forward, an embedding each layer calls) covers too little of its span; one that repeats
    only inside one step spans too little of the trace."""
    annotations = kinds_mask(trace, ("annotation",))
    forwards = kinds_mask(trace, ("python",)) & names_where(trace, MODULE_FORWARD.search)
    events = np.flatnonzero(on_lane & (annotations | forwards))
    if not len(events):
        return None
    last = float(trace.end[on_lane].max())
    order = events[np.argsort(trace.name[events], kind="stable")]  # by name, each name's in order of start
    codes, firsts = np.unique(trace.name[order], return_index=True)
    best: tuple[float, int, Indices] | None = None
    for code, found in zip(codes.tolist(), np.split(order, firsts[1:]), strict=True):
        starts, ends = trace.ts[found], trace.end[found]
        if len(found) < 2 or (starts[1:] < ends[:-1]).any():
            continue
        span, total = ends[-1] - starts[1], float(trace.dur[found].sum())
        if span < LOOP_SHARE * (last - starts[1]) or total - trace.dur[found[0]] < LOOP_SHARE * span:
            continue
        if best is None or total > best[0]:
            best = total, code, found
    if best is None:
        return None
    _, code, found = best
    what = "annotation" if trace.kind[found[0]] == KIND["annotation"] else "module forward"
    return f"{what} {trace.names[code]}", found


def boundaries(trace: Trace, lane: int) -> tuple[str, list[float], float] | None:
    """(what marks the iterations, where each starts, where the last ends) on the lane, or None when nothing
    repeats: a DataLoader's ``__next__`` (each starts one), the optimizer's step (each ends one), or else the
    annotation or module forward that ``loop_marker`` finds (each is one). The first two are user annotations,
    or ops in the old schema (torch 1.x writes ``record_function`` regions as ``Operator``)."""
    on_lane = (trace.lane == lane) & kinds_mask(trace, HOST_KINDS)
    if not on_lane.any():
        return None
    first, last = float(trace.ts[on_lane].min()), float(trace.end[on_lane].max())
    loads = named_on(trace, on_lane, STEP_KINDS, DATALOADER_NEXT)
    if len(loads) >= 2:
        return "DataLoader __next__", trace.ts[loads].tolist(), last
    steps = named_on(trace, on_lane, STEP_KINDS, OPTIMIZER_STEP)
    if len(steps) >= 2:
        ends = trace.end[steps].tolist()
        return "the optimizer step", [first, *ends[:-1]], ends[-1]
    marker = loop_marker(trace, on_lane)
    if marker is None:
        return None
    what, found = marker
    return what, trace.ts[found].tolist(), float(trace.end[found[-1]])


def iterations(trace: Trace) -> Iterations | None:
    """The loop's iterations on a trace without ProfilerStep, with a cold first one set apart, or None when
    nothing repeats. Each iteration runs from its start to the next one's; the last ends where its marker
    does."""
    lane = main_lane(trace)
    found = boundaries(trace, lane) if lane is not None else None
    if found is None:
        return None
    marker, starts, last_end = found
    ends = [*starts[1:], last_end]
    durations = [end - start for start, end in zip(starts, ends, strict=True)]
    rest, typical = median(durations[1:]), median(durations)
    assert rest is not None and typical is not None  # ``boundaries`` finds two starts at least
    cold = durations[0] >= COLD_START_RATIO * rest and rest > 0
    cold_start: ColdStart | None = None
    if cold:
        window = (starts[0], ends[0])
        cold_start = {"start_us": starts[0], "dur_us": durations[0], "times_median": durations[0] / rest,
                      "setup": device_setup(trace, window)}
    return {"found_by": marker, "count": len(starts), "starts_us": starts, "last_end_us": last_end,
            "median_us": typical, "cold_start": cold_start}


def steady_window(trace: Trace, found: Iterations) -> Window:
    """From the second iteration's start until the GPU finished the work the iterations after the first
    launched."""
    start = found["starts_us"][1]
    return start, launched_until(trace, start, found["last_end_us"])


def setup_call_us(trace: Trace, call: str, window: Window) -> float | None:
    """The union over threads of the device set-up calls (``setup_calls``) named ``call`` that overlap ``window``,
    clipped to it (µs); None without such a call."""
    if call not in trace.names:
        return None
    named = np.flatnonzero(setup_calls(trace) & (trace.name == trace.names.index(call)) & overlapping(trace, window))
    return union_length(*clip_each(trace.ts[named], trace.end[named], window)) if len(named) else None
