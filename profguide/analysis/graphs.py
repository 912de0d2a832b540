"""CUDA (and HIP) graphs in a trace: the GPU ops a graph launch replayed, attributed to their graph and node, and
the captures that recorded graphs.

A replayed op carries the correlation id of its ``cudaGraphLaunch``/``hipGraphLaunch`` call; newer Kineto also
writes ``graph id`` and ``graph node id`` on kernels, memcpys and memsets (kineto's CUPTI activity fields
``graphId`` and ``graphNodeId``). Where those are absent (ROCm's roctracer writes neither), a replayed op's graph
is its launch call and its node its place among the ops of that launch, in order of start.

A capture trace records ``cudaStreamBeginCapture``…``cudaStreamEndCapture``: the launch calls made in between
are recorded into a graph and run no kernel then. ``captured_by`` joins a replay trace to the capture trace of
the same graphs: the k-th graph replayed is the k-th captured, checked by their numbers of nodes.
"""

import re
from typing import TypedDict

import numpy as np

from profguide.analysis.compile import CUDA_GRAPH_LAUNCHES
from profguide.analysis.intervals import Mask, Window
from profguide.analysis.select import Indices, gpu_work, kinds_mask, launch_of, names_where
from profguide.analysis.summary import CaptureJoin, GraphUse, ReplayedByOp
from profguide.trace.model import KIND, NO_ID, Trace

CAPTURE_BEGINS = frozenset({"cudaStreamBeginCapture", "cudaStreamBeginCapture_v2", "cudaStreamBeginCaptureToGraph",
                            "cuStreamBeginCapture", "cuStreamBeginCapture_v2", "hipStreamBeginCapture"})
CAPTURE_ENDS = frozenset({"cudaStreamEndCapture", "cuStreamEndCapture", "hipStreamEndCapture"})
# The calls that add a node to a graph being captured: kernel launches (runtime, driver, HIP's module and
# extended launches) and asynchronous copies and sets. ``cudaGraphLaunch`` is not one.
NODE_CALL = re.compile(r"Launch\w*Kernel\w*$|Memcpy\w*Async$|Memset\w*Async$")


def graph_launches(trace: Trace) -> Mask:
    """The calls that launch a whole graph: ``cudaGraphLaunch``, ``cuGraphLaunch``, ``hipGraphLaunch``."""
    return names_where(trace, CUDA_GRAPH_LAUNCHES.__contains__) & kinds_mask(trace, ("runtime", "driver"))


def replay_of(trace: Trace, ops: Indices) -> Indices:
    """For each GPU op index (-1 for none), the graph launch call that replayed it, or -1."""
    launch = launch_of(trace, np.maximum(ops, 0))
    by_graph = (ops >= 0) & (launch >= 0) & graph_launches(trace)[np.maximum(launch, 0)]
    return np.where(by_graph, launch, -1)


def replayed(trace: Trace) -> Mask:
    """The GPU ops (kernels, memcpy, memset) that a graph replayed: by their ``graph id``, or by their launch."""
    work = gpu_work(trace)
    indices = np.flatnonzero(work)
    mask = np.zeros(len(trace), dtype=bool)
    mask[indices] = (trace.graph_id[indices] != NO_ID) | (replay_of(trace, indices) >= 0)
    return mask


def replayed_after_first(trace: Trace, ops: Indices) -> Mask:
    """Which of ``ops`` (GPU op indices, -1 for none) a graph launch replayed after an earlier op of the same
    launch had started: the launch queued the whole graph at once, so the GPU was not waiting for the host."""
    work = np.flatnonzero(gpu_work(trace))
    launches = replay_of(trace, work)
    work, launches = work[launches >= 0], launches[launches >= 0]  # the ops a graph launch replayed
    first_start = np.full(len(trace), np.inf)
    np.minimum.at(first_start, launches, trace.ts[work])
    launch = replay_of(trace, ops)
    return (launch >= 0) & (trace.ts[np.maximum(ops, 0)] > first_start[np.maximum(launch, 0)])


def graph_nodes(trace: Trace) -> tuple[Indices, Indices, Indices]:
    """(ops, graph, node): every replayed GPU op in order of start, its graph (its ``graph id``, else the index
    of the launch call that replayed it) and its node (its ``graph node id``, else its place among the ops of
    that launch, from 0)."""
    ops = np.flatnonzero(replayed(trace))
    launch = replay_of(trace, ops)
    has_id = trace.graph_id[ops] != NO_ID
    graph = np.where(has_id, trace.graph_id[ops], launch)
    # Without ids: the place of each op among its launch's, counted in start order (ops are in start order).
    by_launch = np.argsort(launch, kind="stable")
    group_start = np.searchsorted(launch[by_launch], launch[by_launch])
    place = np.empty(len(ops), np.int64)
    place[by_launch] = np.arange(len(ops)) - group_start
    node = np.where(has_id, trace.graph_node[ops], place)
    return ops, graph, node


def captures(trace: Trace) -> list[tuple[int, int]]:
    """(begin, end) call indices of each stream capture: a begin and the next end on the same thread."""
    begins = np.flatnonzero(names_where(trace, CAPTURE_BEGINS.__contains__))
    ends = np.flatnonzero(names_where(trace, CAPTURE_ENDS.__contains__))
    found = []
    for begin in begins.tolist():
        later = ends[(trace.lane[ends] == trace.lane[begin]) & (trace.ts[ends] >= trace.ts[begin])]
        if len(later):
            found.append((begin, int(later[0])))
    return found


def captured_calls(trace: Trace, begin: int, end: int) -> Indices:
    """The calls that added a node to the graph captured between ``begin`` and ``end``, in order."""
    calls = (names_where(trace, NODE_CALL.search) & kinds_mask(trace, ("runtime", "driver"))
             & (trace.lane == trace.lane[begin]) & (trace.ts >= trace.ts[begin]) & (trace.ts <= trace.ts[end]))
    return np.flatnonzero(calls)


def capturing_op(trace: Trace, call: int) -> int | None:
    """The innermost op (``cpu_op``) on the call's thread that encloses the call, or None."""
    ops = np.flatnonzero((trace.kind == KIND["cpu_op"]) & (trace.lane == trace.lane[call])
                         & (trace.ts <= trace.ts[call]) & (trace.end >= trace.end[call]))
    return int(ops[-1]) if len(ops) else None  # sorted by start: the last to start is the innermost


class CapturedOp(TypedDict):
    """A GPU op of a replay and the op that captured it."""

    kernel: str  # the replayed op's name
    start_us: float  # its start, on the replay trace's clock
    dur_us: float  # its duration
    graph: int  # the k-th graph replayed, from 0
    node: int  # its node in that graph
    captured_by: str | None  # the op (cpu_op) whose launch call recorded it; None where the capture does not match


def captured_by(replay: Trace, capture: Trace) -> list[CapturedOp]:
    """Each GPU op that ``replay`` replayed from a graph, with the op of ``capture`` (a trace of the captures of
    the same graphs) that recorded it. The k-th graph replayed (in order of first start) is taken for the k-th
    captured; where their numbers of nodes differ, ``captured_by`` is None for that graph's ops."""
    ops, graph, node = graph_nodes(replay)
    graphs = list(dict.fromkeys(graph.tolist()))  # in order of first start
    recorded = [captured_calls(capture, begin, end) for begin, end in captures(capture)]
    rows: list[CapturedOp] = []
    for ordinal, key in enumerate(graphs):
        members = np.flatnonzero(graph == key)
        rank = np.argsort(np.argsort(node[members], kind="stable"), kind="stable")  # node ids to 0, 1, 2…
        calls = recorded[ordinal] if ordinal < len(recorded) else np.zeros(0, np.int64)
        matches = len(calls) == len(members)
        for member, place in zip(members.tolist(), rank.tolist(), strict=True):
            op = capturing_op(capture, int(calls[place])) if matches else None
            rows.append({"kernel": replay.names[replay.name[ops[member]]], "start_us": float(replay.ts[ops[member]]),
                         "dur_us": float(replay.dur[ops[member]]),
                         "graph": ordinal, "node": int(node[member]),
                         "captured_by": None if op is None else capture.names[capture.name[op]]})
    return rows


def capture_join(rows: list[CapturedOp], capture_file: str, limit: int = 10) -> CaptureJoin:
    """``captured_by``'s rows put together: the replayed GPU time by the op that captured it, the ``limit`` ops
    with the most first, and how many replayed ops no capture matched."""
    by_op: dict[str, ReplayedByOp] = {}
    for row in rows:
        if row["captured_by"] is None:
            continue
        entry = by_op.setdefault(row["captured_by"], {"op": row["captured_by"], "ops": 0, "us": 0.0})
        entry["ops"] += 1
        entry["us"] += row["dur_us"]
    matched = sum(entry["ops"] for entry in by_op.values())
    return {"file": capture_file, "replayed_ops": len(rows), "unmatched_ops": len(rows) - matched,
            "by_op": sorted(by_op.values(), key=lambda entry: -entry["us"])[:limit]}


def graph_use(trace: Trace, window: Window) -> GraphUse | None:
    """How the trace uses graphs: its captures (the whole trace), and the GPU ops replayed inside ``window`` and
    the graph launches that replayed them; None when it neither captures nor replays one."""
    spans = captures(trace)
    start, end = window
    inside = (trace.ts >= start) & (trace.ts <= end)
    work = gpu_work(trace) & inside
    ops = replayed(trace) & inside
    if not spans and not ops.any():
        return None
    launches = replay_of(trace, np.flatnonzero(ops))
    ids = trace.graph_id[ops]
    work_us = float(trace.dur[work].sum())
    return {
        "captures": len(spans),
        "captured_calls": sum(len(captured_calls(trace, begin, finish)) for begin, finish in spans),
        "launches": len(np.unique(launches[launches >= 0])),
        "replayed_ops": int(ops.sum()),
        "replayed_us": float(trace.dur[ops].sum()),
        "replayed_pct": 100 * float(trace.dur[ops].sum()) / work_us if work_us else None,
        "graphs": int(len(np.unique(ids[ids != NO_ID]))) if (ids != NO_ID).any() else None,
    }


def uses_graphs(graphs: GraphUse | None) -> bool:
    """Whether the trace captures graphs or its window replays them: advice to capture one is moot there."""
    return graphs is not None and bool(graphs["captures"] or graphs["replayed_ops"])
