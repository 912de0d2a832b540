"""The rules of the TensorBoard plugin's recommendations and of Nsight Systems' expert rules, on a Kineto
trace.

The TensorBoard plugin (kineto's ``tb_plugin``, ``torch_tb_profiler/profiler/run_generator.py``) recommended
a change when the average step spent over 5% in the DataLoader or over 10% in communication, when a GPU was
busy under half the time, when DataParallel drove several GPUs, when DDP ran without NCCL on GPUs, when
tensor-core-eligible ops ran while no kernel used tensor cores, and when a device's peak memory passed 90% of
its capacity. Nsight Systems' expert rules (``nsys analyze``) flag copies from pageable memory, synchronous
copy and set calls, synchronisation calls, long GPU gaps and stretches of low GPU utilisation. Each rule
here measures the same thing from what the summary already holds, or from the trace's columns over distinct
names where it does not.
"""

import re

import numpy as np

from profguide.analysis.families import CONVOLUTION, GEMM, kernel_family
from profguide.analysis.idle import busy_intervals
from profguide.analysis.intervals import EVERYTHING, Window, covered, inside_any
from profguide.analysis.kernels import in_window
from profguide.analysis.rule import Evidence, Rule
from profguide.analysis.select import (
    SYNC_CALLS,
    first_of,
    gpu_lanes,
    host_waits,
    kinds_mask,
    names_where,
    on_a_stream,
    overlapping,
    synchronous_copy_call,
)
from profguide.analysis.summary import Summary
from profguide.patterns import BACKEND_OP
from profguide.text import count_of, cut, format_duration, format_size
from profguide.trace.model import KIND, LaneId, Trace

# The TensorBoard plugin recommends DataLoader workers when the DataLoader takes over 5% of the average step.
DATA_LOADING_PCT = 5.0
# It recommends gradient compression or accumulation when communication takes over 10% of the average step.
# Communication that computation hides costs nothing, so here the part it does not hide must pass 10% too.
COMMUNICATION_PCT = 10.0
# It calls a GPU's utilisation low when the GPU is busy under half the time.
GPU_BUSY_PCT = 50.0
# It recommends mixed precision when tensor-core-eligible ops ran and no kernel used tensor cores, on a GPU of
# compute capability 7 or more (Volta, the first with tensor cores). Here the kernels' names decide: half-
# precision GEMMs and convolutions whose names say they ran off the tensor cores, over 1% of the kernels' time,
# so that one stray kernel is not a finding. A matrix-vector product (cuBLAS's gemv kernels) is left out: with
# one column there is nothing for a tensor core to tile.
TENSOR_CORE_MAJOR = 7
HALF_PRECISIONS = frozenset({"fp16", "bf16"})
OFF_TENSOR_CORES_PCT = 1.0
# It says a device's memory is at its limit when the peak allocated passes 90% of its totalGlobalMem.
MEMORY_PCT = 90.0
CUDA_DEVICE_TYPE = 1  # c10's DeviceType for CUDA, which ROCm's builds record for their GPUs too
# Nsight Systems' GPU-gaps rule flags a gap over 500 ms by default, made for captures of minutes. A Kineto
# trace holds a few steps: a gap as long as a fifth of the window (a whole step of a five-step profile) is long
# there too, once it lasts a millisecond (a shorter one is launch jitter, whatever the window).
LONG_GAP_US = 500_000.0
LONG_GAP_WINDOW_PCT = 20.0
LONG_GAP_MIN_US = 1_000.0
# Nsight Systems' GPU-time-utilisation rule cuts the window into 30 equal stretches by default and flags those
# in which the GPU is busy under 50% of the time.
STRETCHES = 30
STRETCH_BUSY_PCT = 50.0

# What nn.DataParallel leaves in a trace: the region its forward records (on a CPU too, where it only calls the
# module), its frames and its module (with_stack), and the backward nodes of the autograd functions
# it replicates and gathers with (torch/nn/parallel/_functions.py); ATen's own scatter has ScatterBackward0,
# with a digit, DataParallel's none. DistributedDataParallel's region is DistributedDataParallel.forward.
DATA_PARALLEL_REGION = "DataParallel.forward"
DATA_PARALLEL_FRAME = re.compile(r"(?:^|[/\\])torch[/\\]nn[/\\]parallel[/\\]data_parallel\.py\(")
DATA_PARALLEL_MODULE = "nn.Module: DataParallel"
DATA_PARALLEL_BACKWARD = frozenset({"BroadcastBackward", "ReduceAddCoalescedBackward", "ScatterBackward",
                                    "GatherBackward"})
EVALUATE = "autograd::engine::evaluate_function: "
HOST_CALL_KINDS = ("runtime", "driver")


def percent(part: float, whole: float) -> float:
    return 100 * part / whole if whole > 0 else 0.0


def window_of(summary: Summary) -> Window:
    """The summary's window, or the whole trace on a trace without GPU work."""
    window = summary["window"]
    return (window["start_us"], window["end_us"]) if window else EVERYTHING


def start_of(trace: Trace, mask: np.ndarray) -> float | None:
    """The start of the first event of ``mask``; None when it holds none."""
    return float(trace.ts[mask].min()) if mask.any() else None


def named(names: list[str], most: int = 2) -> str:
    """Up to ``most`` names as code, with how many more: "`a`, `b` and 3 more"."""
    shown = ", ".join(f"`{cut(name)}`" for name in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def data_loading_over_5pct(trace: Trace, summary: Summary) -> Evidence | None:
    """The host's time loading data over its time in the steps (no GPU work), or the GPU's idle time while the
    host loaded data over the window."""
    host, idle, window = summary["host"], summary["idle"], summary["window"]
    if host is not None and host["windows"]:
        spans = host["windows"]
        part, whole = host["by_activity"]["data loading"]["us"], host["dur_us"]
        top = host["by_activity"]["data loading"]["top"]
        steps = spans[0]["label"].startswith("ProfilerStep")
        what = "data loading"
        over = f"the host's time in {count_of(len(spans), 'ProfilerStep')}" if steps else f"the {spans[0]['label']}"
    elif idle is not None and window is not None:
        part, whole = idle["by_activity"]["data loading"]["idle_us"], window["dur_us"]
        top = idle["by_activity"]["data loading"]["top"]
        what, over = "the GPU idle while the host loaded data", "the window"
    else:
        return None
    share = percent(part, whole)
    if share <= DATA_LOADING_PCT:
        return None
    label = top[0][0] if top else None
    words = (f"{what} {share:.1f}% of {over} ({format_duration(part)} of {format_duration(whole)})"
             + (f", mostly in `{cut(label)}`" if label else ""))
    at = first_of(trace, label) if label else None
    return Evidence(share, words, None if at is None else float(trace.ts[at]))


def is_data_parallel(name: str) -> bool:
    return (name == DATA_PARALLEL_REGION or name.startswith(DATA_PARALLEL_MODULE)
            or DATA_PARALLEL_FRAME.search(name) is not None or name.removeprefix(EVALUATE) in DATA_PARALLEL_BACKWARD)


def data_parallel(trace: Trace, summary: Summary) -> Evidence | None:
    """Events of nn.DataParallel: its forward's region, its module, its frames, its functions' backward
    nodes."""
    marks = names_where(trace, is_data_parallel)
    if not marks.any():
        return None
    names = sorted({trace.names[code] for code in np.unique(trace.name[marks]).tolist()})
    devices = len({pid for pid, _ in gpu_lanes(trace)})
    on = f"driving {count_of(devices, 'GPU')}" if devices else "with no GPU work in this trace"
    words = f"{count_of(int(marks.sum()), 'DataParallel event')} ({named(names)}), {on}"
    return Evidence(float(marks.sum()), words, start_of(trace, marks))


def is_gloo_op(name: str) -> bool:
    found = BACKEND_OP.match(name)
    return found is not None and found.group(1) == "gloo"


def ddp_on_gloo_with_gpus(trace: Trace, summary: Summary) -> Evidence | None:
    """Collectives of gloo (its ops, or distributedInfo's backend) on a trace with GPU work and no
    communication kernels (NCCL's, RCCL's)."""
    if summary["window"] is None or summary["communication"]["kernels"]:
        return None
    ops = names_where(trace, is_gloo_op) & kinds_mask(trace, ("cpu_op", "annotation"))
    backend = (trace.distributed_info or {}).get("backend")
    if not ops.any() and backend != "gloo":
        return None
    kernels = int((trace.kind == KIND["kernel"]).sum())
    said = "distributedInfo names gloo as the backend" if backend == "gloo" else "gloo's ops"
    words = (f"{count_of(int(ops.sum()), 'gloo collective')} ({said}) beside {count_of(kernels, 'GPU kernel')}, "
             "and no NCCL kernel")
    return Evidence(float(ops.sum()), words, start_of(trace, ops))


def communication_over_10pct(trace: Trace, summary: Summary) -> Evidence | None:
    """Communication kernels' time (side by side counted once) over the window, where the part of it that
    overlaps no computation takes over the same share: advice to communicate less is for communication that
    costs time, not for collectives (expert-parallel dispatch and combine, say) that computation hides."""
    comm, window = summary["communication"], summary["window"]
    if window is None or not comm["kernel_us"]:
        return None
    share = percent(comm["kernel_us"], window["dur_us"])
    if share <= COMMUNICATION_PCT or percent(comm["exposed_us"], window["dur_us"]) <= COMMUNICATION_PCT:
        return None
    top = comm["top"][0]["name"] if comm["top"] else None
    overlap = comm["overlap_pct"] or 0.0
    words = (f"communication kernels ran {share:.1f}% of the window ({format_duration(comm['kernel_us'])} of "
             f"{format_duration(window['dur_us'])}), {overlap:.0f}% of it behind computation"
             + (f"; most in `{cut(top)}`" if top else ""))
    at = first_of(trace, top) if top else None
    return Evidence(share, words, None if at is None else float(trace.ts[at]))


def idle_is_the_capture(summary: Summary) -> bool:
    """Whether the window only captures CUDA graphs (verdict ``graph-capture``): its GPU idles while launches are
    recorded, not run, so advice on that idle time would be advice on a step the trace does not hold."""
    return summary["verdict"] == "graph-capture"


def gpu_utilisation_under_50pct(trace: Trace, summary: Summary) -> Evidence | None:
    """The GPU's busy time over the window."""
    busy, idle, window = summary["gpu_busy_pct"], summary["idle"], summary["window"]
    if busy is None or idle is None or window is None or busy >= GPU_BUSY_PCT or idle_is_the_capture(summary):
        return None
    words = (f"GPU busy {busy:.1f}% of the window ({format_duration(idle['busy_us'])} of "
             f"{format_duration(window['dur_us'])})")
    gaps = idle["longest_gaps"]
    if gaps:
        words += f"; its longest idle gap {format_duration(gaps[0]['dur_us'])} ({gaps[0]['cause']})"
    return Evidence(busy, words, gaps[0]["start_us"] if gaps else None)


def has_tensor_cores(trace: Trace) -> bool:
    """Whether the trace's GPUs have tensor cores, as far as deviceProperties say (True when they do not say)."""
    majors = [device.get("computeMajor") for device in trace.device_properties]
    known = [major for major in majors if isinstance(major, int)]
    return not known or max(known) >= TENSOR_CORE_MAJOR


def tensor_core_eligible_not_on_tensor_cores(trace: Trace, summary: Summary) -> Evidence | None:
    """fp16 and bf16 GEMMs (not GEMVs) and convolutions whose names say they ran off the tensor cores, over all
    the kernels' time in the window."""
    candidates = [row for row in summary["kernel_families"] if row["family"] in (GEMM, CONVOLUTION)
                  and row["tensor_cores_us"].get("no") and HALF_PRECISIONS & set(row["precision_us"])]
    if not candidates or summary["window"] is None or not has_tensor_cores(trace):
        return None
    kernels = (trace.kind == KIND["kernel"]) & in_window(trace, window_of(summary))
    time_by_name = np.bincount(trace.name[kernels], weights=trace.dur[kernels], minlength=len(trace.names))
    missed = {trace.names[code]: float(time_by_name[code]) for code in np.flatnonzero(time_by_name).tolist()
              if (found := kernel_family(trace.names[code])).family in (GEMM, CONVOLUTION)
              and found.precision in HALF_PRECISIONS and found.tensor_cores is False and found.kind != "gemv"}
    total, missed_us = float(time_by_name.sum()), sum(missed.values())
    share = percent(missed_us, total)
    if share <= OFF_TENSOR_CORES_PCT:
        return None
    names = sorted(missed, key=lambda name: -missed[name])
    words = (f"half-precision matrix kernels off the tensor cores {share:.1f}% of the kernels' time "
             f"({format_duration(missed_us)} of {format_duration(total)}): {named(names)}")
    at = first_of(trace, names[0])
    return Evidence(share, words, None if at is None else float(trace.ts[at]))


def capacities(trace: Trace) -> dict[object, float]:
    """Each GPU's memory by its id, as deviceProperties give them."""
    return {device.get("id"): float(memory) for device in trace.device_properties
            if isinstance(memory := device.get("totalGlobalMem"), (int, float)) and memory > 0}


def memory_over_90pct(trace: Trace, summary: Summary) -> Evidence | None:
    """The allocator's peak Total Allocated on each GPU over that GPU's memory; the fullest GPU."""
    sizes = capacities(trace)
    fullest: tuple[float, int, LaneId] | None = None  # (share, memory instant, device id)
    for code, (kind, device) in enumerate(trace.memory_devices):
        totals = np.where(trace.memory_device == code, trace.memory_total, np.nan)
        if kind != CUDA_DEVICE_TYPE or device not in sizes or np.isnan(totals).all():
            continue
        peak_at = int(np.nanargmax(totals))
        share = percent(float(totals[peak_at]), sizes[device])
        if fullest is None or share > fullest[0]:
            fullest = share, peak_at, device
    if fullest is None or fullest[0] <= MEMORY_PCT:
        return None
    share, peak_at, device = fullest
    words = (f"allocated memory peaks at {format_size(int(trace.memory_total[peak_at]))}, {share:.1f}% of GPU "
             f"{device}'s {format_size(int(sizes[device]))}")
    return Evidence(share, words, float(trace.memory_ts[peak_at]))


def is_pageable_upload(name: str) -> bool:
    return "HtoD" in name and "Pageable" in name


def pageable_host_to_device_copy(trace: Trace, summary: Summary) -> Evidence | None:
    """Copies from pageable host memory to the device (``Memcpy HtoD (Pageable -> Device)``)."""
    rows = [row for row in summary["memory_traffic"] if row["kind"] == "memcpy" and is_pageable_upload(row["name"])]
    if not rows:
        return None
    count = sum(row["count"] for row in rows)
    moved = sum(row["bytes"] for row in rows)
    size = f", {format_size(int(moved))}" if moved > 0 else ""
    words = (f"{count_of(count, 'memcpy')} from pageable host memory to the device "
             f"({format_duration(sum(row['total_us'] for row in rows))}{size}): {named([row['name'] for row in rows])}")
    copies = (trace.kind == KIND["memcpy"]) & names_where(trace, is_pageable_upload)
    copies &= in_window(trace, window_of(summary))
    return Evidence(float(count), words, start_of(trace, copies))


def synchronous_memcpy_memset(trace: Trace, summary: Summary) -> Evidence | None:
    """Copy and set calls without Async in their names that the host waits in (``select.host_waits``: not a
    copy from device to device, nor a CUDA memset of device memory), in the window."""
    calls = host_waits(trace) & names_where(trace, synchronous_copy_call)
    calls &= overlapping(trace, window_of(summary))
    if not calls.any():
        return None
    names = sorted({trace.names[code] for code in np.unique(trace.name[calls]).tolist()})
    words = (f"{count_of(int(calls.sum()), 'copy or set call')} that the host waited in "
             f"({format_duration(float(trace.dur[calls].sum()))} on the host): {named(names)}")
    return Evidence(float(calls.sum()), words, start_of(trace, calls))


def sync_inside_steps(trace: Trace, summary: Summary) -> Evidence | None:
    """Synchronisation calls (cudaDeviceSynchronize and kin) that start inside a ProfilerStep: the profiler's
    own sync when it stops comes after the last step."""
    steps = summary["steps"]
    if not steps:
        return None
    syncs = np.flatnonzero(names_where(trace, SYNC_CALLS.__contains__) & kinds_mask(trace, HOST_CALL_KINDS))
    starts = np.array([step["start_us"] for step in steps])
    ends = starts + np.array([step["dur_us"] for step in steps])
    syncs = syncs[inside_any(starts, ends, trace.ts[syncs])]
    if not len(syncs):
        return None
    longest = syncs[np.argmax(trace.dur[syncs])]
    step = steps[int(np.searchsorted(starts, trace.ts[longest], side="right")) - 1]["step"]
    words = (f"{count_of(len(syncs), 'synchronisation call')} inside {count_of(len(steps), 'ProfilerStep')} "
             f"({format_duration(float(trace.dur[syncs].sum()))} in all); the longest, "
             f"`{cut(trace.names[trace.name[longest]])}`, {format_duration(float(trace.dur[longest]))} in "
             f"ProfilerStep#{step}")
    return Evidence(float(len(syncs)), words, float(trace.ts[longest]))


def long_gpu_gaps(trace: Trace, summary: Summary) -> Evidence | None:
    """The GPU's longest idle gap in the window, against Nsight's 500 ms and a fifth of the window."""
    idle, window = summary["idle"], summary["window"]
    if idle is None or window is None or not idle["longest_gaps"] or idle_is_the_capture(summary):
        return None
    length = window["dur_us"]

    def long(us: float) -> bool:
        return us >= LONG_GAP_US or (us >= LONG_GAP_MIN_US and percent(us, length) >= LONG_GAP_WINDOW_PCT)

    gap = idle["longest_gaps"][0]
    if not long(gap["dur_us"]):
        return None
    others = sum(long(other["dur_us"]) for other in idle["longest_gaps"][1:])
    words = (f"the GPU idle {format_duration(gap['dur_us'])} at once, {percent(gap['dur_us'], length):.0f}% of the "
             f"window ({format_duration(length)}), while {idle['by_cause'][gap['cause']]['meaning']}")
    if others:
        words += f"; {count_of(others, 'other gap')} as long among the five longest"
    return Evidence(gap["dur_us"], words, gap["start_us"])


def low_gpu_utilisation_stretch(trace: Trace, summary: Summary) -> Evidence | None:
    """The emptiest of the window's equal stretches, on a GPU busy at least half the window as a whole (else
    ``gpu-utilisation-under-50pct`` says it)."""
    busy_pct, window = summary["gpu_busy_pct"], summary["window"]
    if (busy_pct is None or window is None or busy_pct < GPU_BUSY_PCT or window["dur_us"] <= 0
            or idle_is_the_capture(summary)):
        return None
    edges = np.linspace(window["start_us"], window["end_us"], STRETCHES + 1)
    busy = busy_intervals(trace, (window["start_us"], window["end_us"]), on_a_stream(trace))
    shares = 100 * covered(busy, edges[:-1], edges[1:]) / (edges[1] - edges[0])
    low = shares < STRETCH_BUSY_PCT
    if not low.any():
        return None
    emptiest = int(np.argmin(shares))
    words = (f"GPU busy {busy_pct:.0f}% of the window, but under {STRETCH_BUSY_PCT:.0f}% in {int(low.sum())} of its "
             f"{STRETCHES} stretches of {format_duration(float(edges[1] - edges[0]))}; the emptiest busy "
             f"{shares[emptiest]:.0f}%")
    return Evidence(float(shares[emptiest]), words, float(edges[emptiest]))


RULES: tuple[Rule, ...] = (
    Rule(
        id="data-loading-over-5pct", source="tensorboard",
        detects="a step that waits while the main process loads the next batch",
        measures="data loading's share of the steps' host time (no GPU work), or of the window while the GPU "
                 f"idled for it; over {DATA_LOADING_PCT:.0f}%",
        change="load batches in worker processes (`DataLoader(num_workers=N)`), with `pin_memory=True` on a GPU",
        page="reading-output/input-pipeline.md#without-workers",
        shown_by="reading-input-workers-0", clean_on="basics-steps-scheduled",
        check=data_loading_over_5pct,
    ),
    Rule(
        id="data-parallel", source="tensorboard",
        detects="`nn.DataParallel`, which copies the module to every GPU from one process, each step",
        measures="events of `nn.DataParallel` (its forward's region, module, frames, functions' backward); any",
        change="use `DistributedDataParallel`, one process for each GPU",
        page="reading-output/anti-patterns.md#data-parallel",
        shown_by="reading-anti-patterns", clean_on="reading-anti-patterns-fixed",
        check=data_parallel,
    ),
    Rule(
        id="ddp-on-gloo-with-gpus", source="tensorboard",
        detects="collectives on gloo in a job that runs on GPUs",
        measures="gloo collectives on a trace with GPU kernels and no NCCL kernel; any",
        change="initialise the process group with `backend=\"nccl\"` (or let PyTorch pick it for CUDA tensors)",
        page="reading-output/anti-patterns.md#ddp-on-gloo-with-gpus",
        shown_by="", clean_on="multigpu-ddp",
        check=ddp_on_gloo_with_gpus,
    ),
    Rule(
        id="communication-over-10pct", source="tensorboard",
        detects="communication kernels that take a large share of the run",
        measures=f"communication kernels' time over the window, and its part that overlaps no computation; both "
                 f"over {COMMUNICATION_PCT:.0f}%",
        change="communicate less often or less (gradient accumulation, a larger batch, gradient compression "
               "hooks), and overlap the rest with computation",
        page="multi-gpu/overlap.md#a-job-where-communication-is-the-cost",
        shown_by="multigpu-a100-16rank-overlap", clean_on="multigpu-a100-2rank-overlap",
        check=communication_over_10pct,
    ),
    Rule(
        id="gpu-utilisation-under-50pct", source="tensorboard",
        detects="a GPU idle most of the window",
        measures=f"the GPU's busy time over the window; under {GPU_BUSY_PCT:.0f}%",
        change="find what the GPU waits for (the idle causes) and remove it; else give it more work per launch "
               "(a larger batch)",
        page="reading-output/gpu-waits.md#idle-time-and-its-causes",
        shown_by="reading-a100-2rank", clean_on="compile-a100-triton",
        check=gpu_utilisation_under_50pct,
    ),
    Rule(
        id="tensor-core-eligible-not-on-tensor-cores", source="tensorboard",
        detects="half-precision matrix multiplies and convolutions that ran off the tensor cores",
        measures="fp16 and bf16 GEMM and convolution kernels whose names say no tensor cores, over all kernels' "
                 f"time; over {OFF_TENSOR_CORES_PCT:.0f}%",
        change="make the shapes tensor-core friendly (dimensions multiples of 8) and check that the library picks "
               "tensor-core kernels (`torch.backends.cudnn.benchmark = True` for convolutions)",
        page="reading-output/dispatch.md#on-a-gpu-the-launch-and-the-kernel",
        shown_by="", clean_on="reading-a100-16rank",
        check=tensor_core_eligible_not_on_tensor_cores,
    ),
    Rule(
        id="memory-over-90pct", source="tensorboard",
        detects="a GPU whose memory is nearly full: a larger batch or model will not fit",
        measures=f"the allocator's peak Total Allocated over the GPU's memory (`profile_memory=True`); over "
                 f"{MEMORY_PCT:.0f}%",
        change="free memory: activation checkpointing, mixed precision, a smaller batch with gradient "
               "accumulation, or sharding (FSDP)",
        page="reading-output/memory.md#on-a-gpu-memory-snapshots",
        shown_by="", clean_on="reading-a100-2rank",
        check=memory_over_90pct,
    ),
    Rule(
        id="pageable-host-to-device-copy", source="nsight",
        detects="copies to the GPU from pageable host memory, which the driver stages and the host waits for",
        measures="`Memcpy HtoD (Pageable -> Device)` copies in the window; any",
        change="pin the host memory (`DataLoader(pin_memory=True)`, `tensor.pin_memory()`) and copy with "
               "`non_blocking=True`",
        page="reading-output/input-pipeline.md#more-than-workers",
        shown_by="reference-a100-alexnet", clean_on="reading-a100-2rank",
        check=pageable_host_to_device_copy,
    ),
    Rule(
        id="synchronous-memcpy-memset", source="nsight",
        detects="copy and set calls that block the host until the device is done",
        measures="calls without `Async` (`cudaMemcpy`, `cuMemcpy…`, `hipMemcpy…`, `hipMemset…`) in the window that "
                 "the host waits in, by CUDA's API synchronization behavior: not a copy from device to device, nor "
                 "a `cudaMemset` of device memory; any",
        change="use the Async calls (`tensor.to(device, non_blocking=True)` from pinned memory), and read results "
               "back only when needed",
        page="reading-output/gpu-waits.md#the-long-synchronisation",
        shown_by="reading-mi250-rocm", clean_on="reading-a100-2rank",
        check=synchronous_memcpy_memset,
    ),
    Rule(
        id="sync-inside-steps", source="nsight",
        detects="a host that waits for the GPU inside the training steps",
        measures="`cudaDeviceSynchronize`, `cudaStreamSynchronize`, `cudaEventSynchronize` and kin starting inside "
                 "a ProfilerStep; any",
        change="drop the syncs from the step: read values back (`loss.item()`, `.cpu()`) every N steps, and let "
               "events order the streams",
        page="reading-output/gpu-waits.md#the-long-synchronisation",
        shown_by="reading-a100-16rank", clean_on="multigpu-128rank-sample",
        check=sync_inside_steps,
    ),
    Rule(
        id="long-gpu-gaps", source="nsight",
        detects="a GPU that sits idle for one long stretch",
        measures=f"the longest idle gap; at least {format_duration(LONG_GAP_US)}, or {LONG_GAP_WINDOW_PCT:.0f}% of "
                 f"the window and {format_duration(LONG_GAP_MIN_US)}",
        change="see what the host does during the gap (its cause, the host's events there) and move it off the "
               "step or overlap it",
        page="reading-output/gpu-waits.md#idle-time-and-its-causes",
        shown_by="reference-a100-alexnet", clean_on="reading-a100-2rank",
        check=long_gpu_gaps,
    ),
    Rule(
        id="low-gpu-utilisation-stretch", source="nsight",
        detects="stretches of the window in which the GPU is mostly idle, on a GPU busy overall",
        measures=f"the GPU's busy share in the emptiest of {STRETCHES} equal stretches of the window, on a GPU busy "
                 f"at least {GPU_BUSY_PCT:.0f}% overall; under {STRETCH_BUSY_PCT:.0f}%",
        change="look at what the host does in that stretch (an evaluation, a checkpoint, a log) and move it off "
               "the step or overlap it",
        page="reading-output/anti-patterns.md#low-gpu-utilisation-stretch",
        shown_by="reading-h100-qwen", clean_on="compile-a100-triton",
        check=low_gpu_utilisation_stretch,
    ),
)
