"""Selections over a trace's columns: masks by kind and name, lanes, windows, steps, launches.

Every function takes a ``profguide.trace.Trace`` and answers with numpy masks,
indices or plain data. Times are in µs; a *window* is a (start, end) pair in
the trace's own clock.
"""


import weakref
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from profguide.analysis.intervals import Floats, Mask, Window
from profguide.analysis.summary import Step
from profguide.errors import UsageError
from profguide.patterns import STEP
from profguide.stats import median
from profguide.trace.model import GPU_KINDS, GPU_WORK_KINDS, HOST_KINDS, KIND, NO_ID, Lane, Trace

Indices = npt.NDArray[np.intp]  # event indices, -1 for none
Kept = TypeVar("Kept", bound="npt.NDArray[Any] | tuple[npt.NDArray[Any], ...]")  # what ``kept`` keeps

SYNC_CALLS = frozenset({
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
    "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize",
    "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize",
})
# A copy the host waits in shows as the call that makes it. The copy and set calls without ``Async`` in their
# names (cudaMemcpy, cudaMemcpy2D, cudaMemset, cuMemcpyDtoH_v2, hipMemcpyWithStream, hipMemset …) are the
# *synchronous* ones, which does not always mean that the host waits: by CUDA's "API synchronization behavior"
# (docs.nvidia.com/cuda/cuda-runtime-api/api-sync-behavior.html), a copy from device to device returns at once,
# and so does a memset, unless it sets pinned or managed host memory; a copy to or from host memory returns once
# it is done (from pageable memory, once it is staged, after a stream sync). ``copy_waits`` applies that to the
# call and to the GPU copy it made. The op that asks for a copy says nothing by its name: a ``non_blocking``
# ``aten::copy_`` makes an Async call and no sync, ROCm's blocking one makes a hipMemcpyWithStream, and CUDA's
# ``.cpu()`` makes a cudaMemcpyAsync and then a cudaStreamSynchronize, a sync call already.
SYNCHRONOUS_COPY_PREFIXES = ("cudaMemcpy", "cudaMemset", "cuMemcpy", "cuMemset", "hipMemcpy", "hipMemset")
# Kineto names a GPU memset by the memory it sets, ``Memset (Device)``; these are the host memory a synchronous
# memset waits for.
HOST_MEMSET_SUFFIXES = ("(Pinned)", "(Managed)")
DEVICE_TO_DEVICE = "(Device -> Device)"  # how Kineto's name of a GPU copy ends for DtoD and PtoP copies


def synchronous_copy_call(name: str) -> bool:
    """Whether a runtime or driver call of this name is a copy or set call without ``Async`` in its name."""
    return name.startswith(SYNCHRONOUS_COPY_PREFIXES) and "Async" not in name


def copy_waits(call: str, copy: str | None) -> bool:
    """Whether a synchronous copy or set call named ``call`` blocks the host, given the name of the GPU copy or
    set it made (``copy``; None where the trace lacks it), by CUDA's API synchronization behavior.

    HIP's calls are taken to wait whatever they copy: ROCm's tracer names the copy that an ``.item()`` makes to
    the host ``Memcpy DtoD (Device -> Device)``, and HIP's ``hipMemset`` waits for its fill.
    """
    if call.startswith("hip"):
        return True
    if "Memset" in call:
        return copy is not None and copy.endswith(HOST_MEMSET_SUFFIXES)
    if "DtoD" in call or "Peer" in call:  # cuMemcpyDtoD_v2, cudaMemcpyPeer: between two devices' memory
        return False
    return copy is None or not copy.endswith(DEVICE_TO_DEVICE)


def waits_for_device(name: str) -> bool:
    """Whether a runtime or driver call of this name blocks the host until the GPU is done, as far as its name
    says: a sync, or a synchronous copy that ``copy_waits`` finds waiting whatever it copied (``host_waits``
    reads the copy too)."""
    return name in SYNC_CALLS or (synchronous_copy_call(name) and copy_waits(name, None))


def codes_mask(codes: npt.NDArray[np.integer[Any]], wanted: Iterable[int], size: int) -> Mask:
    """Mask of the entries of ``codes`` (small integers below ``size``) that are among ``wanted``: a table
    lookup, one gather, where np.isin would sort."""
    table = np.zeros(size, dtype=bool)
    table[list(wanted)] = True
    mask: Mask = table[codes]
    return mask


# What several analyses of one trace ask for again and again, kept while the trace lives; read-only, so that
# no caller can change what the next one gets.
_KEPT: "weakref.WeakKeyDictionary[Trace, dict[object, Any]]" = weakref.WeakKeyDictionary()


def kept(trace: Trace, key: object, make: Callable[[], Kept]) -> Kept:
    """``make()`` for this trace and ``key``, made once while the trace lives; its arrays made read-only."""
    found = _KEPT.setdefault(trace, {})
    if key not in found:
        value = make()
        for array in value if isinstance(value, tuple) else (value,):
            array.setflags(write=False)
        found[key] = value
    made: Kept = found[key]  # what ``make`` returned, for this key
    return made


def kinds_mask(trace: Trace, kinds: Iterable[str]) -> Mask:
    """Mask of the events of ``kinds``."""
    wanted = frozenset(kinds)
    return kept(trace, wanted, lambda: codes_mask(trace.kind, [KIND[k] for k in wanted], len(KIND)))


def names_where(trace: Trace, predicate: Callable[[str], object]) -> Mask:
    """Mask of the events whose name satisfies ``predicate`` (tested once per distinct name)."""
    return codes_mask(trace.name, [code for code, name in enumerate(trace.names) if predicate(name)], len(trace.names))


def first_of(trace: Trace, name: str) -> int | None:
    """The index of the first event named ``name``, or None when the trace has none."""
    if name not in trace.names:
        return None
    return int(np.argmax(trace.name == trace.names.index(name)))


def gpu_work(trace: Trace) -> Mask:
    """Mask of the events that occupy a GPU: kernels, memcpy, memset."""
    return kinds_mask(trace, GPU_WORK_KINDS)


def activity_window(trace: Trace) -> Window:
    """(start, end) of the host and GPU activity, leaving out profiler bookkeeping."""
    active = kinds_mask(trace, HOST_KINDS | GPU_KINDS)
    if not active.any():
        active = np.ones(len(trace), dtype=bool)
    return float(trace.ts[active].min()), float(trace.end[active].max())


def gpu_window(trace: Trace) -> Window | None:
    """(start, end) from the first GPU op's start to the last one's end, all streams; None without GPU work."""
    work = gpu_work(trace)
    if not work.any():
        return None
    return float(trace.ts[work].min()), float(trace.end[work].max())


def lanes(trace: Trace, kinds: Iterable[str]) -> list[Lane]:
    """(pid, tid) pairs that carry events of ``kinds``, in order of first appearance."""
    codes = trace.lane[kinds_mask(trace, kinds)]
    _, first = np.unique(codes, return_index=True)
    return [trace.lanes[code] for code in codes[np.sort(first)]]


def cpu_lanes(trace: Trace) -> list[Lane]:
    return lanes(trace, HOST_KINDS)


def gpu_lanes(trace: Trace) -> list[Lane]:
    return lanes(trace, GPU_WORK_KINDS)


def nesting_depths(starts: Floats, ends: Floats) -> Indices:
    """Depth of each event of one lane: 0 for outermost, +1 per enclosing event.

    The events must be sorted by (start, -duration), as Trace keeps them.
    """
    depths, open_ends = np.zeros(len(starts), dtype=np.intp), list[float]()
    for index, (start, end) in enumerate(zip(np.asarray(starts).tolist(), np.asarray(ends).tolist(), strict=True)):
        while open_ends and open_ends[-1] <= start:
            open_ends.pop()
        depths[index] = len(open_ends)
        open_ends.append(end)
    return depths


# The kinds a ``ProfilerStep#N`` region has: a user annotation, or an ``Operator`` in the old schema (torch 1.x).
STEP_KINDS = ("annotation", "cpu_op")


def profiler_steps(trace: Trace) -> list[Step]:
    """The ``ProfilerStep#N`` regions that ``prof.step()`` marks, in order of start."""
    codes = {code: int(m.group(1)) for code, name in enumerate(trace.names) if (m := STEP.match(name))}
    selected = np.flatnonzero(np.isin(trace.name, list(codes)) & kinds_mask(trace, STEP_KINDS))
    return [
        {"step": codes[int(trace.name[i])], "start_us": float(trace.ts[i]), "dur_us": float(trace.dur[i])}
        for i in selected
    ]


def steps_total_us(trace: Trace) -> float:
    """The ``ProfilerStep#N`` regions' durations added up (µs); 0 without steps."""
    return sum(step["dur_us"] for step in profiler_steps(trace))


def launches_by_correlation(trace: Trace) -> tuple[Indices, Indices]:
    """Sorted correlation ids of runtime and driver calls, with their event indices."""
    def made() -> tuple[Indices, Indices]:
        calls = np.flatnonzero(kinds_mask(trace, ("runtime", "driver")) & (trace.correlation != NO_ID))
        order = np.argsort(trace.correlation[calls], kind="stable")
        return trace.correlation[calls][order], calls[order]

    return kept(trace, launches_by_correlation, made)


def launch_of(trace: Trace, indices: Indices) -> Indices:
    """For each GPU event index, the index of the call that launched it, or -1."""
    keys, calls = launches_by_correlation(trace)
    correlation = trace.correlation[indices]
    position = np.clip(np.searchsorted(keys, correlation), 0, max(len(keys) - 1, 0))
    found = (len(keys) > 0) & (correlation != NO_ID)
    if len(keys):
        found = found & (keys[position] == correlation)
    return np.where(found, calls[position] if len(calls) else -1, -1)


def overlapping(trace: Trace, window: Window) -> Mask:
    """Mask of the events that overlap the window (an instant-long one at its start counts)."""
    return (trace.ts < window[1]) & ((trace.end > window[0]) | (trace.ts >= window[0]))


def unlaunched(trace: Trace, mask: Mask) -> Mask:
    """The events of ``mask`` (GPU ops) whose launch call is not in the trace."""
    indices = np.flatnonzero(mask)
    found = np.zeros(len(trace), dtype=bool)
    found[indices[launch_of(trace, indices) < 0]] = True
    return found


def host_waits(trace: Trace) -> Mask:
    """Mask of the host calls that block until the GPU is done: the sync calls, and the synchronous copy and set
    calls that ``copy_waits`` finds waiting, from their names and the GPU copy or set each one made."""
    def made() -> Mask:
        calls = kinds_mask(trace, ("runtime", "driver"))
        waits = names_where(trace, SYNC_CALLS.__contains__) & calls
        copies = np.flatnonzero(kinds_mask(trace, ("memcpy", "memset")))
        made_by = launch_of(trace, copies)
        copy_of = {int(call): trace.names[int(trace.name[copy])]
                   for call, copy in zip(made_by.tolist(), copies.tolist(), strict=True) if call >= 0}
        for call in np.flatnonzero(names_where(trace, synchronous_copy_call) & calls).tolist():
            waits[call] = copy_waits(trace.names[int(trace.name[call])], copy_of.get(call))
        return waits

    return kept(trace, host_waits, made)


def host_syncs(trace: Trace) -> Indices:
    """Indices of the host calls that wait for the GPU: cudaDeviceSynchronize and kin, and the copy calls the
    host waits in (``host_waits``)."""
    return np.flatnonzero(host_waits(trace))


def launched_until(trace: Trace, start: float, end: float) -> float:
    """``end``, or later: when the GPU finished the work launched between ``start`` and ``end``."""
    ops = np.flatnonzero(gpu_work(trace))
    launch = launch_of(trace, ops)
    launch_ts = trace.ts[np.maximum(launch, 0)]
    launched = (launch >= 0) & (launch_ts >= start) & (launch_ts < end)
    return max(end, float(trace.end[ops[launched]].max())) if launched.any() else end


def step_window(trace: Trace, step: int) -> Window:
    """The window of ``ProfilerStep#step``: from its start until the GPU finished the work it launched."""
    for found in profiler_steps(trace):
        if found["step"] == step:
            start = found["start_us"]
            return start, launched_until(trace, start, start + found["dur_us"])
    known = ", ".join(str(s["step"]) for s in profiler_steps(trace)) or "none"
    raise UsageError(f"no ProfilerStep#{step} in this trace (steps: {known})")


def hta_ops(trace: Trace) -> Mask:
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


def on_a_stream(trace: Trace) -> Mask:
    """Kernels, memcpy, memset, and GPU sync events that sit on a stream (tid != -1; not on Kineto's rows of
    stream syncs, ``Trace.sync_rows``, which are no stream)."""
    off_stream = [code for code, (_, tid) in enumerate(trace.lanes) if tid == -1] + sorted(trace.sync_rows)
    syncs_off_stream = kinds_mask(trace, ("sync",)) & np.isin(trace.lane, off_stream)
    return kinds_mask(trace, ("kernel", "memcpy", "memset", "sync")) & ~syncs_off_stream


def hta_window(trace: Trace) -> Window | None:
    """HTA's window: first to last of ``hta_ops``, all streams; None without GPU work."""
    ops = hta_ops(trace)
    if not ops.any():
        return None
    return float(trace.ts[ops].min()), float(trace.end[ops].max())


def trace_start_us(trace: Trace) -> float:
    """The start of the trace's first event: the zero of Perfetto's timeline."""
    return float(trace.ts.min())


def first_spans(trace: Trace, names: Iterable[str]) -> list[tuple[str, float, float, float]]:
    """The first event of each of ``names`` that the trace holds, as (name, start, end, duration), in the order of
    ``names``."""
    return [(name, float(trace.ts[index]), float(trace.end[index]), float(trace.dur[index]))
            for name in names if (index := first_of(trace, name)) is not None]


def name_counts(trace: Trace, names: Iterable[str]) -> dict[str, int]:
    """How many events of each of ``names`` the trace holds, of any kind (0 for a name it lacks)."""
    return {name: int((trace.name == trace.names.index(name)).sum()) if name in trace.names else 0 for name in names}


def occurrences(trace: Trace, region: str) -> Floats:
    """Durations of every occurrence of an op or a ``record_function`` region named ``region``, in order of start
    (``ProfilerStep``: every step)."""
    if region == "ProfilerStep":
        return np.array([step["dur_us"] for step in profiler_steps(trace)])
    if region not in trace.names:
        return np.empty(0)
    named = (trace.name == trace.names.index(region)) & np.isin(trace.kind, [KIND["annotation"], KIND["cpu_op"]])
    durations: Floats = trace.dur[named]
    return durations


def median_step(trace: Trace) -> float | None:
    """The median duration of the trace's steps; None without steps."""
    found: float | None = median([step["dur_us"] for step in profiler_steps(trace)])
    return found


def in_step(starts: Floats, step: Step) -> Mask:
    """Which of the times ``starts`` fall inside ``step``'s window."""
    inside: Mask = (starts >= step["start_us"]) & (starts < step["start_us"] + step["dur_us"])
    return inside


def ops_started_in(trace: Trace, step: Step) -> int:
    """How many ops start inside ``step``'s window."""
    return int(in_step(trace.ts[trace.kind == KIND["cpu_op"]], step).sum())


def syncs_by_step(trace: Trace) -> list[tuple[Step, Floats]]:
    """Each step, with the durations of the host syncs (``host_syncs``) that start inside it."""
    syncs = host_syncs(trace)
    starts, durations = trace.ts[syncs], trace.dur[syncs]
    return [(step, durations[in_step(starts, step)]) for step in profiler_steps(trace)]


def encloses(trace: Trace, outer: str, inner: str) -> bool | None:
    """Whether the first ``inner`` event lies inside the first ``outer`` one; None without either."""
    first_outer, first_inner = first_of(trace, outer), first_of(trace, inner)
    if first_outer is None or first_inner is None:
        return None
    return bool(trace.ts[first_outer] <= trace.ts[first_inner] and trace.end[first_inner] <= trace.end[first_outer])


def kernel_durations(trace: Trace) -> Floats:
    """The duration of every kernel, in order of start."""
    durations: Floats = trace.dur[trace.kind == KIND["kernel"]]
    return durations


def event_names(trace: Trace) -> frozenset[str]:
    """Every name the trace's events have (its string table)."""
    return frozenset(trace.names)


def host_events_by_name(trace: Trace) -> Counter[str]:
    """How many ops and ``record_function`` regions of each name the trace holds."""
    return Counter(trace.names[code] for code in trace.name[kinds_mask(trace, ("cpu_op", "annotation"))])
