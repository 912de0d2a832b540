"""Kernels and memory traffic: time by name with its distribution, occupancy, and achieved TFLOP/s."""

from typing import TypedDict

import numpy as np

from profguide.analysis.intervals import Floats, Mask, Window
from profguide.analysis.select import names_where
from profguide.analysis.summary import Distribution, GemmRow, KernelRow, MemoryTraffic, Occupancy
from profguide.patterns import GEMM_FIRST_MATRIX
from profguide.trace.model import KIND, NO_ID, Trace


class GemmTotals(TypedDict):
    """The calls of one op, shape and type so far, as ``gemm_throughput`` adds them up."""

    calls: int
    flops: int
    kernel_us: float

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


def grouped(trace: Trace, selected: Mask) -> dict[str, Floats]:
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


def in_window(trace: Trace, window: Window) -> Mask:
    return (trace.ts >= window[0]) & (trace.ts < window[1])


def kernel_rows(trace: Trace, selected: Mask, limit: int | None = None) -> list[KernelRow]:
    """The selected events grouped by name, most total time first, with count, mean, p50, p95 and max."""
    rows: list[KernelRow] = [
        {"name": name, "total_us": float(durations.sum()), **stats(durations)}
        for name, durations in grouped(trace, selected).items()
    ]
    rows.sort(key=lambda row: (-row["total_us"], row["name"]))
    return rows[:limit]


def top_kernels(trace: Trace, window: Window | None = None, limit: int = 10) -> list[KernelRow]:
    """Kernels by total time (those starting inside the window), with their duration statistics."""
    selected = trace.kind == KIND["kernel"]
    if window is not None:
        selected &= in_window(trace, window)
    return kernel_rows(trace, selected, limit)


def memory_traffic(trace: Trace) -> list[MemoryTraffic]:
    """memcpy and memset by name: count, time, bytes and achieved bandwidth."""
    rows: list[MemoryTraffic] = []
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


def occupancy(trace: Trace, name_contains: str = "") -> list[Occupancy]:
    """Duration-weighted mean of the profiler's estimated achieved occupancy (%), by kernel name."""
    selected = (trace.kind == KIND["kernel"]) & np.isfinite(trace.occupancy)
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


def peak_tflops(name: str | None, dtype: str) -> float | None:
    """The datasheet's dense peak for a device name and input type, or None when unknown."""
    for model, peaks in PEAK_TFLOPS:
        if name and model in name.upper():
            return peaks.get(dtype)
    return None


def shape(value: object) -> list[int] | None:
    """``value`` as a tensor shape (a list of non-negative whole numbers), or None."""
    if isinstance(value, list) and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in value):
        return value
    return None


def gemm_flops(op: str, dims: object) -> int | None:
    """Floating-point operations of one matrix multiply from its input shapes, or None."""
    skip = GEMM_FIRST_MATRIX.get(op)
    if skip is None or not isinstance(dims, list) or len(dims) < skip + 2:
        return None
    a, b = shape(dims[skip]), shape(dims[skip + 1])
    if a is None or b is None:
        return None
    if len(a) == 2 and len(b) == 2 and a[1] == b[0]:
        return 2 * a[0] * a[1] * b[1]
    if len(a) == 3 and len(b) == 3 and a[0] == b[0] and a[2] == b[1]:
        return 2 * a[0] * a[1] * a[2] * b[2]
    return None


def gemm_throughput(trace: Trace) -> list[GemmRow]:
    """Achieved TFLOP/s of the matrix multiplies whose shapes were recorded, against the device's peak."""
    kernels = np.flatnonzero((trace.kind == KIND["kernel"]) & (trace.external_id != NO_ID))
    order = np.argsort(trace.external_id[kernels], kind="stable")
    kernel_ids, kernel_durs = trace.external_id[kernels][order], trace.dur[kernels][order]
    device = device_name(trace)
    groups: dict[tuple[str, str, str], GemmTotals] = {}
    for index, (dims, types) in trace.shapes.items():
        name = trace.names[trace.name[index]]
        flops = gemm_flops(name, dims)
        external = trace.external_id[index]
        if flops is None or external == NO_ID:
            continue
        low, high = np.searchsorted(kernel_ids, external, "left"), np.searchsorted(kernel_ids, external, "right")
        if high == low:
            continue
        dtype = str(types[GEMM_FIRST_MATRIX[name]]) if len(types) > GEMM_FIRST_MATRIX[name] else "?"
        key = (name, str(dims), dtype)
        group = groups.setdefault(key, {"calls": 0, "flops": 0, "kernel_us": 0.0})
        group["calls"] += 1
        group["flops"] += flops
        group["kernel_us"] += float(kernel_durs[low:high].sum())
    rows: list[GemmRow] = []
    for (name, dims, dtype), group in groups.items():
        achieved = group["flops"] / group["kernel_us"] / 1e6 if group["kernel_us"] > 0 else None
        peak = peak_tflops(device, dtype)
        rows.append({
            "op": name, "input_dims": dims, "dtype": dtype, **group, "tflops": achieved, "peak_tflops": peak,
            "pct_of_peak": 100 * achieved / peak if achieved and peak else None,
        })
    return sorted(rows, key=lambda row: -row["kernel_us"])
