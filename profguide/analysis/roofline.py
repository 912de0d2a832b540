"""Is this kernel fast? Each op's FLOPs and bytes (``opwork``) over the time of the GPU work it launched, set
against the roof of the device it ran on (``peaks``): the least of its peak and its memory bandwidth times the
op's arithmetic intensity.

An op call is *counted* when it has a formula and launched GPU work: itself, or through ops with no formula of
their own (``aten::_convolution`` through ``cudnn_convolution``). Of an op with a formula around another,
only the inner one counts unless the outer launched work itself: ``aten::linear`` calls ``aten::addmm``, which
is counted, and ``linear`` is not, or its work would be counted twice; flash attention's op, which launches its
kernel itself, is counted beside the ``aten::zeros`` inside it. Each kernel, copy and set goes to the nearest
counted call around the op that launched it. GPU work outside every counted call is the *unmodelled* time,
listed by the op that launched it, never guessed.

A CPU trace has no roofline here: its ops ran on a CPU whose peaks profguide does not hold.
"""

import json
import re
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from profguide.analysis.intervals import Floats, Mask, Window
from profguide.analysis.ops import HostTimes, host_times, in_window, launch_owners
from profguide.analysis.opwork import Work, op_work
from profguide.analysis.peaks import Peaks, Roof, compute_roof, device_peaks, uses_tf32
from profguide.analysis.select import Indices, gpu_work, kept
from profguide.analysis.summary import Roofline, RooflineRow, UnmodelledRow
from profguide.trace.model import KIND, Trace

MATRIX_FAMILIES = frozenset({"GEMM", "convolution", "attention"})  # work that runs on tensor (matrix) cores
NEAR_THE_ROOF = 0.5  # an op at half its roof or more is near it: the line, and a common one
FURTHEST_SHOWN = 5  # the ops furthest below their roof that explain names
NO_OP = "(no op found)"  # the launcher of GPU work whose launch the trace lacks, or that no op holds
UNMODELLED_SHOWN = 10  # the launchers of GPU work with no formula that explain lists


class Counted(NamedTuple):
    """The counted calls (positions in ``host_times``' order) with their work, and which counted call (or -1) owns
    each GPU op of the trace."""

    positions: Indices
    work: npt.NDArray[np.object_]  # each call's Work
    gpu_ops: Indices  # GPU op event indices that some op or region owns
    owner: Indices  # for each, the position of the op or region that launched it
    counted_owner: Indices  # for each, the position of the counted call around that owner, or -1


def call_work(trace: Trace, times: HostTimes) -> tuple[Indices, list[Work]]:
    """The ops with a formula that fits their inputs, as positions in ``times.order``, and their work; one
    formula per distinct (name, inputs), as the loader shares their decoded lists."""
    found: dict[tuple[int, int], Work | None] = {}
    position_of = np.full(len(trace), -1, np.intp)
    position_of[times.order] = np.arange(len(times.order))
    positions, works = [], []
    for index, inputs in trace.shapes.items():
        position = int(position_of[index])
        if position < 0 or trace.kind[index] != KIND["cpu_op"]:
            continue
        key = (int(trace.name[index]), id(inputs))  # calls with the same inputs share them (the loader's)
        if key not in found:
            found[key] = op_work(trace.names[trace.name[index]], *inputs)
        work = found[key]
        if work is not None:
            positions.append(position)
            works.append(work)
    ordered = np.argsort(positions, kind="stable")
    return np.array(positions, np.intp)[ordered], [works[at] for at in ordered.tolist()]


def innermost(parent: Indices, candidates: Mask) -> Mask:
    """The candidates with no candidate below them (``parent`` links positions)."""
    above = np.zeros(len(parent), bool)
    current = parent[candidates]
    while len(current):  # every ancestor of a candidate, one level a pass
        current = current[current >= 0]
        above[current] = True
        current = parent[current]
    return candidates & ~above


def nearest_marked(parent: Indices, marked: Mask) -> Indices:
    """For each position, itself when marked, else its nearest marked ancestor, or -1: pointer doubling."""
    target = np.where(marked, np.arange(len(parent)), parent)
    while True:
        pending = np.flatnonzero(target >= 0)
        pending = pending[~marked[target[pending]]]
        if not len(pending):
            return target
        target[pending] = target[target[pending]]  # each pass doubles the levels skipped


def counted_calls(trace: Trace) -> Counted:
    """The counted op calls of the trace, with their work, and the counted owner of every GPU op; made once."""
    def made() -> Counted:
        times = host_times(trace)
        positions, works = call_work(trace, times)
        with_gpu, launching = np.zeros(len(times.order), bool), np.zeros(len(times.order), bool)
        with_gpu[positions] = times.device[positions] > 0
        launching[positions] = times.self_device[positions] > 0
        chosen = innermost(times.parent, with_gpu) | launching
        keep = chosen[positions]
        gpu_ops, owner = launch_owners(trace, times.order, times.tree)
        around = nearest_marked(times.parent, chosen)
        work = np.empty(len(works), object)
        work[:] = works
        return Counted(positions[keep], work[keep], gpu_ops, owner, around[owner] if len(owner) else owner)

    found: Counted = kept(trace, counted_calls, made)
    return found


def summed_by(groups: npt.NDArray[np.int64], amounts: Floats) -> tuple[npt.NDArray[np.int64], Floats, Indices]:
    """(each distinct group, its amounts added up, how many) of ``groups``, at numpy's speed."""
    keys, inverse, counts = np.unique(groups, return_inverse=True, return_counts=True)
    return keys, np.bincount(inverse.ravel(), weights=amounts, minlength=len(keys)).astype(np.float64), counts


def kernel_times(trace: Trace, counted: Counted) -> dict[int, dict[str, float]]:
    """For each counted call (position), the time of its GPU ops by name."""
    inside = counted.counted_owner >= 0
    names = len(trace.names)
    events = counted.gpu_ops[inside]
    keys, totals, _ = summed_by(counted.counted_owner[inside].astype(np.int64) * names + trace.name[events],
                                trace.dur[events])
    times: dict[int, dict[str, float]] = {}
    for key, total in zip(keys.tolist(), totals.tolist(), strict=True):
        times.setdefault(key // names, {})[trace.names[key % names]] = total
    return times


# A copy between host and device (or between GPUs) runs at its link's bandwidth (PCIe, NVLink), not at the
# GPU's memory bandwidth, and the peak table holds no link: such an op gets no roof.
OFF_DEVICE_COPY = re.compile(r"^Memcpy (?!DtoD)")
COPY_OR_SET = re.compile(r"^Mem(cpy|set) ")  # how Kineto names a copy's or a set's GPU op


def roof_of(peaks: Peaks | None, work: Work, kernel: str) -> Roof | None:
    """The flat roof this work can reach on the device; None without one."""
    if peaks is None:
        return None
    return compute_roof(peaks, work.dtype, work.family in MATRIX_FAMILIES, uses_tf32(kernel))


def placed(row: RooflineRow, flat: Roof | None, bandwidth: float | None) -> RooflineRow:
    """``row`` with its rates, its roof at its intensity, which roof binds, the fraction reached and time lost.
    ``bandwidth`` (TB/s) None: no roof at all (no peaks, or a copy that leaves the device); ``flat`` None: no peak
    for its kind of work, which only work without FLOPs (held to the bandwidth alone) can do without."""
    peak = flat.tflops if flat else None
    seconds = row["device_us"] * 1e-6
    tflops = row["flops"] / seconds / 1e12 if seconds > 0 else None
    tb_per_s = row["bytes"] / seconds / 1e12 if seconds > 0 else None
    intensity = row["flops"] / row["bytes"] if row["bytes"] > 0 else None
    roof = bound = fraction = lost = None
    if bandwidth is not None and tflops is not None and tb_per_s is not None:
        if not row["flops"]:
            roof, bound, fraction = 0.0, "memory", tb_per_s / bandwidth
        elif peak is not None:
            memory_roof = bandwidth * intensity if intensity is not None else float("inf")
            roof = min(peak, memory_roof)
            bound = "memory" if memory_roof < peak else "compute"
            fraction = tflops / roof
        lost = None if fraction is None else row["device_us"] * max(0.0, 1.0 - fraction)
    return row | {"tflops": tflops, "tb_per_s": tb_per_s, "intensity": intensity, "peak_tflops": peak,
                  "peak_name": flat.name if flat else None, "roof_tflops": roof,
                  "bound": bound, "fraction": fraction, "lost_us": lost}


RowKey = tuple[str, str, str]  # a row's name, shapes and type


def roofline_rows(trace: Trace, window: Window | None = None) -> list[RooflineRow]:
    """The counted calls that start in ``window`` (all when None), by name, shapes and type, most device time
    first, each placed under the device's roof."""
    texts: dict[int, str] = {}  # calls with the same inputs share their lists (the loader's): written once each

    def by_op(index: int, work: Work, kernels: dict[str, float]) -> RowKey:
        # the shapes as Kineto writes them, on one line, where a pretty-printed trace may spread them over many
        dims = trace.shapes[index].dims
        if id(dims) not in texts:
            texts[id(dims)] = json.dumps(dims)
        return trace.names[trace.name[index]], texts[id(dims)], work.dtype

    return grouped_rows(trace, window, by_op)


def roofline_kernels(trace: Trace, window: Window | None = None) -> list[RooflineRow]:
    """The same by kernel: each row's name is a kernel's, over the counted calls that launched it and no other
    kernel (copies and sets beside it, as cuBLAS's zeroed workspace, count in its time; a call that launched two
    kernels gives neither its work), most device time first."""
    def by_kernel(_: int, work: Work, kernels: dict[str, float]) -> RowKey | None:
        launched = [name for name in kernels if not COPY_OR_SET.match(name)]
        return (launched[0], "", work.dtype) if len(launched) == 1 else None

    return grouped_rows(trace, window, by_kernel)


def grouped_rows(trace: Trace, window: Window | None,
                 key_of: Callable[[int, Work, dict[str, float]], RowKey | None]) -> list[RooflineRow]:
    """The counted calls that start in ``window``, grouped by ``key_of`` (event index, work, the call's GPU time
    by name → key, or None to leave the call out), each group placed under the device's roof."""
    counted = counted_calls(trace)
    times = host_times(trace)
    peaks = device_peaks(trace.device_properties[0] if trace.device_properties else None)
    kernels = kernel_times(trace, counted)
    starts = trace.ts[times.order[counted.positions]]
    groups: dict[tuple[str, str, str], RooflineRow] = {}
    row_kernels: dict[tuple[str, str, str], dict[str, float]] = {}
    for position, work, inside in zip(counted.positions.tolist(), counted.work.tolist(),
                                      in_window(starts, window).tolist(), strict=True):
        if not inside:
            continue
        index = int(times.order[position])
        key = key_of(index, work, kernels.get(position, {}))
        if key is None:
            continue
        row = groups.get(key)
        if row is None:  # not setdefault: it would build a row for every call
            row = groups[key] = RooflineRow(
                name=key[0], shapes=key[1], dtype=work.dtype, family=work.family, calls=0, flops=0, bytes=0,
                device_us=0.0, kernel="", tflops=None, tb_per_s=None, intensity=None, peak_tflops=None,
                peak_name=None, roof_tflops=None, bound=None, fraction=None, lost_us=None)
        row["calls"] += 1
        row["flops"] += work.flops
        row["bytes"] += work.bytes
        by_name = row_kernels.setdefault(key, {})
        for name, us in kernels.get(position, {}).items():
            by_name[name] = by_name.get(name, 0.0) + us
            row["device_us"] += us
    rows = []
    for key, row in groups.items():
        by_name = row_kernels[key]
        row["kernel"] = max(by_name, key=lambda name: (by_name[name], name)) if by_name else ""
        work = Work(row["flops"], row["bytes"], row["dtype"], row["family"])
        bandwidth = None if peaks is None or OFF_DEVICE_COPY.match(row["kernel"]) else peaks.tb_per_s
        rows.append(placed(row, roof_of(peaks, work, row["kernel"]), bandwidth))
    return sorted(rows, key=lambda row: (-row["device_us"], row["name"], row["shapes"]))


def unmodelled_rows(trace: Trace, window: Window | None = None) -> list[UnmodelledRow]:
    """GPU work (starting in ``window``) outside every counted call, by the name of the op that launched it."""
    counted = counted_calls(trace)
    times = host_times(trace)
    outside = (counted.counted_owner < 0) & in_window(trace.ts[counted.gpu_ops], window)
    codes, totals, counts = summed_by(trace.name[times.order[counted.owner[outside]]].astype(np.int64),
                                      trace.dur[counted.gpu_ops[outside]])
    rows = {trace.names[code]: UnmodelledRow(name=trace.names[code], calls=count, device_us=total)
            for code, total, count in zip(codes.tolist(), totals.tolist(), counts.tolist(), strict=True)}
    owned = np.zeros(len(trace), bool)
    owned[counted.gpu_ops] = True
    orphans = gpu_work(trace) & ~owned & in_window(trace.ts, window)
    if orphans.any():
        rows[NO_OP] = UnmodelledRow(name=NO_OP, calls=int(orphans.sum()),
                                       device_us=float(trace.dur[orphans].sum()))
    return sorted(rows.values(), key=lambda row: (-row["device_us"], row["name"]))


def roofline(trace: Trace, window: Window | None = None) -> Roofline | None:
    """The roofline of the ops that start in ``window`` (their GPU work wherever it runs); None for a trace with
    no GPU work."""
    work = gpu_work(trace)
    if not work.any():
        return None
    device = trace.device_properties[0] if trace.device_properties else None
    peaks = device_peaks(device)
    rows = roofline_rows(trace, window)
    unmodelled = unmodelled_rows(trace, window)
    modelled = sum(row["device_us"] for row in rows)
    near = sum(row["device_us"] for row in rows if row["fraction"] is not None and row["fraction"] >= NEAR_THE_ROOF)
    lost = sorted((row for row in rows if row["lost_us"]), key=lambda row: -(row["lost_us"] or 0.0))
    name = device.get("name") if device else None
    return Roofline(device=str(name) if name else None, shapes_recorded=bool(trace.recorded_shapes.any()),
                    peaks_model=peaks.model if peaks else None,
                    peaks_source=peaks.source if peaks else None, tb_per_s=peaks.tb_per_s if peaks else None,
                    device_us=modelled + sum(row["device_us"] for row in unmodelled), modelled_us=modelled,
                    near_roof_us=near, furthest=lost[:FURTHEST_SHOWN], unmodelled=unmodelled[:UNMODELLED_SHOWN])
