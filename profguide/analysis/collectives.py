"""A collective's anatomy: the events one ``torch.distributed`` collective leaves in a trace, layer by layer.

A collective (``dist.all_reduce``, or DDP's reducer sending a bucket of
gradients) leaves up to five kinds of event: the op the call dispatches
(``c10d::allreduce_``) on the thread that called it; where the backend records
them, its parameters (``record_param_comms``: message size, data type, process
group); the backend's own op (``gloo:all_reduce`` on one of gloo's threads,
``nccl:all_reduce`` on the calling thread, which only enqueues the work); and,
on a GPU, the same name on a stream around the NCCL kernel that moves the data.
DDP's reducer adds ops of its own around them.

These need the threads' names and the args that size a message, which the
trace carries beside its columns (``Trace.thread_names``, ``Trace.comm_args``);
the traces they are meant for are a recording's or one rank's of a real job.
"""

import re
from collections.abc import Sequence
from math import prod
from typing import Any

import numpy as np
import numpy.typing as npt

from profguide.analysis.select import Indices, launch_of, names_where, profiler_steps
from profguide.jsontypes import JSONObject, is_int_list
from profguide.patterns import BACKEND_OP, COMMUNICATION
from profguide.stats import median
from profguide.trace.model import KIND, Lane, Trace

THREAD_LABEL = re.compile(r"\((.+)\)\s*$")
# The layers in the order a collective goes through them, and what each is, in words.
LAYERS = {
    "call": "the op the call dispatches",
    "parameters": "its sizes and process group",
    "backend": "the backend's op",
    "stream": "the backend's op on the GPU",
    "kernel": "the kernel that moves the data",
    "reducer": "DDP's reducer, around the buckets",
}
# Bytes per element of the type names traces use: ``Input type`` (``float``) and ``dtype`` (``Float``).
DTYPE_BYTES = {"float": 4, "double": 8, "c10::half": 2, "half": 2, "c10::bfloat16": 2, "bfloat16": 2,
               "long": 8, "long int": 8, "int": 4, "short": 2, "signed char": 1, "unsigned char": 1, "bool": 1}


LAYER_NAMES = tuple(LAYERS)
# The category torch gives each layer's events: the layer is told by it (and by the event's name).
LAYER_CATEGORY = {"call": "cpu_op", "parameters": "cpu_op", "backend": "user_annotation",
                  "stream": "gpu_user_annotation", "kernel": "kernel", "reducer": "cpu_op"}
NO_LAYER = -1


def layers(trace: Trace) -> npt.NDArray[np.int8]:
    """Each event's layer of a collective, as an index into ``LAYER_NAMES``, or NO_LAYER."""
    kind, ops = trace.kind, trace.kind == KIND["cpu_op"]
    backend = names_where(trace, BACKEND_OP.match)
    masks = {
        "call": ops & names_where(trace, lambda name: name.startswith("c10d::")),
        "parameters": ops & names_where(trace, lambda name: name == "record_param_comms"),
        "backend": (kind == KIND["annotation"]) & backend,
        "stream": (kind == KIND["gpu_annotation"]) & backend,
        "kernel": (kind == KIND["kernel"]) & names_where(trace, COMMUNICATION.search),
        "reducer": ops & names_where(trace, lambda name: "reducer::" in name),
    }
    found = np.full(len(trace), NO_LAYER, dtype=np.int8)
    for layer in reversed(LAYER_NAMES):  # where two layers would claim an event, the earlier one takes it
        found[masks[layer]] = LAYER_NAMES.index(layer)
    return found


def in_layer(trace: Trace, layer: str) -> Indices:
    """The indices of the events of ``layer``, in trace order."""
    return np.flatnonzero(layers(trace) == LAYER_NAMES.index(layer))


def thread_labels(trace: Trace) -> dict[Lane, str]:
    """(pid, tid) → the name the trace gives the lane: ``pt_gloo_runloop``, ``pt_autograd_0``, ``stream 40``.

    torch names a thread more than once (``python`` and then ``pt_gloo_runloop``);
    the name that differs from the main thread's is the one that says what the thread does.
    """
    names = {lane: [match.group(1) if (match := THREAD_LABEL.search(raw.strip())) else raw.strip() for raw in raws]
             for lane, raws in trace.thread_names.items()}
    main = {pid: labels[0] for (pid, tid), labels in names.items() if pid == tid and labels}
    return {lane: next((label for label in labels if label != main.get(lane[0])), labels[0])
            for lane, labels in names.items() if labels}


def anatomy(trace: Trace) -> list[dict[str, Any]]:
    """The collective's events grouped by layer, name and the thread or stream they run on, in layer order:
    [{"layer", "name", "category", "runs_on", "lanes", "count", "median_us"}]."""
    labels, found = thread_labels(trace), layers(trace)
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for index in np.flatnonzero(found != NO_LAYER):
        layer, lane = LAYER_NAMES[found[index]], trace.lanes[trace.lane[index]]
        runs_on = labels.get(lane, f"thread {lane[1]}")
        group = groups.setdefault((layer, trace.names[trace.name[index]], runs_on), {"lanes": set(), "durations": []})
        group["lanes"].add(lane)
        group["durations"].append(float(trace.dur[index]))
    return [{"layer": layer, "name": name, "category": LAYER_CATEGORY[layer], "runs_on": runs_on,
             "lanes": len(group["lanes"]), "count": len(group["durations"]), "median_us": median(group["durations"])}
            for (layer, name, runs_on), group in sorted(groups.items(), key=lambda item: LAYER_NAMES.index(item[0][0]))]


def enclosing(trace: Trace, inner: int | np.integer[Any], outers: Indices) -> int | None:
    """The first of ``outers`` (event indices) other than ``inner`` that holds event ``inner`` in time on its
    thread, or None."""
    holds = ((trace.lane[outers] == trace.lane[inner]) & (trace.ts[outers] <= trace.ts[inner])
             & (trace.end[outers] >= trace.end[inner]) & (outers != inner))
    found = np.flatnonzero(holds)
    return int(outers[found[0]]) if len(found) else None


def backend_ops(trace: Trace, collective: str) -> Indices:
    """The indices of the backend's host-side ops of one collective (``all_reduce``), in order of start."""
    named = names_where(trace, lambda name: (found := BACKEND_OP.match(name)) is not None and found[2] == collective)
    return np.flatnonzero(named & (layers(trace) == LAYER_NAMES.index("backend")))


def outside_calls_share(trace: Trace, collective: str = "all_reduce") -> float | None:
    """The share of the backend's ops of ``collective`` that run outside the call that asked for them (on
    another thread): 1 for gloo, whose own threads do the work; 0 for NCCL, which enqueues it from the call."""
    ops = backend_ops(trace, collective)
    if not len(ops):
        return None
    calls = in_layer(trace, "call")
    return sum(enclosing(trace, op, calls) is None for op in ops) / len(ops)


def inside_share(trace: Trace, inner: str, outer_contains: str) -> float | None:
    """The share of the events named ``inner`` that an event whose name holds ``outer_contains`` encloses."""
    inners = np.flatnonzero(names_where(trace, lambda name: name == inner))
    if not len(inners):
        return None
    outers = np.flatnonzero(names_where(trace, lambda name: outer_contains in name and name != inner))
    return sum(enclosing(trace, event, outers) is not None for event in inners) / len(inners)


def message_bytes(trace: Trace, index: int, parameters: Indices) -> int | None:
    """The bytes one backend op (event ``index``) sends: from its ``Input Dims`` (recorded with
    ``record_shapes``), else from the ``record_param_comms`` event of ``parameters`` around it; None when
    neither says."""
    args = trace.comm_args.get(index, {})
    dims, types = args.get("Input Dims"), args.get("Input type")
    elements: object  # a count where the trace gives one
    if dims and isinstance(dims, list) and is_int_list(dims[0]) and isinstance(types, list) and types:
        elements, dtype = prod(dims[0]), types[0]
    else:
        around = enclosing(trace, index, parameters)
        found = trace.comm_args.get(around, {}) if around is not None else {}
        elements, dtype = found.get("In msg nelems"), found.get("dtype")
    size = DTYPE_BYTES.get(str(dtype).lower())
    return elements * size if isinstance(elements, int) and size else None


def step_buckets(trace: Trace, collective: str = "all_reduce") -> list[dict[str, Any]]:
    """Each ``ProfilerStep#N``: the backend ops of ``collective`` that start in it and the bytes of each,
    [{"step", "sizes"}] (a size is None where the trace does not say)."""
    ops, parameters = backend_ops(trace, collective), in_layer(trace, "parameters")
    rows: list[dict[str, Any]] = []
    for step in profiler_steps(trace):
        start, end = step["start_us"], step["start_us"] + step["dur_us"]
        inside = ops[(trace.ts[ops] >= start) & (trace.ts[ops] < end)]
        rows.append({"step": step["step"], "sizes": [message_bytes(trace, int(op), parameters) for op in inside]})
    return rows


def fewest_per_step(trace: Trace, collective: str = "all_reduce") -> int | None:
    """The fewest backend ops of ``collective`` that start in any one step; None without steps."""
    counts = [len(row["sizes"]) for row in step_buckets(trace, collective)]
    return min(counts) if counts else None


def comm_stream_share(trace: Trace) -> float | None:
    """Of the kernel time on the streams that run communication kernels, the share that is communication:
    1 when NCCL has its streams to itself."""
    kernels = trace.kind == KIND["kernel"]
    comm = kernels & names_where(trace, COMMUNICATION.search)
    total = float(trace.dur[kernels & np.isin(trace.lane, np.unique(trace.lane[comm]))].sum())
    return float(trace.dur[comm].sum()) / total if total else None


def ranks_named(infos: Sequence[JSONObject | None]) -> float | None:
    """The share of a job's rank traces whose ``distributedInfo`` names their own rank (their position among
    them) and the job's size."""
    if not infos:
        return None
    return sum(isinstance(info, dict) and info.get("rank") == rank and info.get("world_size") == len(infos)
               for rank, info in enumerate(infos)) / len(infos)


def communication_by_call(trace: Trace) -> list[dict[str, Any]]:
    """The communication kernels' time by the collective that launched them and by kernel name.

    A kernel's name need not name its collective (a job's all-reduces can all run as
    ``ncclKernel_SendRecv_…``), so each kernel is joined to its launch call by ``correlation``, and the
    backend op that encloses that call on its thread (``nccl:all_reduce``) names the collective. A kernel
    whose launch the trace does not hold (launched before the profiler started) has no call.
    Returns [{"call", "kernel", "count", "us"}], most time first; ``call`` is the backend op
    (``nccl:all_reduce``, ``nccl:all_to_all``…) or None.
    """
    kernels, backend = in_layer(trace, "kernel"), in_layer(trace, "backend")
    rows: dict[tuple[str | None, str], dict[str, Any]] = {}
    for kernel, launch in zip(kernels, launch_of(trace, kernels), strict=True):
        op = enclosing(trace, launch, backend) if launch >= 0 else None
        call, name = (trace.names[trace.name[op]] if op is not None else None), trace.names[trace.name[kernel]]
        row = rows.setdefault((call, name), {"call": call, "kernel": name, "count": 0, "us": 0.0})
        row["count"] += 1
        row["us"] += float(trace.dur[kernel])
    return sorted(rows.values(), key=lambda row: -row["us"])


def collective_identity(trace: Trace, index: int) -> str | None:
    """Which collective of which process group event ``index`` is, the same on every rank that ran it
    (``"<group>#<Seq>"``): Kineto copies ``Seq`` and the process group's name (``Comms Id`` where the name is
    missing) from ``record_param_comms`` onto NCCL's kernels (kineto#1294, #1483). None where the event has no
    ``Seq``."""
    args = trace.comm_args.get(index, {})
    seq = args.get("Seq")
    if isinstance(seq, str) and seq.strip().isdigit():
        seq = int(seq)
    if not isinstance(seq, int) or isinstance(seq, bool):
        return None
    group = next((str(args[key]) for key in ("Process Group Name", "Comms Id") if args.get(key) is not None), "")
    return f"{group}#{seq}"


def ranks_named_in(traces: Sequence[Trace]) -> float | None:
    """``ranks_named`` of the ranks' traces, in rank order."""
    return ranks_named([loaded.distributed_info for loaded in traces])


def rank_and_size(trace: Trace) -> tuple[int | None, int | None]:
    """The rank and the job's size that the trace's ``distributedInfo`` names, each None where it names none."""
    info = trace.distributed_info or {}
    rank, size = info.get("rank"), info.get("world_size")
    return (rank if isinstance(rank, int) else None), (size if isinstance(size, int) else None)
