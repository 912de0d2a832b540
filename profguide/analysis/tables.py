"""A trace as tables: its events, ops, kernels, launches, memory events, steps and idle gaps as columns, for
``profguide export TRACE --parquet DIR`` to write (and a reader's SQL to query).

Every table is a dict of equal-length columns (numpy arrays, or lists of strings and None). Times are in µs on
the trace's own clock and sizes in bytes, as ``explain --json`` gives them; an ``event`` column is the event's
position in the trace's events (the ``events`` table's ``event``), which joins the tables. A pid or tid is written
as text (a trace may write either as a number or a string); an absent id is null. Every number here comes from
the analyses ``explain`` runs (the op view's ``host_times``, ``launch_owners``, ``profiler_steps``,
``idle_intervals``): nothing is computed twice.

``SCHEMA`` describes each table and column; ``schema_tables`` writes it as the reference's Markdown.
"""

from collections.abc import Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt

from profguide.analysis.families import kernel_family
from profguide.analysis.idle import idle_intervals
from profguide.analysis.launches import joined_launches
from profguide.analysis.ops import device_label, host_times, launch_owners
from profguide.analysis.select import gpu_work, kinds_mask, names_where, on_a_stream, profiler_steps
from profguide.patterns import STEP
from profguide.trace.model import KIND, KIND_NAMES, NO_ID, LaneId, Trace

ColumnType = Literal["string", "int64", "float64"]
Column = npt.NDArray[np.float64] | npt.NDArray[np.int64] | Sequence[str | None] | Sequence[int | None]
Table = dict[str, Column]

# Each table: what a row is, and each column's type and meaning. The writer follows this order and these types.
SCHEMA: dict[str, tuple[str, dict[str, tuple[ColumnType, str]]]] = {
    "events": ("every complete event (ph X) of the trace, in the trace's order (by start)", {
        "event": ("int64", "the event's position in this table: the key the other tables' event columns name"),
        "name": ("string", "its name as the trace writes it"),
        "kind": ("string", "its kind, from its category: " + ", ".join(KIND_NAMES)),
        "ts_us": ("float64", "its start (µs)"),
        "dur_us": ("float64", "its duration (µs)"),
        "pid": ("string", "its pid as text: a process on the host, a device on the GPU"),
        "tid": ("string", "its tid as text: a thread on the host, a stream on the GPU"),
        "correlation": ("int64", "args.correlation: joins a launch call to the GPU op it launched; null if none"),
        "external_id": ("int64", "args.External id: joins a GPU op to its CPU op; null if none"),
    }),
    "ops": ("every call of a CPU op (cpu_op events but ProfilerStep#N), with the op view's times", {
        "event": ("int64", "the call's event"),
        "name": ("string", "the op's name (aten::addmm)"),
        "shapes": ("string", "its Input Dims as the trace writes them; empty when not recorded"),
        "ts_us": ("float64", "its start (µs)"),
        "cpu_us": ("float64", "its time on the CPU, what it called included (its duration)"),
        "self_cpu_us": ("float64", "its time on the CPU outside the ops and regions it called"),
        "device_us": ("float64", "time of the GPU ops launched inside it, by any op it called too"),
        "self_device_us": ("float64", "time of the GPU ops it launched itself"),
        "gpu_ops": ("int64", "how many GPU ops (kernels, copies, sets) were launched inside it"),
        "parent": ("int64", "the event of the innermost op or region around it on its thread; null at the top"),
        "pid": ("string", "its process"),
        "tid": ("string", "its thread"),
    }),
    "kernels": ("every GPU op: kernels, copies and sets", {
        "event": ("int64", "the GPU op's event"),
        "name": ("string", "its name"),
        "kind": ("string", "kernel, memcpy or memset"),
        "family": ("string", "what kind of work its name says it is (gemm, attention, elementwise …; "
                             "copy and set for the others)"),
        "ts_us": ("float64", "its start (µs)"),
        "dur_us": ("float64", "its duration (µs)"),
        "device": ("string", "its pid as text: the device"),
        "stream": ("string", "its tid as text: the stream"),
        "correlation": ("int64", "its correlation id; null if none"),
        "launch": ("int64", "the event of the runtime or driver call that launched it; null if not in the trace"),
        "launch_name": ("string", "that call's name (cudaLaunchKernel, cuLaunchKernelEx …); null if none"),
        "op": ("int64", "the event of the op or region that launched it (the innermost open at the launch, or the "
                        "op of its External id): the op view's join; null if none"),
        "op_name": ("string", "that op's or region's name; null if none"),
    }),
    "launches": ("every runtime or driver call with a correlation id", {
        "event": ("int64", "the call's event"),
        "name": ("string", "its name (cudaLaunchKernel …)"),
        "ts_us": ("float64", "its start (µs)"),
        "dur_us": ("float64", "its duration (µs)"),
        "pid": ("string", "its process"),
        "tid": ("string", "its thread"),
        "correlation": ("int64", "its correlation id"),
        "gpu_op": ("int64", "the event of the GPU op it launched; null if none is in the trace"),
        "delay_us": ("float64", "from the call's end to that op's start (µs); null without one"),
    }),
    "memory": ("every allocator event ([memory] instants, profile_memory=True), in file order", {
        "ts_us": ("float64", "when (µs)"),
        "bytes": ("float64", "the bytes allocated, negative for a free"),
        "total_allocated": ("float64", "the allocator's Total Allocated after it (bytes); null if absent"),
        "device": ("string", "its device as torch names it (cpu, cuda:0)"),
        "pid": ("string", "the process that allocated"),
        "tid": ("string", "the thread that allocated"),
    }),
    "steps": ("every ProfilerStep#N region that prof.step() marks, in order of start", {
        "step": ("int64", "N of ProfilerStep#N"),
        "start_us": ("float64", "its start (µs)"),
        "dur_us": ("float64", "its duration (µs)"),
    }),
    "idle": ("every gap in the GPU's work over the window explain measures a whole trace over (HolisticTrace"
             "Analysis's rule; the extent of the GPU's work where that rule leaves out most of it), with its cause", {
        "start_us": ("float64", "the gap's start (µs)"),
        "end_us": ("float64", "its end (µs)"),
        "dur_us": ("float64", "its length (µs)"),
        "cause": ("string", "why the GPU was idle: host, sync, profiler, queued or other, as explain's by_cause"),
        "next_op": ("int64", "the event of the GPU op that ended it; null at the window's end"),
        "next_launch": ("int64", "the event of that op's launch call; null if not in the trace"),
    }),
}


def schema_tables() -> str:
    """``SCHEMA`` as Markdown: a heading and a table of columns for each table."""
    parts = []
    for table, (meaning, columns) in SCHEMA.items():
        rows = "\n".join(f"| `{column}` | {kind} | {text} |" for column, (kind, text) in columns.items())
        parts.append(f"### `{table}`\n\nA row: {meaning}.\n\n| Column | Type | Meaning |\n|---|---|---|\n{rows}\n")
    return "\n".join(parts)


def lane_text(value: LaneId) -> str | None:
    """A pid or tid as text; None where the trace had none."""
    return None if value is None else str(value)


def lane_columns(trace: Trace, events: npt.NDArray[np.intp]) -> tuple[list[str | None], list[str | None]]:
    """The pids and tids of ``events`` as text."""
    pids = [lane_text(pid) for pid, _ in trace.lanes]
    tids = [lane_text(tid) for _, tid in trace.lanes]
    lanes = trace.lane[events].tolist()
    return [pids[lane] for lane in lanes], [tids[lane] for lane in lanes]


def nullable(values: npt.NDArray[np.int64] | npt.NDArray[np.intp], absent: int = NO_ID) -> list[int | None]:
    """Ids as a list, None where ``absent``."""
    return [None if value == absent else value for value in values.tolist()]


def names_of(trace: Trace, events: npt.NDArray[np.intp]) -> list[str | None]:
    """The names of ``events``, None where the index is -1."""
    return [None if event < 0 else trace.names[code]
            for event, code in zip(events.tolist(), trace.name[np.maximum(events, 0)].tolist(), strict=True)]


def events_table(trace: Trace) -> Table:
    everything = np.arange(len(trace))
    pids, tids = lane_columns(trace, everything)
    return {"event": everything.astype(np.int64), "name": [trace.names[code] for code in trace.name.tolist()],
            "kind": [KIND_NAMES[code] for code in trace.kind.tolist()], "ts_us": trace.ts, "dur_us": trace.dur,
            "pid": pids, "tid": tids, "correlation": nullable(trace.correlation),
            "external_id": nullable(trace.external_id)}


def ops_table(trace: Trace) -> Table:
    times = host_times(trace)
    order = times.order
    picked = np.flatnonzero((trace.kind[order] == KIND["cpu_op"]) & ~names_where(trace, STEP.match)[order])
    events = order[picked]
    pids, tids = lane_columns(trace, events)
    parent = times.parent[picked]
    return {"event": events.astype(np.int64), "name": [trace.names[code] for code in trace.name[events].tolist()],
            "shapes": [trace.shape_texts[code] if code >= 0 else "" for code in trace.shape[events].tolist()],
            "ts_us": trace.ts[events], "cpu_us": trace.dur[events], "self_cpu_us": times.self_cpu[picked],
            "device_us": times.device[picked], "self_device_us": times.self_device[picked],
            "gpu_ops": times.kernels[picked], "parent": nullable(np.where(parent >= 0, order[parent], -1)),
            "pid": pids, "tid": tids}


def kernels_table(trace: Trace) -> Table:
    times = host_times(trace)
    work = np.flatnonzero(gpu_work(trace))
    owned, owner = launch_owners(trace, times.order, times.tree)
    op = np.full(len(trace), -1, np.intp)
    op[owned] = times.order[owner]
    launched, calls = joined_launches(trace)
    launch = np.full(len(trace), -1, np.intp)
    launch[launched] = calls
    families = {code: kernel_family(trace.names[code]).family for code in np.unique(trace.name[work]).tolist()}
    kinds = trace.kind[work].tolist()
    devices, streams = lane_columns(trace, work)
    return {"event": work.astype(np.int64), "name": [trace.names[code] for code in trace.name[work].tolist()],
            "kind": [KIND_NAMES[code] for code in kinds],
            "family": [families[code] if kind == KIND["kernel"] else "copy" if kind == KIND["memcpy"] else "set"
                       for code, kind in zip(trace.name[work].tolist(), kinds, strict=True)],
            "ts_us": trace.ts[work], "dur_us": trace.dur[work], "device": devices, "stream": streams,
            "correlation": nullable(trace.correlation[work]), "launch": nullable(launch[work]),
            "launch_name": names_of(trace, launch[work]), "op": nullable(op[work]),
            "op_name": names_of(trace, op[work])}


def launches_table(trace: Trace) -> Table:
    calls = np.flatnonzero(kinds_mask(trace, ("runtime", "driver")) & (trace.correlation != NO_ID))
    launched, by = joined_launches(trace)
    gpu_op = np.full(len(trace), -1, np.intp)
    gpu_op[by] = launched
    ops = gpu_op[calls]
    pids, tids = lane_columns(trace, calls)
    delay = np.where(ops >= 0, trace.ts[np.maximum(ops, 0)] - trace.end[calls], np.nan)
    return {"event": calls.astype(np.int64), "name": [trace.names[code] for code in trace.name[calls].tolist()],
            "ts_us": trace.ts[calls], "dur_us": trace.dur[calls], "pid": pids, "tid": tids,
            "correlation": trace.correlation[calls], "gpu_op": nullable(ops), "delay_us": delay}


def memory_table(trace: Trace) -> Table:
    lanes = [(lane_text(pid), lane_text(tid)) for pid, tid in trace.memory_lanes]
    devices = [device_label(device) for device in trace.memory_devices]
    return {"ts_us": trace.memory_ts, "bytes": trace.memory_bytes, "total_allocated": trace.memory_total,
            "device": [devices[code] if 0 <= code < len(devices) else None for code in trace.memory_device.tolist()],
            "pid": [lanes[code][0] for code in trace.memory_lane.tolist()],
            "tid": [lanes[code][1] for code in trace.memory_lane.tolist()]}


def steps_table(trace: Trace) -> Table:
    steps = profiler_steps(trace)
    return {"step": np.array([step["step"] for step in steps], np.int64),
            "start_us": np.array([step["start_us"] for step in steps]),
            "dur_us": np.array([step["dur_us"] for step in steps])}


def idle_table(trace: Trace) -> Table:
    from profguide.analysis.summarise import measured_window

    if on_a_stream(trace).any():
        ops, window, _, _ = measured_window(trace)
        gaps = idle_intervals(trace, window, ops)
        starts, ends, next_op, launch, causes = gaps
    else:
        starts = ends = np.zeros(0)
        next_op = launch = np.zeros(0, np.intp)
        causes = np.zeros(0, object)
    return {"start_us": starts, "end_us": ends, "dur_us": ends - starts, "cause": [str(c) for c in causes],
            "next_op": nullable(next_op), "next_launch": nullable(launch)}


MAKERS = {"events": events_table, "ops": ops_table, "kernels": kernels_table, "launches": launches_table,
          "memory": memory_table, "steps": steps_table, "idle": idle_table}


def trace_tables(trace: Trace) -> dict[str, Table]:
    """Every table of ``SCHEMA`` for ``trace``, its columns in the schema's order."""
    return {name: MAKERS[name](trace) for name in SCHEMA}
