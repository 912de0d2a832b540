"""Kernels and memory traffic: time by name with its distribution, occupancy, and achieved TFLOP/s."""

from typing import NamedTuple, TypedDict

import numpy as np
from numpy.typing import NDArray

from profguide.analysis.families import kernel_family
from profguide.analysis.intervals import EVERYTHING, Floats, Mask, Window, starts_in
from profguide.analysis.opwork import op_work
from profguide.analysis.peaks import compute_roof, device_peaks, uses_tf32
from profguide.analysis.select import Indices, names_where
from profguide.analysis.summary import Distribution, GemmRow, KernelRow, MemoryTraffic, Occupancy
from profguide.patterns import GEMM_FIRST_MATRIX
from profguide.trace.model import KIND, NO_ID, Trace


class GemmTotals(TypedDict):
    """The calls of one op, shape and type so far, as ``gemm_throughput`` adds them up."""

    calls: int
    flops: int
    kernel_us: float


def distribution(values: Floats) -> Distribution | None:
    """``stats`` of an array; None when it is empty."""
    return stats(values) if len(values) else None


def stats(values: Floats) -> Distribution:
    """count, mean, p50, p95, max of a non-empty array."""
    return {
        "count": int(len(values)),
        "mean": float(np.mean(values)),
        "p50": float(np.percentile(values, 50)),
        "p95": float(np.percentile(values, 95)),
        "max": float(np.max(values)),
    }


def by_name(trace: Trace, selected: Mask) -> tuple[NDArray[np.int32], Indices, Floats]:
    """The selected events sorted (stably) by name: (each name's code, where its events start, the durations
    in that order)."""
    codes = trace.name[selected]
    order = np.argsort(codes, kind="stable")
    codes, durations = codes[order], trace.dur[selected][order]
    starts = np.flatnonzero(np.diff(codes, prepend=-1))  # a name's events begin where the code changes
    return codes[starts], starts, durations


def grouped(trace: Trace, selected: Mask) -> dict[str, Floats]:
    """Events grouped by name: {name: durations array}."""
    codes, starts, durations = by_name(trace, selected)
    groups = np.split(durations, starts[1:]) if len(codes) else []
    return {trace.names[int(code)]: group for code, group in zip(codes, groups, strict=True)}


def in_window(trace: Trace, window: Window) -> Mask:
    """Mask of the events that start in the window."""
    return starts_in(trace.ts, window)


def kernel_rows(trace: Trace, selected: Mask, limit: int | None = None) -> list[KernelRow]:
    """The selected events grouped by name, most total time first (ties by name), with count, mean, p50, p95
    and max: the distribution only of the ``limit`` names returned, where a trace may hold 200,000."""
    codes, starts, durations = by_name(trace, selected)
    ends = np.append(starts[1:], len(durations))
    totals = {int(i): float(durations[starts[i]:ends[i]].sum()) for i in contenders(durations, starts, limit)}
    ranked = sorted(totals, key=lambda i: (-totals[i], trace.names[codes[i]]))[:limit]
    return [{"name": trace.names[codes[i]], "total_us": totals[i], **stats(durations[starts[i]:ends[i]])}
            for i in ranked]


def contenders(durations: Floats, starts: Indices, limit: int | None) -> Indices:
    """The groups (``by_name``'s) whose total may be among the ``limit`` largest: estimated all at once with
    their rounding errors bounded, so that the totals ``kernel_rows`` adds up group by group rank as they did."""
    if limit is None or not 0 < limit < len(starts):
        return np.arange(len(starts))
    estimate, magnitude = np.add.reduceat(durations, starts), np.add.reduceat(np.abs(durations), starts)
    error = 2 * np.finfo(float).eps * np.diff(starts, append=len(durations)) * magnitude  # above either sum's
    if not np.isfinite(error).all():  # an infinite or NaN duration: no bound to rely on
        return np.arange(len(starts))
    cutoff = np.partition(estimate - error, len(starts) - limit)[len(starts) - limit]
    return np.flatnonzero(estimate + error >= cutoff)


def top_kernels(trace: Trace, window: Window | None = None, limit: int = 10) -> list[KernelRow]:
    """Kernels by total time (those starting inside the window), with their duration statistics."""
    selected = trace.kind == KIND["kernel"]
    if window is not None:
        selected &= in_window(trace, window)
    return kernel_rows(trace, selected, limit)


def memory_traffic(trace: Trace, window: Window = EVERYTHING) -> list[MemoryTraffic]:
    """memcpy and memset (those that start in the window) by name: count, time, bytes and achieved bandwidth."""
    rows: list[MemoryTraffic] = []
    for kind in ("memcpy", "memset"):
        selected = (trace.kind == KIND[kind]) & in_window(trace, window)
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


def occupancy(trace: Trace, name_contains: str = "", window: Window = EVERYTHING) -> list[Occupancy]:
    """Duration-weighted mean of the profiler's estimated achieved occupancy (%), by kernel name, over the
    kernels that start in the window."""
    selected = (trace.kind == KIND["kernel"]) & np.isfinite(trace.occupancy) & in_window(trace, window)
    if name_contains:
        selected &= names_where(trace, lambda name: name_contains in name)
    codes, inverse = np.unique(trace.name[selected], return_inverse=True)
    weights, values = trace.dur[selected], trace.occupancy[selected]
    total = np.bincount(inverse, weights=weights, minlength=len(codes))
    weighted = np.bincount(inverse, weights=weights * values, minlength=len(codes))
    plain = np.bincount(inverse, weights=values, minlength=len(codes)) / np.maximum(
        np.bincount(inverse, minlength=len(codes)), 1)
    rows: list[Occupancy] = [
        {"name": trace.names[code], "occupancy_pct": float(w / t if t > 0 else p), "total_us": float(t)}
        for code, t, w, p in zip(codes.tolist(), total.tolist(), weighted.tolist(), plain.tolist(), strict=True)]
    return sorted(rows, key=lambda row: -row["total_us"])


def device_name(trace: Trace) -> str | None:
    for device in trace.device_properties:
        if isinstance(device, dict) and device.get("name"):
            return str(device["name"])
    return None


GemmKey = tuple[str, str, str]  # (op, its input shapes as the trace records them, its input type)


class GemmCall(NamedTuple):
    """One matrix-multiply call whose shapes were recorded and whose kernels the trace joins to it."""

    key: GemmKey
    flops: int
    kernel_us: float  # its kernels' durations added up
    kernels: tuple[str, ...]  # its kernels' names


def gemm_calls(trace: Trace, window: Window = EVERYTHING) -> list[GemmCall]:
    """Each matrix-multiply call with its shapes, its FLOPs and the time of its kernels that start in the window."""
    kernels = np.flatnonzero((trace.kind == KIND["kernel"]) & (trace.external_id != NO_ID) & in_window(trace, window))
    order = np.argsort(trace.external_id[kernels], kind="stable")
    kernel_ids, kernel_durs = trace.external_id[kernels][order], trace.dur[kernels][order]
    kernel_codes = trace.name[kernels][order]
    calls: list[GemmCall] = []
    for index, inputs in trace.shapes.items():
        name = trace.names[trace.name[index]]
        work = op_work(name, *inputs) if name in GEMM_FIRST_MATRIX else None  # opwork's count: addmm's bias too
        external = trace.external_id[index]
        if work is None or external == NO_ID:
            continue
        dims, types = inputs.dims, inputs.types
        low, high = np.searchsorted(kernel_ids, external, "left"), np.searchsorted(kernel_ids, external, "right")
        if high == low:
            continue
        dtype = str(types[GEMM_FIRST_MATRIX[name]]) if len(types) > GEMM_FIRST_MATRIX[name] else "?"
        calls.append(GemmCall((name, str(dims), dtype), work.flops, float(kernel_durs[low:high].sum()),
                              tuple(trace.names[code] for code in kernel_codes[low:high].tolist())))
    return calls


def gemm_throughput(trace: Trace, window: Window = EVERYTHING) -> list[GemmRow]:
    """Achieved TFLOP/s of the matrix multiplies whose shapes were recorded, against the device's peak, over
    the kernels that start in the window."""
    peaks = device_peaks(trace.device_properties[0] if trace.device_properties else None)
    groups: dict[GemmKey, GemmTotals] = {}
    calls = gemm_calls(trace, window)
    on_tf32 = {call.key for call in calls if any(map(uses_tf32, call.kernels))}
    for call in calls:
        group = groups.setdefault(call.key, {"calls": 0, "flops": 0, "kernel_us": 0.0})
        group["calls"] += 1
        group["flops"] += call.flops
        group["kernel_us"] += call.kernel_us
    rows: list[GemmRow] = []
    for (name, dims, dtype), group in groups.items():
        achieved = group["flops"] / group["kernel_us"] / 1e6 if group["kernel_us"] > 0 else None
        roof = compute_roof(peaks, dtype, True, (name, dims, dtype) in on_tf32) if peaks else None
        peak = roof.tflops if roof else None
        rows.append({
            "op": name, "input_dims": dims, "dtype": dtype, **group, "tflops": achieved, "peak_tflops": peak,
            "pct_of_peak": 100 * achieved / peak if achieved and peak else None,
        })
    return sorted(rows, key=lambda row: -row["kernel_us"])


def busiest_gemm_times(trace: Trace) -> Floats:
    """The kernel time of each call of the matrix multiply (op, shapes, type) with the most kernel time: calls
    that ask the GPU for the same work, so that their spread is the GPU's own."""
    calls = gemm_calls(trace)
    if not calls:
        return np.empty(0)
    totals: dict[GemmKey, float] = {}
    for call in calls:
        totals[call.key] = totals.get(call.key, 0.0) + call.kernel_us
    busiest = max(totals, key=lambda key: totals[key])
    return np.array([call.kernel_us for call in calls if call.key == busiest])


def kernel_rows_named(trace: Trace, part: str) -> list[KernelRow]:
    """``kernel_rows`` of the kernels whose name holds ``part``, as written, one row per name."""
    return kernel_rows(trace, (trace.kind == KIND["kernel"]) & names_where(trace, lambda name: part in name))


def device_numbers(trace: Trace) -> dict[str, float]:
    """The numbers the trace's ``deviceProperties`` give its first GPU, by key."""
    devices = trace.device_properties
    return {key: float(value) for key, value in (devices[0].items() if devices else ())
            if isinstance(value, int | float) and not isinstance(value, bool)}


def calls_on(trace: Trace, op: str, shapes: str) -> list[GemmCall]:
    """The calls of the matrix multiply ``op`` on inputs of the shapes ``shapes`` (``gemm_calls``)."""
    return [call for call in gemm_calls(trace) if call.key[:2] == (op, shapes)]


def gemm_kernels_named(call: GemmCall, part: str) -> bool:
    """Whether the call (``gemm_calls``) launched a GEMM kernel, and every one it launched holds ``part`` in its
    name (in any case): a call with no GEMM kernel (a fill alone) runs no tile, so holds none."""
    gemms = [name.lower() for name in call.kernels if kernel_family(name).family == "gemm"]
    return bool(gemms) and all(part.lower() in name for name in gemms)


def kernel_names(trace: Trace) -> list[str]:
    """The distinct names of a trace's kernels."""
    codes = np.unique(trace.name[trace.kind == KIND["kernel"]]).tolist()
    return [trace.names[index] for index in codes]
